//! The headless server: the dungeon as tile entities (walls `Opaque`), two teams of units that
//! lift their team's fog, wandering monsters, every piece `ReplicatesWhenSeen`. Clients join
//! team 0, 1, 0, ... as they connect.

use std::time::Duration;

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy_ecs_tilemap::prelude::*;
use bevy_replicon::prelude::*;
use bevy_replicon_example_backend::{ExampleServer, RepliconExampleBackendPlugins};
use bevy_viewshed::Team;
use bevy_viewshed::prelude::*;
use bevy_viewshed::replicon::{ClientTeam, ReplicatesWhenSeen, ViewshedReplicationPlugin};

use crate::args::Options;
use crate::map::{Cell as MapCell, Dungeon};
use crate::protocol::{Cell, MAP_HEIGHT, MAP_WIDTH, Piece, ProtocolPlugin};
use crate::walk::{Level, Walker, step_walkers};

/// The number of teams clients are spread over.
const TEAMS: u32 = 2;
const UNITS_PER_TEAM: u32 = 3;

pub fn run(options: &Options) {
    let server = ExampleServer::new(options.port).unwrap_or_else(|e| {
        eprintln!(
            "multiplayer server: cannot listen on port {}: {e}",
            options.port
        );
        std::process::exit(1);
    });
    println!(
        "multiplayer server on port {} (seed {})",
        options.port, options.seed
    );
    let dungeon = Dungeon::generate(MAP_WIDTH, MAP_HEIGHT, options.seed);
    App::new()
        .add_plugins((
            MinimalPlugins.set(ScheduleRunnerPlugin::run_loop(Duration::from_secs_f64(
                1.0 / 30.0,
            ))),
            StatesPlugin,
            RepliconPlugins,
            RepliconExampleBackendPlugins,
            ViewshedPlugins::default(),
            ViewshedReplicationPlugin,
            ProtocolPlugin,
        ))
        .insert_resource(server)
        .insert_resource(Level(dungeon))
        .insert_resource(Seed(options.seed))
        .add_observer(join_team)
        .add_systems(Startup, spawn_world)
        .add_systems(Update, (step_walkers, mirror_cells).chain())
        .run();
}

/// The seed the pieces' walks start from.
#[derive(Resource)]
struct Seed(u64);

/// Clients join the teams in turn.
fn join_team(connected: On<Add, ConnectedClient>, mut commands: Commands, mut joined: Local<u32>) {
    let team = Team(*joined % TEAMS);
    *joined += 1;
    println!("client {} joins team {}", connected.entity, team.0);
    commands.entity(connected.entity).insert(ClientTeam(team));
}

/// The map, the units and the monsters, once the plugins are built (so that the replication
/// plugin follows every piece from its spawn).
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
    (
        tile,
        TilemapId(map),
        Cell {
            x: tile.x,
            y: tile.y,
        },
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
