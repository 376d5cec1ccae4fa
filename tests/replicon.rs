//! Server-side fog of war over bevy_replicon, end to end in one process: a server `App` with
//! the plugins and two client `App`s exchanging replicon's messages through its test helpers
//! (no sockets). Each client's world is compared with what its team sees, computed here from
//! the viewers' own viewsheds (a plain model, not the plugin's index).
#![cfg(feature = "replicon")]

mod common_app;
mod common_net;

use std::collections::BTreeSet;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_replicon::prelude::Replicated;
use bevy_replicon::test_app::TestClientEntity;
use bevy_viewshed::Team;
use bevy_viewshed::prelude::*;
use bevy_viewshed::replicon::{ClientGhost, ClientTeam, ReplicatesGhost, ReplicatesWhenSeen};
use common_app::spawn_map;
use common_net::{Net, Stamp, set};

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
    net.assert_clients_hold_what_they_may();
}

#[test]
fn each_client_receives_its_own_teams_fog_and_no_other() {
    let mut net = Net::new();
    let scout = net.spawn_unit(Team(0), 2, 2);
    net.spawn_unit(Team(1), 17, 2);
    net.step();
    net.step();
    for i in 0..2 {
        let team = net.teams[i].unwrap();
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
    net.assert_clients_hold_what_they_may();
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
    net.teams[0] = Some(Team(1));
    net.step();
    assert!(
        net.received(0).contains(&theirs) && !net.received(0).contains(&ours),
        "client 0 holds team 1's units and no longer team 0's"
    );
    net.assert_clients_hold_what_they_may();
    let teams: Vec<Team> = net.team_views(0).iter().map(|view| view.team()).collect();
    assert_eq!(teams, vec![Team(1)], "client 0 holds team 1's fog only");
}

#[test]
fn a_spectator_client_receives_every_teams_sight_without_the_game_keeping_its_fog() {
    let mut net = Net::new();
    let blue = net.spawn_unit(Team(0), 2, 2);
    let red = net.spawn_unit(Team(1), 17, 2);
    net.step();
    assert!(
        net.server
            .world()
            .get::<FogOfWar>(net.map)
            .unwrap()
            .team(Team::SPECTATOR)
            .is_none(),
        "no spectator's fog before a spectator client"
    );
    // Client 0 becomes the spectator, switched in place; nothing else is asked of the game.
    net.set_team(0, Some(Team::SPECTATOR), true);
    net.step();
    net.step();
    assert_eq!(
        net.received(0),
        set(&[blue, red]),
        "the spectator holds both teams' units"
    );
    assert_eq!(
        net.received(1),
        set(&[red]),
        "team 1's client holds its own only"
    );
    net.assert_clients_hold_what_they_may();
    let views = net.team_views(0);
    let teams: Vec<Team> = views.iter().map(|view| view.team()).collect();
    assert_eq!(
        teams,
        vec![Team::SPECTATOR],
        "client 0 holds the spectator's fog only"
    );
    let fog = net.server.world().get::<FogOfWar>(net.map).unwrap();
    let spectator = fog.team(Team::SPECTATOR).unwrap();
    for y in 0..5 {
        for x in 0..20 {
            let tile = TilePos { x, y };
            assert_eq!(views[0].state(tile), spectator.state(tile), "{tile:?}");
        }
    }
    // Both rooms are in view: the spectator's fog is every team's sight.
    for tile in [TilePos { x: 2, y: 2 }, TilePos { x: 17, y: 2 }] {
        assert_eq!(views[0].state(tile), FogState::Visible, "{tile:?}");
    }
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
            ReplicatesWhenSeen,
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
    net.assert_clients_hold_what_they_may();

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
    net.assert_clients_hold_what_they_may();

    // The other client leaves and comes back too: nothing is lost on either side.
    net.disconnect(1);
    net.connect(1);
    net.step();
    assert_eq!(net.received(1), set(&[scout1]));
    net.assert_clients_hold_what_they_may();
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
        .remove::<ReplicatesWhenSeen>();
    net.step();
    assert!(net.received(0).contains(&banner));
    assert!(net.received(1).contains(&banner));
}

/// A monster team 0 sees, on client 0, despawned in the same server frame as something that
/// hides it from client 0 (`hide`): the client still gets its despawn, not a unit that stays
/// forever.
fn a_despawn_reaches_a_client_that_lost_sight_in_the_same_frame(
    hide: impl FnOnce(&mut Net, Entity),
) {
    let mut net = Net::new();
    net.spawn_unit(Team(0), 2, 2);
    net.spawn_unit(Team(1), 17, 2);
    let monster = net.spawn_monster(4, 2);
    net.step();
    assert!(net.received(0).contains(&monster));
    hide(&mut net, monster);
    net.server.world_mut().despawn(monster);
    for _ in 0..2 {
        net.step();
        assert!(
            !net.received(0).contains(&monster),
            "client 0 keeps a dead monster"
        );
        net.assert_clients_hold_what_they_may();
    }
}

#[test]
fn a_client_that_switches_team_as_a_seen_unit_dies_gets_its_despawn() {
    a_despawn_reaches_a_client_that_lost_sight_in_the_same_frame(|net, _| {
        net.set_team(0, Some(Team(1)), false)
    });
}

#[test]
fn a_client_switched_in_place_as_a_seen_unit_dies_gets_its_despawn() {
    a_despawn_reaches_a_client_that_lost_sight_in_the_same_frame(|net, _| {
        net.set_team(0, Some(Team(1)), true)
    });
}

#[test]
fn a_client_that_leaves_its_team_as_a_seen_unit_dies_gets_its_despawn() {
    a_despawn_reaches_a_client_that_lost_sight_in_the_same_frame(|net, _| {
        net.set_team(0, None, false)
    });
}

#[test]
fn a_client_that_saw_a_unit_marked_as_it_dies_gets_its_despawn() {
    let mut net = Net::new();
    // An unmarked banner: every client holds it.
    let banner = net
        .server
        .world_mut()
        .spawn((TilePos { x: 10, y: 4 }, TilemapId(net.map), Replicated))
        .id();
    net.step();
    assert!(net.received(0).contains(&banner) && net.received(1).contains(&banner));
    net.server
        .world_mut()
        .entity_mut(banner)
        .insert(ReplicatesWhenSeen);
    net.server.world_mut().despawn(banner);
    net.step();
    assert!(!net.received(0).contains(&banner) && !net.received(1).contains(&banner));
}

/// A monster team 0 sees stands on a column that the map loses: it stands nowhere, so only
/// its owner (nobody) sees it, though it did not move.
#[test]
fn a_seen_monster_whose_tile_falls_off_a_shrinking_map_is_hidden() {
    let mut net = Net::new();
    net.spawn_unit(Team(0), 2, 2);
    let monster = net.spawn_monster(8, 2);
    net.step();
    assert!(net.received(0).contains(&monster));
    *net.server
        .world_mut()
        .get_mut::<TilemapSize>(net.map)
        .unwrap() = TilemapSize::new(8, 5);
    net.step();
    assert!(
        !net.received(0).contains(&monster),
        "tile (8, 2) is off the map"
    );
    net.assert_clients_hold_what_they_may();
    // The map grows back: seen again.
    *net.server
        .world_mut()
        .get_mut::<TilemapSize>(net.map)
        .unwrap() = TilemapSize::new(20, 5);
    net.step();
    assert!(net.received(0).contains(&monster));
    net.assert_clients_hold_what_they_may();
}

/// A map that grows by two columns keeps the same words per row: its team views still take
/// the new size.
#[test]
fn a_teams_fog_follows_its_map_when_it_grows_within_a_word() {
    let mut net = Net::new();
    net.spawn_unit(Team(0), 2, 2);
    net.step();
    *net.server
        .world_mut()
        .get_mut::<TilemapSize>(net.map)
        .unwrap() = TilemapSize::new(22, 5);
    net.step();
    let sizes: Vec<TilemapSize> = net.team_views(0).iter().map(|v| v.size()).collect();
    assert_eq!(sizes, vec![TilemapSize::new(22, 5)]);
    net.assert_clients_hold_what_they_may();
}

/// A client leaves its team in the frame a map (and so its team's fog there) goes: it gets
/// the fog's despawn too, and holds no team's fog.
#[test]
fn a_client_that_leaves_its_team_as_a_map_goes_keeps_no_fog() {
    let mut net = Net::new();
    net.spawn_unit(Team(0), 2, 2);
    net.step();
    assert_eq!(net.team_views(0).len(), 1);
    net.set_team(0, None, false);
    net.server
        .world_mut()
        .entity_mut(net.map)
        .remove::<TilemapSize>();
    net.step();
    assert!(
        net.team_views(0).is_empty(),
        "client 0 keeps a fog it no longer may see"
    );
}

/// One unit of a team takes one step on a 64x64 map where its team has other units: its
/// team's client is sent the tiles that changed (a few dozen bytes), not the team's whole fog,
/// and holds the team's fog exactly after it.
#[test]
fn one_step_of_one_viewer_costs_its_teams_client_under_200_bytes() {
    let mut net = Net::new();
    // Pillars every 6 tiles: views with holes, a fog of many runs.
    let map = spawn_map(&mut net.server, 64, 64, |x, y| x % 6 == 3 && y % 6 == 3);
    let unit = |net: &mut Net, x, y| {
        let unit = (Viewshed::new(8), RevealsFog, Team(0), TilePos { x, y });
        net.server.world_mut().spawn((unit, TilemapId(map))).id()
    };
    let walker = unit(&mut net, 10, 10);
    for (x, y) in [(40, 12), (20, 45), (50, 50)] {
        unit(&mut net, x, y);
    }
    net.server.update();
    let whole = net.bytes_queued_for(0);
    net.deliver();
    // Nothing moves until the client has acknowledged everything.
    for _ in 0..4 {
        net.step();
    }
    net.move_to(walker, 11, 10);
    net.server.update();
    let step = net.bytes_queued_for(0);
    net.deliver();
    net.assert_clients_hold_what_they_may();
    assert!(
        step > 0 && step < 200,
        "one step cost {step} bytes (the first whole copy {whole})"
    );
    assert!(
        whole > 2 * step,
        "the first copy ({whole} bytes) is the fog whole"
    );
}

#[test]
fn a_ghost_stays_on_its_teams_clients_as_last_seen_until_its_tile_is_seen_empty() {
    let mut net = Net::new();
    net.spawn_unit(Team(0), 2, 2);
    let scout1 = net.spawn_unit(Team(1), 17, 2);
    // Seen by team 1 only.
    let monster = net.spawn_monster(13, 2);
    let stamp = Stamp { of: 0, frame: 0 };
    net.server
        .world_mut()
        .entity_mut(monster)
        .insert((ReplicatesGhost, stamp));
    for _ in 0..2 {
        net.step();
    }
    assert!(net.ghosts_held(0).is_empty() && net.ghosts_held(1).is_empty());
    // Team 1's scout walks away from it: client 1 keeps a ghost where it was last seen, as it
    // was then; client 0 never saw it and holds nothing.
    net.move_to(monster, 11, 4);
    *net.server.world_mut().get_mut::<Viewshed>(scout1).unwrap() = Viewshed::new(2);
    net.step();
    let ghost_of = |net: &Net, i: usize| {
        let world = net.clients[i].world();
        let mut ghosts = world.try_query::<(&ClientGhost, &Stamp)>().unwrap();
        ghosts
            .iter(world)
            .map(|(g, s)| (g.tile, *s))
            .collect::<Vec<_>>()
    };
    let held = ghost_of(&net, 1);
    assert_eq!(held.len(), 1, "client 1 holds one ghost");
    let (tile, kept) = held[0];
    assert_eq!(tile, TilePos { x: 13, y: 2 });
    assert_eq!(Entity::from_bits(kept.of), monster);
    assert!(net.ghosts_held(0).is_empty());
    net.assert_clients_hold_what_they_may();
    // It moves on unseen: the ghost does not change.
    for (x, y) in [(12, 4), (11, 3)] {
        net.move_to(monster, x, y);
        net.step();
        assert_eq!(ghost_of(&net, 1), held, "nothing of the hidden monster");
    }
    // The team sees the ghost's tile without it: the ghost goes.
    net.move_to(monster, 11, 0);
    net.move_to(scout1, 14, 2);
    net.step();
    net.step();
    assert!(net.ghosts_held(1).is_empty(), "the ghost is gone");
    net.assert_clients_hold_what_they_may();
}
