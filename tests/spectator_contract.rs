//! The spectator client's contract on a server (docs/strategy.md, "On a server"): a client
//! whose `ClientTeam` is `Team::SPECTATOR` receives the spectator's view, every team's sight on
//! each map, from the update after it became the spectator, without the game keeping the
//! spectator's fog (no `DrawnTeam`, no `FogOfWar::team_mut`).
#![cfg(feature = "replicon")]

mod common_app;
mod common_net;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::Team;
use bevy_viewshed::prelude::*;
use common_net::{Net, set};

/// The tiles the unit's viewshed holds, on the server.
fn sight(net: &Net, unit: Entity) -> Vec<TilePos> {
    let viewshed = net.server.world().get::<Viewshed>(unit).unwrap();
    viewshed.iter().collect()
}

/// Client 0 holds both teams' units and one view, the spectator's, that shows what each
/// team's units see.
fn assert_spectates(net: &Net, units: &[Entity], how: &str) {
    assert_eq!(
        net.received(0),
        set(units),
        "{how}: the spectator holds both teams' units"
    );
    let views = net.team_views(0);
    let teams: Vec<Team> = views.iter().map(|v| v.team()).collect();
    assert_eq!(
        teams,
        vec![Team::SPECTATOR],
        "{how}: one view, the spectator's"
    );
    for &unit in units {
        let tiles = sight(net, unit);
        assert!(!tiles.is_empty(), "{how}: unit {unit:?} sees something");
        for tile in tiles {
            assert_eq!(
                views[0].state(tile),
                FogState::Visible,
                "{how}: {unit:?} sees {tile:?}"
            );
        }
    }
    net.assert_clients_hold_what_they_may();
}

#[test]
fn a_client_switched_to_the_spectator_holds_every_teams_sight_two_updates_later() {
    for in_place in [false, true] {
        let how = if in_place {
            "in place"
        } else {
            "new ClientTeam"
        };
        let mut net = Net::new();
        let blue = net.spawn_unit(Team(0), 2, 2);
        let red = net.spawn_unit(Team(1), 17, 2);
        net.step();
        assert_eq!(
            net.received(0),
            set(&[blue]),
            "{how}: team 0 sees its own only"
        );
        net.set_team(0, Some(Team::SPECTATOR), in_place);
        net.step();
        net.step();
        assert_spectates(&net, &[blue, red], how);
        assert_eq!(net.received(1), set(&[red]), "{how}: team 1 is unchanged");
        // The spectator's view is kept as the units move.
        net.move_to(red, 14, 2);
        net.step();
        assert_spectates(&net, &[blue, red], how);
    }
}

#[test]
fn a_spectator_switched_back_to_a_team_holds_only_that_teams_units_and_fog() {
    for in_place in [false, true] {
        let how = if in_place {
            "in place"
        } else {
            "new ClientTeam"
        };
        let mut net = Net::new();
        let blue = net.spawn_unit(Team(0), 2, 2);
        let red = net.spawn_unit(Team(1), 17, 2);
        net.step();
        net.set_team(0, Some(Team::SPECTATOR), in_place);
        net.step();
        net.step();
        assert_spectates(&net, &[blue, red], how);
        net.set_team(0, Some(Team(0)), in_place);
        net.step();
        net.step();
        assert_eq!(
            net.received(0),
            set(&[blue]),
            "{how}: back on team 0, its own only"
        );
        let teams: Vec<Team> = net.team_views(0).iter().map(|v| v.team()).collect();
        assert_eq!(teams, vec![Team(0)], "{how}: team 0's fog only");
        let view = &net.team_views(0)[0];
        assert_eq!(
            view.state(TilePos { x: 17, y: 2 }),
            FogState::Unexplored,
            "{how}"
        );
        net.assert_clients_hold_what_they_may();
    }
}
