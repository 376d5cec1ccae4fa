//! The game scenes: units of several teams on a map, each a radius-8 viewer; every frame a
//! quarter of them take a step to a random neighbouring floor tile, never straight back to the
//! tile they came from unless it is the only way, so the walks go somewhere. Two maps: the
//! 256x256 dungeon of rooms, corridors and rock ([`game_map`]), and an open battlefield with
//! rock clusters whose side grows with the units, so that they stand as densely
//! ([`battle_map`]). Levels of the same units: `Views` (a `Viewshed` only), `Fog`
//! (+ `RevealsFog` + `Team` on a fog-styled map), `Teams` (+ `HidesOutsideView` +
//! `LeavesGhost`: what each team sees, no viewer's own sightings), `Full` (+ `CanBeSpotted`
//! too): every unit is a viewer and a target, as in a tactics game or an RTS.

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{Cloaked, Detector, OpacityGrid, Radar, Reveal, SharedVision, Team};

use super::support::{MapKind, Rng};
use super::{RADIUS, SIZE, minimal_plugins, spawn_dungeon};

/// What the units carry besides their `Viewshed`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Level {
    /// A radius-8 `Viewshed` only.
    Views,
    /// + `RevealsFog` + `Team` (four teams), fog written into the map's tiles for team 0.
    Fog,
    /// `Fog` with `HidesOutsideView` and `LeavesGhost`: hidden from and remembered by each
    /// team, with no viewer's own sightings.
    Teams,
    /// + `CanBeSpotted` + `HidesOutsideView` + `LeavesGhost`.
    Full,
    /// `Full` + the strategy rules ([`strategy_rules`]): teams 0 and 1, 2 and 3 allied, every
    /// 10th unit a `Detector`, every 20th `Cloaked`, a `Radar` per team, a scan each frame.
    Strategy,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Views, Level::Fog, Level::Full];

    pub fn name(self) -> &'static str {
        match self {
            Level::Views => "views",
            Level::Fog => "fog",
            Level::Teams => "teams",
            Level::Full => "full",
            Level::Strategy => "strategy",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        let levels = Self::ALL.into_iter().chain([Level::Teams, Level::Strategy]);
        levels.into_iter().find(|level| level.name() == name)
    }
}

/// The map's floor, for the walks.
#[derive(Resource)]
struct Floor(OpacityGrid);

/// A unit's walk: its number (which frames it moves in), the tile it came from, its dice.
#[derive(Component)]
struct Wander {
    number: u64,
    came_from: TilePos,
    rng: Rng,
}

/// The frames played so far.
#[derive(Resource, Default)]
struct Turn(u64);

/// The game's map: the dungeon's rooms and corridors with 4% rock on the floor.
pub fn game_map() -> OpacityGrid {
    let rooms = MapKind::Dungeon.generate(SIZE, SIZE, 7);
    let mut rng = Rng(2024);
    OpacityGrid::from_fn(SIZE, SIZE, |x, y| {
        rooms.is_opaque(x, y) || rng.below(100) < 4
    })
}

/// The side of the battlefield for `units` units: as densely as 2,000 units on 192x192.
pub fn battle_side(units: usize) -> u32 {
    (192.0 * (units as f64 / 2000.0).sqrt()).round() as u32
}

/// An open battlefield of `side` x `side` tiles: a border of rock, and clusters of rock (one
/// blob of radius 1 to 3 per 200 tiles or so), about 8% of the tiles.
pub fn battle_map(side: u32) -> OpacityGrid {
    let mut rng = Rng(side as u64 * 7 + 3);
    let mut rock = OpacityGrid::from_fn(side, side, |x, y| {
        x == 0 || y == 0 || x == side - 1 || y == side - 1
    });
    for _ in 0..side * side / 200 {
        let (cx, cy, r) = (rng.below(side), rng.below(side), 1 + rng.below(3));
        for y in cy.saturating_sub(r)..(cy + r + 1).min(side) {
            for x in cx.saturating_sub(r)..(cx + r + 1).min(side) {
                let (dx, dy) = (x.abs_diff(cx), y.abs_diff(cy));
                if dx * dx + dy * dy <= r * r {
                    rock.set_opaque(x, y, true);
                }
            }
        }
    }
    rock
}

/// A headless app playing the game scene on `grid` with `units` units of four teams at
/// `level`, its first frames played (every view computed).
pub fn game_app(grid: &OpacityGrid, units: usize, level: Level) -> App {
    teams_app(grid, units, 4, level)
}

/// [`game_app`] with `teams` teams.
pub fn teams_app(grid: &OpacityGrid, units: usize, teams: u32, level: Level) -> App {
    let mut app = App::new();
    app.add_plugins((minimal_plugins(), ViewshedPlugins::default()));
    let map = spawn_dungeon(app.world_mut(), grid);
    if level != Level::Views {
        app.world_mut().entity_mut(map).insert(FogStyle::default());
    }
    let mut rng = Rng(31);
    for number in 0..units as u64 {
        let tile = loop {
            let (x, y) = (rng.below(grid.width()), rng.below(grid.height()));
            if !grid.is_opaque(x, y) {
                break TilePos { x, y };
            }
        };
        let wander = Wander {
            number,
            came_from: tile,
            rng: Rng(number.wrapping_mul(7919) + 1),
        };
        let mut unit = app
            .world_mut()
            .spawn((Viewshed::new(RADIUS), tile, TilemapId(map), wander));
        if level != Level::Views {
            unit.insert((RevealsFog, Team(number as u32 % teams)));
        }
        if matches!(level, Level::Teams | Level::Full | Level::Strategy) {
            unit.insert((HidesOutsideView, LeavesGhost));
        }
        if matches!(level, Level::Full | Level::Strategy) {
            unit.insert(CanBeSpotted);
        }
        if level == Level::Strategy {
            strategy_unit(&mut unit, number, teams);
        }
    }
    if level == Level::Strategy {
        strategy_rules(&mut app, map, teams);
    }
    app.insert_resource(Floor(grid.clone()))
        .init_resource::<Turn>()
        .add_systems(Update, wander);
    app.update();
    app.update();
    app
}

/// A quarter of the units (a different quarter each frame) step to a floor neighbour.
fn wander(
    floor: Res<Floor>,
    mut turn: ResMut<Turn>,
    mut units: Query<(&mut Wander, &mut TilePos)>,
) {
    turn.0 += 1;
    for (mut wander, mut tile) in &mut units {
        if !(wander.number + turn.0).is_multiple_of(4) {
            continue;
        }
        let here = *tile;
        let mut ways = [here; 8];
        let mut count = 0;
        for (dx, dy) in [
            (-1, -1),
            (0, -1),
            (1, -1),
            (-1, 0),
            (1, 0),
            (-1, 1),
            (0, 1),
            (1, 1),
        ] {
            let (x, y) = (here.x as i32 + dx, here.y as i32 + dy);
            let to = TilePos::new(x as u32, y as u32);
            let on_floor = x >= 0
                && y >= 0
                && (x as u32) < floor.0.width()
                && (y as u32) < floor.0.height()
                && !floor.0.is_opaque(to.x, to.y);
            if on_floor && to != wander.came_from {
                ways[count] = to;
                count += 1;
            }
        }
        let to = match count {
            0 => wander.came_from,
            n => ways[wander.rng.below(n as u32) as usize],
        };
        wander.came_from = here;
        *tile = to;
    }
}

/// Unit `number`'s part in the strategy rules: every 10th a `Detector`, every 20th (another
/// one) `Cloaked`, and the first of each team a `Radar` of radius 24.
fn strategy_unit(unit: &mut EntityWorldMut, number: u64, teams: u32) {
    if number.is_multiple_of(10) {
        unit.insert(Detector);
    }
    if number % 20 == 5 {
        unit.insert(Cloaked);
    }
    if number < u64::from(teams) {
        unit.insert(Radar::new(24));
    }
}

/// Teams allied in pairs (0 and 1, 2 and 3, ...), both ways, and a scan each frame: a
/// radius-6 `Reveal` through walls for 50 ms, for the next team in turn, on a random floor
/// tile.
fn strategy_rules(app: &mut App, map: Entity, teams: u32) {
    let mut vision = app.world_mut().resource_mut::<SharedVision>();
    for team in (0..teams).step_by(2) {
        vision.share(Team(team), Team(team + 1));
        vision.share(Team(team + 1), Team(team));
    }
    let scan = move |mut commands: Commands, turn: Res<Turn>, floor: Res<Floor>| {
        let mut rng = Rng(turn.0.wrapping_mul(2_654_435_761) + 1);
        let (x, y) = (rng.below(floor.0.width()), rng.below(floor.0.height()));
        let reveal = Reveal::new(6, std::time::Duration::from_millis(50)).through_walls();
        let team = Team(turn.0 as u32 % teams);
        commands.spawn((reveal, team, TilePos::new(x, y), TilemapId(map)));
    };
    app.add_systems(Update, scan.after(wander));
}
