//! The layout rules of `src/` (ARCHITECTURE.md), read from the code's own imports: a file
//! imports only from its own domain, the domains of earlier steps of the frame and the shared
//! tools, and no files import each other in a ring.
//!
//! Every `crate::` and `super::` path outside comments is resolved to the file that defines
//! it (an item a `mod.rs` re-exports from one of its files resolves to that file).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::Path;

/// The rank of each top-level module in the order of the frame: a file may import from files
/// of its own rank or lower. Shared tools first, the wiring last.
const RANKS: &[(&str, u32)] = &[
    ("support", 0),
    ("schedule", 0),
    ("layers", 1),
    ("worlds", 2),
    ("placement", 3),
    ("opacity", 4),
    ("viewshed", 5),
    ("light", 6),
    ("sightings", 7),
    ("fog", 8),
    ("ghosts", 9),
    ("draw", 10),
    ("editors", 11),
    ("replicon", 11),
    ("plugin", 12),
];

/// Every `.rs` file under `dir`, by its path relative to `src/`.
fn sources(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
    for entry in fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            sources(&path, &format!("{prefix}{name}/"), out);
        } else if name.ends_with(".rs") {
            let text = fs::read_to_string(&path).expect("a source file");
            out.insert(format!("{prefix}{name}"), without_comments(&text));
        }
    }
}

fn without_comments(text: &str) -> String {
    text.lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module path of a file: `fog/mod.rs` and `fog.rs` are `fog`.
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if parts
        .last()
        .is_some_and(|last| last == "mod" || last == "lib")
    {
        parts.pop();
    }
    parts
}

/// The file that defines the longest prefix of `path`.
fn file_of(files: &BTreeMap<String, String>, path: &[String]) -> Option<String> {
    (1..=path.len()).rev().find_map(|n| {
        let joined = path[..n].join("/");
        [format!("{joined}.rs"), format!("{joined}/mod.rs")]
            .into_iter()
            .find(|candidate| files.contains_key(candidate))
    })
}

/// Identifiers in `text` from byte `at` on, as `a::b::{C, d::E}` is read: the path segments.
fn path_after(text: &str, at: usize) -> (Vec<String>, Vec<String>) {
    let rest = &text[at..];
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(rest.len());
    let mut segments: Vec<String> = rest[..end]
        .split("::")
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    let mut names = Vec::new();
    if rest[end..].starts_with('{') {
        let close = rest[end..].find('}').map_or(rest.len(), |i| end + i);
        names = rest[end + 1..close]
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
    } else if let Some(last) = segments.pop() {
        names.push(last);
    }
    (segments, names)
}

/// Which file each item a `mod.rs` re-exports (`pub use file::Item`) comes from.
fn re_exports(files: &BTreeMap<String, String>) -> HashMap<(Vec<String>, String), String> {
    let mut found = HashMap::new();
    for (file, text) in files.iter().filter(|(f, _)| f.ends_with("mod.rs")) {
        let module = module_of(file);
        for (at, _) in text.match_indices("pub use ") {
            let (path, names) = path_after(text, at + "pub use ".len());
            let mut full = module.clone();
            full.extend(path);
            if let Some(source) = file_of(files, &full) {
                for name in names {
                    found.insert((module.clone(), name), source.clone());
                }
            }
        }
    }
    found
}

/// Each file and the files it imports.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let mut files = BTreeMap::new();
    sources(
        &Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
            .join("src"),
        "",
        &mut files,
    );
    let re_exported = re_exports(&files);
    let mut graph = BTreeMap::new();
    for (file, text) in &files {
        let module = module_of(file);
        let mut deps = BTreeSet::new();
        for (root, base) in [
            ("crate::", Vec::new()),
            ("super::", module[..module.len().saturating_sub(1)].to_vec()),
        ] {
            for (at, _) in text.match_indices(root) {
                let preceded = text[..at].chars().last();
                if preceded.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                let (path, names) = path_after(text, at + root.len());
                let mut full = base.clone();
                full.extend(path);
                for name in names {
                    let target = re_exported
                        .get(&(full.clone(), name.clone()))
                        .cloned()
                        .or_else(|| {
                            let mut named = full.clone();
                            named.push(name);
                            file_of(&files, &named)
                        });
                    if let Some(target) = target.filter(|t| t != file && t != "lib.rs") {
                        deps.insert(target);
                    }
                }
            }
        }
        graph.insert(file.clone(), deps);
    }
    graph
}

fn rank(file: &str) -> u32 {
    let top = module_of(file).first().cloned().unwrap_or_default();
    RANKS
        .iter()
        .find(|(name, _)| *name == top)
        .map_or(u32::MAX, |&(_, rank)| rank)
}

#[test]
fn every_file_of_src_has_a_rank() {
    let graph = imports();
    let unranked: Vec<&String> = graph
        .keys()
        .filter(|file| *file != "lib.rs" && rank(file) == u32::MAX)
        .collect();
    assert!(
        unranked.is_empty(),
        "give these a rank in RANKS: {unranked:?}"
    );
    assert!(graph.len() > 40, "src/ was read: {} files", graph.len());
}

#[test]
fn no_file_imports_from_a_later_step() {
    let mut uphill = Vec::new();
    for (file, deps) in imports() {
        for dep in deps {
            if rank(&dep) > rank(&file) {
                uphill.push(format!("{file} -> {dep}"));
            }
        }
    }
    assert!(uphill.is_empty(), "imports from a later step: {uphill:#?}");
}

#[test]
fn no_files_import_each_other_in_a_ring() {
    let graph = imports();
    // Depth-first search for a back edge, with the path that closes the ring.
    fn visit<'a>(
        file: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        state: &mut HashMap<&'a str, bool>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        match state.get(file) {
            Some(true) => {
                let start = path.iter().position(|f| *f == file).unwrap_or(0);
                return Some(path[start..].iter().map(|f| f.to_string()).collect());
            }
            Some(false) => return None,
            None => {}
        }
        state.insert(file, true);
        path.push(file);
        for dep in graph.get(file).into_iter().flatten() {
            if let Some(ring) = visit(dep, graph, state, path) {
                return Some(ring);
            }
        }
        path.pop();
        state.insert(file, false);
        None
    }
    let mut state = HashMap::new();
    for file in graph.keys() {
        if let Some(ring) = visit(file, &graph, &mut state, &mut Vec::new()) {
            panic!("files that import each other: {ring:?}");
        }
    }
}
