//! Server-side fog of war over bevy_replicon, end to end in one process: a server `App` with
//! the plugins and two client `App`s exchanging replicon's messages through its test helpers
//! (no sockets). Each client's world is compared with what its team sees, computed here from
//! the viewers' own viewsheds (a plain model, not the plugin's index).
#![cfg(feature = "replicon")]

mod common_app;

use std::collections::BTreeSet;

use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy_ecs_tilemap::prelude::*;
use bevy_replicon::prelude::*;
use bevy_replicon::shared::server_entity_map::ServerEntityMap;
use bevy_replicon::test_app::{ServerTestAppExt, TestClientEntity};
use bevy_viewshed::prelude::*;
use bevy_viewshed::replicon::{
    ClientTeam, ReplicateWhenSeen, TeamView, TeamViewProtocolPlugin, ViewshedReplicationPlugin,
};
use common_app::spawn_map;
use proptest::prelude::*;

/// Tile positions `(x, y)`.
type TileSet = BTreeSet<(u32, u32)>;

/// Spotted (true) / LostSight (false) as (viewer, target), on the server.
#[derive(Resource, Default)]
struct Sightings(Vec<(bool, Entity, Entity)>);

fn server_app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        StatesPlugin,
        RepliconPlugins.set(ServerPlugin::new(PostUpdate)),
        ViewshedPlugin::default(),
        ViewshedReplicationPlugin,
    ))
    .init_resource::<Sightings>()
    .add_observer(|s: On<Spotted>, mut log: ResMut<Sightings>| {
        log.0.push((true, s.viewer, s.target))
    })
    .add_observer(|s: On<LostSight>, mut log: ResMut<Sightings>| {
        log.0.push((false, s.viewer, s.target))
    });
    app.finish();
    app
}

/// A client as a game writes one: replicated entities are despawned when it disconnects.
fn client_app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        StatesPlugin,
        RepliconPlugins.set(ServerPlugin::new(PostUpdate)),
        TeamViewProtocolPlugin,
    ))
    .add_systems(
        OnExit(ClientState::Connected),
        |mut commands: Commands, remote: Query<Entity, With<Remote>>| {
            for entity in &remote {
                commands.entity(entity).despawn();
            }
        },
    );
    app.finish();
    app
}

/// A server, two clients and the teams they play for.
struct Net {
    server: App,
    clients: [App; 2],
    teams: [Team; 2],
    map: Entity,
}

/// 20x5 map with a wall at x = 10 (full height): two rooms that cannot see each other.
fn wall(x: u32, _y: u32) -> bool {
    x == 10
}

impl Net {
    fn new() -> Self {
        let mut server = server_app();
        let map = spawn_map(&mut server, 20, 5, wall);
        let mut net = Self {
            server,
            clients: [client_app(), client_app()],
            teams: [Team(0), Team(1)],
            map,
        };
        for i in 0..2 {
            net.connect(i);
        }
        net
    }

    /// Connects client `i` and binds it to its team, as a game does at connection.
    fn connect(&mut self, i: usize) {
        self.server.connect_client(&mut self.clients[i]);
        let client = **self.clients[i].world().resource::<TestClientEntity>();
        self.server
            .world_mut()
            .entity_mut(client)
            .insert(ClientTeam(self.teams[i]));
    }

    fn disconnect(&mut self, i: usize) {
        self.server.disconnect_client(&mut self.clients[i]);
    }

    fn connected(&self, i: usize) -> bool {
        self.clients[i]
            .world()
            .contains_resource::<TestClientEntity>()
    }

    /// One server frame, its messages delivered, one frame of each connected client.
    fn step(&mut self) {
        self.server.update();
        self.deliver();
    }

    /// The messages of the last server frame delivered and read by the connected clients.
    fn deliver(&mut self) {
        for i in 0..2 {
            if self.connected(i) {
                self.server.exchange_with_client(&mut self.clients[i]);
            }
            self.clients[i].update();
        }
    }

    fn spawn_unit(&mut self, team: Team, x: u32, y: u32) -> Entity {
        self.server
            .world_mut()
            .spawn((
                Viewshed::new(8),
                RevealsFog,
                team,
                TilePos { x, y },
                TilemapId(self.map),
                ReplicateWhenSeen,
            ))
            .id()
    }

    fn spawn_monster(&mut self, x: u32, y: u32) -> Entity {
        self.server
            .world_mut()
            .spawn((
                TilePos { x, y },
                TilemapId(self.map),
                Spottable,
                ReplicateWhenSeen,
            ))
            .id()
    }

    fn move_to(&mut self, entity: Entity, x: u32, y: u32) {
        *self.server.world_mut().get_mut::<TilePos>(entity).unwrap() = TilePos { x, y };
    }

    /// The server entities client `i` has in its world, team views aside.
    fn received(&self, i: usize) -> BTreeSet<Entity> {
        let world = self.clients[i].world();
        let map = world.resource::<ServerEntityMap>();
        let mut remote = world.try_query_filtered::<Entity, With<Remote>>().unwrap();
        assert_eq!(
            remote.iter(world).count(),
            map.to_client().len(),
            "every replicated entity on client {i} is mapped to a server entity"
        );
        map.to_client()
            .iter()
            .filter(|&(_, &local)| !world.entity(local).contains::<TeamView>())
            .map(|(&server, _)| server)
            .collect()
    }

    /// The team views client `i` has.
    fn team_views(&self, i: usize) -> Vec<TeamView> {
        let world = self.clients[i].world();
        let mut views = world.try_query::<&TeamView>().unwrap();
        views.iter(world).cloned().collect()
    }

    /// What `team` sees, by the rules, from the viewers' own viewsheds: its own marked
    /// entities, and the marked entities on a tile one of its revealing viewers sees.
    fn team_sees(&mut self, team: Team) -> BTreeSet<Entity> {
        let world = self.server.world_mut();
        // One map, no layers: a viewer's map is its tilemap.
        let mut viewers =
            world.query_filtered::<(&Viewshed, Option<&Team>, &TilemapId), With<RevealsFog>>();
        let views: Vec<(Option<Entity>, TileSet)> = viewers
            .iter(world)
            .filter(|(_, t, _)| t.copied().unwrap_or_default() == team)
            .map(|(v, _, map)| (Some(map.0), v.iter().map(|t| (t.x, t.y)).collect()))
            .collect();
        let mut marked = world.query_filtered::<(
            Entity,
            Option<&TilePos>,
            Option<&TilemapId>,
            Option<&Team>,
            Has<RevealsFog>,
        ), With<ReplicateWhenSeen>>();
        marked
            .iter(world)
            .filter(|&(_, tile, map, owner, reveals)| {
                let owner = owner.copied().or(reveals.then_some(Team(0)));
                let seen = match (tile, map) {
                    (Some(tile), Some(map)) => views
                        .iter()
                        .any(|(m, v)| *m == Some(map.0) && v.contains(&(tile.x, tile.y))),
                    _ => false,
                };
                owner == Some(team) || seen
            })
            .map(|(entity, ..)| entity)
            .collect()
    }

    /// Each connected client holds exactly what its team sees.
    fn assert_clients_match_teams(&mut self) {
        for i in 0..2 {
            if self.connected(i) {
                let expected = self.team_sees(self.teams[i]);
                assert_eq!(
                    self.received(i),
                    expected,
                    "client {i} ({:?}) holds what its team sees",
                    self.teams[i]
                );
            }
        }
    }

    /// The server's sightings since the last call.
    fn sightings(&mut self) -> BTreeSet<(bool, Entity, Entity)> {
        let log = &mut self.server.world_mut().resource_mut::<Sightings>().0;
        log.drain(..).collect()
    }
}

fn set(entities: &[Entity]) -> BTreeSet<Entity> {
    entities.iter().copied().collect()
}

#[test]
fn a_monster_reaches_a_client_only_while_its_team_sees_it() {
    let mut net = Net::new();
    let scout0 = net.spawn_unit(Team(0), 2, 2);
    let scout1 = net.spawn_unit(Team(1), 17, 2);
    // Behind the wall for team 0, four tiles from team 1's scout.
    let monster = net.spawn_monster(13, 2);
    for _ in 0..3 {
        net.step();
        assert_eq!(
            net.received(0),
            set(&[scout0]),
            "team 0 never sees the monster"
        );
        assert_eq!(net.received(1), set(&[scout1, monster]));
    }
    net.sightings();

    // The monster walks into team 0's room: spotted in this server frame...
    net.move_to(monster, 7, 2);
    net.server.update();
    assert_eq!(
        net.sightings(),
        BTreeSet::from([(true, scout0, monster), (false, scout1, monster)])
    );
    assert!(
        !net.received(0).contains(&monster),
        "not sent before the frame"
    );
    // ...and on client 0 after that frame's messages; gone from client 1.
    net.deliver();
    assert_eq!(net.received(0), set(&[scout0, monster]));
    assert_eq!(net.received(1), set(&[scout1]));

    // Back behind the wall: lost from sight, despawned on client 0 by the same frame.
    net.move_to(monster, 12, 2);
    net.server.update();
    assert_eq!(
        net.sightings(),
        BTreeSet::from([(false, scout0, monster), (true, scout1, monster)])
    );
    net.deliver();
    assert_eq!(net.received(0), set(&[scout0]));
    assert_eq!(net.received(1), set(&[scout1, monster]));
    net.assert_clients_match_teams();
}

#[test]
fn each_client_receives_its_own_teams_fog_and_no_other() {
    let mut net = Net::new();
    let scout = net.spawn_unit(Team(0), 2, 2);
    net.spawn_unit(Team(1), 17, 2);
    net.step();
    net.step();
    for i in 0..2 {
        let team = net.teams[i];
        let views = net.team_views(i);
        assert_eq!(views.len(), 1, "client {i} has one view: its team's");
        let fog = net.server.world().get::<FogOfWar>(net.map).unwrap();
        let fog = fog.team(team).unwrap();
        assert_eq!(views[0].team(), team);
        for y in 0..5 {
            for x in 0..20 {
                let tile = TilePos { x, y };
                assert_eq!(
                    views[0].state(tile),
                    fog.state(tile),
                    "client {i}, {tile:?}"
                );
            }
        }
    }
    // Team 0 walks east: its client's fog follows, remembered tiles included.
    net.move_to(scout, 9, 2);
    net.step();
    let view = &net.team_views(0)[0];
    assert_eq!(view.state(TilePos { x: 12, y: 2 }), FogState::Unexplored);
    assert_eq!(view.state(TilePos { x: 0, y: 2 }), FogState::Remembered);
    assert_eq!(view.state(TilePos { x: 9, y: 4 }), FogState::Visible);
}

#[test]
fn a_teams_own_units_reach_it_wherever_they_stand() {
    let mut net = Net::new();
    let scout0 = net.spawn_unit(Team(0), 2, 2);
    // A team-0 unit in team 1's room, blind (radius 0 sees its own tile only, which is
    // enough): team 1 sees it, team 0 owns it.
    let spy = net.spawn_unit(Team(0), 15, 2);
    net.server
        .world_mut()
        .get_mut::<Viewshed>(spy)
        .unwrap()
        .set_radius(0);
    let scout1 = net.spawn_unit(Team(1), 17, 2);
    net.step();
    assert_eq!(net.received(0), set(&[scout0, spy]));
    assert_eq!(net.received(1), set(&[scout1, spy]));
    // Team 1's only viewer leaves: it sees nothing, team 0 still has its spy.
    net.server.world_mut().despawn(scout1);
    net.step();
    assert_eq!(net.received(0), set(&[scout0, spy]));
    assert_eq!(
        net.received(1),
        set(&[]),
        "a team with no viewer sees nothing"
    );
}

#[test]
fn a_client_without_a_team_receives_no_marked_entity() {
    let mut net = Net::new();
    net.spawn_unit(Team(0), 2, 2);
    net.spawn_monster(3, 2);
    let client = **net.clients[0].world().resource::<TestClientEntity>();
    net.server
        .world_mut()
        .entity_mut(client)
        .remove::<ClientTeam>();
    net.step();
    assert_eq!(net.received(0), set(&[]));
    // Bound again: it gets its team's view at the next frame.
    net.server
        .world_mut()
        .entity_mut(client)
        .insert(ClientTeam(Team(0)));
    net.step();
    assert_eq!(net.received(0).len(), 2);
    net.assert_clients_match_teams();
}

#[test]
fn a_client_whose_team_is_changed_in_place_gets_its_new_teams_view_and_fog_only() {
    let mut net = Net::new();
    let ours = net.spawn_unit(Team(0), 2, 2);
    let theirs = net.spawn_unit(Team(1), 17, 2);
    net.step();
    assert!(net.received(0).contains(&ours) && !net.received(0).contains(&theirs));
    // A charmed player: the game writes the client's team in place, no insert.
    let client = **net.clients[0].world().resource::<TestClientEntity>();
    net.server
        .world_mut()
        .get_mut::<ClientTeam>(client)
        .unwrap()
        .0 = Team(1);
    net.teams[0] = Team(1);
    net.step();
    assert!(
        net.received(0).contains(&theirs) && !net.received(0).contains(&ours),
        "client 0 holds team 1's units and no longer team 0's"
    );
    net.assert_clients_match_teams();
    let teams: Vec<Team> = net.team_views(0).iter().map(|view| view.team()).collect();
    assert_eq!(teams, vec![Team(1)], "client 0 holds team 1's fog only");
}

/// A monster placed by `Transform` on a tilemap that moves: its own transform is unchanged, but
/// the tile under it is another one, and the teams are judged again from that tile.
#[test]
fn an_entity_placed_by_transform_is_judged_again_when_its_map_moves() {
    let mut net = Net::new();
    net.spawn_unit(Team(0), 2, 2);
    net.spawn_unit(Team(1), 17, 2);
    // Tile (15, 2) of the map at the origin, in team 1's room.
    let at = Vec3::new(15.0 * 16.0, 2.0 * 16.0, 0.0);
    let monster = net
        .server
        .world_mut()
        .spawn((
            Transform::from_translation(at),
            GlobalTransform::from_translation(at),
            TilemapId(net.map),
            ReplicateWhenSeen,
        ))
        .id();
    net.step();
    assert!(!net.received(0).contains(&monster));
    assert!(net.received(1).contains(&monster));
    // The map slides 12 tiles east: the monster now stands on tile (3, 2), in team 0's room.
    let shift = Vec3::new(12.0 * 16.0, 0.0, 0.0);
    net.server.world_mut().entity_mut(net.map).insert((
        Transform::from_translation(shift),
        GlobalTransform::from_translation(shift),
    ));
    net.step();
    assert!(
        net.received(0).contains(&monster),
        "team 0 sees tile (3, 2)"
    );
    assert!(!net.received(1).contains(&monster), "team 1 does not");
}

#[test]
fn a_reconnected_client_gets_exactly_what_its_team_sees() {
    let mut net = Net::new();
    let scout0 = net.spawn_unit(Team(0), 2, 2);
    let scout1 = net.spawn_unit(Team(1), 17, 2);
    let monster = net.spawn_monster(13, 2);
    net.step();
    net.assert_clients_match_teams();

    net.disconnect(0);
    assert_eq!(net.received(0), set(&[]), "the game despawned what it had");
    // While client 0 is away the monster walks into its team's view, and out of team 1's.
    net.move_to(monster, 6, 2);
    for _ in 0..3 {
        net.step();
    }
    assert_eq!(net.received(1), set(&[scout1]), "client 1 carries on");

    net.connect(0);
    assert_eq!(
        net.received(0),
        set(&[]),
        "authorized, not yet bound to a team"
    );
    net.step();
    assert_eq!(net.received(0), set(&[scout0, monster]));
    net.assert_clients_match_teams();

    // The other client leaves and comes back too: nothing is lost on either side.
    net.disconnect(1);
    net.connect(1);
    net.step();
    assert_eq!(net.received(1), set(&[scout1]));
    net.assert_clients_match_teams();
}

#[test]
fn an_entity_that_loses_its_mark_reaches_every_client() {
    let mut net = Net::new();
    net.spawn_unit(Team(0), 1, 0);
    net.spawn_unit(Team(1), 19, 0);
    // On the wall's far end, out of both scouts' reach.
    let banner = net.spawn_monster(10, 4);
    net.step();
    assert!(!net.received(0).contains(&banner) && !net.received(1).contains(&banner));
    net.server
        .world_mut()
        .entity_mut(banner)
        .remove::<ReplicateWhenSeen>();
    net.step();
    assert!(net.received(0).contains(&banner));
    assert!(net.received(1).contains(&banner));
}

/// What the property test does between two checks.
#[derive(Clone, Debug)]
enum Op {
    /// Moves marked entity `index` (modulo their number) to a tile.
    Move(usize, u32, u32),
    /// A monster appears.
    Spawn(u32, u32),
    /// Marked entity `index` is despawned.
    Despawn(usize),
    /// Client `i` switches to the other team: a new `ClientTeam` inserted, or (`true`) the
    /// one it has changed in place.
    SwitchTeam(usize, bool),
    /// Client `i` leaves, or comes back.
    Reconnect(usize),
    /// The wall tile at (10, y) opens or closes.
    ToggleWall(u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..16usize, 0..20u32, 0..5u32).prop_map(|(i, x, y)| Op::Move(i, x, y)),
        1 => (0..20u32, 0..5u32).prop_map(|(x, y)| Op::Spawn(x, y)),
        1 => (0..16usize).prop_map(Op::Despawn),
        1 => (0..2usize, any::<bool>()).prop_map(|(i, in_place)| Op::SwitchTeam(i, in_place)),
        1 => (0..2usize).prop_map(Op::Reconnect),
        1 => (0..5u32).prop_map(Op::ToggleWall),
    ]
}

impl Net {
    fn marked(&mut self) -> Vec<Entity> {
        let world = self.server.world_mut();
        let mut marked = world.query_filtered::<Entity, With<ReplicateWhenSeen>>();
        let mut entities: Vec<Entity> = marked.iter(world).collect();
        entities.sort();
        entities
    }

    fn apply(&mut self, op: Op) {
        let marked = self.marked();
        let pick = |i: usize| (!marked.is_empty()).then(|| marked[i % marked.len()]);
        match op {
            Op::Move(i, x, y) => {
                if let Some(entity) = pick(i) {
                    self.move_to(entity, x, y);
                }
            }
            Op::Spawn(x, y) => {
                self.spawn_monster(x, y);
            }
            Op::Despawn(i) => {
                if let Some(entity) = pick(i) {
                    self.server.world_mut().despawn(entity);
                }
            }
            Op::SwitchTeam(i, in_place) => self.switch_team(i, in_place),
            Op::Reconnect(i) if self.connected(i) => self.disconnect(i),
            Op::Reconnect(i) => self.connect(i),
            Op::ToggleWall(y) => self.toggle_wall(y),
        }
    }

    fn switch_team(&mut self, i: usize, in_place: bool) {
        self.teams[i] = Team(1 - self.teams[i].0);
        if self.connected(i) {
            let client = **self.clients[i].world().resource::<TestClientEntity>();
            let mut client = self.server.world_mut().entity_mut(client);
            match client.get_mut::<ClientTeam>() {
                Some(mut team) if in_place => team.0 = self.teams[i],
                _ => {
                    client.insert(ClientTeam(self.teams[i]));
                }
            }
        }
    }

    fn toggle_wall(&mut self, y: u32) {
        let tile = common_app::tile_entity(&self.server, self.map, 10, y);
        let mut tile = self.server.world_mut().entity_mut(tile);
        if tile.contains::<Opaque>() {
            tile.remove::<Opaque>();
        } else {
            tile.insert(Opaque);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Random moves, spawns, despawns, wall toggles, team switches and reconnections: after
    /// every server frame each connected client holds exactly what its team sees.
    #[test]
    fn every_client_holds_what_its_team_sees(ops in proptest::collection::vec(op(), 1..40)) {
        let mut net = Net::new();
        net.spawn_unit(Team(0), 2, 2);
        net.spawn_unit(Team(1), 17, 2);
        net.spawn_unit(Team(1), 5, 4);
        net.spawn_monster(13, 2);
        net.spawn_monster(7, 1);
        net.step();
        net.assert_clients_match_teams();
        for op in ops {
            net.apply(op);
            net.step();
            net.assert_clients_match_teams();
        }
    }
}
