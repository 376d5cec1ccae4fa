//! The [`LightSource`] component, the system that recomputes lit sets (the viewers' machinery,
//! [`Views`]) and the one that adds each light's contribution to its map's [`Lighting`].

use bevy::color::Color;
use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::Allow;
use bevy::ecs::system::SystemState;
use bevy::prelude::*;
use bevy::utils::Parallel;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::light::lighting::{Contribution, LitMap};
use crate::support::change_ticks::scan_then_run;
use crate::viewshed::kept::KeptView;
use crate::viewshed::recompute::{ViewScan, Views};
use crate::viewshed::state::ViewState;
use viewshed_core::options::{FovOptions, VisionCone};
use viewshed_core::visible::{VisibleSet, Window};

/// Lights the tiles in its own field of view: a torch on a wall, a lamp carried by the player.
///
/// Placed like a [`Viewshed`](crate::Viewshed) (`TilePos` + `TilemapId`, or a `Transform` +
/// `TilemapId`), it lights exactly what a viewer of radius [`radius`](Self::radius) standing
/// there would see (symmetric shadowcasting, walls lit), on square, hexagonal and isometric
/// maps alike. With a [`cone`](Self::cone) it lights only the tiles whose centre the cone
/// holds, exactly as a viewer's vision cone keeps its view (a flashlight, a lighthouse,
/// headlights). Its lit set is recomputed only when it moves, when its radius or cone changes
/// or when opacity changes within its radius (a door closing in its room), like a viewer's
/// view; its colour and intensity only change how bright the tiles are drawn
/// ([`Lighting::light_at`](crate::Lighting::light_at)).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_viewshed::prelude::*;
/// use bevy_viewshed::{VisionCone};
///
/// let torch = LightSource::new(6)
///     .with_color(Color::srgb(1.0, 0.7, 0.4))
///     .with_intensity(1.5);
/// assert_eq!(torch.radius, 6);
/// assert_eq!(torch.lit().count(), 0, "nothing is lit before the first update");
/// // A flashlight: a 40-degree beam facing east; turn it by setting its cone again.
/// let mut flashlight = LightSource::new(8).with_cone(VisionCone::degrees(0.0, 40.0));
/// flashlight.cone = Some(VisionCone::degrees(90.0, 40.0)); // north, at the next update
/// ```
///
/// With the `serde` feature it saves its radius, cone, colour (linear RGBA) and intensity (a
/// save without a cone loads as a light all around); its lit set is computed again after
/// loading.
#[derive(Component, Reflect, Clone, Debug)]
#[reflect(Component, Default, Debug)]
#[require(crate::placement::placed::Placed, ViewState<LightSource>)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[type_path = "bevy_viewshed"]
pub struct LightSource {
    /// How far it lights, in tiles (a disk, like [`Viewshed::new`](crate::Viewshed::new)).
    pub radius: u32,
    /// The directions it lights (`None`, the default: all around), with the rules of a
    /// viewer's [`FovOptions::cone`].
    #[cfg_attr(feature = "serde", serde(default))]
    pub cone: Option<VisionCone>,
    /// Its colour (white by default): what [`Lighting::light_at`](crate::Lighting::light_at) adds up. Each linear
    /// channel, and each channel times the intensity, counts as 0 when it is not a number or
    /// below 0, and as 1,024 above that (infinity included).
    #[cfg_attr(feature = "serde", serde(with = "crate::light::color_serde"))]
    pub color: Color,
    /// How strong it is at its own tile (1 by default); it fades linearly to
    /// `intensity / (radius + 1)` at its radius. Not a number or below 0 counts as 0, above
    /// 1,024 (infinity included) as 1,024.
    pub intensity: f32,
    /// What it lights.
    #[reflect(ignore)]
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) lit: VisibleSet,
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) generation: u64,
    // What its lit set was computed from is kept in its `ViewState`, and what it added to its
    // map in the map's `Lighting` (its ledger, by entity): this component may be cloned, or
    // replaced in place, by a game.
}

impl Default for LightSource {
    fn default() -> Self {
        Self::new(6)
    }
}

impl LightSource {
    /// What this light should add to its map now, its lit set computed from `state`'s key
    /// (nothing while it lights nothing).
    fn contribution(&self, state: &ViewState<LightSource>) -> Option<Contribution> {
        let key = *state.key()?;
        let look = (self.color, self.intensity);
        Some(Contribution::new(key, self.radius, look))
    }

    /// A white light of intensity 1 lighting `radius` tiles around it.
    pub fn new(radius: u32) -> Self {
        Self {
            radius,
            cone: None,
            color: Color::WHITE,
            intensity: 1.0,
            lit: VisibleSet::new(),
            generation: 0,
        }
    }

    /// The same light, lighting only inside `cone` (a flashlight's beam).
    pub fn with_cone(mut self, cone: VisionCone) -> Self {
        self.cone = Some(cone);
        self
    }

    /// The same light in another colour.
    pub fn with_color(mut self, color: Color) -> Self {
        self.color = color;
        self
    }

    /// The same light with another intensity.
    pub fn with_intensity(mut self, intensity: f32) -> Self {
        self.intensity = intensity;
        self
    }

    /// Whether it lit `tile` at its last update.
    pub fn is_lit(&self, tile: TilePos) -> bool {
        self.lit.contains(tile.x, tile.y)
    }

    /// The tiles it lights.
    pub fn lit(&self) -> impl Iterator<Item = TilePos> + '_ {
        self.lit.iter().map(|(x, y)| TilePos { x, y })
    }

    /// The bit-packed set of the tiles it lights.
    pub fn lit_set(&self) -> &VisibleSet {
        &self.lit
    }

    /// How many times its lit set has been computed (or cleared): it changes exactly when the
    /// light was recomputed.
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

impl KeptView for LightSource {
    const WHO: &'static str = "light";
    const NOTHING: &'static str = "it lights nothing";

    fn options(&self) -> FovOptions {
        FovOptions {
            cone: self.cone,
            ..FovOptions::radius(self.radius)
        }
    }

    fn has_view(&self) -> bool {
        !self.lit.is_empty()
    }

    fn view(&self) -> &VisibleSet {
        &self.lit
    }

    fn start_view(&mut self, at: Option<(Entity, TilePos)>, _first: bool) -> &mut VisibleSet {
        if at.is_none() {
            self.lit.clear();
        }
        self.generation += 1;
        &mut self.lit
    }
}

/// Recomputes the lit sets that need it (in parallel, like the viewers' views).
pub(super) fn recompute_lights(
    world: &mut World,
    mut moved: Local<ViewScan<LightSource>>,
    state: &mut SystemState<Views<LightSource>>,
) {
    // What follows a light's recomputation is `apply_lights`, which finds it changed.
    scan_then_run(world, &mut moved.0, state, |moved, mut lights| {
        lights.recompute(moved).for_each(drop);
    });
}

/// Each light that changed, and what it now gives its map (per thread).
type Wanted = Vec<(Entity, Option<Contribution>)>;

/// Brings each map's [`Lighting`] in step with the lights that changed (moved, recomputed,
/// edited, replaced in place, new): unless the map's ledger holds exactly what a light
/// should add now, what it added is taken away and what it should add is added.
///
/// What each light should add is worked out on every thread (the amounts at each tile are
/// most of the work); then each map takes away and adds them all at once
/// (by bands of rows on every thread).
///
/// What a light added is found by its entity in the maps' ledgers, never in its
/// `LightSource`: a component written over in place (`*light = LightSource::new(..)`, or a
/// clone of another light) carries nothing of what its entity added.
pub(super) fn apply_lights(
    lights: Query<(Entity, &LightSource, &ViewState<LightSource>), Changed<LightSource>>,
    mut maps: Query<LitMap>,
    mut wanted: Local<Parallel<Wanted>>,
) {
    let readable = maps.as_readonly();
    lights.par_iter().for_each(|(entity, light, state)| {
        let contribution = light.contribution(state);
        let lit = contribution
            .as_ref()
            .and_then(|contribution| readable.get(contribution.map()).ok());
        if let (Some(contribution), Some(lit)) = (&contribution, &lit)
            && lit.ledger.holds_exactly(entity, contribution, &light.lit)
        {
            return;
        }
        // A light on an entity that is no map is added nowhere.
        let area = lit.map_or_else(Window::default, |lit| lit.lighting.area());
        let ready = contribution.map(|contribution| contribution.over(&light.lit, area));
        wanted.borrow_local_mut().push((entity, ready));
    });
    // What each map takes away and adds, by map (a game has few).
    let mut changes: Vec<LightingChanges> = Vec::new();
    for (light, contribution) in wanted.drain() {
        let likely = contribution.as_ref().map(Contribution::map);
        if let Some((map, taken)) = unledger(light, likely, &mut maps) {
            changes_of(&mut changes, map).1.push(taken);
        }
        if let Some(contribution) = contribution
            && maps.contains(contribution.map())
        {
            changes_of(&mut changes, contribution.map())
                .2
                .push((light, contribution));
        }
    }
    for (map, taken, added) in changes {
        if let Ok(mut lit) = maps.get_mut(map) {
            lit.apply(&taken, added);
        }
    }
}

/// A map, what it takes away and what it adds.
type LightingChanges = (Entity, Vec<Contribution>, Vec<(Entity, Contribution)>);

/// The changes of `map` among `changes` (new ones if it has none yet).
fn changes_of(changes: &mut Vec<LightingChanges>, map: Entity) -> &mut LightingChanges {
    let i = match changes.iter().position(|(m, ..)| *m == map) {
        Some(i) => i,
        None => {
            changes.push((map, Vec::new(), Vec::new()));
            changes.len() - 1
        }
    };
    &mut changes[i]
}

/// Takes `light` out of the ledger of the map whose [`Lighting`] holds it (`likely`'s if it is
/// there: a light seldom changes maps), and returns that map and what the light added there.
fn unledger(
    light: Entity,
    likely: Option<Entity>,
    maps: &mut Query<LitMap>,
) -> Option<(Entity, Contribution)> {
    if let Some(map) = likely
        && let Ok(mut lit) = maps.get_mut(map)
        && lit.ledger.holds(light)
    {
        return lit.unledger(light).map(|taken| (map, taken));
    }
    // Looked at through `Deref`, so that the maps that do not hold it are not marked changed.
    let mut lit = maps.iter_mut().find(|lit| lit.ledger.holds(light))?;
    let map = lit.entity;
    lit.unledger(light).map(|taken| (map, taken))
}

/// Takes what `light` added away from the [`Lighting`] that holds it: `likely`'s if it is
/// there (a light seldom changes maps), else the one among the others.
fn withdraw(light: Entity, likely: Option<Entity>, maps: &mut Query<LitMap>) {
    if let Some(mut lit) = likely.and_then(|map| maps.get_mut(map).ok())
        && lit.ledger.holds(light)
    {
        lit.take_away(light);
        return;
    }
    for mut lit in maps.iter_mut() {
        // Looked at through `Deref`, so that the maps that do not hold it are not marked
        // changed.
        if lit.ledger.holds(light) {
            lit.take_away(light);
            return;
        }
    }
}

/// A light was removed, replaced (its `LightSource` inserted again), despawned or disabled
/// (`C` is the component of the lifecycle event `E`): it lights nothing any more, and a
/// re-enabled light is recomputed.
pub(super) fn on_light_gone<E: EntityEvent, C: Component>(
    event: On<E, C>,
    lights: Query<(), (With<LightSource>, Allow<Disabled>)>,
    mut maps: Query<LitMap>,
) {
    let light = event.event_target();
    if lights.contains(light) {
        withdraw(light, None, &mut maps);
    }
}
