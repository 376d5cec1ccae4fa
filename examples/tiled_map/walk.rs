//! The map's ground for the shared walk (`shared/walk.rs`): its opacity and its door objects.
//! Objects move by their `Transform`, as a game moves Tiled objects (the plugin keeps their
//! tile); a closed door opens by losing its `Opaque` and showing the open door's tile.

use std::collections::HashMap;

use bevy::prelude::*;
use bevy_ecs_tiled::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{MapOpacity, Team};

use crate::map::{GRID, Level, OPEN_DOOR_TILE};
use crate::script::Options;
use crate::shared_walk::{Ground, Move, Turns, Walker, opened, plan};

pub struct WalkPlugin;

impl Plugin for WalkPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, step.run_if(resource_exists::<Level>))
            // In `First`: the fog read is that of the walk's last step, drawn the frame before.
            .add_systems(
                First,
                open_remembered_doors.run_if(resource_exists::<Level>),
            );
    }
}

/// What a tile is to walkers: the map's opacity, and the doors by their tile.
struct MapGround<'a> {
    size: TilemapSize,
    opacity: &'a MapOpacity,
    /// Each door object's tile, and whether it is closed.
    doors: HashMap<TilePos, (Entity, bool)>,
}

impl Ground for MapGround<'_> {
    fn size(&self) -> TilemapSize {
        self.size
    }

    fn walkable(&self, tile: TilePos) -> bool {
        !self.opacity.is_opaque(tile) || self.doors.contains_key(&tile)
    }

    fn closed_door(&self, tile: TilePos) -> bool {
        self.doors.get(&tile).is_some_and(|&(_, closed)| closed)
    }
}

/// The walkers: the objects with a `Viewshed` (the player and the guards).
type Walkers<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static TiledName,
        &'static TilePos,
        &'static mut Transform,
    ),
    With<Viewshed>,
>;

/// The door objects: where they stand and whether they are closed.
type Doors<'w, 's> =
    Query<'w, 's, (Entity, &'static TiledName, &'static TilePos, Has<Opaque>), With<TiledObject>>;

/// Takes a step when one is due: the player's, then each guard's in the map's order.
fn step(
    (time, mut turns, level): (Res<Time>, ResMut<Turns>, Res<Level>),
    (maps, doors): (Query<(&FogOfWar, &MapOpacity)>, Doors),
    (visuals, mut sprites): (Query<&TiledObjectVisuals>, Query<&mut Sprite>),
    mut walkers: Walkers,
    mut commands: Commands,
) {
    let Ok((fog, opacity)) = maps.get(level.root) else {
        return;
    };
    let Some(explored) = fog.team(Team(0)) else {
        return;
    };
    if walkers.is_empty() || !turns.take(&time) {
        return;
    }
    let ground = MapGround {
        size: level.size,
        opacity,
        doors: doors
            .iter()
            .filter(|(_, name, ..)| name.0 == "Door")
            .map(|(door, _, &at, closed)| (at, (door, closed)))
            .collect(),
    };
    let order = walkers.iter().map(|(entity, name, &at, _)| Walker {
        entity,
        at,
        player: name.0 == "Player",
        rank: format!("{:010}-{:010}", at.y, at.x),
    });
    for action in plan(&ground, explored, &mut turns, order.collect()) {
        match action {
            Move::Walk { walker, from, to } => {
                if let Ok((.., mut transform)) = walkers.get_mut(walker) {
                    let dx = to.x as f32 - from.x as f32;
                    let dy = to.y as f32 - from.y as f32;
                    transform.translation += Vec3::new(dx, dy, 0.0) * GRID;
                }
            }
            Move::OpenDoor(at) => {
                let Some(&(door, _)) = ground.doors.get(&at) else {
                    continue;
                };
                open(door, &mut commands, &visuals, &mut sprites);
                opened(&mut turns, at);
            }
        }
    }
}

/// Opens a door object: it stops blocking sight and shows the open door's tile.
fn open(
    door: Entity,
    commands: &mut Commands,
    visuals: &Query<&TiledObjectVisuals>,
    sprites: &mut Query<&mut Sprite>,
) {
    commands.entity(door).remove::<Opaque>();
    for visual in visuals.get(door).into_iter().flat_map(|v| v.iter()) {
        if let Ok(mut sprite) = sprites.get_mut(visual)
            && let Some(atlas) = &mut sprite.texture_atlas
        {
            atlas.index = OPEN_DOOR_TILE;
        }
    }
}

/// `--open-remembered-doors`: once the scripted walk is over, the closed doors the player
/// remembers and does not see are opened (once), and listed here for the report.
#[derive(Resource, Default)]
pub struct RememberedDoors {
    pub open: bool,
    pub opened: Vec<TilePos>,
}

fn open_remembered_doors(
    (turns, options, level): (Res<Turns>, Res<Options>, Res<Level>),
    mut asked: ResMut<RememberedDoors>,
    (maps, doors): (Query<&FogOfWar>, Doors),
    (visuals, mut sprites): (Query<&TiledObjectVisuals>, Query<&mut Sprite>),
    mut commands: Commands,
) {
    let Some(fog) = maps.get(level.root).ok().and_then(|f| f.team(Team(0))) else {
        return;
    };
    if !asked.open || options.autoplay.is_none_or(|limit| turns.count < limit) {
        return;
    }
    asked.open = false;
    for (door, name, &at, closed) in &doors {
        if name.0 == "Door" && closed && fog.is_explored(at) && !fog.is_visible(at) {
            open(door, &mut commands, &visuals, &mut sprites);
            asked.opened.push(at);
        }
    }
}
