//! The crate's own sources and pages as text and syntax trees, for the tests that hold the docs
//! to the code (`docs_names.rs`, `module_maps.rs`, `architecture_claims.rs`).
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

/// The repository's root (this crate's manifest directory).
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The two source trees: the plugin's and the core's.
pub const SOURCE_DIRS: [&str; 2] = ["src", "crates/viewshed_core/src"];

/// A file's text, by its path relative to the root.
pub fn read(relative: &str) -> String {
    fs::read_to_string(root().join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// Every `.rs` file under `dir` (relative to the root), by its path relative to the root
/// (`src/fog/mod.rs`), sorted.
pub fn rs_files(dir: &str) -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                out.push(path);
            }
        }
    }
    let mut found = Vec::new();
    walk(&root().join(dir), &mut found);
    let mut files: Vec<String> = found
        .iter()
        .map(|path| {
            let relative = path.strip_prefix(root()).expect("under the root");
            relative.to_string_lossy().replace('\\', "/")
        })
        .collect();
    files.sort();
    files
}

/// Every `.rs` file of both source trees.
pub fn all_sources() -> Vec<String> {
    SOURCE_DIRS.iter().flat_map(|dir| rs_files(dir)).collect()
}

/// A source file's syntax tree.
pub fn parse(relative: &str) -> syn::File {
    syn::parse_file(&read(relative)).unwrap_or_else(|e| panic!("{relative} does not parse: {e}"))
}

/// Whether the attributes hold `#[cfg(test)]` (test-only code is not the crate's API).
pub fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr
                .parse_args::<syn::Meta>()
                .is_ok_and(|meta| meta.path().is_ident("test"))
    })
}

/// The inline code spans of one line of markdown: where each opens (its first backtick), where
/// it ends (after its last backtick) and its text, trimmed (` `` a ` b `` ` is one span; an
/// unclosed backtick opens none).
pub fn code_spans(line: &str) -> Vec<(usize, usize, String)> {
    let bytes = line.as_bytes();
    let mut spans = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'`' {
            at += 1;
            continue;
        }
        let ticks = bytes[at..].iter().take_while(|&&b| b == b'`').count();
        let fence = "`".repeat(ticks);
        let start = at + ticks;
        // The closing run of exactly as many backticks.
        let mut search = start;
        let mut close = None;
        while let Some(found) = line[search..].find(&fence) {
            let pos = search + found;
            let run = bytes[pos..].iter().take_while(|&&b| b == b'`').count();
            if run == ticks {
                close = Some(pos);
                break;
            }
            search = pos + run;
        }
        match close {
            Some(end) => {
                spans.push((at, end + ticks, line[start..end].trim().to_string()));
                at = end + ticks;
            }
            None => at = start,
        }
    }
    spans
}
