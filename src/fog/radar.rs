//! Radar: a [`Radar`] finds the enemies within its radius on its map, walls or not, and each
//! map's [`RadarContacts`] hold where each team's radars (and its givers') found them: tiles,
//! never the entities.

use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::sight::TeamSight;
use crate::fog::{FogOfWar, SharedVision, Team};
use crate::placement::placed::Placed;
use viewshed_core::visible::Window;

/// Finds, without line of sight, the entities of other teams within `radius` tiles of its
/// tile on its map (distance `sqrt(dx² + dy²)` at most `radius`), for its
/// [`Team`] (team 0 without one) and the teams it shares its sight with: their tiles become
/// the team's [`RadarContacts`]. The entities found are those the plugin follows
/// (`CanBeSpotted`, `HidesOutsideView`, `LeavesGhost`, `ReplicatesWhenSeen`, `FogSprite`)
/// with a `Team`; a
/// [`Cloaked`](crate::Cloaked) one is not found.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::{Radar, Team};
/// fn spawn(mut commands: Commands, map: Entity) {
///     commands.spawn((Radar::new(12), Team(0), TilePos::new(4, 4), TilemapId(map)));
/// }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Component, Debug)]
#[require(Placed)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[type_path = "bevy_viewshed"]
pub struct Radar {
    /// How far it finds, in tiles.
    pub radius: u32,
}

impl Radar {
    /// A radar that finds the enemies within `radius` tiles.
    pub fn new(radius: u32) -> Self {
        Self { radius }
    }

    /// Whether `tile` is within its radius of `at`.
    fn reaches(&self, at: TilePos, tile: TilePos) -> bool {
        let (dx, dy) = (
            i64::from(at.x) - i64::from(tile.x),
            i64::from(at.y) - i64::from(tile.y),
        );
        dx * dx + dy * dy <= i64::from(self.radius).pow(2)
    }

    /// The tiles around `at` that may be within its radius.
    fn window(&self, at: TilePos) -> Window {
        let (x, y) = (
            at.x.saturating_sub(self.radius),
            at.y.saturating_sub(self.radius),
        );
        let side = |c: u32| c.saturating_add(self.radius).saturating_add(1);
        Window {
            x,
            y,
            width: side(at.x) - x,
            height: side(at.y) - y,
        }
    }
}

/// Where each team's radars found enemies on this map at the last update: the plugin keeps
/// one on every map with a [`FogOfWar`]. A contact is a tile, never the entity.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_viewshed::{RadarContacts, Team};
/// fn blips(maps: Query<&RadarContacts>) {
///     for contacts in &maps {
///         for tile in contacts.of(Team(0)) {
///             // draw a blip at `tile`
///             let _ = tile;
///         }
///     }
/// }
/// ```
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[type_path = "bevy_viewshed"]
pub struct RadarContacts {
    /// Each team with contacts, and their tiles (sorted by `y`, then `x`).
    teams: Vec<(Team, Vec<TilePos>)>,
}

impl RadarContacts {
    /// The contacts of `team`: the tile of each entity found by its radars and its givers',
    /// once per entity, its own and its givers' entities left out; sorted by row (`y`), then
    /// column (`x`).
    /// The spectator's are those of every team's radars.
    pub fn of(&self, team: Team) -> &[TilePos] {
        let found = self.teams.iter().find(|(t, _)| *t == team);
        found.map_or(&[], |(_, tiles)| tiles.as_slice())
    }
}

/// One entity a radar found: the radar's team, the entity, its team and its tile.
type Found = (Team, Entity, Team, TilePos);

/// Finds again every map's contacts from where the radars and the followed entities stand
/// now (the team sight is up to date), and writes the maps' [`RadarContacts`] that changed.
pub(super) fn find_contacts(
    radars: Query<(&Radar, &Placed, Option<&Team>)>,
    teams: Query<&Team>,
    sight: Res<TeamSight>,
    vision: Res<SharedVision>,
    mut maps: Query<(Entity, &mut RadarContacts), With<FogOfWar>>,
) {
    let mut found: Vec<(Entity, Found)> = Vec::new();
    for (radar, placed, team) in &radars {
        let Some((map, at)) = placed.get() else {
            continue;
        };
        let team = team.copied().unwrap_or_default();
        for (entity, tile) in sight.near(map, radar.window(at)) {
            if let Ok(&of) = teams.get(entity)
                && of != team
                && radar.reaches(at, tile)
            {
                found.push((map, (team, entity, of, tile)));
            }
        }
    }
    found.sort_unstable_by_key(|&(map, _)| map);
    for (map, mut contacts) in &mut maps {
        let start = found.partition_point(|&(m, _)| m < map);
        let end = found.partition_point(|&(m, _)| m <= map);
        let on_map = found[start..end].iter().map(|&(_, f)| f);
        contacts.set_if_neq(gather(on_map, &vision));
    }
}

/// The contacts of each team that receives what `found` holds: the finder's team, the teams
/// it shares its sight with and the spectator, none of them told of its own entities or of
/// those of the teams that share their sight with it.
fn gather(found: impl Iterator<Item = Found>, vision: &SharedVision) -> RadarContacts {
    let mut by_team: Vec<(Team, Entity, TilePos)> = Vec::new();
    for (finder, entity, of, tile) in found {
        let receivers = vision.pairs().filter(|&(giver, _)| giver == finder);
        let receivers = receivers.map(|(_, receiver)| receiver);
        for team in [finder, Team::SPECTATOR].into_iter().chain(receivers) {
            if team != of && !vision.shares(of, team) {
                by_team.push((team, entity, tile));
            }
        }
    }
    by_team.sort_unstable_by_key(|&(team, entity, tile)| (team, tile.y, tile.x, entity));
    by_team.dedup();
    let mut teams: Vec<(Team, Vec<TilePos>)> = Vec::new();
    for (team, _, tile) in by_team {
        match teams.last_mut() {
            Some((last, tiles)) if *last == team => tiles.push(tile),
            _ => teams.push((team, vec![tile])),
        }
    }
    RadarContacts { teams }
}
