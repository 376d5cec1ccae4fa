//! The server's world, whatever carries it to the clients (replicon's example backend in
//! `multiplayer`, lightyear in `multiplayer_lightyear`): the dungeon as tile entities (walls
//! `Opaque`), two teams of units that lift their team's fog, wandering monsters, every piece
//! `ReplicatesWhenSeen`, and each piece's replicated `Cell` following its tile.

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::Team;
use bevy_viewshed::prelude::*;
use bevy_viewshed::replicon::{ReplicatesWhenSeen, ViewshedReplicationPlugin};

use crate::map::{Cell as MapCell, Dungeon};
use crate::protocol::{Cell, MAP_HEIGHT, MAP_WIDTH, Piece, ProtocolPlugin};
use crate::walk::{Level, Walker, step_walkers};

/// The teams the units play for.
pub const TEAMS: u32 = 2;
const UNITS_PER_TEAM: u32 = 3;

/// The field of view, what each client's team may see, the protocol, and the seed's world
/// (spawned at `Startup`, once the plugins are built, so that the replication plugin follows
/// every piece from its spawn). Add it after the netcode's server plugins.
pub struct ServerWorldPlugin {
    pub seed: u64,
}

impl Plugin for ServerWorldPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins((
            ViewshedPlugins::default(),
            ViewshedReplicationPlugin,
            ProtocolPlugin,
        ))
        .insert_resource(Level(Dungeon::generate(MAP_WIDTH, MAP_HEIGHT, self.seed)))
        .insert_resource(Seed(self.seed))
        .add_systems(Startup, spawn_world)
        .add_systems(Update, (step_walkers, mirror_cells).chain());
    }
}

/// The seed the pieces' walks start from.
#[derive(Resource)]
struct Seed(u64);

fn spawn_world(world: &mut World) {
    world.resource_scope(|world, level: Mut<Level>| {
        let seed = world.resource::<Seed>().0;
        spawn_pieces(world, &level.0, seed);
    });
}

fn spawn_pieces(world: &mut World, dungeon: &Dungeon, seed: u64) {
    let map = spawn_map(world, dungeon);
    let last = dungeon.rooms.len() - 1;
    for team in 0..TEAMS {
        let (x, y) = dungeon.center(if team == 0 { 0 } else { last });
        for i in 0..UNITS_PER_TEAM {
            let tile = TilePos { x: x + i, y };
            world.spawn((
                Viewshed::new(7),
                RevealsFog,
                Team(team),
                Piece::Unit(team),
                piece(tile, map, seed + u64::from(team * 10 + i)),
            ));
        }
    }
    for room in 1..last {
        let (x, y) = dungeon.center(room);
        let tile = TilePos { x, y };
        world.spawn((Piece::Monster, piece(tile, map, seed + 100 + room as u64)));
    }
}

/// What every piece has: a tile, the map, a walk, and the mark that keeps it from clients
/// whose team does not see it.
fn piece(tile: TilePos, map: Entity, seed: u64) -> impl Bundle {
    let cell = Cell {
        x: tile.x,
        y: tile.y,
    };
    (
        tile,
        TilemapId(map),
        cell,
        Walker::new(seed),
        ReplicatesWhenSeen,
    )
}

/// The map as tile entities: no renderer on the server, only what the FOV reads.
fn spawn_map(world: &mut World, dungeon: &Dungeon) -> Entity {
    let size = TilemapSize::new(MAP_WIDTH, MAP_HEIGHT);
    let map = world.spawn_empty().id();
    let mut storage = TileStorage::empty(size);
    for y in 0..MAP_HEIGHT {
        for x in 0..MAP_WIDTH {
            let pos = TilePos { x, y };
            let mut tile = world.spawn((pos, TilemapId(map)));
            if dungeon.cell(x, y) == MapCell::Wall {
                tile.insert(Opaque);
            }
            storage.set(&pos, tile.id());
        }
    }
    world.entity_mut(map).insert((
        size,
        storage,
        TilemapGridSize::new(16.0, 16.0),
        TilemapTileSize::new(16.0, 16.0),
        TilemapType::Square,
    ));
    map
}

/// The replicated `Cell` follows the server's `TilePos`.
fn mirror_cells(mut pieces: Query<(&TilePos, &mut Cell), Changed<TilePos>>) {
    for (tile, mut cell) in &mut pieces {
        cell.set_if_neq(Cell {
            x: tile.x,
            y: tile.y,
        });
    }
}
