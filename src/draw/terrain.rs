//! [`TerrainMemory`]: a layer whose tiles, while remembered, show the look (`TileTextureIndex`)
//! they had when the team drawn last saw them.

use std::collections::{BTreeMap, BTreeSet};

use bevy::ecs::query::QueryData;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_ecs_tilemap::map::TilemapId;
use bevy_ecs_tilemap::tiles::{TilePos, TileStorage, TileTextureIndex};
use viewshed_core::visible::Window;

use crate::fog::change_list::ChangedTiles;
use crate::fog::change_list::FogChanges;
use crate::fog::{FogOfWar, FogState, Team};
use crate::layers::layer_of::LayerOf;
use crate::worlds::chunks::{ChunkPlacement, map_of_tilemap};

/// Remembered terrain: on a tilemap of a map (the root or a layer), each team remembers the
/// tiles as it last saw them. A tile whose `TileTextureIndex` the game changes while a team
/// has explored it and does not see it (a door opened by a monster out of sight, a wall blown
/// up behind the player) stays in that team's memory as it was, and while the tile is
/// `Remembered` for the team drawn, the plugin draws it so: it puts the remembered index in
/// the tile's `TileTextureIndex`, and the game's own index back as soon as the team sees the
/// tile again (which also clears the memory of it) or another team is drawn.
///
/// It holds, per [`Team`], only the tiles remembered otherwise than they are: an empty
/// `TerrainMemory::default()` opts a layer in. The game may read it ([`remembered`](Self::remembered))
/// and change it ([`remember`](Self::remember), [`forget`](Self::forget)); with the `serde`
/// feature it is saved with the fog's [`ExploredMemory`](crate::ExploredMemory) in a save
/// game (a `TerrainMemory` put back on its layer is drawn at the next update).
///
/// On such a layer `TileTextureIndex` is what is drawn: a game that reads a tile's kind from
/// it (rather than from its own components) asks [`TerrainMemory::remembered`] first, or
/// keeps its truth elsewhere. Set the index as usual; the plugin sees every change the game
/// makes.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_ecs_tilemap::prelude::*;
/// use bevy_viewshed::prelude::*;
/// use bevy_viewshed::Team;
///
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, ViewshedPlugins::default()));
/// // A corridor with a closed door (index 2) at x = 5, walls at y = 0 and 2.
/// let size = TilemapSize::new(10, 3);
/// let map = app.world_mut().spawn_empty().id();
/// let mut storage = TileStorage::empty(size);
/// for x in 0..10 {
///     for y in 0..3 {
///         let kind = if y != 1 { 1 } else if x == 5 { 2 } else { 0 };
///         let mut tile = app.world_mut().spawn((TilePos { x, y }, TilemapId(map), TileTextureIndex(kind)));
///         if kind != 0 {
///             tile.insert(Opaque);
///         }
///         storage.set(&TilePos { x, y }, tile.id());
///     }
/// }
/// app.world_mut().entity_mut(map).insert((size, storage, TerrainMemory::default()));
/// // The player sees 3 tiles: the door from (3, 1).
/// let player = app.world_mut().spawn((Viewshed::new(3), RevealsFog, TilePos { x: 3, y: 1 }, TilemapId(map))).id();
/// app.update();
/// // The player walks away; out of its sight, the door opens (index 3).
/// *app.world_mut().get_mut::<TilePos>(player).unwrap() = TilePos { x: 0, y: 1 };
/// let door = app.world().get::<TileStorage>(map).unwrap().get(&TilePos { x: 5, y: 1 }).unwrap();
/// app.world_mut().entity_mut(door).remove::<Opaque>();
/// *app.world_mut().get_mut::<TileTextureIndex>(door).unwrap() = TileTextureIndex(3);
/// app.update();
/// // The team still sees it closed, and draws it so.
/// let memory = app.world().get::<TerrainMemory>(map).unwrap();
/// assert_eq!(memory.remembered(Team(0), TilePos { x: 5, y: 1 }), Some(TileTextureIndex(2)));
/// assert_eq!(app.world().get::<TileTextureIndex>(door), Some(&TileTextureIndex(2)));
/// ```
#[derive(Component, Clone, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(opaque)]
#[reflect(Component, Default, Debug)]
#[type_path = "bevy_viewshed"]
pub struct TerrainMemory {
    teams: BTreeMap<Team, BTreeMap<TilePos, u32>>,
}

impl TerrainMemory {
    /// The look `team` remembers at `tile`, if it remembers it otherwise than it is.
    pub fn remembered(&self, team: Team, tile: TilePos) -> Option<TileTextureIndex> {
        let index = self.teams.get(&team)?.get(&tile)?;
        Some(TileTextureIndex(*index))
    }

    /// The tiles `team` remembers otherwise than they are, with the look it remembers.
    pub fn remembered_tiles(
        &self,
        team: Team,
    ) -> impl Iterator<Item = (TilePos, TileTextureIndex)> + '_ {
        self.teams
            .get(&team)
            .into_iter()
            .flatten()
            .map(|(&tile, &index)| (tile, TileTextureIndex(index)))
    }

    /// `team` remembers `tile` as `index` (until it sees it again).
    pub fn remember(&mut self, team: Team, tile: TilePos, index: TileTextureIndex) {
        self.teams.entry(team).or_default().insert(tile, index.0);
    }

    /// `team` forgets how `tile` looked: it is drawn as it is.
    pub fn forget(&mut self, team: Team, tile: TilePos) {
        if let Some(tiles) = self.teams.get_mut(&team) {
            tiles.remove(&tile);
        }
    }

    /// The teams with remembered tiles.
    pub fn teams(&self) -> impl Iterator<Item = Team> + '_ {
        self.teams
            .iter()
            .filter(|(_, tiles)| !tiles.is_empty())
            .map(|(&team, _)| team)
    }

    /// Every tile any team remembers otherwise than it is.
    fn all_tiles(&self) -> impl Iterator<Item = TilePos> + '_ {
        self.teams.values().flat_map(|tiles| tiles.keys().copied())
    }
}

/// The game's own `TileTextureIndex` of every tile of a [`TerrainMemory`] layer (what the tile
/// is, whatever it shows) and the team whose memory the tiles show: the fog's bookkeeping
/// beside `TerrainMemory`.
#[derive(Component, Clone, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(super) struct TerrainTruth {
    size: (u32, u32),
    indices: Vec<u32>,
    drawn: Option<Team>,
    /// The tiles drawn with a remembered look.
    shown: BTreeSet<TilePos>,
}

impl TerrainTruth {
    fn index(&self, tile: TilePos) -> Option<usize> {
        (tile.x < self.size.0 && tile.y < self.size.1)
            .then(|| (tile.y * self.size.0 + tile.x) as usize)
    }
}

/// A layer with a [`TerrainMemory`], as its tiles are drawn.
#[derive(QueryData)]
#[query_data(mutable)]
pub(super) struct TerrainLayer {
    entity: Entity,
    memory: Mut<'static, TerrainMemory>,
    storage: &'static TileStorage,
    truth: Option<&'static mut TerrainTruth>,
}

/// Tiles whose `TileTextureIndex` changed since the last update, and where they are.
type Rekinded<'w, 's> = Query<
    'w,
    's,
    (
        &'static TilePos,
        &'static TilemapId,
        &'static TileTextureIndex,
    ),
    Changed<TileTextureIndex>,
>;

/// The tiles of the layers, the fog of their maps, and what changed.
#[derive(SystemParam)]
pub(super) struct TerrainTiles<'w, 's> {
    commands: Commands<'w, 's>,
    changes: Res<'w, FogChanges>,
    layer_of: Query<'w, 's, &'static LayerOf>,
    placements: Query<'w, 's, &'static ChunkPlacement>,
    transforms: Query<'w, 's, &'static Transform>,
    fogs: Query<'w, 's, (&'static FogOfWar, Option<&'static mut ChunkTerrain>)>,
    tiles: ParamSet<
        'w,
        's,
        (
            Rekinded<'w, 's>,
            Query<'w, 's, &'static mut TileTextureIndex>,
        ),
    >,
}

/// Keeps each [`TerrainMemory`] layer's memory (the looks the game changed out of a team's
/// sight, forgotten once seen) and draws its remembered tiles as the team drawn remembers them.
pub(super) fn remember_terrain(mut layers: Query<TerrainLayer>, mut tiles: TerrainTiles) {
    // The game's writes since the last update (the plugin's own are not changes to it).
    let written: Vec<(Entity, TilePos, u32)> = (tiles.tiles.p0().iter())
        .map(|(tile, layer, index)| (layer.0, *tile, index.0))
        .collect();
    for mut layer in &mut layers {
        let placements = (&tiles.layer_of, &tiles.placements);
        let Some((map, first)) = map_of_tilemap(layer.entity, placements.0, placements.1) else {
            continue;
        };
        let chunk = tiles
            .placements
            .get(map_root(&layer, &tiles))
            .ok()
            .map(|p| p.area());
        let key = chunk.map(|area| (area, layer_key(tiles.transforms.get(layer.entity).ok())));
        let Ok((fog, mut kept)) = tiles.fogs.get_mut(map) else {
            continue;
        };
        let fog = LayerFog { fog, first };
        let size = (layer.storage.size.x, layer.storage.size.y);
        let mut fresh = None;
        let truth = match layer.truth.as_deref_mut() {
            Some(truth) if truth.size == size => truth,
            _ => {
                // A chunk that comes back remembers what its layer's teams remembered.
                if let (Some(key), Some(kept)) = (key, kept.as_deref_mut()) {
                    kept.give_back(key, &mut layer.memory);
                }
                fresh.insert(truth_of(layer.storage, &mut tiles.tiles.p1()))
            }
        };
        let game = written.iter().filter(|(of, ..)| *of == layer.entity);
        let changed = tiles.changes.drawn(map);
        let redraw = update_memory(&mut layer.memory, truth, fog, game, changed);
        let indices = &mut tiles.tiles.p1();
        draw(&layer.memory, truth, fog, (layer.storage, &redraw), indices);
        truth.drawn = Some(fog.drawn_team());
        if let Some(key) = key.filter(|_| !redraw.is_empty() || fresh.is_some()) {
            keep_chunk(&mut tiles.commands, (map, kept), key, &layer.memory);
        }
        if let Some(truth) = fresh {
            tiles.commands.entity(layer.entity).insert(truth);
        }
    }
}

/// The root tilemap of `layer`'s map (a chunk's root, on a world).
fn map_root(layer: &TerrainLayerItem, tiles: &TerrainTiles) -> Entity {
    crate::layers::layer_of::root_of(layer.entity, &tiles.layer_of).unwrap_or(layer.entity)
}

/// What tells a chunk's layers apart, the same each time the chunk is spawned: the layer's
/// height in its chunk (its `Transform`'s `z`, in thousandths).
fn layer_key(transform: Option<&Transform>) -> i64 {
    transform.map_or(0, |t| (t.translation.z * 1000.0).round() as i64)
}

/// Keeps what the teams remember of a chunk's layer in its world, for when the chunk goes and
/// comes back.
fn keep_chunk(
    commands: &mut Commands,
    (world, kept): (Entity, Option<Mut<ChunkTerrain>>),
    key: (Window, i64),
    memory: &TerrainMemory,
) {
    match kept {
        Some(mut kept) => kept.keep(key, memory),
        None => {
            let mut kept = ChunkTerrain::default();
            kept.keep(key, memory);
            commands.entity(world).try_insert(kept);
        }
    }
}

/// What the teams remember of the terrain layers of a world's chunks, by each chunk's tiles in
/// the world and the layer's height in it: given back to a chunk that comes back (streamed
/// out and in again), the drawing's bookkeeping on the world.
#[derive(Component, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(super) struct ChunkTerrain(BTreeMap<LayerKey, TerrainMemory>);

/// A chunk's tiles in the world (x, y, width, height) and its layer's height.
type LayerKey = ((u32, u32, u32, u32), i64);

impl ChunkTerrain {
    fn key((area, layer): (Window, i64)) -> LayerKey {
        ((area.x, area.y, area.width, area.height), layer)
    }

    fn keep(&mut self, key: (Window, i64), memory: &TerrainMemory) {
        if memory.teams().next().is_none() {
            self.0.remove(&Self::key(key));
        } else {
            self.0.insert(Self::key(key), memory.clone());
        }
    }

    /// Gives a layer that comes back, with an empty memory, what it remembered.
    fn give_back(&self, key: (Window, i64), memory: &mut Mut<TerrainMemory>) {
        if memory.teams().next().is_none()
            && let Some(kept) = self.0.get(&Self::key(key))
        {
            **memory = kept.clone();
        }
    }
}

/// A map's fog as one of its layers sees it, in the layer's own tiles: a chunk's tile `(0, 0)`
/// is its world's tile `first`.
#[derive(Clone, Copy)]
struct LayerFog<'a> {
    fog: &'a FogOfWar,
    first: TilePos,
}

impl LayerFog<'_> {
    fn map_tile(&self, tile: TilePos) -> TilePos {
        TilePos::new(self.first.x + tile.x, self.first.y + tile.y)
    }

    fn drawn_team(&self) -> Team {
        self.fog.drawn_team()
    }

    fn state(&self, tile: TilePos) -> FogState {
        self.fog.state(self.map_tile(tile))
    }

    fn teams(&self) -> impl Iterator<Item = Team> + '_ {
        self.fog.teams().map(|(team, _)| team)
    }

    fn is_visible(&self, team: Team, tile: TilePos) -> bool {
        let tile = self.map_tile(tile);
        self.fog.team(team).is_some_and(|fog| fog.is_visible(tile))
    }

    fn is_explored(&self, team: Team, tile: TilePos) -> bool {
        let tile = self.map_tile(tile);
        self.fog.team(team).is_some_and(|fog| fog.is_explored(tile))
    }

    /// Calls `f` with the layer's own tile of each of `changed` (map tiles) that lies on it.
    fn for_each_changed(
        &self,
        changed: &ChangedTiles,
        size: (u32, u32),
        mut f: impl FnMut(TilePos),
    ) {
        let window = Window {
            x: self.first.x,
            y: self.first.y,
            width: size.0,
            height: size.1,
        };
        changed.for_each_in(window, |tile| {
            f(TilePos::new(tile.x - self.first.x, tile.y - self.first.y));
        });
    }
}

/// The game's indices of the tiles of `storage`, as they are now.
fn truth_of(storage: &TileStorage, indices: &mut Query<&mut TileTextureIndex>) -> TerrainTruth {
    let size = (storage.size.x, storage.size.y);
    let mut truth = TerrainTruth {
        size,
        indices: vec![0; size.0 as usize * size.1 as usize],
        drawn: None,
        shown: BTreeSet::new(),
    };
    for y in 0..size.1 {
        for x in 0..size.0 {
            let tile = TilePos { x, y };
            let index = storage.checked_get(&tile).and_then(|e| indices.get(e).ok());
            truth.indices[(y * size.0 + x) as usize] = index.map_or(0, |index| index.0);
        }
    }
    truth
}

/// Brings `memory` up to date with the game's `written` indices and what each team sees now;
/// returns the tiles to draw again: those the game wrote, those whose memory the team drawn
/// lost or whose state `changed`, and every remembered one when the memory, the team drawn or
/// the whole fog changed.
fn update_memory<'a>(
    memory: &mut Mut<TerrainMemory>,
    truth: &mut TerrainTruth,
    fog: LayerFog,
    written: impl Iterator<Item = &'a (Entity, TilePos, u32)>,
    changed: Option<&ChangedTiles>,
) -> Vec<TilePos> {
    let whole = memory.is_changed()
        || truth.drawn != Some(fog.drawn_team())
        || matches!(changed, Some(ChangedTiles::All { .. }));
    let mut redraw: Vec<TilePos> = Vec::new();
    if whole {
        redraw.extend(memory.all_tiles().chain(truth.shown.iter().copied()));
    }
    let memory = memory.bypass_change_detection();
    for &(_, tile, new) in written {
        let Some(at) = truth.index(tile) else {
            continue;
        };
        let old = std::mem::replace(&mut truth.indices[at], new);
        for team in fog.teams() {
            let tiles = memory.teams.entry(team).or_default();
            if fog.is_explored(team, tile) && !fog.is_visible(team, tile) && old != new {
                tiles.entry(tile).or_insert(old);
            }
            if tiles.get(&tile) == Some(&new) {
                tiles.remove(&tile);
            }
        }
        redraw.push(tile);
    }
    forget_seen_again(memory, fog, &mut redraw);
    let drawn = fog.drawn_team();
    if let Some(changed) = changed.filter(|_| !whole) {
        let remembers = memory.teams.get(&drawn);
        fog.for_each_changed(changed, truth.size, |tile| {
            if remembers.is_some_and(|tiles| tiles.contains_key(&tile)) {
                redraw.push(tile);
            }
        });
    }
    redraw
}

/// What a team sees again, it no longer remembers otherwise; the tiles the team drawn sees
/// again go into `redraw`.
fn forget_seen_again(memory: &mut TerrainMemory, fog: LayerFog, redraw: &mut Vec<TilePos>) {
    let drawn = fog.drawn_team();
    for (&team, tiles) in &mut memory.teams {
        tiles.retain(|&tile, _| {
            let seen = fog.is_visible(team, tile);
            if seen && team == drawn {
                redraw.push(tile);
            }
            !seen
        });
    }
}

/// Draws `tiles` of the layer of `storage`: a tile the team drawn remembers otherwise than it is
/// with the look it remembers while it is `Remembered`, else with the game's index.
fn draw(
    memory: &TerrainMemory,
    truth: &mut TerrainTruth,
    fog: LayerFog,
    (storage, tiles): (&TileStorage, &[TilePos]),
    indices: &mut Query<&mut TileTextureIndex>,
) {
    let drawn = fog.drawn_team();
    for &tile in tiles {
        let Some(at) = truth.index(tile) else {
            continue;
        };
        let remembered = (fog.state(tile) == FogState::Remembered)
            .then(|| memory.remembered(drawn, tile))
            .flatten();
        let index = remembered.unwrap_or(TileTextureIndex(truth.indices[at]));
        if remembered.is_some() {
            truth.shown.insert(tile);
        } else {
            truth.shown.remove(&tile);
        }
        let entity = storage.checked_get(&tile);
        if let Some(mut shown) = entity.and_then(|entity| indices.get_mut(entity).ok()) {
            shown.set_if_neq(index);
        }
    }
}

/// A [`TerrainMemory`] saves as its teams and their remembered tiles, `(x, y, index)`.
#[cfg(feature = "serde")]
impl serde::Serialize for TerrainMemory {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let teams = self
            .teams
            .iter()
            .filter(|(_, tiles)| !tiles.is_empty())
            .map(|(&team, tiles)| {
                let tiles = tiles.iter().map(|(t, &index)| (t.x, t.y, index)).collect();
                (team, tiles)
            })
            .collect();
        let save = TerrainSave {
            format: crate::support::save_format::SAVE_FORMAT,
            teams,
        };
        save.serialize(serializer)
    }
}

/// A [`TerrainMemory`] loads from its save; a team twice or a tile twice is an error.
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for TerrainMemory {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let save = TerrainSave::deserialize(deserializer)?;
        crate::support::save_format::check(save.format, "TerrainMemory")
            .map_err(D::Error::custom)?;
        let mut memory = TerrainMemory::default();
        for (team, tiles) in save.teams {
            if memory.teams.contains_key(&team) {
                return Err(D::Error::custom(format!("team {} twice", team.0)));
            }
            let remembered = memory.teams.entry(team).or_default();
            for (x, y, index) in tiles {
                if remembered.insert(TilePos { x, y }, index).is_some() {
                    return Err(D::Error::custom(format!("tile ({x}, {y}) twice")));
                }
            }
        }
        Ok(memory)
    }
}

/// A saved [`TerrainMemory`]: the save format, and per team its tiles.
#[cfg(feature = "serde")]
#[derive(serde::Serialize, serde::Deserialize)]
struct TerrainSave {
    #[serde(default = "crate::support::save_format::unspecified")]
    format: u32,
    teams: Vec<(Team, Vec<SavedTile>)>,
}

/// A remembered tile in a save: `(x, y, index)`.
#[cfg(feature = "serde")]
type SavedTile = (u32, u32, u32);

/// A layer lost its [`TerrainMemory`]: its tiles are drawn as they are again.
pub(super) fn on_terrain_memory_removed(
    removed: On<Remove, TerrainMemory>,
    layers: Query<(&TerrainTruth, &TileStorage)>,
    mut indices: Query<&mut TileTextureIndex>,
    mut commands: Commands,
) {
    let Ok((truth, storage)) = layers.get(removed.entity) else {
        return;
    };
    for &tile in &truth.shown {
        let (Some(at), Some(entity)) = (truth.index(tile), storage.checked_get(&tile)) else {
            continue;
        };
        if let Ok(mut index) = indices.get_mut(entity) {
            index.set_if_neq(TileTextureIndex(truth.indices[at]));
        }
    }
    commands.entity(removed.entity).try_remove::<TerrainTruth>();
}
