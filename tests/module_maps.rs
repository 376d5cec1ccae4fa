//! Every folder's module map names each of its files: the `//!` docs of a folder's `mod.rs`
//! (of `lib.rs` for a crate's top-level files and folders) hold a map, one line per file or
//! subfolder with its one job, and the map names no file that is not there.
//!
//! A line of the map is a table row whose first cell starts with the module's name in a code
//! span (`` | [`overlay`] | ... `` or `` | `smooth` | ... ``), or a list item that starts with it
//! (`` - `source.rs`: ... ``); `name`, `name.rs` and `name/` all name the file or folder. A
//! name said in passing elsewhere in the prose does not count. The map of a crate root may also
//! name a module it re-exports (`pub use editors::ldtk;`), and `this one` names the `mod.rs`.

mod common_source;

use std::collections::BTreeSet;
use std::path::Path;

use common_source::{SOURCE_DIRS, code_spans, parse, read, root, rs_files};

/// The `//!` lines of a file, without their prefix, with their line numbers.
fn module_docs(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter_map(|(number, line)| {
            let doc = line.trim_start().strip_prefix("//!")?;
            Some((number + 1, doc.strip_prefix(' ').unwrap_or(doc).to_string()))
        })
        .collect()
}

/// The module a map entry names: `overlay`, `source.rs` and `smooth/` name `overlay`,
/// `source` and `smooth`; `a/b.rs` names nothing here.
fn entry_name(span: &str) -> Option<String> {
    let name = span.trim_end_matches('/').trim_end_matches(".rs");
    let is_ident = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (is_ident || span == "this one").then(|| name.to_string())
}

/// The entries of a module map: the first code span of each table row's first cell and of
/// each list item, with their line numbers. Rows of tables that are not module maps (a
/// feature table: its first column heads `feature`) are left out.
fn map_entries(docs: &[(usize, String)]) -> Vec<(usize, String)> {
    let mut entries = Vec::new();
    let mut in_other_table = false;
    let mut previous_was_row = false;
    for (number, line) in docs {
        let trimmed = line.trim();
        if let Some(row) = trimmed.strip_prefix('|') {
            let first_cell = row.split('|').next().unwrap_or("").trim();
            if !previous_was_row {
                // A table's header: a module map heads its first column `module`.
                in_other_table = first_cell != "module";
                previous_was_row = true;
                continue;
            }
            previous_was_row = true;
            if in_other_table || first_cell.starts_with("---") {
                continue;
            }
            // "this one" (the mod.rs itself) is said without a code span.
            if first_cell == "this one" {
                entries.push((*number, "this one".to_string()));
                continue;
            }
            if let Some(name) = first_span(first_cell).as_deref().and_then(entry_name) {
                entries.push((*number, name));
            }
            continue;
        }
        previous_was_row = false;
        if let Some(item) = trimmed.strip_prefix("- ")
            && item.starts_with('`')
            && let Some(name) = first_span(item).as_deref().and_then(entry_name)
        {
            entries.push((*number, name));
        }
    }
    entries
}

/// The first code span of a cell, inside a link or not (`` [`overlay`] ``).
fn first_span(cell: &str) -> Option<String> {
    let cell = cell.trim_start_matches('[');
    if !cell.starts_with('`') {
        return None;
    }
    code_spans(cell).into_iter().next().map(|(_, _, span)| span)
}

/// The leaf names a file re-exports with `pub use` (`pub use editors::ldtk;` gives `ldtk`).
fn reexported(relative: &str) -> BTreeSet<String> {
    fn leaves(tree: &syn::UseTree, out: &mut BTreeSet<String>) {
        match tree {
            syn::UseTree::Path(path) => leaves(&path.tree, out),
            syn::UseTree::Name(name) => {
                out.insert(name.ident.to_string());
            }
            syn::UseTree::Rename(rename) => {
                out.insert(rename.rename.to_string());
            }
            syn::UseTree::Group(group) => group.items.iter().for_each(|item| leaves(item, out)),
            syn::UseTree::Glob(_) => {}
        }
    }
    let mut out = BTreeSet::new();
    for item in parse(relative).items {
        if let syn::Item::Use(item) = item
            && matches!(item.vis, syn::Visibility::Public(_))
        {
            leaves(&item.tree, &mut out);
        }
    }
    out
}

/// What is wrong with one folder's map: `map_file` is the file holding it (for the messages),
/// `docs` its `//!` lines, `children` the folder's files (without `.rs`) and subfolders,
/// `also_allowed` the other names an entry may give (re-exported modules).
fn check_map(
    map_file: &str,
    docs: &[(usize, String)],
    children: &BTreeSet<String>,
    also_allowed: &BTreeSet<String>,
) -> Vec<String> {
    let entries = map_entries(docs);
    let named: BTreeSet<&str> = entries.iter().map(|(_, name)| name.as_str()).collect();
    let mut problems = Vec::new();
    for child in children {
        if !named.contains(child.as_str()) {
            problems.push(format!(
                "{map_file}: its module map has no line for `{child}` (a file or folder beside it)"
            ));
        }
    }
    for (number, name) in &entries {
        if name != "this one" && !children.contains(name) && !also_allowed.contains(name) {
            problems.push(format!(
                "{map_file}:{number}: the module map names `{name}`, which is no file or folder there"
            ));
        }
    }
    problems
}

/// Each folder of both source trees, with the file that holds its map (`mod.rs`, or `lib.rs`
/// for a crate's root).
fn folders() -> Vec<(String, String)> {
    let mut folders = BTreeSet::new();
    for dir in SOURCE_DIRS {
        folders.insert(dir.to_string());
        for file in rs_files(dir) {
            let parent = Path::new(&file).parent().expect("a file in a folder");
            folders.insert(parent.to_string_lossy().to_string());
        }
    }
    folders
        .into_iter()
        .map(|folder| {
            let map = if SOURCE_DIRS.contains(&folder.as_str()) {
                "lib.rs"
            } else {
                "mod.rs"
            };
            let map_file = format!("{folder}/{map}");
            (folder, map_file)
        })
        .collect()
}

/// A folder's files (by module name) and subfolders, but not the file that holds the map.
fn children(folder: &str, map_file: &str) -> BTreeSet<String> {
    let mut children = BTreeSet::new();
    for entry in std::fs::read_dir(root().join(folder)).expect("a source folder") {
        let path = entry.expect("a directory entry").path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            children.insert(name);
        } else if let Some(module) = name.strip_suffix(".rs")
            && !map_file.ends_with(&format!("/{name}"))
        {
            children.insert(module.to_string());
        }
    }
    children
}

#[test]
fn every_folder_maps_each_of_its_files() {
    let mut problems = Vec::new();
    for (folder, map_file) in folders() {
        if !root().join(&map_file).exists() {
            problems.push(format!("{folder}: no {map_file} to hold its module map"));
            continue;
        }
        let docs = module_docs(&read(&map_file));
        let children = children(&folder, &map_file);
        problems.extend(check_map(
            &map_file,
            &docs,
            &children,
            &reexported(&map_file),
        ));
    }
    assert!(
        problems.is_empty(),
        "{} problems with the module maps:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The check fails on a planted error: a map with a line left out and a line for a file that
/// is not there, in a copy of a real map (the real file is not touched).
#[test]
fn a_map_missing_a_file_or_naming_a_stale_one_fails() {
    let map_file = "src/draw/mod.rs";
    let docs = module_docs(&read(map_file));
    let children = children("src/draw", map_file);
    let none = BTreeSet::new();
    assert_eq!(
        check_map(map_file, &docs, &children, &none),
        Vec::<String>::new()
    );

    let planted: Vec<(usize, String)> = docs
        .iter()
        .filter(|(_, line)| !line.starts_with("| `edges` |"))
        .cloned()
        .chain([(99, "| `gone_file` | a file deleted long ago |".to_string())])
        .collect();
    let problems = check_map(map_file, &planted, &children, &none);
    assert!(
        problems.iter().any(|p| p.contains("no line for `edges`")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains(":99:") && p.contains("`gone_file`")),
        "{problems:?}"
    );

    // A name said in passing in the prose is not a line of the map.
    let prose = vec![(1, "The fog drawn (see `edges` and `fade`).".to_string())];
    let problems = check_map(map_file, &prose, &children, &none);
    assert!(
        problems.iter().any(|p| p.contains("no line for `edges`")),
        "{problems:?}"
    );
}

/// A list item names its file as a table row does (`light/mod.rs` writes its map as a list).
#[test]
fn list_items_and_table_rows_both_name_files() {
    let docs = vec![
        (1, "| module | its job |".to_string()),
        (2, "|---|---|".to_string()),
        (3, "| [`overlay`] | a layer |".to_string()),
        (4, "| `smooth/` | the GPU fog |".to_string()),
        (5, String::new()),
        (6, "- `source.rs`: the component".to_string()),
        (7, String::new()),
        (8, "| feature | default |".to_string()),
        (9, "|---|---|".to_string()),
        (10, "| `render` | yes |".to_string()),
    ];
    let entries: Vec<String> = map_entries(&docs).into_iter().map(|(_, n)| n).collect();
    assert_eq!(entries, ["overlay", "smooth", "source"]);
}
