//! What the server replicates, registered in the same order on both sides: each team's fog
//! (`TeamView`), then where a piece stands (`Cell`) and what it is (`Piece`).

use bevy::prelude::*;
use bevy_replicon::prelude::*;
use bevy_viewshed::replicon::TeamViewProtocolPlugin;
use serde::{Deserialize, Serialize};

/// The map's size in tiles (the dungeon example's).
pub const MAP_WIDTH: u32 = 80;
pub const MAP_HEIGHT: u32 = 43;

/// The tile a piece stands on, as sent to clients.
#[derive(Component, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    pub x: u32,
    pub y: u32,
}

/// What a piece is.
#[derive(Component, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece {
    /// A unit of a team (a viewer that lifts its team's fog).
    Unit(u32),
    /// A monster: no team, seen or not.
    Monster,
}

/// The replication rules, for the server and the client alike.
pub struct ProtocolPlugin;

impl Plugin for ProtocolPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<TeamViewProtocolPlugin>() {
            app.add_plugins(TeamViewProtocolPlugin);
        }
        app.replicate::<Cell>().replicate::<Piece>();
    }
}
