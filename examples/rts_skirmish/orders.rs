//! What happens in the battle: the keys (`Tab` view, `A` alliance, `S` scan), the autoplay
//! script doing the same, and the units marching a tile every few frames.

use std::time::Duration;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::{DrawnTeam, Reveal, SharedVision, Team};

use crate::battle::{Battlefield, Marching, Rng, RockMap, SIZE, is_rock};
use crate::options::Options;

/// Frames between two steps of a marching unit.
const STEP_FRAMES: u64 = 6;

/// The frames played so far.
#[derive(Resource, Default)]
pub struct Frame(pub u64);

/// The views `Tab` cycles through.
const VIEWS: [Team; 5] = [Team(0), Team(1), Team(2), Team(3), Team::SPECTATOR];

/// `Tab`, `A` and `S` by hand.
pub fn keys(
    keys: Res<ButtonInput<KeyCode>>,
    mut drawn: ResMut<DrawnTeam>,
    mut vision: ResMut<SharedVision>,
    commands: Commands,
    map: Res<Battlefield>,
) {
    if keys.just_pressed(KeyCode::Tab) {
        let now = VIEWS.iter().position(|&team| team == drawn.0).unwrap_or(0);
        drawn.0 = VIEWS[(now + 1) % VIEWS.len()];
    }
    if keys.just_pressed(KeyCode::KeyA) {
        toggle_alliance(&mut vision);
    }
    if keys.just_pressed(KeyCode::KeyS) {
        scan(commands, map.0, drawn.0);
    }
}

/// The autoplay script: the alliance at frame 2, a scan half way.
pub fn script(
    mut frame: ResMut<Frame>,
    options: Res<Options>,
    mut vision: ResMut<SharedVision>,
    commands: Commands,
    map: Res<Battlefield>,
    drawn: Res<DrawnTeam>,
) {
    if options.autoplay.is_some_and(|frames| frame.0 >= frames) {
        return; // over: the battle stands still for the screenshot
    }
    frame.0 += 1;
    let Some(frames) = options.autoplay else {
        return;
    };
    if frame.0 == 2 {
        toggle_alliance(&mut vision);
    }
    if frame.0 == frames / 2 {
        scan(commands, map.0, drawn.0);
    }
}

/// Blue and green share their sight both ways, or stop.
fn toggle_alliance(vision: &mut SharedVision) {
    if vision.shares(Team(0), Team(1)) {
        vision.stop(Team(0), Team(1));
        vision.stop(Team(1), Team(0));
    } else {
        vision.share(Team(0), Team(1));
        vision.share(Team(1), Team(0));
    }
}

/// Lights, for `team` (blue for the spectator), the corner across the map from its own, 7
/// tiles around, walls or not, for three seconds.
fn scan(mut commands: Commands, map: Entity, team: Team) {
    let team = if team == Team::SPECTATOR {
        Team(0)
    } else {
        team
    };
    let (x, y) = crate::battle::TEAMS[(team.0 as usize + 2) % 4].0;
    commands.spawn((
        Reveal::new(7, Duration::from_secs(3)).through_walls(),
        team,
        TilePos::new(x, y),
        TilemapId(map),
    ));
    println!("scan for team {} at ({x}, {y})", team.0);
}

/// Every `STEP_FRAMES` frames, each marching unit steps to the neighbouring tile nearest its
/// goal that is not rock; at its goal, or stuck, it picks a new one.
pub fn march(
    frame: Res<Frame>,
    rock: Res<RockMap>,
    mut rng: ResMut<Rng>,
    mut units: Query<(&mut TilePos, &mut Marching)>,
) {
    if !frame.is_changed() || !frame.0.is_multiple_of(STEP_FRAMES) {
        return;
    }
    for (mut tile, mut marching) in &mut units {
        if *tile == marching.goal {
            marching.goal = rng.tile();
        }
        match step_towards(*tile, marching.goal, &rock.0) {
            Some(next) => *tile = next,
            // Stuck behind rocks: somewhere else.
            None => marching.goal = rng.tile(),
        }
    }
}

/// The free neighbour of `from` nearest `goal`, if it is nearer than `from`.
fn step_towards(from: TilePos, goal: TilePos, rock: &[bool]) -> Option<TilePos> {
    let distance = |t: TilePos| t.x.abs_diff(goal.x).pow(2) + t.y.abs_diff(goal.y).pow(2);
    let steps = [
        (1, 0),
        (-1, 0),
        (0, 1),
        (0, -1),
        (1, 1),
        (-1, -1),
        (1, -1),
        (-1, 1),
    ];
    let neighbours = steps.into_iter().filter_map(|(dx, dy)| {
        let x = from.x.checked_add_signed(dx).filter(|&x| x < SIZE.x)?;
        let y = from.y.checked_add_signed(dy).filter(|&y| y < SIZE.y)?;
        let tile = TilePos::new(x, y);
        (!is_rock(rock, tile)).then_some(tile)
    });
    neighbours
        .min_by_key(|&t| distance(t))
        .filter(|&t| distance(t) < distance(from))
}
