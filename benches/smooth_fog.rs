//! The smooth fog's texture (`SmoothFog`, feature `render`): what a frame costs and what it
//! uploads, in a headless app with `Assets<Image>` on the 256x256 dungeon of `benches/scene/`,
//! 16 viewers of radius 8 that `RevealsFog`.
//!
//! ```text
//! cargo bench --workspace --all-features --bench smooth_fog
//! ```
//!
//! - `smooth_fog/moving`: every viewer steps to a neighbouring floor tile every frame;
//!   `smooth` draws the fog with `SmoothFog` (its texture written where tiles changed),
//!   `tiles` with `FogStyle::default()` on the map's tiles (each changed tile's `TileVisible`
//!   and `TileColor` written), so the ratio is what one look costs against the other.
//! - `smooth_fog/still`: nothing moves.
//! - `smooth_fog/world_49`: a `WorldMap` of 7x7 loaded chunks of 32x32 tiles (the dungeon's
//!   walls, 8 still viewers on each but the corner chunk (0, 0) and its neighbours) under a
//!   `SmoothFog` on the world: `still` nothing changes (it uploads nothing), `streaming` chunk
//!   (0, 0) is taken out and put back every frame (it uploads that chunk's texture only: its
//!   32x32 tiles and a margin of 2).
//! - `smooth_fog/sprites`: the still dungeon with its 16 viewers, with and without 1,000
//!   entities under the fog (`FogSprite::Remembered` sprites on floor tiles): what they add to
//!   a frame in which nothing changes.
//!
//! Each iteration is one `app.update()`. Before the timings, the bench counts what each scene
//! uploads: Bevy uploads a new or modified image whole (`GpuImage` writes its data into the
//! texture), so the bytes uploaded in a frame are the sizes of the images with an
//! `AssetEvent::Added` or `Modified` in it. A still frame must upload nothing (the bench fails
//! otherwise); the counts per frame are printed and written next to criterion's results as
//! `smooth-fog-bytes.tsv`.

mod scene;

use std::path::{Path, PathBuf};

use bevy::asset::AssetPlugin;
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::TilemapId;
use bevy_viewshed::ChunkPos;
use bevy_viewshed::prelude::*;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use scene::support::MapKind;
use scene::world::{CHUNK, streaming_app_with};
use scene::{SIZE, minimal_plugins, spawn_dungeon, walk, walks};

const VIEWERS: usize = 16;
/// Frames counted for the bytes uploaded.
const COUNTED: usize = 50;

/// The bytes of the images modified since the counter was read.
#[derive(Resource, Default)]
struct Uploaded {
    bytes: usize,
    images: usize,
}

fn count_uploads(
    mut events: MessageReader<AssetEvent<Image>>,
    images: Res<Assets<Image>>,
    mut uploaded: ResMut<Uploaded>,
) {
    for event in events.read() {
        // A new image is uploaded whole, and so is a modified one.
        if let AssetEvent::Added { id } | AssetEvent::Modified { id } = event {
            uploaded.images += 1;
            uploaded.bytes += images
                .get(*id)
                .and_then(|image| image.data.as_ref())
                .map_or(0, Vec::len);
        }
    }
}

/// Counts what the app's images upload (added before its first frame).
fn count_images(app: &mut App) {
    app.add_plugins(AssetPlugin::default())
        .init_asset::<Image>()
        .init_resource::<Uploaded>()
        .add_systems(Last, count_uploads);
}

/// The world of 7x7 chunks under a `SmoothFog`, chunk (0, 0) streamed out and in every frame
/// if `streams`.
fn world_app(streams: bool) -> App {
    let grid = MapKind::Dungeon.generate(SIZE, SIZE, 7);
    let mut app = streaming_app_with(&grid, (7, 8, streams), |app, world| {
        count_images(app);
        app.world_mut()
            .entity_mut(world)
            .insert(SmoothFog::default());
    });
    // The viewers lift the fog, but none next to the streamed chunk: nobody sees into it, so
    // its coming and going changes no tile of its neighbours' margins (a chunk streamed in at
    // the edge of what is loaded, as a game streams them).
    let mut viewers = app.world_mut().query::<(Entity, &TilemapId)>();
    let viewers: Vec<(Entity, Entity)> = viewers
        .iter(app.world())
        .map(|(viewer, tilemap)| (viewer, tilemap.0))
        .collect();
    for (viewer, chunk) in viewers {
        let near = app
            .world()
            .get::<ChunkPos>(chunk)
            .is_some_and(|at| at.0.x <= 1 && at.0.y <= 1);
        if near {
            app.world_mut().despawn(viewer);
        } else {
            app.world_mut().entity_mut(viewer).insert(RevealsFog);
        }
    }
    for _ in 0..3 {
        app.update();
    }
    app
}

/// The still dungeon with its viewers, and `sprites` entities under the fog on floor tiles.
fn sprites_app(sprites: usize) -> App {
    let grid = MapKind::Dungeon.generate(SIZE, SIZE, 7);
    let mut app = fog_app(false, false);
    let map = app
        .world_mut()
        .query_filtered::<Entity, With<FogStyle>>()
        .single(app.world())
        .expect("the dungeon");
    for walk in walks(&grid, sprites) {
        let chest = (Sprite::default(), FogSprite::Remembered, walk.a);
        app.world_mut().spawn((chest, TilemapId(map)));
    }
    for _ in 0..3 {
        app.update();
    }
    app
}

/// The dungeon with the fog drawn `smooth` or in tile colours, the viewers walking if
/// `moving`, after the first frames (every view computed, the texture made).
fn fog_app(smooth: bool, moving: bool) -> App {
    let grid = MapKind::Dungeon.generate(SIZE, SIZE, 7);
    let mut app = App::new();
    app.add_plugins((minimal_plugins(), ViewshedPlugins::default()));
    count_images(&mut app);
    let map = spawn_dungeon(app.world_mut(), &grid);
    if smooth {
        app.world_mut().entity_mut(map).insert(SmoothFog::default());
    } else {
        app.world_mut().entity_mut(map).insert(FogStyle::default());
    }
    for walk in walks(&grid, VIEWERS) {
        let mut viewer = app.world_mut().spawn((
            Viewshed::new(scene::RADIUS),
            RevealsFog,
            walk.a,
            TilemapId(map),
        ));
        if moving {
            viewer.insert(walk);
        }
    }
    if moving {
        app.add_systems(Update, walk);
    }
    for _ in 0..3 {
        app.update();
    }
    app
}

/// The bytes uploaded per frame and the images modified per frame over [`COUNTED`] frames.
fn uploads_per_frame(app: &mut App) -> (f64, f64) {
    *app.world_mut().resource_mut::<Uploaded>() = Uploaded::default();
    for _ in 0..COUNTED {
        app.update();
    }
    let uploaded = app.world().resource::<Uploaded>();
    let frames = COUNTED as f64;
    (
        uploaded.bytes as f64 / frames,
        uploaded.images as f64 / frames,
    )
}

fn smooth_fog_benches(c: &mut Criterion) {
    let mut lines = vec!["scene\tlook\tbytes_per_frame\timages_per_frame\n".to_string()];
    for (scene, moving) in [("moving", true), ("still", false)] {
        let mut group = c.benchmark_group(format!("smooth_fog/{scene}"));
        for (look, smooth) in [("smooth", true), ("tiles", false)] {
            let mut app = fog_app(smooth, moving);
            let (bytes, images) = uploads_per_frame(&mut app);
            println!(
                "smooth_fog/{scene}/{look}: {bytes:.0} bytes, {images:.2} images uploaded per frame"
            );
            lines.push(format!("{scene}\t{look}\t{bytes:.0}\t{images:.2}\n"));
            if !moving {
                assert_eq!(bytes, 0.0, "a still frame uploads nothing ({look})");
            }
            group.bench_function(BenchmarkId::from_parameter(look), |b| {
                b.iter(|| app.update());
            });
        }
        group.finish();
    }
    let mut group = c.benchmark_group("smooth_fog/world_49");
    for (scene, streams) in [("still", false), ("streaming", true)] {
        let mut app = world_app(streams);
        let (bytes, images) = uploads_per_frame(&mut app);
        println!("smooth_fog/world_49/{scene}: {bytes:.0} bytes, {images:.2} images per frame");
        lines.push(format!("world_49\t{scene}\t{bytes:.0}\t{images:.2}\n"));
        if streams {
            // A chunk streamed in makes its own texture: its tiles and a margin of 2, 8 bytes
            // a texel; a frame that takes it out uploads nothing.
            let chunk = f64::from((CHUNK + 4) * (CHUNK + 4) * 8);
            assert_eq!(
                bytes,
                chunk / 2.0,
                "only the streamed chunk's texture is uploaded"
            );
        } else {
            assert_eq!(bytes, 0.0, "a still world uploads nothing");
        }
        group.bench_function(BenchmarkId::from_parameter(scene), |b| {
            b.iter(|| app.update());
        });
    }
    group.finish();
    let mut group = c.benchmark_group("smooth_fog/sprites");
    for sprites in [0, 1_000] {
        let mut app = sprites_app(sprites);
        group.bench_function(BenchmarkId::from_parameter(sprites), |b| {
            b.iter(|| app.update());
        });
    }
    group.finish();
    write_uploads(&lines);
}

/// Writes the uploads next to criterion's results (criterion's own order of directories:
/// `CRITERION_HOME`, `CARGO_TARGET_DIR`, the workspace's `target`).
fn write_uploads(lines: &[String]) {
    let dir = std::env::var_os("CRITERION_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("CARGO_TARGET_DIR").map(|t| Path::new(&t).join("criterion")))
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/criterion"));
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(dir.join("smooth-fog-bytes.tsv"), lines.concat()))
        .expect("the criterion directory is writable");
}

criterion_group! {
    name = benches;
    config = scene::criterion_config();
    targets = smooth_fog_benches
}
criterion_main!(benches);
