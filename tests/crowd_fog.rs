//! The team views of crowds in a headless `App`: with more viewers than the recompute visits
//! one by one, it gathers the team views while it visits them, so these tests drive crowds
//! (some of whose viewers need light) with random moves, team and membership changes and wall toggles, some made between the
//! recompute and the fog, and check every team's view against the plain union of its
//! members' viewsheds, and every fog layer's tiles against the look of their state (crowds
//! change hundreds of tiles a frame: the fog writes them on all threads).

mod common_app;

use std::collections::{BTreeMap, BTreeSet};

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::Team;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{DrawnTeam, SoftEdge, TileLook, ViewshedSchedule, ViewshedStepSystems};
use common_app::*;
use proptest::prelude::*;

/// The maps' sizes: two maps, so that views and team views are kept per map.
const MAPS: [(u32, u32); 2] = [(24, 20), (17, 16)];
const TEAMS: u32 = 3;

#[derive(Clone, Debug)]
enum Op {
    SetTeam(usize, Option<u32>),
    SetReveals(usize, bool),
    Despawn(usize),
    /// Toggles the wall at a position of a map (taken modulo its size).
    Wall(usize, u32, u32),
    /// Draws this team's fog.
    ShowTeam(u32),
    /// Takes the `TileColor` of every third tile of a map away and marks its `FogStyle`
    /// changed, so the fog writes every tile again (and puts the colours back).
    Restyle(usize),
}

#[derive(Clone, Debug)]
struct Frame {
    /// Every viewer moves (the recompute then visits them all), with this seed.
    move_all: Option<u64>,
    /// A few viewers move to positions taken modulo their map's size.
    moves: Vec<(usize, u32, u32)>,
    before: Vec<Op>,
    /// Applied between the recompute and the fog.
    between: Vec<Op>,
}

/// A viewer: its map, position, radius, team, whether it reveals the fog, and the dark
/// vision it has if it needs light to see.
type Spawn = (usize, u32, u32, u32, Option<u32>, bool, Option<u32>);

fn op() -> impl Strategy<Value = Op> {
    let i = || any::<usize>();
    prop_oneof![
        3 => (i(), prop::option::of(0..TEAMS)).prop_map(|(i, t)| Op::SetTeam(i, t)),
        2 => (i(), any::<bool>()).prop_map(|(i, on)| Op::SetReveals(i, on)),
        1 => i().prop_map(Op::Despawn),
        2 => (0..MAPS.len(), any::<u32>(), any::<u32>()).prop_map(|(m, x, y)| Op::Wall(m, x, y)),
        1 => (0..TEAMS).prop_map(Op::ShowTeam),
        1 => (0..MAPS.len()).prop_map(Op::Restyle),
    ]
}

fn frame() -> impl Strategy<Value = Frame> {
    (
        prop::option::weighted(0.7, any::<u64>()),
        prop::collection::vec((any::<usize>(), any::<u32>(), any::<u32>()), 0..6),
        prop::collection::vec(op(), 0..4),
        prop::collection::vec(op(), 0..3),
    )
        .prop_map(|(move_all, moves, before, between)| Frame {
            move_all,
            moves,
            before,
            between,
        })
}

fn spawn() -> impl Strategy<Value = Spawn> {
    (
        0..MAPS.len(),
        any::<u32>(),
        any::<u32>(),
        1u32..=6,
        prop::option::of(0..TEAMS),
        prop::bool::weighted(0.8),
        prop::option::weighted(0.2, 0u32..=2),
    )
}

/// The ops a system applies between the recompute and the fog.
#[derive(Resource, Default)]
struct Between(Vec<Op>);

/// The crowd's maps and viewers (despawned ones stay listed; ops on them do nothing).
#[derive(Resource)]
struct Crowd {
    maps: Vec<Entity>,
    viewers: Vec<Entity>,
}

fn apply(world: &mut World, op: &Op) {
    let crowd = world.resource::<Crowd>();
    let pick = |i: usize| crowd.viewers[i % crowd.viewers.len()];
    match *op {
        Op::SetTeam(i, team) => {
            let viewer = pick(i);
            if let Ok(mut entity) = world.get_entity_mut(viewer) {
                match team {
                    Some(team) => entity.insert(Team(team)),
                    None => entity.remove::<Team>(),
                };
            }
        }
        Op::SetReveals(i, on) => {
            let viewer = pick(i);
            if let Ok(mut entity) = world.get_entity_mut(viewer) {
                match on {
                    true => entity.insert(RevealsFog),
                    false => entity.remove::<RevealsFog>(),
                };
            }
        }
        Op::Despawn(i) => {
            let viewer = pick(i);
            if let Ok(entity) = world.get_entity_mut(viewer) {
                entity.despawn();
            }
        }
        Op::ShowTeam(team) => world.resource_mut::<DrawnTeam>().0 = Team(team),
        Op::Restyle(m) => {
            let map = crowd.maps[m];
            strip_colors(world, map);
            world.get_mut::<FogStyle>(map).unwrap().set_changed();
        }
        Op::Wall(m, x, y) => {
            let (map, (width, height)) = (crowd.maps[m], MAPS[m]);
            let pos = TilePos {
                x: x % width,
                y: y % height,
            };
            let tile = world.get::<TileStorage>(map).and_then(|s| s.get(&pos));
            if let Some(tile) = tile {
                let mut tile = world.entity_mut(tile);
                match tile.contains::<Opaque>() {
                    true => tile.remove::<Opaque>(),
                    false => tile.insert(Opaque),
                };
            }
        }
    }
}

fn apply_between(world: &mut World) {
    let ops = std::mem::take(&mut world.resource_mut::<Between>().0);
    for op in &ops {
        apply(world, op);
    }
}

/// Moves viewer `viewer` to `(x, y)` (modulo its map's size), if it is still there.
fn move_to(world: &mut World, viewer: Entity, (x, y): (u32, u32)) {
    let Some(map) = world.get::<TilemapId>(viewer).map(|id| id.0) else {
        return;
    };
    let crowd = world.resource::<Crowd>();
    let (width, height) = MAPS[crowd.maps.iter().position(|&m| m == map).unwrap()];
    let pos = TilePos {
        x: x % width,
        y: y % height,
    };
    world.entity_mut(viewer).insert(pos);
}

/// Each team's view on each map as the plain union of its members' viewsheds.
fn expected(world: &mut World) -> BTreeMap<(Entity, u32), BTreeSet<(u32, u32)>> {
    let mut union: BTreeMap<_, BTreeSet<_>> = BTreeMap::new();
    let mut members = world.query_filtered::<(&Viewshed, Option<&Team>), With<RevealsFog>>();
    for (viewshed, team) in members.iter(world) {
        if let Some((map, _)) = viewshed.origin() {
            let team = team.map_or(0, |t| t.0);
            let tiles = viewshed.iter().map(|t| (t.x, t.y));
            union.entry((map, team)).or_default().extend(tiles);
        }
    }
    union.retain(|_, tiles| !tiles.is_empty());
    union
}

/// Each team's view on each map as the fog holds it.
fn in_fog(world: &mut World) -> BTreeMap<(Entity, u32), BTreeSet<(u32, u32)>> {
    let mut views = BTreeMap::new();
    for (map, fog) in world.query::<(Entity, &FogOfWar)>().iter(world) {
        for (team, team_fog) in fog.teams() {
            let tiles: BTreeSet<_> = team_fog.visible_tiles().map(|t| (t.x, t.y)).collect();
            if !tiles.is_empty() {
                views.insert((map, team.0), tiles);
            }
        }
    }
    views
}

fn crowd_app(walls: u64, spawns: &[Spawn]) -> App {
    let mut app = threaded_app(3);
    app.init_resource::<Between>().add_systems(
        ViewshedSchedule,
        apply_between
            .after(ViewshedStepSystems::Light)
            .before(ViewshedStepSystems::Fog),
    );
    let maps: Vec<Entity> = MAPS
        .iter()
        .map(|&(width, height)| {
            let wall = |x: u32, y: u32| hash(walls ^ u64::from(x * 131 + y * 7)).is_multiple_of(5);
            spawn_map(&mut app, width, height, wall)
        })
        .collect();
    style_maps(&mut app, &maps);
    let mut viewers = Vec::new();
    for (m, &map) in maps.iter().enumerate() {
        let (width, height) = MAPS[m];
        for light in 0..3 {
            let h = hash(walls ^ (light + 10 * m as u64));
            let pos = TilePos {
                x: h as u32 % width,
                y: (h >> 32) as u32 % height,
            };
            let light = LightSource::new(4);
            app.world_mut().spawn((light, pos, TilemapId(map)));
        }
    }
    for &(m, x, y, radius, team, reveals, dark_vision) in spawns {
        let (width, height) = MAPS[m];
        let (x, y) = (x % width, y % height);
        let mut viewer =
            app.world_mut()
                .spawn((Viewshed::new(radius), TilePos { x, y }, TilemapId(maps[m])));
        if reveals {
            viewer.insert(RevealsFog);
        }
        if let Some(team) = team {
            viewer.insert(Team(team));
        }
        if let Some(dark_vision) = dark_vision {
            viewer.insert(NeedsLight::new(dark_vision));
        }
        viewers.push(viewer.id());
    }
    app.insert_resource(Crowd { maps, viewers });
    app
}

/// Takes the `TileColor` of every third tile of `map` away.
fn strip_colors(world: &mut World, map: Entity) {
    let storage = world.get::<TileStorage>(map).unwrap().clone();
    for (i, tile) in storage.iter().flatten().enumerate() {
        if i % 3 == 0 {
            world.entity_mut(*tile).remove::<TileColor>();
        }
    }
}

/// The first map's tiles take the default fog look; the second's an overlay look with soft
/// edges, and a third of its tiles have no `TileColor` (the fog inserts it).
fn style_maps(app: &mut App, maps: &[Entity]) {
    let world = app.world_mut();
    world.entity_mut(maps[0]).insert(FogStyle::default());
    let edge = SoftEdge {
        remembered: TileLook::shown(Color::srgba(0.0, 0.0, 0.0, 0.3)),
        unexplored: TileLook::shown(Color::srgba(0.0, 0.0, 0.0, 0.8)),
    };
    world
        .entity_mut(maps[1])
        .insert(FogStyle::overlay().with_soft_edge(edge));
    strip_colors(world, maps[1]);
}

/// The tiles of the fog layers whose look is not that of their state for the team drawn
/// (with the soft-edge look for tiles not seen next to seen ones).
fn misdrawn_tiles(world: &mut World) -> Vec<String> {
    let mut wrong = Vec::new();
    let mut maps = world.query::<(Entity, &FogOfWar, &FogStyle, &TileStorage)>();
    for (map, fog, style, storage) in maps.iter(world) {
        let size = fog.size();
        let seen = |x: i64, y: i64| {
            let inside = (0..i64::from(size.x)).contains(&x) && (0..i64::from(size.y)).contains(&y);
            inside && fog.is_visible(TilePos::new(x as u32, y as u32))
        };
        for y in 0..size.y {
            for x in 0..size.x {
                let tile = TilePos::new(x, y);
                let (cx, cy) = (i64::from(x), i64::from(y));
                let near = (-1..=1).any(|dy| (-1..=1).any(|dx| seen(cx + dx, cy + dy)));
                let state = fog.state(tile);
                let look = style.look_at(state, near && !fog.is_visible(tile));
                let entity = storage.get(&tile).unwrap();
                let visible = world.get::<TileVisible>(entity).map(|v| v.0);
                let color = world.get::<TileColor>(entity).map(|c| c.0);
                let right = look.visible.is_none_or(|v| visible == Some(v))
                    && look.color.is_none_or(|c| color == Some(c));
                if !right {
                    wrong.push(format!(
                        "map {map} tile ({x}, {y}) {state:?}: {visible:?} {color:?}, not {look:?}"
                    ));
                }
            }
        }
    }
    wrong
}

/// A small mixing function for seeded positions and walls.
fn hash(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn run_frame(app: &mut App, frame: &Frame) {
    let world = app.world_mut();
    let viewers = world.resource::<Crowd>().viewers.clone();
    if let Some(seed) = frame.move_all {
        for (i, &viewer) in viewers.iter().enumerate() {
            let h = hash(seed ^ i as u64);
            move_to(world, viewer, (h as u32, (h >> 32) as u32));
        }
    }
    for &(i, x, y) in &frame.moves {
        move_to(world, viewers[i % viewers.len()], (x, y));
    }
    for op in &frame.before {
        apply(world, op);
    }
    world.resource_mut::<Between>().0 = frame.between.clone();
    app.update();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// With 260 to 320 viewers, every team's view on every map is the union of its members'
    /// views after every frame, whatever changed before the frame or between the recompute
    /// and the fog, and every tile of the fog layers looks like its state for the team drawn.
    #[test]
    fn team_views_of_crowds_are_the_union_of_their_members(
        walls: u64,
        spawns in prop::collection::vec(spawn(), 260..=320),
        frames in prop::collection::vec(frame(), 2..=5),
    ) {
        let mut app = crowd_app(walls, &spawns);
        app.update();
        let world = app.world_mut();
        prop_assert_eq!(in_fog(world), expected(world), "after the first frame");
        prop_assert_eq!(misdrawn_tiles(world), Vec::<String>::new(), "after the first frame");
        for (n, frame) in frames.iter().enumerate() {
            run_frame(&mut app, frame);
            let world = app.world_mut();
            prop_assert_eq!(in_fog(world), expected(world), "after frame {}", n);
            prop_assert_eq!(misdrawn_tiles(world), Vec::<String>::new(), "after frame {}", n);
        }
    }
}

/// A crowd on one map and two team-0 viewers alone on another, all moving; between the
/// recompute and the fog one of the two joins team 1 and the other stops revealing: the team
/// views on their map follow both in that frame.
#[test]
fn a_team_change_after_the_recompute_shows_in_that_frame() {
    let mut spawns: Vec<Spawn> = vec![
        (1, 3, 3, 4, None, true, None),
        (1, 12, 11, 4, None, true, None),
    ];
    spawns.extend((0..300u32).map(|i| (0, i * 7, i * 3, 3, Some(i % TEAMS), true, None)));
    let mut app = crowd_app(1, &spawns);
    app.update();
    let frame = Frame {
        move_all: Some(42),
        moves: vec![],
        before: vec![],
        between: vec![Op::SetTeam(0, Some(1)), Op::SetReveals(1, false)],
    };
    run_frame(&mut app, &frame);
    let world = app.world_mut();
    let crowd = world.resource::<Crowd>();
    let (map, first) = (crowd.maps[1], crowd.viewers[0]);
    let view: BTreeSet<_> = world
        .get::<Viewshed>(first)
        .unwrap()
        .iter()
        .map(|t| (t.x, t.y))
        .collect();
    let views = in_fog(world);
    assert_eq!(views.get(&(map, 1)), Some(&view));
    assert_eq!(
        views.get(&(map, 0)),
        None,
        "team 0 has no member left there"
    );
    assert_eq!(views, expected(world));
}

/// A tile storage that holds one entity at two places (a mistake bevy_ecs_tilemap does not
/// stop) while hundreds of tiles change at once: the threads that write the tiles never get
/// the same entity twice (each is written once, with one of its places' looks), and every
/// other tile looks like its state.
#[test]
fn a_tile_entity_at_two_places_is_written_with_one_of_their_looks() {
    let mut app = threaded_app(3);
    let map = spawn_map(&mut app, 24, 20, |_, _| false);
    let world = app.world_mut();
    world.entity_mut(map).insert(FogStyle::default());
    let mut storage = world.get::<TileStorage>(map).unwrap().clone();
    let mut shared = Vec::new();
    for x in 0..24 {
        let (seen, unseen) = (TilePos::new(x, 2), TilePos::new(x, 17));
        let entity = storage.get(&seen).unwrap();
        storage.set(&unseen, entity);
        shared.push((entity, seen, unseen));
    }
    world.entity_mut(map).insert(storage);
    world.spawn((
        Viewshed::new(4),
        RevealsFog,
        TilePos::new(12, 3),
        TilemapId(map),
    ));
    app.update();
    let world = app.world_mut();
    let style = FogStyle::default();
    let fog = world.get::<FogOfWar>(map).unwrap();
    assert!(fog.is_visible(TilePos::new(12, 2)) && !fog.is_visible(TilePos::new(12, 17)));
    for (entity, seen, unseen) in shared {
        let visible = world.get::<TileVisible>(entity).map(|v| v.0);
        let color = world.get::<TileColor>(entity).map(|c| c.0);
        let is = |look: TileLook| {
            look.visible.is_none_or(|v| visible == Some(v))
                && look.color.is_none_or(|c| color == Some(c))
        };
        let (a, b) = (style.look(fog.state(seen)), style.look(fog.state(unseen)));
        assert!(
            is(a) || is(b),
            "{visible:?} {color:?}: neither {a:?} nor {b:?}"
        );
    }
    let wrong: Vec<String> = misdrawn_tiles(world)
        .into_iter()
        .filter(|line| !line.contains(", 2)") && !line.contains(", 17)"))
        .collect();
    assert_eq!(wrong, Vec::<String>::new());
}
