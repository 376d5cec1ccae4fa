//! The map: the camera, the Tiled map and what the plugin is told about it (who sees, the
//! fog's look), and the [`Level`] resource once bevy_ecs_tiled has spawned its layers.

use bevy::camera::ScalingMode;
use bevy::prelude::*;
use bevy_ecs_tiled::prelude::*;
use bevy_viewshed::TileLook;
use bevy_viewshed::prelude::*;
use bevy_viewshed::tiled::{ObjectVision, TiledFog, TiledVision};

use crate::script::Options;

/// The map under assets/ (written by `assets/make_tiled_maps.py`).
const MAP: &str = "tiled/tiled_map.tmx";
/// The tileset's open door tile (see assets/make_tileset.py).
pub const OPEN_DOOR_TILE: usize = 3;
/// One tile in world units, and the zoom to window pixels.
pub const GRID: f32 = 16.0;
pub const ZOOM: f32 = 2.5;
const WINDOW: Vec2 = Vec2::new(1280.0, 720.0);

/// The spawned map: its root tilemap (where its opacity and fog live) and its size.
#[derive(Resource, Clone, Copy, Debug)]
pub struct Level {
    pub root: Entity,
    pub size: TilemapSize,
}

impl Level {
    /// Where a tile's centre is in the window, in pixels from its top-left corner (the map is
    /// centred on the camera).
    pub fn tile_pixel(&self, tile: TilePos) -> Vec2 {
        let centre = Vec2::new(self.size.x as f32, self.size.y as f32) / 2.0;
        let offset = (Vec2::new(tile.x as f32, tile.y as f32) + 0.5 - centre) * GRID * ZOOM;
        Vec2::new(WINDOW.x / 2.0 + offset.x, WINDOW.y / 2.0 - offset.y)
    }
}

pub struct MapPlugin;

impl Plugin for MapPlugin {
    fn build(&self, app: &mut App) {
        let smooth = app.world().resource::<Options>().smooth_fog;
        app.insert_resource(vision())
            .insert_resource(fog(smooth))
            .add_systems(Startup, setup)
            .add_systems(Update, find_level.run_if(not(resource_exists::<Level>)));
    }
}

/// The player sees 8 tiles and lifts the fog; guards are spotted and drawn only where the
/// player sees them. The rest comes from the map: the player's and guards' `sight_radius`,
/// the guards' `team`.
fn vision() -> TiledVision {
    TiledVision::default()
        .class("Player", ObjectVision::viewer(8).reveals_fog())
        .class(
            "Guard",
            ObjectVision::none().spottable().hide_outside_view(),
        )
}

/// The fog is drawn smooth over the map (`SmoothFog` on the map entity); its layers show
/// what is seen and the ring the blur spreads over, and hide the rest. With `--fog tiles`,
/// each tile's colour shows its fog: remembered tiles tinted grey-blue.
fn fog(smooth: bool) -> TiledFog {
    TiledFog(Some(match smooth {
        true => FogStyle::under_smooth_fog(),
        false => FogStyle {
            remembered: TileLook::shown(Color::srgb(0.36, 0.38, 0.62)),
            ..default()
        },
    }))
}

/// The minimap's look: floors sand, walls grey (the tileset's tiles 0 and 1), doors brown.
fn minimap() -> FogMinimap {
    FogMinimap::default()
        .with_unexplored(Color::srgba(0.0, 0.0, 0.0, 0.8))
        .with_kind(0, Color::srgb(0.62, 0.6, 0.55))
        .with_kind(1, Color::srgb(0.3, 0.3, 0.36))
}

fn setup(mut commands: Commands, assets: Res<AssetServer>, options: Res<Options>) {
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scaling_mode: ScalingMode::WindowSize,
            scale: 1.0 / ZOOM,
            ..OrthographicProjection::default_2d()
        }),
    ));
    let map = TiledMap(assets.load(MAP));
    let mut map = commands.spawn((map, TilemapAnchor::Center, minimap()));
    if options.smooth_fog {
        map.insert(SmoothFog::default());
    }
}

/// Once the plugin has found the map's root tilemap: the [`Level`] resource.
fn find_level(
    mut commands: Commands,
    maps: Query<&LayerGroup, With<TiledMap>>,
    sizes: Query<&TilemapSize>,
) {
    let Some(root) = maps.iter().find_map(LayerGroup::root) else {
        return;
    };
    if let Ok(&size) = sizes.get(root) {
        commands.insert_resource(Level { root, size });
    }
}
