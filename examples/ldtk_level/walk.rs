//! The level's ground for the shared walk (`shared/walk.rs`), read from its layers, and the
//! steps carried out: walkers move by their `GridCoords`, a closed door opens by its
//! `IntGridCell` set to "open door" (the door stops blocking sight because the level data
//! changed, with no opacity code in the example).

use bevy::prelude::*;
use bevy_ecs_ldtk::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::Team;
use bevy_viewshed::prelude::*;

use crate::level::{CLOSED_DOOR, Level, OPEN_DOOR, OPEN_DOOR_TILE, Player, WALL};
use crate::shared_walk::{Ground, Move, Turns, Walker, opened, plan};

pub struct WalkPlugin;

impl Plugin for WalkPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, step.run_if(resource_exists::<Level>));
    }
}

/// What a tile is to walkers, read from the level's layers.
struct LevelGround<'a, 'w, 's> {
    level: Level,
    storages: &'a Query<'w, 's, &'static TileStorage>,
    cells: &'a Query<'w, 's, (&'static IntGridCell, &'static TileTextureIndex)>,
    opaque: &'a Query<'w, 's, (), With<Opaque>>,
}

impl LevelGround<'_, '_, '_> {
    fn tile(&self, layer: Entity, tile: TilePos) -> Option<Entity> {
        self.storages.get(layer).ok()?.get(&tile)
    }

    /// The "Walls" IntGrid value at `tile` (0: floor).
    fn value(&self, tile: TilePos) -> i32 {
        self.tile(self.level.walls, tile)
            .and_then(|t| self.cells.get(t).ok())
            .map_or(0, |(cell, _)| cell.value)
    }
}

impl Ground for LevelGround<'_, '_, '_> {
    fn size(&self) -> TilemapSize {
        self.level.size
    }

    /// Not a wall nor a pillar (doors, open or closed, are).
    fn walkable(&self, tile: TilePos) -> bool {
        let pillar = self
            .tile(self.level.decor, tile)
            .is_some_and(|t| self.opaque.contains(t));
        self.value(tile) != WALL && !pillar
    }

    fn closed_door(&self, tile: TilePos) -> bool {
        self.value(tile) == CLOSED_DOOR
    }
}

/// The walkers: the LDtk entities with a `Viewshed` (the player and the goblins).
type Figures<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static EntityIid,
        Has<Player>,
        &'static mut GridCoords,
    ),
    With<Viewshed>,
>;

/// Takes a step when one is due: the player's, then each goblin's in the level's order.
fn step(
    (time, mut turns, level): (Res<Time>, ResMut<Turns>, Res<Level>),
    fog: Query<&FogOfWar>,
    (storages, opaque): (Query<&'static TileStorage>, Query<(), With<Opaque>>),
    mut cells: Query<(&'static mut IntGridCell, &'static mut TileTextureIndex)>,
    mut figures: Figures,
) {
    let Some(explored) = fog.iter().find_map(|fog| fog.team(Team(0))) else {
        return;
    };
    if figures.is_empty() || !turns.take(&time) {
        return;
    }
    let walkers = figures
        .iter()
        .map(|(entity, iid, player, grid)| Walker {
            entity,
            at: TilePos::from(*grid),
            player,
            rank: iid.as_str().to_owned(),
        })
        .collect();
    let read = cells.as_readonly();
    let ground = LevelGround {
        level: *level,
        storages: &storages,
        cells: &read,
        opaque: &opaque,
    };
    let moves = plan(&ground, explored, &mut turns, walkers);
    let doors: Vec<(TilePos, Option<Entity>)> = moves
        .iter()
        .filter_map(|action| match action {
            Move::OpenDoor(door) => Some((*door, ground.tile(level.walls, *door))),
            Move::Walk { .. } => None,
        })
        .collect();
    for action in moves {
        if let Move::Walk { walker, from, to } = action
            && let Ok((.., mut grid)) = figures.get_mut(walker)
        {
            debug_assert_eq!(TilePos::from(*grid), from, "the plan's start");
            *grid = GridCoords::from(to);
        }
    }
    for (door, tile) in doors {
        if let Some(Ok((mut cell, mut look))) = tile.map(|tile| cells.get_mut(tile)) {
            cell.value = OPEN_DOOR;
            look.0 = OPEN_DOOR_TILE;
            opened(&mut turns, door);
        }
    }
}
