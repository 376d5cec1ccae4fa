//! The quad each [`SmoothFog`] map is drawn on: spawned with its mesh and material when the
//! map gets its texture, brought in line when the map's geometry, the `SmoothFog` or the
//! texture change, and its material's clock moved on while fades run (only then).

use bevy::ecs::query::QueryData;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::sprite_render::MeshMaterial2d;

use super::geometry::{MapShape, TileGrid};
use super::material::{SmoothFogMaterial, SmoothFogParams};
use super::settings::SmoothFog;
use super::texels::millis;
use super::texture::FogTexture;
use crate::draw::FogOverlayLayer;
use crate::draw::overlay::{GeometryChanged, MapGeometry, MapGeometryItem, highest_z, placement};
use crate::layers::layer_of::{LayerOf, Layers};

/// The quad the plugin spawned for a [`SmoothFog`] map, its material, and the fog's clock the
/// material holds: the fog's bookkeeping beside `SmoothFog`.
#[derive(Component, Clone, Debug)]
#[component(clone_behavior = Ignore)]
pub(super) struct FogQuad {
    entity: Entity,
    material: Handle<SmoothFogMaterial>,
    clock: u32,
}

/// A smooth fog map, as its quad is kept.
#[derive(QueryData)]
pub(super) struct QuadMap {
    entity: Entity,
    smooth: &'static SmoothFog,
    texture: &'static FogTexture,
    geometry: MapGeometry,
    quad: Option<&'static FogQuad>,
}

/// Maps whose quad must be spawned or brought in line with them.
type QuadChanged = Or<(Changed<SmoothFog>, Changed<FogTexture>, GeometryChanged)>;

/// What drawing a quad needs: the assets, and the heights of the map's tilemaps.
#[derive(SystemParam)]
pub(super) struct QuadAssets<'w, 's> {
    commands: Commands<'w, 's>,
    meshes: Option<ResMut<'w, Assets<Mesh>>>,
    materials: Option<ResMut<'w, Assets<SmoothFogMaterial>>>,
    layer_of: Query<'w, 's, &'static LayerOf>,
    below: Query<'w, 's, &'static Layers>,
    heights: Query<'w, 's, &'static GlobalTransform, Without<FogOverlayLayer>>,
    time: Option<Res<'w, Time>>,
}

/// Spawns the quad of each map that got its texture, and brings the quads of the maps whose
/// geometry, look or texture changed in line.
pub(super) fn keep_fog_quads(mut maps: Query<QuadMap, QuadChanged>, mut assets: QuadAssets) {
    let now = assets
        .time
        .as_ref()
        .map_or(0, |time| millis(time.elapsed()));
    for map in &mut maps {
        let grid = TileGrid::of(&shape_of(&map.geometry));
        let params = SmoothFogParams::new(&grid, map.smooth, now);
        let material = SmoothFogMaterial {
            params,
            texture: map.texture.handle.clone(),
        };
        let (Some(meshes), Some(materials)) = (&mut assets.meshes, &mut assets.materials) else {
            return;
        };
        let mesh = meshes.add(Rectangle::from_size(grid.rect_size));
        let quad = match map.quad {
            Some(quad) => {
                materials.insert(&quad.material, material).ok();
                quad.entity
            }
            None => spawn_quad(
                &mut assets.commands,
                map.entity,
                materials.add(material),
                now,
            ),
        };
        let z = highest_z(
            map.entity,
            quad,
            (&assets.layer_of, &assets.below),
            &assets.heights,
        );
        let (mut local, _) = placement(map.geometry.transform, z + map.smooth.z_above);
        local.translation += (grid.rect_min + grid.rect_size / 2.0).extend(0.0);
        let global = map
            .geometry
            .transform
            .map_or(GlobalTransform::from(local), |map| map.mul_transform(local));
        assets
            .commands
            .entity(quad)
            .insert((Mesh2d(mesh), local, global));
    }
}

/// Spawns the quad of `map`, drawn with `material`; returns it.
fn spawn_quad(
    commands: &mut Commands,
    map: Entity,
    material: Handle<SmoothFogMaterial>,
    now: u32,
) -> Entity {
    let parts = (
        Name::new("Smooth fog"),
        MeshMaterial2d(material.clone()),
        Visibility::Inherited,
        ChildOf(map),
    );
    let entity = commands.spawn(parts).id();
    let quad = FogQuad {
        entity,
        material,
        clock: now,
    };
    commands.entity(map).insert(quad);
    entity
}

/// The map's shape, as bevy_ecs_tilemap's defaults fill in what it lacks.
fn shape_of(geometry: &MapGeometryItem) -> MapShape {
    MapShape {
        size: *geometry.size,
        grid: geometry.grid.copied().unwrap_or_default(),
        tile: geometry.tile_size.copied().unwrap_or_default(),
        map_type: geometry.map_type.copied().unwrap_or_default(),
        anchor: geometry.anchor.copied().unwrap_or_default(),
    }
}

/// Moves the clock of each quad whose fades are not all over to now: the only change to its
/// material in a frame where no tile changed, and none once the fades have ended.
pub(super) fn run_fog_clocks(
    mut maps: Query<(&FogTexture, &mut FogQuad)>,
    materials: Option<ResMut<Assets<SmoothFogMaterial>>>,
    time: Option<Res<Time>>,
) {
    let (Some(mut materials), Some(time)) = (materials, time) else {
        return;
    };
    let now = millis(time.elapsed());
    for (texture, mut quad) in &mut maps {
        if quad.clock >= texture.fading_until || quad.clock == now {
            continue;
        }
        if let Some(mut material) = materials.get_mut(&quad.material) {
            material.params.now = now;
        }
        quad.bypass_change_detection().clock = now;
    }
}

/// A [`SmoothFog`] removed (or its map despawned): its quad goes, and the texture with it.
pub(super) fn on_smooth_fog_removed(
    removed: On<Remove, SmoothFog>,
    maps: Query<&FogQuad>,
    mut commands: Commands,
) {
    if let Ok(quad) = maps.get(removed.entity) {
        commands.entity(quad.entity).try_despawn();
    }
    if let Ok(mut map) = commands.get_entity(removed.entity) {
        map.try_remove::<(FogQuad, FogTexture)>();
    }
}
