//! Server-side fog of war inside a lightyear 0.30 server, end to end in one process: a server
//! `App` with lightyear's `ServerPlugins`, `ViewshedPlugins` and `ViewshedReplicationPlugin`,
//! two client `App`s with lightyear's `ClientPlugins`, connected by netcode over lightyear's
//! crossbeam channels (and loopback UDP). lightyear's replication is bevy_replicon's, so the
//! plugin's visibility bit works in it as it is; the only glue is the game's: a `ClientTeam` on
//! each client's link entity (`common_lightyear::join_team`). Each client's world is compared
//! after each frame with what its team sees, computed from the viewers' own viewsheds.
//!
//! The random games cloak and uncloak units, make detectors, scan (`Reveal`s) and put clients
//! on the spectator's side, besides moves, team changes, doors and alliances.
//!
//! `LIGHTYEAR_GAMES` sets how many random games the state-machine test plays (8 by default;
//! 10,000 for a long local run).
#![cfg(all(feature = "lightyear", not(target_arch = "wasm32")))]

mod common_app;
mod common_lightyear;
mod common_net;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_replicon::prelude::Replicated;
use bevy_replicon::shared::server_entity_map::ServerEntityMap;
use bevy_viewshed::Team;
use bevy_viewshed::prelude::*;
use bevy_viewshed::replicon::{ClientGhost, ReplicatesGhost, ReplicatesWhenSeen};
use common_app::tile_entity;
use common_lightyear::{Io, LyNet};
use common_net::{scan, set, team_of, toggle};
use lightyear::prelude::{
    AppComponentExt, Interpolated, InterpolationFns, InterpolationRegistrationExt,
    InterpolationTarget, InterpolationTimeline, NetworkTarget, Replicate, RoomAllocator, Rooms,
};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

#[test]
fn a_monster_reaches_a_lightyear_client_only_while_its_team_sees_it() {
    let mut net = LyNet::new(Io::Crossbeam);
    let scout0 = net.spawn_unit(Team(0), 2, 2);
    let scout1 = net.spawn_unit(Team(1), 17, 2);
    // Behind the wall, in team 1's room.
    let monster = net.spawn_monster(12, 2);
    net.step();
    net.assert_clients_hold_what_they_may();
    assert_eq!(net.received(0), set(&[scout0]));
    assert_eq!(net.received(1), set(&[scout1, monster]));
    // It crosses into team 0's room: sent to client 0, despawned on client 1 by the same frame.
    net.move_to(monster, 6, 2);
    net.step();
    net.assert_clients_hold_what_they_may();
    assert_eq!(net.received(0), set(&[scout0, monster]));
    assert_eq!(net.received(1), set(&[scout1]));
    // Out of both teams' reach (radius 8): on no client.
    net.move_to(monster, 10, 4);
    net.move_to(scout0, 0, 0);
    net.move_to(scout1, 19, 0);
    net.step();
    net.assert_clients_hold_what_they_may();
    assert_eq!(net.received(0), set(&[scout0]));
}

#[test]
fn each_lightyear_client_receives_its_own_teams_fog_and_no_other() {
    let mut net = LyNet::new(Io::Crossbeam);
    let scout = net.spawn_unit(Team(0), 2, 2);
    net.spawn_unit(Team(1), 17, 2);
    net.step();
    net.assert_clients_hold_what_they_may();
    for i in 0..2 {
        let teams: Vec<Team> = net.team_views(i).iter().map(|view| view.team()).collect();
        assert_eq!(
            teams,
            vec![Team(i as u32)],
            "client {i} holds its team's fog only"
        );
    }
    // Team 0 walks east, a step a frame: its client's fog follows as changes.
    for x in 3..10 {
        net.move_to(scout, x, 2);
        net.step();
        net.assert_clients_hold_what_they_may();
    }
    let view = &net.team_views(0)[0];
    assert_eq!(view.state(TilePos { x: 0, y: 2 }), FogState::Remembered);
    assert_eq!(view.state(TilePos { x: 12, y: 2 }), FogState::Unexplored);
}

#[test]
fn a_reconnected_lightyear_client_gets_exactly_what_its_team_sees() {
    let mut net = LyNet::new(Io::Crossbeam);
    let scout0 = net.spawn_unit(Team(0), 2, 2);
    let scout1 = net.spawn_unit(Team(1), 17, 2);
    let monster = net.spawn_monster(13, 2);
    net.step();
    net.assert_clients_hold_what_they_may();

    net.disconnect(0);
    assert_eq!(net.received(0), set(&[]), "lightyear despawned what it had");
    assert!(net.team_views(0).is_empty());
    // While client 0 is away the monster walks into its team's view, and out of team 1's.
    net.move_to(monster, 6, 2);
    net.step();
    net.assert_clients_hold_what_they_may();
    assert_eq!(net.received(1), set(&[scout1]), "client 1 carries on");

    // A new link entity: the game gives it its team again (the lobby's), and it gets its
    // team's units and fog as they are now.
    net.connect(0);
    net.step();
    net.assert_clients_hold_what_they_may();
    assert_eq!(net.received(0), set(&[scout0, monster]));

    net.disconnect(1);
    net.connect(1);
    net.step();
    net.assert_clients_hold_what_they_may();
    assert_eq!(net.received(1), set(&[scout1]));
}

/// The server's first messages to a connection can reach the client after it has left (here it
/// leaves before it has read them). They belong to the closed connection, and the next one
/// must not apply them: lightyear 0.30 would, but for the `lightyear` feature's guard, and the
/// client would hold for good a monster the server has despawned since.
#[test]
fn what_a_closed_lightyear_connection_delivers_late_is_not_applied_to_the_next() {
    let mut net = LyNet::new(Io::Crossbeam);
    let scout0 = net.spawn_unit(Team(0), 2, 2);
    net.spawn_unit(Team(1), 17, 2);
    let monster = net.spawn_monster(6, 2);
    net.step();
    net.assert_clients_hold_what_they_may();
    net.disconnect(0);
    // Connected, and left before the server's first messages to it are read.
    net.connect(0);
    net.server.world_mut().despawn(monster);
    net.disconnect(0);
    net.connect(0);
    net.step();
    net.assert_clients_hold_what_they_may();
    assert_eq!(net.received(0), set(&[scout0]));
}

#[test]
fn a_lightyear_client_whose_team_changes_gets_its_new_teams_view_and_fog_only() {
    let mut net = LyNet::new(Io::Crossbeam);
    let ours = net.spawn_unit(Team(0), 2, 2);
    let theirs = net.spawn_unit(Team(1), 17, 2);
    net.step();
    assert!(net.received(0).contains(&ours) && !net.received(0).contains(&theirs));
    // In place on the link entity (a charmed player).
    net.set_team(0, Some(Team(1)), true);
    net.step();
    net.assert_clients_hold_what_they_may();
    assert!(net.received(0).contains(&theirs) && !net.received(0).contains(&ours));
    // Inserted anew, then taken away.
    net.set_team(0, Some(Team(0)), false);
    net.step();
    net.assert_clients_hold_what_they_may();
    assert!(net.received(0).contains(&ours) && !net.received(0).contains(&theirs));
    net.set_team(0, None, false);
    net.step();
    net.assert_clients_hold_what_they_may();
    assert_eq!(net.received(0), set(&[]));
    assert!(net.team_views(0).is_empty());
}

#[test]
fn a_ghost_reaches_only_its_teams_lightyear_client() {
    let mut net = LyNet::new(Io::Crossbeam);
    net.spawn_unit(Team(0), 2, 2);
    let scout1 = net.spawn_unit(Team(1), 17, 2);
    let monster = net.spawn_monster(13, 2);
    net.server
        .world_mut()
        .entity_mut(monster)
        .insert(ReplicatesGhost);
    net.step();
    // Team 1's scout turns short-sighted: the monster is out of its view.
    *net.server.world_mut().get_mut::<Viewshed>(scout1).unwrap() = Viewshed::new(2);
    net.step();
    net.assert_clients_hold_what_they_may();
    let ghosts = |net: &LyNet, i: usize| -> Vec<TilePos> {
        let world = net.clients[i].world();
        let mut ghosts = world.try_query::<&ClientGhost>().unwrap();
        ghosts.iter(world).map(|ghost| ghost.tile).collect()
    };
    assert_eq!(ghosts(&net, 1), vec![TilePos { x: 13, y: 2 }]);
    assert!(ghosts(&net, 0).is_empty(), "team 0 never saw it");
}

/// Scouts that both see the wall's tiles (x = 10), from either side.
fn scouts_at_the_wall(net: &mut LyNet) {
    net.spawn_unit(Team(0), 4, 2);
    net.spawn_unit(Team(1), 15, 2);
}

/// A client in no room of a marked entity does not get it, though its team sees it; in the
/// room, it gets it while its team sees it. lightyear's `Rooms` and the plugin each own a
/// visibility bit of replicon's, and replicon sends an entity only if no bit hides it.
#[test]
fn a_lightyear_room_and_the_teams_sight_must_both_allow_an_entity() {
    let mut net = LyNet::new(Io::Crossbeam);
    scouts_at_the_wall(&mut net);
    let room = net
        .server
        .world_mut()
        .resource_mut::<RoomAllocator>()
        .allocate();
    let monster = net.spawn_monster(4, 3);
    net.server
        .world_mut()
        .entity_mut(monster)
        .insert(Rooms::single(room));
    net.step();
    assert!(
        !net.received(0).contains(&monster),
        "team 0 sees it, but client 0 is in none of its rooms"
    );
    assert!(!net.received(1).contains(&monster));
    for i in 0..2 {
        let link = net.link(i).unwrap();
        net.server
            .world_mut()
            .entity_mut(link)
            .insert(Rooms::single(room));
    }
    net.step();
    assert!(net.received(0).contains(&monster), "both allow it");
    assert!(
        !net.received(1).contains(&monster),
        "client 1 is in its room, but team 1 does not see it"
    );
    // It walks into team 1's room: the sight follows, the room still allows.
    net.move_to(monster, 16, 3);
    net.step();
    assert!(!net.received(0).contains(&monster));
    assert!(net.received(1).contains(&monster));
    // Client 1 leaves the room: hidden, though its team sees it.
    let link = net.link(1).unwrap();
    net.server.world_mut().entity_mut(link).remove::<Rooms>();
    net.step();
    assert!(!net.received(1).contains(&monster));
}

/// lightyear's own target (`Replicate::to_clients`) composes the same way: an entity goes to a
/// client only if its target names the client and the client's team sees it.
#[test]
fn a_lightyear_replication_target_and_the_teams_sight_must_both_allow_an_entity() {
    let mut net = LyNet::new(Io::Crossbeam);
    scouts_at_the_wall(&mut net);
    // On the wall, seen by both teams; lightyear sends it to client 1 only.
    let target = Replicate::to_clients(NetworkTarget::Single(LyNet::peer(1)));
    let monster = net.spawn_monster(10, 2);
    net.server.world_mut().entity_mut(monster).insert(target);
    net.step();
    assert!(!net.received(0).contains(&monster), "not in its target");
    assert!(net.received(1).contains(&monster));
    net.move_to(monster, 4, 3);
    net.step();
    assert!(!net.received(0).contains(&monster), "not in its target");
    assert!(
        !net.received(1).contains(&monster),
        "team 1 does not see it"
    );
}

/// A position replicated to clients and interpolated there (lightyear's `interpolation`), in
/// tiles.
#[derive(Component, Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Spot(f32, f32);

fn lerp(a: Spot, b: Spot, t: f32) -> Spot {
    Spot(a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t)
}

/// On the server, each unit's `Spot` follows its tile.
fn copy_spots(mut units: Query<(&TilePos, &mut Spot), Changed<TilePos>>) {
    for (tile, mut spot) in &mut units {
        *spot = Spot(tile.x as f32, tile.y as f32);
    }
}

fn spot_protocol(app: &mut App) {
    app.component::<Spot>()
        .replicate()
        .interpolate_with(InterpolationFns::interpolate(lerp));
    app.add_systems(Update, copy_spots);
}

/// An enemy that team 0's client interpolates walks east, a tile a frame, out of team 0's
/// view (x > 12: team 0's unit at (4, 2) sees 8 tiles). The client draws it (its interpolated `Spot`) only between tiles where its
/// team saw it: lightyear interpolates between the positions received, never past the last,
/// and despawns the entity once its interpolation timeline reaches the server tick at which
/// the team lost sight of it. No extrapolation into the fog.
#[test]
fn an_interpolated_enemy_leaving_view_is_never_drawn_in_the_fog() {
    let mut net = LyNet::with_protocol(Io::Crossbeam, spot_protocol);
    net.spawn_unit(Team(0), 4, 2);
    let enemy = net.spawn_unit(Team(1), 5, 2);
    let target = InterpolationTarget::to_clients(NetworkTarget::All);
    net.server
        .world_mut()
        .entity_mut(enemy)
        .insert((Spot(5.0, 2.0), target));
    net.step();
    net.pump_until(|net| {
        net.clients[0]
            .world()
            .get_resource::<InterpolationTimeline>()
            .is_some_and(InterpolationTimeline::is_synced)
    });
    let local = net.clients[0]
        .world()
        .resource::<ServerEntityMap>()
        .to_client()[&enemy];
    assert!(net.clients[0].world().get::<Interpolated>(local).is_some());
    let mut drawn = Vec::new();
    let mut frames_after_hidden = 0;
    for x in 6..16 {
        net.move_to(enemy, x, 2);
        net.step();
        // Interpolation draws a `Spot` once it has two positions to go between.
        if let Some(spot) = net.clients[0].world().get::<Spot>(local) {
            drawn.push(spot.0);
        }
        frames_after_hidden += usize::from(x > 12);
    }
    for _ in 0..100 {
        if net.clients[0].world().get_entity(local).is_err() {
            break;
        }
        net.step();
        if let Some(spot) = net.clients[0].world().get::<Spot>(local) {
            drawn.push(spot.0);
        }
    }
    assert!(
        net.clients[0].world().get_entity(local).is_err(),
        "despawned once its interpolation caught up"
    );
    assert!(
        drawn.iter().all(|&x| x <= 12.0),
        "drawn only where team 0 saw it: {drawn:?}"
    );
    println!("drawn {drawn:?}, {frames_after_hidden} frames past the hiding");
}

#[test]
fn over_loopback_udp_each_client_holds_exactly_what_its_team_sees() {
    let mut net = LyNet::new(Io::Udp);
    let scout0 = net.spawn_unit(Team(0), 2, 2);
    let scout1 = net.spawn_unit(Team(1), 17, 2);
    let monster = net.spawn_monster(12, 2);
    net.step();
    net.assert_clients_hold_what_they_may();
    for (x, y) in [(6, 2), (13, 3), (10, 4)] {
        net.move_to(monster, x, y);
        net.step();
        net.assert_clients_hold_what_they_may();
    }
    net.disconnect(0);
    net.move_to(monster, 5, 2);
    net.connect(0);
    net.step();
    net.assert_clients_hold_what_they_may();
    assert_eq!(net.received(0), set(&[scout0, monster]));
    assert_eq!(net.received(1), set(&[scout1]));
}

/// What is spawned in a random game.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Monster,
    /// A monster that leaves ghosts.
    Haunt,
    Unit {
        team: u32,
        radius: u32,
    },
}

/// One change a game makes; several make one server frame.
#[derive(Clone, Debug)]
enum Op {
    Spawn(Kind, u32, u32),
    /// Replicated entity `index` (modulo their number) moves.
    Move(usize, u32, u32),
    Despawn(usize),
    ToggleMark(usize),
    /// Client `i` plays for team `t`, or none; by insert, or in place.
    SetTeam(usize, Option<u32>, bool),
    /// Client `i` leaves and comes back (a new link entity).
    Reconnect(usize),
    /// The door at (10, y) opens or closes.
    ToggleWall(u32),
    /// Team `giver` starts or stops sharing its sight with team `receiver` (`SharedVision`).
    ToggleShare(u32, u32),
    /// Replicated entity `index` is cloaked or uncloaked.
    ToggleCloak(usize),
    /// Replicated entity `index`, if a unit, becomes a `Detector` or stops being one.
    ToggleDetector(usize),
    /// A scan for team `t` on a tile: radius, through walls, milliseconds.
    Scan(u32, (u32, u32), u32, bool, u64),
}

fn kind() -> impl Strategy<Value = Kind> {
    let unit = (0..2u32, 0..9u32).prop_map(|(team, radius)| Kind::Unit { team, radius });
    prop_oneof![3 => Just(Kind::Monster), 2 => Just(Kind::Haunt), 3 => unit]
}

fn op() -> impl Strategy<Value = Op> {
    // Teams 0 to 2, and 3: the spectator (`team_of`).
    let team = proptest::option::weighted(0.85, 0..4u32);
    prop_oneof![
        3 => (kind(), 0..20u32, 0..5u32).prop_map(|(k, x, y)| Op::Spawn(k, x, y)),
        6 => (0..32usize, 0..20u32, 0..5u32).prop_map(|(i, x, y)| Op::Move(i, x, y)),
        2 => (0..32usize).prop_map(Op::Despawn),
        1 => (0..32usize).prop_map(Op::ToggleMark),
        2 => (0..2usize, team, any::<bool>()).prop_map(|(i, t, p)| Op::SetTeam(i, t, p)),
        1 => (0..2usize).prop_map(Op::Reconnect),
        2 => (0..5u32).prop_map(Op::ToggleWall),
        2 => (0..3u32, 0..3u32).prop_map(|(g, r)| Op::ToggleShare(g, r)),
        2 => (0..32usize).prop_map(Op::ToggleCloak),
        1 => (0..32usize).prop_map(Op::ToggleDetector),
        1 => (0..2u32, (0..20u32, 0..5u32), 0..5u32, any::<bool>(), 0..40u64)
            .prop_map(|(t, at, r, walls, ms)| Op::Scan(t, at, r, walls, ms)),
    ]
}

/// The replicated entities (team views and ghosts aside), in a stable order.
fn replicated(net: &mut LyNet) -> Vec<Entity> {
    use bevy_viewshed::replicon::TeamView;
    let world = net.server.world_mut();
    let mut query = world
        .query_filtered::<Entity, (With<Replicated>, Without<TeamView>, Without<ClientGhost>)>();
    let mut entities: Vec<Entity> = query.iter(world).collect();
    entities.sort();
    entities
}

fn spawn(net: &mut LyNet, kind: Kind, x: u32, y: u32) {
    match kind {
        Kind::Monster => {
            net.spawn_monster(x, y);
        }
        Kind::Haunt => {
            let monster = net.spawn_monster(x, y);
            let world = net.server.world_mut();
            world.entity_mut(monster).insert(ReplicatesGhost);
        }
        Kind::Unit { team, radius } => {
            let unit = net.spawn_unit(Team(team), x, y);
            *net.server.world_mut().get_mut::<Viewshed>(unit).unwrap() = Viewshed::new(radius);
        }
    }
}

fn apply(net: &mut LyNet, op: Op) {
    let entities = replicated(net);
    let pick = |i: usize| (!entities.is_empty()).then(|| entities[i % entities.len()]);
    fn world(net: &mut LyNet) -> &mut World {
        net.server.world_mut()
    }
    match op {
        Op::Spawn(kind, x, y) => spawn(net, kind, x, y),
        Op::Move(i, x, y) => {
            if let Some(entity) = pick(i) {
                world(net).entity_mut(entity).insert(TilePos { x, y });
            }
        }
        Op::Despawn(i) => {
            if let Some(entity) = pick(i) {
                world(net).despawn(entity);
            }
        }
        Op::ToggleMark(i) => {
            if let Some(entity) = pick(i) {
                let mut entity = world(net).entity_mut(entity);
                if entity.contains::<ReplicatesWhenSeen>() {
                    entity.remove::<ReplicatesWhenSeen>();
                } else {
                    entity.insert(ReplicatesWhenSeen);
                }
            }
        }
        Op::SetTeam(i, team, in_place) => net.set_team(i, team.map(team_of), in_place),
        Op::Reconnect(i) => {
            net.disconnect(i);
            net.connect(i);
        }
        Op::ToggleWall(y) => {
            let tile = tile_entity(&net.server, net.map, 10, y);
            let mut tile = world(net).entity_mut(tile);
            if tile.contains::<Opaque>() {
                tile.remove::<Opaque>();
            } else {
                tile.insert(Opaque);
            }
        }
        Op::ToggleShare(giver, receiver) => {
            let mut vision = world(net).resource_mut::<bevy_viewshed::SharedVision>();
            let (giver, receiver) = (Team(giver), Team(receiver));
            if vision.shares(giver, receiver) {
                vision.stop(giver, receiver);
            } else {
                vision.share(giver, receiver);
            }
        }
        Op::ToggleCloak(i) => {
            if let Some(entity) = pick(i) {
                toggle(world(net).entity_mut(entity), bevy_viewshed::Cloaked);
            }
        }
        Op::ToggleDetector(i) => {
            let unit = pick(i).map(|e| world(net).entity_mut(e));
            if let Some(unit) = unit.filter(|unit| unit.contains::<Viewshed>()) {
                toggle(unit, bevy_viewshed::Detector);
            }
        }
        Op::Scan(team, (x, y), radius, walls, ms) => {
            let place = (TilePos { x, y }, TilemapId(net.map));
            scan(world(net), Team(team), place, (radius, walls, ms));
        }
    }
}

/// A game: two scouts and a monster, then each frame's changes, checked after each frame.
fn play(io: Io, frames: Vec<Vec<Op>>) {
    let mut net = LyNet::new(io);
    keep_spectator(&mut net);
    net.spawn_unit(Team(0), 2, 2);
    net.spawn_unit(Team(1), 17, 2);
    spawn(&mut net, Kind::Haunt, 13, 2);
    net.step();
    net.assert_clients_hold_what_they_may();
    for ops in frames {
        for op in ops {
            apply(&mut net, op);
        }
        net.step();
        net.assert_clients_hold_what_they_may();
    }
}

fn frames(max: usize) -> impl Strategy<Value = Vec<Vec<Op>>> {
    proptest::collection::vec(proptest::collection::vec(op(), 1..4), 1..max)
}

/// How many random games run: `LIGHTYEAR_GAMES`, or `default`.
fn games(default: u32) -> u32 {
    std::env::var("LIGHTYEAR_GAMES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(games(8)))]

    /// Random games over lightyear's crossbeam channels: after every server frame each client
    /// holds exactly the marked entities its team sees, the unmarked ones, and its team's fog.
    #[test]
    fn over_lightyear_every_client_holds_exactly_what_its_team_may_see(frames in frames(20)) {
        play(Io::Crossbeam, frames);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(games(8).div_ceil(8)))]

    /// A few random games over loopback UDP sockets.
    #[test]
    fn over_lightyear_udp_every_client_holds_exactly_what_its_team_may_see(frames in frames(10)) {
        play(Io::Udp, frames);
    }
}

/// A random game over links that lose a third of the packets and delay the others by up to
/// five frames, both ways: after every frame each connected client holds only entities its
/// team has seen since it connected (the plugin never sends another; lightyear sends lost
/// spawns and despawns again) and no entity of a closed connection; once the links heal,
/// each holds exactly what its team sees, and its team's fog.
/// The server keeps the spectator's fog on its map (it draws nothing else), for clients
/// that play the spectator.
fn keep_spectator(net: &mut LyNet) {
    let spectator = bevy_viewshed::DrawnTeam(Team::SPECTATOR);
    net.server.insert_resource(spectator);
}

fn play_lossy(frames: Vec<Vec<Op>>) {
    let mut net = LyNet::lossy();
    keep_spectator(&mut net);
    net.spawn_unit(Team(0), 2, 2);
    net.spawn_unit(Team(1), 17, 2);
    spawn(&mut net, Kind::Haunt, 13, 2);
    for ops in frames {
        for op in ops {
            apply(&mut net, op);
        }
        net.step();
        for i in 0..2 {
            let (held, seen) = (net.received(i), &net.allowed[i]);
            assert!(
                held.is_subset(seen),
                "client {i} holds {:?}, which its team has not seen",
                held.difference(seen).collect::<Vec<_>>()
            );
            assert_eq!(
                net.orphans(i),
                [],
                "client {i}: entities of a closed session"
            );
        }
    }
    net.heal();
    net.settle(20);
    net.assert_clients_hold_what_they_may();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(games(8).div_ceil(2)))]

    /// Random games over lossy links (half as many as over clean ones).
    #[test]
    fn over_lossy_lightyear_links_no_client_holds_what_its_team_has_not_seen(frames in frames(20)) {
        play_lossy(frames);
    }
}
