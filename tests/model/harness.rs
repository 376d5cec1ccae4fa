//! The app and its driver: the [`Harness`] spawns and changes entities in a headless app as
//! the ops say, and keeps the [`Model`] of what it did. The checks it runs after every update
//! are in `checks.rs`.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::time::Duration;

use bevy::ecs::entity_disabling::Disabled;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::DrawnTeamOverride;
use bevy_viewshed::Team;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{DrawnTeam, LayerOf};
use proptest::test_runner::TestCaseError;

use crate::ops::{COORD, GROUPS, MapKind, MapRef, Op, Pos, SLOTS, StyleKind};
use crate::rules::{EntityModel, MapModel, Model, Saved, ViewerModel};
use crate::{common_app, skipped};

/// Each update advances the app's clock by this much.
pub(crate) const FRAME: Duration = Duration::from_millis(20);

/// Spotted (true) / LostSight (false) as (viewer, target): from the messages, from the
/// entity events on the viewer and from those on the target.
#[derive(Resource, Default)]
pub(crate) struct Heard {
    pub(crate) messages: Vec<(bool, Entity, Entity)>,
    pub(crate) events: Vec<(bool, Entity, Entity)>,
    pub(crate) on_targets: Vec<(bool, Entity, Entity)>,
}

impl Heard {
    /// An entity event `sighting` triggered `on` an entity: the viewer or the target.
    fn hear(&mut self, sighting: (bool, Entity, Entity), on: Entity) {
        if on == sighting.1 {
            self.events.push(sighting);
        } else {
            assert_eq!(
                on, sighting.2,
                "a sighting is triggered on its viewer or target"
            );
            self.on_targets.push(sighting);
        }
    }
}

fn read_messages(
    mut spotted: MessageReader<Spotted>,
    mut lost: MessageReader<LostSight>,
    mut heard: ResMut<Heard>,
) {
    let heard = &mut heard.messages;
    heard.extend(spotted.read().map(|m| (true, m.viewer, m.target)));
    heard.extend(lost.read().map(|m| (false, m.viewer, m.target)));
}

pub(crate) struct Harness {
    pub(crate) app: App,
    pub(crate) model: Model,
    /// An entity that is not a tilemap.
    rock: Entity,
    /// Per fog-layer tile: the look it should reach (state, soft edge, style) and for how
    /// many updates that has held.
    pub(crate) looks: HashMap<Entity, ((FogState, bool, StyleKind), u32)>,
    /// The colours of the tiles of layers whose `FogStyle` was removed: nobody writes them
    /// any more, even mid-fade.
    pub(crate) frozen: HashMap<Entity, Option<Color>>,
}

fn wall(seed: u64, x: u32, y: u32) -> bool {
    if seed == 0 {
        return false;
    }
    let mut h = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (u64::from(x) << 32 | u64::from(y));
    h = (h ^ (h >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^= h >> 32;
    h.is_multiple_of(4)
}

impl Harness {
    pub(crate) fn new() -> Self {
        let mut app = common_app::app();
        app.init_resource::<Heard>()
            .add_systems(PostUpdate, read_messages.after(ViewshedSystems))
            .add_observer(|e: On<Spotted>, mut heard: ResMut<Heard>| {
                heard.hear((true, e.viewer, e.target), e.on);
            })
            .add_observer(|e: On<LostSight>, mut heard: ResMut<Heard>| {
                heard.hear((false, e.viewer, e.target), e.on);
            });
        let rock = app.world_mut().spawn(Transform::default()).id();
        let mut model = Model::default();
        for g in 0..GROUPS {
            let group = app.world_mut().spawn(LayerGroup::default()).id();
            model.groups.entities[g] = Some(group);
            model.groups.on[g] = true;
        }
        app.insert_resource(TimeUpdateStrategy::ManualDuration(FRAME));
        Self {
            app,
            model,
            rock,
            looks: HashMap::new(),
            frozen: HashMap::new(),
        }
    }

    pub(crate) fn world(&mut self) -> &mut World {
        self.app.world_mut()
    }

    fn live_map(&self, slot: usize) -> Option<Entity> {
        self.model.maps[slot % SLOTS].as_ref().map(|m| m.entity)
    }

    fn resolve(&self, map: MapRef) -> Entity {
        match map {
            MapRef::Live(s) => self
                .live_map(s)
                .or_else(|| (0..SLOTS).find_map(|s| self.live_map(s)))
                .or(self.model.dead[s % SLOTS]),
            MapRef::Dead(s) => self.model.dead[s % SLOTS].or(self.live_map(s)),
            MapRef::NotAMap => None,
        }
        .unwrap_or(self.rock)
    }

    fn pick(list: &[Entity], i: usize) -> Option<Entity> {
        (!list.is_empty()).then(|| list[i % list.len()])
    }

    /// Paints `(x, y)` of the map in `slot` in its `OpaqueCells`, giving it one if needed.
    fn paint_cell(&mut self, slot: usize, (x, y): (u32, u32), opaque: bool) {
        let Some(map) = self.model.maps[slot % SLOTS].as_mut() else {
            return;
        };
        let painted = map.painted.get_or_insert_default();
        if opaque {
            painted.insert((x, y));
        } else {
            painted.remove(&(x, y));
        }
        let mut entity = self.app.world_mut().entity_mut(map.entity);
        if !entity.contains::<OpaqueCells>() {
            entity.insert(OpaqueCells::from_fn(COORD, COORD, |_, _| false));
        }
        let mut cells = entity.get_mut::<OpaqueCells>().expect("just given");
        cells.set(TilePos { x, y }, opaque);
    }

    fn tile_at(&self, slot: usize, (x, y): (u32, u32)) -> Option<Entity> {
        let map = self.model.maps[slot % SLOTS].as_ref()?;
        map.tiles.get(&(x % map.size.0, y % map.size.1)).copied()
    }

    fn entity(&mut self, entity: Entity) -> &mut EntityModel {
        self.model
            .entities
            .get_mut(&entity)
            .expect("modelled entity")
    }

    fn toggle_disabled(&mut self, entity: Entity) {
        let disabled = !self.model.entities[&entity].disabled;
        self.entity(entity).disabled = disabled;
        if disabled {
            self.world().entity_mut(entity).insert(Disabled);
        } else {
            self.world().entity_mut(entity).remove::<Disabled>();
        }
    }

    /// Gives `entity` this `Density` (in place when it has one), or takes it away.
    fn set_density(&mut self, entity: Entity, density: Option<f32>) {
        let had = self.entity(entity).density.is_some();
        self.entity(entity).density = density;
        let mut entity = self.world().entity_mut(entity);
        match density {
            Some(d) if had => entity.get_mut::<Density>().unwrap().0 = d,
            Some(d) => {
                entity.insert(Density(d));
            }
            None => {
                entity.remove::<Density>();
            }
        }
    }

    fn toggle_opaque(&mut self, entity: Entity) {
        let opaque = !self.model.entities[&entity].opaque;
        self.entity(entity).opaque = opaque;
        if opaque {
            self.world().entity_mut(entity).insert(Opaque);
        } else {
            self.world().entity_mut(entity).remove::<Opaque>();
        }
    }

    /// Where `at` lands on `tilemap`.
    fn wrap(&self, tilemap: Option<Entity>, at: Pos) -> (u32, u32) {
        match tilemap.and_then(|t| self.model.map(t)) {
            Some(map) if !at.raw => (at.x % map.size.0, at.y % map.size.1),
            _ => (at.x, at.y),
        }
    }

    fn place(&mut self, entity: Entity, at: Pos) {
        let (x, y) = self.wrap(self.model.entities[&entity].tilemap, at);
        self.entity(entity).tile = Some((x, y));
        self.world().entity_mut(entity).insert(TilePos { x, y });
    }

    fn unplace(&mut self, entity: Entity) {
        self.entity(entity).tile = None;
        self.model.blipped.insert(entity);
        self.world().entity_mut(entity).remove::<TilePos>();
    }

    fn set_map(&mut self, entity: Entity, map: MapRef) {
        let map = self.resolve(map);
        self.entity(entity).tilemap = Some(map);
        self.world().entity_mut(entity).insert(TilemapId(map));
    }

    fn despawn(&mut self, entity: Entity) {
        self.model.entities.remove(&entity);
        self.model.viewers.retain(|&e| e != entity);
        self.model.props.retain(|&e| e != entity);
        self.model.targets.retain(|&e| e != entity);
        self.world().despawn(entity);
    }

    fn spawn_tile(&mut self, map: Entity, (x, y): (u32, u32), opaque: bool) -> Entity {
        let tile = self
            .world()
            .spawn((
                TilePos { x, y },
                TilemapId(map),
                TileVisible(true),
                TileColor(Color::WHITE),
            ))
            .id();
        if opaque {
            self.world().entity_mut(tile).insert(Opaque);
        }
        self.model.entities.insert(
            tile,
            EntityModel {
                tile: Some((x, y)),
                tilemap: Some(map),
                opaque,
                ..default()
            },
        );
        tile
    }

    fn storage(size: (u32, u32), tiles: &HashMap<(u32, u32), Entity>) -> TileStorage {
        let mut storage = TileStorage::empty(TilemapSize::new(size.0, size.1));
        for (&(x, y), &tile) in tiles {
            storage.set(&TilePos { x, y }, tile);
        }
        storage
    }

    fn despawn_map(&mut self, slot: usize) {
        let Some(map) = self.model.maps[slot].take() else {
            return;
        };
        for &tile in map.tiles.values() {
            self.despawn(tile);
        }
        self.world().despawn(map.entity);
        self.model.groups.detach(map.entity);
        self.model.groups.grouped.remove(&map.entity);
        // Bevy removes `LayerOf` from the layers of a despawned tilemap.
        for other in self.model.maps.iter_mut().flatten() {
            if other.layer_of == Some(map.entity) {
                other.layer_of = None;
            }
        }
        self.model.dead[slot] = Some(map.entity);
    }

    // -----------------------------------------------------------------------------------------
    // The ops

    /// Applies an op to the app and to the model (an `Update` runs the checks).
    pub(crate) fn apply(&mut self, op: &Op) -> Result<(), TestCaseError> {
        if skipped(op.name()) {
            return Ok(());
        }
        match *op {
            Op::Nop => {}
            Op::Update => return self.update(),
            Op::SpawnViewer { .. }
            | Op::DespawnViewer(..)
            | Op::MoveViewer(..)
            | Op::UnplaceViewer(..)
            | Op::SetViewerMap(..)
            | Op::SetSight(..)
            | Op::ToggleViewerDisabled(..)
            | Op::SetRevealsFog(..)
            | Op::SetTeam(..)
            | Op::SwitchDrawnTeam(..) => self.apply_viewer_op(op),
            Op::ToggleTileOpaque(..)
            | Op::PaintCell(..)
            | Op::RemovePaint(..)
            | Op::ToggleTileDisabled(..)
            | Op::DespawnTile(..)
            | Op::SpawnProp(..)
            | Op::MoveProp(..)
            | Op::SetPropMap(..)
            | Op::TogglePropOpaque(..)
            | Op::TogglePropDisabled(..)
            | Op::DespawnProp(..)
            | Op::SetTileDensity(..)
            | Op::SetPropDensity(..) => self.apply_opacity_op(op),
            Op::SpawnTarget { .. }
            | Op::MoveTarget(..)
            | Op::SetTargetMap(..)
            | Op::UnplaceTarget(..)
            | Op::ToggleSpottable(..)
            | Op::ToggleTargetDisabled(..)
            | Op::DespawnTarget(..) => self.apply_target_op(op),
            Op::SpawnMap { .. }
            | Op::DespawnMap(..)
            | Op::ResizeMap(..)
            | Op::StripMap(..)
            | Op::SetLayerOf(..)
            | Op::SetFogStyle(..)
            | Op::SetMapType(..)
            | Op::SetDrawnTeam(..) => self.apply_map_op(op),
            Op::SetGroup(..) | Op::ToggleLayerGroup(..) | Op::NestGroups(..) => {
                self.apply_group_op(op);
            }
            Op::TakeMemory(slot, memory) => return self.take_memory(slot, memory),
            Op::RestoreMemory(slot, memory) => return self.restore_memory(slot, memory),
        }
        Ok(())
    }

    /// The ops on viewers, and `DrawnTeam`.
    fn apply_viewer_op(&mut self, op: &Op) {
        let viewer = |h: &Self, i: usize| Self::pick(&h.model.viewers, i);
        match *op {
            Op::SpawnViewer {
                map,
                at,
                sight,
                reveals,
                team,
                spottable,
                opaque,
            } => {
                let viewer = ViewerModel {
                    sight,
                    reveals,
                    team,
                };
                self.spawn_viewer(map, at, viewer, spottable, opaque);
            }
            Op::DespawnViewer(i) => {
                if let Some(v) = viewer(self, i) {
                    self.despawn(v);
                }
            }
            Op::MoveViewer(i, at) => {
                if let Some(v) = viewer(self, i) {
                    self.place(v, at);
                }
            }
            Op::UnplaceViewer(i) => {
                if let Some(v) = viewer(self, i) {
                    self.unplace(v);
                }
            }
            Op::SetViewerMap(i, map) => {
                if let Some(v) = viewer(self, i) {
                    self.set_map(v, map);
                }
            }
            Op::SetSight(i, sight) => {
                if let Some(v) = viewer(self, i) {
                    self.entity(v).viewer.as_mut().unwrap().sight = sight;
                    self.world().entity_mut(v).insert(sight.viewshed());
                }
            }
            Op::ToggleViewerDisabled(i) => {
                if let Some(v) = viewer(self, i) {
                    self.model.blipped.insert(v);
                    self.toggle_disabled(v);
                }
            }
            Op::SetRevealsFog(i, on) => {
                if let Some(v) = viewer(self, i) {
                    self.set_reveals_fog(v, on);
                }
            }
            Op::SetTeam(i, team, in_place) => {
                if let Some(v) = viewer(self, i) {
                    self.set_team(v, team, in_place);
                }
            }
            Op::SwitchDrawnTeam(team) => {
                self.model.fog_team = team;
                self.world().insert_resource(DrawnTeam(Team(team)));
            }
            _ => unreachable!("not a viewer op: {op:?}"),
        }
    }

    fn spawn_viewer(
        &mut self,
        map: MapRef,
        at: Pos,
        viewer: ViewerModel,
        spottable: bool,
        opaque: bool,
    ) {
        let map = self.resolve(map);
        let (x, y) = self.wrap(Some(map), at);
        let mut entity =
            self.world()
                .spawn((viewer.sight.viewshed(), TilePos { x, y }, TilemapId(map)));
        if viewer.reveals {
            entity.insert(RevealsFog);
        }
        if let Some(team) = viewer.team {
            entity.insert(Team(team));
        }
        if spottable {
            entity.insert(CanBeSpotted);
        }
        if opaque {
            entity.insert(Opaque);
        }
        let entity = entity.id();
        self.model.entities.insert(
            entity,
            EntityModel {
                tile: Some((x, y)),
                tilemap: Some(map),
                opaque,
                spottable,
                viewer: Some(viewer),
                ..default()
            },
        );
        self.model.viewers.push(entity);
        if spottable {
            self.model.targets.push(entity);
        }
    }

    fn set_reveals_fog(&mut self, v: Entity, on: bool) {
        self.entity(v).viewer.as_mut().unwrap().reveals = on;
        if on {
            self.world().entity_mut(v).insert(RevealsFog);
        } else {
            self.world().entity_mut(v).remove::<RevealsFog>();
        }
    }

    /// A `Team` inserted or removed, or (`in_place`) the one the viewer has changed in place.
    fn set_team(&mut self, v: Entity, team: Option<u32>, in_place: bool) {
        self.entity(v).viewer.as_mut().unwrap().team = team;
        let mut entity = self.world().entity_mut(v);
        match (team, entity.get_mut::<Team>()) {
            (Some(team), Some(mut now)) if in_place => now.0 = team,
            (Some(team), _) => {
                entity.insert(Team(team));
            }
            (None, _) => {
                entity.remove::<Team>();
            }
        }
    }

    /// The ops on tiles and props (opaque entities that are not tiles).
    fn apply_opacity_op(&mut self, op: &Op) {
        let prop = |h: &Self, i: usize| Self::pick(&h.model.props, i);
        match *op {
            Op::ToggleTileOpaque(slot, at) => {
                if let Some(tile) = self.tile_at(slot, at) {
                    self.toggle_opaque(tile);
                }
            }
            Op::PaintCell(slot, at, opaque) => self.paint_cell(slot, at, opaque),
            Op::RemovePaint(slot) => {
                if let Some(map) = self.model.maps[slot % SLOTS].as_mut() {
                    map.painted = None;
                    self.app
                        .world_mut()
                        .entity_mut(map.entity)
                        .remove::<OpaqueCells>();
                }
            }
            Op::ToggleTileDisabled(slot, at) => {
                if let Some(tile) = self.tile_at(slot, at) {
                    self.toggle_disabled(tile);
                }
            }
            Op::DespawnTile(slot, at) => {
                if let Some(tile) = self.tile_at(slot, at) {
                    self.despawn_tile(slot, tile);
                }
            }
            Op::SpawnProp(map, at) => self.spawn_prop(map, at),
            Op::MoveProp(i, at) => {
                if let Some(p) = prop(self, i) {
                    self.place(p, at);
                }
            }
            Op::SetPropMap(i, map) => {
                if let Some(p) = prop(self, i) {
                    self.set_map(p, map);
                }
            }
            Op::TogglePropOpaque(i) => {
                if let Some(p) = prop(self, i) {
                    self.toggle_opaque(p);
                }
            }
            Op::TogglePropDisabled(i) => {
                if let Some(p) = prop(self, i) {
                    self.toggle_disabled(p);
                }
            }
            Op::DespawnProp(i) => {
                if let Some(p) = prop(self, i) {
                    self.despawn(p);
                }
            }
            Op::SetTileDensity(slot, at, density) => {
                if let Some(tile) = self.tile_at(slot, at) {
                    self.set_density(tile, density);
                }
            }
            Op::SetPropDensity(i, density) => {
                if let Some(p) = prop(self, i) {
                    self.set_density(p, density);
                }
            }
            _ => unreachable!("not a tile or prop op: {op:?}"),
        }
    }

    /// Despawns a tile of the map in `slot`, out of its `TileStorage` first.
    fn despawn_tile(&mut self, slot: usize, tile: Entity) {
        let cell = self.model.entities[&tile].tile.unwrap();
        let map = self.model.maps[slot % SLOTS].as_mut().unwrap();
        map.tiles.remove(&cell);
        let map = map.entity;
        if let Some(mut storage) = self.world().get_mut::<TileStorage>(map) {
            storage.remove(&TilePos {
                x: cell.0,
                y: cell.1,
            });
        }
        self.despawn(tile);
    }

    fn spawn_prop(&mut self, map: MapRef, at: Pos) {
        let map = self.resolve(map);
        let (x, y) = self.wrap(Some(map), at);
        let prop = self
            .world()
            .spawn((Opaque, TilePos { x, y }, TilemapId(map)))
            .id();
        self.model.entities.insert(
            prop,
            EntityModel {
                tile: Some((x, y)),
                tilemap: Some(map),
                opaque: true,
                ..default()
            },
        );
        self.model.props.push(prop);
    }

    /// The ops on spottable targets.
    fn apply_target_op(&mut self, op: &Op) {
        let target = |h: &Self, i: usize| Self::pick(&h.model.targets, i);
        match *op {
            Op::SpawnTarget { map, at, hide } => self.spawn_target(map, at, hide),
            Op::MoveTarget(i, at) => {
                if let Some(t) = target(self, i) {
                    self.place(t, at);
                }
            }
            Op::SetTargetMap(i, map) => {
                if let Some(t) = target(self, i) {
                    self.set_map(t, map);
                }
            }
            Op::UnplaceTarget(i) => {
                if let Some(t) = target(self, i) {
                    self.unplace(t);
                }
            }
            Op::ToggleSpottable(i) => {
                if let Some(t) = target(self, i) {
                    self.toggle_spottable(t);
                }
            }
            Op::ToggleTargetDisabled(i) => {
                if let Some(t) = target(self, i) {
                    self.model.blipped.insert(t);
                    self.toggle_disabled(t);
                }
            }
            Op::DespawnTarget(i) => {
                if let Some(t) = target(self, i) {
                    self.despawn(t);
                }
            }
            _ => unreachable!("not a target op: {op:?}"),
        }
    }

    fn spawn_target(&mut self, map: MapRef, at: Pos, hide: bool) {
        let map = self.resolve(map);
        let (x, y) = self.wrap(Some(map), at);
        let mut entity = self
            .world()
            .spawn((CanBeSpotted, TilePos { x, y }, TilemapId(map)));
        if hide {
            entity.insert(HidesOutsideView);
        }
        let entity = entity.id();
        self.model.entities.insert(
            entity,
            EntityModel {
                tile: Some((x, y)),
                tilemap: Some(map),
                spottable: true,
                hide,
                ..default()
            },
        );
        self.model.targets.push(entity);
    }

    fn toggle_spottable(&mut self, t: Entity) {
        self.model.blipped.insert(t);
        let spottable = !self.model.entities[&t].spottable;
        self.entity(t).spottable = spottable;
        if spottable {
            self.world().entity_mut(t).insert(CanBeSpotted);
        } else {
            self.world().entity_mut(t).remove::<CanBeSpotted>();
        }
    }

    /// The ops on tilemaps (a slot with no live tilemap: nothing, but `SpawnMap`).
    fn apply_map_op(&mut self, op: &Op) {
        match *op {
            Op::SpawnMap {
                slot,
                size,
                walls,
                style,
                layer_of,
            } => self.spawn_map(slot, size, walls, style, layer_of),
            Op::DespawnMap(slot) => self.despawn_map(slot),
            Op::ResizeMap(slot, size) => self.resize_map(slot, size),
            Op::StripMap(slot, storage) => self.strip_map(slot, storage),
            Op::SetLayerOf(slot, of) => self.set_layer_of(slot, of),
            Op::SetFogStyle(slot, style) => self.set_fog_style(slot, style),
            Op::SetMapType(slot, kind) => {
                let Some(map) = self.live_map(slot) else {
                    return;
                };
                self.model.maps[slot].as_mut().unwrap().kind = kind;
                self.world().entity_mut(map).insert(kind.tilemap_type());
            }
            Op::SetDrawnTeam(slot, team) => self.set_drawn_team(slot, team),
            _ => unreachable!("not a map op: {op:?}"),
        }
    }

    /// A square tilemap of `w` x `h` tile entities (`walls` seeds the opaque ones) in `slot`,
    /// in place of the one there.
    fn spawn_map(
        &mut self,
        slot: usize,
        (w, h): (u32, u32),
        walls: u64,
        style: Option<StyleKind>,
        layer_of: Option<usize>,
    ) {
        self.despawn_map(slot);
        let layer_of = layer_of
            .filter(|&s| s != slot && !skipped("layers"))
            .and_then(|s| self.live_map(s));
        let map = self.world().spawn_empty().id();
        let mut tiles = HashMap::new();
        for y in 0..h {
            for x in 0..w {
                tiles.insert((x, y), self.spawn_tile(map, (x, y), wall(walls, x, y)));
            }
        }
        let mut entity = self.world().entity_mut(map);
        entity.insert((
            TilemapSize::new(w, h),
            Self::storage((w, h), &tiles),
            TilemapGridSize::new(16.0, 16.0),
            TilemapTileSize::new(16.0, 16.0),
            TilemapType::Square,
            Transform::default(),
        ));
        if let Some(root) = layer_of {
            entity.insert(LayerOf(root));
        }
        if let Some(style) = style {
            entity.insert(style.style());
        }
        self.model.maps[slot] = Some(MapModel {
            entity: map,
            size: (w, h),
            has_size: true,
            has_storage: true,
            layer_of,
            style,
            kind: MapKind::Square,
            drawn: None,
            tiles,
            painted: None,
        });
    }

    /// Tiles despawned outside the new size, spawned (not opaque) inside it; `TilemapSize`
    /// and `TileStorage` inserted again.
    fn resize_map(&mut self, slot: usize, (w, h): (u32, u32)) {
        let Some(map) = self.model.maps[slot].clone() else {
            return;
        };
        let mut tiles = map.tiles.clone();
        for (&(x, y), &tile) in &map.tiles {
            if x >= w || y >= h {
                tiles.remove(&(x, y));
                self.despawn(tile);
            }
        }
        for y in 0..h {
            for x in 0..w {
                if let Entry::Vacant(vacant) = tiles.entry((x, y)) {
                    vacant.insert(self.spawn_tile(map.entity, (x, y), false));
                }
            }
        }
        let storage = Self::storage((w, h), &tiles);
        self.world()
            .entity_mut(map.entity)
            .insert((TilemapSize::new(w, h), storage));
        let model = self.model.maps[slot].as_mut().unwrap();
        model.size = (w, h);
        model.has_size = true;
        model.has_storage = true;
        model.tiles = tiles;
    }

    /// Removes `TilemapSize` (false) or `TileStorage` (true).
    fn strip_map(&mut self, slot: usize, storage: bool) {
        let Some(map) = self.live_map(slot) else {
            return;
        };
        let model = self.model.maps[slot].as_mut().unwrap();
        if storage {
            model.has_storage = false;
            self.world().entity_mut(map).remove::<TileStorage>();
        } else {
            model.has_size = false;
            self.world().entity_mut(map).remove::<TilemapSize>();
        }
    }

    fn set_layer_of(&mut self, slot: usize, of: Option<usize>) {
        let Some(map) = self.live_map(slot) else {
            return;
        };
        match of {
            Some(other) => {
                let Some(root) = self.live_map(other).filter(|&r| r != map) else {
                    return;
                };
                self.model.maps[slot].as_mut().unwrap().layer_of = Some(root);
                self.world().entity_mut(map).insert(LayerOf(root));
            }
            None => {
                self.model.maps[slot].as_mut().unwrap().layer_of = None;
                self.world().entity_mut(map).remove::<LayerOf>();
            }
        }
    }

    /// A `FogStyle` inserted, or removed: then the colours its tiles have are frozen.
    fn set_fog_style(&mut self, slot: usize, style: Option<StyleKind>) {
        let Some(map) = self.live_map(slot) else {
            return;
        };
        let model = self.model.maps[slot].as_mut().unwrap();
        model.style = style;
        let tiles: Vec<Entity> = model.tiles.values().copied().collect();
        for tile in &tiles {
            self.frozen.remove(tile);
        }
        match style {
            Some(style) => {
                self.world().entity_mut(map).insert(style.style());
            }
            None => {
                self.world().entity_mut(map).remove::<FogStyle>();
                for tile in tiles {
                    let color = self.world().get::<TileColor>(tile).map(|c| c.0);
                    self.frozen.insert(tile, color);
                }
            }
        }
    }

    /// The tilemap in `slot` draws this team (`DrawnTeamOverride`), or the one of `DrawnTeam` (`None`).
    fn set_drawn_team(&mut self, slot: usize, team: Option<u32>) {
        let Some(map) = self.live_map(slot) else {
            return;
        };
        self.model.maps[slot].as_mut().unwrap().drawn = team;
        match team {
            Some(team) => {
                self.world()
                    .entity_mut(map)
                    .insert(DrawnTeamOverride(Team(team)));
            }
            None => {
                self.world().entity_mut(map).remove::<DrawnTeamOverride>();
            }
        }
    }

    /// The ops on the two group entities and the tilemaps' place below them.
    fn apply_group_op(&mut self, op: &Op) {
        match *op {
            Op::SetGroup(slot, group) => {
                let Some(map) = self.live_map(slot) else {
                    return;
                };
                let parent = group.and_then(|g| self.model.groups.entities[g]);
                self.model.groups.attach(map, parent);
                match parent {
                    Some(parent) => {
                        self.world().entity_mut(map).insert(ChildOf(parent));
                    }
                    None => {
                        self.world().entity_mut(map).remove::<ChildOf>();
                    }
                }
            }
            Op::ToggleLayerGroup(g) => {
                let Some(group) = self.model.groups.entities[g] else {
                    return;
                };
                self.model.groups.on[g] = !self.model.groups.on[g];
                if self.model.groups.on[g] {
                    self.world().entity_mut(group).insert(LayerGroup::default());
                } else {
                    self.world().entity_mut(group).remove::<LayerGroup>();
                }
            }
            Op::NestGroups(nested) => {
                let (Some(outer), Some(inner)) =
                    (self.model.groups.entities[0], self.model.groups.entities[1])
                else {
                    return;
                };
                self.model.groups.attach(inner, nested.then_some(outer));
                if nested {
                    self.world().entity_mut(inner).insert(ChildOf(outer));
                } else {
                    self.world().entity_mut(inner).remove::<ChildOf>();
                }
            }
            _ => unreachable!("not a group op: {op:?}"),
        }
    }

    /// Takes the `memory()` of the fog of the tilemap in `slot` into memory slot `memory`,
    /// with what the model says it holds.
    fn take_memory(&mut self, slot: usize, memory: usize) -> Result<(), TestCaseError> {
        let Some(map) = self.live_map(slot) else {
            return Ok(());
        };
        let model = self.model.fogs.get(&map).cloned();
        let taken = self.world().get::<FogOfWar>(map).map(FogOfWar::memory);
        match (model, taken) {
            (None, None) => {}
            (Some(fog), Some(taken)) => {
                check!(
                    (taken.width, taken.height) == fog.size,
                    "memory",
                    "memory() of map {map}: {}x{}, the model's fog is {:?}",
                    taken.width,
                    taken.height,
                    fog.size
                );
                self.model.memories[memory] = Some(Saved {
                    memory: taken,
                    size: fog.size,
                    explored: fog
                        .teams
                        .iter()
                        .map(|(&t, fog)| (t, fog.explored.clone()))
                        .collect(),
                });
            }
            (model, taken) => check!(
                false,
                "fog",
                "map {map} has a FogOfWar: {}, the model says {}",
                taken.is_some(),
                model.is_some()
            ),
        }
        Ok(())
    }

    /// Restores memory slot `memory` on the fog of the tilemap in `slot`: it fits when the
    /// sizes match, and then each team has explored what it sees and what the memory holds.
    fn restore_memory(&mut self, slot: usize, memory: usize) -> Result<(), TestCaseError> {
        let Some(map) = self.live_map(slot) else {
            return Ok(());
        };
        let Some(saved) = self.model.memories[memory].clone() else {
            return Ok(());
        };
        let restored = self
            .world()
            .get_mut::<FogOfWar>(map)
            .map(|mut fog| fog.restore(&saved.memory).is_ok());
        let model = self.model.fogs.get_mut(&map);
        match (model, restored) {
            (None, None) => {}
            (Some(fog), Some(restored)) => {
                let fits = fog.size == saved.size;
                check!(
                    restored == fits,
                    "memory",
                    "restore() of a {:?} memory on map {map} ({:?}): {restored}",
                    saved.size,
                    fog.size
                );
                if fits {
                    for &team in saved.explored.keys() {
                        fog.teams.entry(team).or_default();
                    }
                    for (team, fog) in &mut fog.teams {
                        fog.explored = fog.visible.clone();
                        if let Some(saved) = saved.explored.get(team) {
                            fog.explored.extend(saved);
                        }
                    }
                }
            }
            (model, restored) => check!(
                false,
                "fog",
                "map {map} has a FogOfWar: {}, the model says {}",
                restored.is_some(),
                model.is_some()
            ),
        }
        Ok(())
    }
}
