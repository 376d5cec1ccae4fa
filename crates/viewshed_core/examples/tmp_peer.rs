#[path = "../benches/support/mod.rs"]
mod support;
use std::hint::black_box;
use support::{MapKind, central_floor};
struct G {
    w: u32,
    h: u32,
    o: Vec<u8>,
}
struct I;
impl shadowcast::InputGrid for I {
    type Grid = G;
    type Opacity = u8;
    fn size(&self, g: &G) -> coord_2d::UCoord {
        coord_2d::UCoord::new(g.w, g.h)
    }
    fn get_opacity(&self, g: &G, c: coord_2d::ICoord) -> u8 {
        g.o[c.y as usize * g.w as usize + c.x as usize]
    }
}
#[inline(never)]
fn computations(
    ctx: &mut shadowcast::Context<u8>,
    g: &G,
    v: (u32, u32),
    r: u32,
    cells: &mut Vec<u32>,
    count: u32,
) {
    for k in 0..count {
        let w = g.w as usize;
        ctx.for_each_visible(
            black_box(coord_2d::ICoord::new(v.0 as i32, v.1 as i32)),
            &I,
            g,
            shadowcast::vision_distance::Circle::new_squared(r * (r + 1)),
            255,
            |c, _, _| cells[c.y as usize * w + c.x as usize] = k,
        );
        black_box(&*cells);
    }
}
fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let kind = MapKind::ALL.into_iter().find(|k| k.name() == a[0]).unwrap();
    let r: u32 = if a[1] == "unlimited" {
        256
    } else {
        a[1].parse().unwrap()
    };
    let grid = kind.generate(128, 128, 42);
    let v = central_floor(&grid);
    let g = G {
        w: 128,
        h: 128,
        o: (0..128 * 128u32)
            .map(|i| {
                if grid.is_opaque(i % 128, i / 128) {
                    255
                } else {
                    0
                }
            })
            .collect(),
    };
    let mut ctx = shadowcast::Context::default();
    let mut cells = vec![u32::MAX; 128 * 128];
    computations(&mut ctx, &g, v, r, &mut cells, 1);
    computations(&mut ctx, &g, v, r, &mut cells, a[2].parse().unwrap());
}
