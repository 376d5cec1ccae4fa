//! With the `serde` feature: loading a save never panics and never aborts. `FogOfWar`,
//! `ExploredMemory` and `Viewshed` are read from arbitrary JSON values and from valid saves
//! with random edits (sizes at word edges and beyond `u32`, fields dropped, lists cut or
//! grown); each gives `Ok` or a serde error, and whatever loads works: its queries answer, a
//! fog can be restored from it and put on a map, a viewshed can be put on a viewer and updated.
#![cfg(feature = "serde")]

mod common_app;

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::ExploredMemory;
use bevy_viewshed::prelude::*;
use common_app::{app, spawn_map};
use proptest::prelude::*;
use serde_json::{Value, json};

/// The field names the saves use, so that arbitrary objects often look like saves.
const KEYS: &[&str] = &[
    "width",
    "height",
    "teams",
    "options",
    "visible",
    "radius",
    "Limited",
    "Unlimited",
    "shape",
    "cone",
    "facing",
    "mode",
    "light_walls",
    "x0",
    "y0",
    "rows",
    "words",
    "stride",
];

/// Numbers that break sizes: zero, word edges, the ends of `u32` and beyond, negatives and
/// fractions.
fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => proptest::sample::select(vec![
            0u64,
            1,
            63,
            64,
            65,
            1 << 15,
            u64::from(u32::MAX),
            u64::from(u32::MAX) + 1,
            u64::MAX,
        ])
        .prop_map(|n| json!(n)),
        4 => (0u64..200).prop_map(|n| json!(n)),
        1 => Just(json!(-1)),
        1 => Just(json!(0.5)),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        6 => number(),
        2 => proptest::sample::select(KEYS.to_vec()).prop_map(|k| json!(k)),
        1 => proptest::sample::select(vec!["Euclidean", "Chebyshev", "Symmetric", "Permissive"])
            .prop_map(|k| json!(k)),
    ]
}

/// Any JSON value, its objects keyed by save field names.
fn any_json() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map(
                proptest::sample::select(KEYS.to_vec()).prop_map(str::to_owned),
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A valid fog save: a `width` x `height` memory for a few teams.
fn fog_save() -> impl Strategy<Value = Value> {
    (1u32..70, 1u32..6, proptest::collection::vec(0u32..4, 0..3)).prop_flat_map(|(w, h, teams)| {
        let words = (w.div_ceil(64) * h) as usize;
        let tail = if w % 64 == 0 {
            u64::MAX
        } else {
            (1 << (w % 64)) - 1
        };
        let stride = w.div_ceil(64) as usize;
        let mut teams = teams;
        teams.sort_unstable();
        teams.dedup();
        proptest::collection::vec(proptest::collection::vec(any::<u64>(), words), teams.len())
            .prop_map(move |rows| {
                let teams: Vec<Value> = teams
                    .iter()
                    .zip(rows)
                    .map(|(&team, mut words)| {
                        for (i, word) in words.iter_mut().enumerate() {
                            if i % stride == stride - 1 {
                                *word &= tail;
                            }
                        }
                        json!([team, words])
                    })
                    .collect();
                json!({ "width": w, "height": h, "teams": teams })
            })
    })
}

/// A valid viewshed save: a view on a small map, in the current layout.
fn viewshed_save() -> impl Strategy<Value = Value> {
    (
        1u32..20,
        1u32..20,
        0u32..20,
        0u32..20,
        0u32..10,
        any::<u64>(),
    )
        .prop_map(|(w, h, x, y, r, seed)| {
            let mut grid = OpacityGrid::new(w, h);
            for (i, (cx, cy)) in (0..h)
                .flat_map(|cy| (0..w).map(move |cx| (cx, cy)))
                .enumerate()
            {
                grid.set_opaque(cx, cy, (seed >> (i % 64)) & 5 == 5);
            }
            let options = FovOptions::radius(r);
            let view = field_of_view(&grid, (x % w, y % h), options).expect("on the map");
            json!({ "options": options, "visible": view })
        })
}

/// One random edit of a value: replace something inside it, drop a key, cut or grow a list.
#[derive(Clone, Debug)]
enum Edit {
    Replace(usize, Value),
    Drop(usize),
    Cut(usize, usize),
    Grow(usize, Value),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<usize>(), leaf()).prop_map(|(i, v)| Edit::Replace(i, v)),
        1 => any::<usize>().prop_map(Edit::Drop),
        1 => (any::<usize>(), 0usize..4).prop_map(|(i, n)| Edit::Cut(i, n)),
        1 => (any::<usize>(), number()).prop_map(|(i, v)| Edit::Grow(i, v)),
    ]
}

/// Every value inside `value` (itself first), as JSON pointers.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                pointers(item, format!("{at}/{i}"), out);
            }
        }
        Value::Object(fields) => {
            for (key, item) in fields {
                pointers(item, format!("{at}/{key}"), out);
            }
        }
        _ => {}
    }
}

fn apply(mut value: Value, edits: &[Edit]) -> Value {
    for edit in edits {
        let mut all = Vec::new();
        pointers(&value, String::new(), &mut all);
        let pick = |i: usize| all[i % all.len()].clone();
        match edit {
            Edit::Replace(i, new) => {
                let at = pick(*i);
                if at.is_empty() {
                    value = new.clone();
                } else if let Some(slot) = value.pointer_mut(&at) {
                    *slot = new.clone();
                }
            }
            Edit::Drop(i) => {
                let at = pick(*i);
                if let Some((parent, key)) = at.rsplit_once('/')
                    && let Some(Value::Object(fields)) = value.pointer_mut(parent)
                {
                    fields.remove(key);
                }
            }
            Edit::Cut(i, n) => {
                if let Some(Value::Array(items)) = value.pointer_mut(&pick(*i)) {
                    let keep = items.len().saturating_sub(*n);
                    items.truncate(keep);
                }
            }
            Edit::Grow(i, new) => {
                if let Some(Value::Array(items)) = value.pointer_mut(&pick(*i)) {
                    items.push(new.clone());
                }
            }
        }
    }
    value
}

/// Loads `json` as every save type; whatever loads is used.
fn load_and_use(json: &Value) {
    if let Ok(mut memory) = serde_json::from_value::<ExploredMemory>(json.clone())
        && memory.validate().is_ok()
    {
        let fog: FogOfWar = serde_json::from_value(json.clone()).expect("a valid memory loads");
        // The fog lists its teams in order.
        memory.teams.sort_by_key(|&(team, _)| team);
        assert_eq!(fog.memory(), memory, "a loaded fog keeps the memory");
    }
    if let Ok(fog) = serde_json::from_value::<FogOfWar>(json.clone()) {
        use_fog(fog);
    }
    if let Ok(viewshed) = serde_json::from_value::<Viewshed>(json.clone()) {
        use_viewshed(viewshed);
    }
}

/// Queries a loaded fog, restores its memory into a copy, and puts it on a 3x3 map.
fn use_fog(fog: FogOfWar) {
    let size = fog.size();
    for y in 0..size.y.min(70) + 1 {
        for x in 0..size.x.min(70) + 1 {
            let _ = fog.state(TilePos { x, y });
        }
    }
    let mut copy = fog.clone();
    copy.restore(&fog.memory())
        .expect("a fog takes its own memory");
    if u64::from(size.x) * u64::from(size.y) <= 4096 {
        let mut game = app();
        let map = spawn_map(&mut game, 3, 3, |x, _| x == 1);
        game.world_mut().entity_mut(map).insert(fog);
        game.update();
        let fog = game
            .world()
            .get::<FogOfWar>(map)
            .expect("the map keeps a fog");
        assert_eq!(fog.size(), TilemapSize::new(3, 3), "resized to the map");
    }
}

/// Queries a loaded viewshed and puts it on a viewer of a 6x6 map.
fn use_viewshed(viewshed: Viewshed) {
    let seen = viewshed.iter().count();
    assert_eq!(seen, viewshed.count());
    for y in 0..40 {
        for x in 0..40 {
            let _ = viewshed.is_visible(TilePos { x, y });
        }
    }
    let mut game = app();
    let map = spawn_map(&mut game, 6, 6, |x, y| x == 3 && y != 2);
    let viewer = game
        .world_mut()
        .spawn((viewshed, TilePos { x: 1, y: 2 }, TilemapId(map)))
        .id();
    game.update();
    let viewshed = game.world().get::<Viewshed>(viewer).expect("kept");
    let grid = common_app::opacity(&game, map).grid().clone();
    let want = field_of_view(&grid, (1, 2), viewshed.options).expect("on the map");
    assert_eq!(
        viewshed.visible_set(),
        &want,
        "a loaded viewshed sees like a new one"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_json_loads_or_is_an_error(json in any_json()) {
        load_and_use(&json);
    }

    #[test]
    fn edited_fog_saves_load_or_are_an_error(
        save in fog_save(),
        edits in proptest::collection::vec(edit(), 0..4),
    ) {
        if edits.is_empty() {
            prop_assert!(serde_json::from_value::<FogOfWar>(save.clone()).is_ok());
        }
        load_and_use(&apply(save, &edits));
    }

    #[test]
    fn edited_viewshed_saves_load_or_are_an_error(
        save in viewshed_save(),
        edits in proptest::collection::vec(edit(), 0..4),
    ) {
        if edits.is_empty() {
            prop_assert!(serde_json::from_value::<Viewshed>(save.clone()).is_ok());
        }
        load_and_use(&apply(save, &edits));
    }
}
