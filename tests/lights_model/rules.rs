//! The plain model of the light rules: the map's walls and the things on it ([`Model`]), and
//! what the app should show (views, lit sets, the light on every tile), built from the core's
//! field of view alone.

use std::collections::BTreeSet;

use bevy::prelude::*;
use bevy_viewshed::FovOptions;
use bevy_viewshed::hex_distance;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{OpacityGrid, field_of_view, hex_field_of_view};

use crate::common_app::hex_coords;
use crate::ops::{Beam, Kind, Look};

/// A set of tiles.
pub(crate) type Tiles = BTreeSet<(u32, u32)>;

/// The diamond cell bevy_ecs_tilemap draws staggered tile `(x, y)` at.
pub(crate) fn diamond((x, y): (u32, u32)) -> (i64, i64) {
    (i64::from(x), i64::from(x) + i64::from(y))
}

/// A `LightSource` in the model.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lamp {
    pub(crate) radius: u32,
    pub(crate) look: Look,
    pub(crate) beam: Beam,
}

impl Lamp {
    pub(crate) fn component(self) -> LightSource {
        let light = LightSource::new(self.radius)
            .with_color(self.look.color)
            .with_intensity(self.look.intensity);
        match self.beam {
            Some(cone) => light.with_cone(cone),
            None => light,
        }
    }

    /// How it lights: its radius, through its beam (the rules of a viewer's cone).
    pub(crate) fn options(self) -> FovOptions {
        FovOptions {
            cone: self.beam,
            ..FovOptions::radius(self.radius)
        }
    }

    /// What it adds at its own tile, channel by channel (docs/light.md): each linear channel,
    /// the intensity and each channel times the intensity count as 0 when not a number or
    /// below 0, as 1,024 above that (infinity included).
    pub(crate) fn base(self) -> [f64; 3] {
        let sane = |v: f64| {
            if v.is_nan() {
                0.0
            } else {
                v.clamp(0.0, 1024.0)
            }
        };
        let linear = self.look.color.to_linear();
        let intensity = sane(f64::from(self.look.intensity));
        [linear.red, linear.green, linear.blue].map(|c| sane(sane(f64::from(c)) * intensity))
    }
}

/// A viewer in the model: its `Viewshed` options and, when it has `NeedsLight`, its dark
/// vision.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Eye {
    pub(crate) options: FovOptions,
    pub(crate) dark: Option<u32>,
}

/// An entity of the game: a light, a viewer, both (a carried lantern) or, once its components
/// were removed, neither.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Thing {
    pub(crate) entity: Entity,
    /// Its `TilePos`, on the map or not.
    pub(crate) at: (u32, u32),
    /// Whether it has a `TilemapId` (of the map).
    pub(crate) mapped: bool,
    /// Whether it is enabled (no `Disabled`).
    pub(crate) enabled: bool,
    pub(crate) light: Option<Lamp>,
    pub(crate) viewer: Option<Eye>,
}

/// The game as the model sees it: the map's walls and the entities on it.
pub(crate) struct Model {
    pub(crate) kind: Kind,
    pub(crate) grid: OpacityGrid,
    pub(crate) things: Vec<Thing>,
}

impl Model {
    /// The field of view from `at` on this kind of map: the core's square or hexagonal field
    /// of view, or, on a staggered map, the square one on the diamond grid (tile `(x, y)` at
    /// cell `(x, x + y)`, every cell that is no tile a wall) read back as tiles. Nothing from
    /// off the map.
    pub(crate) fn fov(&self, (x, y): (u32, u32), options: FovOptions) -> Tiles {
        if !self.grid.contains(x, y) {
            return BTreeSet::new();
        }
        let (w, h) = self.kind.size();
        match self.kind {
            Kind::Square => field_of_view(&self.grid, (x, y), options)
                .unwrap()
                .iter()
                .collect(),
            Kind::Hex(system) => hex_field_of_view(&self.grid, hex_coords(system), (x, y), options)
                .unwrap()
                .iter()
                .collect(),
            Kind::Staggered => {
                let cells = OpacityGrid::from_fn(w, w + h - 1, |u, v| {
                    v < u || v - u >= h || self.grid.is_opaque(u, v - u)
                });
                field_of_view(&cells, (x, x + y), options)
                    .unwrap()
                    .iter()
                    .filter(|&(u, v)| v >= u && v - u < h)
                    .map(|(u, v)| (u, v - u))
                    .collect()
            }
        }
    }

    /// The distance a light fades over: Euclidean on square maps and on the diamond grid of
    /// staggered ones, in hexagons on hexagonal ones.
    pub(crate) fn distance(&self, a: (u32, u32), b: (u32, u32)) -> f64 {
        let euclid =
            |(ax, ay): (i64, i64), (bx, by): (i64, i64)| ((ax - bx) as f64).hypot((ay - by) as f64);
        let square = |(x, y): (u32, u32)| (i64::from(x), i64::from(y));
        match self.kind {
            Kind::Square => euclid(square(a), square(b)),
            Kind::Hex(system) => hex_distance(hex_coords(system), a, b) as f64,
            Kind::Staggered => euclid(diamond(a), diamond(b)),
        }
    }

    /// Whether `cell` is within dark vision `d` of a viewer at `at`: measured like its radius
    /// (its distance shape, on the diamond grid of a staggered map), in hexagons on a
    /// hexagonal map.
    pub(crate) fn within(
        &self,
        at: (u32, u32),
        options: FovOptions,
        d: u32,
        cell: (u32, u32),
    ) -> bool {
        let square = |(x, y): (u32, u32)| (i64::from(x), i64::from(y));
        let ((ax, ay), (cx, cy)) = match self.kind {
            Kind::Hex(system) => return hex_distance(hex_coords(system), at, cell) <= u64::from(d),
            Kind::Square => (square(at), square(cell)),
            Kind::Staggered => (diamond(at), diamond(cell)),
        };
        options.shape.contains(cx - ax, cy - ay, d)
    }

    /// The lights that shine, with their lit sets: a light lights what a viewer of its
    /// radius there would see, if it is enabled and stands on its map.
    pub(crate) fn shining(&self) -> Vec<(Thing, Lamp, Tiles)> {
        self.things
            .iter()
            .filter(|thing| thing.enabled)
            .filter_map(|thing| Some((*thing, thing.light?)))
            .map(|(thing, lamp)| (thing, lamp, self.lit_by(&thing, lamp)))
            .collect()
    }

    /// What one light lights (nothing off its map or without a tilemap): what a viewer of its
    /// radius and with its beam as vision cone would see there.
    pub(crate) fn lit_by(&self, thing: &Thing, lamp: Lamp) -> Tiles {
        if thing.mapped {
            self.fov(thing.at, lamp.options())
        } else {
            BTreeSet::new()
        }
    }

    /// A viewer's field of view `F` (nothing off the map or without a tilemap) and what it
    /// sees: `F` without `NeedsLight`; with it, the tiles of `F` within its dark vision, the
    /// lit floors, and the lit walls next to a lit floor of `F` (the 3x3 block of tile
    /// positions around them, on every kind of map).
    pub(crate) fn view(&self, thing: &Thing, eye: Eye) -> (Tiles, Tiles) {
        let fov = if thing.mapped {
            self.fov(thing.at, eye.options)
        } else {
            BTreeSet::new()
        };
        let Some(dark) = eye.dark else {
            return (fov.clone(), fov);
        };
        let lit: Tiles = self
            .shining()
            .into_iter()
            .flat_map(|(_, _, lit)| lit)
            .collect();
        let wall = |(x, y): (u32, u32)| self.grid.is_opaque(x, y);
        let lit_floor = |c: (u32, u32)| !wall(c) && lit.contains(&c);
        let by_lit_floor = |(x, y): (u32, u32)| {
            (-1i64..=1).any(|dy| {
                (-1i64..=1).any(|dx| {
                    let (nx, ny) = (i64::from(x) + dx, i64::from(y) + dy);
                    let (Ok(nx), Ok(ny)) = (u32::try_from(nx), u32::try_from(ny)) else {
                        return false;
                    };
                    let n = (nx, ny);
                    (dx, dy) != (0, 0) && fov.contains(&n) && lit_floor(n)
                })
            })
        };
        let seen = fov
            .iter()
            .copied()
            .filter(|&c| {
                self.within(thing.at, eye.options, dark, c)
                    || lit_floor(c)
                    || (wall(c) && lit.contains(&c) && by_lit_floor(c))
            })
            .collect();
        (fov, seen)
    }

    /// The light on `tile` (docs/light.md): how many lights light it, and the sum of their
    /// `color × intensity × (1 − d / (radius + 1))`.
    pub(crate) fn light_at(&self, tile: (u32, u32)) -> (u32, [f64; 3]) {
        let mut sum = [0.0; 3];
        let mut count = 0;
        for (thing, lamp, lit) in self.shining() {
            if !lit.contains(&tile) {
                continue;
            }
            count += 1;
            let falloff = 1.0 - self.distance(thing.at, tile) / (f64::from(lamp.radius) + 1.0);
            for (sum, base) in sum.iter_mut().zip(lamp.base()) {
                *sum += base * falloff.max(0.0);
            }
        }
        (count, sum)
    }

    /// The index of the `i`-th (modulo) thing for which `which` holds.
    pub(crate) fn pick(&self, i: usize, which: impl Fn(&Thing) -> bool) -> Option<usize> {
        let found: Vec<usize> = (0..self.things.len())
            .filter(|&k| which(&self.things[k]))
            .collect();
        (!found.is_empty()).then(|| found[i % found.len()])
    }
}
