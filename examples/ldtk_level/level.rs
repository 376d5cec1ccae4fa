//! The level: the camera, the LDtk project and what the plugin is told about it (which IntGrid
//! values and enum tags block sight, who sees, the fog's look: smooth, with a minimap), the
//! player's, goblins' and chests' sprites, and the [`Level`] resource once bevy_ecs_ldtk has
//! spawned the level's layers.

use bevy::camera::ScalingMode;
use bevy::prelude::*;
use bevy_ecs_ldtk::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::TileLook;
use bevy_viewshed::ldtk::{EntityVision, LdtkFog, LdtkOpacity, LdtkVision};
use bevy_viewshed::prelude::*;

use crate::script::Options;

/// The project under assets/ (written by `assets/make_ldtk_level.py`).
const PROJECT: &str = "ldtk_level.ldtk";
/// IntGrid values of the "Walls" layer, and the tiles that draw them (see make_ldtk_level.py).
pub const WALL: i32 = 1;
pub const CLOSED_DOOR: i32 = 2;
pub const OPEN_DOOR: i32 = 3;
pub const OPEN_DOOR_TILE: u32 = 3;
/// One LDtk grid cell in world units, and in window pixels.
const GRID: f32 = 16.0;
pub const ZOOM: f32 = 2.5;
const WINDOW: Vec2 = Vec2::new(1280.0, 720.0);

/// The spawned level: its layers, its size, and where it is in the world.
#[derive(Resource, Clone, Copy, Debug)]
pub struct Level {
    /// The "Walls" IntGrid layer (walls and doors).
    pub walls: Entity,
    /// The "Decor" layer (pillars).
    pub decor: Entity,
    pub size: TilemapSize,
    /// The world position of the level's bottom-left corner.
    pub origin: Vec2,
}

impl Level {
    /// The world position of a tile's centre.
    fn tile_center(&self, tile: TilePos) -> Vec2 {
        self.origin + (Vec2::new(tile.x as f32, tile.y as f32) + 0.5) * GRID
    }

    /// Where the camera looks: the level's centre.
    fn center(&self) -> Vec2 {
        self.origin + Vec2::new(self.size.x as f32, self.size.y as f32) * GRID / 2.0
    }

    /// Where a tile's centre is in the window, in pixels from its top-left corner.
    pub fn tile_pixel(&self, tile: TilePos) -> Vec2 {
        let offset = (self.tile_center(tile) - self.center()) * ZOOM;
        Vec2::new(WINDOW.x / 2.0 + offset.x, WINDOW.y / 2.0 - offset.y)
    }
}

pub struct LevelPlugin;

impl Plugin for LevelPlugin {
    fn build(&self, app: &mut App) {
        let smooth = app.world().resource::<Options>().smooth_fog;
        app.insert_resource(opacity())
            .insert_resource(vision())
            .insert_resource(fog(smooth))
            .register_ldtk_entity::<PlayerBundle>("Player")
            .register_ldtk_entity::<GoblinBundle>("Goblin")
            .register_ldtk_entity::<ChestBundle>("Chest")
            .add_observer(dress_level)
            .add_systems(Startup, setup)
            .add_systems(
                Update,
                (
                    find_level.run_if(not(resource_exists::<Level>)),
                    place_figures,
                ),
            );
    }
}

/// Walls and closed doors block sight from their IntGrid values, pillars from the "Solid"
/// enum tag of the tile that draws them.
fn opacity() -> LdtkOpacity {
    LdtkOpacity::default()
        .int_grid(WALL)
        .int_grid(CLOSED_DOOR)
        .enum_tag("Solid")
}

/// The player sees 8 tiles and lifts the fog; goblins (team 1) see as far as their
/// `sight_radius` field says, are spotted, and are drawn only where the player sees them.
fn vision() -> LdtkVision {
    LdtkVision::default()
        .entity("Player", EntityVision::viewer(8).reveals_fog())
        .entity(
            "Goblin",
            EntityVision::none().spottable().hide_outside_view().team(1),
        )
}

/// The fog is drawn smooth over the level (`SmoothFog` on the level entity); its layers show
/// what is seen and the ring the blur spreads over, and hide the rest. With `--fog tiles`,
/// each tile's colour shows its fog: remembered tiles tinted grey-blue.
fn fog(smooth: bool) -> LdtkFog {
    LdtkFog(Some(match smooth {
        true => FogStyle::under_smooth_fog(),
        false => FogStyle {
            remembered: TileLook::shown(Color::srgb(0.36, 0.38, 0.62)),
            ..default()
        },
    }))
}

/// Each level gets the smooth fog (unless `--fog tiles`) and a minimap (floors sand, walls
/// grey; the IntGrid layer's tiles are the tileset's).
fn dress_level(level: On<Add, LevelIid>, mut commands: Commands, options: Res<Options>) {
    let minimap = FogMinimap::default()
        .with_unexplored(Color::srgba(0.0, 0.0, 0.0, 0.8))
        .with_kind(0, Color::srgb(0.62, 0.6, 0.55))
        .with_kind(1, Color::srgb(0.3, 0.3, 0.36));
    let mut level = commands.entity(level.event_target());
    level.insert(minimap);
    if options.smooth_fog {
        level.insert(SmoothFog::default());
    }
}

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scaling_mode: ScalingMode::WindowSize,
            scale: 1.0 / ZOOM,
            ..OrthographicProjection::default_2d()
        }),
    ));
    commands.spawn(LdtkWorldBundle {
        ldtk_handle: assets.load(PROJECT).into(),
        ..default()
    });
}

/// The player, as bevy_ecs_ldtk's derive macros build it: its tile (`GridCoords`) and its
/// sprite from the entity's tile in the editor. The plugin reads its LDtk data itself.
#[derive(Default, Bundle, LdtkEntity)]
pub struct PlayerBundle {
    player: Player,
    #[sprite_sheet]
    sprite: Sprite,
    #[grid_coords]
    grid: GridCoords,
}

/// The player's marker.
#[derive(Default, Component)]
pub struct Player;

/// A goblin, built like the player.
#[derive(Default, Bundle, LdtkEntity)]
pub struct GoblinBundle {
    goblin: Goblin,
    #[sprite_sheet]
    sprite: Sprite,
    #[grid_coords]
    grid: GridCoords,
}

/// A goblin's marker.
#[derive(Default, Component)]
pub struct Goblin;

/// A chest: its sprite from its tile in the editor (the props tileset). Drawn as a sprite with
/// a tile in LDtk, it gets `FogSprite` from the plugin: hidden until seen, then drawn as last
/// seen.
#[derive(Default, Bundle, LdtkEntity)]
pub struct ChestBundle {
    #[sprite_sheet]
    sprite: Sprite,
    #[grid_coords]
    grid: GridCoords,
}

/// Keeps figures on their tiles (their `Transform` is relative to the level).
fn place_figures(mut figures: Query<(&GridCoords, &mut Transform), Changed<GridCoords>>) {
    for (grid, mut transform) in &mut figures {
        transform.translation.x = (grid.x as f32 + 0.5) * GRID;
        transform.translation.y = (grid.y as f32 + 0.5) * GRID;
    }
}

/// Once bevy_ecs_ldtk has spawned the level's layers: the [`Level`] resource, and the camera
/// on the level's centre.
fn find_level(
    mut commands: Commands,
    levels: Query<&Transform, (With<LevelIid>, Without<Camera2d>)>,
    layers: Query<(Entity, &LayerMetadata, &TilemapSize)>,
    mut cameras: Query<&mut Transform, With<Camera2d>>,
) {
    let Ok(level) = levels.single() else {
        return;
    };
    let layer = |name: &str| {
        layers
            .iter()
            .find(|(_, meta, _)| meta.identifier == name)
            .map(|(entity, _, size)| (entity, *size))
    };
    let (Some((walls, size)), Some((decor, _))) = (layer("Walls"), layer("Decor")) else {
        return;
    };
    let level = Level {
        walls,
        decor,
        size,
        origin: level.translation.truncate(),
    };
    for mut camera in &mut cameras {
        camera.translation = level.center().extend(camera.translation.z);
    }
    commands.insert_resource(level);
}
