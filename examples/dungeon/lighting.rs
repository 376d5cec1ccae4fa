//! Light and darkness: a torch on the walls of every room but the caves, a lantern in the
//! player's hand whose beam points where the player goes (`q` and `e` turn it), and the
//! player sees only lit floors (and the tiles right around it). A glow layer warms the tiles
//! the player sees by the light that falls on them. And a patch of tall grass, which thins
//! sight and light alike.

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::Lighting;
use bevy_viewshed::VisionCone;
use bevy_viewshed::prelude::*;

use crate::looks::Looks;
use crate::map::Dungeon;
use crate::sprites::{tile_center, tiles};
use crate::world::{Level, Player};

/// A torch's light: warm, over the room it faces.
pub fn torch_light() -> LightSource {
    LightSource::new(7)
        .with_color(Color::srgb(1.0, 0.72, 0.38))
        .with_intensity(1.4)
}

/// How wide the player's beam is, in degrees.
pub const BEAM_WIDTH: f64 = 70.0;

/// The player's lantern: a pale beam facing `facing` degrees (counterclockwise from east).
pub fn lantern(facing: f64) -> LightSource {
    LightSource::new(7)
        .with_color(Color::srgb(1.0, 0.92, 0.75))
        .with_intensity(1.0)
        .with_cone(VisionCone::degrees(facing, BEAM_WIDTH))
}

/// Where the player's beam points: where it last stepped, turned by `q` and `e`.
#[derive(Component)]
pub struct Beam {
    /// Degrees counterclockwise from east.
    pub facing: f64,
    /// The player's tile when the beam was last aimed.
    last: TilePos,
}

impl Beam {
    pub fn new(at: TilePos) -> Self {
        Self {
            facing: 0.0,
            last: at,
        }
    }
}

/// The tall grass: a third dense, so three tiles of it hide what lies behind them, and the
/// player sees (and lights) a little way into it.
pub const FOLIAGE: f32 = 1.0 / 3.0;

/// A green tuft on each tile of the grass patch, shown while the player sees that tile.
pub fn spawn_tufts(commands: &mut Commands, dungeon: &Dungeon, terrain: Entity) {
    for &(x, y) in &dungeon.foliage {
        let tile = TilePos { x, y };
        let center = tile_center(tile);
        commands.spawn((
            Sprite::from_color(Color::srgba(0.45, 0.85, 0.35, 0.5), Vec2::new(10.0, 10.0)),
            Transform::from_xyz(center.x, center.y, 1.4),
            tile,
            TilemapId(terrain),
            HidesOutsideView,
        ));
    }
}

/// The beam follows the player's steps and turns 45 degrees with `q` (left) and `e` (right);
/// the lantern's cone is set only when it turned, so a still beam is never recomputed.
pub fn aim_beam(
    keys: Res<ButtonInput<KeyCode>>,
    player: Single<(&TilePos, &mut Beam, Option<&mut LightSource>), With<Player>>,
) {
    let (at, mut beam, light) = player.into_inner();
    if *at != beam.last {
        let (dx, dy) = (
            f64::from(at.x) - f64::from(beam.last.x),
            f64::from(at.y) - f64::from(beam.last.y),
        );
        beam.facing = dy.atan2(dx).to_degrees();
        beam.last = *at;
    }
    if keys.just_pressed(KeyCode::KeyQ) {
        beam.facing += 45.0;
    }
    if keys.just_pressed(KeyCode::KeyE) {
        beam.facing -= 45.0;
    }
    let cone = Some(VisionCone::degrees(beam.facing, BEAM_WIDTH));
    if let Some(mut light) = light
        && light.cone != cone
    {
        light.cone = cone;
    }
}

/// How far the player sees without light: the tiles around it.
pub const DARK_VISION: u32 = 1;

/// A torch: its light shines from the floor in front of the wall it hangs on.
#[derive(Component)]
pub struct TorchFlame;

/// Spawns the torches: a light on the floor tile in front of each, and a flame sprite on its
/// wall, shown while the player sees that wall.
pub fn spawn_torches(commands: &mut Commands, dungeon: &Dungeon, terrain: Entity) {
    for torch in &dungeon.torches {
        let (x, y) = torch.floor;
        commands.spawn((torch_light(), TilePos { x, y }, TilemapId(terrain)));
        let wall = TilePos {
            x: torch.wall.0,
            y: torch.wall.1,
        };
        let center = tile_center(wall);
        commands.spawn((
            TorchFlame,
            Sprite::from_color(Color::srgb(1.0, 0.6, 0.15), Vec2::new(6.0, 8.0)),
            Transform::from_xyz(center.x, center.y, 1.5),
            wall,
            TilemapId(terrain),
            HidesOutsideView,
        ));
    }
}

/// The glow layer above the terrain: plain tiles, hidden until lit and seen.
pub fn glow_tile(bundle: TileBundle) -> TileBundle {
    TileBundle {
        texture_index: TileTextureIndex(tiles::PLAIN),
        visible: TileVisible(false),
        color: TileColor(Color::NONE),
        ..bundle
    }
}

/// `4` turns the light rule on and off: the player carries the lantern and needs light, or
/// sees in the dark as the monsters do.
pub fn apply_light_looks(
    mut commands: Commands,
    looks: Res<Looks>,
    player: Single<(Entity, &Beam), With<Player>>,
) {
    if !looks.is_changed() {
        return;
    }
    let (player, beam) = *player;
    let mut player = commands.entity(player);
    if looks.light {
        player.insert((lantern(beam.facing), NeedsLight::new(DARK_VISION)));
    } else {
        player.remove::<(LightSource, NeedsLight)>();
    }
}

/// Tints the glow layer: on each tile the player's team sees, the colour of the light there,
/// stronger where it is brighter; other tiles clear. Runs when the light or the fog changed,
/// and writes only the tiles whose glow changed.
pub fn draw_glow(
    level: Res<Level>,
    looks: Res<Looks>,
    maps: Query<(Ref<Lighting>, Ref<FogOfWar>)>,
    storages: Query<&TileStorage>,
    mut glow: Query<(&TilePos, &mut TileColor, &mut TileVisible)>,
) {
    let Ok((lighting, fog)) = maps.get(level.terrain) else {
        return;
    };
    if !(lighting.is_changed() || fog.is_changed() || looks.is_changed()) {
        return;
    }
    let Ok(storage) = storages.get(level.glow) else {
        return;
    };
    for entity in storage.iter().flatten() {
        let Ok((tile, mut color, mut visible)) = glow.get_mut(*entity) else {
            continue;
        };
        let shown = looks.light && fog.is_visible(*tile) && lighting.is_lit(*tile);
        let tint = if shown {
            glow_color(lighting.light_at(*tile), lighting.brightness(*tile))
        } else {
            Color::NONE
        };
        visible.set_if_neq(TileVisible(shown));
        if color.0 != tint {
            color.0 = tint;
        }
    }
}

/// A translucent wash of the light's colour, up to a third opaque where it is brightest.
fn glow_color(light: LinearRgba, brightness: f32) -> Color {
    let strongest = light.red.max(light.green).max(light.blue).max(f32::EPSILON);
    let hue = LinearRgba::rgb(
        light.red / strongest,
        light.green / strongest,
        light.blue / strongest,
    );
    Color::from(hue).with_alpha((0.12 + 0.2 * brightness).min(0.33))
}
