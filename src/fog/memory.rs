//! What a save game keeps of the fog: each team's explored tiles ([`ExploredMemory`]), taken
//! with [`FogOfWar::memory`] and put back with [`FogOfWar::restore`]. Everything that comes
//! from a save is checked before anything is allocated or indexed.

use crate::fog::{FogOfWar, Team};
use viewshed_core::bits::words_for;
use viewshed_core::visible::Window;

/// The largest map a memory may describe, in tiles (a 32768 x 32768 map). A larger size in a
/// save is refused before anything is allocated for it.
pub const MAX_MEMORY_TILES: u64 = 1 << 30;

/// The explored memory of a map, per team: what a save game keeps. Take it with
/// [`FogOfWar::memory`] and put it back with [`FogOfWar::restore`]; with the `serde` feature
/// this is also how a [`FogOfWar`] serializes (deserializing one checks the memory and gives a
/// fog with that memory and nothing seen now: viewers fill that in at the next update).
/// Saved with the crate's [`save_format`](crate::support::save_format) (`"format"` beside the fields).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(into = "MemorySave", try_from = "MemorySave")
)]
pub struct ExploredMemory {
    /// The map's width in tiles.
    pub width: u32,
    /// The map's height in tiles.
    pub height: u32,
    /// Per team, the explored tiles row by row (`y` from 0), each row `width.div_ceil(64)`
    /// words, bit `x % 64` of word `x / 64` for tile `x`.
    pub teams: Vec<(Team, Vec<u64>)>,
}

/// Why an [`ExploredMemory`] does not fit a map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MemoryError {
    /// The memory was taken on a map of another size.
    SizeMismatch {
        /// The size the memory is for.
        memory: (u32, u32),
        /// The map's size.
        map: (u32, u32),
    },
    /// A team's rows do not have `height * width.div_ceil(64)` words.
    WrongLength {
        /// The team.
        team: Team,
        /// How many words it has.
        words: usize,
    },
    /// The memory claims a map larger than [`MAX_MEMORY_TILES`].
    TooLarge {
        /// The size the memory claims.
        memory: (u32, u32),
    },
    /// A team's rows have tiles set past the map's width.
    TilesOutsideMap {
        /// The team.
        team: Team,
    },
    /// A team appears twice.
    DuplicateTeam {
        /// The team.
        team: Team,
    },
}

impl std::fmt::Display for MemoryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MemoryError::SizeMismatch { memory, map } => write!(
                f,
                "explored memory of a {}x{} map does not fit a {}x{} map",
                memory.0, memory.1, map.0, map.1
            ),
            MemoryError::WrongLength { team, words } => {
                write!(f, "explored memory of team {} has {words} words", team.0)
            }
            MemoryError::TooLarge { memory } => write!(
                f,
                "explored memory of a {}x{} map is larger than the {MAX_MEMORY_TILES} tiles allowed",
                memory.0, memory.1
            ),
            MemoryError::TilesOutsideMap { team } => write!(
                f,
                "explored memory of team {} has tiles past the map's width",
                team.0
            ),
            MemoryError::DuplicateTeam { team } => {
                write!(f, "explored memory has team {} twice", team.0)
            }
        }
    }
}

impl std::error::Error for MemoryError {}

impl ExploredMemory {
    /// Whether `team` explored tile `(x, y)` of the map (`false` off the map).
    pub fn is_explored(&self, team: Team, x: u32, y: u32) -> bool {
        if x >= self.width || y >= self.height {
            return false;
        }
        let at = y as usize * words_for(self.width) + x as usize / 64;
        let words = self.teams.iter().find(|(t, _)| *t == team);
        words.is_some_and(|(_, words)| words.get(at).is_some_and(|w| w >> (x % 64) & 1 != 0))
    }

    /// Checks that the memory describes a map it can be put on: a size within
    /// [`MAX_MEMORY_TILES`], each team once, with `height * width.div_ceil(64)` words and no
    /// tile set past the width.
    ///
    /// # Errors
    /// The first [`MemoryError`] found.
    pub fn validate(&self) -> Result<(), MemoryError> {
        if u64::from(self.width) * u64::from(self.height) > MAX_MEMORY_TILES {
            return Err(MemoryError::TooLarge {
                memory: (self.width, self.height),
            });
        }
        let stride = words_for(self.width);
        let words = self.height as usize * stride;
        let tail = viewshed_core::bits::low_bits(self.width % u64::BITS);
        for (i, (team, rows)) in self.teams.iter().enumerate() {
            if rows.len() != words {
                return Err(MemoryError::WrongLength {
                    team: *team,
                    words: rows.len(),
                });
            }
            if self.teams[..i].iter().any(|(other, _)| other == team) {
                return Err(MemoryError::DuplicateTeam { team: *team });
            }
            let outside = !self.width.is_multiple_of(u64::BITS)
                && rows.chunks(stride).any(|row| row[stride - 1] & !tail != 0);
            if outside {
                return Err(MemoryError::TilesOutsideMap { team: *team });
            }
        }
        Ok(())
    }
}

impl FogOfWar {
    /// The explored memory of every team on this map (for a save game).
    pub fn memory(&self) -> ExploredMemory {
        ExploredMemory {
            width: self.area.width,
            height: self.area.height,
            teams: self
                .teams
                .iter()
                .map(|(&team, fog)| (team, fog.explored.words().to_vec()))
                .collect(),
        }
    }

    /// Puts back a memory taken with [`memory`](Self::memory) on a map of the same size: each
    /// team in it remembers what it remembered then (plus what it sees now); teams not in it
    /// forget what they do not see now. The tiles follow at the next update. On an error the
    /// fog is left as it was.
    ///
    /// # Errors
    /// [`MemoryError::SizeMismatch`] for a memory of another map size, or the error of
    /// [`ExploredMemory::validate`].
    pub fn restore(&mut self, memory: &ExploredMemory) -> Result<(), MemoryError> {
        if (memory.width, memory.height) != (self.area.width, self.area.height) {
            return Err(MemoryError::SizeMismatch {
                memory: (memory.width, memory.height),
                map: (self.area.width, self.area.height),
            });
        }
        memory.validate()?;
        for fog in self.teams.values_mut() {
            fog.forget_all();
        }
        for (team, rows) in &memory.teams {
            let fog = self.team_mut(*team);
            for (explored, &saved) in fog.explored.words_mut().iter_mut().zip(rows) {
                *explored |= saved;
            }
        }
        Ok(())
    }
}

impl From<FogOfWar> for ExploredMemory {
    fn from(fog: FogOfWar) -> Self {
        fog.memory()
    }
}

impl TryFrom<ExploredMemory> for FogOfWar {
    type Error = MemoryError;

    /// A fog with this memory and nothing seen now. The memory is checked before the fog is
    /// allocated.
    fn try_from(memory: ExploredMemory) -> Result<Self, MemoryError> {
        memory.validate()?;
        let mut fog = FogOfWar::new(Window {
            x: 0,
            y: 0,
            width: memory.width,
            height: memory.height,
        });
        fog.restore(&memory)?;
        Ok(fog)
    }
}

/// A [`FogOfWar`] is saved as its [`ExploredMemory`] (what is seen now is not saved).
#[cfg(feature = "serde")]
impl serde::Serialize for FogOfWar {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.memory().serialize(serializer)
    }
}

/// A [`FogOfWar`] loads from its [`ExploredMemory`], checked before anything is allocated.
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for FogOfWar {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let memory = ExploredMemory::deserialize(deserializer)?;
        FogOfWar::try_from(memory).map_err(serde::de::Error::custom)
    }
}

/// A saved [`ExploredMemory`]: its fields and the save format.
#[cfg(feature = "serde")]
#[derive(serde::Serialize, serde::Deserialize)]
struct MemorySave {
    #[serde(default = "crate::support::save_format::unspecified")]
    format: u32,
    width: u32,
    height: u32,
    teams: Vec<(Team, Vec<u64>)>,
}

#[cfg(feature = "serde")]
impl From<ExploredMemory> for MemorySave {
    fn from(memory: ExploredMemory) -> Self {
        let ExploredMemory {
            width,
            height,
            teams,
        } = memory;
        Self {
            format: crate::support::save_format::SAVE_FORMAT,
            width,
            height,
            teams,
        }
    }
}

#[cfg(feature = "serde")]
impl TryFrom<MemorySave> for ExploredMemory {
    type Error = String;

    fn try_from(save: MemorySave) -> Result<Self, String> {
        crate::support::save_format::check(save.format, "ExploredMemory")?;
        Ok(Self {
            width: save.width,
            height: save.height,
            teams: save.teams,
        })
    }
}
