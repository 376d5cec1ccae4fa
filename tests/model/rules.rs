//! The plain model of the README's rules: what the test spawned and set ([`Model`]: maps,
//! entities, viewers, teams, groups, saved memories), and what the app should show after an
//! update (views, fogs, sightings), worked out without the plugin's code.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use bevy::prelude::*;
use bevy_ecs_tilemap::helpers::hex_grid::neighbors::HexNeighbors;
use bevy_ecs_tilemap::helpers::square_grid::neighbors::Neighbors;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::ExploredMemory;
use bevy_viewshed::FovOptions;
use bevy_viewshed::density::{DENSITY_UNITS, units_of};
use bevy_viewshed::prelude::*;
use bevy_viewshed::{DensityGrid, OpacityGrid, field_of_view, hex_field_of_view};

use crate::common_app;
use crate::ops::{GROUPS, MEMORIES, MapKind, SLOTS, Sight, StyleKind};

#[derive(Clone, Debug)]
pub(crate) struct MapModel {
    pub(crate) entity: Entity,
    /// The size of its tile storage (and of its `TilemapSize` while it has one).
    pub(crate) size: (u32, u32),
    pub(crate) has_size: bool,
    pub(crate) has_storage: bool,
    pub(crate) layer_of: Option<Entity>,
    pub(crate) style: Option<StyleKind>,
    pub(crate) kind: MapKind,
    /// Its `DrawnTeamOverride`.
    pub(crate) drawn: Option<u32>,
    pub(crate) tiles: HashMap<(u32, u32), Entity>,
    /// The tiles its `OpaqueCells` paint opaque (`None`: it has none).
    pub(crate) painted: Option<BTreeSet<(u32, u32)>>,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct ViewerModel {
    pub(crate) sight: Sight,
    pub(crate) reveals: bool,
    pub(crate) team: Option<u32>,
}

/// Any entity the test placed: a tile, a prop (an opaque non-tile entity), a viewer or a
/// target.
#[derive(Clone, Debug, Default)]
pub(crate) struct EntityModel {
    pub(crate) tile: Option<(u32, u32)>,
    pub(crate) tilemap: Option<Entity>,
    pub(crate) opaque: bool,
    /// Its `Density`, if it has one.
    pub(crate) density: Option<f32>,
    pub(crate) disabled: bool,
    pub(crate) spottable: bool,
    pub(crate) hide: bool,
    pub(crate) viewer: Option<ViewerModel>,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct TeamModel {
    pub(crate) visible: HashSet<(u32, u32)>,
    pub(crate) explored: HashSet<(u32, u32)>,
}

#[derive(Clone, Debug)]
pub(crate) struct FogModel {
    pub(crate) size: (u32, u32),
    pub(crate) teams: BTreeMap<u32, TeamModel>,
}

impl FogModel {
    pub(crate) fn state(&self, team: u32, cell: (u32, u32)) -> FogState {
        match self.teams.get(&team) {
            Some(fog) if fog.visible.contains(&cell) => FogState::Visible,
            Some(fog) if fog.explored.contains(&cell) => FogState::Remembered,
            _ => FogState::Unexplored,
        }
    }

    pub(crate) fn visible(&self, team: u32, cell: (u32, u32)) -> bool {
        self.teams
            .get(&team)
            .is_some_and(|fog| fog.visible.contains(&cell))
    }
}

/// A memory taken from the app, and what the model says it holds.
#[derive(Clone, Debug)]
pub(crate) struct Saved {
    pub(crate) memory: ExploredMemory,
    pub(crate) size: (u32, u32),
    pub(crate) explored: BTreeMap<u32, HashSet<(u32, u32)>>,
}

#[derive(Default)]
pub(crate) struct Model {
    pub(crate) maps: [Option<MapModel>; SLOTS],
    pub(crate) dead: [Option<Entity>; SLOTS],
    pub(crate) entities: HashMap<Entity, EntityModel>,
    pub(crate) viewers: Vec<Entity>,
    pub(crate) props: Vec<Entity>,
    pub(crate) targets: Vec<Entity>,
    pub(crate) fog_team: u32,
    /// The fogs as of the last update.
    pub(crate) fogs: HashMap<Entity, FogModel>,
    /// What each viewer spotted as of the last update.
    pub(crate) spotted: HashMap<Entity, BTreeSet<Entity>>,
    pub(crate) memories: [Option<Saved>; MEMORIES],
    /// Entities that stopped and started standing somewhere within this batch.
    pub(crate) blipped: HashSet<Entity>,
    pub(crate) groups: GroupsModel,
}

/// The group entities, which of them has a `LayerGroup`, and the children of each (in their
/// `Children` order: a new child goes last).
#[derive(Default)]
pub(crate) struct GroupsModel {
    pub(crate) entities: [Option<Entity>; GROUPS],
    pub(crate) on: [bool; GROUPS],
    pub(crate) children: HashMap<Entity, Vec<Entity>>,
    /// The tilemaps whose `LayerOf` a group kept as of the last update.
    pub(crate) grouped: HashSet<Entity>,
}

impl GroupsModel {
    pub(crate) fn detach(&mut self, entity: Entity) {
        for children in self.children.values_mut() {
            children.retain(|&c| c != entity);
        }
    }

    pub(crate) fn attach(&mut self, entity: Entity, parent: Option<Entity>) {
        self.detach(entity);
        if let Some(parent) = parent {
            self.children.entry(parent).or_default().push(entity);
        }
    }

    fn is_group(&self, entity: Entity) -> bool {
        (0..GROUPS).any(|g| self.entities[g] == Some(entity) && self.on[g])
    }
}

impl Model {
    pub(crate) fn map(&self, entity: Entity) -> Option<&MapModel> {
        self.maps.iter().flatten().find(|m| m.entity == entity)
    }

    /// The root of `tilemap`'s `LayerOf` chain, `None` for a cycle.
    pub(crate) fn root_of(&self, tilemap: Entity) -> Option<Entity> {
        let mut chain = vec![tilemap];
        let mut at = tilemap;
        while let Some(next) = self.map(at).and_then(|m| m.layer_of) {
            if chain.contains(&next) {
                return None;
            }
            chain.push(next);
            at = next;
        }
        Some(at)
    }

    /// A live tilemap (`TilemapSize` + `TileStorage`) that is no layer: it holds a map's
    /// opacity, viewers and fog.
    fn is_root_tilemap(&self, entity: Entity) -> bool {
        self.map(entity)
            .is_some_and(|m| m.has_size && m.has_storage && m.layer_of.is_none())
    }

    /// The rule of `LayerGroup`: the tilemaps below a group entity with a `LayerGroup` (its
    /// descendants, depth first, children in their order, not into another group) are one
    /// map: the first is the root, the others are `LayerOf` it, whatever `LayerOf` was set by
    /// hand; a tilemap that leaves every group loses its `LayerOf`. Returns each group's root.
    pub(crate) fn settle_groups(&mut self) -> [Option<Entity>; GROUPS] {
        let mut roots = [None; GROUPS];
        let mut wanted: HashMap<Entity, Option<Entity>> = HashMap::new();
        for (g, root) in roots.iter_mut().enumerate() {
            let Some(group) = self.groups.entities[g].filter(|_| self.groups.on[g]) else {
                continue;
            };
            let mut found = Vec::new();
            let mut stack = vec![group];
            while let Some(entity) = stack.pop() {
                if entity != group && self.groups.is_group(entity) {
                    continue;
                }
                if self.map(entity).is_some_and(|m| m.has_storage) {
                    found.push(entity);
                }
                if let Some(children) = self.groups.children.get(&entity) {
                    stack.extend(children.iter().rev());
                }
            }
            *root = found.first().copied();
            for &tilemap in &found {
                wanted.insert(tilemap, root.filter(|&root| root != tilemap));
            }
        }
        for map in self.maps.iter_mut().flatten() {
            if let Some(&layer_of) = wanted.get(&map.entity) {
                map.layer_of = layer_of;
            } else if self.groups.grouped.contains(&map.entity) {
                map.layer_of = None;
            }
        }
        self.groups.grouped = wanted.into_keys().collect();
        roots
    }

    /// The team a root map draws: its `DrawnTeamOverride`, else `DrawnTeam`'s.
    pub(crate) fn drawn_on(&self, root: Entity) -> u32 {
        self.map(root)
            .and_then(|m| m.drawn)
            .unwrap_or(self.fog_team)
    }

    /// The root map and tile an entity stands on (whether or not the root is a tilemap).
    pub(crate) fn stands(&self, entity: &EntityModel) -> Option<(Entity, (u32, u32))> {
        Some((self.root_of(entity.tilemap?)?, entity.tile?))
    }
}

// The rules of each kind of grid ([`MapKind`] is an op's argument, in `ops.rs`).
impl MapKind {
    /// The rule: what a viewer at `at` with `options` sees on a map of this kind whose tiles'
    /// opacity is `grid`. Square and diamond maps: the square field of view. Hexagonal maps:
    /// the hexagonal one in the map's coordinate system. Staggered maps: tile `(x, y)` is cell
    /// `(x, x + y)` of a diamond grid whose other cells are walls; the square field of view
    /// there, its cells that are tiles read back.
    ///
    /// On square, diamond and staggered maps the view is then thinned by the tiles' density
    /// (`DensityGrid::thin`, on the diamond grid for a staggered map); hexagonal maps ignore it.
    fn view(
        self,
        (grid, density): (&OpacityGrid, &DensityGrid),
        at: (u32, u32),
        options: FovOptions,
    ) -> Vec<(u32, u32)> {
        match self {
            MapKind::Square | MapKind::Diamond => {
                let mut view = field_of_view(grid, at, options).expect("origin on map");
                density.thin(at, &mut view);
                view.iter().collect()
            }
            MapKind::Hex(system) => {
                let view = hex_field_of_view(grid, common_app::hex_coords(system), at, options)
                    .expect("origin on map");
                view.iter().collect()
            }
            MapKind::Staggered => {
                let (w, h) = (grid.width(), grid.height());
                let diamond = OpacityGrid::from_fn(w, h + w.saturating_sub(1), |u, v| {
                    v < u || v - u >= h || grid.is_opaque(u, v - u)
                });
                let thick = DensityGrid::from_fn(w, h + w.saturating_sub(1), |u, v| {
                    let tile = (v >= u && v - u < h).then(|| (u, v - u));
                    tile.map_or(0.0, |(x, y)| density.density(x, y))
                });
                let origin = (at.0, at.0 + at.1);
                let mut view =
                    field_of_view(&diamond, origin, options).expect("origin on the diamond grid");
                thick.thin(origin, &mut view);
                view.iter()
                    .filter(|&(u, v)| v >= u && v - u < h)
                    .map(|(u, v)| (u, v - u))
                    .collect()
            }
        }
    }

    /// The neighbours of a tile, as bevy_ecs_tilemap counts them on a map of this kind: 8 on
    /// square and isometric maps (in staggered coordinates on staggered ones), 6 on hexagonal
    /// ones.
    pub(crate) fn neighbours(self, size: (u32, u32), (x, y): (u32, u32)) -> Vec<(u32, u32)> {
        let (tile, size) = (TilePos { x, y }, TilemapSize::new(size.0, size.1));
        let found: Vec<TilePos> = match self {
            MapKind::Hex(system) => HexNeighbors::get_neighboring_positions(&tile, &size, &system)
                .iter()
                .copied()
                .collect(),
            MapKind::Staggered => {
                Neighbors::get_staggered_neighboring_positions(&tile, &size, true)
                    .iter()
                    .copied()
                    .collect()
            }
            MapKind::Square | MapKind::Diamond => {
                Neighbors::get_square_neighboring_positions(&tile, &size, true)
                    .iter()
                    .copied()
                    .collect()
            }
        };
        found.into_iter().map(|t| (t.x, t.y)).collect()
    }
}

/// A viewer's view by the rule: the root map and the tile it stands on, and the tiles it sees.
pub(crate) type View = (Entity, (u32, u32), Vec<(u32, u32)>);

/// Each enabled viewer standing on a tile of a root tilemap: that map and the tiles it sees.
pub(crate) type Views = HashMap<Entity, (Entity, HashSet<(u32, u32)>)>;

// What the app should show after an update.
impl Model {
    /// The opacity of every root tilemap: its enabled opaque entities (tiles, props, opaque
    /// viewers) on the tiles they stand on.
    pub(crate) fn opacity_grids(&self) -> HashMap<Entity, OpacityGrid> {
        let mut grids: HashMap<Entity, OpacityGrid> = HashMap::new();
        for map in self.maps.iter().flatten() {
            if self.is_root_tilemap(map.entity) {
                let mut grid = OpacityGrid::new(map.size.0, map.size.1);
                // Painted tiles beyond the map are no tiles of it.
                for &(x, y) in map.painted.iter().flatten() {
                    if grid.contains(x, y) {
                        grid.set_opaque(x, y, true);
                    }
                }
                grids.insert(map.entity, grid);
            }
        }
        for entity in self.entities.values() {
            if !entity.opaque || entity.disabled {
                continue;
            }
            if let Some((root, (x, y))) = self.stands(entity)
                && let Some(grid) = grids.get_mut(&root)
                && grid.contains(x, y)
            {
                grid.set_opaque(x, y, true);
            }
        }
        grids
    }

    /// The density of every root tilemap: the sum of the `Density` of its enabled entities
    /// on each tile, each in 1/1024ths rounded up (`units_of`), at most one whole.
    pub(crate) fn density_grids(&self) -> HashMap<Entity, DensityGrid> {
        let mut units: HashMap<Entity, HashMap<(u32, u32), u32>> = HashMap::new();
        for entity in self.entities.values() {
            let Some(density) = entity.density.filter(|_| !entity.disabled) else {
                continue;
            };
            if let Some((root, tile)) = self.stands(entity) {
                let sum = units.entry(root).or_default().entry(tile).or_default();
                *sum += u32::from(units_of(density));
            }
        }
        let mut grids = HashMap::new();
        for map in self.maps.iter().flatten() {
            if self.is_root_tilemap(map.entity) {
                let mut grid = DensityGrid::new(map.size.0, map.size.1);
                for (&(x, y), &sum) in units.get(&map.entity).into_iter().flatten() {
                    grid.set_units(x, y, sum.min(DENSITY_UNITS) as u16);
                }
                grids.insert(map.entity, grid);
            }
        }
        grids
    }

    /// What a viewer with `sight` sees: the root map and tile it stands on and its field of
    /// view there, or `None` when it stands on no tile of a root tilemap.
    pub(crate) fn view_of(
        &self,
        (grids, densities): (&HashMap<Entity, OpacityGrid>, &HashMap<Entity, DensityGrid>),
        viewer: &EntityModel,
        sight: Sight,
    ) -> Option<View> {
        self.stands(viewer).and_then(|(root, at)| {
            let grid = grids.get(&root)?;
            let density = densities.get(&root)?;
            let kind = self.map(root).map_or(MapKind::Square, |m| m.kind);
            grid.contains(at.0, at.1)
                .then(|| (root, at, kind.view((grid, density), at, sight.options())))
        })
    }

    /// The fog of every root tilemap: one is kept where it fits across a resize; each team
    /// sees the union of its revealing viewers' views there and has explored what it ever saw.
    pub(crate) fn expected_fogs(&self, views: &Views) -> HashMap<Entity, FogModel> {
        let mut fogs: HashMap<Entity, FogModel> = HashMap::new();
        for map in self.maps.iter().flatten() {
            if !self.is_root_tilemap(map.entity) {
                continue;
            }
            let (w, h) = map.size;
            let mut fog = self.fogs.get(&map.entity).cloned().unwrap_or(FogModel {
                size: map.size,
                teams: BTreeMap::new(),
            });
            fog.size = map.size;
            for team in fog.teams.values_mut() {
                team.visible.clear();
                team.explored.retain(|&(x, y)| x < w && y < h);
            }
            for (viewer, (root, view)) in views {
                let viewer = self.entities[viewer].viewer.unwrap();
                if *root == map.entity && viewer.reveals {
                    let team = fog.teams.entry(viewer.team.unwrap_or(0)).or_default();
                    team.visible.extend(view.iter().copied());
                }
            }
            for team in fog.teams.values_mut() {
                let visible = team.visible.clone();
                team.explored.extend(visible);
            }
            fogs.insert(map.entity, fog);
        }
        fogs
    }

    /// What each viewer spots: the enabled `CanBeSpotted` entities (itself aside) standing on
    /// its root map on a tile it sees.
    pub(crate) fn expected_spotted(&self, views: &Views) -> HashMap<Entity, BTreeSet<Entity>> {
        let mut spotted: HashMap<Entity, BTreeSet<Entity>> = HashMap::new();
        for (&viewer, (root, view)) in views {
            let seen: BTreeSet<Entity> = self
                .entities
                .iter()
                .filter(|&(&target, t)| {
                    target != viewer
                        && t.spottable
                        && !t.disabled
                        && self
                            .stands(t)
                            .is_some_and(|(r, at)| r == *root && view.contains(&at))
                })
                .map(|(&target, _)| target)
                .collect();
            spotted.insert(viewer, seen);
        }
        spotted
    }
}
