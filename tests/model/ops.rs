//! The operations a case is made of ([`Op`]), what they take ([`Sight`], [`Pos`], [`MapRef`],
//! [`StyleKind`], [`MapKind`]), and the proptest strategies that draw a [`Case`].

use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI, TAU};
use std::time::Duration;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{DistanceShape, FogFade, FovMode, FovOptions, SoftEdge, TileLook, VisionCone};
use proptest::prelude::*;

/// Map slots: at most this many tilemaps live at once.
pub(crate) const SLOTS: usize = 3;
/// Tilemaps are 1..=MAX_SIDE tiles per side.
const MAX_SIDE: u32 = 12;
/// Positions are drawn in 0..COORD, so some are off every map.
pub(crate) const COORD: u32 = 14;
/// Teams 0..TEAMS.
pub(crate) const TEAMS: u32 = 3;
/// Saved memory slots.
pub(crate) const MEMORIES: usize = 2;
/// Group entities (the second may be a child of the first).
pub(crate) const GROUPS: usize = 2;

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
pub(crate) struct Sight {
    reach: Reach,
    shape: Option<DistanceShape>,
    /// `VisionCone::toward_radians(dx, dy, CONE_WIDTHS[i])`.
    cone: Option<(i32, i32, usize)>,
    permissive: bool,
    dark_walls: bool,
}

impl Sight {
    fn cone(&self) -> Option<VisionCone> {
        self.cone
            .map(|(dx, dy, w)| VisionCone::toward_radians(dx, dy, CONE_WIDTHS[w]))
    }

    pub(crate) fn viewshed(&self) -> Viewshed {
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
    pub(crate) fn options(&self) -> FovOptions {
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
pub(crate) struct Pos {
    pub(crate) x: u32,
    pub(crate) y: u32,
    pub(crate) raw: bool,
}

/// Which entity a `TilemapId` points at.
#[derive(Clone, Copy, Debug)]
pub(crate) enum MapRef {
    /// The tilemap in this slot (its last despawned one if the slot is empty).
    Live(usize),
    /// The last tilemap despawned from this slot (the live one if none was).
    Dead(usize),
    /// An entity that is not a tilemap.
    NotAMap,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum StyleKind {
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
    pub(crate) fn style(self) -> FogStyle {
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
/// What a viewer sees on each kind, and which tiles are neighbours, are rules of the model
/// (`rules.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MapKind {
    Square,
    /// Diamond isometric: a square grid drawn turned.
    Diamond,
    /// Staggered isometric: a square grid in other coordinates.
    Staggered,
    Hex(HexCoordSystem),
}

impl MapKind {
    pub(crate) fn tilemap_type(self) -> TilemapType {
        match self {
            MapKind::Square => TilemapType::Square,
            MapKind::Diamond => TilemapType::Isometric(IsoCoordSystem::Diamond),
            MapKind::Staggered => TilemapType::Isometric(IsoCoordSystem::Staggered),
            MapKind::Hex(system) => TilemapType::Hexagon(system),
        }
    }
}

/// One step of a test case. Indices into the lists of viewers, props and targets are taken
/// modulo their length (no-op when empty); map slots modulo [`SLOTS`] (no-op when empty).
#[derive(Clone, Debug)]
pub(crate) enum Op {
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
    SwitchDrawnTeam(u32),
    /// The tilemap in a slot draws this team (`DrawnTeamOverride`), or the one of `DrawnTeam` (`None`).
    SetDrawnTeam(usize, Option<u32>),
    // Opacity.
    ToggleTileOpaque(usize, (u32, u32)),
    /// The tilemap in a slot paints a tile opaque or clear in its `OpaqueCells` (given one,
    /// `COORD` x `COORD`, if it had none: some cells lie beyond the map).
    PaintCell(usize, (u32, u32), bool),
    /// The tilemap in a slot loses its `OpaqueCells`.
    RemovePaint(usize),
    ToggleTileDisabled(usize, (u32, u32)),
    DespawnTile(usize, (u32, u32)),
    SpawnProp(MapRef, Pos),
    MoveProp(usize, Pos),
    SetPropMap(usize, MapRef),
    TogglePropOpaque(usize),
    TogglePropDisabled(usize),
    DespawnProp(usize),
    // Density.
    /// A tile entity of the tilemap in a slot gets this `Density` (inserted, or changed in
    /// place when it has one), or (`None`) loses it.
    SetTileDensity(usize, (u32, u32), Option<f32>),
    /// A prop gets this `Density` or loses it.
    SetPropDensity(usize, Option<f32>),
    // CanBeSpotted targets.
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
    pub(crate) fn index_mut(&mut self) -> Option<&mut usize> {
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
            | Op::SetPropDensity(i, _)
            | Op::MoveTarget(i, _)
            | Op::SetTargetMap(i, _)
            | Op::UnplaceTarget(i)
            | Op::ToggleSpottable(i)
            | Op::ToggleTargetDisabled(i)
            | Op::DespawnTarget(i) => Some(i),
            _ => None,
        }
    }

    pub(crate) fn name(&self) -> &'static str {
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
            Op::SwitchDrawnTeam(..) => "SwitchDrawnTeam",
            Op::SetDrawnTeam(..) => "SetDrawnTeam",
            Op::ToggleTileOpaque(..) => "ToggleTileOpaque",
            Op::PaintCell(..) => "PaintCell",
            Op::RemovePaint(..) => "RemovePaint",
            Op::ToggleTileDisabled(..) => "ToggleTileDisabled",
            Op::DespawnTile(..) => "DespawnTile",
            Op::SpawnProp(..) => "SpawnProp",
            Op::MoveProp(..) => "MoveProp",
            Op::SetPropMap(..) => "SetPropMap",
            Op::TogglePropOpaque(..) => "TogglePropOpaque",
            Op::TogglePropDisabled(..) => "TogglePropDisabled",
            Op::DespawnProp(..) => "DespawnProp",
            Op::SetTileDensity(..) => "SetTileDensity",
            Op::SetPropDensity(..) => "SetPropDensity",
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
        1 => (0..TEAMS).prop_map(Op::SwitchDrawnTeam),
        1 => (slot(), team()).prop_map(|(s, t)| Op::SetDrawnTeam(s, t)),
        5 => (slot(), at()).prop_map(|(s, at)| Op::ToggleTileOpaque(s, at)),
        3 => (slot(), at(), any::<bool>()).prop_map(|(s, at, o)| Op::PaintCell(s, at, o)),
        1 => slot().prop_map(Op::RemovePaint),
        2 => (slot(), at()).prop_map(|(s, at)| Op::ToggleTileDisabled(s, at)),
        1 => (slot(), at()).prop_map(|(s, at)| Op::DespawnTile(s, at)),
        2 => (map_ref(), pos()).prop_map(|(m, at)| Op::SpawnProp(m, at)),
        3 => (i(), pos()).prop_map(|(i, at)| Op::MoveProp(i, at)),
        1 => (i(), map_ref()).prop_map(|(i, m)| Op::SetPropMap(i, m)),
        2 => i().prop_map(Op::TogglePropOpaque),
        2 => i().prop_map(Op::TogglePropDisabled),
        1 => i().prop_map(Op::DespawnProp),
        4 => (slot(), at(), density()).prop_map(|(s, at, d)| Op::SetTileDensity(s, at, d)),
        2 => (i(), density()).prop_map(|(i, d)| Op::SetPropDensity(i, d)),
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
pub(crate) struct Case(pub(crate) Vec<Op>);

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
pub(crate) fn case() -> impl Strategy<Value = Case> {
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

/// A `Density` as a game gives it: smoke's halves and thirds, a blocking bank, a wisp, odd
/// values; or none (the component removed).
fn density() -> impl Strategy<Value = Option<f32>> {
    prop::option::weighted(
        0.8,
        prop_oneof![
            3 => Just(0.5f32),
            2 => Just(1.0f32 / 3.0),
            1 => Just(1.0f32),
            1 => Just(0.25f32),
            1 => 0.0f32..1.5,
            1 => prop::sample::select(vec![f32::NAN, -0.5, f32::INFINITY, 0.0]),
        ],
    )
}
