//! A headless app that loads the Tiled files of `assets/tiled/` (written by
//! `assets/make_tiled_maps.py`) through bevy_ecs_tiled's own asset loaders and map spawning
//! systems, with the plugin and its Tiled integration; and the same files read with the
//! `tiled` crate (which bevy_ecs_tiled uses), to check the plugin against.
//!
//! Without the `render` feature (a dedicated server: `--no-default-features --features tiled`)
//! the app is docs/tiled.md's headless recipe as written. With it, bevy_ecs_tiled's
//! `TiledPlugin` adds bevy_ecs_tilemap's `TilemapPlugin`, whose renderer needs a render sub-app
//! while it is built (it puts one system there) and skips its GPU setup when the app has none
//! by the time plugins finish: the app gets an empty stand-in render sub-app for the build,
//! taken away before `finish`, and bevy_render's `SyncWorldPlugin` (the list of entities to
//! sync with a render world, which the renderer's hooks write to). The entities are those
//! bevy_ecs_tiled spawns.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use bevy::image::{CompressedImageFormats, ImageLoader, ImagePlugin, TextureAtlasPlugin};
use bevy::prelude::*;
use bevy_ecs_tiled::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::tiled::{ObjectVision, TiledOpacity, TiledViewshedPlugin, TiledVision};
use bevy_viewshed::{FovOptions, MapOpacity};
use bevy_viewshed::{HexCoords, OpacityGrid, field_of_view, hex_field_of_view};

/// The directory of the Tiled files.
pub fn dir() -> PathBuf {
    Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("assets/tiled")
}

/// The configuration the tests load the maps with: closed door tiles (class `Door`) block
/// sight besides `block_line_of_sight`; players see 8 tiles and reveal the fog.
pub fn configure(app: &mut App) {
    app.insert_resource(TiledOpacity::default().class("Door"))
        .insert_resource(
            TiledVision::default().class("Player", ObjectVision::viewer(8).reveals_fog()),
        );
}

/// The app with bevy_ecs_tiled, the plugin and its Tiled integration, `configure` run before
/// anything is loaded.
pub fn tiled_app(configure: impl FnOnce(&mut App)) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        TransformPlugin,
        AssetPlugin::default(),
        ImagePlugin::default(),
        TextureAtlasPlugin,
    ));
    // bevy_render registers the PNG loader once it knows the GPU's formats; headless, it is
    // registered here.
    app.register_asset_loader(ImageLoader::new(CompressedImageFormats::empty()));
    let tiled = TiledPlugin(TiledPluginConfig {
        tiled_types_export_file: None,
        tiled_types_filter: TiledFilter::All,
    });
    add_tiled_plugin(&mut app, tiled);
    app.add_plugins((ViewshedPlugins::default(), TiledViewshedPlugin));
    configure(&mut app);
    app.finish();
    app.cleanup();
    app
}

/// A server's build: bevy_ecs_tiled without its renderer needs nothing more.
#[cfg(not(feature = "render"))]
fn add_tiled_plugin(app: &mut App, tiled: TiledPlugin) {
    app.add_plugins(tiled);
}

/// With bevy_ecs_tiled's renderer: the shader assets, the sync list and a stand-in render
/// sub-app for the build (see the top of this file).
#[cfg(feature = "render")]
fn add_tiled_plugin(app: &mut App, tiled: TiledPlugin) {
    use bevy::app::SubApp;
    use bevy::render::RenderApp;
    use bevy::render::sync_world::SyncWorldPlugin;
    app.init_asset::<bevy::shader::Shader>();
    app.add_plugins(SyncWorldPlugin);
    app.insert_sub_app(RenderApp, SubApp::new());
    app.add_plugins(tiled);
    app.remove_sub_app(RenderApp);
}

/// Spawns the map `file` of `assets/tiled/` and updates until it is spawned and placed.
pub fn load_map(app: &mut App, file: &str) -> Entity {
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load(format!("tiled/{file}"));
    let map = app.world_mut().spawn(TiledMap(handle)).id();
    update_until(app, |app| map_ready(app, map), file);
    map
}

/// Whether `map`'s root tilemap has its opacity (its layers and objects are then placed).
pub fn map_ready(app: &App, map: Entity) -> bool {
    let root = app
        .world()
        .get::<LayerGroup>(map)
        .and_then(LayerGroup::root);
    root.is_some_and(|root| app.world().get::<MapOpacity>(root).is_some())
}

/// Updates until `done`, at most 5,000 updates of 1 ms each, then once more.
pub fn update_until(app: &mut App, mut done: impl FnMut(&mut App) -> bool, what: &str) {
    for _ in 0..5_000 {
        app.update();
        if done(app) {
            app.update();
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("{what} was not loaded and placed after 5,000 updates");
}

/// The root tilemap of `map`.
pub fn root(app: &App, map: Entity) -> Entity {
    app.world()
        .get::<LayerGroup>(map)
        .and_then(LayerGroup::root)
        .expect("the map has a root tilemap")
}

/// The objects of `map` named `name`, in the order of their Tiled ids.
pub fn objects(app: &mut App, map: Entity, name: &str) -> Vec<Entity> {
    let mut query = app
        .world_mut()
        .query::<(Entity, &TiledName, &TiledObjectId, &TiledMapReference)>();
    let mut found: Vec<_> = query
        .iter(app.world())
        .filter(|(_, n, _, m)| n.0 == name && m.0 == map)
        .map(|(e, _, id, _)| (id.0, e))
        .collect();
    found.sort();
    found.into_iter().map(|(_, e)| e).collect()
}

/// The one object of `map` named `name`.
pub fn object(app: &mut App, map: Entity, name: &str) -> Entity {
    let found = objects(app, map, name);
    assert_eq!(found.len(), 1, "one object {name}");
    found[0]
}

/// A map as the file says, read with the `tiled` crate: what the tests hold the plugin to.
pub struct MapData {
    pub map: tiled::Map,
    /// Its size in tiles (for an infinite map, the chunks' bounding box).
    pub width: u32,
    pub height: u32,
    /// The Tiled tile of `TilePos (0, 0)`'s column and of the top row (an infinite map's
    /// chunks start below 0).
    pub origin: (i32, i32),
}

impl MapData {
    /// Reads `assets/tiled/{file}`.
    pub fn read(file: &str) -> Self {
        let map = tiled::Loader::new()
            .load_tmx_map(dir().join(file))
            .expect("the map loads");
        let (mut low, mut high) = ((0, 0), (map.width as i32 - 1, map.height as i32 - 1));
        if map.infinite() {
            (low, high) = ((i32::MAX, i32::MAX), (i32::MIN, i32::MIN));
            for layer in tile_layers(&map) {
                if let tiled::TileLayer::Infinite(layer) = layer {
                    for ((cx, cy), _) in layer.chunks() {
                        let (w, h) = (
                            tiled::ChunkData::WIDTH as i32,
                            tiled::ChunkData::HEIGHT as i32,
                        );
                        low = (low.0.min(cx * w), low.1.min(cy * h));
                        high = (high.0.max(cx * w + w - 1), high.1.max(cy * h + h - 1));
                    }
                }
            }
        }
        Self {
            width: (high.0 - low.0 + 1) as u32,
            height: (high.1 - low.1 + 1) as u32,
            origin: low,
            map,
        }
    }

    /// The `TilePos` of Tiled tile `(x, y)` (rows counted from the top).
    pub fn tile_pos(&self, (x, y): (i32, i32)) -> TilePos {
        TilePos::new(
            (x - self.origin.0) as u32,
            self.height - 1 - (y - self.origin.1) as u32,
        )
    }

    /// Whether Tiled tile `(x, y)` of some tile layer blocks sight by the tests'
    /// configuration: a tileset tile with `block_line_of_sight = true`, of class `Door`, or
    /// with the custom type `Opaque`.
    pub fn tile_blocks(&self, (x, y): (i32, i32)) -> bool {
        tile_layers(&self.map).any(|layer| {
            layer
                .get_tile(x, y)
                .and_then(|tile| tile.get_tile())
                .is_some_and(|tile| blocking(&tile.properties, &tile.user_type))
        })
    }

    /// The tiles the objects with `block_line_of_sight = true` cover (see
    /// [`object_covers`](Self::object_covers)).
    pub fn object_walls(&self) -> Vec<TilePos> {
        let blocks = |object: &tiled::Object| {
            object.properties.get("block_line_of_sight")
                == Some(&tiled::PropertyValue::BoolValue(true))
        };
        let objects = self.objects();
        let blocking = objects.iter().filter(|object| blocks(object));
        blocking
            .flat_map(|object| self.object_covers(object))
            .collect()
    }

    /// The tiles a rectangle object covers (orthogonal maps: the tiles whose centre lies
    /// inside the object's rectangle; a tile object's rectangle is above its position).
    pub fn object_covers(&self, object: &tiled::Object) -> Vec<TilePos> {
        let (tw, th) = (self.map.tile_width as f32, self.map.tile_height as f32);
        let tiled::ObjectShape::Rect { width, height } = object.shape else {
            return Vec::new();
        };
        let top = if object.get_tile().is_some() {
            object.y - height
        } else {
            object.y
        };
        let mut covered = Vec::new();
        for y in 0..self.map.height as i32 {
            for x in 0..self.map.width as i32 {
                let (cx, cy) = ((x as f32 + 0.5) * tw, (y as f32 + 0.5) * th);
                if cx > object.x && cx < object.x + width && cy > top && cy < top + height {
                    covered.push(self.tile_pos((x, y)));
                }
            }
        }
        covered
    }

    /// The opacity the plugin should find: the tiles that block and the objects' walls.
    pub fn opacity(&self) -> OpacityGrid {
        let walls = self.object_walls();
        OpacityGrid::from_fn(self.width, self.height, |x, y| {
            let tiled = (
                x as i32 + self.origin.0,
                (self.height - 1 - y) as i32 + self.origin.1,
            );
            self.tile_blocks(tiled) || walls.contains(&TilePos::new(x, y))
        })
    }

    /// The objects of every object layer.
    pub fn objects(&self) -> Vec<tiled::Object<'_>> {
        self.map
            .layers()
            .filter_map(|layer| match layer.layer_type() {
                tiled::LayerType::Objects(objects) => Some(objects.objects().collect::<Vec<_>>()),
                _ => None,
            })
            .flatten()
            .collect()
    }

    /// The Tiled tile under the centre of the object named `name` (its point for a point), by
    /// Tiled's own geometry for the map's orientation.
    pub fn tile_of(&self, name: &str) -> TilePos {
        let object = self
            .objects()
            .into_iter()
            .find(|o| o.name == name)
            .unwrap_or_else(|| panic!("no object {name}"));
        self.tile_of_object(&object)
    }

    /// The tile under the centre of `object`.
    pub fn tile_of_object(&self, object: &tiled::Object) -> TilePos {
        let (mut x, mut y) = (object.x, object.y);
        if let tiled::ObjectShape::Rect { width, height } = object.shape {
            // A tile object's rectangle lies above its position, another's below.
            let down = if object.get_tile().is_some() {
                -height
            } else {
                height
            };
            (x, y) = (x + width / 2.0, y + down / 2.0);
        }
        let tile = tiled_tile_at(&self.map, x, y);
        self.tile_pos(tile)
    }
}

/// Whether a tileset tile with these properties and class blocks sight by the tests'
/// configuration.
fn blocking(properties: &tiled::Properties, class: &str) -> bool {
    let opaque_type = "bevy_viewshed::Opaque";
    properties.get("block_line_of_sight") == Some(&tiled::PropertyValue::BoolValue(true))
        || class == "Door"
        || properties.values().any(|v| {
            matches!(v, tiled::PropertyValue::ClassValue { property_type, .. } if property_type == opaque_type)
        })
}

/// Every tile layer of the map, in group layers or not.
fn tile_layers(map: &tiled::Map) -> impl Iterator<Item = tiled::TileLayer<'_>> {
    fn walk<'a>(
        layers: impl Iterator<Item = tiled::Layer<'a>>,
        out: &mut Vec<tiled::TileLayer<'a>>,
    ) {
        for layer in layers {
            match layer.layer_type() {
                tiled::LayerType::Tiles(tiles) => out.push(tiles),
                tiled::LayerType::Group(group) => walk(group.layers(), out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(map.layers(), &mut out);
    out.into_iter()
}

/// The Tiled tile (column, row from the top) under the point `(x, y)` of a map's object
/// coordinates: on orthogonal maps the tile of that pixel; on isometric maps object
/// coordinates run along the tile axes in tile heights; on hexagonal maps, the tile whose
/// centre (as Tiled lays out staggered hexagons) is nearest.
fn tiled_tile_at(map: &tiled::Map, x: f32, y: f32) -> (i32, i32) {
    let (tw, th) = (map.tile_width as f32, map.tile_height as f32);
    match map.orientation {
        tiled::Orientation::Orthogonal => ((x / tw).floor() as i32, (y / th).floor() as i32),
        tiled::Orientation::Isometric => ((x / th).floor() as i32, (y / th).floor() as i32),
        tiled::Orientation::Hexagonal => {
            let mut best = (0, 0);
            let mut distance = f32::MAX;
            for row in 0..map.height as i32 {
                for col in 0..map.width as i32 {
                    let (cx, cy) = hex_centre(map, col, row);
                    let d = (cx - x).powi(2) + (cy - y).powi(2);
                    if d < distance {
                        (best, distance) = ((col, row), d);
                    }
                }
            }
            best
        }
        other => panic!("no tiles on a {other:?} map"),
    }
}

/// The centre of a tile of a hexagonal map in Tiled's object coordinates.
fn hex_centre(map: &tiled::Map, col: i32, row: i32) -> (f32, f32) {
    let (tw, th) = (map.tile_width as f32, map.tile_height as f32);
    let side = map.hex_side_length.unwrap_or(0) as f32;
    let odd = map.stagger_index == tiled::StaggerIndex::Odd;
    match map.stagger_axis {
        tiled::StaggerAxis::Y => {
            let shifted = (row % 2 == 1) == odd;
            let x = col as f32 * tw + if shifted { tw / 2.0 } else { 0.0 } + tw / 2.0;
            (x, row as f32 * (th + side) / 2.0 + th / 2.0)
        }
        tiled::StaggerAxis::X => {
            let shifted = (col % 2 == 1) == odd;
            let y = row as f32 * th + if shifted { th / 2.0 } else { 0.0 } + th / 2.0;
            (col as f32 * (tw + side) / 2.0 + tw / 2.0, y)
        }
    }
}

/// The tiles a viewer with these options at `at` sees on `grid` of this map type, from the
/// core alone.
pub fn expected_view(
    grid: &OpacityGrid,
    map_type: TilemapType,
    at: TilePos,
    options: FovOptions,
) -> Vec<TilePos> {
    let origin = (at.x, at.y);
    let visible = match map_type {
        TilemapType::Hexagon(system) => {
            let coords = match system {
                HexCoordSystem::RowEven => HexCoords::RowEven,
                HexCoordSystem::RowOdd => HexCoords::RowOdd,
                HexCoordSystem::ColumnEven => HexCoords::ColumnEven,
                HexCoordSystem::ColumnOdd => HexCoords::ColumnOdd,
                HexCoordSystem::Row => HexCoords::Row,
                HexCoordSystem::Column => HexCoords::Column,
            };
            hex_field_of_view(grid, coords, origin, options).unwrap()
        }
        _ => field_of_view(grid, origin, options).unwrap(),
    };
    let mut tiles: Vec<_> = visible.iter().map(|(x, y)| TilePos::new(x, y)).collect();
    tiles.sort_by_key(|p| (p.y, p.x));
    tiles
}

/// The tiles a `Viewshed` holds, sorted like [`expected_view`].
pub fn view_of(viewshed: &Viewshed) -> Vec<TilePos> {
    let mut tiles: Vec<_> = viewshed.iter().collect();
    tiles.sort_by_key(|p| (p.y, p.x));
    tiles
}
