//! Model-based test of the plugin: random sequences of operations on a headless app (maps
//! spawned, resized, stripped, despawned, layered by hand and by `LayerGroup` (two groups,
//! nested or not, tilemaps re-parented, groups switched off), and retyped (square, diamond and
//! staggered isometric, the six hexagonal systems); viewers, walls, doors and spottable
//! targets spawned, moved, retargeted, disabled and despawned; teams, fog styles and saved
//! memories switched), with `app.update()` between random batches. After every update the app
//! is held to a plain model of the README's rules:
//!
//! - every group's `LayerGroup::root()` and every tilemap's `LayerOf` are the model's (the
//!   first tilemap below a group, depth first, is the root, the others its layers, whatever
//!   was set by hand; a tilemap that leaves every group loses its `LayerOf`);
//! - every enabled viewer's view is the field of view of its root map's grid (square, the
//!   hexagonal one, or the square one on a staggered map's diamond grid) on the model's
//!   opacity of that map, with its options (empty, and no `origin()`, when it stands on no
//!   tile of a tilemap);
//! - every root tilemap has a `FogOfWar` whose team states are the model's (visible: the union
//!   of the team's enabled `RevealsFog` members' views there; explored: ever visible, kept
//!   across a resize where it fits, as restored from a memory); other maps have none;
//! - the tiles of every fog layer (a tilemap with `FogStyle` whose root has a fog) look like
//!   the `FogStyle` look of the model's state for the team in `FogTeam` (the soft-edge look
//!   for a tile not seen with a neighbour seen, as bevy_ecs_tilemap counts neighbours on the
//!   root's grid; with fades, once that look has held longer than the fade: each update is 20
//!   ms of the app's clock), the tiles of a layer whose `FogStyle` was removed keep their
//!   colour (even mid-fade), and
//!   `HideOutsideView` entities are shown exactly on tiles that team sees;
//! - every enabled viewer's `spotted()` is the set of enabled `Spottable` entities on its map
//!   standing on a tile it sees, and the `Spotted` / `LostSight` messages (and entity events)
//!   of the update are exactly the differences from the previous update's sets (an entity
//!   that was disabled and enabled again, or lost and regained its tile or `Spottable`, within
//!   the batch may add a matching `LostSight` + `Spotted` pair);
//! - nothing panics.
//!
//! A case is 1 to 3 maps (often layers of each other), a few viewers and targets, then 50 to
//! 80 random ops (see [`Op`]; positions not marked `raw` wrap onto the entity's tilemap, indices
//! are taken modulo the number of viewers, props or targets). `PROPTEST_CASES` sets the number
//! of cases (256 by default). A failure is shrunk, then the ops it does not need are dropped,
//! and the case is printed with its message, tagged with the check's class: `view`, `fog`,
//! `fog-layer`, `hide`, `spotted`, `sightings`, `memory`, `groups` or `panic`. `MODEL_SKIP`, a
//! comma-separated list of op kinds and check classes (e.g. `MODEL_SKIP=SetSight,fog-layer`),
//! leaves those ops out and those checks off (`layers`: no map is spawned as a layer), to look
//! past a known failure for the next one.

mod common_app;

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI, TAU};
use std::time::Duration;

use bevy::camera::visibility::Visibility;
use bevy::ecs::entity_disabling::Disabled;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ecs_tilemap::helpers::hex_grid::neighbors::HexNeighbors;
use bevy_ecs_tilemap::helpers::square_grid::neighbors::Neighbors;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{DrawnTeam, ExploredMemory};
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestError, TestRunner};

/// Map slots: at most this many tilemaps live at once.
const SLOTS: usize = 3;
/// Tilemaps are 1..=MAX_SIDE tiles per side.
const MAX_SIDE: u32 = 12;
/// Positions are drawn in 0..COORD, so some are off every map.
const COORD: u32 = 14;
/// Teams 0..TEAMS.
const TEAMS: u32 = 3;
/// Saved memory slots.
const MEMORIES: usize = 2;
/// Group entities (the second may be a child of the first).
const GROUPS: usize = 2;

// ---------------------------------------------------------------------------------------------
// Operations

/// How far a viewer sees.
#[derive(Clone, Copy, Debug)]
enum Reach {
    /// `Viewshed::new(r)`.
    Tiles(u32),
    /// `Viewshed::new(Viewshed::UNLIMITED)`.
    Max,
    /// `Viewshed::unlimited()`.
    Unlimited,
}

const CONE_WIDTHS: [f64; 7] = [0.0, FRAC_PI_4, FRAC_PI_2, PI, 1.5 * PI, TAU, f64::NAN];

/// A viewer's settings, built only with `Viewshed`'s constructors and builder methods.
#[derive(Clone, Copy, Debug)]
struct Sight {
    reach: Reach,
    shape: Option<DistanceShape>,
    /// `VisionCone::toward(dx, dy, CONE_WIDTHS[i])`.
    cone: Option<(i32, i32, usize)>,
    permissive: bool,
    dark_walls: bool,
}

impl Sight {
    fn cone(&self) -> Option<VisionCone> {
        self.cone
            .map(|(dx, dy, w)| VisionCone::toward(dx, dy, CONE_WIDTHS[w]))
    }

    fn viewshed(&self) -> Viewshed {
        let mut viewshed = match self.reach {
            Reach::Tiles(r) => Viewshed::new(r),
            Reach::Max => Viewshed::new(Viewshed::UNLIMITED),
            Reach::Unlimited => Viewshed::unlimited(),
        };
        if let Some(shape) = self.shape {
            viewshed = viewshed.with_shape(shape);
        }
        if let Some(cone) = self.cone() {
            viewshed = viewshed.with_cone(cone);
        }
        if self.permissive {
            viewshed = viewshed.with_mode(FovMode::Permissive);
        }
        if self.dark_walls {
            viewshed = viewshed.with_light_walls(false);
        }
        viewshed
    }

    /// The same settings for the core (the oracle): `u32::MAX` is unlimited (README).
    fn options(&self) -> FovOptions {
        let mut options = match self.reach {
            Reach::Tiles(r) => FovOptions::radius(r),
            Reach::Max | Reach::Unlimited => FovOptions::unlimited(),
        };
        if let Some(shape) = self.shape {
            options = options.with_shape(shape);
        }
        if let Some(cone) = self.cone() {
            options = options.with_cone(cone);
        }
        if self.permissive {
            options = options.with_mode(FovMode::Permissive);
        }
        options.with_light_walls(!self.dark_walls)
    }
}

/// A tile to stand on: `(x, y)` as drawn when `raw` (often off the map), else wrapped onto the
/// size of the tilemap the entity is on (when it is on one).
#[derive(Clone, Copy, Debug)]
struct Pos {
    x: u32,
    y: u32,
    raw: bool,
}

/// Which entity a `TilemapId` points at.
#[derive(Clone, Copy, Debug)]
enum MapRef {
    /// The tilemap in this slot (its last despawned one if the slot is empty).
    Live(usize),
    /// The last tilemap despawned from this slot (the live one if none was).
    Dead(usize),
    /// An entity that is not a tilemap.
    NotAMap,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum StyleKind {
    Default,
    /// The default looks, with soft edges of their own colours.
    Soft,
    /// The default looks, fading in over 40 ms and out over 100 ms.
    Fading,
    Overlay,
    /// Colours visible tiles red and remembered ones blue, leaves the rest alone.
    Partial,
}

impl StyleKind {
    fn style(self) -> FogStyle {
        match self {
            StyleKind::Default => FogStyle::default(),
            StyleKind::Overlay => FogStyle::overlay(),
            StyleKind::Soft => FogStyle::default().with_soft_edge(SoftEdge {
                remembered: TileLook::shown(Color::srgb(0.3, 0.3, 0.5)),
                unexplored: TileLook::shown(Color::srgb(0.1, 0.1, 0.2)),
            }),
            StyleKind::Fading => FogStyle::default().with_fade(FogFade::new(
                Duration::from_millis(40),
                Duration::from_millis(100),
            )),
            StyleKind::Partial => FogStyle {
                visible: TileLook {
                    visible: None,
                    color: Some(Color::srgb(1.0, 0.0, 0.0)),
                },
                remembered: TileLook::shown(Color::srgb(0.0, 0.0, 1.0)),
                unexplored: TileLook::UNCHANGED,
                ..FogStyle::default()
            },
        }
    }
}

/// A tilemap's grid: bevy_ecs_tilemap's `TilemapType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MapKind {
    Square,
    /// Diamond isometric: a square grid drawn turned.
    Diamond,
    /// Staggered isometric: a square grid in other coordinates.
    Staggered,
    Hex(HexCoordSystem),
}

impl MapKind {
    fn tilemap_type(self) -> TilemapType {
        match self {
            MapKind::Square => TilemapType::Square,
            MapKind::Diamond => TilemapType::Isometric(IsoCoordSystem::Diamond),
            MapKind::Staggered => TilemapType::Isometric(IsoCoordSystem::Staggered),
            MapKind::Hex(system) => TilemapType::Hexagon(system),
        }
    }

    /// The rule: what a viewer at `at` with `options` sees on a map of this kind whose tiles'
    /// opacity is `grid`. Square and diamond maps: the square field of view. Hexagonal maps:
    /// the hexagonal one in the map's coordinate system. Staggered maps: tile `(x, y)` is cell
    /// `(x, x + y)` of a diamond grid whose other cells are walls; the square field of view
    /// there, its cells that are tiles read back.
    fn view(self, grid: &OpacityGrid, at: (u32, u32), options: FovOptions) -> Vec<(u32, u32)> {
        match self {
            MapKind::Square | MapKind::Diamond => {
                let view = field_of_view(grid, at, options).expect("origin on map");
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
                let view = field_of_view(&diamond, (at.0, at.0 + at.1), options)
                    .expect("origin on the diamond grid");
                view.iter()
                    .filter(|&(u, v)| v >= u && v - u < h)
                    .map(|(u, v)| (u, v - u))
                    .collect()
            }
        }
    }
}

impl MapKind {
    /// The neighbours of a tile, as bevy_ecs_tilemap counts them on a map of this kind: 8 on
    /// square and isometric maps (in staggered coordinates on staggered ones), 6 on hexagonal
    /// ones.
    fn neighbours(self, size: (u32, u32), (x, y): (u32, u32)) -> Vec<(u32, u32)> {
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

/// Each update advances the app's clock by this much.
const FRAME: Duration = Duration::from_millis(20);
/// Updates after which a look has held longer than the longest fade (100 ms).
const SETTLED: u32 = 6;

/// One step of a test case. Indices into the lists of viewers, props and targets are taken
/// modulo their length (no-op when empty); map slots modulo [`SLOTS`] (no-op when empty).
#[derive(Clone, Debug)]
enum Op {
    /// Does nothing: what failing cases shrink their ops to (the ops list cannot get shorter
    /// than 50), left out when a case is printed.
    Nop,
    Update,
    // Viewers.
    SpawnViewer {
        map: MapRef,
        at: Pos,
        sight: Sight,
        reveals: bool,
        team: Option<u32>,
        spottable: bool,
        opaque: bool,
    },
    DespawnViewer(usize),
    MoveViewer(usize, Pos),
    UnplaceViewer(usize),
    SetViewerMap(usize, MapRef),
    SetSight(usize, Sight),
    ToggleViewerDisabled(usize),
    SetRevealsFog(usize, bool),
    /// A viewer's team: a `Team` inserted or removed, or (`true`) the one it has changed in
    /// place.
    SetTeam(usize, Option<u32>, bool),
    SetFogTeam(u32),
    /// The tilemap in a slot draws this team (`DrawnTeam`), or the one of `FogTeam` (`None`).
    SetDrawnTeam(usize, Option<u32>),
    // Opacity.
    ToggleTileOpaque(usize, (u32, u32)),
    ToggleTileDisabled(usize, (u32, u32)),
    DespawnTile(usize, (u32, u32)),
    SpawnProp(MapRef, Pos),
    MoveProp(usize, Pos),
    SetPropMap(usize, MapRef),
    TogglePropOpaque(usize),
    TogglePropDisabled(usize),
    DespawnProp(usize),
    // Spottable targets.
    SpawnTarget {
        map: MapRef,
        at: Pos,
        hide: bool,
    },
    MoveTarget(usize, Pos),
    SetTargetMap(usize, MapRef),
    UnplaceTarget(usize),
    ToggleSpottable(usize),
    ToggleTargetDisabled(usize),
    DespawnTarget(usize),
    // Maps.
    SpawnMap {
        slot: usize,
        size: (u32, u32),
        walls: u64,
        style: Option<StyleKind>,
        layer_of: Option<usize>,
    },
    DespawnMap(usize),
    ResizeMap(usize, (u32, u32)),
    /// Removes `TilemapSize` (false) or `TileStorage` (true); `ResizeMap` puts both back.
    StripMap(usize, bool),
    SetLayerOf(usize, Option<usize>),
    SetFogStyle(usize, Option<StyleKind>),
    SetMapType(usize, MapKind),
    // Layer groups: two group entities, the second one possibly a child of the first.
    /// The tilemap in a slot becomes the last child of group `g`, or (`None`) of nothing.
    SetGroup(usize, Option<usize>),
    /// Group `g` gets or loses its `LayerGroup`.
    ToggleLayerGroup(usize),
    /// The second group entity becomes a child of the first, or stops being one.
    NestGroups(bool),
    // Saved memory.
    TakeMemory(usize, usize),
    RestoreMemory(usize, usize),
}

impl Op {
    /// The index of the viewer, prop or target the op acts on.
    fn index_mut(&mut self) -> Option<&mut usize> {
        match self {
            Op::DespawnViewer(i)
            | Op::MoveViewer(i, _)
            | Op::UnplaceViewer(i)
            | Op::SetViewerMap(i, _)
            | Op::SetSight(i, _)
            | Op::ToggleViewerDisabled(i)
            | Op::SetRevealsFog(i, _)
            | Op::SetTeam(i, ..)
            | Op::MoveProp(i, _)
            | Op::SetPropMap(i, _)
            | Op::TogglePropOpaque(i)
            | Op::TogglePropDisabled(i)
            | Op::DespawnProp(i)
            | Op::MoveTarget(i, _)
            | Op::SetTargetMap(i, _)
            | Op::UnplaceTarget(i)
            | Op::ToggleSpottable(i)
            | Op::ToggleTargetDisabled(i)
            | Op::DespawnTarget(i) => Some(i),
            _ => None,
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Op::Nop => "Nop",
            Op::Update => "Update",
            Op::SpawnViewer { .. } => "SpawnViewer",
            Op::DespawnViewer(..) => "DespawnViewer",
            Op::MoveViewer(..) => "MoveViewer",
            Op::UnplaceViewer(..) => "UnplaceViewer",
            Op::SetViewerMap(..) => "SetViewerMap",
            Op::SetSight(..) => "SetSight",
            Op::ToggleViewerDisabled(..) => "ToggleViewerDisabled",
            Op::SetRevealsFog(..) => "SetRevealsFog",
            Op::SetTeam(..) => "SetTeam",
            Op::SetFogTeam(..) => "SetFogTeam",
            Op::SetDrawnTeam(..) => "SetDrawnTeam",
            Op::ToggleTileOpaque(..) => "ToggleTileOpaque",
            Op::ToggleTileDisabled(..) => "ToggleTileDisabled",
            Op::DespawnTile(..) => "DespawnTile",
            Op::SpawnProp(..) => "SpawnProp",
            Op::MoveProp(..) => "MoveProp",
            Op::SetPropMap(..) => "SetPropMap",
            Op::TogglePropOpaque(..) => "TogglePropOpaque",
            Op::TogglePropDisabled(..) => "TogglePropDisabled",
            Op::DespawnProp(..) => "DespawnProp",
            Op::SpawnTarget { .. } => "SpawnTarget",
            Op::MoveTarget(..) => "MoveTarget",
            Op::SetTargetMap(..) => "SetTargetMap",
            Op::UnplaceTarget(..) => "UnplaceTarget",
            Op::ToggleSpottable(..) => "ToggleSpottable",
            Op::ToggleTargetDisabled(..) => "ToggleTargetDisabled",
            Op::DespawnTarget(..) => "DespawnTarget",
            Op::SpawnMap { .. } => "SpawnMap",
            Op::DespawnMap(..) => "DespawnMap",
            Op::ResizeMap(..) => "ResizeMap",
            Op::StripMap(..) => "StripMap",
            Op::SetLayerOf(..) => "SetLayerOf",
            Op::SetFogStyle(..) => "SetFogStyle",
            Op::SetMapType(..) => "SetMapType",
            Op::SetGroup(..) => "SetGroup",
            Op::ToggleLayerGroup(..) => "ToggleLayerGroup",
            Op::NestGroups(..) => "NestGroups",
            Op::TakeMemory(..) => "TakeMemory",
            Op::RestoreMemory(..) => "RestoreMemory",
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Strategies

fn at() -> impl Strategy<Value = (u32, u32)> {
    (0..COORD, 0..COORD)
}

fn pos() -> impl Strategy<Value = Pos> {
    (0..COORD, 0..COORD, prop::bool::weighted(0.15)).prop_map(|(x, y, raw)| Pos { x, y, raw })
}

fn size() -> impl Strategy<Value = (u32, u32)> {
    (1..=MAX_SIDE, 1..=MAX_SIDE)
}

fn map_ref() -> impl Strategy<Value = MapRef> {
    prop_oneof![
        8 => (0..SLOTS).prop_map(MapRef::Live),
        1 => (0..SLOTS).prop_map(MapRef::Dead),
        1 => Just(MapRef::NotAMap),
    ]
}

fn sight() -> impl Strategy<Value = Sight> {
    let reach = prop_oneof![
        5 => (0u32..=6).prop_map(Reach::Tiles),
        1 => Just(Reach::Max),
        1 => Just(Reach::Unlimited),
    ];
    let shape = prop::option::weighted(
        0.3,
        prop_oneof![
            Just(DistanceShape::Euclidean),
            Just(DistanceShape::Chebyshev),
            Just(DistanceShape::Manhattan),
        ],
    );
    let cone = prop::option::weighted(0.3, (-1i32..=1, -1i32..=1, 0..CONE_WIDTHS.len()));
    (
        reach,
        shape,
        cone,
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.2),
    )
        .prop_map(|(reach, shape, cone, permissive, dark_walls)| Sight {
            reach,
            shape,
            cone,
            permissive,
            dark_walls,
        })
}

fn team() -> impl Strategy<Value = Option<u32>> {
    prop::option::weighted(0.4, 0..TEAMS)
}

fn style() -> impl Strategy<Value = Option<StyleKind>> {
    prop::option::weighted(
        0.6,
        prop_oneof![
            3 => Just(StyleKind::Default),
            2 => Just(StyleKind::Overlay),
            1 => Just(StyleKind::Partial),
            2 => Just(StyleKind::Soft),
            2 => Just(StyleKind::Fading),
        ],
    )
}

fn map_kind() -> impl Strategy<Value = MapKind> {
    let hex = prop_oneof![
        Just(HexCoordSystem::Row),
        Just(HexCoordSystem::Column),
        Just(HexCoordSystem::RowEven),
        Just(HexCoordSystem::RowOdd),
        Just(HexCoordSystem::ColumnEven),
        Just(HexCoordSystem::ColumnOdd),
    ];
    prop_oneof![
        2 => Just(MapKind::Square),
        1 => Just(MapKind::Diamond),
        2 => Just(MapKind::Staggered),
        3 => hex.prop_map(MapKind::Hex),
    ]
}

fn spawn_viewer() -> impl Strategy<Value = Op> {
    (
        map_ref(),
        pos(),
        sight(),
        prop::bool::weighted(0.6),
        team(),
        prop::bool::weighted(0.3),
        prop::bool::weighted(0.1),
    )
        .prop_map(
            |(map, at, sight, reveals, team, spottable, opaque)| Op::SpawnViewer {
                map,
                at,
                sight,
                reveals,
                team,
                spottable,
                opaque,
            },
        )
}

fn spawn_target() -> impl Strategy<Value = Op> {
    (map_ref(), pos(), prop::bool::weighted(0.5)).prop_map(|(map, at, hide)| Op::SpawnTarget {
        map,
        at,
        hide,
    })
}

fn spawn_map() -> impl Strategy<Value = Op> {
    (
        0..SLOTS,
        size(),
        0u64..8,
        style(),
        prop::option::weighted(0.3, 0..SLOTS),
    )
        .prop_map(|(slot, size, walls, style, layer_of)| Op::SpawnMap {
            slot,
            size,
            walls,
            style,
            layer_of,
        })
}

fn op() -> impl Strategy<Value = Op> {
    let i = || 0usize..6;
    let slot = || 0usize..SLOTS;
    prop_oneof![
        1 => Just(Op::Nop),
        14 => Just(Op::Update),
        4 => spawn_viewer(),
        1 => i().prop_map(Op::DespawnViewer),
        6 => (i(), pos()).prop_map(|(i, at)| Op::MoveViewer(i, at)),
        1 => i().prop_map(Op::UnplaceViewer),
        2 => (i(), map_ref()).prop_map(|(i, m)| Op::SetViewerMap(i, m)),
        3 => (i(), sight()).prop_map(|(i, s)| Op::SetSight(i, s)),
        4 => i().prop_map(Op::ToggleViewerDisabled),
        2 => (i(), any::<bool>()).prop_map(|(i, on)| Op::SetRevealsFog(i, on)),
        2 => (i(), team(), any::<bool>()).prop_map(|(i, t, p)| Op::SetTeam(i, t, p)),
        1 => (0..TEAMS).prop_map(Op::SetFogTeam),
        1 => (slot(), team()).prop_map(|(s, t)| Op::SetDrawnTeam(s, t)),
        5 => (slot(), at()).prop_map(|(s, at)| Op::ToggleTileOpaque(s, at)),
        2 => (slot(), at()).prop_map(|(s, at)| Op::ToggleTileDisabled(s, at)),
        1 => (slot(), at()).prop_map(|(s, at)| Op::DespawnTile(s, at)),
        2 => (map_ref(), pos()).prop_map(|(m, at)| Op::SpawnProp(m, at)),
        3 => (i(), pos()).prop_map(|(i, at)| Op::MoveProp(i, at)),
        1 => (i(), map_ref()).prop_map(|(i, m)| Op::SetPropMap(i, m)),
        2 => i().prop_map(Op::TogglePropOpaque),
        2 => i().prop_map(Op::TogglePropDisabled),
        1 => i().prop_map(Op::DespawnProp),
        3 => spawn_target(),
        4 => (i(), pos()).prop_map(|(i, at)| Op::MoveTarget(i, at)),
        1 => (i(), map_ref()).prop_map(|(i, m)| Op::SetTargetMap(i, m)),
        1 => i().prop_map(Op::UnplaceTarget),
        1 => i().prop_map(Op::ToggleSpottable),
        1 => i().prop_map(Op::ToggleTargetDisabled),
        1 => i().prop_map(Op::DespawnTarget),
        1 => spawn_map(),
        1 => slot().prop_map(Op::DespawnMap),
        3 => (slot(), size()).prop_map(|(s, size)| Op::ResizeMap(s, size)),
        2 => (slot(), any::<bool>()).prop_map(|(s, storage)| Op::StripMap(s, storage)),
        3 => (slot(), prop::option::weighted(0.6, slot()))
            .prop_map(|(s, of)| Op::SetLayerOf(s, of)),
        1 => (slot(), style()).prop_map(|(s, style)| Op::SetFogStyle(s, style)),
        2 => (slot(), map_kind()).prop_map(|(s, kind)| Op::SetMapType(s, kind)),
        3 => (slot(), prop::option::weighted(0.7, 0..GROUPS))
            .prop_map(|(s, g)| Op::SetGroup(s, g)),
        1 => (0..GROUPS).prop_map(Op::ToggleLayerGroup),
        1 => any::<bool>().prop_map(Op::NestGroups),
        1 => (slot(), 0..MEMORIES).prop_map(|(s, m)| Op::TakeMemory(s, m)),
        1 => (slot(), 0..MEMORIES).prop_map(|(s, m)| Op::RestoreMemory(s, m)),
    ]
}

/// A test case's ops, printed one per line without the `Nop`s.
#[derive(Clone)]
struct Case(Vec<Op>);

impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "[")?;
        for op in self.0.iter().filter(|op| !matches!(op, Op::Nop)) {
            writeln!(f, "    {op:?},")?;
        }
        write!(f, "]")
    }
}

/// A test case: a few maps, viewers and targets to start with, then 50 to 80 random ops.
fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec((spawn_map(), prop::bool::weighted(0.5)), 1..=3),
        prop::collection::vec(spawn_viewer(), 1..=5),
        prop::collection::vec(spawn_target(), 0..=3),
        prop::collection::vec(op(), 50..=80),
    )
        .prop_map(|(mut maps, viewers, targets, ops)| {
            // Slot i, often a layer of the map before it (so layers of layers are common).
            let mut all: Vec<Op> = Vec::new();
            for (i, (mut map, layer)) in maps.drain(..).enumerate() {
                if let Op::SpawnMap { slot, layer_of, .. } = &mut map {
                    *slot = i;
                    *layer_of = (layer && i > 0).then(|| i - 1);
                }
                all.push(map);
            }
            all.extend(viewers);
            all.extend(targets);
            all.push(Op::Update);
            all.extend(ops);
            Case(all)
        })
}

// ---------------------------------------------------------------------------------------------
// The model

#[derive(Clone, Debug)]
struct MapModel {
    entity: Entity,
    /// The size of its tile storage (and of its `TilemapSize` while it has one).
    size: (u32, u32),
    has_size: bool,
    has_storage: bool,
    layer_of: Option<Entity>,
    style: Option<StyleKind>,
    kind: MapKind,
    /// Its `DrawnTeam`.
    drawn: Option<u32>,
    tiles: HashMap<(u32, u32), Entity>,
}

#[derive(Clone, Copy, Debug)]
struct ViewerModel {
    sight: Sight,
    reveals: bool,
    team: Option<u32>,
}

/// Any entity the test placed: a tile, a prop (an opaque non-tile entity), a viewer or a
/// target.
#[derive(Clone, Debug, Default)]
struct EntityModel {
    tile: Option<(u32, u32)>,
    tilemap: Option<Entity>,
    opaque: bool,
    disabled: bool,
    spottable: bool,
    hide: bool,
    viewer: Option<ViewerModel>,
}

#[derive(Clone, Debug, Default)]
struct TeamModel {
    visible: HashSet<(u32, u32)>,
    explored: HashSet<(u32, u32)>,
}

#[derive(Clone, Debug)]
struct FogModel {
    size: (u32, u32),
    teams: BTreeMap<u32, TeamModel>,
}

impl FogModel {
    fn state(&self, team: u32, cell: (u32, u32)) -> FogState {
        match self.teams.get(&team) {
            Some(fog) if fog.visible.contains(&cell) => FogState::Visible,
            Some(fog) if fog.explored.contains(&cell) => FogState::Remembered,
            _ => FogState::Unexplored,
        }
    }

    fn visible(&self, team: u32, cell: (u32, u32)) -> bool {
        self.teams
            .get(&team)
            .is_some_and(|fog| fog.visible.contains(&cell))
    }
}

/// A memory taken from the app, and what the model says it holds.
#[derive(Clone, Debug)]
struct Saved {
    memory: ExploredMemory,
    size: (u32, u32),
    explored: BTreeMap<u32, HashSet<(u32, u32)>>,
}

#[derive(Default)]
struct Model {
    maps: [Option<MapModel>; SLOTS],
    dead: [Option<Entity>; SLOTS],
    entities: HashMap<Entity, EntityModel>,
    viewers: Vec<Entity>,
    props: Vec<Entity>,
    targets: Vec<Entity>,
    fog_team: u32,
    /// The fogs as of the last update.
    fogs: HashMap<Entity, FogModel>,
    /// What each viewer spotted as of the last update.
    spotted: HashMap<Entity, BTreeSet<Entity>>,
    memories: [Option<Saved>; MEMORIES],
    /// Entities that stopped and started standing somewhere within this batch.
    blipped: HashSet<Entity>,
    groups: GroupsModel,
}

/// The group entities, which of them has a `LayerGroup`, and the children of each (in their
/// `Children` order: a new child goes last).
#[derive(Default)]
struct GroupsModel {
    entities: [Option<Entity>; GROUPS],
    on: [bool; GROUPS],
    children: HashMap<Entity, Vec<Entity>>,
    /// The tilemaps whose `LayerOf` a group kept as of the last update.
    grouped: HashSet<Entity>,
}

impl GroupsModel {
    fn detach(&mut self, entity: Entity) {
        for children in self.children.values_mut() {
            children.retain(|&c| c != entity);
        }
    }

    fn attach(&mut self, entity: Entity, parent: Option<Entity>) {
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
    fn map(&self, entity: Entity) -> Option<&MapModel> {
        self.maps.iter().flatten().find(|m| m.entity == entity)
    }

    /// The root of `tilemap`'s `LayerOf` chain, `None` for a cycle.
    fn root_of(&self, tilemap: Entity) -> Option<Entity> {
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
    fn settle_groups(&mut self) -> [Option<Entity>; GROUPS] {
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

    /// The team a root map draws: its `DrawnTeam`, else `FogTeam`'s.
    fn drawn_on(&self, root: Entity) -> u32 {
        self.map(root)
            .and_then(|m| m.drawn)
            .unwrap_or(self.fog_team)
    }

    /// The root map and tile an entity stands on (whether or not the root is a tilemap).
    fn stands(&self, entity: &EntityModel) -> Option<(Entity, (u32, u32))> {
        Some((self.root_of(entity.tilemap?)?, entity.tile?))
    }
}

// ---------------------------------------------------------------------------------------------
// The app and its driver

/// Spotted (true) / LostSight (false) as (viewer, target): from the messages and from the
/// entity events.
#[derive(Resource, Default)]
struct Heard {
    messages: Vec<(bool, Entity, Entity)>,
    events: Vec<(bool, Entity, Entity)>,
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

struct Harness {
    app: App,
    model: Model,
    /// An entity that is not a tilemap.
    rock: Entity,
    /// Per fog-layer tile: the look it should reach (state, soft edge, style) and for how
    /// many updates that has held.
    looks: HashMap<Entity, ((FogState, bool, StyleKind), u32)>,
    /// The colours of the tiles of layers whose `FogStyle` was removed: nobody writes them
    /// any more, even mid-fade.
    frozen: HashMap<Entity, Option<Color>>,
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

/// The op kinds and check classes named in `MODEL_SKIP`.
fn skip_list() -> &'static HashSet<String> {
    static SKIP: std::sync::OnceLock<HashSet<String>> = std::sync::OnceLock::new();
    SKIP.get_or_init(|| {
        std::env::var("MODEL_SKIP")
            .unwrap_or_default()
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    })
}

fn skipped(name: &str) -> bool {
    skip_list().contains(name)
}

/// Fails the case with `[class] message` unless `cond` holds; the class keeps the final
/// minimisation on the same kind of failure.
macro_rules! check {
    ($cond:expr, $class:literal, $($fmt:tt)*) => {
        if !$cond && !skipped($class) {
            return Err(TestCaseError::fail(format!(
                "[{}] {}",
                $class,
                format!($($fmt)*)
            )));
        }
    };
}

impl Harness {
    fn new() -> Self {
        let mut app = common_app::app();
        app.init_resource::<Heard>()
            .add_systems(PostUpdate, read_messages.after(ViewshedSystems::Notify))
            .add_observer(|e: On<Spotted>, mut heard: ResMut<Heard>| {
                heard.events.push((true, e.viewer, e.target));
            })
            .add_observer(|e: On<LostSight>, mut heard: ResMut<Heard>| {
                heard.events.push((false, e.viewer, e.target));
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

    fn world(&mut self) -> &mut World {
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

    fn apply(&mut self, op: &Op) -> Result<(), TestCaseError> {
        if skipped(op.name()) {
            return Ok(());
        }
        let viewer = |h: &Self, i: usize| Self::pick(&h.model.viewers, i);
        let prop = |h: &Self, i: usize| Self::pick(&h.model.props, i);
        let target = |h: &Self, i: usize| Self::pick(&h.model.targets, i);
        match *op {
            Op::Nop => {}
            Op::Update => return self.update(),
            Op::SpawnViewer {
                map,
                at,
                sight,
                reveals,
                team,
                spottable,
                opaque,
            } => {
                let map = self.resolve(map);
                let (x, y) = self.wrap(Some(map), at);
                let mut entity =
                    self.world()
                        .spawn((sight.viewshed(), TilePos { x, y }, TilemapId(map)));
                if reveals {
                    entity.insert(RevealsFog);
                }
                if let Some(team) = team {
                    entity.insert(Team(team));
                }
                if spottable {
                    entity.insert(Spottable);
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
                        viewer: Some(ViewerModel {
                            sight,
                            reveals,
                            team,
                        }),
                        ..default()
                    },
                );
                self.model.viewers.push(entity);
                if spottable {
                    self.model.targets.push(entity);
                }
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
                    self.entity(v).viewer.as_mut().unwrap().reveals = on;
                    if on {
                        self.world().entity_mut(v).insert(RevealsFog);
                    } else {
                        self.world().entity_mut(v).remove::<RevealsFog>();
                    }
                }
            }
            Op::SetTeam(i, team, in_place) => {
                if let Some(v) = viewer(self, i) {
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
            }
            Op::SetDrawnTeam(slot, team) => {
                let Some(map) = self.live_map(slot) else {
                    return Ok(());
                };
                self.model.maps[slot].as_mut().unwrap().drawn = team;
                match team {
                    Some(team) => {
                        self.world().entity_mut(map).insert(DrawnTeam(Team(team)));
                    }
                    None => {
                        self.world().entity_mut(map).remove::<DrawnTeam>();
                    }
                }
            }
            Op::SetFogTeam(team) => {
                self.model.fog_team = team;
                self.world().insert_resource(FogTeam(Team(team)));
            }
            Op::ToggleTileOpaque(slot, at) => {
                if let Some(tile) = self.tile_at(slot, at) {
                    self.toggle_opaque(tile);
                }
            }
            Op::ToggleTileDisabled(slot, at) => {
                if let Some(tile) = self.tile_at(slot, at) {
                    self.toggle_disabled(tile);
                }
            }
            Op::DespawnTile(slot, at) => {
                if let Some(tile) = self.tile_at(slot, at) {
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
            }
            Op::SpawnProp(map, at) => {
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
            Op::SpawnTarget { map, at, hide } => {
                let map = self.resolve(map);
                let (x, y) = self.wrap(Some(map), at);
                let mut entity = self
                    .world()
                    .spawn((Spottable, TilePos { x, y }, TilemapId(map)));
                if hide {
                    entity.insert(HideOutsideView);
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
                    self.model.blipped.insert(t);
                    let spottable = !self.model.entities[&t].spottable;
                    self.entity(t).spottable = spottable;
                    if spottable {
                        self.world().entity_mut(t).insert(Spottable);
                    } else {
                        self.world().entity_mut(t).remove::<Spottable>();
                    }
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
            Op::SpawnMap {
                slot,
                size: (w, h),
                walls,
                style,
                layer_of,
            } => {
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
                });
            }
            Op::DespawnMap(slot) => self.despawn_map(slot),
            Op::ResizeMap(slot, (w, h)) => {
                let Some(map) = self.model.maps[slot].clone() else {
                    return Ok(());
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
            Op::StripMap(slot, storage) => {
                let Some(map) = self.live_map(slot) else {
                    return Ok(());
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
            Op::SetLayerOf(slot, of) => {
                let Some(map) = self.live_map(slot) else {
                    return Ok(());
                };
                match of {
                    Some(other) => {
                        let Some(root) = self.live_map(other).filter(|&r| r != map) else {
                            return Ok(());
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
            Op::SetFogStyle(slot, style) => {
                let Some(map) = self.live_map(slot) else {
                    return Ok(());
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
            Op::SetGroup(slot, group) => {
                let Some(map) = self.live_map(slot) else {
                    return Ok(());
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
                    return Ok(());
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
                    return Ok(());
                };
                self.model.groups.attach(inner, nested.then_some(outer));
                if nested {
                    self.world().entity_mut(inner).insert(ChildOf(outer));
                } else {
                    self.world().entity_mut(inner).remove::<ChildOf>();
                }
            }
            Op::SetMapType(slot, kind) => {
                let Some(map) = self.live_map(slot) else {
                    return Ok(());
                };
                self.model.maps[slot].as_mut().unwrap().kind = kind;
                self.world().entity_mut(map).insert(kind.tilemap_type());
            }
            Op::TakeMemory(slot, memory) => {
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
            }
            Op::RestoreMemory(slot, memory) => {
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
            }
        }
        Ok(())
    }

    // -----------------------------------------------------------------------------------------
    // The checks after an update

    fn update(&mut self) -> Result<(), TestCaseError> {
        self.app.update();
        let heard = std::mem::take(&mut *self.world().resource_mut::<Heard>());
        let roots = self.model.settle_groups();
        let model = &self.model;
        let world = self.app.world();

        // Layer groups: each group's root, and `LayerOf` on every tilemap.
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

        // Opacity of every root tilemap.
        let mut grids: HashMap<Entity, OpacityGrid> = HashMap::new();
        for map in model.maps.iter().flatten() {
            if model.is_root_tilemap(map.entity) {
                grids.insert(map.entity, OpacityGrid::new(map.size.0, map.size.1));
            }
        }
        for entity in model.entities.values() {
            if !entity.opaque || entity.disabled {
                continue;
            }
            if let Some((root, (x, y))) = model.stands(entity)
                && let Some(grid) = grids.get_mut(&root)
                && grid.contains(x, y)
            {
                grid.set_opaque(x, y, true);
            }
        }

        // Views.
        let mut views: HashMap<Entity, (Entity, HashSet<(u32, u32)>)> = HashMap::new();
        for &viewer in &model.viewers {
            let entity = &model.entities[&viewer];
            if entity.disabled {
                continue;
            }
            let sight = entity.viewer.unwrap().sight;
            let expected = model.stands(entity).and_then(|(root, at)| {
                let grid = grids.get(&root)?;
                let kind = model.map(root).map_or(MapKind::Square, |m| m.kind);
                grid.contains(at.0, at.1)
                    .then(|| (root, at, kind.view(grid, at, sight.options())))
            });
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
            if let Some((root, _, view)) = expected {
                views.insert(viewer, (root, view.into_iter().collect()));
            }
        }

        // Fog: every root tilemap has one, kept where it fits across a resize.
        let mut fogs: HashMap<Entity, FogModel> = HashMap::new();
        for map in model.maps.iter().flatten() {
            if !model.is_root_tilemap(map.entity) {
                continue;
            }
            let (w, h) = map.size;
            let mut fog = model.fogs.get(&map.entity).cloned().unwrap_or(FogModel {
                size: map.size,
                teams: BTreeMap::new(),
            });
            fog.size = map.size;
            for team in fog.teams.values_mut() {
                team.visible.clear();
                team.explored.retain(|&(x, y)| x < w && y < h);
            }
            for (viewer, (root, view)) in &views {
                let viewer = model.entities[viewer].viewer.unwrap();
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

        // Fog layers: the tiles look like their state for the team drawn.
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
        // Layers whose style was removed: their tiles keep the colour they had then.
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

        // HideOutsideView.
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
                "HideOutsideView entity {entity} at {:?}: {got:?}, expected {want:?}",
                model.stands(model_entity)
            );
        }

        // Sightings.
        let mut spotted: HashMap<Entity, BTreeSet<Entity>> = HashMap::new();
        for (&viewer, (root, view)) in &views {
            let seen: BTreeSet<Entity> = model
                .entities
                .iter()
                .filter(|&(&target, t)| {
                    target != viewer
                        && t.spottable
                        && !t.disabled
                        && model
                            .stands(t)
                            .is_some_and(|(r, at)| r == *root && view.contains(&at))
                })
                .map(|(&target, _)| target)
                .collect();
            spotted.insert(viewer, seen);
        }
        for &viewer in &model.viewers {
            if model.entities[&viewer].disabled {
                continue;
            }
            let got: BTreeSet<Entity> = world.get::<Viewshed>(viewer).unwrap().spotted().collect();
            let want = spotted.get(&viewer).cloned().unwrap_or_default();
            check!(
                got == want,
                "spotted",
                "viewer {viewer}: spotted() {got:?}, the model says {want:?}"
            );
        }
        let mut pairs: BTreeSet<(Entity, Entity)> = BTreeSet::new();
        for sets in [&model.spotted, &spotted] {
            for (&viewer, targets) in sets {
                pairs.extend(targets.iter().map(|&t| (viewer, t)));
            }
        }
        for log in [&heard.messages, &heard.events] {
            pairs.extend(log.iter().map(|&(_, v, t)| (v, t)));
        }
        for (viewer, target) in pairs {
            let before = model
                .spotted
                .get(&viewer)
                .is_some_and(|s| s.contains(&target));
            let after = spotted.get(&viewer).is_some_and(|s| s.contains(&target));
            let blipped = model.blipped.contains(&viewer) || model.blipped.contains(&target);
            for (what, log) in [("messages", &heard.messages), ("events", &heard.events)] {
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

        self.model.fogs = fogs;
        self.model.spotted = spotted;
        self.model.blipped.clear();
        Ok(())
    }
}

/// Runs a case: the ops, then a last update.
fn run(ops: &[Op]) -> Result<(), TestCaseError> {
    let mut harness = Harness::new();
    for op in ops {
        harness.apply(op)?;
    }
    harness.update()
}

/// Runs a case, a panic counting as a failure: the failure's message, if any.
fn failure(ops: &[Op]) -> Option<String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(ops))) {
        Ok(Ok(())) => None,
        Ok(Err(error)) => Some(error.to_string()),
        Err(panic) => Some(format!(
            "[panic] {}",
            panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)")
        )),
    }
}

/// The class of a failure message (`[view]`, `[fog]`, ...): a check's, or `[panic]`.
fn class(message: &str) -> &str {
    let tagged = message
        .find('[')
        .and_then(|start| Some(&message[start..start + message[start..].find(']')? + 1]));
    match tagged {
        Some(class) if !message.contains("panicked") => class,
        _ => "[panic]",
    }
}

/// Proptest cannot drop ops below the 50 a case starts with, and steps an op's kind down one
/// at a time: once it is done, drop every run of ops the failure (of the same class) does not
/// need.
fn minimize(mut ops: Vec<Op>, class_of_failure: &str) -> (Vec<Op>, String) {
    ops.retain(|op| !matches!(op, Op::Nop));
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut message = failure(&ops).unwrap_or_default();
    let mut chunk = ops.len().div_ceil(2).max(1);
    loop {
        let mut removed = false;
        let mut start = 0;
        while start < ops.len() {
            let mut fewer = ops.clone();
            fewer.drain(start..(start + chunk).min(ops.len()));
            match failure(&fewer) {
                Some(m) if class(&m) == class_of_failure => {
                    (ops, message, removed) = (fewer, m, true)
                }
                _ => start += chunk,
            }
        }
        if chunk == 1 && !removed {
            break;
        }
        chunk = (chunk / 2).max(1);
    }
    // Indices are taken modulo the number of viewers (props, targets): print the smallest
    // that picks the same one.
    for at in 0..ops.len() {
        let Some(&mut index) = ops[at].index_mut() else {
            continue;
        };
        for smaller in 0..index {
            let mut changed = ops.clone();
            *changed[at].index_mut().unwrap() = smaller;
            if let Some(m) = failure(&changed).filter(|m| class(m) == class_of_failure) {
                (ops, message) = (changed, m);
                break;
            }
        }
    }
    std::panic::set_hook(hook);
    (ops, message)
}

#[test]
fn the_plugin_follows_the_model() {
    let config = ProptestConfig {
        // The failure is printed minimised; no regression file next to the test.
        failure_persistence: None,
        max_shrink_iters: 4096,
        // PROPTEST_CASES (256 by default) and the other PROPTEST_ variables apply.
        ..ProptestConfig::default()
    };
    let mut runner = TestRunner::new(config);
    match runner.run(&case(), |case| run(&case.0)) {
        Ok(()) => {}
        Err(TestError::Fail(reason, case)) => {
            let reason = reason.to_string();
            let (ops, message) = minimize(case.0, class(&reason));
            panic!(
                "{reason}\n\nminimal case (shrunk, then the ops it does not need dropped):\n{message}\n{:?}",
                Case(ops)
            );
        }
        Err(error) => panic!("{error}"),
    }
}
