//! The battlefield: a 64x40 plain with rock clusters (deterministic for a seed), each team's
//! headquarters in a corner with five soldiers, blue's detector and radar tower, and red's
//! cloaked scout.

use std::time::Duration;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{Cloaked, Detector, FogRegrowth, Radar, Team};

use crate::options::Options;
use crate::square_map::spawn_square_map;

pub const SIZE: TilemapSize = TilemapSize { x: 64, y: 40 };
/// Window pixels per tile (the camera does not zoom).
pub const TILE: f32 = 16.0;
/// How far right of the window's centre the camera looks: the map sits left of the minimap.
pub const CAMERA_X: f32 = 110.0;
/// How long ground unseen stays remembered.
pub const REGROWTH: Duration = Duration::from_secs(20);
/// The teams' corners (headquarters' tiles) and colours: blue, green, red, yellow.
pub const TEAMS: [((u32, u32), Color); 4] = [
    ((4, 4), Color::srgb(0.3, 0.55, 1.0)),
    ((4, 35), Color::srgb(0.35, 0.9, 0.35)),
    ((59, 35), Color::srgb(1.0, 0.3, 0.25)),
    ((59, 4), Color::srgb(1.0, 0.85, 0.2)),
];

/// Blue's headquarters: the minimap's dot.
#[derive(Component)]
pub struct Headquarters;

/// A unit that walks: towards `goal`, a new one once there.
#[derive(Component)]
pub struct Marching {
    pub goal: TilePos,
}

/// The map entity.
#[derive(Resource)]
pub struct Battlefield(pub Entity);

/// A small deterministic generator (xorshift).
#[derive(Resource)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % u64::from(n.max(1))) as u32
    }

    /// A tile of the map.
    pub fn tile(&mut self) -> TilePos {
        TilePos::new(self.below(SIZE.x), self.below(SIZE.y))
    }
}

/// The rocks: clusters grown by short random walks, none within 6 tiles of a corner.
pub fn rocks(rng: &mut Rng) -> Vec<bool> {
    let mut rock = vec![false; (SIZE.x * SIZE.y) as usize];
    for _ in 0..45 {
        let mut at = rng.tile();
        for _ in 0..2 + rng.below(7) {
            let near_base = TEAMS
                .iter()
                .any(|&((x, y), _)| at.x.abs_diff(x) < 6 && at.y.abs_diff(y) < 6);
            if !near_base {
                rock[(at.y * SIZE.x + at.x) as usize] = true;
            }
            let step = [(1, 0), (0, 1), (-1, 0), (0, -1)][rng.below(4) as usize];
            at.x = at.x.saturating_add_signed(step.0).min(SIZE.x - 1);
            at.y = at.y.saturating_add_signed(step.1).min(SIZE.y - 1);
        }
    }
    rock
}

/// Whether `tile` is rock.
pub fn is_rock(rock: &[bool], tile: TilePos) -> bool {
    rock[(tile.y * SIZE.x + tile.x) as usize]
}

/// The map (grass and rocks under a fog overlay, fog growing back, a minimap),
/// the camera, and every team's units.
pub fn setup(mut commands: Commands, assets: Res<AssetServer>, options: Res<Options>) {
    commands.spawn((Camera2d, Transform::from_xyz(CAMERA_X, 0.0, 0.0)));
    let mut rng = Rng::new(options.seed);
    let rock = rocks(&mut rng);
    let map = commands.spawn_empty().id();
    let wall = |x, y| is_rock(&rock, TilePos::new(x, y));
    let grass = |x: u32, y: u32| Color::srgb(0.42, 0.62 + 0.04 * ((x ^ y) % 2) as f32, 0.36);
    let look = |x, y| {
        if wall(x, y) {
            (1, Color::WHITE)
        } else {
            (7, grass(x, y))
        }
    };
    spawn_square_map(
        &mut commands,
        (map, SIZE, assets.load("tiles.png")),
        look,
        wall,
    );
    let regrowth = FogRegrowth::after(REGROWTH);
    commands
        .entity(map)
        .insert((FogOverlay::default(), FogMinimap::default(), regrowth));
    for (index, &(corner, color)) in TEAMS.iter().enumerate() {
        spawn_team(
            &mut commands,
            (map, Team(index as u32)),
            (corner, color),
            &mut rng,
        );
    }
    spawn_specials(&mut commands, map);
    commands.insert_resource(Battlefield(map));
    commands.insert_resource(RockMap(rock));
    commands.insert_resource(rng);
}

/// Which tiles are rock, for the marching units.
#[derive(Resource)]
pub struct RockMap(pub Vec<bool>);

/// A team's headquarters in its corner and five soldiers around it.
fn spawn_team(
    commands: &mut Commands,
    (map, team): (Entity, Team),
    (corner, color): ((u32, u32), Color),
    rng: &mut Rng,
) {
    let at = TilePos::new(corner.0, corner.1);
    let headquarters = (Viewshed::new(8), HidesOutsideView);
    let mut headquarters = commands.spawn((unit((map, team), at, color, 12.0), headquarters));
    if team == Team(0) {
        headquarters.insert(Headquarters);
    }
    for i in 0..5 {
        let at = TilePos::new(
            corner.0.saturating_sub(2) + i,
            corner.1.saturating_sub(2) + i % 2 * 3,
        );
        let goal = rng.tile();
        let soldier = (Viewshed::new(6), Marching { goal }, HidesOutsideView);
        commands.spawn((unit((map, team), at, color, 8.0), soldier));
    }
}

/// Blue's detector and radar tower, and red's cloaked scout, which marches on blue's corner.
fn spawn_specials(commands: &mut Commands, map: Entity) {
    let tower = unit(
        (map, Team(0)),
        TilePos::new(20, 12),
        Color::srgb(0.6, 0.9, 1.0),
        10.0,
    );
    // It holds blue's radar too: enemies within 34 tiles, walls or not.
    commands.spawn((tower, Viewshed::new(7), Detector, Radar::new(34)));
    let red = TEAMS[2].1.with_alpha(0.45);
    let scout = unit((map, Team(2)), TilePos::new(52, 30), red, 8.0);
    let goal = TilePos::new(6, 6);
    commands.spawn((
        scout,
        Viewshed::new(5),
        Cloaked,
        HidesOutsideView,
        Marching { goal },
    ));
}

/// What every unit has: a team that sees with it, a tile, and a square of its colour.
fn unit((map, team): (Entity, Team), at: TilePos, color: Color, side: f32) -> impl Bundle {
    (
        RevealsFog,
        team,
        CanBeSpotted,
        at,
        TilemapId(map),
        Sprite::from_color(color, Vec2::splat(side)),
        Transform::from_translation(centre(at).extend(10.0)),
    )
}

/// The centre of `tile` in the world (the map is centred on the origin).
pub fn centre(tile: TilePos) -> Vec2 {
    let half = Vec2::new(SIZE.x as f32, SIZE.y as f32) / 2.0 - 0.5;
    (Vec2::new(tile.x as f32, tile.y as f32) - half) * TILE
}
