//! The changes a game is made of ([`Op`]) and the strategy that draws them.

use proptest::prelude::*;

/// The sizes a map is resized to. 16x8 and 70x4 (and 10x6 and 66x3) take as many 64-bit words
/// per team view with other row layouts.
pub(crate) const SIZES: [(u32, u32); 7] =
    [(16, 8), (12, 8), (70, 4), (10, 6), (66, 3), (20, 6), (4, 3)];
/// Viewers are in teams `0..TEAMS`; the game remembers ghosts for one more team, which has no
/// viewers.
pub(crate) const TEAMS: u32 = 4;
pub(crate) const MAX_MAPS: usize = 4;

/// One change the game makes; several make one update. Indices pick among what exists (modulo
/// its number); a change that finds nothing to change is skipped.
#[derive(Clone, Debug)]
pub(crate) enum Op {
    /// A revealing viewer of a team (`None`: no `Team`, so team 0) on a map, with a radius;
    /// `true`: also `LeavesGhost` (a unit the other teams remember).
    SpawnViewer(Option<u32>, usize, u32, u32, u32, bool),
    /// A viewer goes to a tile of a map (maybe off it): in place on its own map, by insert
    /// onto another.
    MoveViewer(usize, usize, u32, u32),
    /// A viewer steps by `(dx, dy)` (in place).
    WalkViewer(usize, i32, i32),
    DespawnViewer(usize),
    ToggleViewerDisabled(usize),
    /// A viewer's team becomes `t`: in place (`*team = Team(t)`) when it has a `Team` and
    /// `in_place`, else by insert.
    SetTeam(usize, u32, bool),
    /// A viewer loses its `Team` (team 0).
    RemoveTeam(usize),
    /// A viewer loses or gets `RevealsFog`.
    ToggleReveals(usize),
    /// A remembered entity on a tile of a map (maybe off it), by `TilePos` or (`true`) by
    /// `Transform` at the centre of that tile.
    SpawnTarget(bool, usize, u32, u32),
    /// A remembered entity goes to a tile of a map (maybe off it, maybe another map).
    MoveTarget(usize, usize, u32, u32),
    /// A remembered entity steps by `(dx, dy)` on its map.
    WalkTarget(usize, i32, i32),
    DespawnTarget(usize),
    ToggleTargetDisabled(usize),
    /// A remembered entity loses `LeavesGhost`, or gets it back.
    ToggleRemember(usize),
    /// The tile entity at `(x, y)` of a map becomes opaque, or stops being.
    ToggleWall(usize, u32, u32),
    /// A map takes one of [`SIZES`].
    Resize(usize, usize),
    /// A map is despawned with its tiles.
    DespawnMap(usize),
    /// A map is spawned: square, or (`true`) hexagonal.
    SpawnMap(bool),
    /// A map's `FogOfWar` is removed (the plugin gives it a new one, with the views of the
    /// teams that have members there).
    RemoveFog(usize),
    /// `LastSeen::remember` on a map: team, entity (any target or viewer), tile, `seen_at` in ms.
    Remember(usize, u32, usize, u32, u32, u64),
    /// `LastSeen::forget` on a map: team, entity.
    Forget(usize, u32, usize),
    /// `LastSeen::clear` on a map.
    Clear(usize),
    /// A save of a map: its `FogOfWar` and `LastSeen` through serde_json.
    Save(usize),
    /// A save loaded (both components inserted) into a map, or (`None`) into a fresh map of
    /// the save's size.
    Load(usize, Option<usize>),
    /// A clone of a map's `LastSeen`, kept.
    Snapshot(usize),
    /// A kept clone put on a map: by insert, or (`true`) in place (`*last_seen = clone`).
    PutSnapshot(usize, usize, bool),
}

pub(crate) fn op() -> impl Strategy<Value = Op> {
    let i = || 0..16usize;
    let map = || 0..4usize;
    let step = || (-1..=1i32, -1..=1i32);
    let team = proptest::option::weighted(0.8, 0..TEAMS);
    prop_oneof![
        2 => (team, map(), 0..20u32, 0..9u32, 1..7u32, proptest::bool::weighted(0.3))
            .prop_map(|(t, m, x, y, r, rem)| Op::SpawnViewer(t, m, x, y, r, rem)),
        3 => (i(), map(), 0..22u32, 0..10u32).prop_map(|(i, m, x, y)| Op::MoveViewer(i, m, x, y)),
        6 => (i(), step()).prop_map(|(i, (dx, dy))| Op::WalkViewer(i, dx, dy)),
        1 => i().prop_map(Op::DespawnViewer),
        1 => i().prop_map(Op::ToggleViewerDisabled),
        2 => (i(), 0..TEAMS, any::<bool>()).prop_map(|(i, t, p)| Op::SetTeam(i, t, p)),
        1 => i().prop_map(Op::RemoveTeam),
        1 => i().prop_map(Op::ToggleReveals),
        2 => (any::<bool>(), map(), 0..20u32, 0..9u32)
            .prop_map(|(t, m, x, y)| Op::SpawnTarget(t, m, x, y)),
        3 => (i(), map(), 0..22u32, 0..10u32).prop_map(|(i, m, x, y)| Op::MoveTarget(i, m, x, y)),
        12 => (i(), step()).prop_map(|(i, (dx, dy))| Op::WalkTarget(i, dx, dy)),
        1 => i().prop_map(Op::DespawnTarget),
        1 => i().prop_map(Op::ToggleTargetDisabled),
        1 => i().prop_map(Op::ToggleRemember),
        2 => (map(), 0..20u32, 0..9u32).prop_map(|(m, x, y)| Op::ToggleWall(m, x, y)),
        1 => (map(), 0..SIZES.len()).prop_map(|(m, s)| Op::Resize(m, s)),
        1 => map().prop_map(Op::DespawnMap),
        1 => map().prop_map(Op::RemoveFog),
        1 => any::<bool>().prop_map(Op::SpawnMap),
        2 => (map(), 0..=TEAMS, 0..32usize, 0..22u32, 0..10u32, 0..2_000u64)
            .prop_map(|(m, t, e, x, y, ms)| Op::Remember(m, t, e, x, y, ms)),
        1 => (map(), 0..=TEAMS, 0..32usize).prop_map(|(m, t, e)| Op::Forget(m, t, e)),
        1 => map().prop_map(Op::Clear),
        1 => map().prop_map(Op::Save),
        1 => (i(), proptest::option::of(map())).prop_map(|(s, m)| Op::Load(s, m)),
        1 => map().prop_map(Op::Snapshot),
        2 => (i(), map(), any::<bool>()).prop_map(|(s, m, p)| Op::PutSnapshot(s, m, p)),
    ]
}
