//! What comes from outside never panics: text maps (`AsciiMap::parse`) and, with the `serde`
//! feature, saved visible sets. Arbitrary and mutated inputs give `Ok` or an error; an `Ok`
//! value is consistent with itself (the viewer on the grid, every query of a set agreeing).

mod common;

use common::random_grid;
use proptest::prelude::*;
use viewshed_core::ascii::AsciiMap;
use viewshed_core::{Fov, FovOptions, VisibleSet};

/// A valid map: an optional radius line, rows of `#` and `.`, one `@` on a floor.
fn valid_map() -> impl Strategy<Value = String> {
    (
        1u32..=12,
        1u32..=12,
        0u32..=60,
        any::<u64>(),
        any::<(u32, u32)>(),
        proptest::option::of(0u32..=20),
    )
        .prop_map(|(width, height, density, seed, (vx, vy), radius)| {
            let grid = random_grid(width, height, density, seed);
            let viewer = (vx % width, vy % height);
            let mut text = radius.map_or(String::new(), |r| format!("radius {r}\n"));
            for y in 0..height {
                for x in 0..width {
                    text.push(if (x, y) == viewer {
                        '@'
                    } else if grid.is_opaque(x, y) {
                        '#'
                    } else {
                        '.'
                    });
                }
                text.push('\n');
            }
            text
        })
}

/// A valid map from the generator or from the reference cases.
fn seed_map() -> impl Strategy<Value = String> {
    prop_oneof![
        valid_map(),
        (0u32..200).prop_map(|id| {
            let path = common::manifest_dir().join(format!("tests/fov-cases/{id:03}.map"));
            std::fs::read_to_string(path).expect("a reference case")
        }),
    ]
}

/// One edit of a text: a byte inserted, removed or replaced, or a slice cut out.
#[derive(Clone, Debug)]
enum Edit {
    Insert(usize, u8),
    Remove(usize),
    Replace(usize, u8),
    Cut(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    // Mostly the bytes the format uses, sometimes any byte (invalid UTF-8 included).
    let byte = prop_oneof![
        4 => proptest::sample::select(b"#.@\n\r \tradius0123456789-+x".to_vec()),
        1 => any::<u8>(),
    ];
    prop_oneof![
        (any::<usize>(), byte.clone()).prop_map(|(at, b)| Edit::Insert(at, b)),
        any::<usize>().prop_map(Edit::Remove),
        (any::<usize>(), byte).prop_map(|(at, b)| Edit::Replace(at, b)),
        (any::<usize>(), 0usize..40).prop_map(|(at, len)| Edit::Cut(at, len)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for edit in edits {
        let len = bytes.len();
        match *edit {
            Edit::Insert(at, b) => bytes.insert(at % (len + 1), b),
            Edit::Remove(at) if len > 0 => {
                bytes.remove(at % len);
            }
            Edit::Replace(at, b) if len > 0 => bytes[at % len] = b,
            Edit::Cut(at, cut) if len > 0 => {
                let start = at % len;
                bytes.drain(start..(start + cut).min(len));
            }
            _ => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Parses `text`; on success the map is usable: the viewer stands on the grid, its view can
/// be computed and drawn, one line per row.
fn parse_and_use(text: &str) -> Result<(), TestCaseError> {
    let Ok(map) = AsciiMap::parse(text) else {
        return Ok(());
    };
    let (width, height) = (map.grid.width(), map.grid.height());
    prop_assert!(width > 0 && height > 0);
    prop_assert!(
        map.grid.contains(map.viewer.0, map.viewer.1),
        "{:?}",
        map.viewer
    );
    prop_assert!(!map.grid.is_opaque(map.viewer.0, map.viewer.1));
    let mut visible = VisibleSet::new();
    let options = FovOptions::unlimited().with_radius(map.radius);
    prop_assert!(
        Fov::new()
            .compute(&map.grid, map.viewer, options, &mut visible)
            .is_ok()
    );
    let drawn = map.draw_visible(&visible);
    prop_assert_eq!(drawn.lines().count(), height as usize);
    prop_assert!(
        drawn
            .lines()
            .all(|line| line.chars().count() == width as usize)
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Any bytes, read as (lossy) UTF-8.
    #[test]
    fn parse_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        parse_and_use(&String::from_utf8_lossy(&bytes))?;
    }

    /// Strings of the format's own characters, which get much further into the parser.
    #[test]
    fn parse_never_panics_on_near_maps(text in prop_oneof![
        "(radius ?[-+0-9 ]{0,12}\r?\n)?[#.@ \r\n\t]{0,200}",
        "(radius [0-9]{1,3}\n)?([#.]{0,3}@?[#.]{0,3}\r?\n){1,6}\n{0,2}",
    ]) {
        parse_and_use(&text)?;
    }

    /// Valid maps parse; edited ones parse or give an error.
    #[test]
    fn parse_never_panics_on_edited_maps(
        map in seed_map(),
        edits in proptest::collection::vec(edit(), 0..6),
    ) {
        if edits.is_empty() {
            prop_assert!(AsciiMap::parse(&map).is_ok(), "a valid map is refused: {:?}", map);
        }
        parse_and_use(&apply(&map, &edits))?;
    }
}

#[cfg(feature = "serde")]
mod saved_sets {
    //! Saved visible sets from JSON: valid saves, saves with changed fields, any JSON value.

    use super::common::{radius, scene};
    use proptest::prelude::*;
    use serde_json::{Value, json};
    use viewshed_core::bits::BitRows;
    use viewshed_core::{FovOptions, VisibleSet, field_of_view};

    /// A real save: the view of a random viewer, as JSON.
    fn valid_save() -> impl Strategy<Value = Value> {
        (scene(150), radius()).prop_map(|(s, r)| {
            let options = FovOptions::unlimited().with_radius(r);
            let visible = field_of_view(&s.grid, s.viewer, options).expect("viewer on the map");
            serde_json::to_value(&visible).expect("a set serializes")
        })
    }

    /// Numbers that break sizes: zero, word edges, the ends of u32 and beyond.
    fn size() -> impl Strategy<Value = Value> {
        prop_oneof![
            16 => proptest::sample::select(vec![
                0u64,
                1,
                63,
                64,
                65,
                128,
                u64::from(u32::MAX / 64),
                u64::from(u32::MAX - 1),
                u64::from(u32::MAX),
                u64::from(u32::MAX) + 1,
                u64::MAX,
            ])
            .prop_map(|n| json!(n)),
            16 => (0u64..300).prop_map(|n| json!(n)),
            1 => Just(json!(-1)),
        ]
    }

    /// Values of the wrong type for any field.
    fn wrong_type() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(json!(1.5)),
            Just(json!("64")),
            Just(Value::Null),
            Just(json!([])),
            Just(json!({})),
        ]
    }

    /// One change to a save.
    #[derive(Clone, Debug)]
    enum Change {
        Field(&'static str, Value),
        Stride(Value),
        Remove(&'static str),
        Words(WordsChange),
    }

    #[derive(Clone, Debug)]
    enum WordsChange {
        Truncate(usize),
        Push(u64),
        Set(usize, u64),
        Clear,
        NotAnArray(Value),
    }

    fn change() -> impl Strategy<Value = Change> {
        let field = proptest::sample::select(vec!["x0", "y0", "width", "height"]);
        let word = prop_oneof![Just(u64::MAX), Just(1u64 << 63), any::<u64>()];
        let words = prop_oneof![
            any::<usize>().prop_map(WordsChange::Truncate),
            word.clone().prop_map(WordsChange::Push),
            (any::<usize>(), word).prop_map(|(at, w)| WordsChange::Set(at, w)),
            Just(WordsChange::Clear),
            wrong_type().prop_map(WordsChange::NotAnArray),
        ];
        prop_oneof![
            8 => (field.clone(), size()).prop_map(|(f, v)| Change::Field(f, v)),
            4 => size().prop_map(Change::Stride),
            1 => (field.clone(), wrong_type()).prop_map(|(f, v)| Change::Field(f, v)),
            1 => field.prop_map(Change::Remove),
            4 => words.prop_map(Change::Words),
        ]
    }

    fn apply(save: &mut Value, change: &Change) {
        let Some(fields) = save.as_object_mut() else {
            return;
        };
        match change {
            Change::Field(name, value) => {
                fields.insert((*name).into(), value.clone());
            }
            Change::Remove(name) => {
                fields.remove(*name);
            }
            Change::Stride(value) => {
                if let Some(rows) = fields.get_mut("rows").and_then(Value::as_object_mut) {
                    rows.insert("stride".into(), value.clone());
                }
            }
            Change::Words(words) => {
                let Some(rows) = fields.get_mut("rows").and_then(Value::as_object_mut) else {
                    return;
                };
                if let WordsChange::NotAnArray(value) = words {
                    rows.insert("words".into(), value.clone());
                    return;
                }
                let Some(list) = rows.get_mut("words").and_then(Value::as_array_mut) else {
                    return;
                };
                match *words {
                    WordsChange::Truncate(at) => list.truncate(at % (list.len() + 1)),
                    WordsChange::Push(w) => list.push(json!(w)),
                    WordsChange::Set(at, w) if !list.is_empty() => {
                        let at = at % list.len();
                        list[at] = json!(w);
                    }
                    WordsChange::Clear => list.clear(),
                    _ => {}
                }
            }
        }
    }

    /// An object with the fields of a save, of any sizes, and any words.
    fn save_shaped() -> impl Strategy<Value = Value> {
        (
            [size(), size(), size(), size(), size()],
            proptest::collection::vec(any::<u64>(), 0..40),
        )
            .prop_map(|([x0, y0, width, height, stride], words)| {
                json!({
                    "x0": x0, "y0": y0, "width": width, "height": height,
                    "rows": { "words": words, "stride": stride },
                })
            })
    }

    /// Any JSON value, with the save's own field names among the keys.
    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<u64>().prop_map(|n| json!(n)),
            any::<i64>().prop_map(|n| json!(n)),
            any::<f64>().prop_map(|n| json!(n)),
            size(),
            wrong_type(),
            "[a-z]{0,6}".prop_map(Value::String),
        ];
        let key = prop_oneof![
            proptest::sample::select(vec![
                "x0", "y0", "width", "height", "rows", "words", "stride",
            ])
            .prop_map(String::from),
            "[a-z]{1,6}",
        ];
        let nested = leaf.prop_recursive(4, 64, 8, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                proptest::collection::btree_map(key.clone(), inner, 0..8)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        });
        prop_oneof![nested, save_shaped()]
    }

    /// Reads `save`; on success every query of the set agrees with the others.
    fn load_and_query(save: &Value) -> Result<(), TestCaseError> {
        let Ok(set) = serde_json::from_value::<VisibleSet>(save.clone()) else {
            return Ok(());
        };
        let window = set.window();
        prop_assert!(window.x.checked_add(window.width).is_some());
        prop_assert!(window.y.checked_add(window.height).is_some());
        let cells: Vec<(u32, u32)> = set.iter().collect();
        prop_assert_eq!(cells.len(), set.count());
        prop_assert_eq!(set.is_empty(), cells.is_empty());
        for &(x, y) in &cells {
            prop_assert!(window.contains(x, y), "({}, {}) outside {:?}", x, y, window);
            prop_assert!(set.contains(x, y));
        }
        // Every cell of a small window, and the cells just around any window.
        let area = u64::from(window.width) * u64::from(window.height);
        if area <= 1 << 14 {
            let _ = format!("{set:?}");
        }
        if area > 0 && area <= 1 << 14 {
            let inside = (window.y..window.y + window.height)
                .flat_map(|y| (window.x..window.x + window.width).map(move |x| (x, y)))
                .filter(|&(x, y)| set.contains(x, y))
                .count();
            prop_assert_eq!(inside, cells.len());
        }
        let (x1, y1) = (window.x + window.width, window.y + window.height);
        for (x, y) in [
            (window.x.wrapping_sub(1), window.y),
            (x1, window.y),
            (window.x, window.y.wrapping_sub(1)),
            (window.x, y1),
            (u32::MAX, u32::MAX),
        ] {
            prop_assert!(!set.contains(x, y) || window.contains(x, y));
        }
        let mut grid = BitRows::new(100, 100);
        set.or_into(&mut grid);
        let expected = cells.iter().filter(|&&(x, y)| x < 100 && y < 100).count();
        prop_assert_eq!(grid.count_ones(), expected);
        // It saves back to what was read.
        let again: VisibleSet = serde_json::from_value(serde_json::to_value(&set).unwrap())
            .expect("a loaded set reloads");
        prop_assert_eq!(again, set);
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// Real saves load back to the same set.
        #[test]
        fn valid_saves_load(save in valid_save()) {
            let set: VisibleSet = serde_json::from_value(save.clone()).expect("a valid save loads");
            prop_assert_eq!(serde_json::to_value(&set).unwrap(), save.clone());
            load_and_query(&save)?;
        }

        /// Saves with changed sizes, strides and words load or give an error.
        #[test]
        fn changed_saves_never_panic(
            mut save in valid_save(),
            changes in proptest::collection::vec(change(), 1..3),
        ) {
            for change in &changes {
                apply(&mut save, change);
            }
            load_and_query(&save)?;
        }

        /// Any JSON value loads or gives an error.
        #[test]
        fn any_json_never_panics(value in any_json()) {
            load_and_query(&value)?;
        }
    }

    /// Windows with no cell but a huge side: nothing to read, and nothing loops over the
    /// empty side.
    #[test]
    fn empty_windows_with_huge_sides_load_at_once() {
        for (width, height) in [(0, u32::MAX), (u32::MAX, 0), (0, 0)] {
            let save = json!({
                "x0": 0, "y0": 0, "width": width, "height": height,
                "rows": { "words": [], "stride": width.div_ceil(64) },
            });
            load_and_query(&save).unwrap();
            let set: VisibleSet = serde_json::from_value(save).unwrap();
            assert!(set.is_empty());
        }
    }
}
