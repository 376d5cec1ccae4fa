//! Ghosts: where your team last saw a monster that it does not see now, a dim copy of its
//! sprite stays, until you see that tile again without it (`3` toggles them).

use bevy::prelude::*;
use bevy_viewshed::DrawnTeam;
use bevy_viewshed::prelude::*;

use crate::looks::Looks;
use crate::monsters::Guard;
use crate::sprites::{ActorSprites, tile_center, tiles};
use crate::world::Level;

/// A ghost sprite (respawned whenever the ghosts change).
#[derive(Component)]
pub struct GhostSprite;

/// Redraws the ghosts of the team whose fog is drawn when they change.
pub fn draw_ghosts(
    mut commands: Commands,
    level: Res<Level>,
    looks: Res<Looks>,
    fog_team: Res<DrawnTeam>,
    sprites: Res<ActorSprites>,
    maps: Query<(Ref<LastSeen>, &FogOfWar)>,
    guards: Query<(), With<Guard>>,
    drawn: Query<Entity, With<GhostSprite>>,
) {
    let Ok((last_seen, fog)) = maps.get(level.terrain) else {
        return;
    };
    if !(last_seen.is_changed() || looks.is_changed() || fog_team.is_changed()) {
        return;
    }
    for ghost in &drawn {
        commands.entity(ghost).despawn();
    }
    if !looks.ghosts {
        return;
    }
    for ghost in last_seen.ghosts(fog.drawn_team()) {
        let index = if guards.contains(ghost.entity) {
            tiles::GUARD
        } else {
            tiles::MONSTER
        };
        let mut sprite = sprites.sprite(index);
        sprite.color = Color::srgba(0.75, 0.8, 1.0, 0.4);
        let center = tile_center(ghost.tile);
        commands.spawn((
            GhostSprite,
            sprite,
            Transform::from_xyz(center.x, center.y, 1.8),
        ));
    }
}
