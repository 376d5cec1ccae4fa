//! A fog overlay in one component: [`FogOverlay`] on a map gets it a layer of plain tiles
//! drawn over the map in a [`FogStyle`], so the fog darkens the map without touching the
//! `TileColor` / `TileVisible` of the map's own tiles (a game's own tints stay).

use bevy::asset::RenderAssetUsages;
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

use crate::fog::FogStyle;
use crate::maps::layers::{LayerOf, Layers, map_tilemaps, root_of};

/// Gives a map a fog overlay: a layer of plain tiles, one per cell, drawn over the map and
/// styled by the fog ([`FogStyle::overlay`] by default: clear over what is seen, translucent
/// black over what is remembered, opaque black over what was never seen). The map's own
/// tiles are not written, so their `TileColor` tints and `TileVisible` stay the game's.
///
/// Put it on a tilemap (the root of a map, or any layer of it) that has a `TilemapSize` and a
/// `TileStorage`; the plugin ([`FogPlugin`](crate::fog::FogPlugin), at the start of
/// [`ViewshedSystems::Fog`](crate::ViewshedSystems::Fog)) then spawns the overlay layer in
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
/// app.add_plugins((MinimalPlugins, ViewshedPlugin::default()));
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
#[derive(Component, Clone, Debug, Default, Reflect)]
#[reflect(Component, Debug)]
pub struct FogOverlayLayer {
    /// The white square generated for this layer, and its size in pixels.
    white: Option<(Handle<Image>, UVec2)>,
}

/// What an overlay copies from its map.
type MapGeometry<'a> = (
    &'a TilemapSize,
    Option<&'a TilemapGridSize>,
    Option<&'a TilemapTileSize>,
    Option<&'a TilemapType>,
    Option<&'a TilemapSpacing>,
    Option<&'a TilemapAnchor>,
    Option<&'a TilemapRenderSettings>,
    Option<&'a GlobalTransform>,
);

/// Maps whose overlay must be spawned or brought in line with them.
type OverlayChanged = Or<(
    Changed<FogOverlay>,
    Changed<TilemapSize>,
    Added<TileStorage>,
    Changed<TilemapGridSize>,
    Changed<TilemapTileSize>,
    Changed<TilemapType>,
    Changed<TilemapSpacing>,
    Changed<TilemapAnchor>,
)>;

/// Spawns the overlay layer of each map whose [`FogOverlay`] is new, and keeps it in line with
/// its map (size, tiles, geometry, style, texture) when either changed.
pub(super) fn keep_fog_overlays(
    mut commands: Commands,
    mut maps: Query<
        (
            Entity,
            &mut FogOverlay,
            Option<MapGeometry>,
            Has<TileStorage>,
            Option<&Children>,
        ),
        (Without<FogOverlayLayer>, OverlayChanged),
    >,
    overlays: Query<(&ChildOf, &TileStorage, &FogOverlayLayer)>,
    (layers, below): (Query<&LayerOf>, Query<&Layers>),
    heights: Query<&GlobalTransform, Without<FogOverlayLayer>>,
    mut images: Option<ResMut<Assets<Image>>>,
) {
    for (map, mut overlay, geometry, is_tilemap, children) in &mut maps {
        let Some(geometry) = geometry.filter(|_| is_tilemap) else {
            warn!(
                "bevy_viewshed: FogOverlay on {map}: it is not a tilemap (it needs a \
                 TilemapSize and a TileStorage); it gets its overlay layer once it has both"
            );
            continue;
        };
        let ours = |layer: Entity| {
            overlays
                .get(layer)
                .is_ok_and(|(parent, ..)| parent.parent() == map)
        };
        // The layer spawned before, also for a FogOverlay inserted again or cloned.
        let found = overlay
            .layer
            .filter(|&layer| ours(layer))
            .or_else(|| children.and_then(|children| children.iter().find(|&child| ours(child))));
        let layer = match found {
            Some(layer) => layer,
            None => commands
                .spawn((
                    FogOverlayLayer::default(),
                    Name::new("Fog overlay"),
                    LayerOf(map),
                    ChildOf(map),
                ))
                .id(),
        };
        if overlay.layer != Some(layer) {
            overlay.bypass_change_detection().layer = Some(layer);
        }
        let old = overlays.get(layer).ok();
        let storage = fill_tiles(
            &mut commands,
            layer,
            *geometry.0,
            old.map(|(_, storage, _)| storage),
            &overlay.style,
        );
        let highest = highest_z(map, layer, &layers, &below, &heights);
        let white = old.and_then(|(.., marker)| marker.white.clone());
        let (texture, white) = texture_of(&overlay, geometry.2, white, images.as_deref_mut());
        let mut entity = commands.entity(layer);
        entity.insert((
            overlay.style,
            texture,
            FogOverlayLayer { white },
            placement(geometry.7, highest + overlay.z_above),
        ));
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
fn highest_z(
    map: Entity,
    layer: Entity,
    layers: &Query<&LayerOf>,
    below: &Query<&Layers>,
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
fn placement(map: Option<&GlobalTransform>, z: f32) -> (Transform, GlobalTransform) {
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
    white: Option<(Handle<Image>, UVec2)>,
    images: Option<&mut Assets<Image>>,
) -> (TilemapTexture, Option<(Handle<Image>, UVec2)>) {
    if let Some(texture) = &overlay.texture {
        return (TilemapTexture::Single(texture.clone()), None);
    }
    let tile_size = tile_size.copied().unwrap_or_default();
    let pixels = UVec2::new(
        (tile_size.x.ceil() as u32).max(1),
        (tile_size.y.ceil() as u32).max(1),
    );
    if let Some((handle, size)) = white
        && size == pixels
    {
        return (TilemapTexture::Single(handle.clone()), Some((handle, size)));
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
    (
        TilemapTexture::Single(handle.clone()),
        Some((handle, pixels)),
    )
}

/// Copies the map's geometry onto its overlay `entity`, and what bevy_ecs_tilemap needs to
/// draw a tilemap.
fn insert_geometry(entity: &mut EntityCommands, geometry: MapGeometry) {
    let (size, grid, tile, map_type, spacing, anchor, settings, _) = geometry;
    entity.insert((
        *size,
        grid.copied().unwrap_or_default(),
        tile.copied().unwrap_or_default(),
        map_type.copied().unwrap_or_default(),
        spacing.copied().unwrap_or_default(),
        anchor.copied().unwrap_or_default(),
        settings.copied().unwrap_or_default(),
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
