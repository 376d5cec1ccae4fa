//! `adam_fov_rs`, a peer of the benches, is symmetric: it sees exactly the floors that the
//! exact rules see (apart from its own radius rule), and A sees B exactly when B sees A.
//! Checked on every bench map (`benches/support`), from the floors nearest its centre.

#[path = "../benches/support/mod.rs"]
mod support;

use std::collections::BTreeSet;

use support::{MapKind, floors_nearest_centre};
use viewshed_core::{Fov, FovOptions, OpacityGrid, Radius, VisibleSet};

/// Viewers per map: every pair of them is checked both ways.
const VIEWERS: usize = 100;

#[test]
fn adam_fov_rs_sees_our_floors_and_is_symmetric_on_every_bench_map() {
    for kind in MapKind::ALL {
        let grid = kind.generate(128, 128, 42);
        if let Err(problem) = check_adam_is_symmetric(&grid, VIEWERS, 8) {
            panic!("{}: {problem}", kind.name());
        }
    }
}

/// The transparent cells that bevy_viewshed's core sees from `viewer` (walls lit).
pub fn our_floors(grid: &OpacityGrid, viewer: (u32, u32), radius: Radius) -> BTreeSet<(u32, u32)> {
    let mut visible = VisibleSet::new();
    let options = FovOptions::unlimited().with_radius(radius);
    Fov::new()
        .compute(grid, viewer, options, &mut visible)
        .expect("the viewer stands on the map");
    visible
        .iter()
        .filter(|&(x, y)| !grid.is_opaque(x, y))
        .collect()
}

/// The transparent cells that `adam_fov_rs` sees from `viewer` within `range` (its rule: a
/// cell whose float distance from the viewer is at most `range`).
pub fn adam_floors(grid: &OpacityGrid, viewer: (u32, u32), range: usize) -> BTreeSet<(u32, u32)> {
    let mut seen = BTreeSet::new();
    let on_map = |x: i32, y: i32| (x >= 0 && y >= 0).then_some((x as u32, y as u32));
    adam_fov_rs::compute_fov(
        [viewer.0 as i32, viewer.1 as i32],
        range,
        [grid.width(), grid.height()],
        |p| on_map(p.x, p.y).is_none_or(|(x, y)| grid.is_opaque(x, y)),
        |p| {
            if let Some((x, y)) = on_map(p.x, p.y).filter(|&(x, y)| grid.contains(x, y)) {
                seen.insert((x, y));
            }
        },
    );
    seen.retain(|&(x, y)| !grid.is_opaque(x, y));
    seen
}

/// Checks that `adam_fov_rs` is a symmetric peer, from the `viewers` floor cells nearest the
/// centre of `grid`: unlimited, it sees exactly the floors we see; at `radius` it sees ours
/// cut to its radius rule (`dx*dx + dy*dy <= radius*radius`); and for every pair of those
/// viewers, A sees B exactly when B sees A.
pub fn check_adam_is_symmetric(
    grid: &OpacityGrid,
    viewers: usize,
    radius: u32,
) -> Result<(), String> {
    let viewers = floors_nearest_centre(grid, viewers);
    let covering = (grid.width() + grid.height()) as usize;
    let mut views = Vec::new();
    for &a in &viewers {
        let ours = our_floors(grid, a, Radius::Unlimited);
        if adam_floors(grid, a, covering) != ours {
            return Err(format!(
                "unlimited, from {a:?}: adam_fov_rs sees other floors than we do"
            ));
        }
        let in_radius = |&&(x, y): &&(u32, u32)| {
            let (dx, dy) = (i64::from(x) - i64::from(a.0), i64::from(y) - i64::from(a.1));
            dx * dx + dy * dy <= i64::from(radius).pow(2)
        };
        let cut: BTreeSet<_> = ours.iter().filter(in_radius).copied().collect();
        if adam_floors(grid, a, radius as usize) != cut {
            return Err(format!(
                "radius {radius}, from {a:?}: adam_fov_rs is not our view cut to its disk"
            ));
        }
        views.push(ours);
    }
    for (i, &a) in viewers.iter().enumerate() {
        for (j, &b) in viewers.iter().enumerate() {
            if views[i].contains(&b) != views[j].contains(&a) {
                return Err(format!("{a:?} and {b:?}: one sees the other but not back"));
            }
        }
    }
    Ok(())
}
