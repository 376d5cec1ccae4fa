//! Light and darkness: a torch on the walls of every room but the caves, a lantern in the
//! player's hand, and the player sees only lit floors (and the tiles right around it). A glow
//! layer warms the tiles the player sees by the light that falls on them.

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::Lighting;
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

/// The player's lantern: a small pale circle.
pub fn lantern() -> LightSource {
    LightSource::new(4)
        .with_color(Color::srgb(1.0, 0.92, 0.75))
        .with_intensity(1.0)
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
    player: Single<Entity, With<Player>>,
) {
    if !looks.is_changed() {
        return;
    }
    let mut player = commands.entity(*player);
    if looks.light {
        player.insert((lantern(), NeedsLight::new(DARK_VISION)));
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
