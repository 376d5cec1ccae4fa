//! ARCHITECTURE.md's countable statements, held to the code:
//!
//! - **`unsafe`**: the files it says hold `unsafe` code are exactly the files that do (blocks,
//!   `unsafe fn`s, impls and traits, in `src/` and the core), and where it gives a count next to
//!   a file ("its one `unsafe`", "2 `unsafe` blocks", "1 `unsafe fn`"), the count is right;
//! - **the writers of each message**: for every `Message` type of the crate, the functions
//!   that take a `MessageWriter` of it (directly, in a `SystemParam` of the crate, or in a
//!   `SystemState`), observers told apart by their `On` parameter. In the frame table, each
//!   step that runs a writer names the message in its `writes` column, and each step that names
//!   a message there runs a writer of it; a sentence that says a message is "written by one
//!   system" (or two...) has the count right;
//! - **the core's files**: every file and folder of `crates/viewshed_core/src` is named (the
//!   crate root, `lib.rs`, is the crate itself; a folder's files are in its own module map,
//!   which `tests/module_maps.rs` checks);
//! - and, since the page is a map: every `.rs` path it names exists, and every folder of
//!   `src/` is in its tree.

mod common_source;

use std::collections::{BTreeMap, BTreeSet};

use common_source::{all_sources, code_spans, is_cfg_test, parse, read, root, rs_files};
use syn::visit::Visit;

// ---------------------------------------------------------------------------------------------
// What the code has.

/// How much `unsafe` one file holds.
#[derive(Default, Clone, Copy, Debug, PartialEq)]
struct Unsafety {
    blocks: usize,
    fns: usize,
    impls: usize,
    traits: usize,
}

impl Unsafety {
    fn total(&self) -> usize {
        self.blocks + self.fns + self.impls + self.traits
    }

    fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (count, what) in [
            (self.blocks, "`unsafe` block"),
            (self.fns, "`unsafe fn`"),
            (self.impls, "`unsafe impl`"),
            (self.traits, "`unsafe trait`"),
        ] {
            if count > 0 {
                let plural = if count > 1 && what.ends_with("block") {
                    "s"
                } else {
                    ""
                };
                parts.push(format!("{count} {what}{plural}"));
            }
        }
        parts.join(", ")
    }
}

impl<'ast> Visit<'ast> for Unsafety {
    fn visit_expr_unsafe(&mut self, block: &'ast syn::ExprUnsafe) {
        self.blocks += 1;
        syn::visit::visit_expr_unsafe(self, block);
    }
    fn visit_signature(&mut self, signature: &'ast syn::Signature) {
        self.fns += usize::from(signature.unsafety.is_some());
        syn::visit::visit_signature(self, signature);
    }
    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        self.impls += usize::from(item.unsafety.is_some());
        syn::visit::visit_item_impl(self, item);
    }
    fn visit_item_trait(&mut self, item: &'ast syn::ItemTrait) {
        self.traits += usize::from(item.unsafety.is_some());
        syn::visit::visit_item_trait(self, item);
    }
}

/// A function that writes a message.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Writer {
    function: String,
    file: String,
    observer: bool,
}

/// What the code has, for the checks.
struct Facts {
    /// Every source file of both crates, by its path from the root.
    sources: Vec<String>,
    /// Every file of the repository the page may name (sources, tests, benches, examples).
    files: Vec<String>,
    /// The files holding `unsafe` code.
    unsafety: BTreeMap<String, Unsafety>,
    /// Each `Message` type and the functions writing it.
    writers: BTreeMap<String, Vec<Writer>>,
}

impl Facts {
    fn read() -> Facts {
        let sources = all_sources();
        let mut unsafety = BTreeMap::new();
        let trees: Vec<(String, syn::File)> = sources
            .iter()
            .map(|file| (file.clone(), parse(file)))
            .collect();
        for (file, tree) in &trees {
            let mut count = Unsafety::default();
            count.visit_file(tree);
            if count.total() > 0 {
                unsafety.insert(file.clone(), count);
            }
        }
        let mut files = sources.clone();
        for dir in [
            "tests",
            "benches",
            "examples",
            "crates/viewshed_core/tests",
            "crates/viewshed_core/benches",
            "crates/viewshed_core/examples",
        ] {
            if root().join(dir).exists() {
                files.extend(rs_files(dir));
            }
        }
        Facts {
            sources,
            files,
            unsafety,
            writers: message_writers(&trees),
        }
    }
}

/// The last segment of a type's path, and its generic type arguments.
fn path_parts(ty: &syn::Type) -> Option<(String, Vec<&syn::Type>)> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    let args = match &last.arguments {
        syn::PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|arg| match arg {
                syn::GenericArgument::Type(ty) => Some(ty),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Some((last.ident.to_string(), args))
}

/// The messages a type writes: `MessageWriter<M>`, a `SystemParam` of the crate holding
/// writers, and both inside tuples, generics (`SystemState<(.., MessageWriter<M>)>`) and
/// references.
fn written_by_type(
    ty: &syn::Type,
    params: &BTreeMap<String, BTreeSet<String>>,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    match ty {
        syn::Type::Reference(reference) => out.extend(written_by_type(&reference.elem, params)),
        syn::Type::Tuple(tuple) => {
            for elem in &tuple.elems {
                out.extend(written_by_type(elem, params));
            }
        }
        syn::Type::Paren(paren) => out.extend(written_by_type(&paren.elem, params)),
        syn::Type::Path(_) => {
            let (name, args) = path_parts(ty).expect("a path type");
            if name == "MessageWriter" {
                out.extend(args.first().and_then(|m| path_parts(m)).map(|(m, _)| m));
            } else if let Some(messages) = params.get(&name) {
                out.extend(messages.iter().cloned());
            }
            for arg in args {
                out.extend(written_by_type(arg, params));
            }
        }
        _ => {}
    }
    out
}

/// Whether a parameter is a writer handed down by reference (`&mut MessageWriter<M>`, `&mut
/// Announce`): the function is a helper of the system that owns the writer, not a writer of
/// its own.
fn is_borrowed_writer(ty: &syn::Type, params: &BTreeMap<String, BTreeSet<String>>) -> bool {
    let syn::Type::Reference(reference) = ty else {
        return false;
    };
    path_parts(&reference.elem)
        .is_some_and(|(name, _)| name == "MessageWriter" || params.contains_key(&name))
}

/// Each `Message` type of the crate and the functions that take a writer of it.
fn message_writers(trees: &[(String, syn::File)]) -> BTreeMap<String, Vec<Writer>> {
    /// Every item of a file, with the functions' and structs' syntax, test code left out.
    #[derive(Default)]
    struct Items<'ast> {
        messages: BTreeSet<String>,
        params: Vec<&'ast syn::ItemStruct>,
        functions: Vec<&'ast syn::Signature>,
    }
    impl<'ast> Visit<'ast> for Items<'ast> {
        fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
            if !is_cfg_test(&item.attrs) {
                syn::visit::visit_item_mod(self, item);
            }
        }
        fn visit_item_struct(&mut self, item: &'ast syn::ItemStruct) {
            let derives = derives(&item.attrs);
            if derives.contains("Message") {
                self.messages.insert(item.ident.to_string());
            }
            if derives.contains("SystemParam") {
                self.params.push(item);
            }
        }
        fn visit_item_enum(&mut self, item: &'ast syn::ItemEnum) {
            if derives(&item.attrs).contains("Message") {
                self.messages.insert(item.ident.to_string());
            }
        }
        fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
            let is_message = item
                .trait_
                .as_ref()
                .and_then(|(_, path, _)| path.segments.last())
                .is_some_and(|segment| segment.ident == "Message");
            if is_message && let Some((name, _)) = path_parts(&item.self_ty) {
                self.messages.insert(name);
            }
            syn::visit::visit_item_impl(self, item);
        }
        fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
            if !is_cfg_test(&item.attrs) {
                self.functions.push(&item.sig);
            }
        }
        fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
            if !is_cfg_test(&item.attrs) {
                self.functions.push(&item.sig);
            }
        }
    }

    let mut items: Vec<(&String, Items)> = Vec::new();
    for (file, tree) in trees {
        let mut found = Items::default();
        found.visit_file(tree);
        items.push((file, found));
    }
    let messages: BTreeSet<String> = items
        .iter()
        .flat_map(|(_, found)| found.messages.iter().cloned())
        .collect();
    // The crate's `SystemParam`s that hold writers, to a fixed point (one may hold another).
    let mut params: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    loop {
        let before = params.clone();
        for (_, found) in &items {
            for param in &found.params {
                let written: BTreeSet<String> = param
                    .fields
                    .iter()
                    .flat_map(|field| written_by_type(&field.ty, &before))
                    .collect();
                if !written.is_empty() {
                    params.insert(param.ident.to_string(), written);
                }
            }
        }
        if params == before {
            break;
        }
    }
    let mut writers: BTreeMap<String, Vec<Writer>> =
        messages.iter().map(|m| (m.clone(), Vec::new())).collect();
    for (file, found) in &items {
        for signature in &found.functions {
            let typed: Vec<&syn::Type> = signature
                .inputs
                .iter()
                .filter_map(|input| match input {
                    syn::FnArg::Typed(typed) => Some(&*typed.ty),
                    syn::FnArg::Receiver(_) => None,
                })
                .collect();
            let observer = typed
                .iter()
                .any(|ty| path_parts(ty).is_some_and(|(name, _)| name == "On"));
            let written: BTreeSet<String> = typed
                .iter()
                .filter(|ty| !is_borrowed_writer(ty, &params))
                .flat_map(|ty| written_by_type(ty, &params))
                .collect();
            for message in written.intersection(&messages) {
                writers.get_mut(message).expect("a message").push(Writer {
                    function: signature.ident.to_string(),
                    file: (*file).clone(),
                    observer,
                });
            }
        }
    }
    writers
}

/// The traits named in a `#[derive(..)]`.
fn derives(attrs: &[syn::Attribute]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("derive")) {
        let _ = attr.parse_nested_meta(|meta| {
            if let Some(last) = meta.path.segments.last() {
                names.insert(last.ident.to_string());
            }
            Ok(())
        });
    }
    names
}

// ---------------------------------------------------------------------------------------------
// What the page says.

/// A statement of the page: a paragraph, a list item or a table row of its prose (lines
/// joined), or one line of a code block, with the line it starts on and, inside a code block's
/// tree, the folder its line is under (`src/draw/` for the `draw/` entry's lines).
struct Statement {
    line: usize,
    text: String,
    folder: Option<String>,
}

/// The page cut into statements.
fn statements(page: &str) -> Vec<Statement> {
    let mut out: Vec<Statement> = Vec::new();
    let mut in_code = false;
    let mut tree_root: Option<String> = None;
    let mut folder: Option<String> = None;
    let mut open = false;
    for (index, line) in page.lines().enumerate() {
        let number = index + 1;
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_code = !in_code;
            (tree_root, folder, open) = (None, None, false);
            continue;
        }
        if in_code {
            // A tree: a root line (`src/`), then entries (`  draw/  ...`) and their
            // continuation lines, indented deeper.
            let first = trimmed.split_whitespace().next().unwrap_or("");
            if !line.starts_with(' ') && first.ends_with('/') {
                tree_root = Some(first.to_string());
                folder = Some(first.to_string());
            } else if line.starts_with("  ")
                && !line.starts_with("   ")
                && first.ends_with('/')
                && let Some(root) = &tree_root
            {
                folder = Some(format!("{root}{first}"));
            } else if line.starts_with("  ") && !line.starts_with("   ") {
                folder = tree_root.clone();
            }
            out.push(Statement {
                line: number,
                text: line.to_string(),
                folder: folder.clone(),
            });
            continue;
        }
        let starts_new = trimmed.is_empty()
            || trimmed.starts_with('|')
            || trimmed.starts_with("- ")
            || trimmed.starts_with('#')
            || trimmed.chars().next().is_some_and(|c| c.is_ascii_digit()) && trimmed.contains(". ");
        if trimmed.is_empty() {
            open = false;
            continue;
        }
        if starts_new || !open {
            out.push(Statement {
                line: number,
                text: trimmed.to_string(),
                folder: None,
            });
            open = !trimmed.starts_with('|') && !trimmed.starts_with('#');
        } else if let Some(last) = out.last_mut() {
            last.text.push(' ');
            last.text.push_str(trimmed);
        }
    }
    out
}

/// The `.rs` paths (and folders with a `/`) a text names, with where each starts.
fn rs_mentions(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let is_path_char = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'/' || b == b'.';
    let mut at = 0;
    while let Some(found) = text[at..].find(".rs") {
        let end = at + found + 3;
        let after_ok = bytes
            .get(end)
            .is_none_or(|&b| !(b.is_ascii_alphanumeric() || b == b'_'));
        let mut start = at + found;
        while start > 0 && is_path_char(bytes[start - 1]) {
            start -= 1;
        }
        let path = text[start..end].trim_start_matches(['.', '/']);
        let pattern = start > 0 && bytes[start - 1] == b'*';
        if after_ok && !pattern && path.len() > 3 {
            out.push((start, path.to_string()));
        }
        at = end;
    }
    out
}

/// The files a mention can mean: under the statement's folder first, else any file whose
/// path ends with it.
fn resolve<'f>(mention: &str, folder: Option<&str>, files: &'f [String]) -> Vec<&'f String> {
    if let Some(folder) = folder {
        let under = format!("{folder}{mention}");
        let found: Vec<&String> = files
            .iter()
            .filter(|file| file.as_str() == under || file.ends_with(&format!("/{under}")))
            .collect();
        if !found.is_empty() {
            return found;
        }
    }
    files
        .iter()
        .filter(|file| file.as_str() == mention || file.ends_with(&format!("/{mention}")))
        .collect()
}

/// A number said in words or digits.
fn number(word: &str) -> Option<usize> {
    let words = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    let word = word
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    words
        .iter()
        .position(|w| *w == word)
        .or_else(|| word.parse().ok())
}

/// The counts a text gives ("its one `unsafe`", "2 `unsafe` blocks, 1 `unsafe fn`"): by kind
/// (`block`, `fn`, `impl`, `trait`), or `total` when it says only "`unsafe`".
fn unsafe_counts(text: &str) -> Vec<(String, usize)> {
    let words: Vec<String> = text
        .replace('`', " ")
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    let mut out = Vec::new();
    for (i, pair) in words.windows(2).enumerate() {
        let Some(count) = number(&pair[0]) else {
            continue;
        };
        if pair[1] != "unsafe" {
            continue;
        }
        let kind = match words.get(i + 2).map(String::as_str) {
            Some("block" | "blocks") => "block",
            Some("fn" | "fns" | "function" | "functions") => "fn",
            Some("impl" | "impls") => "impl",
            Some("trait" | "traits") => "trait",
            _ => "total",
        };
        out.push((kind.to_string(), count));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The checks, each over the page's text (so that the tests below can plant errors in a copy).

/// The files the page says hold `unsafe` code are exactly those that do, with the counts it
/// gives.
fn check_unsafe(page: &str, facts: &Facts) -> Vec<String> {
    let mut problems = Vec::new();
    let mut claimed: BTreeMap<String, usize> = BTreeMap::new();
    for statement in statements(page) {
        let text = &statement.text;
        let mentions = rs_mentions(text);
        let mut at = 0;
        while let Some(found) = text[at..].find("unsafe") {
            let position = at + found;
            at = position + "unsafe".len();
            // `undocumented_unsafe_blocks` and the like are lints, not code.
            let word_before = text[..position].ends_with(|c: char| c.is_alphanumeric() || c == '_');
            if word_before {
                continue;
            }
            // The file it is said of: the nearest named before it, else the next one.
            let index = mentions
                .iter()
                .rposition(|(start, _)| *start < position)
                .or_else(|| (!mentions.is_empty()).then_some(0));
            let Some(index) = index else {
                problems.push(format!(
                    "ARCHITECTURE.md:{}: says `unsafe` without naming a file: {text:?}",
                    statement.line
                ));
                continue;
            };
            let (start, mention) = &mentions[index];
            let files = resolve(mention, statement.folder.as_deref(), &facts.sources);
            let [file] = files.as_slice() else {
                problems.push(format!(
                    "ARCHITECTURE.md:{}: `{mention}` (said to hold `unsafe`) is {} source files",
                    statement.line,
                    files.len()
                ));
                continue;
            };
            claimed.entry((*file).clone()).or_insert(statement.line);
            // The counts said of this file: in its text up to the next file named.
            let end = mentions
                .get(index + 1)
                .map_or(text.len(), |(next, _)| *next);
            let actual = facts.unsafety.get(*file).copied().unwrap_or_default();
            for (kind, count) in unsafe_counts(&text[*start..end.max(position)]) {
                let real = match kind.as_str() {
                    "block" => actual.blocks,
                    "fn" => actual.fns,
                    "impl" => actual.impls,
                    "trait" => actual.traits,
                    _ => actual.total(),
                };
                if real != count {
                    let said = if kind == "total" {
                        String::new()
                    } else {
                        format!(" {kind}")
                    };
                    problems.push(format!(
                        "ARCHITECTURE.md:{}: says {file} has {count} `unsafe`{said}; it has {}",
                        statement.line,
                        actual.describe()
                    ));
                }
            }
        }
    }
    for (file, count) in &facts.unsafety {
        if !claimed.contains_key(file) {
            problems.push(format!(
                "ARCHITECTURE.md does not say that {file} holds `unsafe` code ({})",
                count.describe()
            ));
        }
    }
    for (file, line) in &claimed {
        if !facts.unsafety.contains_key(file) {
            problems.push(format!(
                "ARCHITECTURE.md:{line}: says {file} holds `unsafe`; it has none"
            ));
        }
    }
    problems.sort();
    problems.dedup();
    problems
}

/// A row of the frame table: its step, its systems (generics dropped) and what it writes.
struct Row {
    line: usize,
    step: String,
    systems: BTreeSet<String>,
    writes: BTreeSet<String>,
}

/// The frame table: the table whose header has `systems` and `writes` columns.
fn frame_table(page: &str) -> Vec<Row> {
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect()
    };
    let mut rows = Vec::new();
    let mut columns: Option<(usize, usize)> = None;
    for (index, line) in page.lines().enumerate() {
        if !line.trim_start().starts_with('|') {
            columns = None;
            continue;
        }
        let row = cells(line);
        let Some((systems, writes)) = columns else {
            let systems = row.iter().position(|c| c == "systems");
            let writes = row.iter().position(|c| c == "writes");
            if let (Some(systems), Some(writes)) = (systems, writes) {
                columns = Some((systems, writes));
            }
            continue;
        };
        if row[0].starts_with("---") {
            continue;
        }
        let spans = |cell: Option<&String>| -> BTreeSet<String> {
            cell.map(|cell| {
                code_spans(cell)
                    .into_iter()
                    .map(|(_, _, span)| span.split('<').next().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default()
        };
        let step = code_spans(&row[0])
            .into_iter()
            .next()
            .map_or(row[0].clone(), |(_, _, s)| s);
        rows.push(Row {
            line: index + 1,
            step,
            systems: spans(row.get(systems)),
            writes: spans(row.get(writes)),
        });
    }
    rows
}

/// The frame table and the page's counts of writers agree with the functions that write
/// each message.
fn check_writers(page: &str, facts: &Facts) -> Vec<String> {
    let mut problems = Vec::new();
    let rows = frame_table(page);
    if rows.is_empty() {
        problems.push("ARCHITECTURE.md has no frame table (columns `systems` and `writes`)".into());
    }
    for (message, writers) in &facts.writers {
        let systems: Vec<&Writer> = writers.iter().filter(|w| !w.observer).collect();
        for writer in &systems {
            let in_rows: Vec<&Row> = rows
                .iter()
                .filter(|row| row.systems.contains(&writer.function))
                .collect();
            if in_rows.is_empty() {
                problems.push(format!(
                    "`{}` ({}) writes `{message}`, but the frame table runs it in no step",
                    writer.function, writer.file
                ));
            }
            for row in in_rows {
                if !row.writes.contains(message) {
                    problems.push(format!(
                        "ARCHITECTURE.md:{}: the `{}` row runs `{}`, which writes `{message}` ({}), \
                         but its writes column does not name `{message}`",
                        row.line, row.step, writer.function, writer.file
                    ));
                }
            }
        }
        for row in rows.iter().filter(|row| row.writes.contains(message)) {
            if !systems.iter().any(|w| row.systems.contains(&w.function)) {
                problems.push(format!(
                    "ARCHITECTURE.md:{}: the `{}` row says it writes `{message}`, but none of its \
                     systems does (its writers: {})",
                    row.line,
                    row.step,
                    names(&systems)
                ));
            }
        }
    }
    // "written by one system", "written by two systems".
    for statement in statements(page) {
        let text = &statement.text;
        let Some(at) = text.find("written by ") else {
            continue;
        };
        let rest: Vec<&str> = text[at + "written by ".len()..]
            .split_whitespace()
            .collect();
        let (Some(count), Some(noun)) = (rest.first().and_then(|w| number(w)), rest.get(1)) else {
            continue;
        };
        if !noun.starts_with("system") {
            continue;
        }
        for (_, _, span) in code_spans(text) {
            let Some(writers) = facts.writers.get(&span) else {
                continue;
            };
            let systems: Vec<&Writer> = writers.iter().filter(|w| !w.observer).collect();
            if systems.len() != count {
                problems.push(format!(
                    "ARCHITECTURE.md:{}: says `{span}` is written by {count} system(s); {} write it: {}",
                    statement.line,
                    systems.len(),
                    names(&systems)
                ));
            }
        }
    }
    problems
}

fn names(writers: &[&Writer]) -> String {
    let names: Vec<String> = writers
        .iter()
        .map(|w| format!("`{}` ({})", w.function, w.file))
        .collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// Every file and folder of the core's `src/` (but `lib.rs`) is named on the page, as the
/// core's: in the tree of `crates/viewshed_core/src/`, by its full path, or as a module
/// (`viewshed_core::shadowcast`). The plugin's `opacity/elevation.rs` does not name the core's
/// `elevation.rs`.
fn check_core_files(page: &str) -> Vec<String> {
    let core = "crates/viewshed_core/src";
    let tree: Vec<String> = statements(page)
        .into_iter()
        .filter(|s| s.folder.as_deref().is_some_and(|f| f.starts_with(core)))
        .map(|s| s.text)
        .collect();
    let names_in = |text: &str, said: &str| {
        text.match_indices(said).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + said.len()..].chars().next();
            before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '/'))
                && after.is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
        })
    };
    let mut problems = Vec::new();
    let mut entries: Vec<(String, bool)> = std::fs::read_dir(root().join(core))
        .expect("the core's src/")
        .map(|entry| {
            let path = entry.expect("an entry").path();
            (
                path.file_name().unwrap().to_string_lossy().to_string(),
                path.is_dir(),
            )
        })
        .filter(|(name, _)| name != "lib.rs")
        .collect();
    entries.sort();
    for (name, is_dir) in entries {
        let said = if is_dir {
            format!("{name}/")
        } else {
            name.clone()
        };
        let module = format!("viewshed_core::{}", name.trim_end_matches(".rs"));
        let named = tree.iter().any(|line| names_in(line, &said))
            || page.contains(&format!("{core}/{said}"))
            || names_in(page, &module);
        if !named {
            problems.push(format!(
                "ARCHITECTURE.md does not name the core's {core}/{name}"
            ));
        }
    }
    problems
}

/// Every `.rs` path the page names exists, and every folder of `src/` is in its tree.
fn check_map(page: &str, facts: &Facts) -> Vec<String> {
    let mut problems = Vec::new();
    for statement in statements(page) {
        for (_, mention) in rs_mentions(&statement.text) {
            if resolve(&mention, statement.folder.as_deref(), &facts.files).is_empty() {
                problems.push(format!(
                    "ARCHITECTURE.md:{}: names `{mention}`, which is no file of the repository",
                    statement.line
                ));
            }
        }
    }
    let tree: Vec<String> = statements(page)
        .into_iter()
        .filter(|s| s.folder.as_deref().is_some_and(|f| f.starts_with("src/")))
        .map(|s| s.text)
        .collect();
    let folders: BTreeSet<String> = facts
        .sources
        .iter()
        .filter_map(|file| file.strip_prefix("src/"))
        .filter_map(|file| file.split_once('/').map(|(folder, _)| folder.to_string()))
        .collect();
    for folder in folders {
        let entry = format!("{folder}/");
        if !tree
            .iter()
            .any(|line| line.split_whitespace().next() == Some(entry.as_str()))
        {
            problems.push(format!(
                "ARCHITECTURE.md's tree of src/ has no entry for `{entry}`"
            ));
        }
    }
    problems
}

fn architecture() -> String {
    read("ARCHITECTURE.md")
}

fn report(problems: Vec<String>, what: &str) {
    assert!(
        problems.is_empty(),
        "{} problems with {what}:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn architecture_names_exactly_the_files_with_unsafe_code() {
    report(
        check_unsafe(&architecture(), &Facts::read()),
        "what ARCHITECTURE.md says of `unsafe`",
    );
}

#[test]
fn architecture_names_the_writers_of_each_message() {
    report(
        check_writers(&architecture(), &Facts::read()),
        "the writers of the messages",
    );
}

#[test]
fn architecture_names_every_file_of_the_core() {
    report(check_core_files(&architecture()), "the core's files");
}

#[test]
fn architecture_names_only_files_that_exist_and_every_folder() {
    report(
        check_map(&architecture(), &Facts::read()),
        "the files ARCHITECTURE.md names",
    );
}

/// The reading of the code is not blind: every message of the crate has a writer it finds
/// (`ViewshedUpdated` from a `SystemState`, `Spotted` through a `SystemParam`), and some file
/// has `unsafe` code.
#[test]
fn the_code_is_read_right() {
    let facts = Facts::read();
    for message in ["ViewshedUpdated", "Spotted", "LostSight"] {
        assert!(
            facts.writers.contains_key(message),
            "no message `{message}` found"
        );
    }
    for (message, writers) in &facts.writers {
        assert!(
            writers.iter().any(|w| !w.observer),
            "no system found writing `{message}` (writers: {writers:?})"
        );
    }
    assert!(
        facts.unsafety.contains_key("src/draw/tile_writer.rs"),
        "{:?}",
        facts.unsafety
    );
}

// ---------------------------------------------------------------------------------------------
// The checks fail on planted errors (in copies of the page, as strings), and pass the
// statements written the way they can be checked.

/// The facts of a small made-up crate.
fn planted_facts() -> Facts {
    let sources: Vec<String> = [
        "src/draw/tile_writer.rs",
        "src/support/change_ticks.rs",
        "src/fog/maps.rs",
        "src/opacity/maps.rs",
    ]
    .map(String::from)
    .to_vec();
    let mut unsafety = BTreeMap::new();
    unsafety.insert(
        "src/draw/tile_writer.rs".to_string(),
        Unsafety {
            blocks: 2,
            fns: 1,
            ..Default::default()
        },
    );
    unsafety.insert(
        "src/support/change_ticks.rs".to_string(),
        Unsafety {
            blocks: 1,
            ..Default::default()
        },
    );
    let writer = |function: &str, file: &str, observer| Writer {
        function: function.into(),
        file: file.into(),
        observer,
    };
    let mut writers = BTreeMap::new();
    writers.insert(
        "ViewshedUpdated".to_string(),
        vec![
            writer("recompute_viewsheds", "src/viewshed/recompute.rs", false),
            writer("filter_by_light", "src/light/filter.rs", false),
        ],
    );
    writers.insert(
        "Spotted".to_string(),
        vec![
            writer("notify_sightings", "src/sightings/judge.rs", false),
            writer("on_target_gone", "src/sightings/mod.rs", true),
        ],
    );
    Facts {
        files: sources.clone(),
        sources,
        unsafety,
        writers,
    }
}

#[test]
fn unsafe_claims_fail_when_wrong_and_pass_when_right() {
    let facts = planted_facts();
    // Today's phrasing: one file named, with a count that is not its count.
    let wrong = "```\nsrc/\n  draw/              style.rs, tile_writer.rs (its one `unsafe`),\n                     overlay.rs\n```\n";
    let problems = check_unsafe(wrong, &facts);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("src/support/change_ticks.rs holds `unsafe`")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains(":3: says src/draw/tile_writer.rs has 1 `unsafe`")),
        "{problems:?}"
    );
    // A file that has none, and an ambiguous name.
    let wrong =
        "- `unsafe` code: `fog/maps.rs` (1 `unsafe` block).\n\n- `maps.rs` has 1 `unsafe` block.\n";
    let problems = check_unsafe(wrong, &facts);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("says src/fog/maps.rs holds `unsafe`; it has none")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("`maps.rs` (said to hold `unsafe`) is 2 source files")),
        "{problems:?}"
    );
    // The checkable phrasing passes.
    let right = "- The `unsafe` code: `src/draw/tile_writer.rs` (2 `unsafe` blocks, 1 `unsafe fn`),\n  `src/support/change_ticks.rs` (1 `unsafe` block); each block says why it is sound.\n";
    assert_eq!(check_unsafe(right, &facts), Vec::<String>::new());
}

#[test]
fn writer_claims_fail_when_wrong_and_pass_when_right() {
    let facts = planted_facts();
    let table = |light_writes: &str| {
        format!(
            "| step (plugin) | systems | reads | writes |\n|---|---|---|---|\n\
             | `Views` (`ViewsPlugin`) | `recompute_viewsheds` | `Viewshed` | views, `ViewshedUpdated` |\n\
             | `Light` (`LightPlugin`) | `recompute_lights`, `filter_by_light` | `LightSource` | {light_writes} |\n\
             | `Sightings` (`SightingsPlugin`) | `notify_sightings` | `ViewshedUpdated` | `Spotted` |\n\
             | `Fog` (`FogPlugin`) | `update_fog` | `ViewshedUpdated` | `FogOfWar`, `Spotted` |\n\n"
        )
    };
    let page = format!(
        "{}A later step reads `ViewshedUpdated` and `FogChanges` (each written by one system).\n",
        table("`Lighting`, filtered views")
    );
    let problems = check_writers(&page, &facts);
    assert!(
        problems.iter().any(|p| p
            .contains("the `Light` row runs `filter_by_light`, which writes `ViewshedUpdated`")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p
                .contains("the `Fog` row says it writes `Spotted`, but none of its systems does")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("says `ViewshedUpdated` is written by 1 system(s); 2 write it")),
        "{problems:?}"
    );
    // Right: the Light row names it, the Fog row does not, the count is two; the observer
    // that writes `Spotted` is no system of the table.
    let page = format!(
        "{}`ViewshedUpdated` is written by two systems (`recompute_viewsheds`, `filter_by_light`).\n",
        table("`Lighting`, filtered views, `ViewshedUpdated`")
            .replace("`FogOfWar`, `Spotted`", "`FogOfWar`")
    );
    assert_eq!(check_writers(&page, &facts), Vec::<String>::new());
}

#[test]
fn a_core_file_left_out_fails() {
    // A tree of the core that names every file and folder, then one without `elevation.rs`
    // (which the plugin's `opacity/elevation.rs` does not stand in for).
    let mut entries: Vec<String> = std::fs::read_dir(root().join("crates/viewshed_core/src"))
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if path.is_dir() {
                format!("{name}/")
            } else {
                name
            }
        })
        .collect();
    entries.sort();
    let page = |entries: &[String]| {
        format!(
            "```\ncrates/viewshed_core/src/\n  {}\n\nsrc/\n  opacity/   opaque.rs, elevation.rs\n```\n",
            entries.join(", ")
        )
    };
    assert_eq!(check_core_files(&page(&entries)), Vec::<String>::new());
    entries.retain(|entry| entry != "elevation.rs");
    assert_eq!(
        check_core_files(&page(&entries)),
        vec!["ARCHITECTURE.md does not name the core's crates/viewshed_core/src/elevation.rs"]
    );
}

#[test]
fn a_stale_path_or_a_missing_folder_fails() {
    let facts = planted_facts();
    let page = "```\nsrc/\n  draw/              tile_writer.rs\n  support/           change_ticks.rs\n  fog/               maps.rs\n  opacity/           maps.rs\n```\n\nSee `src/change_ticks.rs`.\n";
    assert_eq!(
        check_map(page, &facts),
        vec!["ARCHITECTURE.md:9: names `src/change_ticks.rs`, which is no file of the repository"]
    );
    let page = page.replace("  opacity/           maps.rs\n", "");
    assert!(
        check_map(&page, &facts)
            .iter()
            .any(|p| p.contains("no entry for `opacity/`"))
    );
}
