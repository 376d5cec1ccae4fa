//! The ops a game is made of ([`Op`]), what they take ([`Kind`], [`Look`], [`Beam`],
//! [`Spot`]), and the proptest strategies that draw them.

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::{DistanceShape, FovMode, FovOptions, VisionCone};
use proptest::prelude::*;

/// The kinds of map the model plays on.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    Square,
    Hex(HexCoordSystem),
    /// Staggered isometric, of an odd size both ways.
    Staggered,
}

impl Kind {
    pub(crate) fn size(self) -> (u32, u32) {
        match self {
            Kind::Square => (16, 12),
            Kind::Hex(_) => (13, 11),
            Kind::Staggered => (9, 7),
        }
    }

    pub(crate) fn tilemap_type(self) -> TilemapType {
        match self {
            Kind::Square => TilemapType::Square,
            Kind::Hex(system) => TilemapType::Hexagon(system),
            Kind::Staggered => TilemapType::Isometric(IsoCoordSystem::Staggered),
        }
    }
}

/// A light's colour and intensity, as a game gives them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Look {
    pub(crate) color: Color,
    pub(crate) intensity: f32,
}

impl Look {
    pub(crate) const WHITE: Look = Look {
        color: Color::WHITE,
        intensity: 1.0,
    };
}

/// A light's beam: `None` lights all around.
pub(crate) type Beam = Option<VisionCone>;

/// Beams as a game points them: mostly none, narrow to wide along the grid and between, all
/// around, and now and then an angle that is not a number.
pub(crate) fn beam() -> impl Strategy<Value = Beam> {
    let cone = prop_oneof![
        6 => (0.0f64..360.0, 10.0f64..300.0).prop_map(|(f, w)| VisionCone::degrees(f, w)),
        2 => (0i32..8, 20.0f64..120.0).prop_map(|(i, w)| VisionCone::degrees(f64::from(i) * 45.0, w)),
        1 => Just(VisionCone::degrees(0.0, 360.0)),
        1 => Just(VisionCone::new(f64::NAN, 1.0)),
    ];
    prop::option::weighted(0.4, cone)
}

/// Where an op puts something, worked out on the map's size: anywhere on it, one of three
/// tiles that lights pile up on, or off it (just beyond an edge, or as far as can be).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spot(pub(crate) u8, pub(crate) u32, pub(crate) u32);

impl Spot {
    pub(crate) fn on(self, (w, h): (u32, u32)) -> (u32, u32) {
        let Spot(kind, a, b) = self;
        match kind {
            0 => match a % 3 {
                0 => (w + a % 2, b % h),
                1 => (a % w, h + b % 3),
                _ => (u32::MAX - a % 2, u32::MAX),
            },
            1 | 2 => [(w / 2, h / 2), (1, 1), (w - 2, h / 2)][(a % 3) as usize],
            _ => (a % w, b % h),
        }
    }

    /// A tile of the map.
    pub(crate) fn tile(self, (w, h): (u32, u32)) -> (u32, u32) {
        (self.1 % w, self.2 % h)
    }
}

#[derive(Clone, Debug)]
pub(crate) enum Op {
    /// A light spawned (a torch lit, a fireball, a flashlight pointing through its beam).
    SpawnLight(Spot, u32, Look, Beam),
    /// A viewer spawned, needing light or not, carrying a lantern or not.
    SpawnViewer(Spot, FovOptions, Option<u32>, Option<(u32, Look, Beam)>),
    Despawn(usize),
    /// Its `TilePos` set, on the map or off it.
    Move(usize, Spot),
    /// `Disabled` inserted, or removed.
    Disable(usize),
    /// Its `TilemapId` removed, or inserted again.
    Unmap(usize),
    /// A wall built or knocked down.
    Toggle(Spot),
    /// A light's radius changed in place.
    Radius(usize, u32),
    /// A light's beam turned, narrowed, widened or taken off (all around) in place.
    Aim(usize, Beam),
    /// A light's colour and intensity changed in place.
    Recolor(usize, Look),
    /// A `LightSource` inserted on any thing: again over its light (a flicker system setting a
    /// smaller flame), or a lantern handed to a viewer.
    InsertLight(usize, u32, Look, Beam),
    /// A light's `LightSource` replaced in place (`*light = LightSource::new(..)`).
    ReplaceLight(usize, u32, Look, Beam),
    /// A light's `LightSource` removed (the torch stays, unlit).
    RemoveLight(usize),
    /// A light's `LightSource` cloned onto a new entity.
    SpawnClone(usize, Spot),
    /// A light's `LightSource` cloned onto another thing: inserted (`true`) or, on a light,
    /// written over its `LightSource` in place (`false`).
    CopyLight(usize, usize, bool),
    /// A whole thing cloned (`EntityWorldMut::clone_and_spawn`).
    CloneThing(usize),
    /// A viewer's dark vision changed in place.
    DarkVision(usize, u32),
    /// `NeedsLight` inserted on a viewer (again, or anew).
    InsertNeedsLight(usize, u32),
    /// A viewer's `NeedsLight` replaced in place (`*needs = NeedsLight::new(..)`).
    ReplaceNeedsLight(usize, u32),
    RemoveNeedsLight(usize),
    /// A viewer's options changed in place.
    Options(usize, FovOptions),
    /// A `Viewshed` inserted again on a viewer: new settings, or (`None`) its own again.
    InsertViewshed(usize, Option<FovOptions>),
    /// A viewer's `Viewshed` replaced in place (`*viewshed = Viewshed::with_options(..)`):
    /// new settings, or (`None`) its own again (a new `Viewshed` whose generation starts
    /// again, at the same key).
    ReplaceViewshed(usize, Option<FovOptions>),
}

pub(crate) fn spot() -> impl Strategy<Value = Spot> {
    (0u8..10, any::<u32>(), any::<u32>()).prop_map(|(kind, a, b)| Spot(kind, a, b))
}

pub(crate) fn radius() -> impl Strategy<Value = u32> {
    prop_oneof![20 => 0..7u32, 1 => Just(u32::MAX)]
}

/// A float as a game may hand it over: mostly plain, sometimes not a number, negative,
/// infinite or huge.
pub(crate) fn odd_float() -> impl Strategy<Value = f32> {
    prop_oneof![
        3 => 0.0f32..2.0,
        1 => prop::sample::select(vec![
            0.0,
            -0.0,
            -1.5,
            1024.0,
            1500.0,
            1e30,
            f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ]),
    ]
}

pub(crate) fn look() -> impl Strategy<Value = Look> {
    let odd = (
        any::<bool>(),
        [odd_float(), odd_float(), odd_float()],
        odd_float(),
    )
        .prop_map(|(srgb, [r, g, b], intensity)| Look {
            color: if srgb {
                Color::srgb(r, g, b)
            } else {
                Color::linear_rgb(r, g, b)
            },
            intensity,
        });
    prop_oneof![Just(Look::WHITE), odd]
}

pub(crate) fn sight() -> impl Strategy<Value = FovOptions> {
    let shape = prop::sample::select(vec![
        DistanceShape::Euclidean,
        DistanceShape::Chebyshev,
        DistanceShape::Manhattan,
    ]);
    let cone = prop::option::weighted(0.2, (0.0f64..360.0, 45.0f64..300.0));
    (
        prop::option::of(0..12u32),
        shape,
        prop::bool::weighted(0.8),
        prop::bool::weighted(0.2),
        cone,
    )
        .prop_map(|(radius, shape, light_walls, permissive, cone)| {
            let mut options = radius
                .map_or(FovOptions::unlimited(), FovOptions::radius)
                .with_shape(shape)
                .with_light_walls(light_walls);
            if permissive {
                options = options.with_mode(FovMode::Permissive);
            }
            if let Some((facing, width)) = cone {
                options = options.with_cone(VisionCone::degrees(facing, width));
            }
            options
        })
}

pub(crate) fn spawn_viewer_op() -> impl Strategy<Value = Op> {
    (
        spot(),
        sight(),
        prop::option::weighted(0.85, 0..3u32),
        prop::option::weighted(0.2, (radius(), look(), beam())),
    )
        .prop_map(|(at, options, dark, lantern)| Op::SpawnViewer(at, options, dark, lantern))
}

pub(crate) fn op() -> impl Strategy<Value = Op> {
    let i = || 0..8usize;
    let things = prop_oneof![
        (spot(), radius(), look(), beam())
            .prop_map(|(at, r, look, beam)| Op::SpawnLight(at, r, look, beam)),
        spawn_viewer_op(),
        i().prop_map(Op::Despawn),
        (i(), spot()).prop_map(|(i, at)| Op::Move(i, at)),
        (i(), spot()).prop_map(|(i, at)| Op::Move(i, at)),
        i().prop_map(Op::Disable),
        i().prop_map(Op::Unmap),
        spot().prop_map(Op::Toggle),
        i().prop_map(Op::CloneThing),
    ];
    let lights = prop_oneof![
        (i(), radius()).prop_map(|(i, r)| Op::Radius(i, r)),
        (i(), look()).prop_map(|(i, look)| Op::Recolor(i, look)),
        (i(), radius(), look(), beam())
            .prop_map(|(i, r, look, beam)| Op::InsertLight(i, r, look, beam)),
        (i(), radius(), look(), beam())
            .prop_map(|(i, r, look, beam)| Op::ReplaceLight(i, r, look, beam)),
        (i(), beam()).prop_map(|(i, beam)| Op::Aim(i, beam)),
        i().prop_map(Op::RemoveLight),
        (i(), spot()).prop_map(|(i, at)| Op::SpawnClone(i, at)),
        (i(), i(), any::<bool>()).prop_map(|(i, j, insert)| Op::CopyLight(i, j, insert)),
    ];
    let viewers = prop_oneof![
        (i(), 0..3u32).prop_map(|(i, d)| Op::DarkVision(i, d)),
        (i(), 0..3u32).prop_map(|(i, d)| Op::InsertNeedsLight(i, d)),
        (i(), 0..3u32).prop_map(|(i, d)| Op::ReplaceNeedsLight(i, d)),
        i().prop_map(Op::RemoveNeedsLight),
        (i(), sight()).prop_map(|(i, o)| Op::Options(i, o)),
        (i(), prop::option::of(sight())).prop_map(|(i, o)| Op::InsertViewshed(i, o)),
        (i(), prop::option::of(sight())).prop_map(|(i, o)| Op::ReplaceViewshed(i, o)),
    ];
    prop_oneof![things, lights, viewers]
}

pub(crate) fn kind() -> impl Strategy<Value = Kind> {
    let system = prop::sample::select(vec![
        HexCoordSystem::Row,
        HexCoordSystem::Column,
        HexCoordSystem::RowEven,
        HexCoordSystem::RowOdd,
        HexCoordSystem::ColumnEven,
        HexCoordSystem::ColumnOdd,
    ]);
    prop_oneof![2 => Just(Kind::Square), 1 => system.prop_map(Kind::Hex), 1 => Just(Kind::Staggered)]
}
