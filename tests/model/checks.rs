//! The checks after every update, in a second `impl Harness` block: the app against the
//! rules of the [`Model`](crate::rules::Model), each check tagged with its class (`groups`,
//! `view`, `fog`, `fog-layer`, `hide`, `spotted`, `sightings`).

use std::collections::{BTreeSet, HashMap};

use bevy::camera::visibility::Visibility;
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::Team;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{LayerOf, SpottedTargets};
use proptest::test_runner::TestCaseError;

use crate::harness::{Harness, Heard};
use crate::ops::{COORD, GROUPS, MapKind, TEAMS};
use crate::rules::{FogModel, Views};

/// Updates after which a look has held longer than the longest fade (100 ms; each update is
/// [`FRAME`](crate::harness::FRAME)).
const SETTLED: u32 = 6;

impl Harness {
    /// Runs an update, then holds the app to the model; the model then keeps this update's
    /// fogs and sightings.
    pub(crate) fn update(&mut self) -> Result<(), TestCaseError> {
        self.app.update();
        let heard = std::mem::take(&mut *self.world().resource_mut::<Heard>());
        let roots = self.model.settle_groups();
        self.check_groups(&roots)?;
        let views = self.check_views()?;
        let fogs = self.model.expected_fogs(&views);
        self.check_fogs(&fogs)?;
        self.check_fog_layers(&fogs)?;
        self.check_frozen_layers()?;
        self.check_hidden(&fogs)?;
        let spotted = self.model.expected_spotted(&views);
        self.check_spotted(&spotted)?;
        self.check_sightings(&spotted, &heard)?;

        self.model.fogs = fogs;
        self.model.spotted = spotted;
        self.model.blipped.clear();
        Ok(())
    }

    /// Layer groups: each group's root, and `LayerOf` on every tilemap.
    fn check_groups(&self, roots: &[Option<Entity>; GROUPS]) -> Result<(), TestCaseError> {
        let (model, world) = (&self.model, self.app.world());
        for (g, root) in roots.iter().enumerate() {
            let group = model.groups.entities[g].unwrap();
            let want = root.filter(|_| model.groups.on[g]);
            let got = world.get::<LayerGroup>(group).and_then(LayerGroup::root);
            check!(
                got == want,
                "groups",
                "group {g}: root() {got:?}, the model says {want:?}"
            );
        }
        for map in model.maps.iter().flatten() {
            let got = world.get::<LayerOf>(map.entity).map(|l| l.0);
            check!(
                got == map.layer_of,
                "groups",
                "tilemap {}: LayerOf {got:?}, the model says {:?}",
                map.entity,
                map.layer_of
            );
        }
        Ok(())
    }

    /// Views: every enabled viewer's `Viewshed` against the field of view on the model's
    /// opacity of every root tilemap. Returns the model's views.
    fn check_views(&self) -> Result<Views, TestCaseError> {
        let (model, world) = (&self.model, self.app.world());
        let grids = (&model.opacity_grids(), &model.density_grids());
        let mut views: Views = HashMap::new();
        for &viewer in &model.viewers {
            let entity = &model.entities[&viewer];
            if entity.disabled {
                continue;
            }
            let sight = entity.viewer.unwrap().sight;
            let expected = model.view_of(grids, entity, sight);
            let Some(actual) = world.get::<Viewshed>(viewer) else {
                return Err(TestCaseError::fail(format!(
                    "[view] viewer {viewer} lost its Viewshed"
                )));
            };
            let want: BTreeSet<(u32, u32)> = expected
                .as_ref()
                .map(|(_, _, view)| view.iter().copied().collect())
                .unwrap_or_default();
            let got: BTreeSet<(u32, u32)> = actual.iter().map(|t| (t.x, t.y)).collect();
            let place = expected.as_ref().map(|&(root, at, _)| (root, at));
            check!(
                got == want,
                "view",
                "viewer {viewer} ({sight:?}) standing on {place:?}: sees {:?} more and {:?} less \
                 than the model",
                got.difference(&want).collect::<Vec<_>>(),
                want.difference(&got).collect::<Vec<_>>()
            );
            check_view_queries(viewer, actual, &want, place)?;
            if let Some((root, _, view)) = expected {
                views.insert(viewer, (root, view.into_iter().collect()));
            }
        }
        Ok(views)
    }

    /// Fog: every root tilemap has a `FogOfWar` with the model's states, for the team drawn
    /// and for each team; other maps have none.
    fn check_fogs(&self, fogs: &HashMap<Entity, FogModel>) -> Result<(), TestCaseError> {
        let (model, world) = (&self.model, self.app.world());
        for map in model.maps.iter().flatten() {
            let actual = world.get::<FogOfWar>(map.entity);
            let expected = fogs.get(&map.entity);
            check!(
                actual.is_some() == expected.is_some(),
                "fog",
                "map {} has a FogOfWar: {}, the model says {} ({map:?})",
                map.entity,
                actual.is_some(),
                expected.is_some()
            );
            let (Some(actual), Some(expected)) = (actual, expected) else {
                continue;
            };
            for y in 0..=expected.size.1 {
                for x in 0..=expected.size.0 {
                    let got = actual.state(TilePos { x, y });
                    let want = expected.state(model.drawn_on(map.entity), (x, y));
                    check!(
                        got == want,
                        "fog",
                        "map {}, state(({x}, {y})) for the team drawn ({}): {got:?}, the model \
                         says {want:?}",
                        map.entity,
                        model.drawn_on(map.entity)
                    );
                }
            }
            for team in 0..TEAMS {
                let actual = actual.team(Team(team));
                for y in 0..=expected.size.1 {
                    for x in 0..=expected.size.0 {
                        let got =
                            actual.map_or(FogState::Unexplored, |fog| fog.state(TilePos { x, y }));
                        let want = expected.state(team, (x, y));
                        check!(
                            got == want,
                            "fog",
                            "map {}, team {team}, tile ({x}, {y}): {got:?}, the model says \
                             {want:?}",
                            map.entity
                        );
                    }
                }
            }
        }
        Ok(())
    }

    /// Fog layers: the tiles look like their state for the team drawn.
    fn check_fog_layers(&mut self, fogs: &HashMap<Entity, FogModel>) -> Result<(), TestCaseError> {
        let (model, world) = (&self.model, self.app.world());
        for layer in model.maps.iter().flatten() {
            let (Some(style), true) = (layer.style, layer.has_storage) else {
                continue;
            };
            let Some(root) = model.root_of(layer.entity) else {
                continue;
            };
            let Some(fog) = fogs.get(&root) else {
                continue;
            };
            let kind = model.map(root).map_or(MapKind::Square, |m| m.kind);
            let shown = model.drawn_on(root);
            let style_kind = style;
            let style = style.style();
            for (&(x, y), &tile) in &layer.tiles {
                if x >= fog.size.0 || y >= fog.size.1 || model.entities[&tile].disabled {
                    continue;
                }
                let state = fog.state(shown, (x, y));
                // A soft edge: not seen now, with a neighbour seen now.
                let edge = state != FogState::Visible
                    && kind
                        .neighbours(fog.size, (x, y))
                        .into_iter()
                        .any(|n| fog.visible(shown, n));
                let look = style.look_at(state, edge);
                // With fades, the look is exact once it has held longer than the fade.
                let key = (state, edge, style_kind);
                let held = match self.looks.get(&tile) {
                    Some(&(was, held)) if was == key => held + 1,
                    _ => 0,
                };
                self.looks.insert(tile, (key, held));
                if style.fade.is_some() && held < SETTLED {
                    continue;
                }
                let visible = world.get::<TileVisible>(tile).map(|v| v.0);
                let color = world.get::<TileColor>(tile).map(|c| c.0);
                check!(
                    look.visible.is_none_or(|v| visible == Some(v))
                        && look.color.is_none_or(|c| color == Some(c)),
                    "fog-layer",
                    "tile ({x}, {y}) of fog layer {} (root {root}, team {shown} {state:?}, \
                     edge {edge}, held {held}): TileVisible {visible:?}, TileColor {color:?}, \
                     expected {look:?}",
                    layer.entity
                );
            }
        }
        Ok(())
    }

    /// Layers whose style was removed: their tiles keep the colour they had then.
    fn check_frozen_layers(&self) -> Result<(), TestCaseError> {
        let world = self.app.world();
        for (&tile, &color) in &self.frozen {
            if let Ok(entity) = world.get_entity(tile) {
                let now = entity.get::<TileColor>().map(|c| c.0);
                check!(
                    now == color,
                    "fog-layer",
                    "tile {tile} of a layer without FogStyle: TileColor {now:?}, it was {color:?} \
                     when the style was removed"
                );
            }
        }
        Ok(())
    }

    /// `HidesOutsideView` entities are shown exactly on tiles the team drawn sees.
    fn check_hidden(&self, fogs: &HashMap<Entity, FogModel>) -> Result<(), TestCaseError> {
        let (model, world) = (&self.model, self.app.world());
        for (&entity, model_entity) in &model.entities {
            if !model_entity.hide || model_entity.disabled {
                continue;
            }
            let seen = model.stands(model_entity).is_some_and(|(root, at)| {
                let shown = model.drawn_on(root);
                fogs.get(&root).is_some_and(|f| f.visible(shown, at))
            });
            let want = if seen {
                Visibility::Inherited
            } else {
                Visibility::Hidden
            };
            let got = world.get::<Visibility>(entity).copied();
            check!(
                got == Some(want),
                "hide",
                "HidesOutsideView entity {entity} at {:?}: {got:?}, expected {want:?}",
                model.stands(model_entity)
            );
        }
        Ok(())
    }

    /// Every enabled viewer's `spotted()` is the model's.
    fn check_spotted(
        &self,
        spotted: &HashMap<Entity, BTreeSet<Entity>>,
    ) -> Result<(), TestCaseError> {
        let (model, world) = (&self.model, self.app.world());
        for &viewer in &model.viewers {
            if model.entities[&viewer].disabled {
                continue;
            }
            let got: BTreeSet<Entity> = world
                .get::<SpottedTargets>(viewer)
                .unwrap()
                .iter()
                .collect();
            let want = spotted.get(&viewer).cloned().unwrap_or_default();
            check!(
                got == want,
                "spotted",
                "viewer {viewer}: spotted() {got:?}, the model says {want:?}"
            );
        }
        Ok(())
    }

    /// The `Spotted` / `LostSight` messages and entity events of the update are the
    /// differences from the last update's sightings (a pair may blip for an entity that
    /// stopped and started standing somewhere within the batch).
    fn check_sightings(
        &self,
        spotted: &HashMap<Entity, BTreeSet<Entity>>,
        heard: &Heard,
    ) -> Result<(), TestCaseError> {
        let model = &self.model;
        let mut pairs: BTreeSet<(Entity, Entity)> = BTreeSet::new();
        for sets in [&model.spotted, spotted] {
            for (&viewer, targets) in sets {
                pairs.extend(targets.iter().map(|&t| (viewer, t)));
            }
        }
        for log in [&heard.messages, &heard.events, &heard.on_targets] {
            pairs.extend(log.iter().map(|&(_, v, t)| (v, t)));
        }
        for (viewer, target) in pairs {
            let before = model
                .spotted
                .get(&viewer)
                .is_some_and(|s| s.contains(&target));
            let after = spotted.get(&viewer).is_some_and(|s| s.contains(&target));
            let blipped = model.blipped.contains(&viewer) || model.blipped.contains(&target);
            let logs = [
                ("messages", &heard.messages),
                ("events", &heard.events),
                ("events on the target", &heard.on_targets),
            ];
            for (what, log) in logs {
                let count =
                    |seen: bool| log.iter().filter(|&&m| m == (seen, viewer, target)).count();
                let (s, l) = (count(true), count(false));
                let net = match (before, after) {
                    (false, false) | (true, true) => s == l,
                    (false, true) => s == l + 1,
                    (true, false) => l == s + 1,
                };
                check!(
                    net && (blipped || s + l <= 1),
                    "sightings",
                    "viewer {viewer}, target {target}: seen before {before}, now {after}, but \
                     {s} Spotted and {l} LostSight {what} this update"
                );
            }
        }
        Ok(())
    }
}

/// A viewer's `count()`, `is_visible()` and `origin()` agree with the model's view `want` from
/// `place` (root map and tile).
fn check_view_queries(
    viewer: Entity,
    actual: &Viewshed,
    want: &BTreeSet<(u32, u32)>,
    place: Option<(Entity, (u32, u32))>,
) -> Result<(), TestCaseError> {
    check!(
        actual.count() == want.len(),
        "view",
        "viewer {viewer}: count() {} for {} tiles",
        actual.count(),
        want.len()
    );
    for y in 0..COORD + 2 {
        for x in 0..COORD + 2 {
            check!(
                actual.is_visible(TilePos { x, y }) == want.contains(&(x, y)),
                "view",
                "viewer {viewer}: is_visible(({x}, {y})) disagrees with iter()"
            );
        }
    }
    let origin = place.map(|(root, (x, y))| (root, TilePos { x, y }));
    check!(
        actual.origin() == origin,
        "view",
        "viewer {viewer}: origin() {:?}, the model says {origin:?}",
        actual.origin()
    );
    Ok(())
}
