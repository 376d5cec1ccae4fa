//! A fog overlay in one component: [`FogOverlay`] on a map gets it a layer of plain tiles
//! drawn over the map in a [`FogStyle`], so the fog darkens the map without touching the
//! `TileColor` / `TileVisible` of the map's own tiles (a game's own tints stay).

use bevy::asset::RenderAssetUsages;
use bevy::ecs::query::QueryData;
use bevy::ecs::system::SystemParam;
use bevy::image::Image;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat, TextureUsages};
use bevy::render::sync_world::SyncToRenderWorld;
use bevy_ecs_tilemap::FrustumCulling;
use bevy_ecs_tilemap::anchor::TilemapAnchor;
use bevy_ecs_tilemap::map::{
    TilemapGridSize, TilemapId, TilemapRenderSettings, TilemapSize, TilemapSpacing, TilemapTexture,
    TilemapTileSize, TilemapType,
};
use bevy_ecs_tilemap::tiles::{TileBundle, TileColor, TilePos, TileStorage, TileVisible};

use crate::draw::FogStyle;
use crate::layers::layer_of::{LayerOf, Layers, map_tilemaps, root_of};

/// Gives a map a fog overlay: a layer of plain tiles, one per cell, drawn over the map and
/// styled by the fog ([`FogStyle::overlay`] by default: clear over what is seen, translucent
/// black over what is remembered, opaque black over what was never seen). The map's own
/// tiles are not written, so their `TileColor` tints and `TileVisible` stay the game's.
///
/// Put it on a tilemap (the root of a map, or any layer of it) that has a `TilemapSize` and a
/// `TileStorage`; the plugin ([`FogDrawPlugin`](crate::draw::FogDrawPlugin), at the start of
/// [`ViewshedStepSystems::Draw`](crate::ViewshedStepSystems::Draw)) then spawns the overlay layer in
/// the same update:
///
/// - a tilemap with the map's size, grid size, tile size, spacing, map type, anchor and
///   render settings, a [`LayerOf`] and a child of the map (so it follows the map's
///   `Transform`), [`z_above`](Self::z_above) above the highest tilemap of the map, marked
///   [`FogOverlayLayer`] and found with [`FogOverlay::layer`];
/// - one tile per cell (children of the layer), written by the fog like any layer with a
///   `FogStyle`.
///
/// The plugin keeps the layer like the map: a map resized, or given another grid, tile size,
/// spacing, map type or anchor, gets its overlay changed to match (tiles still on the map
/// kept, the others despawned, new cells given tiles); a changed `FogOverlay` (another style
/// or texture) is applied to the layer; a `FogOverlay` removed, or its map despawned, takes
/// the layer and its tiles with it.
///
/// **The texture.** With [`texture`](Self::texture) `None` (the default), the tiles are a
/// white square the size of a tile, made at run time in `Assets<Image>`: right for square
/// maps. On hexagonal and isometric maps, whose tiles overlap their neighbours' squares, pass
/// a texture of your tile's shape (white on transparent, tile 0 of the image is used). A
/// headless app (no `Assets<Image>`, e.g. `MinimalPlugins`, or the crate without its `render`
/// feature) gets the default handle: nothing is drawn there and the fog is written the same.
///
/// A map that is not a tilemap (no `TilemapSize` or no `TileStorage`) gets a warning when its
/// `FogOverlay` is inserted, and its overlay once it has both.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_ecs_tilemap::prelude::*;
/// use bevy_viewshed::prelude::*;
///
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, ViewshedPlugins::default()));
/// // A 6x4 map whose tiles are tinted red by the game.
/// let size = TilemapSize::new(6, 4);
/// let map = app.world_mut().spawn_empty().id();
/// let mut storage = TileStorage::empty(size);
/// for x in 0..size.x {
///     for y in 0..size.y {
///         let position = TilePos { x, y };
///         let color = TileColor(Color::srgb(1.0, 0.2, 0.2));
///         let tile = app.world_mut().spawn((position, TilemapId(map), color)).id();
///         storage.set(&position, tile);
///     }
/// }
/// app.world_mut().entity_mut(map).insert((size, storage, FogOverlay::default()));
/// app.world_mut().spawn((Viewshed::new(1), RevealsFog, TilePos { x: 1, y: 1 }, TilemapId(map)));
/// app.update();
///
/// let layer = app.world().get::<FogOverlay>(map).unwrap().layer().unwrap();
/// let overlay = app.world().get::<TileStorage>(layer).unwrap();
/// let far = overlay.get(&TilePos { x: 5, y: 3 }).unwrap();
/// // Black over the unexplored corner; the map's own tile keeps its tint.
/// assert_eq!(app.world().get::<TileColor>(far).unwrap().0, Color::BLACK);
/// let tile = app.world().get::<TileStorage>(map).unwrap().get(&TilePos { x: 5, y: 3 }).unwrap();
/// assert_eq!(app.world().get::<TileColor>(tile).unwrap().0, Color::srgb(1.0, 0.2, 0.2));
/// ```
#[derive(Component, Clone, Debug, PartialEq, Reflect)]
#[reflect(Component, Default, Debug)]
#[type_path = "bevy_viewshed"]
pub struct FogOverlay {
    /// How the overlay's tiles look in each fog state ([`FogStyle::overlay`] by default).
    pub style: FogStyle,
    /// The overlay tiles' texture (tile 0 of it is drawn); `None`: a white square of the tile
    /// size, made at run time.
    pub texture: Option<Handle<Image>>,
    /// How far above the highest tilemap of the map (in world `z`, when the layer is placed)
    /// the overlay is drawn: 1.0 by default.
    pub z_above: f32,
    /// The overlay layer, once the plugin has spawned it.
    layer: Option<Entity>,
}

impl Default for FogOverlay {
    fn default() -> Self {
        Self {
            style: FogStyle::overlay(),
            texture: None,
            z_above: 1.0,
            layer: None,
        }
    }
}

impl FogOverlay {
    /// An overlay in [`FogStyle::overlay`] with a generated white texture.
    pub fn new() -> Self {
        Self::default()
    }

    /// This overlay, with its tiles in `style`.
    pub fn with_style(self, style: FogStyle) -> Self {
        Self { style, ..self }
    }

    /// This overlay, its tiles drawn with tile 0 of `texture` (for hexagonal or isometric
    /// maps: a white tile of their shape).
    pub fn with_texture(self, texture: Handle<Image>) -> Self {
        Self {
            texture: Some(texture),
            ..self
        }
    }

    /// The overlay layer's tilemap entity (`None` until the plugin has spawned it).
    pub fn layer(&self) -> Option<Entity> {
        self.layer
    }
}

/// On the tilemap the plugin spawned for a [`FogOverlay`] (a child and a [`LayerOf`] of the
/// map that has it). The plugin keeps its size, tiles and style; a game may read it (or hide
/// it with its `Visibility`).
#[derive(Component, Clone, Copy, Debug, Default, Reflect)]
#[reflect(Component, Debug)]
#[type_path = "bevy_viewshed"]
pub struct FogOverlayLayer;

/// The white square the plugin made for an overlay layer, and its size in pixels: the fog's
/// bookkeeping beside [`FogOverlayLayer`], so a clone of the layer makes its own.
#[derive(Component, Clone, Debug)]
#[component(clone_behavior = Ignore)]
pub(super) struct OverlayTexture(Handle<Image>, UVec2);

/// What an overlay copies from its map (and where the smooth fog finds its tiles).
#[derive(QueryData)]
#[query_data(derive(Clone, Copy))]
pub(super) struct MapGeometry {
    pub(super) size: &'static TilemapSize,
    pub(super) grid: Option<&'static TilemapGridSize>,
    pub(super) tile_size: Option<&'static TilemapTileSize>,
    pub(super) map_type: Option<&'static TilemapType>,
    spacing: Option<&'static TilemapSpacing>,
    pub(super) anchor: Option<&'static TilemapAnchor>,
    render_settings: Option<&'static TilemapRenderSettings>,
    pub(super) transform: Option<&'static GlobalTransform>,
}

/// A map with a [`FogOverlay`], as the overlay step reads it.
#[derive(QueryData)]
#[query_data(mutable)]
pub(super) struct OverlaidMap {
    entity: Entity,
    overlay: &'static mut FogOverlay,
    geometry: Option<MapGeometry>,
    is_tilemap: Has<TileStorage>,
    children: Option<&'static Children>,
}

/// Maps whose [`MapGeometry`] may have changed (its transform aside).
pub(super) type GeometryChanged = Or<(
    Changed<TilemapSize>,
    Changed<TilemapGridSize>,
    Changed<TilemapTileSize>,
    Changed<TilemapType>,
    Changed<TilemapSpacing>,
    Changed<TilemapAnchor>,
)>;

/// Maps whose overlay must be spawned or brought in line with them.
type OverlayChanged = Or<(Changed<FogOverlay>, Added<TileStorage>, GeometryChanged)>;

/// The overlay layers and what placing them reads.
#[derive(SystemParam)]
pub(super) struct OverlayLayers<'w, 's> {
    commands: Commands<'w, 's>,
    layers: Query<
        'w,
        's,
        (
            &'static ChildOf,
            &'static TileStorage,
            Option<&'static OverlayTexture>,
        ),
        With<FogOverlayLayer>,
    >,
    layer_of: Query<'w, 's, &'static LayerOf>,
    below: Query<'w, 's, &'static Layers>,
    heights: Query<'w, 's, &'static GlobalTransform, Without<FogOverlayLayer>>,
    images: Option<ResMut<'w, Assets<Image>>>,
}

/// Spawns the overlay layer of each map whose [`FogOverlay`] is new, and keeps it in line with
/// its map (size, tiles, geometry, style, texture) when either changed.
pub(super) fn keep_fog_overlays(
    mut maps: Query<OverlaidMap, (Without<FogOverlayLayer>, OverlayChanged)>,
    mut layers: OverlayLayers,
) {
    for mut map in &mut maps {
        let Some(geometry) = map.geometry.filter(|_| map.is_tilemap) else {
            warn!(
                "bevy_viewshed: FogOverlay on {}: it is not a tilemap (it needs a \
                 TilemapSize and a TileStorage); it gets its overlay layer once it has both",
                map.entity
            );
            continue;
        };
        let layer = layers.find_or_spawn(map.entity, map.overlay.layer, map.children);
        if map.overlay.layer != Some(layer) {
            map.overlay.bypass_change_detection().layer = Some(layer);
        }
        layers.keep(map.entity, layer, &map.overlay, geometry);
    }
}

impl OverlayLayers<'_, '_> {
    /// The overlay layer of `map`: the one spawned before (also for a `FogOverlay` inserted
    /// again or cloned), found as `known` or among its `children`, else a new one.
    fn find_or_spawn(
        &mut self,
        map: Entity,
        known: Option<Entity>,
        children: Option<&Children>,
    ) -> Entity {
        let layers = &self.layers;
        let ours = |layer: Entity| layers.get(layer).is_ok_and(|(up, ..)| up.parent() == map);
        let found = known
            .filter(|&layer| ours(layer))
            .or_else(|| children.and_then(|children| children.iter().find(|&child| ours(child))));
        found.unwrap_or_else(|| {
            let name = Name::new("Fog overlay");
            let parts = (FogOverlayLayer, name, LayerOf(map), ChildOf(map));
            self.commands.spawn(parts).id()
        })
    }

    /// Brings `layer` in line with `map`'s geometry and `overlay`: its tiles, style, texture,
    /// place and drawing.
    fn keep(
        &mut self,
        map: Entity,
        layer: Entity,
        overlay: &FogOverlay,
        geometry: MapGeometryItem,
    ) {
        let old = self.layers.get(layer).ok();
        let (old_storage, white) = (old.map(|(_, storage, _)| storage), old.and_then(|o| o.2));
        let storage = fill_tiles(
            &mut self.commands,
            layer,
            *geometry.size,
            old_storage,
            &overlay.style,
        );
        let highest = highest_z(map, layer, (&self.layer_of, &self.below), &self.heights);
        let white = white.cloned();
        let images = self.images.as_deref_mut();
        let (texture, white) = texture_of(overlay, geometry.tile_size, white, images);
        let mut entity = self.commands.entity(layer);
        entity.insert((
            overlay.style,
            texture,
            placement(geometry.transform, highest + overlay.z_above),
        ));
        match white {
            Some(white) => entity.insert(white),
            None => entity.remove::<OverlayTexture>(),
        };
        if let Some(storage) = storage {
            entity.insert(storage);
        }
        insert_geometry(&mut entity, geometry);
    }
}

/// The tile storage of an overlay of `size`: the tiles of `old` still inside, new tiles for the
/// other cells (in the unexplored look of `style`, until the fog writes them); the tiles of
/// `old` outside are despawned. `None` when `old` already holds every cell.
fn fill_tiles(
    commands: &mut Commands,
    layer: Entity,
    size: TilemapSize,
    old: Option<&TileStorage>,
    style: &FogStyle,
) -> Option<TileStorage> {
    if let Some(old) = old
        && old.size == size
        && old.iter().all(Option::is_some)
    {
        return None;
    }
    let look = style.unexplored;
    let mut storage = TileStorage::empty(size);
    for y in 0..size.y {
        for x in 0..size.x {
            let position = TilePos { x, y };
            let tile = old.and_then(|old| old.checked_get(&position));
            let tile = tile.unwrap_or_else(|| {
                let bundle = TileBundle {
                    position,
                    tilemap_id: TilemapId(layer),
                    visible: TileVisible(look.visible.unwrap_or(true)),
                    color: TileColor(look.color.unwrap_or(Color::WHITE)),
                    ..default()
                };
                commands.spawn((bundle, ChildOf(layer))).id()
            });
            storage.set(&position, tile);
        }
    }
    if let Some(old) = old {
        for y in 0..old.size.y {
            for x in 0..old.size.x {
                let position = TilePos { x, y };
                if let Some(tile) = old.get(&position)
                    && !position.within_map_bounds(&size)
                {
                    commands.entity(tile).try_despawn();
                }
            }
        }
    }
    Some(storage)
}

/// The highest world `z` of the tilemaps of `map`'s map, the overlay `layer` left out.
pub(super) fn highest_z(
    map: Entity,
    layer: Entity,
    (layers, below): (&Query<&LayerOf>, &Query<&Layers>),
    heights: &Query<&GlobalTransform, Without<FogOverlayLayer>>,
) -> f32 {
    let root = root_of(map, layers).unwrap_or(map);
    let mut highest = heights.get(map).map_or(0.0, |t| t.translation().z);
    map_tilemaps(root, below, |tilemap| {
        if tilemap != layer
            && let Ok(transform) = heights.get(tilemap)
        {
            highest = highest.max(transform.translation().z);
        }
    });
    highest
}

/// The overlay's `Transform` under its map (at world `z`) and its `GlobalTransform` until
/// the next propagation, so its first frame is drawn in place.
pub(super) fn placement(map: Option<&GlobalTransform>, z: f32) -> (Transform, GlobalTransform) {
    let Some(map) = map else {
        let local = Transform::from_xyz(0.0, 0.0, z);
        return (local, GlobalTransform::from(local));
    };
    let target = map.translation().with_z(z);
    let local = map.affine().inverse().transform_point3(target);
    let local = if local.is_finite() {
        Transform::from_translation(local)
    } else {
        Transform::default()
    };
    (local, map.mul_transform(local))
}

/// The overlay's texture: the game's, else a white square of the tile size (the one made
/// before if it has that size), else (no `Assets<Image>`) the default handle.
fn texture_of(
    overlay: &FogOverlay,
    tile_size: Option<&TilemapTileSize>,
    white: Option<OverlayTexture>,
    images: Option<&mut Assets<Image>>,
) -> (TilemapTexture, Option<OverlayTexture>) {
    if let Some(texture) = &overlay.texture {
        return (TilemapTexture::Single(texture.clone()), None);
    }
    let tile_size = tile_size.copied().unwrap_or_default();
    let pixels = UVec2::new(
        (tile_size.x.ceil() as u32).max(1),
        (tile_size.y.ceil() as u32).max(1),
    );
    if let Some(OverlayTexture(handle, size)) = white
        && size == pixels
    {
        let texture = TilemapTexture::Single(handle.clone());
        return (texture, Some(OverlayTexture(handle, size)));
    }
    let Some(images) = images else {
        return (TilemapTexture::default(), None);
    };
    let mut image = Image::new_fill(
        Extent3d {
            width: pixels.x,
            height: pixels.y,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        &[255, 255, 255, 255],
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    );
    // bevy_ecs_tilemap copies tiles out of the image into its texture array.
    image.texture_descriptor.usage |= TextureUsages::COPY_SRC;
    let handle = images.add(image);
    let texture = TilemapTexture::Single(handle.clone());
    (texture, Some(OverlayTexture(handle, pixels)))
}

/// Copies the map's geometry onto its overlay `entity`, and what bevy_ecs_tilemap needs to
/// draw a tilemap.
fn insert_geometry(entity: &mut EntityCommands, geometry: MapGeometryItem) {
    entity.insert((
        *geometry.size,
        geometry.grid.copied().unwrap_or_default(),
        geometry.tile_size.copied().unwrap_or_default(),
        geometry.map_type.copied().unwrap_or_default(),
        geometry.spacing.copied().unwrap_or_default(),
        geometry.anchor.copied().unwrap_or_default(),
        geometry.render_settings.copied().unwrap_or_default(),
        (Visibility::Inherited, FrustumCulling::default()),
        SyncToRenderWorld,
    ));
    #[cfg(feature = "render")]
    entity.insert(bevy_ecs_tilemap::prelude::MaterialTilemapHandle::<
        bevy_ecs_tilemap::prelude::StandardTilemapMaterial,
    >::default());
}

/// A [`FogOverlay`] removed (or its map despawned): its layer and the layer's tiles go.
pub(super) fn on_fog_overlay_removed(
    removed: On<Remove, FogOverlay>,
    maps: Query<&FogOverlay>,
    overlays: Query<&ChildOf, With<FogOverlayLayer>>,
    mut commands: Commands,
) {
    let map = removed.entity;
    let Some(layer) = maps.get(map).ok().and_then(FogOverlay::layer) else {
        return;
    };
    if overlays
        .get(layer)
        .is_ok_and(|parent| parent.parent() == map)
    {
        commands.entity(layer).try_despawn();
    }
}
