//! The quad each piece of a [`SmoothFog`] map is drawn on: spawned with its mesh and material
//! when the piece gets its texture, brought in line when the piece's geometry, the `SmoothFog`
//! or the texture change, and its material's clock moved on while fades run (only then).

use bevy::ecs::query::QueryData;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::sprite_render::MeshMaterial2d;

use super::geometry::{MapShape, TileGrid};
use super::material::{SmoothFogMaterial, SmoothFogParams};
use super::pieces::{Piece, SmoothMaps};
use super::settings::SmoothFog;
use super::texels::millis;
use super::texture::{FogPiece, SmoothFogTexture};
use crate::draw::FogOverlayLayer;
use crate::draw::overlay::{GeometryChanged, MapGeometry, MapGeometryItem, highest_z, placement};
use crate::layers::{LayerOf, Layers};

/// The quad the plugin spawned over a piece, its material, and the fog's clock the material
/// holds: the drawing's bookkeeping beside [`SmoothFogTexture`].
#[derive(Component, Clone, Debug)]
#[component(clone_behavior = Ignore)]
pub(super) struct FogQuad {
    entity: Entity,
    material: Handle<SmoothFogMaterial>,
    clock: u32,
}

/// A piece, as its quad is kept.
#[derive(QueryData)]
pub(super) struct QuadPiece {
    texture: Ref<'static, SmoothFogTexture>,
    geometry: MapGeometry,
    quad: Option<&'static FogQuad>,
}

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

/// Spawns the quad of each piece that got its texture, and brings the quads of the pieces
/// whose geometry, look or texture changed in line.
pub(super) fn keep_fog_quads(
    maps: SmoothMaps,
    pieces: Query<QuadPiece>,
    regeared: Query<(), GeometryChanged>,
    mut assets: QuadAssets,
) {
    let now = assets.time.as_ref().map_or(0, |t| millis(t.elapsed()));
    for (_, smooth, _, map_pieces) in maps.each() {
        for piece in map_pieces {
            let Ok(item) = pieces.get(piece.tilemap) else {
                continue;
            };
            // A world's chunks streamed in or out move the edge the blur stops at.
            let bounds_moved = item.quad.is_some_and(|quad| {
                assets
                    .reads(quad)
                    .is_some_and(|reads| reads != piece.on_map_tiles())
            });
            let stale = smooth.is_changed()
                || item.texture.is_changed()
                || item.quad.is_none()
                || bounds_moved
                || regeared.contains(piece.tilemap);
            if stale {
                assets.draw(piece, &item, &smooth, now);
            }
        }
    }
}

impl QuadAssets<'_, '_> {
    /// The tiles the blur of `quad`'s material reads (see [`Piece::on_map_tiles`]).
    fn reads(&self, quad: &FogQuad) -> Option<(IVec2, IVec2)> {
        let material = self.materials.as_ref()?.get(&quad.material)?;
        Some(material.params.reads())
    }

    /// Draws `piece`'s quad: its material, mesh and place, spawned if it has none.
    fn draw(&mut self, piece: Piece, item: &QuadPieceItem, smooth: &SmoothFog, now: u32) {
        let grid = TileGrid::of(&shape_of(&item.geometry));
        let params = SmoothFogParams::new(&grid, smooth, (piece, now));
        let material = SmoothFogMaterial {
            params,
            texture: item.texture.handle().clone(),
        };
        let (Some(meshes), Some(materials)) = (&mut self.meshes, &mut self.materials) else {
            return;
        };
        let mesh = meshes.add(Rectangle::from_size(grid.rect_size));
        let quad = match item.quad {
            Some(quad) => {
                materials.insert(&quad.material, material).ok();
                quad.entity
            }
            None => {
                let material = materials.add(material);
                spawn_quad(&mut self.commands, piece.tilemap, material, now)
            }
        };
        let layers = (&self.layer_of, &self.below);
        let z = highest_z(piece.tilemap, quad, layers, &self.heights);
        let transform = item.geometry.transform;
        let (mut local, _) = placement(transform, z + smooth.z_above);
        local.translation += (grid.rect_min + grid.rect_size / 2.0).extend(0.0);
        let global = transform.map_or(GlobalTransform::from(local), |t| t.mul_transform(local));
        self.commands
            .entity(quad)
            .insert((Mesh2d(mesh), local, global));
    }
}

/// Spawns the quad of `tilemap`, drawn with `material`; returns it.
fn spawn_quad(
    commands: &mut Commands,
    tilemap: Entity,
    material: Handle<SmoothFogMaterial>,
    now: u32,
) -> Entity {
    let parts = (
        Name::new("Smooth fog"),
        MeshMaterial2d(material.clone()),
        Visibility::Inherited,
        ChildOf(tilemap),
    );
    let entity = commands.spawn(parts).id();
    let quad = FogQuad {
        entity,
        material,
        clock: now,
    };
    commands.entity(tilemap).insert(quad);
    entity
}

/// The tilemap's shape, as bevy_ecs_tilemap's defaults fill in what it lacks.
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
    mut pieces: Query<(&FogPiece, &mut FogQuad)>,
    materials: Option<ResMut<Assets<SmoothFogMaterial>>>,
    time: Option<Res<Time>>,
) {
    let (Some(mut materials), Some(time)) = (materials, time) else {
        return;
    };
    let now = millis(time.elapsed());
    for (piece, mut quad) in &mut pieces {
        if quad.clock >= piece.fading_until || quad.clock == now {
            continue;
        }
        if let Some(mut material) = materials.get_mut(&quad.material) {
            material.params.now = now;
        }
        quad.bypass_change_detection().clock = now;
    }
}

/// A piece lost its texture (its map lost its `SmoothFog`, or it is no piece any more): its
/// quad goes, and the texture with it.
pub(super) fn on_piece_removed(
    removed: On<Remove, SmoothFogTexture>,
    pieces: Query<&FogQuad>,
    mut commands: Commands,
) {
    if let Ok(quad) = pieces.get(removed.entity) {
        commands.entity(quad.entity).try_despawn();
    }
    if let Ok(mut piece) = commands.get_entity(removed.entity) {
        piece.try_remove::<FogQuad>();
    }
}
