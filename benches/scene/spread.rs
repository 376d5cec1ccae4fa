//! The spread scene: viewers standing still, spread over a map that grows with them (one
//! viewer per 64 tiles, as in a 256x256 map with 1,000 viewers), and 100 spottable targets
//! walking among them. Each frame every target steps to a floor neighbour: the sightings
//! judge each moved target against the viewers near it, so the frame should cost the same
//! with 10,000 viewers as with 1,000 when the map grows with them.

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{OpacityGrid, OpaqueCells};

use super::support::{MapKind, Rng};
use super::{RADIUS, minimal_plugins};

/// The walking targets.
pub const TARGETS: usize = 100;

/// Tiles per viewer.
const TILES_PER_VIEWER: u32 = 64;

/// The map's floor, for the walks.
#[derive(Resource)]
struct Floor(OpacityGrid);

/// A target's dice.
#[derive(Component)]
struct Walker(Rng);

/// A headless app with `viewers` still viewers and [`TARGETS`] walking targets on a map of
/// about 64 tiles per viewer (its walls painted in `OpaqueCells`, no tile entities), its
/// first frames played.
pub fn spread_app(viewers: usize) -> App {
    let side = ((viewers as f64 * TILES_PER_VIEWER as f64).sqrt().ceil() as u32).max(32);
    let rooms = MapKind::Dungeon.generate(side, side, 7);
    let grid = OpacityGrid::from_fn(side, side, |x, y| rooms.is_opaque(x, y));
    let mut app = App::new();
    app.add_plugins((minimal_plugins(), ViewshedPlugins::default()));
    let size = TilemapSize::new(side, side);
    let map = app
        .world_mut()
        .spawn((
            size,
            TileStorage::empty(size),
            TilemapGridSize::new(16.0, 16.0),
            TilemapTileSize::new(16.0, 16.0),
            TilemapType::Square,
            OpaqueCells::from_fn(side, side, |x, y| grid.is_opaque(x, y)),
        ))
        .id();
    let mut rng = Rng(5);
    let floor_tile = |rng: &mut Rng| loop {
        let (x, y) = (rng.below(side), rng.below(side));
        if !grid.is_opaque(x, y) {
            break TilePos { x, y };
        }
    };
    for _ in 0..viewers {
        let tile = floor_tile(&mut rng);
        app.world_mut()
            .spawn((Viewshed::new(RADIUS), tile, TilemapId(map)));
    }
    for number in 0..TARGETS as u64 {
        let tile = floor_tile(&mut rng);
        app.world_mut().spawn((
            CanBeSpotted,
            tile,
            TilemapId(map),
            Walker(Rng(number * 7919 + 1)),
        ));
    }
    app.insert_resource(Floor(grid)).add_systems(Update, walk);
    app.update();
    app.update();
    app
}

/// Every target steps to a random floor neighbour.
fn walk(floor: Res<Floor>, mut walkers: Query<(&mut Walker, &mut TilePos)>) {
    let (width, height) = (floor.0.width(), floor.0.height());
    for (mut walker, mut tile) in &mut walkers {
        let (dx, dy) = [(-1, 0), (1, 0), (0, -1), (0, 1)][walker.0.below(4) as usize];
        let (x, y) = (tile.x as i32 + dx, tile.y as i32 + dy);
        let on_floor = x >= 0
            && y >= 0
            && (x as u32) < width
            && (y as u32) < height
            && !floor.0.is_opaque(x as u32, y as u32);
        if on_floor {
            *tile = TilePos::new(x as u32, y as u32);
        }
    }
}
