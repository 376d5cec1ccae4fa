//! Sprites under the fog (`FogSprite`) in a headless `App`: a sprite is hidden on a tile never
//! seen, drawn as it is on a visible one, and on a remembered tile drawn by a stand-in as its
//! team last saw it (a door seen closed and opened out of sight stays drawn closed; a chest
//! taken away out of sight stays drawn) until the tile is seen again. Each team remembers its
//! own, the team drawn decides; a world's chunk streamed out and in keeps what `WorldMemory`
//! keeps; the memory saves (feature `serde`). The rule frame by frame, on random games, is
//! held to a model written from the docs in `tests/sprite_memory_rule.rs`.
#![cfg(feature = "render")]

mod common_app;

use std::collections::{BTreeMap, BTreeSet};

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{
    ChunkOf, ChunkPos, DrawnTeam, FogSpriteStandIn, SpriteMemory, Team, WORLD_ORIGIN, WorldMemory,
};
use common_app::*;

const CLOSED: Color = Color::srgb(0.8, 0.2, 0.1);
const OPEN: Color = Color::srgb(0.1, 0.8, 0.2);

/// A corridor 20x3 (walls at `y == 0` and `y == 2`).
fn corridor(app: &mut App) -> Entity {
    spawn_map(app, 20, 3, |_, y| y != 1)
}

fn spawn_sprite(app: &mut App, map: Entity, (x, y): (u32, u32), color: Color) -> Entity {
    let sprite = Sprite { color, ..default() };
    let place = (TilePos { x, y }, TilemapId(map));
    app.world_mut()
        .spawn((sprite, FogSprite::Remembered, place))
        .id()
}

fn visibility(app: &App, entity: Entity) -> Visibility {
    *app.world().get::<Visibility>(entity).unwrap()
}

fn set_color(app: &mut App, entity: Entity, color: Color) {
    app.world_mut().get_mut::<Sprite>(entity).unwrap().color = color;
}

fn move_to(app: &mut App, entity: Entity, x: u32, y: u32) {
    app.world_mut().entity_mut(entity).insert(TilePos { x, y });
}

/// A stand-in as drawn: the colours of its sprites, and its visibility.
#[derive(Clone, Debug, PartialEq)]
struct Drawn {
    colors: Vec<[u8; 4]>,
    visibility: Visibility,
}

/// The stand-ins, by the entity each stands in for.
fn stand_ins(app: &mut App) -> BTreeMap<Entity, Drawn> {
    let mut query = app
        .world_mut()
        .query::<(&FogSpriteStandIn, &Visibility, Option<&Children>)>();
    let world = app.world();
    query
        .iter(world)
        .map(|(of, visibility, children)| {
            let colors = children
                .into_iter()
                .flatten()
                .filter_map(|&child| world.get::<Sprite>(child))
                .map(|sprite| sprite.color.to_srgba().to_u8_array())
                .collect();
            let drawn = Drawn {
                colors,
                visibility: *visibility,
            };
            (of.0, drawn)
        })
        .collect()
}

/// `color` as a remembered sprite is drawn on a map without a `SmoothFog`.
fn dimmed(color: Color) -> [u8; 4] {
    let (a, b) = (color.to_linear(), FogSprite::remembered_tint().to_linear());
    let tinted = LinearRgba::new(a.red * b.red, a.green * b.green, a.blue * b.blue, a.alpha);
    Color::from(tinted).to_srgba().to_u8_array()
}

fn memory(app: &App, map: Entity) -> &SpriteMemory {
    app.world().get::<SpriteMemory>(map).unwrap()
}

#[test]
fn a_door_seen_closed_and_opened_out_of_sight_is_drawn_closed_until_seen_again() {
    let mut app = app();
    let map = corridor(&mut app);
    let door = spawn_sprite(&mut app, map, (10, 1), CLOSED);
    let player = spawn_player(&mut app, map, 7, 1, 4);
    app.update();
    assert_eq!(visibility(&app, door), Visibility::Inherited, "seen");
    assert!(stand_ins(&mut app).is_empty());
    // The player walks away; the door opens out of its sight.
    move_to(&mut app, player, 2, 1);
    app.update();
    set_color(&mut app, door, OPEN);
    app.update();
    assert_eq!(
        visibility(&app, door),
        Visibility::Hidden,
        "the door itself"
    );
    let drawn = stand_ins(&mut app);
    let closed = Drawn {
        colors: vec![dimmed(CLOSED)],
        visibility: Visibility::Inherited,
    };
    assert_eq!(drawn, BTreeMap::from([(door, closed)]), "drawn closed");
    let remembered = memory(&app, map).remembered(Team(0), door).unwrap();
    assert_eq!(remembered.tile, TilePos { x: 10, y: 1 });
    assert_eq!(remembered.looks[0].color, CLOSED);
    // Seen again: drawn open, by itself.
    move_to(&mut app, player, 8, 1);
    app.update();
    assert_eq!(visibility(&app, door), Visibility::Inherited);
    assert!(stand_ins(&mut app).is_empty());
    assert!(memory(&app, map).remembered(Team(0), door).is_none());
}

#[test]
fn sprites_never_seen_are_hidden_and_ignored_ones_always_drawn() {
    let mut app = app();
    let map = corridor(&mut app);
    let far = spawn_sprite(&mut app, map, (18, 1), CLOSED);
    let marker = spawn_sprite(&mut app, map, (19, 1), OPEN);
    app.world_mut()
        .entity_mut(marker)
        .insert(FogSprite::Ignored);
    let unplaced = app
        .world_mut()
        .spawn((Sprite::default(), FogSprite::Remembered))
        .id();
    spawn_player(&mut app, map, 2, 1, 4);
    app.update();
    assert_eq!(visibility(&app, far), Visibility::Hidden);
    assert_eq!(visibility(&app, marker), Visibility::Inherited);
    assert_eq!(visibility(&app, unplaced), Visibility::Hidden);
    // Opting back in hides it.
    app.world_mut()
        .entity_mut(marker)
        .insert(FogSprite::Remembered);
    app.update();
    assert_eq!(visibility(&app, marker), Visibility::Hidden);
}

#[test]
fn a_chest_taken_out_of_sight_stays_drawn_until_its_tile_is_seen() {
    let mut app = app();
    let map = corridor(&mut app);
    let chest = spawn_sprite(&mut app, map, (9, 1), CLOSED);
    let carried = spawn_sprite(&mut app, map, (8, 1), OPEN);
    let player = spawn_player(&mut app, map, 7, 1, 4);
    app.update();
    // Carried along in sight: it is drawn where it goes, not remembered.
    move_to(&mut app, carried, 5, 1);
    app.update();
    assert_eq!(visibility(&app, carried), Visibility::Inherited);
    move_to(&mut app, player, 1, 1);
    app.update();
    app.world_mut().despawn(chest);
    // Taken out of sight to a tile never seen: both remembered where they were seen.
    move_to(&mut app, carried, 19, 1);
    app.update();
    let drawn: BTreeSet<Entity> = stand_ins(&mut app).into_keys().collect();
    assert_eq!(
        drawn,
        BTreeSet::from([chest]),
        "the carried one was at (5, 1), seen"
    );
    assert_eq!(visibility(&app, carried), Visibility::Hidden);
    // The chest's tile seen again, without it: forgotten.
    move_to(&mut app, player, 8, 1);
    app.update();
    assert!(stand_ins(&mut app).is_empty());
    assert_eq!(memory(&app, map).remembered_sprites(Team(0)).count(), 0);
}

#[test]
fn each_team_remembers_what_it_saw_and_the_team_drawn_decides() {
    let mut app = app();
    let map = corridor(&mut app);
    let chest = spawn_sprite(&mut app, map, (15, 1), CLOSED);
    spawn_player(&mut app, map, 2, 1, 4);
    let scout = app
        .world_mut()
        .spawn((
            Viewshed::new(3),
            RevealsFog,
            Team(1),
            TilePos { x: 17, y: 1 },
            TilemapId(map),
        ))
        .id();
    app.update();
    assert_eq!(visibility(&app, chest), Visibility::Hidden, "team 0 drawn");
    app.insert_resource(DrawnTeam(Team(1)));
    app.update();
    assert_eq!(visibility(&app, chest), Visibility::Inherited);
    // The scout walks off; the chest changes out of every sight.
    move_to(&mut app, scout, 19, 1);
    app.update();
    set_color(&mut app, chest, OPEN);
    app.update();
    let remembered = stand_ins(&mut app);
    assert_eq!(remembered[&chest].colors, [dimmed(CLOSED)]);
    assert!(memory(&app, map).remembered(Team(0), chest).is_none());
    app.insert_resource(DrawnTeam(Team(0)));
    app.update();
    assert!(stand_ins(&mut app).is_empty(), "team 0 never saw it");
    assert_eq!(visibility(&app, chest), Visibility::Hidden);
    app.insert_resource(DrawnTeam(Team(1)));
    app.update();
    assert_eq!(stand_ins(&mut app)[&chest].colors, [dimmed(CLOSED)]);
}

#[test]
fn a_remembered_sprite_is_drawn_as_it_was_under_a_smooth_fog_and_forgotten_with_the_fog() {
    let mut app = app();
    let map = corridor(&mut app);
    app.world_mut().entity_mut(map).insert(SmoothFog::default());
    let door = spawn_sprite(&mut app, map, (10, 1), CLOSED);
    let player = spawn_player(&mut app, map, 7, 1, 4);
    app.update();
    move_to(&mut app, player, 2, 1);
    app.update();
    let closed = CLOSED.to_srgba().to_u8_array();
    assert_eq!(
        stand_ins(&mut app)[&door].colors,
        [closed],
        "the fog darkens it"
    );
    // The game makes the team forget what it explored: the door with it.
    let mut fog = app.world_mut().get_mut::<FogOfWar>(map).unwrap();
    fog.forget_all();
    app.update();
    assert!(stand_ins(&mut app).is_empty());
    assert_eq!(visibility(&app, door), Visibility::Hidden);
}

/// A world of two 6x3 chunks side by side (an open corridor along `y == 1`), a `WorldMemory`
/// when `keep`.
fn two_chunks(app: &mut App, keep: bool) -> (Entity, [Entity; 2]) {
    let world = app.world_mut().spawn(WorldMap).id();
    if keep {
        app.world_mut()
            .entity_mut(world)
            .insert(WorldMemory::default());
    }
    let chunks = [0, 1].map(|x| spawn_chunk(app, world, x));
    (world, chunks)
}

fn spawn_chunk(app: &mut App, world: Entity, x: i32) -> Entity {
    let chunk = spawn_map(app, 6, 3, |_, y| y != 1);
    let place = (ChunkOf(world), ChunkPos(IVec2::new(x, 0)));
    app.world_mut().entity_mut(chunk).insert(place);
    chunk
}

#[test]
fn a_chunk_streamed_out_and_in_keeps_its_remembered_sprites_where_the_world_keeps_its_memory() {
    for keep in [true, false] {
        let mut app = app();
        let (world, chunks) = two_chunks(&mut app, keep);
        let chest = spawn_sprite(&mut app, chunks[1], (1, 1), CLOSED);
        let player = spawn_player(&mut app, chunks[0], 4, 1, 4);
        app.update();
        assert_eq!(
            visibility(&app, chest),
            Visibility::Inherited,
            "across the border"
        );
        // The player walks west, the chest is remembered; chunk 1 is streamed out with it.
        move_to(&mut app, player, 0, 1);
        app.update();
        let at = TilePos::new(WORLD_ORIGIN + 7, WORLD_ORIGIN + 1);
        assert_eq!(
            memory(&app, world).remembered(Team(0), chest).unwrap().tile,
            at
        );
        app.world_mut().despawn(chest);
        app.world_mut().despawn(chunks[1]);
        app.update();
        let drawn = stand_ins(&mut app);
        assert_eq!(
            drawn[&chest].visibility,
            Visibility::Hidden,
            "not over nothing"
        );
        // Streamed in again, with a chest of its own that nobody saw.
        let chunk = spawn_chunk(&mut app, world, 1);
        let new_chest = spawn_sprite(&mut app, chunk, (1, 1), CLOSED);
        app.update();
        assert_eq!(visibility(&app, new_chest), Visibility::Hidden);
        let drawn = stand_ins(&mut app);
        if keep {
            assert_eq!(
                drawn[&chest].visibility,
                Visibility::Inherited,
                "remembered"
            );
        } else {
            assert!(
                drawn.is_empty(),
                "the world forgot the chunk, and its chest"
            );
        }
    }
}

#[cfg(feature = "serde")]
#[test]
fn the_sprite_memory_is_saved_with_asset_paths_and_drawn_again_when_loaded() {
    use bevy::asset::AssetPlugin;
    let asset_app = || {
        let mut app = App::new();
        app.add_plugins((
            MinimalPlugins,
            AssetPlugin::default(),
            ViewshedPlugins::default(),
        ))
        .init_asset::<Image>()
        .init_asset::<TextureAtlasLayout>();
        app
    };
    let mut app = asset_app();
    let map = corridor(&mut app);
    let image: Handle<Image> = app.world().resource::<AssetServer>().load("tiles.png");
    let door = spawn_sprite(&mut app, map, (10, 1), CLOSED);
    app.world_mut().get_mut::<Sprite>(door).unwrap().image = image;
    let player = spawn_player(&mut app, map, 7, 1, 4);
    app.update();
    move_to(&mut app, player, 2, 1);
    app.update();
    let saved = serde_json::to_string(memory(&app, map)).unwrap();
    assert!(
        saved.contains("\"format\":1") && saved.contains("tiles.png"),
        "{saved}"
    );
    let loaded: SpriteMemory = serde_json::from_str(&saved).unwrap();
    assert_eq!(
        loaded.remembered(Team(0), door).unwrap().looks[0]
            .image
            .path(),
        Some("tiles.png".into())
    );
    // Bad saves are errors, not wrong memories.
    let other_format = saved.replace("\"format\":1", "\"format\":9");
    assert!(serde_json::from_str::<SpriteMemory>(&other_format).is_err());

    // A new run: the fog and the memory loaded onto the same corridor.
    let saved_fog = serde_json::to_string(fog(&app, map)).unwrap();
    let mut app = asset_app();
    let map = corridor(&mut app);
    spawn_player(&mut app, map, 2, 1, 4);
    app.update();
    let fog: FogOfWar = serde_json::from_str(&saved_fog).unwrap();
    app.world_mut().entity_mut(map).insert((fog, loaded));
    app.update();
    let mut query = app.world_mut().query::<(&Sprite, &ChildOf)>();
    let paths: Vec<_> = query
        .iter(app.world())
        .filter_map(|(sprite, _)| sprite.image.path().map(ToString::to_string))
        .collect();
    assert_eq!(
        paths,
        ["tiles.png"],
        "the stand-in loads its image by its path"
    );
}
