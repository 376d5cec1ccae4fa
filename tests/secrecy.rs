//! The secrecy model: random multiplayer games in which, after every server frame and the
//! messages it sends, each client holds exactly the entities its team may see (and the
//! unmarked ones), and its own team's fog only. The rule is written plainly in
//! `common_net` (`stands`, `team_sees`) from the entities' own components and the viewers'
//! own viewsheds; the plugin's index is never asked.
//!
//! A game: two rooms on a 20x5 map (a wall of doors at x = 10) with a layer over it, and a
//! second 12x8 map that is resized, moved, despawned and spawned again; units of two teams
//! (some with cones, some that see walls, some without a `Team`), monsters placed by `TilePos`
//! or by `Transform`; several changes in one frame (so that a unit can die in the frame its
//! client changes team); teams share their sight and stop (`SharedVision`: a client holds
//! what its team and the teams sharing with it at that moment see); units cloak and uncloak
//! and become detectors, scans (`Reveal`s, through walls or not) light areas for a few
//! milliseconds, and a client may be the spectator (`Team::SPECTATOR`, which the server keeps
//! on every map by drawing it) (docs/strategy.md). `SECRECY_GAMES` sets how many games run (32 by default; 10,000 for
//! a long local run), over replicon's test helpers and over a link that loses and delays
//! messages (`common_net/lossy.rs`: the clients may lag, never hold what their team did not
//! see, and converge once the losses stop). A few games also run over loopback sockets.
#![cfg(feature = "replicon")]

mod common_app;
mod common_net;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_replicon::prelude::Replicated;
use bevy_viewshed::VisionCone;
use bevy_viewshed::prelude::*;
use bevy_viewshed::replicon::{ClientGhost, ReplicatesGhost, ReplicatesWhenSeen, TeamView};
use bevy_viewshed::{Cloaked, Detector, DrawnTeam, SharedVision, Team};
use common_app::{spawn_layer, spawn_map, tile_entity};
use common_net::lossy::MOST_DELAY;
use common_net::{Net, Stamp, Transport, scan, team_of, toggle};
use proptest::prelude::*;

/// Which map an entity is put on.
#[derive(Clone, Copy, Debug)]
enum On {
    /// The first map.
    First,
    /// The layer over the first map (a tile of the layer is the same tile of the first map).
    Layer,
    /// The second map, if it exists now.
    Second,
}

/// What is spawned.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// A monster placed by `TilePos`.
    Monster,
    /// A monster placed by `Transform` (at the centre of the tile).
    Ghost,
    /// A monster placed by `TilePos` that leaves ghosts on the clients (`ReplicatesGhost`).
    Haunt,
    /// A unit of a team: a viewer that reveals its team's fog.
    Unit {
        team: u32,
        radius: u32,
        cone: Option<f64>,
        light_walls: bool,
    },
    /// A revealing viewer with no `Team` (team 0 by the fog's rule).
    Stray,
}

/// One change a game makes; several of them make one server frame.
#[derive(Clone, Debug)]
enum Op {
    Spawn(Kind, On, u32, u32),
    /// Replicated entity `index` (modulo their number) moves to a tile of a map.
    Move(usize, On, u32, u32),
    Despawn(usize),
    /// Replicated entity `index` gains or loses `ReplicatesWhenSeen`.
    ToggleMark(usize),
    /// Client `i` plays for team `t`, or (`None`) for none; by insert, or in place.
    SetTeam(usize, Option<u32>, bool),
    /// Client `i` leaves, or comes back.
    Reconnect(usize),
    /// The door at (10, y) on the first map opens or closes.
    ToggleWall(u32),
    /// The second map takes a new size.
    Resize(u32, u32),
    /// The second map slides by whole tiles.
    Slide(i32, i32),
    /// The second map is despawned (with its tiles), or spawned again.
    ToggleSecond,
    /// Team `giver` starts or stops sharing its sight with team `receiver` (`SharedVision`).
    ToggleShare(u32, u32),
    /// Replicated entity `index` is cloaked or uncloaked (`Cloaked`).
    ToggleCloak(usize),
    /// Replicated entity `index`, if a unit, becomes a `Detector` or stops being one.
    ToggleDetector(usize),
    /// A scan for team `t`: a `Reveal` of radius `r` (through walls or not) on a tile of a
    /// map, for `ms` milliseconds of the server's time.
    Scan(u32, On, (u32, u32), u32, bool, u64),
}

fn on() -> impl Strategy<Value = On> {
    prop_oneof![3 => Just(On::First), 1 => Just(On::Layer), 2 => Just(On::Second)]
}

fn kind() -> impl Strategy<Value = Kind> {
    let cone = proptest::option::of((0..8u32).prop_map(|d| f64::from(d) * 45.0));
    let unit = (0..2u32, 0..9u32, cone, any::<bool>()).prop_map(|(team, radius, cone, walls)| {
        Kind::Unit {
            team,
            radius,
            cone,
            light_walls: walls,
        }
    });
    prop_oneof![
        3 => Just(Kind::Monster),
        2 => Just(Kind::Ghost),
        2 => Just(Kind::Haunt),
        3 => unit,
        1 => Just(Kind::Stray),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    // Teams 0 to 2, and 3: the spectator (`team_of`).
    let team = proptest::option::weighted(0.85, 0..4u32);
    prop_oneof![
        3 => (kind(), on(), 0..20u32, 0..8u32).prop_map(|(k, on, x, y)| Op::Spawn(k, on, x, y)),
        6 => (0..32usize, on(), 0..20u32, 0..8u32).prop_map(|(i, on, x, y)| Op::Move(i, on, x, y)),
        2 => (0..32usize).prop_map(Op::Despawn),
        1 => (0..32usize).prop_map(Op::ToggleMark),
        2 => (0..2usize, team, any::<bool>()).prop_map(|(i, t, p)| Op::SetTeam(i, t, p)),
        1 => (0..2usize).prop_map(Op::Reconnect),
        2 => (0..5u32).prop_map(Op::ToggleWall),
        1 => (4..=12u32, 3..=8u32).prop_map(|(w, h)| Op::Resize(w, h)),
        1 => (-3..=3i32, -3..=3i32).prop_map(|(dx, dy)| Op::Slide(dx, dy)),
        1 => Just(Op::ToggleSecond),
        2 => (0..3u32, 0..3u32).prop_map(|(g, r)| Op::ToggleShare(g, r)),
        2 => (0..32usize).prop_map(Op::ToggleCloak),
        1 => (0..32usize).prop_map(Op::ToggleDetector),
        1 => (0..2u32, on(), (0..20u32, 0..8u32), 0..5u32, any::<bool>(), 0..40u64)
            .prop_map(|(t, on, at, r, walls, ms)| Op::Scan(t, on, at, r, walls, ms)),
    ]
}

/// A game: the network, the layer over the first map, and the second map while it exists.
struct Game {
    net: Net,
    layer: Entity,
    second: Option<Entity>,
}

/// Where the second map is spawned: far from the first, so no world position is on both.
const SECOND_AT: Vec3 = Vec3::new(1000.0, 0.0, 0.0);

impl Game {
    fn new(transport: Transport) -> Self {
        let mut net = Net::with_transport(transport);
        // The server keeps the spectator's fog on every map (it draws nothing else).
        net.server.insert_resource(DrawnTeam(Team::SPECTATOR));
        let layer = spawn_layer(&mut net.server, 20, 5, |_, _| false, Some(net.map));
        let mut game = Self {
            net,
            layer,
            second: None,
        };
        game.spawn_second();
        game
    }

    fn spawn_second(&mut self) {
        let server = &mut self.net.server;
        let map = spawn_map(server, 12, 8, |x, y| x == 6 && y != 4);
        server.world_mut().entity_mut(map).insert((
            Transform::from_translation(SECOND_AT),
            GlobalTransform::from_translation(SECOND_AT),
        ));
        self.second = Some(map);
    }

    fn despawn_second(&mut self) {
        let Some(map) = self.second.take() else {
            return;
        };
        let world = self.net.server.world_mut();
        let tiles: Vec<Entity> = world
            .get::<TileStorage>(map)
            .map(|storage| storage.iter().flatten().copied().collect())
            .unwrap_or_default();
        for tile in tiles {
            world.despawn(tile);
        }
        world.despawn(map);
    }

    fn map(&self, on: On) -> Entity {
        match on {
            On::First => self.net.map,
            On::Layer => self.layer,
            On::Second => self.second.unwrap_or(self.net.map),
        }
    }

    /// The world position of the centre of `(x, y)` on `map`.
    fn centre(&self, map: Entity, x: u32, y: u32) -> Vec3 {
        let origin = self
            .net
            .server
            .world()
            .get::<GlobalTransform>(map)
            .map_or(Vec3::ZERO, GlobalTransform::translation);
        origin + Vec3::new(x as f32 * 16.0, y as f32 * 16.0, 0.0)
    }

    /// The replicated entities (team views aside), in a stable order.
    fn replicated(&mut self) -> Vec<Entity> {
        let world = self.net.server.world_mut();
        let mut query = world
            .query_filtered::<Entity, (With<Replicated>, Without<TeamView>, Without<ClientGhost>)>(
            );
        let mut entities: Vec<Entity> = query.iter(world).collect();
        entities.sort();
        entities
    }

    fn spawn(&mut self, kind: Kind, on: On, x: u32, y: u32) {
        let map = self.map(on);
        let centre = self.centre(map, x, y);
        let world = self.net.server.world_mut();
        let mut entity = world.spawn((TilemapId(map), ReplicatesWhenSeen));
        match kind {
            Kind::Monster => {
                entity.insert((TilePos { x, y }, CanBeSpotted));
            }
            Kind::Haunt => {
                let stamp = Stamp { of: 0, frame: 0 };
                entity.insert((TilePos { x, y }, ReplicatesGhost, stamp));
            }
            Kind::Ghost => {
                entity.insert((
                    Transform::from_translation(centre),
                    GlobalTransform::from_translation(centre),
                ));
            }
            Kind::Unit {
                team,
                radius,
                cone,
                light_walls,
            } => {
                let mut view = Viewshed::new(radius).with_light_walls(light_walls);
                if let Some(facing) = cone {
                    view = view.with_cone(VisionCone::degrees(facing, 120.0));
                }
                entity.insert((TilePos { x, y }, view, RevealsFog, Team(team), CanBeSpotted));
            }
            Kind::Stray => {
                entity.insert((TilePos { x, y }, Viewshed::new(5), RevealsFog));
            }
        }
    }

    fn move_to(&mut self, entity: Entity, on: On, x: u32, y: u32) {
        let map = self.map(on);
        let centre = self.centre(map, x, y);
        let mut entity = self.net.server.world_mut().entity_mut(entity);
        entity.insert(TilemapId(map));
        if entity.contains::<TilePos>() {
            entity.insert(TilePos { x, y });
        } else {
            entity.insert((
                Transform::from_translation(centre),
                GlobalTransform::from_translation(centre),
            ));
        }
    }

    fn apply(&mut self, op: Op) {
        let replicated = self.replicated();
        let pick = |i: usize| (!replicated.is_empty()).then(|| replicated[i % replicated.len()]);
        match op {
            Op::Spawn(kind, on, x, y) => self.spawn(kind, on, x, y),
            Op::Move(i, on, x, y) => {
                if let Some(entity) = pick(i) {
                    self.move_to(entity, on, x, y);
                }
            }
            Op::Despawn(i) => {
                if let Some(entity) = pick(i) {
                    self.net.server.world_mut().despawn(entity);
                }
            }
            Op::ToggleMark(i) => {
                if let Some(entity) = pick(i) {
                    let mut entity = self.net.server.world_mut().entity_mut(entity);
                    if entity.contains::<ReplicatesWhenSeen>() {
                        entity.remove::<ReplicatesWhenSeen>();
                    } else {
                        entity.insert(ReplicatesWhenSeen);
                    }
                }
            }
            Op::SetTeam(i, team, in_place) => self.net.set_team(i, team.map(team_of), in_place),
            Op::Reconnect(i) if self.net.connected(i) => self.net.disconnect(i),
            Op::Reconnect(i) => self.net.connect(i),
            Op::ToggleWall(y) => self.toggle_wall(y),
            Op::Resize(w, h) => {
                if let Some(map) = self.second {
                    *self
                        .net
                        .server
                        .world_mut()
                        .get_mut::<TilemapSize>(map)
                        .unwrap() = TilemapSize::new(w, h);
                }
            }
            Op::Slide(dx, dy) => self.slide(dx, dy),
            Op::ToggleSecond if self.second.is_some() => self.despawn_second(),
            Op::ToggleSecond => self.spawn_second(),
            Op::ToggleShare(giver, receiver) => {
                let world = self.net.server.world_mut();
                let mut vision = world.resource_mut::<SharedVision>();
                let (giver, receiver) = (Team(giver), Team(receiver));
                if vision.shares(giver, receiver) {
                    vision.stop(giver, receiver);
                } else {
                    vision.share(giver, receiver);
                }
            }
            Op::ToggleCloak(i) => {
                if let Some(entity) = pick(i) {
                    toggle::<Cloaked>(self.net.server.world_mut().entity_mut(entity), Cloaked);
                }
            }
            Op::ToggleDetector(i) => {
                let unit = pick(i).map(|e| self.net.server.world_mut().entity_mut(e));
                if let Some(unit) = unit.filter(|unit| unit.contains::<Viewshed>()) {
                    toggle::<Detector>(unit, Detector);
                }
            }
            Op::Scan(team, on, (x, y), radius, walls, ms) => {
                // On a tile of every map (the second map is 4 tiles wide at least).
                let place = (TilePos { x: x % 4, y: y % 3 }, TilemapId(self.map(on)));
                scan(
                    self.net.server.world_mut(),
                    Team(team),
                    place,
                    (radius, walls, ms),
                );
            }
        }
    }

    fn toggle_wall(&mut self, y: u32) {
        let tile = tile_entity(&self.net.server, self.net.map, 10, y);
        let mut tile = self.net.server.world_mut().entity_mut(tile);
        if tile.contains::<Opaque>() {
            tile.remove::<Opaque>();
        } else {
            tile.insert(Opaque);
        }
    }

    fn slide(&mut self, dx: i32, dy: i32) {
        let Some(map) = self.second else { return };
        let by = Vec3::new(dx as f32 * 16.0, dy as f32 * 16.0, 0.0);
        let world = self.net.server.world_mut();
        let at = world.get::<GlobalTransform>(map).unwrap().translation() + by;
        world.entity_mut(map).insert((
            Transform::from_translation(at),
            GlobalTransform::from_translation(at),
        ));
    }

    /// A game: a few units and monsters, then each frame's changes, checked after each frame.
    fn play(transport: Transport, frames: Vec<Vec<Op>>) {
        let mut game = Self::new(transport);
        let unit = |team| Kind::Unit {
            team,
            radius: 8,
            cone: None,
            light_walls: false,
        };
        game.spawn(unit(0), On::First, 2, 2);
        game.spawn(unit(1), On::First, 17, 2);
        game.spawn(unit(1), On::Second, 2, 2);
        game.spawn(Kind::Monster, On::First, 13, 2);
        game.spawn(Kind::Ghost, On::Second, 4, 3);
        game.spawn(Kind::Haunt, On::First, 5, 3);
        game.spawn(Kind::Haunt, On::First, 14, 1);
        game.frame();
        for ops in frames {
            for op in ops {
                game.apply(op);
            }
            game.frame();
        }
        if game.net.link.is_some() {
            game.converge();
        }
    }

    /// One server frame and its messages, then the check: exactly what the clients may
    /// hold, or, over a lossy link, nothing they may not have held lately.
    fn frame(&mut self) {
        self.net.step();
        if self.net.link.is_some() {
            self.net.note_frame();
            self.net.assert_clients_hold_what_they_may_have_held();
        } else {
            self.net.assert_clients_hold_what_they_may();
        }
    }

    /// The losses stop: once the messages on their way have arrived and the clients'
    /// acknowledgements have reached the server, every client holds exactly what it may.
    fn converge(&mut self) {
        if let Some(link) = &mut self.net.link {
            link.losses = false;
        }
        for _ in 0..2 * MOST_DELAY + 4 {
            self.net.step();
        }
        self.net.assert_clients_hold_what_they_may();
    }
}

fn frames(max: usize) -> impl Strategy<Value = Vec<Vec<Op>>> {
    proptest::collection::vec(proptest::collection::vec(op(), 1..4), 1..max)
}

/// How many random games run: `SECRECY_GAMES`, or `default`.
fn games(default: u32) -> u32 {
    std::env::var("SECRECY_GAMES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(games(32)))]

    /// Random games over replicon's test helpers.
    #[test]
    fn every_client_holds_exactly_what_its_team_may_see(frames in frames(30)) {
        Game::play(Transport::Test, frames);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(games(32)))]

    /// Random games over a link that loses a third of replicon's unreliable messages and
    /// delays every message by up to three frames: no client ever holds what its team did
    /// not see lately, nor a fog its team never had; once the losses stop, every client holds
    /// exactly its team's entities and fog.
    #[test]
    fn over_a_lossy_link_every_client_converges_to_what_its_team_may_see(
        frames in frames(30),
        seed: u64,
    ) {
        Game::play(Transport::Lossy(seed), frames);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(games(32).div_ceil(16)))]

    /// A few random games over loopback TCP sockets, as the multiplayer example talks: while a
    /// frame's messages are on their way a client holds what its team saw or sees, nothing
    /// else, and then exactly what it sees.
    #[test]
    fn over_sockets_every_client_holds_exactly_what_its_team_may_see(frames in frames(12)) {
        Game::play(Transport::Loopback, frames);
    }
}
