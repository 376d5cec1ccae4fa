//! The fog of one map: per [`Team`], what its members see now and what it has ever seen.

use std::collections::BTreeMap;

use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapSize;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::Team;
use viewshed_core::bits::BitRows;
use viewshed_core::visible::Window;

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
#[type_path = "bevy_viewshed"]
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
    /// The map's tiles: tile `(area.x + x, area.y + y)` is row `y` bit `x` below.
    area: Window,
    pub(super) visible: BitRows,
    pub(super) explored: BitRows,
    /// The tiles where the team detects cloaked entities (its `Detector`s' views).
    pub(super) detected: BitRows,
    /// The tiles the game made the team forget since the last update (`forget_all`,
    /// `set_explored(.., false)`): what was remembered on them is forgotten at the update,
    /// even if they are explored again by then.
    forgotten: BitRows,
}

impl TeamFog {
    pub(crate) fn new(area: Window) -> Self {
        Self {
            area,
            visible: BitRows::new(area.height, area.width),
            explored: BitRows::new(area.height, area.width),
            detected: BitRows::new(area.height, area.width),
            forgotten: BitRows::new(area.height, area.width),
        }
    }

    /// Lays the fog out over `area`, keeping the memory of the tiles inside both areas.
    fn resize(&mut self, area: Window) {
        let mut resized = Self::new(area);
        let (from, to) = ((self.area.x, self.area.y), (area.x, area.y));
        resized.explored.copy_from_at(to, &self.explored, from);
        *self = resized;
    }

    /// The tiles forgotten since the last update, if any; none from now on.
    pub(super) fn take_forgotten(&mut self) -> Option<BitRows> {
        let any = self.forgotten.words().iter().any(|&word| word != 0);
        let empty = || BitRows::new(self.area.height, self.area.width);
        any.then(|| std::mem::replace(&mut self.forgotten, empty()))
    }

    /// The row and bit of `tile` (none off the map).
    #[inline]
    fn bit(&self, tile: TilePos) -> Option<(u32, u32)> {
        let area = self.area;
        area.contains(tile.x, tile.y)
            .then(|| (tile.y - area.y, tile.x - area.x))
    }

    /// The state of `tile` for this team (tiles off the map are unexplored).
    #[inline]
    pub fn state(&self, tile: TilePos) -> FogState {
        match self.bit(tile) {
            Some((row, bit)) if self.visible.get(row, bit) => FogState::Visible,
            Some((row, bit)) if self.explored.get(row, bit) => FogState::Remembered,
            _ => FogState::Unexplored,
        }
    }

    /// Whether a member of the team sees `tile` now.
    pub fn is_visible(&self, tile: TilePos) -> bool {
        self.bit(tile)
            .is_some_and(|(row, bit)| self.visible.get(row, bit))
    }

    /// Whether one of the team's [`Detector`](crate::Detector)s sees `tile` now: a
    /// [`Cloaked`](crate::Cloaked) entity there is seen by the team.
    pub fn is_detected(&self, tile: TilePos) -> bool {
        self.bit(tile)
            .is_some_and(|(row, bit)| self.detected.get(row, bit))
    }

    /// The tiles where the team detects cloaked entities, as rows of bits over
    /// [`area`](Self::area).
    pub(super) fn detected_rows(&self) -> &BitRows {
        &self.detected
    }

    /// Whether `tile` has been seen at least once (tiles seen now included).
    pub fn is_explored(&self, tile: TilePos) -> bool {
        self.bit(tile)
            .is_some_and(|(row, bit)| self.explored.get(row, bit))
    }

    /// Marks `tile` explored or not. A tile seen now stays explored.
    pub fn set_explored(&mut self, tile: TilePos, explored: bool) {
        let explored = explored || self.is_visible(tile);
        if let Some((row, bit)) = self.bit(tile) {
            if !explored && self.explored.get(row, bit) {
                self.forgotten.set(row, bit);
            }
            self.explored.set_to(row, bit, explored);
        }
    }

    /// Forgets everything not seen now (a new level, an amnesia potion).
    pub fn forget_all(&mut self) {
        let words = self.forgotten.words_mut().iter_mut();
        let now = self.explored.words().iter().zip(self.visible.words());
        for (forgotten, (&explored, &visible)) in words.zip(now) {
            *forgotten |= explored & !visible;
        }
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

    /// The tiles the game made the team forget since the last update.
    pub(super) fn forgotten_rows(&self) -> &BitRows {
        &self.forgotten
    }

    /// The tiles the team's members see now, as rows of bits over [`area`](Self::area).
    pub(crate) fn visible_rows(&self) -> &BitRows {
        &self.visible
    }

    /// The tiles the team has seen, as rows of bits over [`area`](Self::area).
    pub(crate) fn explored_rows(&self) -> &BitRows {
        &self.explored
    }

    /// The tiles the team's members see now.
    pub fn visible_tiles(&self) -> impl Iterator<Item = TilePos> + '_ {
        let (x0, y0) = (self.area.x, self.area.y);
        self.visible
            .iter_ones()
            .map(move |(y, x)| TilePos::new(x0 + x, y0 + y))
    }

    /// The tiles seen at least once.
    pub fn explored_tiles(&self) -> impl Iterator<Item = TilePos> + '_ {
        let (x0, y0) = (self.area.x, self.area.y);
        self.explored
            .iter_ones()
            .map(move |(y, x)| TilePos::new(x0 + x, y0 + y))
    }

    /// The map's size in tiles.
    pub fn size(&self) -> TilemapSize {
        TilemapSize::new(self.area.width, self.area.height)
    }

    /// The map's tiles (map coordinates: `(0, 0)` and its size for a tilemap, the rectangle
    /// around its chunks for a world).
    pub fn area(&self) -> Window {
        self.area
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
#[type_path = "bevy_viewshed"]
pub struct FogOfWar {
    /// The map's tiles (see [`FogOfWar::area`]).
    pub(super) area: Window,
    pub(super) teams: BTreeMap<Team, TeamFog>,
    /// The team drawn.
    pub(super) drawn_team: Team,
}

impl FogOfWar {
    pub(crate) fn new(area: Window) -> Self {
        let mut fog = Self::default();
        fog.resize(area);
        fog
    }

    /// Lays the fog out over `area`, each team keeping the memory of the tiles inside both.
    pub(crate) fn resize(&mut self, area: Window) {
        self.area = area;
        for team in self.teams.values_mut() {
            team.resize(area);
        }
    }

    /// The map's size in tiles (of its area).
    pub fn size(&self) -> TilemapSize {
        TilemapSize::new(self.area.width, self.area.height)
    }

    /// The map's tiles, in the coordinates every method takes: `(0, 0)` and its size for a
    /// tilemap, the rectangle around its chunks for a [`WorldMap`](crate::WorldMap).
    pub fn area(&self) -> Window {
        self.area
    }

    /// The team whose fog is drawn on this map: its [`DrawnTeamOverride`](crate::DrawnTeamOverride),
    /// else the [`DrawnTeam`](crate::DrawnTeam), as of the last update.
    pub fn drawn_team(&self) -> Team {
        self.drawn_team
    }

    /// The fog of `team` on this map, if the team ever had a member here (or was drawn).
    pub fn team(&self, team: Team) -> Option<&TeamFog> {
        self.teams.get(&team)
    }

    /// The fog of `team` on this map, to change its memory (made empty if it had none).
    pub fn team_mut(&mut self, team: Team) -> &mut TeamFog {
        let area = self.area;
        self.teams.entry(team).or_insert_with(|| TeamFog::new(area))
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

    /// Each team's tiles forgotten since the last update (see [`TeamFog::take_forgotten`]).
    pub(super) fn take_forgotten(&mut self) -> Vec<(Team, BitRows)> {
        let teams = self.teams.iter_mut();
        let forgotten = teams.filter_map(|(&team, fog)| Some((team, fog.take_forgotten()?)));
        forgotten.collect()
    }

    /// Draws `team` from now on (it gets a fog if it had none).
    pub(super) fn draw_team(&mut self, team: Team) {
        self.drawn_team = team;
        self.team_mut(team);
    }

    /// What every team sees now is explored.
    pub(super) fn explore_visible(&mut self) {
        for team in self.teams.values_mut() {
            team.explore_visible();
        }
    }
}
