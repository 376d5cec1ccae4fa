//! How a fog layer's tiles look in each [`FogState`]: [`FogStyle`] and [`TileLook`], and the
//! writing of a look into a tile (only what differs, so unchanged tiles are not extracted for
//! rendering again).

use bevy::color::Color;
use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::Allow;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::{TileColor, TilePos, TileStorage, TileVisible};

use crate::fog::FogState;

/// How a fog layer's tiles look in one [`FogState`]: `None` leaves that property alone.
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
pub struct TileLook {
    /// The tile's `TileVisible`.
    pub visible: Option<bool>,
    /// The tile's `TileColor`.
    pub color: Option<Color>,
}

impl TileLook {
    /// Leaves the tile as it is.
    pub const UNCHANGED: Self = Self {
        visible: None,
        color: None,
    };

    /// Shows the tile with this colour (white: as drawn).
    pub const fn shown(color: Color) -> Self {
        Self {
            visible: Some(true),
            color: Some(color),
        }
    }

    /// Hides the tile.
    pub const HIDDEN: Self = Self {
        visible: Some(false),
        color: None,
    };
}

/// Opts a tilemap layer into fog of war and says how each [`FogState`] looks on it.
///
/// Put it on any tilemap of a map (the root or a [`LayerOf`](crate::LayerOf) it, directly or
/// through other layers). [`FogStyle::default`] dims remembered tiles and hides unexplored
/// ones on the layer itself; [`FogStyle::overlay`] is for a dedicated layer of black tiles
/// drawn over the others.
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component, Default, Debug)]
pub struct FogStyle {
    /// Tiles seen now.
    pub visible: TileLook,
    /// Tiles seen before.
    pub remembered: TileLook,
    /// Tiles never seen.
    pub unexplored: TileLook,
}

impl Default for FogStyle {
    fn default() -> Self {
        Self {
            visible: TileLook::shown(Color::WHITE),
            remembered: TileLook::shown(Color::srgb(0.32, 0.32, 0.42)),
            unexplored: TileLook::HIDDEN,
        }
    }
}

impl FogStyle {
    /// For a fog overlay layer: clear over visible tiles, translucent black over remembered
    /// ones, opaque black over unexplored ones.
    pub fn overlay() -> Self {
        Self {
            visible: TileLook::HIDDEN,
            remembered: TileLook::shown(Color::srgba(0.0, 0.0, 0.0, 0.6)),
            unexplored: TileLook::shown(Color::BLACK),
        }
    }

    /// How a tile in `state` looks.
    pub fn look(&self, state: FogState) -> TileLook {
        match state {
            FogState::Visible => self.visible,
            FogState::Remembered => self.remembered,
            FogState::Unexplored => self.unexplored,
        }
    }
}

/// Writes looks into tiles, changing a component only when its value differs.
#[derive(SystemParam)]
pub(crate) struct TileWriter<'w, 's> {
    commands: Commands<'w, 's>,
    /// Disabled tiles too: they look right when enabled again.
    tiles: Query<
        'w,
        's,
        (
            Option<&'static mut TileVisible>,
            Option<&'static mut TileColor>,
        ),
        Allow<Disabled>,
    >,
}

impl TileWriter<'_, '_> {
    /// Gives the tile at `tile` of `storage` the look `look`.
    pub(crate) fn write(&mut self, storage: &TileStorage, tile: TilePos, look: TileLook) {
        let Some(entity) = storage.checked_get(&tile) else {
            return;
        };
        let Ok((visible, color)) = self.tiles.get_mut(entity) else {
            return;
        };
        match (look.visible, visible) {
            (Some(on), Some(mut visible)) => {
                visible.set_if_neq(TileVisible(on));
            }
            (Some(on), None) => {
                self.commands.entity(entity).insert(TileVisible(on));
            }
            _ => {}
        }
        match (look.color, color) {
            // TileColor has no PartialEq: compare the colours so unchanged tiles stay unchanged.
            (Some(new), Some(mut color)) if color.0 != new => color.0 = new,
            (Some(new), None) => {
                self.commands.entity(entity).insert(TileColor(new));
            }
            _ => {}
        }
    }
}
