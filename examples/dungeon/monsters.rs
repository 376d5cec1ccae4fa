//! Monsters: they wander with their own `Viewshed`s, chase the player once they spot it (a
//! `Spotted` message; the FOV being symmetric, the player then sees them too), give up on
//! `LostSight`, and hide outside the player's view. Guards see through a vision cone that
//! turns as they walk. The monsters are team 1: `t` draws the fog of what they know, `v` shows
//! what each sees.

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::Team;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{
    DrawnTeam, ViewshedSchedule, ViewshedStepSystems, ViewshedUpdated, VisionCone,
};

use crate::input::{Doors, blocked, closed_door_next_to, neighbours, toggle_door};
use crate::map::{Dungeon, Rng};
use crate::sprites::{ActorSprites, tiles};
use crate::world::{Level, MAP_HEIGHT, MAP_WIDTH, Player, PlayerActed, map_tiles};

#[derive(Component)]
pub struct Monster {
    /// Whether it sees the player (from `Spotted` / `LostSight`).
    pub chasing: bool,
}

/// A monster that sees only ahead of it, through a cone that turns as it walks.
#[derive(Component)]
pub struct Guard;

/// The guards' cone: 100 degrees.
const GUARD_CONE: f64 = 100.0 * std::f64::consts::PI / 180.0;

/// The monsters' team, whose fog `t` draws.
pub const MONSTER_TEAM: Team = Team(1);

/// The monsters' dice, seeded from the dungeon's seed so a seed replays the same game.
#[derive(Resource)]
pub struct MonsterRng(Rng);

/// Whether the monsters' views are drawn.
#[derive(Resource, Default)]
pub struct ShowMonsterViews(pub bool);

pub struct MonsterViewsPlugin;

impl Plugin for MonsterViewsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ShowMonsterViews>()
            .add_systems(
                ViewshedSchedule,
                follow_sightings
                    .after(ViewshedStepSystems::Sightings)
                    .before(ViewshedStepSystems::Fog),
            )
            .add_systems(PostUpdate, draw_views.after(ViewshedSystems));
    }
}

pub fn spawn(
    commands: &mut Commands,
    dungeon: &Dungeon,
    map: Entity,
    sprites: &ActorSprites,
    seed: u64,
) {
    let mut rng = Rng(seed ^ 0x5EED);
    // Two monsters in every room but the player's.
    for room in 1..dungeon.rooms.len() {
        for kind in 0..2 {
            let (x, y) = dungeon.rooms[room].random_floor(&mut rng);
            let tile = TilePos { x, y };
            let mut monster = commands.spawn((
                Monster { chasing: false },
                Viewshed::new(6),
                RevealsFog,
                MONSTER_TEAM,
                HidesOutsideView,
                // Where you last saw it, its ghost stays (see `ghosts`).
                LeavesGhost,
                tile,
                TilemapId(map),
                sprites.actor(tiles::MONSTER),
            ));
            // The second monster of a room is a guard: farther sight, through a cone.
            if kind == 1 {
                let (dx, dy) = [(1, 0), (0, 1), (-1, 0), (0, -1)][rng.below(4) as usize];
                monster.insert((
                    Guard,
                    Viewshed::new(9).with_cone(VisionCone::toward_radians(dx, dy, GUARD_CONE)),
                    sprites.sprite(tiles::GUARD),
                ));
            }
        }
    }
    commands.insert_resource(MonsterRng(rng));
}

/// After each player action, every monster steps: towards the player if it sees it,
/// otherwise to a random free neighbour, or it opens a closed door next to it (a door the
/// player saw closed stays drawn closed until the player sees it again: `TerrainMemory`).
pub fn take_turns(
    mut commands: Commands,
    mut acted: MessageReader<PlayerActed>,
    level: Res<Level>,
    player: Single<&TilePos, (With<Player>, Without<Monster>)>,
    mut monsters: Query<(Entity, &mut TilePos, &mut Viewshed, &Monster, Has<Guard>)>,
    mut doors: Doors,
    mut rng: ResMut<MonsterRng>,
) {
    for _ in acted.read() {
        let target = **player;
        let taken: Vec<(Entity, TilePos)> = monsters.iter().map(|(e, pos, ..)| (e, *pos)).collect();
        let mut occupied: Vec<TilePos> = taken.iter().map(|&(_, pos)| pos).collect();
        occupied.push(target);
        for (index, (_, mut pos, mut viewshed, monster, guard)) in monsters.iter_mut().enumerate() {
            let door = closed_door_next_to(&level, &doors, *pos);
            if let Some(door) = door.filter(|_| !monster.chasing && rng.0.below(4) == 0)
                && let Ok(door) = doors.get_mut(door)
            {
                toggle_door(&mut commands, door);
                continue;
            }
            let free: Vec<TilePos> = neighbours(*pos)
                .filter(|&tile| !blocked(&level, &doors, tile) && !occupied.contains(&tile))
                .collect();
            if free.is_empty() {
                continue;
            }
            let next = if monster.chasing {
                let distance = |t: &TilePos| (t.x.abs_diff(target.x)).max(t.y.abs_diff(target.y));
                *free.iter().min_by_key(|t| (distance(t), t.x, t.y)).unwrap()
            } else if rng.0.below(3) == 0 {
                free[rng.0.below(free.len() as u32) as usize]
            } else {
                continue;
            };
            occupied[index] = next;
            if guard {
                // A guard looks where it walks.
                let (dx, dy) = (next.x as i32 - pos.x as i32, next.y as i32 - pos.y as i32);
                viewshed.options.cone = Some(VisionCone::toward_radians(dx, dy, GUARD_CONE));
            }
            *pos = next;
        }
    }
}

/// Monsters chase the player from the moment they spot it until they lose sight of it.
pub fn follow_sightings(
    mut spotted: MessageReader<Spotted>,
    mut lost: MessageReader<LostSight>,
    player: Single<Entity, With<Player>>,
    mut monsters: Query<&mut Monster>,
) {
    for m in spotted.read().filter(|m| m.target == *player) {
        if let Ok(mut monster) = monsters.get_mut(m.viewer) {
            monster.chasing = true;
        }
    }
    for m in lost.read().filter(|m| m.target == *player) {
        if let Ok(mut monster) = monsters.get_mut(m.viewer) {
            monster.chasing = false;
        }
    }
}

/// `t` switches the fog of war between the player's view and the monsters' (team 1).
pub fn toggle_fog_team(keys: Res<ButtonInput<KeyCode>>, mut team: ResMut<DrawnTeam>) {
    if keys.just_pressed(KeyCode::KeyT) {
        team.0 = if team.0 == MONSTER_TEAM {
            Team(0)
        } else {
            MONSTER_TEAM
        };
    }
}

/// `v` shows or hides the monsters' views.
pub fn toggle_views(keys: Res<ButtonInput<KeyCode>>, mut show: ResMut<ShowMonsterViews>) {
    if keys.just_pressed(KeyCode::KeyV) {
        show.0 = !show.0;
    }
}

/// Tints the overlay layer where monsters see (on explored tiles), only when a view changed.
fn draw_views(
    show: Res<ShowMonsterViews>,
    mut updated: MessageReader<ViewshedUpdated>,
    level: Option<Res<Level>>,
    monsters: Query<&Viewshed, With<Monster>>,
    fog: Query<&FogOfWar>,
    storages: Query<&TileStorage>,
    mut tiles: Query<&mut TileVisible>,
) {
    // Any view changed (a monster's, or the player's, which explores new tiles).
    let views_changed = updated.read().count() > 0;
    let Some(level) = level else { return };
    if !show.is_changed() && !views_changed {
        return;
    }
    let Ok(fog) = fog.get(level.terrain) else {
        return;
    };
    let Ok(storage) = storages.get(level.overlay) else {
        return;
    };
    let index = |tile: TilePos| (tile.y * MAP_WIDTH + tile.x) as usize;
    let mut seen = vec![false; (MAP_WIDTH * MAP_HEIGHT) as usize];
    if show.0 {
        for viewshed in &monsters {
            // Only where the player has explored: the overlay must not give the map away.
            for tile in viewshed.iter().filter(|&tile| fog.is_explored(tile)) {
                seen[index(tile)] = true;
            }
        }
    }
    for tile in map_tiles() {
        if let Some(entity) = storage.get(&tile)
            && let Ok(mut visible) = tiles.get_mut(entity)
        {
            visible.set_if_neq(TileVisible(seen[index(tile)]));
        }
    }
}
