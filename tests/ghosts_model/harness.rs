//! The app and its driver: the [`Harness`] spawns and changes entities in a headless app as
//! the changes say, and keeps the model's [`Knowledge`] of what the game did. The checks it
//! runs after every update are in `checks.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use bevy::ecs::entity_disabling::Disabled;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{Ghost, Team};

use crate::common_app::{app, spawn_map};
use crate::ops::{MAX_MAPS, Op, SIZES, TEAMS};
use crate::rules::{Knowledge, Known, SeenNow, Tile, ghosts_of};

/// The clock's step per update: `seen_at` is `Time::elapsed` of an update.
pub(crate) const STEP: Duration = Duration::from_millis(50);
/// The side of a tile in world units (`spawn_map`'s grid).
pub(crate) const TILE: f32 = 16.0;

/// A map of the game (despawned maps are dropped from the list).
pub(crate) struct MapSlot {
    pub(crate) entity: Entity,
    pub(crate) hex: bool,
    /// Its `TilemapSize` now.
    pub(crate) size: (u32, u32),
    /// Its `GlobalTransform`'s translation: far from every other map's.
    pub(crate) origin: Vec3,
}

pub(crate) struct Viewer {
    pub(crate) entity: Entity,
    pub(crate) alive: bool,
    pub(crate) disabled: bool,
    pub(crate) reveals: bool,
    /// Also `LeavesGhost`.
    pub(crate) remembered: bool,
    pub(crate) team: Option<u32>,
    pub(crate) map: Entity,
    pub(crate) tile: Tile,
}

/// A remembered entity (or one that was).
pub(crate) struct Target {
    pub(crate) entity: Entity,
    pub(crate) alive: bool,
    pub(crate) disabled: bool,
    pub(crate) remembered: bool,
    pub(crate) by_transform: bool,
    pub(crate) map: Entity,
    pub(crate) tile: Tile,
}

/// A save: the two components as JSON, and the ghosts the model had then.
pub(crate) struct Save {
    pub(crate) fog: String,
    pub(crate) last_seen: String,
    pub(crate) size: (u32, u32),
    pub(crate) hex: bool,
    pub(crate) ghosts: Knowledge,
}

/// A clone of a map's `LastSeen`, with the ghosts the model knew then.
pub(crate) struct Snapshot {
    pub(crate) value: LastSeen,
    pub(crate) knowledge: Knowledge,
}

/// The maps whose `LastSeen` changed (for `Changed<LastSeen>`) since the last update's fog.
#[derive(Resource, Default)]
pub(crate) struct ChangedLastSeen(pub(crate) BTreeSet<Entity>);

pub(crate) fn record_changed(
    changed: Query<Entity, Changed<LastSeen>>,
    mut record: ResMut<ChangedLastSeen>,
) {
    record.0 = changed.iter().collect();
}

pub(crate) struct Harness {
    pub(crate) app: App,
    pub(crate) maps: Vec<MapSlot>,
    pub(crate) viewers: Vec<Viewer>,
    pub(crate) targets: Vec<Target>,
    /// The model: the ghosts the teams have on each map.
    pub(crate) knowledge: BTreeMap<Entity, Knowledge>,
    /// The model: what the teams see now on each map.
    pub(crate) seen: BTreeMap<Entity, SeenNow>,
    pub(crate) saves: Vec<Save>,
    pub(crate) snapshots: Vec<Snapshot>,
    /// Updates done.
    pub(crate) frame: u64,
    /// Maps whose `LastSeen` the game changed (or that are new) since the last update.
    pub(crate) touched: BTreeSet<Entity>,
    /// The ghosts each map showed after the last update.
    pub(crate) shown: BTreeMap<Entity, Knowledge>,
    pub(crate) maps_spawned: u32,
}

impl Harness {
    pub(crate) fn new() -> Self {
        let mut app = app();
        app.insert_resource(TimeUpdateStrategy::ManualDuration(STEP))
            .init_resource::<ChangedLastSeen>()
            .add_systems(PostUpdate, record_changed.after(ViewshedSystems));
        let mut game = Self {
            app,
            maps: Vec::new(),
            viewers: Vec::new(),
            targets: Vec::new(),
            knowledge: BTreeMap::new(),
            seen: BTreeMap::new(),
            saves: Vec::new(),
            snapshots: Vec::new(),
            frame: 0,
            touched: BTreeSet::new(),
            shown: BTreeMap::new(),
            maps_spawned: 0,
        };
        game.spawn_map(false, (16, 8));
        game.spawn_map(true, (12, 8));
        game.apply(Op::SpawnViewer(Some(0), 0, 2, 4, 4, false));
        game.apply(Op::SpawnViewer(None, 0, 10, 4, 3, false));
        game.apply(Op::SpawnViewer(Some(1), 0, 13, 2, 4, true));
        game.apply(Op::SpawnViewer(Some(2), 1, 3, 3, 3, false));
        game.apply(Op::SpawnTarget(false, 0, 4, 4));
        game.apply(Op::SpawnTarget(true, 0, 7, 4));
        game.apply(Op::SpawnTarget(false, 0, 12, 3));
        game.apply(Op::SpawnTarget(false, 1, 5, 3));
        game.apply(Op::SpawnTarget(true, 1, 2, 5));
        game
    }

    pub(crate) fn world(&mut self) -> &mut World {
        self.app.world_mut()
    }

    pub(crate) fn spawn_map(&mut self, hex: bool, (width, height): (u32, u32)) -> Entity {
        let walls = move |x: u32, y: u32| {
            if hex {
                x == 5 && y != 3
            } else {
                x == 6 && y % 3 != 1
            }
        };
        let map = spawn_map(&mut self.app, width, height, walls);
        let origin = Vec3::new(4000.0 * self.maps_spawned as f32, 0.0, 0.0);
        self.maps_spawned += 1;
        let mut entity = self.app.world_mut().entity_mut(map);
        entity.insert((
            Transform::from_translation(origin),
            GlobalTransform::from_translation(origin),
        ));
        if hex {
            entity.insert(TilemapType::Hexagon(HexCoordSystem::Row));
        }
        self.maps.push(MapSlot {
            entity: map,
            hex,
            size: (width, height),
            origin,
        });
        self.knowledge.insert(map, Knowledge::new());
        self.seen.insert(map, SeenNow::new());
        self.touched.insert(map);
        map
    }

    pub(crate) fn map(&self, i: usize) -> Option<&MapSlot> {
        (!self.maps.is_empty()).then(|| &self.maps[i % self.maps.len()])
    }

    pub(crate) fn slot(&self, map: Entity) -> Option<&MapSlot> {
        self.maps.iter().find(|slot| slot.entity == map)
    }

    /// The world position of the centre of `tile` on `map`, by bevy_ecs_tilemap's geometry.
    pub(crate) fn centre(&self, map: Entity, tile: Tile) -> Vec3 {
        let slot = self.slot(map).expect("a live map");
        let map_type = if slot.hex {
            TilemapType::Hexagon(HexCoordSystem::Row)
        } else {
            TilemapType::Square
        };
        let local = TilePos::new(tile.0, tile.1).center_in_world(
            &TilemapSize::new(slot.size.0, slot.size.1),
            &TilemapGridSize::new(TILE, TILE),
            &TilemapTileSize::new(TILE, TILE),
            &map_type,
            &TilemapAnchor::None,
        );
        slot.origin + local.extend(0.0)
    }

    pub(crate) fn viewer(&self, i: usize) -> Option<usize> {
        let alive: Vec<usize> = (0..self.viewers.len())
            .filter(|&v| self.viewers[v].alive)
            .collect();
        (!alive.is_empty()).then(|| alive[i % alive.len()])
    }

    pub(crate) fn target(&self, i: usize) -> Option<usize> {
        let alive: Vec<usize> = (0..self.targets.len())
            .filter(|&t| self.targets[t].alive)
            .collect();
        (!alive.is_empty()).then(|| alive[i % alive.len()])
    }

    /// Any entity the game may name in `LastSeen`: a target (also a despawned one) or a viewer.
    pub(crate) fn any_entity(&self, i: usize) -> Option<Entity> {
        let all: Vec<Entity> = self
            .targets
            .iter()
            .map(|t| t.entity)
            .chain(self.viewers.iter().map(|v| v.entity))
            .collect();
        (!all.is_empty()).then(|| all[i % all.len()])
    }

    /// The map's `LastSeen`, to change it (the game touched it).
    pub(crate) fn last_seen_mut(&mut self, map: Entity) -> Option<Mut<'_, LastSeen>> {
        self.touched.insert(map);
        self.app.world_mut().get_mut::<LastSeen>(map)
    }

    pub(crate) fn set_disabled(&mut self, entity: Entity, disabled: bool) {
        let mut entity = self.world().entity_mut(entity);
        if disabled {
            entity.insert(Disabled);
        } else {
            entity.remove::<Disabled>();
        }
    }

    pub(crate) fn apply(&mut self, op: Op) {
        match op {
            Op::SpawnViewer(team, map, x, y, radius, remembered) => {
                let Some(map) = self.map(map).map(|slot| slot.entity) else {
                    return;
                };
                let mut entity = self.world().spawn((
                    Viewshed::new(radius),
                    RevealsFog,
                    TilePos { x, y },
                    TilemapId(map),
                ));
                if let Some(team) = team {
                    entity.insert(Team(team));
                }
                if remembered {
                    entity.insert(LeavesGhost);
                }
                let entity = entity.id();
                self.viewers.push(Viewer {
                    entity,
                    alive: true,
                    disabled: false,
                    reveals: true,
                    remembered,
                    team,
                    map,
                    tile: (x, y),
                });
            }
            Op::MoveViewer(i, map, x, y) => {
                let (Some(v), Some(map)) = (self.viewer(i), self.map(map).map(|s| s.entity)) else {
                    return;
                };
                let viewer = &mut self.viewers[v];
                let (entity, same) = (viewer.entity, viewer.map == map);
                (viewer.map, viewer.tile) = (map, (x, y));
                let mut entity = self.world().entity_mut(entity);
                if same {
                    *entity.get_mut::<TilePos>().unwrap() = TilePos { x, y };
                } else {
                    entity.insert((TilemapId(map), TilePos { x, y }));
                }
            }
            Op::WalkViewer(i, dx, dy) => {
                let Some(v) = self.viewer(i) else { return };
                let viewer = &mut self.viewers[v];
                let (x, y) = viewer.tile;
                let to = (x.saturating_add_signed(dx), y.saturating_add_signed(dy));
                viewer.tile = to;
                let entity = viewer.entity;
                *self.world().get_mut::<TilePos>(entity).unwrap() = TilePos::new(to.0, to.1);
            }
            Op::DespawnViewer(i) => {
                let Some(v) = self.viewer(i) else { return };
                self.viewers[v].alive = false;
                let entity = self.viewers[v].entity;
                self.world().despawn(entity);
            }
            Op::ToggleViewerDisabled(i) => {
                let Some(v) = self.viewer(i) else { return };
                let viewer = &mut self.viewers[v];
                viewer.disabled = !viewer.disabled;
                let (entity, disabled) = (viewer.entity, viewer.disabled);
                self.set_disabled(entity, disabled);
            }
            Op::SetTeam(i, team, in_place) => {
                let Some(v) = self.viewer(i) else { return };
                let viewer = &mut self.viewers[v];
                let in_place = in_place && viewer.team.is_some();
                viewer.team = Some(team);
                let entity = viewer.entity;
                let mut entity = self.world().entity_mut(entity);
                if in_place {
                    *entity.get_mut::<Team>().unwrap() = Team(team);
                } else {
                    entity.insert(Team(team));
                }
            }
            Op::RemoveTeam(i) => {
                let Some(v) = self.viewer(i) else { return };
                self.viewers[v].team = None;
                let entity = self.viewers[v].entity;
                self.world().entity_mut(entity).remove::<Team>();
            }
            Op::ToggleReveals(i) => {
                let Some(v) = self.viewer(i) else { return };
                let viewer = &mut self.viewers[v];
                viewer.reveals = !viewer.reveals;
                let (entity, reveals) = (viewer.entity, viewer.reveals);
                let mut entity = self.world().entity_mut(entity);
                if reveals {
                    entity.insert(RevealsFog);
                } else {
                    entity.remove::<RevealsFog>();
                }
            }
            Op::SpawnTarget(by_transform, map, x, y) => {
                let Some(map) = self.map(map).map(|slot| slot.entity) else {
                    return;
                };
                let centre = self.centre(map, (x, y));
                let mut entity = self.world().spawn((LeavesGhost, TilemapId(map)));
                if by_transform {
                    entity.insert((
                        Transform::from_translation(centre),
                        GlobalTransform::from_translation(centre),
                    ));
                } else {
                    entity.insert(TilePos { x, y });
                }
                let entity = entity.id();
                self.targets.push(Target {
                    entity,
                    alive: true,
                    disabled: false,
                    remembered: true,
                    by_transform,
                    map,
                    tile: (x, y),
                });
            }
            Op::MoveTarget(i, map, x, y) => {
                let (Some(t), Some(map)) = (self.target(i), self.map(map).map(|s| s.entity)) else {
                    return;
                };
                self.move_target(t, map, (x, y));
            }
            Op::WalkTarget(i, dx, dy) => {
                let Some(t) = self.target(i) else { return };
                let target = &self.targets[t];
                let (map, (x, y)) = (target.map, target.tile);
                if self.slot(map).is_none() {
                    return;
                }
                let to = (x.saturating_add_signed(dx), y.saturating_add_signed(dy));
                self.move_target(t, map, to);
            }
            Op::DespawnTarget(i) => {
                let Some(t) = self.target(i) else { return };
                self.targets[t].alive = false;
                let entity = self.targets[t].entity;
                self.world().despawn(entity);
            }
            Op::ToggleTargetDisabled(i) => {
                let Some(t) = self.target(i) else { return };
                let target = &mut self.targets[t];
                target.disabled = !target.disabled;
                let (entity, disabled) = (target.entity, target.disabled);
                self.set_disabled(entity, disabled);
            }
            Op::ToggleRemember(i) => {
                let Some(t) = self.target(i) else { return };
                let target = &mut self.targets[t];
                target.remembered = !target.remembered;
                let (entity, remembered) = (target.entity, target.remembered);
                let mut entity = self.world().entity_mut(entity);
                if remembered {
                    entity.insert(LeavesGhost);
                } else {
                    entity.remove::<LeavesGhost>();
                }
            }
            Op::ToggleWall(map, x, y) => {
                let Some(map) = self.map(map).map(|slot| slot.entity) else {
                    return;
                };
                let world = self.world();
                let Some(tile) = world
                    .get::<TileStorage>(map)
                    .and_then(|storage| storage.checked_get(&TilePos { x, y }))
                else {
                    return;
                };
                let mut tile = world.entity_mut(tile);
                if tile.contains::<Opaque>() {
                    tile.remove::<Opaque>();
                } else {
                    tile.insert(Opaque);
                }
            }
            Op::Resize(map, size) => {
                let Some(i) = (!self.maps.is_empty()).then(|| map % self.maps.len()) else {
                    return;
                };
                let (width, height) = SIZES[size];
                self.maps[i].size = (width, height);
                let map = self.maps[i].entity;
                *self.world().get_mut::<TilemapSize>(map).unwrap() =
                    TilemapSize::new(width, height);
            }
            Op::DespawnMap(map) => {
                let Some(i) = (!self.maps.is_empty()).then(|| map % self.maps.len()) else {
                    return;
                };
                let map = self.maps.remove(i).entity;
                self.knowledge.remove(&map);
                self.seen.remove(&map);
                let world = self.world();
                let tiles: Vec<Entity> = world
                    .get::<TileStorage>(map)
                    .map(|storage| storage.iter().flatten().copied().collect())
                    .unwrap_or_default();
                for tile in tiles {
                    world.despawn(tile);
                }
                world.despawn(map);
            }
            Op::RemoveFog(map) => {
                let Some(map) = self.map(map).map(|slot| slot.entity) else {
                    return;
                };
                self.world().entity_mut(map).remove::<FogOfWar>();
            }
            Op::SpawnMap(hex) => {
                if self.maps.len() < MAX_MAPS {
                    self.spawn_map(hex, if hex { (12, 8) } else { (16, 8) });
                }
            }
            Op::Remember(map, team, entity, x, y, ms) => {
                let (Some(map), Some(entity)) =
                    (self.map(map).map(|s| s.entity), self.any_entity(entity))
                else {
                    return;
                };
                let ghost = Ghost {
                    entity,
                    tile: TilePos { x, y },
                    seen_at: Duration::from_millis(ms),
                };
                let Some(mut last_seen) = self.last_seen_mut(map) else {
                    return;
                };
                last_seen.remember(Team(team), ghost);
                // The ghost, in place of what the team knew of the entity.
                let known = self
                    .knowledge
                    .get_mut(&map)
                    .unwrap()
                    .entry(team)
                    .or_default();
                known.insert(
                    entity,
                    Known::Ghost {
                        tile: (x, y),
                        seen_at: ghost.seen_at,
                    },
                );
            }
            Op::Forget(map, team, entity) => {
                let (Some(map), Some(entity)) =
                    (self.map(map).map(|s| s.entity), self.any_entity(entity))
                else {
                    return;
                };
                let Some(mut last_seen) = self.last_seen_mut(map) else {
                    return;
                };
                last_seen.forget(Team(team), entity);
                // The team knows nothing of it; if it sees it, it sees it again at the update.
                if let Some(known) = self.knowledge.get_mut(&map).unwrap().get_mut(&team) {
                    known.remove(&entity);
                }
            }
            Op::Clear(map) => {
                let Some(map) = self.map(map).map(|s| s.entity) else {
                    return;
                };
                let Some(mut last_seen) = self.last_seen_mut(map) else {
                    return;
                };
                last_seen.clear();
                self.knowledge.insert(map, Knowledge::new());
            }
            Op::Save(map) => self.save(map),
            Op::Load(save, onto) => self.load(save, onto),
            Op::Snapshot(map) => {
                let Some(map) = self.map(map).map(|s| s.entity) else {
                    return;
                };
                let Some(value) = self.app.world().get::<LastSeen>(map).cloned() else {
                    return;
                };
                self.snapshots.push(Snapshot {
                    value,
                    knowledge: self.knowledge[&map].clone(),
                });
            }
            Op::PutSnapshot(snapshot, map, in_place) => {
                let (Some(map), false) =
                    (self.map(map).map(|s| s.entity), self.snapshots.is_empty())
                else {
                    return;
                };
                let snapshot = &self.snapshots[snapshot % self.snapshots.len()];
                let value = snapshot.value.clone();
                // The clone's ghosts, wherever and whenever it was taken; what the teams see
                // now is the plugin's and stays.
                let knowledge = snapshot.knowledge.clone();
                if in_place {
                    let Some(mut last_seen) = self.last_seen_mut(map) else {
                        return;
                    };
                    *last_seen = value;
                } else {
                    self.touched.insert(map);
                    self.world().entity_mut(map).insert(value);
                }
                self.knowledge.insert(map, knowledge);
            }
        }
    }

    pub(crate) fn move_target(&mut self, t: usize, map: Entity, to: Tile) {
        let centre = self.centre(map, to);
        let target = &mut self.targets[t];
        let same = target.map == map;
        (target.map, target.tile) = (map, to);
        let (entity, by_transform) = (target.entity, target.by_transform);
        let mut entity = self.world().entity_mut(entity);
        if !same {
            entity.insert(TilemapId(map));
        }
        if by_transform {
            *entity.get_mut::<Transform>().unwrap() = Transform::from_translation(centre);
            *entity.get_mut::<GlobalTransform>().unwrap() =
                GlobalTransform::from_translation(centre);
        } else {
            *entity.get_mut::<TilePos>().unwrap() = TilePos::new(to.0, to.1);
        }
    }

    /// A save of `map`: what the docs say a save holds of a map, `FogOfWar` (the explored
    /// memory) and `LastSeen` (the ghosts), through serde_json.
    pub(crate) fn save(&mut self, map: usize) {
        let Some(slot) = self.map(map) else { return };
        let (map, hex) = (slot.entity, slot.hex);
        let world = self.app.world();
        let (Some(fog), Some(last_seen)) = (world.get::<FogOfWar>(map), world.get::<LastSeen>(map))
        else {
            return;
        };
        let fog_size = fog.size();
        let save = Save {
            fog: serde_json::to_string(fog).unwrap(),
            last_seen: serde_json::to_string(last_seen).unwrap(),
            // The fog's size: a map resized since the last update still has the old one.
            size: (fog_size.x, fog_size.y),
            hex,
            // A save holds the ghosts, not what the teams see now.
            ghosts: ghosts_of(&self.knowledge[&map]),
        };
        // The round trip keeps every ghost of every team.
        let back: LastSeen = serde_json::from_str(&save.last_seen).unwrap();
        for team in 0..=TEAMS {
            let ghosts = |last_seen: &LastSeen| last_seen.ghosts(Team(team)).collect::<Vec<_>>();
            assert_eq!(ghosts(&back), ghosts(last_seen), "a saved team {team}");
        }
        self.saves.push(save);
    }

    /// Loads a save into a map (`Some`), or into a fresh map of its size.
    pub(crate) fn load(&mut self, save: usize, onto: Option<usize>) {
        if self.saves.is_empty() {
            return;
        }
        let save = &self.saves[save % self.saves.len()];
        let fog: FogOfWar = serde_json::from_str(&save.fog).unwrap();
        let last_seen: LastSeen = serde_json::from_str(&save.last_seen).unwrap();
        let (ghosts, size, hex) = (save.ghosts.clone(), save.size, save.hex);
        let map = match onto {
            Some(i) => match self.map(i) {
                Some(slot) => slot.entity,
                None => return,
            },
            None if self.maps.len() < MAX_MAPS => self.spawn_map(hex, size),
            None => return,
        };
        self.touched.insert(map);
        let map_size = self.slot(map).expect("a live map").size;
        let mut entity = self.world().entity_mut(map);
        // The explored memory: restored into the map's own fog when it has the save's size,
        // inserted whole when the save is of another size than the map (the plugin resizes it
        // and gathers the team views again), else left out: a `FogOfWar` inserted whole at
        // its map's size has no team views until a viewer moves (a fog matter, reported, see
        // `a_fog_of_war_inserted_on_a_map_in_play_keeps_the_team_views`).
        let size = fog.size();
        match entity.get_mut::<FogOfWar>() {
            Some(mut own) if own.size() == size => own.restore(&fog.memory()).unwrap(),
            _ if (size.x, size.y) == map_size => {}
            _ => {
                entity.insert(fog);
            }
        }
        entity.insert(last_seen);
        // The map's teams know the save's ghosts, and nothing else.
        self.knowledge.insert(map, ghosts);
    }
}
