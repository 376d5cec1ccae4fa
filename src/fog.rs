//! Fog of war: what each [`Team`] of viewers (the [`RevealsFog`] viewers are team 0) sees now
//! on a map and has ever seen, written for the team in [`FogTeam`] into the tile layers that
//! opt in with a [`FogStyle`], and the `Visibility` of [`HideOutsideView`] entities.
//!
//! Each map (root tilemap) gets a [`FogOfWar`] component. Every tile is in one
//! [`FogState`] per team: `Visible` (a member sees it now), `Remembered` (seen before) or
//! `Unexplored`. Tiles are written only when their state changed, and with
//! "set if not equal" semantics, so unchanged tiles are not extracted for rendering again.

use bevy::camera::visibility::Visibility;
use bevy::color::Color;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::{TilemapId, TilemapSize};
use bevy_ecs_tilemap::tiles::{TileColor, TilePos, TileStorage, TileVisible};

use std::collections::BTreeMap;

use crate::components::{HideOutsideView, LayerOf, Layers, RevealsFog, Team, Viewshed};
use crate::opacity::root_of;
use crate::recompute::FogDirty;
use crate::visible::BitRows;

/// The fog state of one tile.
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

/// Whose fog of war is drawn: the [`Team`] whose view and memory the fog layers and the
/// [`HideOutsideView`] entities show (team 0, the [`RevealsFog`] viewers, by default). Change
/// it at run time for a spectator mode or a hot-seat game; the tiles follow at the next update.
#[derive(Resource, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Resource, Default, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FogTeam(pub Team);

/// What one team sees now on one map and what it has ever seen.
#[derive(Clone, Debug, Default)]
pub struct TeamFog {
    width: u32,
    height: u32,
    visible: BitRows,
    explored: BitRows,
}

impl TeamFog {
    fn new(width: u32, height: u32) -> Self {
        let mut fog = Self::default();
        fog.resize(width, height);
        fog
    }

    fn resize(&mut self, width: u32, height: u32) {
        let old_explored = std::mem::take(&mut self.explored);
        let (old_width, old_height) = (self.width, self.height);
        (self.width, self.height) = (width, height);
        self.visible.reset(height, width);
        self.explored.reset(height, width);
        for y in 0..old_height.min(height) {
            for x in 0..old_width.min(width) {
                if old_explored.get(y, x) {
                    self.explored.set(y, x);
                }
            }
        }
    }

    fn contains(&self, tile: TilePos) -> bool {
        tile.x < self.width && tile.y < self.height
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
        self.contains(tile) && self.visible.get(tile.y, tile.x)
    }

    /// Whether `tile` has been seen at least once (tiles seen now included).
    pub fn is_explored(&self, tile: TilePos) -> bool {
        self.contains(tile) && self.explored.get(tile.y, tile.x)
    }

    /// Marks `tile` explored or not. A tile seen now stays explored.
    pub fn set_explored(&mut self, tile: TilePos, explored: bool) {
        if self.contains(tile) {
            let explored = explored || self.visible.get(tile.y, tile.x);
            self.explored.set_to(tile.y, tile.x, explored);
        }
    }

    /// Forgets everything not seen now (a new level, an amnesia potion).
    pub fn forget_all(&mut self) {
        self.explored.clone_from(&self.visible);
    }

    /// Marks every tile explored (a magic map).
    pub fn explore_all(&mut self) {
        for y in 0..self.height {
            for x in 0..self.width {
                self.explored.set(y, x);
            }
        }
    }

    /// The tiles the team's members see now.
    pub fn visible_tiles(&self) -> impl Iterator<Item = TilePos> + '_ {
        self.tiles_in(&self.visible)
    }

    /// The tiles seen at least once.
    pub fn explored_tiles(&self) -> impl Iterator<Item = TilePos> + '_ {
        self.tiles_in(&self.explored)
    }

    fn tiles_in<'a>(&'a self, rows: &'a BitRows) -> impl Iterator<Item = TilePos> + 'a {
        (0..self.height).flat_map(move |y| {
            (0..self.width)
                .filter(move |&x| rows.get(y, x))
                .map(move |x| TilePos { x, y })
        })
    }
}

/// The fog of war of one map, on its root tilemap: for each [`Team`], the union of what its
/// members see now and its explored memory (tiles seen at least once).
///
/// The methods without a team ([`state`](Self::state), [`is_visible`](Self::is_visible),
/// [`forget_all`](Self::forget_all), ...) read and change the team that is drawn
/// ([`FogTeam`], team 0 by default); [`team`](Self::team) and [`team_mut`](Self::team_mut)
/// reach any team. The game may change the memory: `forget_all` for a level reset,
/// `explore_all` for a magic map, `set_explored` for anything finer. Tiles follow at the next
/// update.
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
#[derive(Component, Clone, Debug, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(into = "ExploredMemory", try_from = "ExploredMemory")
)]
pub struct FogOfWar {
    width: u32,
    height: u32,
    teams: BTreeMap<Team, TeamFog>,
    /// The team drawn.
    shown_team: Team,
    /// What the tiles show now, to write only what changes.
    shown_visible: BitRows,
    shown_explored: BitRows,
    /// Every tile of every fog layer must be written (new map, resized map).
    refresh_all: bool,
}

impl FogOfWar {
    fn new(size: TilemapSize) -> Self {
        let mut fog = Self::default();
        fog.resize(size);
        fog
    }

    fn resize(&mut self, size: TilemapSize) {
        (self.width, self.height) = (size.x, size.y);
        for team in self.teams.values_mut() {
            team.resize(size.x, size.y);
        }
        self.shown_visible.reset(size.y, size.x);
        self.shown_explored.reset(size.y, size.x);
        self.refresh_all = true;
    }

    /// The map's size in tiles.
    pub fn size(&self) -> TilemapSize {
        TilemapSize::new(self.width, self.height)
    }

    /// The team whose fog is drawn.
    pub fn shown_team(&self) -> Team {
        self.shown_team
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

    fn shown(&self) -> Option<&TeamFog> {
        self.teams.get(&self.shown_team)
    }

    /// The state of `tile` for the team drawn (tiles off the map are unexplored).
    pub fn state(&self, tile: TilePos) -> FogState {
        self.shown()
            .map_or(FogState::Unexplored, |fog| fog.state(tile))
    }

    /// Whether a member of the team drawn sees `tile` now.
    pub fn is_visible(&self, tile: TilePos) -> bool {
        self.shown().is_some_and(|fog| fog.is_visible(tile))
    }

    /// Whether the team drawn has seen `tile` at least once (tiles seen now included).
    pub fn is_explored(&self, tile: TilePos) -> bool {
        self.shown().is_some_and(|fog| fog.is_explored(tile))
    }

    /// Marks `tile` explored or not for the team drawn. A tile seen now stays explored.
    pub fn set_explored(&mut self, tile: TilePos, explored: bool) {
        let team = self.shown_team;
        self.team_mut(team).set_explored(tile, explored);
    }

    /// The team drawn forgets everything not seen now (a new level, an amnesia potion).
    pub fn forget_all(&mut self) {
        let team = self.shown_team;
        self.team_mut(team).forget_all();
    }

    /// Marks every tile explored for the team drawn (a magic map).
    pub fn explore_all(&mut self) {
        let team = self.shown_team;
        self.team_mut(team).explore_all();
    }

    /// The tiles the team drawn sees now.
    pub fn visible_tiles(&self) -> impl Iterator<Item = TilePos> + '_ {
        self.shown().into_iter().flat_map(TeamFog::visible_tiles)
    }

    /// The tiles the team drawn has seen at least once.
    pub fn explored_tiles(&self) -> impl Iterator<Item = TilePos> + '_ {
        self.shown().into_iter().flat_map(TeamFog::explored_tiles)
    }
}

/// The explored memory of a map, per team: what a save game keeps. Take it with
/// [`FogOfWar::memory`] and put it back with [`FogOfWar::restore`]; with the `serde` feature
/// this is also how a [`FogOfWar`] serializes (deserializing one gives a fog with that memory
/// and nothing seen now: viewers fill that in at the next update).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
        }
    }
}

impl std::error::Error for MemoryError {}

impl FogOfWar {
    /// The explored memory of every team on this map (for a save game).
    pub fn memory(&self) -> ExploredMemory {
        ExploredMemory {
            width: self.width,
            height: self.height,
            teams: self
                .teams
                .iter()
                .map(|(&team, fog)| (team, fog.explored.words().to_vec()))
                .collect(),
        }
    }

    /// Puts back a memory taken with [`memory`](Self::memory) on a map of the same size: each
    /// team in it remembers what it remembered then (plus what it sees now); teams not in it
    /// forget what they do not see now. The tiles follow at the next update.
    pub fn restore(&mut self, memory: &ExploredMemory) -> Result<(), MemoryError> {
        if (memory.width, memory.height) != (self.width, self.height) {
            return Err(MemoryError::SizeMismatch {
                memory: (memory.width, memory.height),
                map: (self.width, self.height),
            });
        }
        let words = self.height as usize * (self.width as usize).div_ceil(64);
        if let Some((team, rows)) = memory.teams.iter().find(|(_, rows)| rows.len() != words) {
            return Err(MemoryError::WrongLength {
                team: *team,
                words: rows.len(),
            });
        }
        for fog in self.teams.values_mut() {
            fog.forget_all();
        }
        for (team, rows) in &memory.teams {
            let fog = self.team_mut(*team);
            for ((explored, &saved), &visible) in fog
                .explored
                .words_mut()
                .iter_mut()
                .zip(rows)
                .zip(fog.visible.words())
            {
                *explored = saved | visible;
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

    fn try_from(memory: ExploredMemory) -> Result<Self, MemoryError> {
        let mut fog = FogOfWar::new(TilemapSize::new(memory.width, memory.height));
        fog.restore(&memory)?;
        Ok(fog)
    }
}

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
/// Put it on any tilemap of a map (the root or a [`LayerOf`] it). [`FogStyle::default`] dims
/// remembered tiles and hides unexplored ones on the layer itself; [`FogStyle::overlay`] is for
/// a dedicated layer of black tiles drawn over the others.
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

/// Gives every root tilemap a [`FogOfWar`] and keeps it sized like the tilemap.
pub(crate) fn track_fog(
    mut commands: Commands,
    new_maps: Query<(Entity, &TilemapSize), (Without<FogOfWar>, Without<LayerOf>)>,
    mut resized: Query<(Entity, &TilemapSize, &mut FogOfWar), Changed<TilemapSize>>,
    stale: Query<Entity, (With<FogOfWar>, With<LayerOf>)>,
    mut dirty: ResMut<FogDirty>,
) {
    for (map, size) in &new_maps {
        commands.entity(map).insert(FogOfWar::new(*size));
        dirty.0.insert(map);
    }
    for (map, size, mut fog) in &mut resized {
        if fog.size() != *size {
            fog.resize(*size);
            dirty.0.insert(map);
        }
    }
    for map in &stale {
        commands.entity(map).remove::<FogOfWar>();
    }
}

type TileLookQuery<'w, 's> = Query<
    'w,
    's,
    (
        Option<&'static mut TileVisible>,
        Option<&'static mut TileColor>,
    ),
>;

/// Rebuilds the team views of the maps that need it and writes what changed into the fog
/// layers, for the team drawn.
pub(crate) fn update_fog(
    mut commands: Commands,
    mut fogs: Query<(Entity, &mut FogOfWar, Option<&Layers>)>,
    members: Query<(&Viewshed, Option<&Team>), With<RevealsFog>>,
    styles: Query<(&TileStorage, Ref<FogStyle>)>,
    shown_team: Res<FogTeam>,
    mut tiles: TileLookQuery,
    mut dirty: ResMut<FogDirty>,
) {
    for (map, mut fog, layers) in &mut fogs {
        let rebuild = dirty.0.remove(&map);
        let styled_changed = std::iter::once(map)
            .chain(layers.into_iter().flat_map(Layers::iter))
            .any(|layer| styles.get(layer).is_ok_and(|(_, style)| style.is_changed()));
        let switched = fog.shown_team != shown_team.0;
        if !rebuild && !fog.is_changed() && !styled_changed && !switched {
            continue;
        }
        let fog = fog.bypass_change_detection();
        fog.shown_team = shown_team.0;
        fog.team_mut(shown_team.0);
        if rebuild {
            for team in fog.teams.values_mut() {
                team.visible.words_mut().fill(0);
            }
            for (viewshed, team) in &members {
                if viewshed.computed.is_some_and(|key| key.map == map) {
                    let team = team.copied().unwrap_or_default();
                    fog.team_mut(team).visible.or_visible(&viewshed.visible);
                }
            }
        }
        // What is seen now is explored.
        for team in fog.teams.values_mut() {
            for (explored, &visible) in team
                .explored
                .words_mut()
                .iter_mut()
                .zip(team.visible.words())
            {
                *explored |= visible;
            }
        }

        for layer in std::iter::once(map).chain(layers.into_iter().flat_map(Layers::iter)) {
            let Ok((storage, style)) = styles.get(layer) else {
                continue;
            };
            if fog.refresh_all || style.is_changed() {
                for y in 0..fog.height {
                    for x in 0..fog.width {
                        let tile = TilePos { x, y };
                        write_tile(
                            storage,
                            tile,
                            style.look(fog.state(tile)),
                            &mut tiles,
                            &mut commands,
                        );
                    }
                }
            } else {
                for_each_changed(fog, |tile| {
                    write_tile(
                        storage,
                        tile,
                        style.look(fog.state(tile)),
                        &mut tiles,
                        &mut commands,
                    );
                });
            }
        }
        fog.refresh_all = false;
        let FogOfWar {
            teams,
            shown_team,
            shown_visible,
            shown_explored,
            ..
        } = fog;
        if let Some(shown) = teams.get(shown_team) {
            shown_visible.clone_from(&shown.visible);
            shown_explored.clone_from(&shown.explored);
        }
    }
    // Maps that no longer exist.
    dirty.0.clear();
}

/// Calls `f` for every tile whose state differs from what the tiles show.
fn for_each_changed(fog: &FogOfWar, mut f: impl FnMut(TilePos)) {
    let Some(shown) = fog.shown() else {
        return;
    };
    let stride = shown.visible.stride();
    let words = shown
        .visible
        .words()
        .iter()
        .zip(fog.shown_visible.words())
        .zip(
            shown
                .explored
                .words()
                .iter()
                .zip(fog.shown_explored.words()),
        );
    for (index, ((v, sv), (e, se))) in words.enumerate() {
        let mut changed = (v ^ sv) | (e ^ se);
        while changed != 0 {
            let bit = changed.trailing_zeros();
            changed &= changed - 1;
            let y = (index / stride) as u32;
            let x = ((index % stride) * 64) as u32 + bit;
            f(TilePos { x, y });
        }
    }
}

fn write_tile(
    storage: &TileStorage,
    tile: TilePos,
    look: TileLook,
    tiles: &mut TileLookQuery,
    commands: &mut Commands,
) {
    let Some(entity) = storage.checked_get(&tile) else {
        return;
    };
    let Ok((visible, color)) = tiles.get_mut(entity) else {
        return;
    };
    match (look.visible, visible) {
        (Some(on), Some(mut visible)) => {
            visible.set_if_neq(TileVisible(on));
        }
        (Some(on), None) => {
            commands.entity(entity).insert(TileVisible(on));
        }
        _ => {}
    }
    match (look.color, color) {
        // TileColor has no PartialEq: compare the colours so unchanged tiles stay unchanged.
        (Some(new), Some(mut color)) if color.0 != new => color.0 = new,
        (Some(new), None) => {
            commands.entity(entity).insert(TileColor(new));
        }
        _ => {}
    }
}

/// Gives tiles spawned (or moved) into a fog layer the look of their state.
pub(crate) fn style_new_tiles(
    mut commands: Commands,
    new_tiles: Query<
        (Entity, &TilePos, &TilemapId),
        Or<(Added<TilePos>, Changed<TilePos>, Changed<TilemapId>)>,
    >,
    styles: Query<(&TileStorage, &FogStyle)>,
    layers: Query<&LayerOf>,
    fogs: Query<&FogOfWar>,
    mut tiles: TileLookQuery,
) {
    for (entity, &tile, &TilemapId(tilemap)) in &new_tiles {
        let Ok((storage, style)) = styles.get(tilemap) else {
            continue;
        };
        if storage.checked_get(&tile) != Some(entity) {
            continue;
        }
        let Ok(fog) = fogs.get(root_of(tilemap, &layers)) else {
            continue;
        };
        write_tile(
            storage,
            tile,
            style.look(fog.state(tile)),
            &mut tiles,
            &mut commands,
        );
    }
}

/// Shows [`HideOutsideView`] entities on revealed tiles and hides the others.
pub(crate) fn hide_outside_view(
    mut entities: Query<(&TilePos, &TilemapId, &mut Visibility), With<HideOutsideView>>,
    layers: Query<&LayerOf>,
    fogs: Query<&FogOfWar>,
) {
    for (&tile, &TilemapId(tilemap), mut visibility) in &mut entities {
        let seen = fogs
            .get(root_of(tilemap, &layers))
            .is_ok_and(|fog| fog.is_visible(tile));
        visibility.set_if_neq(if seen {
            Visibility::Inherited
        } else {
            Visibility::Hidden
        });
    }
}
