//! What the teams remember of a world's chunks while they are not loaded: [`WorldMemory`],
//! kept by each chunk's place in the world, given back when a chunk is loaded there again.

use std::collections::BTreeMap;

use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::memory::ExploredMemory;
use crate::fog::{FogOfWar, Team};
use viewshed_core::bits::BitRows;
use viewshed_core::visible::Window;

/// The explored memory of a [`WorldMap`](crate::WorldMap)'s chunks that are not loaded, by
/// each chunk's tiles in the world. Put it on the world entity to keep the memory of chunks
/// that go (streamed out around the player) and give it back when a chunk is loaded at the
/// same place again; without it, a chunk that goes is forgotten.
///
/// Each unloaded chunk costs `teams × height × ceil(width / 64)` words of 8 bytes (a 32x32
/// chunk remembered by four teams: 1 kB) plus its key; a chunk that was never seen costs
/// nothing. With the `serde` feature it saves as its chunks; [`with_loaded`](Self::with_loaded)
/// adds the memory of the chunks loaded now, for a save of the whole world.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_viewshed::prelude::*;
/// use bevy_viewshed::WorldMemory;
///
/// fn spawn_world(mut commands: Commands) {
///     // Chunks that go keep what the teams saw of them.
///     commands.spawn((WorldMap, WorldMemory::default()));
/// }
/// ```
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq, Eq)]
#[reflect(opaque)]
#[reflect(Component, Default, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(into = "WorldMemorySave", try_from = "WorldMemorySave")
)]
#[type_path = "bevy_viewshed"]
pub struct WorldMemory {
    /// Each unloaded chunk's memory, by its tiles in the world `(x, y, width, height)`.
    chunks: BTreeMap<(u32, u32, u32, u32), ExploredMemory>,
}

fn key(area: Window) -> (u32, u32, u32, u32) {
    (area.x, area.y, area.width, area.height)
}

impl WorldMemory {
    /// The memory kept of the unloaded chunk whose tiles in the world are `area`.
    pub fn chunk(&self, area: Window) -> Option<&ExploredMemory> {
        self.chunks.get(&key(area))
    }

    /// The unloaded chunks remembered, by their tiles in the world.
    pub fn chunks(&self) -> impl Iterator<Item = (Window, &ExploredMemory)> + '_ {
        self.chunks.iter().map(|(&(x, y, width, height), memory)| {
            (
                Window {
                    x,
                    y,
                    width,
                    height,
                },
                memory,
            )
        })
    }

    /// Whether `team` explored world tile `tile` of an unloaded chunk kept here.
    pub fn remembers(&self, team: Team, tile: TilePos) -> bool {
        self.chunks().any(|(area, memory)| {
            area.contains(tile.x, tile.y)
                && memory.is_explored(team, tile.x - area.x, tile.y - area.y)
        })
    }

    /// How many unloaded chunks are remembered.
    pub fn len(&self) -> usize {
        self.chunks.len()
    }

    /// Whether no unloaded chunk is remembered.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// This memory and that of the `loaded` chunks (their tiles in the world) taken from the
    /// world's `fog`: everything the teams know of the world, for a save. Put it back on a
    /// world with no chunk loaded yet, and each chunk gets its memory when it is loaded.
    pub fn with_loaded(&self, fog: &FogOfWar, loaded: impl IntoIterator<Item = Window>) -> Self {
        let mut all = self.clone();
        for area in loaded {
            all.keep(fog, area);
        }
        all
    }

    /// Keeps what `fog`'s teams explored in `area` (a chunk that goes), if anything.
    pub(crate) fn keep(&mut self, fog: &FogOfWar, area: Window) {
        let teams: Vec<(Team, Vec<u64>)> = fog
            .teams()
            .filter_map(|(team, team_fog)| {
                let mut rows = BitRows::new(area.height, area.width);
                let from = (team_fog.area().x, team_fog.area().y);
                rows.copy_from_at((area.x, area.y), &team_fog.explored, from);
                (rows.count_ones() > 0).then(|| (team, rows.words().to_vec()))
            })
            .collect();
        if teams.is_empty() {
            self.chunks.remove(&key(area));
            return;
        }
        let memory = ExploredMemory {
            width: area.width,
            height: area.height,
            teams,
        };
        self.chunks.insert(key(area), memory);
    }

    /// Gives `fog`'s teams back what they explored of the chunk loaded at `area`, which is
    /// no longer kept here.
    pub(crate) fn give_back(&mut self, fog: &mut FogOfWar, area: Window) {
        let Some(memory) = self.chunks.remove(&key(area)) else {
            return;
        };
        for (team, words) in memory.teams {
            let Some(rows) = BitRows::from_words(area.height, area.width, words) else {
                continue;
            };
            let team_fog = fog.team_mut(team);
            let at = (team_fog.area().x, team_fog.area().y);
            let mut explored = std::mem::take(&mut team_fog.explored);
            or_at(&mut explored, at, &rows, (area.x, area.y));
            team_fog.explored = explored;
        }
    }
}

/// Sets in `rows` (cell `at` at row 0 bit 0) the bits set in `other` (cell `other_at`).
fn or_at(rows: &mut BitRows, at: (u32, u32), other: &BitRows, other_at: (u32, u32)) {
    let mut both = BitRows::new(rows.rows(), rows.bits_per_row());
    both.copy_from_at(at, other, other_at);
    for (word, &add) in rows.words_mut().iter_mut().zip(both.words()) {
        *word |= add;
    }
}

/// Forgets what `fog`'s teams explored in `area` (a chunk that went: another may come there).
pub(super) fn forget_area(fog: &mut FogOfWar, area: Window) {
    let empty = BitRows::new(area.height, area.width);
    for team in fog.teams.values_mut() {
        let at = (team.area().x, team.area().y);
        team.explored.copy_from_at(at, &empty, (area.x, area.y));
    }
}

/// A saved [`WorldMemory`]: each chunk's tiles in the world and its memory.
#[cfg(feature = "serde")]
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WorldMemorySave {
    #[serde(default = "crate::support::save_format::unspecified")]
    format: u32,
    chunks: Vec<(Window, ExploredMemory)>,
}

#[cfg(feature = "serde")]
impl From<WorldMemory> for WorldMemorySave {
    fn from(memory: WorldMemory) -> Self {
        let chunks = memory.chunks().map(|(area, m)| (area, m.clone())).collect();
        Self {
            format: crate::support::save_format::SAVE_FORMAT,
            chunks,
        }
    }
}

#[cfg(feature = "serde")]
impl TryFrom<WorldMemorySave> for WorldMemory {
    type Error = String;

    /// The chunks of a save, each checked: its memory valid and the size of its area.
    fn try_from(save: WorldMemorySave) -> Result<Self, String> {
        crate::support::save_format::check(save.format, "WorldMemory")?;
        let mut memory = WorldMemory::default();
        for (area, chunk) in save.chunks {
            chunk.validate().map_err(|error| error.to_string())?;
            if (chunk.width, chunk.height) != (area.width, area.height) {
                return Err(format!(
                    "a saved chunk at ({}, {}) is {}x{} but its memory is {}x{}",
                    area.x, area.y, area.width, area.height, chunk.width, chunk.height
                ));
            }
            memory.chunks.insert(key(area), chunk);
        }
        Ok(memory)
    }
}
