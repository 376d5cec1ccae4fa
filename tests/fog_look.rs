//! The look of the fog in a headless `App` with a manual clock (50 ms per update): fades
//! between looks, soft edges at the border of the view, and the ghosts of remembered
//! entities (with a property test of the ghost rules against a plain model).

mod common_app;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::Team;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{FogFade, SoftEdge, TileLook};
use common_app::*;
use proptest::prelude::*;

/// The clock's step per update.
const STEP: Duration = Duration::from_millis(50);

/// 150 ms in (3 updates), 400 ms out (8 updates).
fn fade() -> FogFade {
    FogFade::new(Duration::from_millis(150), Duration::from_millis(400))
}

/// The app with a clock that moves [`STEP`] per update, and the tiles written in the last
/// update recorded.
fn timed_app() -> App {
    let mut app = app();
    app.insert_resource(TimeUpdateStrategy::ManualDuration(STEP))
        .init_resource::<Written>()
        .add_systems(PostUpdate, record_writes.after(ViewshedSystems));
    app
}

/// The tiles whose `TileColor` / `TileVisible` changed in the last update, and how many
/// `LastSeen` did.
#[derive(Resource, Default)]
struct Written {
    colors: BTreeSet<(u32, u32)>,
    visibles: BTreeSet<(u32, u32)>,
    last_seen: usize,
}

fn record_writes(
    colors: Query<&TilePos, Changed<TileColor>>,
    visibles: Query<&TilePos, Changed<TileVisible>>,
    last_seen: Query<(), Changed<LastSeen>>,
    mut written: ResMut<Written>,
) {
    written.colors = colors.iter().map(|t| (t.x, t.y)).collect();
    written.visibles = visibles.iter().map(|t| (t.x, t.y)).collect();
    written.last_seen = last_seen.iter().count();
}

fn written(app: &App) -> &Written {
    app.world().resource::<Written>()
}

fn move_to(app: &mut App, entity: Entity, x: u32, y: u32) {
    *app.world_mut().get_mut::<TilePos>(entity).unwrap() = TilePos { x, y };
}

/// An open map with `style` on it and the player at `(x, y)`, after two updates.
fn open_map(app: &mut App, width: u32, style: FogStyle, x: u32, radius: u32) -> (Entity, Entity) {
    let map = spawn_map(app, width, 5, |_, _| false);
    app.world_mut().entity_mut(map).insert(style);
    let player = spawn_player(app, map, x, 2, radius);
    app.update();
    app.update();
    (map, player)
}

fn states(app: &App, map: Entity) -> BTreeMap<(u32, u32), FogState> {
    let size = fog(app, map).size();
    let mut states = BTreeMap::new();
    for y in 0..size.y {
        for x in 0..size.x {
            states.insert((x, y), fog(app, map).state(TilePos { x, y }));
        }
    }
    states
}

/// The tiles whose state went from one of `before` to one of `after`.
fn changed(
    before: &BTreeMap<(u32, u32), FogState>,
    after: &BTreeMap<(u32, u32), FogState>,
    into_view: bool,
) -> BTreeSet<(u32, u32)> {
    before
        .iter()
        .filter(|&(tile, state)| after[tile] != *state)
        .filter(|&(tile, _)| (after[tile] == FogState::Visible) == into_view)
        .map(|(&tile, _)| tile)
        .collect()
}

fn mix(from: Color, to: Color, steps: u64, of: u64) -> Color {
    from.mix(&to, (steps as f64 / of as f64) as f32)
}

#[test]
fn a_tile_leaving_the_view_fades_to_its_remembered_look() {
    let mut app = timed_app();
    let style = FogStyle::default().with_fade(fade());
    let (map, player) = open_map(&mut app, 20, style, 3, 2);
    let dim = style.remembered.color.unwrap();
    assert_eq!(look(&app, map, 1, 2), (true, Color::WHITE));

    move_to(&mut app, player, 10, 2);
    app.update();
    assert_eq!(
        fog(&app, map).state(TilePos { x: 1, y: 2 }),
        FogState::Remembered
    );
    assert_eq!(
        look(&app, map, 1, 2),
        (true, Color::WHITE),
        "the fade starts"
    );
    for step in 1..8 {
        app.update();
        assert_eq!(
            look(&app, map, 1, 2),
            (true, mix(Color::WHITE, dim, step, 8))
        );
    }
    app.update();
    assert_eq!(look(&app, map, 1, 2), (true, dim), "400 ms later");
}

/// A layer whose `FogStyle` is removed mid-fade is the game's again: no fade repaints it.
#[test]
fn removing_a_fog_style_mid_fade_stops_its_fades() {
    let mut app = timed_app();
    let style = FogStyle::default().with_fade(fade());
    let (map, player) = open_map(&mut app, 20, style, 3, 2);
    move_to(&mut app, player, 10, 2);
    app.update();
    app.update();
    app.update();
    let mid = look(&app, map, 1, 2);
    assert_ne!(mid.1, Color::WHITE, "the fade is under way");
    app.world_mut().entity_mut(map).remove::<FogStyle>();
    for _ in 0..10 {
        app.update();
        assert_eq!(look(&app, map, 1, 2), mid, "left where the fade was");
        assert!(written(&app).colors.is_empty(), "no tile repainted");
    }
}

#[test]
fn a_hidden_tile_coming_into_view_is_shown_at_once_and_fades_in() {
    let mut app = timed_app();
    let (map, player) = open_map(&mut app, 20, FogStyle::default().with_fade(fade()), 3, 2);
    assert!(!look(&app, map, 12, 2).0, "unexplored: hidden");

    move_to(&mut app, player, 10, 2);
    app.update();
    let clear = Color::WHITE.with_alpha(0.0);
    assert_eq!(look(&app, map, 12, 2), (true, clear));
    app.update();
    assert_eq!(
        look(&app, map, 12, 2),
        (true, mix(clear, Color::WHITE, 1, 3))
    );
    app.update();
    assert_eq!(
        look(&app, map, 12, 2),
        (true, mix(clear, Color::WHITE, 2, 3))
    );
    app.update();
    assert_eq!(look(&app, map, 12, 2), (true, Color::WHITE), "150 ms later");
}

#[test]
fn only_fading_tiles_are_written_and_none_once_the_fades_are_over() {
    let mut app = timed_app();
    let style = FogStyle::default().with_fade(fade());
    let (map, player) = open_map(&mut app, 30, style, 5, 3);
    let before = states(&app, map);
    move_to(&mut app, player, 20, 2);
    app.update();
    let after = states(&app, map);
    let coming = changed(&before, &after, true);
    let leaving = changed(&before, &after, false);
    assert!(!coming.is_empty() && !leaving.is_empty());
    assert_eq!(
        written(&app).visibles,
        coming,
        "shown at the start of their fade"
    );

    // Each update writes the tiles in transition, and only them.
    for step in 1..=8 {
        app.update();
        let mut fading = leaving.clone();
        if step <= 3 {
            fading.extend(&coming);
        }
        assert_eq!(written(&app).colors, fading, "update {step}");
        assert!(written(&app).visibles.is_empty());
    }
    // The fades are over: nothing is written any more.
    for _ in 0..3 {
        app.update();
        assert!(written(&app).colors.is_empty() && written(&app).visibles.is_empty());
    }
}

#[test]
fn a_change_in_the_middle_of_a_fade_starts_from_the_current_colour() {
    let mut app = timed_app();
    let style = FogStyle::default().with_fade(fade());
    let (map, player) = open_map(&mut app, 20, style, 3, 2);
    let dim = style.remembered.color.unwrap();
    move_to(&mut app, player, 10, 2);
    app.update();
    app.update();
    app.update();
    let partway = mix(Color::WHITE, dim, 2, 8);
    assert_eq!(look(&app, map, 1, 2), (true, partway));

    // Back into view: from where the tile is, not from its remembered look.
    move_to(&mut app, player, 3, 2);
    app.update();
    assert_eq!(look(&app, map, 1, 2), (true, partway), "no jump");
    app.update();
    assert_eq!(
        look(&app, map, 1, 2),
        (true, mix(partway, Color::WHITE, 1, 3))
    );
    app.update();
    app.update();
    assert_eq!(look(&app, map, 1, 2), (true, Color::WHITE));
}

#[test]
fn an_overlay_fades_to_transparent_and_hides_at_the_end() {
    let mut app = timed_app();
    let ground = spawn_map(&mut app, 20, 5, |_, _| false);
    let overlay = spawn_layer(&mut app, 20, 5, |_, _| false, Some(ground));
    app.world_mut()
        .entity_mut(overlay)
        .insert(FogStyle::overlay().with_fade(fade()));
    let player = spawn_player(&mut app, ground, 3, 2, 2);
    app.update();
    app.update();
    assert_eq!(look(&app, overlay, 12, 2), (true, Color::BLACK));

    // (12, 2) comes into view: the black fades out over 150 ms, then the tile is hidden.
    move_to(&mut app, player, 10, 2);
    app.update();
    app.update();
    let clear = Color::BLACK.with_alpha(0.0);
    assert_eq!(
        look(&app, overlay, 12, 2),
        (true, mix(Color::BLACK, clear, 1, 3))
    );
    app.update();
    app.update();
    assert_eq!(
        look(&app, overlay, 12, 2),
        (false, Color::BLACK),
        "hidden, colour put back"
    );

    // (1, 2) left the view at the same time: shown at once, it fades in from transparent to
    // the remembered black over 400 ms (3 updates of 8 so far).
    let remembered = FogStyle::overlay().remembered.color.unwrap();
    let from = remembered.with_alpha(0.0);
    assert_eq!(
        look(&app, overlay, 1, 2),
        (true, mix(from, remembered, 3, 8))
    );
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(look(&app, overlay, 1, 2), (true, remembered));
}

#[test]
fn fades_are_off_by_default_and_a_new_layer_is_written_at_once() {
    let mut app = timed_app();
    let (map, player) = open_map(&mut app, 20, FogStyle::default(), 3, 2);
    move_to(&mut app, player, 10, 2);
    app.update();
    let dim = FogStyle::default().remembered.color.unwrap();
    assert_eq!(
        look(&app, map, 1, 2),
        (true, dim),
        "no fade without FogFade"
    );

    // A style that fades, put on: every tile takes its look in that update.
    app.world_mut()
        .entity_mut(map)
        .insert(FogStyle::default().with_fade(fade()));
    app.update();
    assert_eq!(look(&app, map, 1, 2), (true, dim));
    assert_eq!(look(&app, map, 10, 2), (true, Color::WHITE));
    assert!(!look(&app, map, 19, 2).0);
    app.update();
    assert!(written(&app).colors.is_empty());
}

/// Remembered tiles at the edge in grey, unexplored ones at the edge in translucent dim.
fn soft() -> SoftEdge {
    SoftEdge {
        remembered: TileLook::shown(Color::srgb(0.6, 0.6, 0.6)),
        unexplored: TileLook::shown(Color::srgba(0.3, 0.3, 0.3, 0.5)),
    }
}

#[test]
fn soft_edges_give_the_border_of_the_view_its_own_look() {
    let mut app = timed_app();
    let style = FogStyle::default().with_soft_edge(soft());
    let (map, player) = open_map(&mut app, 20, style, 5, 1);
    let edge_unexplored = (true, soft().unexplored.color.unwrap());
    // Radius 1 sees the 3x3 block around (5, 2); the ring around it is the edge.
    assert_eq!(look(&app, map, 6, 3), (true, Color::WHITE));
    assert_eq!(look(&app, map, 7, 2), edge_unexplored);
    assert_eq!(
        look(&app, map, 7, 4),
        edge_unexplored,
        "a diagonal neighbour of (6, 3)"
    );
    assert!(!look(&app, map, 8, 2).0, "two tiles away: unexplored");

    // Two steps east: (5, 2) is remembered at the edge, (4, 2) remembered away from it, (3, 2)
    // unexplored away from it.
    let before = looks(&app, map);
    move_to(&mut app, player, 7, 2);
    app.update();
    assert_eq!(
        look(&app, map, 5, 2),
        (true, soft().remembered.color.unwrap())
    );
    assert_eq!(
        look(&app, map, 4, 2),
        (true, style.remembered.color.unwrap())
    );
    assert!(!look(&app, map, 3, 2).0);
    assert_eq!(look(&app, map, 9, 2), edge_unexplored);
    // Written: the tiles whose state or edge changed, and only them.
    let after = looks(&app, map);
    let expected: BTreeSet<_> = before
        .iter()
        .filter(|&(tile, look)| after[tile] != *look)
        .map(|(&tile, _)| tile)
        .collect();
    let mut written_now = written(&app).colors.clone();
    written_now.extend(&written(&app).visibles);
    assert_eq!(written_now, expected);
    app.update();
    assert!(
        written(&app).colors.is_empty(),
        "nothing changed, nothing written"
    );
}

/// Each tile's state and whether it is at the edge (a neighbour of the 8 seen, itself not).
fn looks(app: &App, map: Entity) -> BTreeMap<(u32, u32), (FogState, bool)> {
    let fog = fog(app, map);
    let seen =
        |x: i64, y: i64| x >= 0 && y >= 0 && fog.is_visible(TilePos::new(x as u32, y as u32));
    states(app, map)
        .into_iter()
        .map(|((x, y), state)| {
            let (x1, y1) = (i64::from(x), i64::from(y));
            let next = (-1..=1).any(|dx| (-1..=1).any(|dy| seen(x1 + dx, y1 + dy)));
            ((x, y), (state, state != FogState::Visible && next))
        })
        .collect()
}

#[test]
fn soft_edges_on_a_hexagonal_map_follow_the_six_neighbours() {
    let mut app = timed_app();
    let map = spawn_map(&mut app, 12, 12, |_, _| false);
    app.world_mut().entity_mut(map).insert((
        TilemapType::Hexagon(HexCoordSystem::Row),
        FogStyle::default().with_soft_edge(soft()),
    ));
    spawn_player(&mut app, map, 5, 5, 1);
    app.update();
    app.update();
    let edge = (true, soft().unexplored.color.unwrap());
    assert!(fog(&app, map).is_visible(TilePos { x: 6, y: 4 }));
    assert!(!fog(&app, map).is_visible(TilePos { x: 6, y: 6 }));
    // (6, 6) touches (5, 6) and (6, 5); (4, 4) touches (5, 4) and (4, 5).
    assert_eq!(look(&app, map, 6, 6), edge);
    assert_eq!(look(&app, map, 4, 4), edge);
    // (7, 6) touches (6, 5) only diagonally on a square grid: no hexagon of the view.
    assert!(!look(&app, map, 7, 6).0);
    assert!(!look(&app, map, 3, 4).0);
}

/// A square map retyped as hexagonal: the soft edges follow the six neighbours at once, though
/// the view (one tile) did not change.
#[test]
fn soft_edges_follow_a_map_that_changes_its_grid() {
    let mut app = timed_app();
    let map = spawn_map(&mut app, 12, 12, |_, _| false);
    app.world_mut()
        .entity_mut(map)
        .insert(FogStyle::default().with_soft_edge(soft()));
    spawn_player(&mut app, map, 5, 5, 0);
    app.update();
    app.update();
    let edge = (true, soft().unexplored.color.unwrap());
    assert_eq!(
        look(&app, map, 6, 6),
        edge,
        "a diagonal neighbour on the square grid"
    );
    app.world_mut()
        .entity_mut(map)
        .insert(TilemapType::Hexagon(HexCoordSystem::Row));
    app.update();
    app.update();
    assert!(fog(&app, map).is_visible(TilePos { x: 5, y: 5 }));
    // On a Row hexagonal grid, (6, 4) and (4, 6) are neighbours of (5, 5); (6, 6) and (4, 4)
    // are not.
    assert_eq!(look(&app, map, 6, 4), edge);
    assert_eq!(look(&app, map, 4, 6), edge);
    assert!(!look(&app, map, 6, 6).0, "no longer at the edge");
    assert!(!look(&app, map, 4, 4).0, "no longer at the edge");
}

fn spawn_monster(app: &mut App, map: Entity, x: u32, y: u32) -> Entity {
    app.world_mut()
        .spawn((LeavesGhost, TilePos { x, y }, TilemapId(map)))
        .id()
}

fn ghosts(app: &App, map: Entity, team: u32) -> Vec<(Entity, (u32, u32))> {
    app.world()
        .get::<LastSeen>(map)
        .unwrap()
        .ghosts(Team(team))
        .map(|ghost| (ghost.entity, (ghost.tile.x, ghost.tile.y)))
        .collect()
}

fn elapsed(app: &App) -> Duration {
    app.world().resource::<Time>().elapsed()
}

#[test]
fn a_monster_that_steps_out_of_view_leaves_a_ghost_where_it_went() {
    let mut app = timed_app();
    let (map, player) = open_map(&mut app, 20, FogStyle::default(), 2, 3);
    let rat = spawn_monster(&mut app, map, 5, 2);
    app.update();
    assert_eq!(ghosts(&app, map, 0), [], "seen now: no ghost");
    let seen_at = elapsed(&app);

    move_to(&mut app, rat, 6, 2);
    app.update();
    assert_eq!(ghosts(&app, map, 0), [(rat, (6, 2))]);
    let ghost = app
        .world()
        .get::<LastSeen>(map)
        .unwrap()
        .ghost(Team(0), rat);
    assert_eq!(
        ghost.unwrap().seen_at,
        seen_at,
        "the last update it was seen"
    );

    // It walks on unseen: the ghost stays where it went out of view.
    move_to(&mut app, rat, 9, 2);
    app.update();
    assert_eq!(ghosts(&app, map, 0), [(rat, (6, 2))]);
    // The player sees (6, 2) again, without the rat: the ghost is cleared.
    move_to(&mut app, player, 4, 2);
    app.update();
    assert_eq!(ghosts(&app, map, 0), []);
}

/// The player sees a rat at (4, 2) and walks away to (12, 2): returns the map, the player and
/// the rat.
fn rat_left_behind(app: &mut App) -> (Entity, Entity, Entity) {
    let (map, player) = open_map(app, 20, FogStyle::default(), 2, 3);
    let rat = spawn_monster(app, map, 4, 2);
    app.update();
    move_to(app, player, 12, 2);
    app.update();
    (map, player, rat)
}

#[test]
fn a_monster_left_behind_is_remembered_where_it_was_seen() {
    let mut app = timed_app();
    let (map, player, rat) = rat_left_behind(&mut app);
    assert_eq!(ghosts(&app, map, 0), [(rat, (4, 2))]);

    // Seen elsewhere: the ghost moves with the sighting.
    move_to(&mut app, rat, 10, 2);
    app.update();
    assert_eq!(ghosts(&app, map, 0), []);
    move_to(&mut app, player, 17, 2);
    app.update();
    assert_eq!(ghosts(&app, map, 0), [(rat, (10, 2))]);
}

#[test]
fn a_monster_that_vanishes_in_view_leaves_no_ghost() {
    let mut app = timed_app();
    let (map, _) = open_map(&mut app, 20, FogStyle::default(), 2, 3);
    let rat = spawn_monster(&mut app, map, 4, 2);
    let bat = spawn_monster(&mut app, map, 3, 2);
    app.update();
    move_to(&mut app, rat, 15, 2); // teleported
    app.world_mut().despawn(bat); // killed in view
    app.update();
    assert_eq!(ghosts(&app, map, 0), []);
}

#[test]
fn a_despawned_monster_keeps_its_ghost_until_its_tile_is_seen() {
    let mut app = timed_app();
    let (map, player, rat) = rat_left_behind(&mut app);
    app.world_mut().despawn(rat);
    app.update();
    assert_eq!(
        ghosts(&app, map, 0),
        [(rat, (4, 2))],
        "the team does not know"
    );
    move_to(&mut app, player, 2, 2);
    app.update();
    assert_eq!(ghosts(&app, map, 0), []);
}

#[test]
fn ghosts_are_per_team_and_last_seen_changes_only_with_them() {
    let mut app = timed_app();
    let (map, _) = open_map(&mut app, 30, FogStyle::default(), 2, 3);
    let scout = app
        .world_mut()
        .spawn((
            Viewshed::new(3),
            RevealsFog,
            Team(1),
            TilePos { x: 20, y: 2 },
            TilemapId(map),
        ))
        .id();
    let rat = spawn_monster(&mut app, map, 21, 2);
    app.update();
    assert_eq!(written(&app).last_seen, 0, "seen now: no ghost appeared");

    move_to(&mut app, scout, 27, 2);
    app.update();
    assert_eq!(written(&app).last_seen, 1);
    assert_eq!(ghosts(&app, map, 1), [(rat, (21, 2))]);
    assert_eq!(ghosts(&app, map, 0), [], "team 0 never saw it");
    app.update();
    assert_eq!(written(&app).last_seen, 0);
}

/// One step of the ghost property test.
#[derive(Clone, Debug)]
enum Step {
    MovePlayer(u32, u32),
    MoveMonster(usize, u32, u32),
    Walk(usize, i32, i32),
    Despawn(usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        2 => (0..16u32, 0..8u32).prop_map(|(x, y)| Step::MovePlayer(x, y)),
        1 => (0..3usize, 0..16u32, 0..8u32).prop_map(|(i, x, y)| Step::MoveMonster(i, x, y)),
        1 => (0..3usize).prop_map(Step::Despawn),
        // Monsters mostly walk: a step to a neighbour.
        4 => (0..3usize, -1..=1i32, -1..=1i32).prop_map(|(i, dx, dy)| Step::Walk(i, dx, dy)),
    ]
}

/// What a team knows of a monster in the plain model.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Known {
    Seen((u32, u32)),
    Ghost((u32, u32)),
}

/// The ghost rules of `LeavesGhost`, on tiles: one update of the model.
fn model_update(
    known: &mut BTreeMap<usize, Known>,
    at: &BTreeMap<usize, (u32, u32)>,
    visible: impl Fn((u32, u32)) -> bool,
) {
    for (&monster, &tile) in at {
        if visible(tile) {
            known.insert(monster, Known::Seen(tile));
        }
    }
    known.retain(|monster, known| {
        let now_at = at.get(monster).copied();
        if now_at.is_some_and(&visible) {
            return true;
        }
        match *known {
            Known::Ghost(tile) => !visible(tile),
            Known::Seen(tile) if !visible(tile) => {
                *known = Known::Ghost(tile);
                true
            }
            Known::Seen((x, y)) => match now_at {
                Some(to) if to != (x, y) && to.0.abs_diff(x) <= 1 && to.1.abs_diff(y) <= 1 => {
                    *known = Known::Ghost(to);
                    true
                }
                _ => false,
            },
        }
    });
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn ghosts_follow_the_rules(steps in prop::collection::vec(step(), 1..30)) {
        let mut app = app();
        let walls = |x: u32, y: u32| x == 8 && y != 4;
        let map = spawn_map(&mut app, 16, 8, walls);
        let player = spawn_player(&mut app, map, 2, 4, 4);
        let mut monsters = Vec::new();
        let mut at: BTreeMap<usize, (u32, u32)> = BTreeMap::new();
        for (i, x) in [3u32, 6, 12].into_iter().enumerate() {
            monsters.push(spawn_monster(&mut app, map, x, 4));
            at.insert(i, (x, 4));
        }
        let mut known = BTreeMap::new();
        for step in steps {
            let step = match step {
                Step::Walk(i, dx, dy) => match at.get(&i) {
                    Some(&(x, y)) => Step::MoveMonster(
                        i,
                        x.saturating_add_signed(dx).min(15),
                        y.saturating_add_signed(dy).min(7),
                    ),
                    None => continue,
                },
                step => step,
            };
            match step {
                Step::MovePlayer(x, y) => move_to(&mut app, player, x, y),
                Step::MoveMonster(i, x, y) if at.contains_key(&i) => {
                    move_to(&mut app, monsters[i], x, y);
                    at.insert(i, (x, y));
                }
                Step::Despawn(i) if at.remove(&i).is_some() => {
                    app.world_mut().despawn(monsters[i]);
                }
                _ => {}
            }
            app.update();
            let fog = fog(&app, map);
            model_update(&mut known, &at, |(x, y)| fog.is_visible(TilePos { x, y }));
            let expected: Vec<_> = known
                .iter()
                .filter_map(|(&i, known)| match known {
                    Known::Ghost(tile) => Some((monsters[i], *tile)),
                    Known::Seen(_) => None,
                })
                .collect();
            let mut actual = ghosts(&app, map, 0);
            actual.sort();
            let mut expected = expected;
            expected.sort();
            prop_assert_eq!(actual, expected);
        }
    }
}
