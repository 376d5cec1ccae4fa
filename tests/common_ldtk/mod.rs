//! A headless app that loads `assets/ldtk_level.ldtk` through bevy_ecs_ldtk's own asset loader
//! and level spawning systems, with the plugin and its LDtk integration, and the level's data
//! read from the same file with serde_json, to check the plugin against.
//!
//! bevy_ecs_ldtk's `LdtkPlugin` adds bevy_ecs_tilemap's `TilemapPlugin`, whose renderer needs a
//! GPU, so the app adds what `LdtkPlugin` adds except that plugin: its asset plugin, settings,
//! messages and systems (`process_ldtk_assets`, `process_ldtk_levels`, `apply_level_selection`,
//! `apply_level_set`, `clean_respawn_entities`). The entities are those bevy_ecs_ldtk spawns.
#![allow(dead_code)]

use bevy::image::{CompressedImageFormats, ImageLoader, ImagePlugin, TextureAtlasPlugin};
use bevy::prelude::*;
use bevy_ecs_ldtk::app::{LdtkEntityMap, LdtkIntCellMap};
use bevy_ecs_ldtk::assets::LdtkAssetPlugin;
use bevy_ecs_ldtk::prelude::*;
use bevy_ecs_ldtk::systems;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::FovOptions;
use bevy_viewshed::ldtk::LdtkViewshedPlugin;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{OpacityGrid, field_of_view};
use serde_json::Value;

/// The project the tests load (written by `assets/make_ldtk_level.py`).
pub const PROJECT: &str = "ldtk_level.ldtk";

/// The app, with `configure` run before the level is loaded (insert the LDtk configuration
/// there), updated until the level and its entities are placed.
pub fn ldtk_app(configure: impl FnOnce(&mut App)) -> App {
    project_app(PROJECT, configure)
}

/// [`ldtk_app`] with another project of `assets/`.
pub fn project_app(project: &str, configure: impl FnOnce(&mut App)) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        TransformPlugin,
        AssetPlugin::default(),
        ImagePlugin::default(),
        TextureAtlasPlugin,
        ViewshedPlugins::default(),
        LdtkViewshedPlugin,
    ));
    // bevy_render registers the PNG loader once it knows the GPU's formats; headless, the
    // loader is registered here with none of the compressed ones.
    app.register_asset_loader(ImageLoader::new(CompressedImageFormats::empty()));
    add_ldtk_systems(&mut app);
    configure(&mut app);
    app.finish();
    app.cleanup();
    let project = app
        .world()
        .resource::<AssetServer>()
        .load(project.to_string());
    app.world_mut().spawn(LdtkWorldBundle {
        ldtk_handle: project.into(),
        ..default()
    });
    app.insert_resource(LevelSelection::index(0));
    update_until_loaded(&mut app);
    app
}

/// What `LdtkPlugin` adds, without `TilemapPlugin`.
fn add_ldtk_systems(app: &mut App) {
    app.add_plugins(LdtkAssetPlugin)
        .init_non_send::<LdtkEntityMap>()
        .init_non_send::<LdtkIntCellMap>()
        .init_resource::<LdtkSettings>()
        .init_resource::<ClearColor>()
        .add_message::<LevelEvent>()
        .add_systems(
            PreUpdate,
            (systems::process_ldtk_assets, systems::process_ldtk_levels),
        )
        .add_systems(
            Update,
            (
                systems::apply_level_selection,
                systems::apply_level_set,
                systems::clean_respawn_entities,
            )
                .chain(),
        );
}

/// Updates until an LDtk entity has a `Viewshed` (the project loaded, the level spawned, the
/// entities placed), at most 5,000 updates of 1 ms each.
pub fn update_until_loaded(app: &mut App) {
    for _ in 0..5_000 {
        app.update();
        let mut players = app
            .world_mut()
            .query_filtered::<(), (With<Viewshed>, With<EntityIid>)>();
        if players.iter(app.world()).next().is_some() {
            app.update();
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let mut worlds = app.world_mut().query::<&LdtkProjectHandle>();
    let server = app.world().resource::<AssetServer>();
    let state = worlds
        .iter(app.world())
        .map(|h| {
            format!(
                "{:?} {:?}",
                server.get_load_state(h.id()),
                server.get_recursive_dependency_load_state(h.id())
            )
        })
        .collect::<Vec<_>>();
    let levels = app
        .world_mut()
        .query::<(&LevelIid, Option<&LayerGroup>)>()
        .iter(app.world())
        .map(|(l, g)| format!("{l:?} {g:?}"))
        .collect::<Vec<_>>();
    let entities = app
        .world_mut()
        .query::<&EntityInstance>()
        .iter(app.world())
        .count();
    let maps = app
        .world_mut()
        .query::<&TileStorage>()
        .iter(app.world())
        .count();
    panic!(
        "the LDtk level was not loaded and placed after 5,000 updates: project {state:?} levels {levels:?} entities {entities} maps {maps}"
    );
}

/// The tilemap of the layer with this LDtk identifier.
pub fn layer(app: &mut App, identifier: &str) -> Entity {
    let mut layers = app
        .world_mut()
        .query_filtered::<(Entity, &LayerMetadata), With<TileStorage>>();
    layers
        .iter(app.world())
        .find(|(_, meta)| meta.identifier == identifier)
        .map(|(entity, _)| entity)
        .unwrap_or_else(|| panic!("no layer {identifier}"))
}

/// The tile entity at `pos` of a layer.
pub fn tile(app: &App, layer: Entity, pos: TilePos) -> Entity {
    app.world()
        .get::<TileStorage>(layer)
        .and_then(|storage| storage.get(&pos))
        .unwrap_or_else(|| panic!("no tile at {pos:?}"))
}

/// The LDtk entities with this identifier, in LDtk grid order (row by row from the top).
pub fn ldtk_entities(app: &mut App, identifier: &str) -> Vec<Entity> {
    let mut query = app.world_mut().query::<(Entity, &EntityInstance)>();
    let mut found: Vec<_> = query
        .iter(app.world())
        .filter(|(_, instance)| instance.identifier == identifier)
        .map(|(entity, instance)| ((instance.grid.y, instance.grid.x), entity))
        .collect();
    found.sort();
    found.into_iter().map(|(_, entity)| entity).collect()
}

/// The level as the file says, read with serde_json: what the tests hold the plugin to.
pub struct LevelData {
    pub width: u32,
    pub height: u32,
    /// IntGrid values of the "Walls" layer, by `TilePos` (row 0 at the bottom).
    pub walls: Vec<i32>,
    /// Tiles of the "Decor" layer (pillars tagged "Solid"), as `TilePos`.
    pub pillars: Vec<TilePos>,
    /// Entities: identifier, `TilePos`, `sight_radius` field.
    pub entities: Vec<(String, TilePos, Option<u32>)>,
}

impl LevelData {
    /// Reads `assets/ldtk_level.ldtk`.
    pub fn read() -> Self {
        let path = format!(
            "{}/assets/ldtk_level.ldtk",
            std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")
        );
        let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let layers = json["levels"][0]["layerInstances"].as_array().unwrap();
        let by_name = |name: &str| {
            layers
                .iter()
                .find(|l| l["__identifier"] == name)
                .unwrap_or_else(|| panic!("no layer {name} in the file"))
        };
        let walls_layer = by_name("Walls");
        let width = walls_layer["__cWid"].as_u64().unwrap() as u32;
        let height = walls_layer["__cHei"].as_u64().unwrap() as u32;
        let flip = |x: i64, y: i64| TilePos::new(x as u32, height - 1 - y as u32);
        let csv: Vec<i32> = walls_layer["intGridCsv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap() as i32)
            .collect();
        let mut walls = vec![0; (width * height) as usize];
        for (i, value) in csv.iter().enumerate() {
            let pos = flip((i as u32 % width).into(), (i as u32 / width).into());
            walls[(pos.y * width + pos.x) as usize] = *value;
        }
        let grid = 16;
        let pillars = by_name("Decor")["gridTiles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                flip(
                    t["px"][0].as_i64().unwrap() / grid,
                    t["px"][1].as_i64().unwrap() / grid,
                )
            })
            .collect();
        let entities = by_name("Entities")["entityInstances"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let sight = e["fieldInstances"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|f| f["__identifier"] == "sight_radius")
                    .and_then(|f| f["__value"].as_u64())
                    .map(|v| v as u32);
                let pos = flip(
                    e["__grid"][0].as_i64().unwrap(),
                    e["__grid"][1].as_i64().unwrap(),
                );
                (e["__identifier"].as_str().unwrap().to_string(), pos, sight)
            })
            .collect();
        Self {
            width,
            height,
            walls,
            pillars,
            entities,
        }
    }

    /// The IntGrid value of the "Walls" layer at `pos`.
    pub fn wall_value(&self, pos: TilePos) -> i32 {
        self.walls[(pos.y * self.width + pos.x) as usize]
    }

    /// The opacity the level should have: IntGrid values in `opaque` and the pillars.
    pub fn opacity(&self, opaque: &[i32]) -> OpacityGrid {
        OpacityGrid::from_fn(self.width, self.height, |x, y| {
            let pos = TilePos::new(x, y);
            opaque.contains(&self.wall_value(pos)) || self.pillars.contains(&pos)
        })
    }

    /// The tiles of the first entity with this identifier.
    pub fn position_of(&self, identifier: &str) -> TilePos {
        self.entities
            .iter()
            .find(|(name, ..)| name == identifier)
            .map(|(_, pos, _)| *pos)
            .unwrap()
    }
}

/// The tiles a viewer with these options at `at` sees on `grid`, from the core alone.
pub fn expected_view(grid: &OpacityGrid, at: TilePos, options: FovOptions) -> Vec<TilePos> {
    let visible = field_of_view(grid, (at.x, at.y), options).unwrap();
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
