//! The fog of one map: per [`Team`], what its members see now and what it has ever seen.

use std::collections::BTreeMap;
use std::ops::Range;

use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapSize;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::Team;
use viewshed_core::bits::BitRows;

/// The fog state of one tile.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// // What the drawn team knows of the tile under the mouse.
/// fn describe(maps: Query<&FogOfWar>, tile: TilePos) {
///     for fog in &maps {
///         match fog.state(tile) {
///             FogState::Visible => info!("in sight"),
///             FogState::Remembered => info!("seen before"),
///             FogState::Unexplored => info!("unknown"),
///         }
///     }
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Reflect)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum FogState {
    /// Never seen by a revealing viewer.
    Unexplored,
    /// Seen before, not now.
    Remembered,
    /// Seen now by at least one revealing viewer.
    Visible,
}

/// What one team sees now on one map and what it has ever seen.
#[derive(Clone, Debug, Default)]
pub struct TeamFog {
    width: u32,
    height: u32,
    pub(crate) visible: BitRows,
    pub(crate) explored: BitRows,
}

impl TeamFog {
    pub(crate) fn new(width: u32, height: u32) -> Self {
        Self {
            width,
            height,
            visible: BitRows::new(height, width),
            explored: BitRows::new(height, width),
        }
    }

    /// Changes the size, keeping the memory of the tiles inside both sizes.
    fn resize(&mut self, width: u32, height: u32) {
        let mut resized = Self::new(width, height);
        resized.explored.copy_overlap(&self.explored);
        *self = resized;
    }

    /// The state of `tile` for this team (tiles off the map are unexplored).
    pub fn state(&self, tile: TilePos) -> FogState {
        if self.is_visible(tile) {
            FogState::Visible
        } else if self.is_explored(tile) {
            FogState::Remembered
        } else {
            FogState::Unexplored
        }
    }

    /// Whether a member of the team sees `tile` now.
    pub fn is_visible(&self, tile: TilePos) -> bool {
        self.visible.get(tile.y, tile.x)
    }

    /// Whether `tile` has been seen at least once (tiles seen now included).
    pub fn is_explored(&self, tile: TilePos) -> bool {
        self.explored.get(tile.y, tile.x)
    }

    /// Marks `tile` explored or not. A tile seen now stays explored.
    pub fn set_explored(&mut self, tile: TilePos, explored: bool) {
        let explored = explored || self.is_visible(tile);
        self.explored.set_to(tile.y, tile.x, explored);
    }

    /// Forgets everything not seen now (a new level, an amnesia potion).
    pub fn forget_all(&mut self) {
        self.explored.clone_from(&self.visible);
    }

    /// Marks every tile explored (a magic map).
    pub fn explore_all(&mut self) {
        self.explored.fill();
    }

    /// What is seen now is explored.
    pub(super) fn explore_visible(&mut self) {
        for (explored, &visible) in self
            .explored
            .words_mut()
            .iter_mut()
            .zip(self.visible.words())
        {
            *explored |= visible;
        }
    }

    /// The tiles the team's members see now.
    pub fn visible_tiles(&self) -> impl Iterator<Item = TilePos> + '_ {
        self.visible.iter_ones().map(|(y, x)| TilePos { x, y })
    }

    /// The tiles seen at least once.
    pub fn explored_tiles(&self) -> impl Iterator<Item = TilePos> + '_ {
        self.explored.iter_ones().map(|(y, x)| TilePos { x, y })
    }

    /// The map's size in tiles.
    pub fn size(&self) -> TilemapSize {
        TilemapSize::new(self.width, self.height)
    }
}

/// The fog of war of one map, on its root tilemap: for each [`Team`], the union of what its
/// members see now and its explored memory (tiles seen at least once).
///
/// The methods without a team ([`state`](Self::state), [`is_visible`](Self::is_visible),
/// [`forget_all`](Self::forget_all), ...) read and change the team that is drawn
/// ([`DrawnTeam`](crate::DrawnTeam), team 0 by default); [`team`](Self::team) and
/// [`team_mut`](Self::team_mut) reach any team. The game may change the memory: `forget_all`
/// for a level reset, `explore_all` for a magic map, `set_explored` for anything finer. Tiles
/// follow at the next update.
///
/// A `FogOfWar` inserted on a map of another size (a save of another level) is resized to the
/// map, keeping the memory where it fits, with a warning.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// fn magic_mapping(mut fog: Query<&mut FogOfWar>) {
///     for mut fog in &mut fog {
///         fog.explore_all();
///     }
/// }
/// ```
///
/// It is `Reflect` as an opaque value (an inspector shows its `Debug` form and can clone it);
/// read and change it through its methods.
#[derive(Component, Reflect, Clone, Debug, Default)]
#[reflect(opaque)]
#[reflect(Component, Default, Debug)]
pub struct FogOfWar {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) teams: BTreeMap<Team, TeamFog>,
    /// The team drawn.
    pub(crate) drawn_team: Team,
}

impl FogOfWar {
    pub(crate) fn new(size: TilemapSize) -> Self {
        let mut fog = Self::default();
        fog.resize(size);
        fog
    }

    pub(crate) fn resize(&mut self, size: TilemapSize) {
        (self.width, self.height) = (size.x, size.y);
        for team in self.teams.values_mut() {
            team.resize(size.x, size.y);
        }
    }

    /// The map's size in tiles.
    pub fn size(&self) -> TilemapSize {
        TilemapSize::new(self.width, self.height)
    }

    /// The team whose fog is drawn on this map: its [`DrawnTeamOverride`](crate::DrawnTeamOverride),
    /// else the [`DrawnTeam`](crate::DrawnTeam), as of the last update.
    pub fn drawn_team(&self) -> Team {
        self.drawn_team
    }

    /// The team whose fog is drawn.
    #[deprecated(note = "use `drawn_team`: \"drawn\" is the one word for it")]
    pub fn shown_team(&self) -> Team {
        self.drawn_team
    }

    /// The fog of `team` on this map, if the team ever had a member here (or was drawn).
    pub fn team(&self, team: Team) -> Option<&TeamFog> {
        self.teams.get(&team)
    }

    /// The fog of `team` on this map, to change its memory (made empty if it had none).
    pub fn team_mut(&mut self, team: Team) -> &mut TeamFog {
        let (width, height) = (self.width, self.height);
        self.teams
            .entry(team)
            .or_insert_with(|| TeamFog::new(width, height))
    }

    /// The teams with a fog on this map.
    pub fn teams(&self) -> impl Iterator<Item = (Team, &TeamFog)> + '_ {
        self.teams.iter().map(|(&team, fog)| (team, fog))
    }

    fn drawn(&self) -> Option<&TeamFog> {
        self.teams.get(&self.drawn_team)
    }

    /// The state of `tile` for the team drawn (tiles off the map are unexplored); for any team,
    /// [`team`](Self::team)`(team)` has the same methods.
    pub fn state(&self, tile: TilePos) -> FogState {
        self.drawn()
            .map_or(FogState::Unexplored, |fog| fog.state(tile))
    }

    /// Whether a member of the team drawn sees `tile` now.
    pub fn is_visible(&self, tile: TilePos) -> bool {
        self.drawn().is_some_and(|fog| fog.is_visible(tile))
    }

    /// Whether the team drawn has seen `tile` at least once (tiles seen now included).
    pub fn is_explored(&self, tile: TilePos) -> bool {
        self.drawn().is_some_and(|fog| fog.is_explored(tile))
    }

    /// Marks `tile` explored or not for the team drawn. A tile seen now stays explored.
    /// For another team (on a server: any team), call it on [`team_mut`](Self::team_mut).
    pub fn set_explored(&mut self, tile: TilePos, explored: bool) {
        let team = self.drawn_team;
        self.team_mut(team).set_explored(tile, explored);
    }

    /// The team drawn forgets everything not seen now (a new level, an amnesia potion).
    /// For another team (on a server: any team), call it on [`team_mut`](Self::team_mut).
    pub fn forget_all(&mut self) {
        let team = self.drawn_team;
        self.team_mut(team).forget_all();
    }

    /// Marks every tile explored for the team drawn (a magic map).
    /// For another team (on a server: any team), call it on [`team_mut`](Self::team_mut).
    pub fn explore_all(&mut self) {
        let team = self.drawn_team;
        self.team_mut(team).explore_all();
    }

    /// The tiles the team drawn sees now.
    pub fn visible_tiles(&self) -> impl Iterator<Item = TilePos> + '_ {
        self.drawn().into_iter().flat_map(TeamFog::visible_tiles)
    }

    /// The tiles the team drawn has seen at least once.
    pub fn explored_tiles(&self) -> impl Iterator<Item = TilePos> + '_ {
        self.drawn().into_iter().flat_map(TeamFog::explored_tiles)
    }

    /// Draws `team` from now on (it gets a fog if it had none).
    pub(super) fn draw_team(&mut self, team: Team) {
        self.drawn_team = team;
        self.team_mut(team);
    }
}

/// The words of the tiles that differ between `now` and `drawn`.
pub(crate) fn differs<'a>(now: &'a BitRows, drawn: &'a BitRows) -> impl Iterator<Item = u64> + 'a {
    now.words()
        .iter()
        .zip(drawn.words())
        .map(|(now, drawn)| now ^ drawn)
}

/// Calls `f` for the tile of each set bit of `words`, rows of `stride` words.
pub(super) fn for_each_set_bit(
    stride: usize,
    words: impl Iterator<Item = u64>,
    mut f: impl FnMut(TilePos),
) {
    for (index, word) in words.enumerate() {
        let (y, x0) = (
            (index / stride) as u32,
            ((index % stride) * viewshed_core::bits::WORD_BITS) as u32,
        );
        viewshed_core::bits::for_each_one(word, |bit| f(TilePos { x: x0 + bit, y }));
    }
}

/// The tiles of a map whose look must be written ([`FogOfWar::tiles_to_write`]).
#[derive(Debug)]
pub(crate) enum TilesToWrite {
    /// Every tile of a map this size.
    All { width: u32, height: u32 },
    /// The tiles whose bit is set.
    Changed(BitRows),
}

impl TilesToWrite {
    /// How many tiles.
    pub(crate) fn count(&self) -> usize {
        match self {
            Self::All { width, height } => *width as usize * *height as usize,
            Self::Changed(changed) => changed.count_ones(),
        }
    }

    /// How many rows they span.
    pub(crate) fn rows(&self) -> u32 {
        match self {
            Self::All { height, .. } => *height,
            Self::Changed(changed) => changed.rows(),
        }
    }

    /// Calls `f` for each of them, row after row.
    pub(crate) fn for_each(&self, f: impl FnMut(TilePos)) {
        self.for_each_in(0..self.rows(), f);
    }

    /// Calls `f` for each of them in `rows`, row after row.
    pub(super) fn for_each_in(&self, rows: Range<u32>, mut f: impl FnMut(TilePos)) {
        let (first, end) = (rows.start, rows.end.min(self.rows()));
        match self {
            Self::All { width, .. } => {
                for y in first..end {
                    for x in 0..*width {
                        f(TilePos { x, y });
                    }
                }
            }
            Self::Changed(changed) if first < end => {
                let stride = changed.stride();
                let words = &changed.words()[first as usize * stride..end as usize * stride];
                for_each_set_bit(stride, words.iter().copied(), |tile| {
                    f(TilePos::new(tile.x, tile.y + first));
                });
            }
            Self::Changed(_) => {}
        }
    }
}
