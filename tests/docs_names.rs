//! The README and the docs pages name only what the crate has: every type, `Type::member`
//! (method, associated const, enum variant, field), `ViewshedStepSystems` step, plugin and
//! Cargo feature they name exists.
//!
//! The crate's API is read from its own sources with `syn` (`src/` and
//! `crates/viewshed_core/src/`, test-only code left out): the items, their impl members (trait
//! impls and derives included), enum variants and fields, each `pub` or not. The features are
//! read from both `Cargo.toml`s. On a page:
//!
//! - in inline code spans, every CamelCase name must be an item of the crate, an enum variant
//!   of the crate, a name defined in the repository's tests, examples or benches, or one of
//!   the external names listed in `EXTERNAL`; `Type::member` of a crate type must be a
//!   member of it; a path from `bevy_viewshed::` or `viewshed_core::` (or from a public
//!   module of the crate, `ldtk::LdtkVision`) must resolve; a builder chain on a crate type
//!   (`Viewshed::new(8).with_cone(..)`) may call only its methods; a struct literal of a crate
//!   type may name only its fields; a span followed by "step" names a `ViewshedStepSystems`
//!   variant;
//! - in ```` ```rust ```` blocks, the paths through crate types and modules, `use` lists from
//!   the crate, builder chains and struct literals are checked the same way (CamelCase names
//!   alone are not: a block brings names in with glob imports and defines its own);
//! - features: `features = ["x"]`, `--features x`, "feature `x`", "the `x` feature", a line
//!   that starts "Features:", and tables whose first column heads `feature` (such a table
//!   lists every feature of its crate, with its default).
//!
//! Each failure names the page, the line and the missing item.

mod common_source;

use std::collections::{BTreeMap, BTreeSet};

use common_source::{all_sources, code_spans, is_cfg_test, parse, read, root, rs_files};
use syn::visit::Visit;

/// Names that belong to other crates, which the pages legitimately name, by crate. Only names
/// that really are external (a crate item is never listed here): a name of the crate's own
/// that the crate no longer has must fail, not be excused.
const EXTERNAL: &[(&str, &[&str])] = &[
    ("std", STD),
    ("bevy", BEVY),
    ("bevy_ecs_tilemap", BEVY_ECS_TILEMAP),
    ("bevy_ecs_ldtk", BEVY_ECS_LDTK),
    ("bevy_ecs_tiled", BEVY_ECS_TILED),
    ("bevy_replicon", BEVY_REPLICON),
    ("lightyear", LIGHTYEAR),
    ("serde", &["Serialize", "Deserialize"]),
    // The baseline of the plugin bench: the roguelike tutorial's field of view.
    ("bracket-pathfinding", &["Point"]),
    ("a game's own names", GAMES_OWN),
];

#[rustfmt::skip]
const STD: &[&str] = &[
    "Vec", "Option", "Some", "None", "Result", "Ok", "Err", "HashMap", "Send", "Duration",
];

/// Bevy's, with `Visibility`'s variants (`Inherited`, `Visible`, `Hidden`).
#[rustfmt::skip]
const BEVY: &[&str] = &[
    "App", "DefaultPlugins", "MinimalPlugins", "ImagePlugin", "LogPlugin", "StatesPlugin",
    "AssetPlugin", "Startup", "Update", "PreUpdate", "PostUpdate", "FixedPostUpdate", "Component",
    "Resource", "MessageReader", "On", "Add", "Entity", "EntityCommands", "Commands", "Query",
    "Res", "ResMut", "With", "Without", "Changed", "Added", "Disabled", "Transform",
    "GlobalTransform", "Visibility", "Inherited", "Visible", "Hidden", "Sprite", "Anchor", "Image",
    "Assets", "Handle", "Time", "Color", "ClearColor", "Camera2d", "Reflect", "ReflectComponent",
    "RenderApp", "Material2d", "Vec3", "IVec2", "MapEntities", "EntityHashMap",
];

/// bevy_ecs_tilemap's, with the kinds of maps (`TilemapType`'s and `IsoCoordSystem`'s
/// variants).
#[rustfmt::skip]
const BEVY_ECS_TILEMAP: &[&str] = &[
    "TilemapPlugin", "TilePos", "TilemapId", "TileStorage", "TileColor", "TileVisible",
    "TileTextureIndex", "TilemapSize", "TilemapType", "TilemapTileSize", "TilemapGridSize",
    "TilemapTexture", "TilemapAnchor", "TileBundle", "TilemapBundle", "HexCoordSystem",
    "IsoCoordSystem", "Hexagon", "Square", "Isometric", "Staggered", "Diamond",
];

#[rustfmt::skip]
const BEVY_ECS_LDTK: &[&str] = &[
    "LdtkPlugin", "LevelSelection", "LevelIid", "EntityIid", "EntityInstance", "IntGridCell",
    "GridCoords", "TileEnumTags", "LdtkEntity", "LdtkIntCell", "Worldly",
];

#[rustfmt::skip]
const BEVY_ECS_TILED: &[&str] = &["TiledPlugin", "TiledMap", "TiledWorld", "TiledWorldChunking"];

/// bevy_replicon's, with `ClientChannel::MutationAcks` and `ClientState`.
#[rustfmt::skip]
const BEVY_REPLICON: &[&str] = &[
    "RepliconPlugins", "ServerSystems", "ConnectedClient", "ClientVisibility", "FilterRegistry",
    "Replicated", "ServerTick", "ClientMessages", "MutationAcks", "ClientState",
];

/// lightyear's, with `NetworkTarget::All` (`Replicate::to_clients(All)`).
#[rustfmt::skip]
const LIGHTYEAR: &[&str] = &[
    "ServerPlugins", "ClientPlugins", "Client", "ClientOf", "LinkOf", "RemoteId", "PeerId",
    "Connected", "Replicate", "ReplicationSender", "Rooms", "Interpolated", "InterpolationTarget",
    "Predicted", "PredictionTarget", "HostClient", "Replicating", "All",
];

/// A game's own identifiers that the pages give as examples: LDtk layers and enum tags, Tiled
/// classes, the bundles of bevy_ecs_ldtk's tutorial.
#[rustfmt::skip]
const GAMES_OWN: &[&str] = &[
    "Walls", "Wall", "Floor", "Decor", "Solid", "Cliff", "Terrain", "PlayerBundle", "WallBundle",
];

/// Methods of external traits (and derives) that the crate's types implement, which
/// `Type::method` and builder chains on a crate type may call.
const EXTERNAL_TRAIT_METHODS: &[(&str, &[&str])] = &[
    ("Default", &["default"]),
    ("Clone", &["clone"]),
    ("PartialEq", &["eq", "ne"]),
    ("Debug", &["fmt"]),
    ("Hash", &["hash"]),
    ("Serialize", &["serialize"]),
    ("Deserialize", &["deserialize"]),
    (
        "Plugin",
        &["build", "finish", "cleanup", "ready", "name", "is_unique"],
    ),
    (
        "PluginGroup",
        &[
            "build",
            "set",
            "disable",
            "enable",
            "add_before",
            "add_after",
            "name",
        ],
    ),
    ("Deref", &["deref"]),
    ("DerefMut", &["deref_mut"]),
    ("FromStr", &["from_str"]),
];

/// The roots of paths into other crates: such a path is not the crate's to check.
#[rustfmt::skip]
const EXTERNAL_ROOTS: &[&str] = &[
    "std", "core", "alloc", "bevy", "bevy_ecs_tilemap", "bevy_ecs_ldtk", "bevy_ecs_tiled",
    "bevy_replicon", "bevy_replicon_example_backend", "lightyear", "lightyear_connection", "serde",
    "serde_json", "bracket_pathfinding", "criterion", "proptest", "image", "gif",
];

/// The repository's top folders: a span starting with one of them is a path into it.
#[rustfmt::skip]
const REPOSITORY_FOLDERS: &[&str] = &[
    "src", "tests", "examples", "benches", "crates", "docs", "assets", "web", "scripts", ".ci",
];

/// Paths in a game's own project that the pages name (the quick start's `src/main.rs`).
const USERS_PATHS: &[&str] = &["src/main.rs"];

fn is_external(name: &str) -> bool {
    EXTERNAL.iter().any(|(_, names)| names.contains(&name))
}

fn is_camel(name: &str) -> bool {
    name.len() >= 2
        && name.starts_with(|c: char| c.is_ascii_uppercase())
        && name.chars().any(|c| c.is_ascii_lowercase())
}

fn is_pub(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

/// The last segment of a type's path (`Query<&mut Viewshed>` is `Query`).
fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(path) => path.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Reference(reference) => type_name(&reference.elem),
        syn::Type::Paren(paren) => type_name(&paren.elem),
        syn::Type::Group(group) => type_name(&group.elem),
        _ => None,
    }
}

/// What the crate has, read from its sources.
#[derive(Default)]
struct Api {
    /// Types and traits (structs, enums, unions, traits, aliases): whether any of that name
    /// is `pub`, and the files defining them.
    types: BTreeMap<String, (bool, BTreeSet<String>)>,
    /// Each type's or trait's members (methods, associated consts, variants, named fields):
    /// whether each is public.
    members: BTreeMap<String, BTreeMap<String, bool>>,
    /// The methods and associated functions of each type that return `Self` (builders).
    builders: BTreeMap<String, BTreeSet<String>>,
    /// The types whose members a type has too: its `Deref` target, an alias's target.
    also: BTreeMap<String, BTreeSet<String>>,
    /// The traits each type implements or derives.
    traits: BTreeMap<String, BTreeSet<String>>,
    /// Free functions, consts and statics: whether each is public.
    values: BTreeMap<String, bool>,
    /// Modules (by file or inline): whether each is declared `pub`.
    modules: BTreeMap<String, bool>,
    /// Every enum variant's name.
    variants: BTreeSet<String>,
}

impl Api {
    fn add_type(&mut self, name: &str, public: bool, file: &str) {
        let entry = self.types.entry(name.to_string()).or_default();
        entry.0 |= public;
        entry.1.insert(file.to_string());
    }

    fn add_member(&mut self, ty: &str, member: &str, public: bool) {
        let entry = self.members.entry(ty.to_string()).or_default();
        let known = entry.entry(member.to_string()).or_insert(public);
        *known |= public;
    }

    fn read_files(&mut self, files: &[String]) {
        for file in files {
            let tree = parse(file);
            if let Some(module) = module_of_file(file) {
                // Whether the declaring `mod` is `pub` is read from the `mod` items below.
                self.modules.entry(module).or_insert(false);
            }
            self.read_items(&tree.items, file);
        }
    }

    fn read_items(&mut self, items: &[syn::Item], file: &str) {
        for item in items {
            match item {
                syn::Item::Struct(item) if !is_cfg_test(&item.attrs) => {
                    let name = item.ident.to_string();
                    self.add_type(&name, is_pub(&item.vis), file);
                    for field in &item.fields {
                        if let Some(ident) = &field.ident {
                            self.add_member(&name, &ident.to_string(), is_pub(&field.vis));
                        }
                    }
                    self.read_derives(&name, &item.attrs);
                    if derives(&item.attrs).iter().any(|d| d == "Deref")
                        && let Some(target) =
                            item.fields.iter().next().and_then(|f| type_name(&f.ty))
                    {
                        self.also.entry(name.clone()).or_default().insert(target);
                    }
                }
                syn::Item::Enum(item) if !is_cfg_test(&item.attrs) => {
                    let name = item.ident.to_string();
                    self.add_type(&name, is_pub(&item.vis), file);
                    for variant in &item.variants {
                        self.add_member(&name, &variant.ident.to_string(), is_pub(&item.vis));
                        self.variants.insert(variant.ident.to_string());
                    }
                    self.read_derives(&name, &item.attrs);
                }
                syn::Item::Union(item) if !is_cfg_test(&item.attrs) => {
                    self.add_type(&item.ident.to_string(), is_pub(&item.vis), file);
                }
                syn::Item::Trait(item) if !is_cfg_test(&item.attrs) => {
                    let name = item.ident.to_string();
                    self.add_type(&name, is_pub(&item.vis), file);
                    for member in &item.items {
                        let ident = match member {
                            syn::TraitItem::Fn(f) => &f.sig.ident,
                            syn::TraitItem::Const(c) => &c.ident,
                            syn::TraitItem::Type(t) => &t.ident,
                            _ => continue,
                        };
                        self.add_member(&name, &ident.to_string(), is_pub(&item.vis));
                    }
                }
                syn::Item::Type(item) if !is_cfg_test(&item.attrs) => {
                    let name = item.ident.to_string();
                    self.add_type(&name, is_pub(&item.vis), file);
                    if let Some(target) = type_name(&item.ty) {
                        self.also.entry(name).or_default().insert(target);
                    }
                }
                syn::Item::Fn(item) if !is_cfg_test(&item.attrs) => {
                    let public = self.values.entry(item.sig.ident.to_string()).or_default();
                    *public |= is_pub(&item.vis);
                }
                syn::Item::Const(item) if !is_cfg_test(&item.attrs) => {
                    let public = self.values.entry(item.ident.to_string()).or_default();
                    *public |= is_pub(&item.vis);
                }
                syn::Item::Static(item) if !is_cfg_test(&item.attrs) => {
                    let public = self.values.entry(item.ident.to_string()).or_default();
                    *public |= is_pub(&item.vis);
                }
                syn::Item::Mod(item) if !is_cfg_test(&item.attrs) => {
                    let public = self.modules.entry(item.ident.to_string()).or_default();
                    *public |= is_pub(&item.vis);
                    if let Some((_, items)) = &item.content {
                        self.read_items(items, file);
                    }
                }
                syn::Item::Impl(item) if !is_cfg_test(&item.attrs) => self.read_impl(item),
                syn::Item::Use(item) if is_pub(&item.vis) => self.read_renames(&item.tree, file),
                _ => {}
            }
        }
    }

    fn read_derives(&mut self, name: &str, attrs: &[syn::Attribute]) {
        for derive in derives(attrs) {
            if derive == "Default" || derive == "Clone" {
                let method = derive.to_lowercase();
                self.builders
                    .entry(name.to_string())
                    .or_default()
                    .insert(method);
            }
            self.traits
                .entry(name.to_string())
                .or_default()
                .insert(derive);
        }
    }

    fn read_impl(&mut self, item: &syn::ItemImpl) {
        let Some(ty) = type_name(&item.self_ty) else {
            return;
        };
        let trait_name = item
            .trait_
            .as_ref()
            .and_then(|(_, path, _)| path.segments.last())
            .map(|segment| segment.ident.to_string());
        if let Some(name) = &trait_name {
            self.traits
                .entry(ty.clone())
                .or_default()
                .insert(name.clone());
        }
        for member in &item.items {
            match member {
                syn::ImplItem::Fn(f) if !is_cfg_test(&f.attrs) => {
                    let name = f.sig.ident.to_string();
                    self.add_member(&ty, &name, trait_name.is_some() || is_pub(&f.vis));
                    if let syn::ReturnType::Type(_, output) = &f.sig.output
                        && type_name(output).is_some_and(|out| out == "Self" || out == ty)
                        && !matches!(**output, syn::Type::Reference(_))
                    {
                        self.builders.entry(ty.clone()).or_default().insert(name);
                    }
                }
                syn::ImplItem::Const(c) if !is_cfg_test(&c.attrs) => {
                    self.add_member(
                        &ty,
                        &c.ident.to_string(),
                        trait_name.is_some() || is_pub(&c.vis),
                    );
                }
                syn::ImplItem::Type(t) if t.ident == "Target" => {
                    if let Some(target) = type_name(&t.ty) {
                        self.also.entry(ty.clone()).or_default().insert(target);
                    }
                }
                _ => {}
            }
        }
    }

    /// `pub use a::B as C;` makes `C` a name of the crate with `B`'s members.
    fn read_renames(&mut self, tree: &syn::UseTree, file: &str) {
        match tree {
            syn::UseTree::Path(path) => self.read_renames(&path.tree, file),
            syn::UseTree::Group(group) => {
                group
                    .items
                    .iter()
                    .for_each(|item| self.read_renames(item, file));
            }
            syn::UseTree::Rename(rename) => {
                let (from, to) = (rename.ident.to_string(), rename.rename.to_string());
                if is_camel(&to) {
                    self.add_type(&to, true, file);
                    self.also.entry(to).or_default().insert(from);
                }
            }
            _ => {}
        }
    }

    fn is_type(&self, name: &str) -> bool {
        self.types.contains_key(name)
    }

    /// Whether `ty` has `member`, and whether it is public: its own members, those of the
    /// types it derefs to or aliases, of the crate traits it implements, and the listed
    /// methods of the external traits it implements or derives.
    fn member(&self, ty: &str, member: &str) -> Option<bool> {
        let mut seen = BTreeSet::new();
        let mut queue = vec![ty.to_string()];
        let mut found = None;
        while let Some(ty) = queue.pop() {
            if !seen.insert(ty.clone()) {
                continue;
            }
            if let Some(public) = self.members.get(&ty).and_then(|m| m.get(member)) {
                found = Some(found.unwrap_or(false) | public);
            }
            for name in self.traits.get(&ty).into_iter().flatten() {
                if self.is_type(name) {
                    queue.push(name.clone());
                } else if EXTERNAL_TRAIT_METHODS
                    .iter()
                    .any(|(t, methods)| t == name && methods.contains(&member))
                {
                    found = Some(true);
                }
            }
            queue.extend(self.also.get(&ty).into_iter().flatten().cloned());
        }
        found
    }

    fn is_builder(&self, ty: &str, method: &str) -> bool {
        let mut seen = BTreeSet::new();
        let mut queue = vec![ty.to_string()];
        while let Some(ty) = queue.pop() {
            if !seen.insert(ty.clone()) {
                continue;
            }
            if self.builders.get(&ty).is_some_and(|b| b.contains(method)) {
                return true;
            }
            queue.extend(self.also.get(&ty).into_iter().flatten().cloned());
        }
        false
    }
}

/// The traits named in a `#[derive(..)]`.
fn derives(attrs: &[syn::Attribute]) -> Vec<String> {
    let mut names = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("derive")) {
        let _ = attr.parse_nested_meta(|meta| {
            if let Some(last) = meta.path.segments.last() {
                names.push(last.ident.to_string());
            }
            Ok(())
        });
    }
    names
}

/// A file's module name (`src/fog/mod.rs` and `src/fog.rs` are `fog`; a crate root none).
fn module_of_file(file: &str) -> Option<String> {
    let path = std::path::Path::new(file);
    let stem = path.file_stem()?.to_str()?;
    match stem {
        "lib" | "main" => None,
        "mod" => Some(path.parent()?.file_name()?.to_str()?.to_string()),
        _ => Some(stem.to_string()),
    }
}

/// The crate's API, and the names the repository's tests, examples and benches define.
fn read_api() -> (Api, Api) {
    let mut api = Api::default();
    api.read_files(&all_sources());
    let mut repo = Api::default();
    for dir in [
        "tests",
        "examples",
        "benches",
        "crates/viewshed_core/tests",
        "crates/viewshed_core/examples",
        "crates/viewshed_core/benches",
    ] {
        if root().join(dir).exists() {
            repo.read_files(&rs_files(dir));
        }
    }
    (api, repo)
}

/// The features of one crate, read from its `Cargo.toml`.
#[derive(Default, Clone)]
struct Features {
    all: BTreeSet<String>,
    default: BTreeSet<String>,
}

/// A `Cargo.toml`'s `[features]` table (a simple reader: `name = [...]` lines, comments and
/// multi-line arrays allowed).
fn read_features(manifest: &str) -> Features {
    let mut features = Features::default();
    let mut in_features = false;
    let mut pending = String::new();
    for line in manifest.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.starts_with('[') && pending.is_empty() {
            in_features = line == "[features]";
            continue;
        }
        if !in_features || line.is_empty() {
            continue;
        }
        pending.push_str(line);
        pending.push(' ');
        if pending.matches('[').count() > pending.matches(']').count() {
            continue;
        }
        if let Some((name, value)) = pending.split_once('=') {
            let name = name.trim().to_string();
            if name == "default" {
                features.default = quoted(value).into_iter().collect();
            } else {
                features.all.insert(name);
            }
        }
        pending.clear();
    }
    features
}

/// The double-quoted strings of a text.
fn quoted(text: &str) -> Vec<String> {
    text.split('"')
        .skip(1)
        .step_by(2)
        .map(String::from)
        .collect()
}

/// Everything a page is checked against.
struct Known {
    api: Api,
    repo: Api,
    main: Features,
    core: Features,
}

impl Known {
    fn read() -> Known {
        let (api, repo) = read_api();
        Known {
            api,
            repo,
            main: read_features(&read("Cargo.toml")),
            core: read_features(&read("crates/viewshed_core/Cargo.toml")),
        }
    }
}

/// A path in code: its segments (`a::B::c`).
type CodePath = Vec<String>;

/// The paths in a piece of code, as a reader would find them: `a::B::c`, and `A::{b, c}` as
/// `A::b` and `A::c`. String literals, numbers, lifetimes, command-line flags (`-Oz`), file
/// names (`Cargo.toml`, `docs/Foo.png`) and method calls (`.iter`) are left out.
fn code_paths(code: &str) -> Vec<CodePath> {
    let chars: Vec<char> = code.chars().collect();
    let ident_at = |at: usize| -> Option<(String, usize)> {
        let first = *chars.get(at)?;
        if !(first.is_alphabetic() || first == '_') {
            return None;
        }
        let end = (at..chars.len())
            .find(|&i| !(chars[i].is_alphanumeric() || chars[i] == '_'))
            .unwrap_or(chars.len());
        Some((chars[at..end].iter().collect(), end))
    };
    let mut paths = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        if c == '"' {
            // A string literal: its words are data, not names.
            at += 1;
            while at < chars.len() && chars[at] != '"' {
                at += if chars[at] == '\\' { 2 } else { 1 };
            }
            at += 1;
            continue;
        }
        if c.is_ascii_digit() {
            while at < chars.len()
                && (chars[at].is_alphanumeric() || chars[at] == '_' || chars[at] == '.')
            {
                at += 1;
            }
            continue;
        }
        let Some((first, mut end)) = ident_at(at) else {
            at += 1;
            continue;
        };
        let before = at.checked_sub(1).map(|i| chars[i]);
        let skip = matches!(
            before,
            Some('-' | '/' | '.' | '\'' | '$' | '@' | '\\' | '%')
        );
        let mut prefix = vec![first];
        let mut group = Vec::new();
        while chars.get(end) == Some(&':') && chars.get(end + 1) == Some(&':') {
            let next = end + 2;
            if chars.get(next) == Some(&'{') {
                // `A::{b, c}`: one path per name of the group (not nested further).
                let close = (next..chars.len())
                    .find(|&i| chars[i] == '}')
                    .unwrap_or(chars.len());
                let inner: String = chars[next + 1..close].iter().collect();
                for name in inner.split(',') {
                    let name = name.trim();
                    if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                        let mut path = prefix.clone();
                        path.push(name.to_string());
                        group.push(path);
                    }
                }
                end = close + 1;
                break;
            }
            match ident_at(next) {
                Some((segment, after)) => {
                    prefix.push(segment);
                    end = after;
                }
                None => break, // `::<T>` or `::*`
            }
        }
        // A file name (`Cargo.toml`, `main.rs`) or a folder (`Foo/`).
        let file_like = match chars.get(end) {
            Some('/') => true,
            Some('.') => {
                let ext_end = (end + 1..chars.len())
                    .find(|&i| !chars[i].is_ascii_alphanumeric())
                    .unwrap_or(chars.len());
                ext_end > end + 1
                    && chars[end + 1].is_ascii_lowercase()
                    && chars.get(ext_end) != Some(&'(')
            }
            _ => false,
        };
        if !skip && !file_like {
            if group.is_empty() {
                paths.push(prefix);
            } else {
                paths.extend(group);
            }
        }
        at = end;
    }
    paths
}

/// The first words of an inline span that is a shell command rather than code.
#[rustfmt::skip]
const COMMANDS: &[&str] = &[
    "cargo", "bash", "sh", "python3", "xvfb-run", "wasm-opt", "npx", "git", "rustup", "apt-get",
    "sudo", "BEVY_ASSET_ROOT=.", "RUSTFLAGS",
];

/// Whether an inline span is a shell command rather than code.
fn is_command(span: &str) -> bool {
    let first = span.split_whitespace().next().unwrap_or("");
    COMMANDS.contains(&first) || span.starts_with("--") || span.starts_with("-p ")
}

/// The problems found on pages, each "page:line: what".
#[derive(Default)]
struct Problems(BTreeSet<(String, usize, String)>);

impl Problems {
    fn add(&mut self, page: &str, line: usize, what: String) {
        self.0.insert((page.to_string(), line, what));
    }

    /// In page and line order.
    fn list(&self) -> Vec<String> {
        let list = self.0.iter();
        list.map(|(page, line, what)| format!("{page}:{line}: {what}"))
            .collect()
    }
}

/// Checking one page.
struct PageCheck<'a> {
    known: &'a Known,
    page: &'a str,
    problems: &'a mut Problems,
    /// Whether the page may name the crate's private items (ARCHITECTURE.md, which maps the
    /// inside of the crate; not a user's page).
    private_ok: bool,
}

impl<'a> PageCheck<'a> {
    fn api(&self) -> &'a Api {
        let known: &'a Known = self.known;
        &known.api
    }

    fn problem(&mut self, line: usize, what: String) {
        self.problems.add(self.page, line, what);
    }

    /// The features the page means in a context: the core's on its own page.
    fn features(&self) -> (&'a Features, &'static str) {
        let known: &'a Known = self.known;
        if self.page.ends_with("docs/core.md") || self.page.starts_with("crates/viewshed_core") {
            (&known.core, "crates/viewshed_core/Cargo.toml")
        } else {
            (&known.main, "Cargo.toml")
        }
    }

    fn check_feature(&mut self, line: usize, name: &str) {
        let name = name.trim();
        if name.is_empty() {
            return;
        }
        let known: &'a Known = self.known;
        let (features, manifest, name) = match name.strip_prefix("viewshed_core/") {
            Some(core) => (&known.core, "crates/viewshed_core/Cargo.toml", core),
            None => {
                let (features, manifest) = self.features();
                (features, manifest, name)
            }
        };
        if !features.all.contains(name) {
            self.problem(
                line,
                format!("feature `{name}` is not a feature in {manifest}"),
            );
        }
    }

    /// `--features a,b`, `--features "a b"`, `-F a` in a command.
    fn check_command_features(&mut self, line: usize, command: &str) {
        let words: Vec<&str> = command.split_whitespace().collect();
        let core = words
            .windows(2)
            .any(|w| w[0] == "-p" && w[1] == "viewshed_core");
        for pair in words.windows(2) {
            if pair[0] == "--features" || pair[0] == "-F" {
                for name in pair[1]
                    .trim_matches(|c| c == '"' || c == '\'' || c == '`')
                    .split(',')
                {
                    if core {
                        self.check_feature(line, &format!("viewshed_core/{name}"));
                    } else {
                        self.check_feature(line, name);
                    }
                }
            }
        }
    }

    /// `features = ["a", "b"]` in a span or a TOML line, when it is this crate's (a line for
    /// another dependency, `bevy = { ..., features = [...] }`, is not).
    fn check_toml_features(&mut self, line: usize, text: &str) {
        let Some((before, list)) = text.split_once("features = [") else {
            return;
        };
        if let Some((dependency, _)) = before.split_once('=')
            && !dependency.contains("default-features")
        {
            let dependency = dependency.trim();
            if dependency != "bevy_viewshed" && dependency != "viewshed_core" {
                return;
            }
        }
        let list = list.split(']').next().unwrap_or("");
        for name in quoted(list) {
            self.check_feature(line, &name);
        }
    }

    /// A crate path: `bevy_viewshed::a::B::c` (`anchored`), or from a public module of the
    /// crate (`ldtk::LdtkVision`).
    fn check_crate_path(&mut self, line: usize, path: &[String], whole: &str) {
        let mut at = 0;
        while at + 1 < path.len() && !is_camel(&path[at]) && path[at] != "prelude" {
            match self.api().modules.get(&path[at]) {
                Some(_) => at += 1,
                None if self.api().values.contains_key(&path[at]) => return,
                None => {
                    self.problem(
                        line,
                        format!("`{whole}`: the crate has no module `{}`", path[at]),
                    );
                    return;
                }
            }
        }
        let name = &path[at];
        if name == "prelude" {
            return;
        }
        if is_camel(name) {
            self.check_type_path(line, &path[at..], whole, true);
        } else if !self.api().values.contains_key(name) && !self.api().modules.contains_key(name) {
            self.problem(line, format!("`{whole}`: the crate has no item `{name}`"));
        }
    }

    /// `Type` or `Type::member`. `crate_only`: reached through a crate path, so an external
    /// name does not do.
    fn check_type_path(&mut self, line: usize, path: &[String], whole: &str, crate_only: bool) {
        let ty = &path[0];
        let api = self.api();
        let repo = &self.known.repo;
        let public = api
            .types
            .get(ty)
            .map(|(public, _)| *public || self.private_ok);
        if public == Some(true) {
            if let Some(member) = path.get(1) {
                match api.member(ty, member) {
                    Some(true) => {}
                    Some(false) if self.private_ok => {}
                    Some(false) => self.problem(
                        line,
                        format!("`{whole}`: `{ty}::{member}` is not `pub` in the crate"),
                    ),
                    None => {
                        self.problem(line, format!("`{whole}`: `{ty}` has no member `{member}`"))
                    }
                }
            }
            return;
        }
        // Not a public type of the crate: an external name, a variant of the crate's (said
        // alone: "`Visible`"), or a name of the repository's tests and examples. A crate-private
        // type of the same name (a private `Update`) does not stand in the way.
        if !crate_only
            && (is_external(ty)
                || repo.types.contains_key(ty)
                || (path.len() == 1 && (api.variants.contains(ty) || repo.variants.contains(ty))))
        {
            return;
        }
        if public == Some(false) {
            self.problem(line, format!("`{whole}`: `{ty}` is not `pub` in the crate"));
        } else {
            self.problem(
                line,
                format!("`{whole}`: `{ty}` is no item of the crate (nor a listed external name)"),
            );
        }
    }

    /// One path: from the crate's root (`bevy_viewshed::`, `viewshed_core::`), from a public
    /// module of the crate, or from a type. In a code block (`block_local`: the names it
    /// defines), a type alone is not checked, nor a path from a type the block defines or the
    /// crate does not have.
    fn check_path(&mut self, line: usize, path: &[String], block_local: Option<&BTreeSet<String>>) {
        let whole = path.join("::");
        let first = path[0].as_str();
        if first == "bevy_viewshed" || first == "viewshed_core" || first == "crate" {
            if path.len() > 1 {
                self.check_crate_path(line, &path[1..], &whole);
            }
        } else if is_camel(first) {
            let checked = match block_local {
                None => true,
                Some(local) => {
                    path.len() > 1 && !local.contains(first) && self.api().is_type(first)
                }
            };
            if checked {
                self.check_type_path(line, path, &whole, false);
            }
        } else if path.len() > 1
            && !EXTERNAL_ROOTS.contains(&first)
            && self.api().modules.get(first) == Some(&true)
        {
            self.check_crate_path(line, path, &whole);
        }
    }

    /// The names and paths in an inline span.
    fn check_span_names(&mut self, line: usize, span: &str) {
        for path in code_paths(span) {
            self.check_path(line, &path, None);
        }
        if let Ok(expr) = syn::parse_str::<syn::Expr>(span) {
            let mut code = CodeCheck::new(self.api(), BTreeSet::new());
            code.visit_expr(&expr);
            for (_, what) in code.found {
                self.problem(line, what);
            }
        }
    }

    /// A ```rust block: the paths through the crate, its `use` lists, builder chains and
    /// struct literals.
    fn check_rust_block(&mut self, first_line: usize, lines: &[&str]) {
        let code: Vec<String> = lines
            .iter()
            .map(|line| {
                let trimmed = line.trim_start();
                // A doc test's hidden line is code too.
                match trimmed
                    .strip_prefix("# ")
                    .or(trimmed.strip_prefix('#').filter(|r| r.is_empty()))
                {
                    Some(rest) if !trimmed.starts_with("#[") && !trimmed.starts_with("#!") => {
                        rest.to_string()
                    }
                    _ => line.to_string(),
                }
            })
            .collect();
        let text = code.join("\n");
        let file = syn::parse_file(&text)
            .or_else(|_| syn::parse_file(&format!("fn __page() {{\n{text}\n}}")));
        let Ok(file) = file else {
            self.problem(
                first_line,
                "a ```rust block that does not parse as Rust".to_string(),
            );
            return;
        };
        let mut local = LocalNames::default();
        local.visit_file(&file);
        let mut code = CodeCheck::new(self.api(), local.0.clone());
        code.visit_file(&file);
        for (needle, what) in code.found {
            self.problem(first_line + line_of(lines, &needle), what);
        }
        for path in code.paths {
            let at = first_line + line_of(lines, &path.join("::"));
            self.check_path(at, &path, Some(&local.0));
        }
    }

    /// One page, line by line.
    fn check_page(&mut self, text: &str) {
        let lines: Vec<&str> = text.lines().collect();
        let mut fence: Option<(usize, String, Vec<&str>)> = None;
        let mut table: Option<Table> = None;
        for (index, line) in lines.iter().enumerate() {
            let number = index + 1;
            let trimmed = line.trim_start();
            if let Some(info) = trimmed.strip_prefix("```") {
                match fence.take() {
                    Some((start, lang, body)) => self.check_block(start, &lang, &body),
                    None => fence = Some((number + 1, info.trim().to_string(), Vec::new())),
                }
                continue;
            }
            if let Some((_, _, body)) = &mut fence {
                body.push(line);
                continue;
            }
            // Tables.
            if trimmed.starts_with('|') {
                match &mut table {
                    Some(t) => t.rows.push((number, (*line).to_string())),
                    None => {
                        table = Some(Table {
                            header: (*line).to_string(),
                            rows: Vec::new(),
                            line: number,
                        })
                    }
                }
            } else if let Some(t) = table.take() {
                self.check_table(&t);
            }
            self.check_prose_line(number, line);
        }
        if let Some(t) = table.take() {
            self.check_table(&t);
        }
    }

    fn check_block(&mut self, first_line: usize, lang: &str, body: &[&str]) {
        let lang = lang.split(',').next().unwrap_or("");
        match lang {
            "rust" => self.check_rust_block(first_line, body),
            "toml" => {
                for (offset, line) in body.iter().enumerate() {
                    self.check_toml_features(first_line + offset, line);
                }
            }
            "text" => {}
            _ => {
                for (offset, line) in body.iter().enumerate() {
                    if line.contains("cargo ") {
                        self.check_command_features(first_line + offset, line);
                    }
                }
            }
        }
    }

    fn check_prose_line(&mut self, number: usize, line: &str) {
        let starts_features = line.trim_start().starts_with("Features:");
        // Spans that name a feature: after "feature(s)", or joined to such a span by ", ",
        // " and " or " or ".
        let mut feature_run = false;
        let mut previous_end = 0;
        for (open, end, span) in code_spans(line) {
            let before = &line[..open];
            let between = line[previous_end..open].trim();
            previous_end = end;
            let after = &line[end..];
            let before_word = before
                .trim_end()
                .rsplit(' ')
                .next()
                .unwrap_or("")
                .to_lowercase();
            let joined = matches!(between, "," | "and" | ", and" | "or" | ", or");
            feature_run = matches!(
                before_word.as_str(),
                "feature" | "features" | "(feature" | "(features"
            ) || (feature_run && joined);
            let someone_elses = before_word == "its"
                || (before_word.ends_with("'s")
                    && before_word != "crate's"
                    && before_word != "bevy_viewshed's");
            let followed_by_feature = after.starts_with(" feature") && !someone_elses;
            let is_word = !span.is_empty()
                && span
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if is_word && (feature_run || starts_features || followed_by_feature) {
                self.check_feature(number, &span);
                feature_run = true;
                continue;
            }
            feature_run = false;
            if is_command(&span) {
                self.check_command_features(number, &span);
                continue;
            }
            if span.contains("features = [") {
                self.check_toml_features(number, &span);
                continue;
            }
            self.check_repository_paths(number, &span);
            self.check_span_names(number, &span);
            // "the `Fog` step": a step of the frame.
            if is_camel(&span)
                && span.chars().all(|c| c.is_ascii_alphanumeric())
                && after.starts_with(" step")
                && self.api().member("ViewshedStepSystems", &span).is_none()
            {
                self.problem(
                    number,
                    format!("the `{span}` step: `ViewshedStepSystems` has no variant `{span}`"),
                );
            }
        }
    }

    /// A path into the repository (`src/support/change_ticks.rs`, `tests/model/`): the file or
    /// folder exists (a path with a `*` is a pattern, not checked).
    fn check_repository_paths(&mut self, number: usize, span: &str) {
        for word in span.split_whitespace() {
            let path = word.trim_end_matches(['.', ',', ';', ':', ')']);
            let top = path.split('/').next().unwrap_or("");
            if !path.contains('/') || !REPOSITORY_FOLDERS.contains(&top) || path.contains('*') {
                continue;
            }
            if USERS_PATHS.contains(&path) || root().join(path).exists() {
                continue;
            }
            self.problem(
                number,
                format!("`{path}`: no such file or folder in the repository"),
            );
        }
    }

    /// A table whose first column heads `feature`: each row's feature exists, the table lists
    /// every feature of its crate, and its `default` column says which are on by default.
    fn check_table(&mut self, table: &Table) {
        self.check_type_rows(table);
        self.check_feature_table(table);
    }

    /// A table row about a crate type (its first cell starts with `` `Type` ``): the calls its
    /// other cells show (`` `is_visible(TilePos)` ``, `` `grid()` ``) are members of that type.
    fn check_type_rows(&mut self, table: &Table) {
        let api = self.api();
        for (number, row) in &table.rows {
            let row = cells(row);
            let Some(first) = row.first() else {
                continue;
            };
            let Some((_, _, head)) = code_spans(first.trim_start_matches('[')).into_iter().next()
            else {
                continue;
            };
            let ty = head.split(['(', ' ', '<']).next().unwrap_or("");
            if !(first.trim_start_matches('[').starts_with('`')
                && api.types.get(ty).is_some_and(|(public, _)| *public))
            {
                continue;
            }
            for cell in &row[1..] {
                for (_, _, span) in code_spans(cell) {
                    let Some((method, rest)) = span.split_once('(') else {
                        continue;
                    };
                    let is_call = rest.ends_with(')')
                        && method.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
                        && method
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_');
                    if !is_call || api.values.contains_key(method) {
                        continue;
                    }
                    match api.member(ty, method) {
                        Some(true) => {}
                        Some(false) => self.problem(*number, format!("`{span}` in the row of `{ty}`: `{ty}::{method}` is not `pub` in the crate")),
                        None => self.problem(*number, format!("`{span}` in the row of `{ty}`: `{ty}` has no member `{method}`")),
                    }
                }
            }
        }
    }

    /// A table whose first column heads `feature`: each row's feature exists, the table lists
    /// every feature of its crate, and its `default` column says which are on by default.
    fn check_feature_table(&mut self, table: &Table) {
        let header = cells(&table.header);
        let Some(first) = header.first() else {
            return;
        };
        let full = first == "feature";
        if !first.contains("feature") {
            return;
        }
        let default_column = header.iter().position(|cell| cell == "default");
        let mut listed = BTreeSet::new();
        for (number, row) in &table.rows {
            let row = cells(row);
            if row.first().is_some_and(|cell| cell.starts_with("---")) {
                continue;
            }
            let Some((_, _, name)) = row
                .first()
                .and_then(|cell| code_spans(cell).into_iter().next())
            else {
                continue;
            };
            self.check_feature(*number, &name);
            listed.insert(name.clone());
            let (features, manifest) = self.features();
            if let Some(column) = default_column
                && let Some(cell) = row.get(column)
                && features.all.contains(&name)
            {
                let says = cell.starts_with("yes");
                let is = features.default.contains(&name);
                if says != is {
                    self.problem(
                        *number,
                        format!(
                            "feature `{name}`: the table says default {cell:?}, {manifest} says {}",
                            if is { "yes" } else { "no" }
                        ),
                    );
                }
            }
        }
        if full {
            let (features, manifest) = self.features();
            let missing: Vec<String> = features.all.difference(&listed).cloned().collect();
            for name in missing {
                self.problem(
                    table.line,
                    format!("the feature table lacks feature `{name}` (in {manifest})"),
                );
            }
        }
    }
}

/// A markdown table: its header line and rows (with their line numbers).
struct Table {
    header: String,
    rows: Vec<(usize, String)>,
    line: usize,
}

/// A table row's cells, trimmed.
fn cells(row: &str) -> Vec<String> {
    let row = row.trim().trim_start_matches('|').trim_end_matches('|');
    // A `|` inside a code span is not a cell border.
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut in_code = false;
    for c in row.chars() {
        match c {
            '`' => {
                in_code = !in_code;
                cell.push(c);
            }
            '|' if !in_code => cells.push(std::mem::take(&mut cell).trim().to_string()),
            _ => cell.push(c),
        }
    }
    cells.push(cell.trim().to_string());
    cells
}

/// The offset of the first line of a block holding `needle` (0 when none does).
fn line_of(lines: &[&str], needle: &str) -> usize {
    let last = needle.rsplit("::").next().unwrap_or(needle);
    lines
        .iter()
        .position(|line| line.contains(needle))
        .or_else(|| lines.iter().position(|line| line.contains(last)))
        .unwrap_or(0)
}

/// The names a code block defines itself (its own types and functions).
#[derive(Default)]
struct LocalNames(BTreeSet<String>);

impl<'ast> Visit<'ast> for LocalNames {
    fn visit_item_struct(&mut self, item: &'ast syn::ItemStruct) {
        self.0.insert(item.ident.to_string());
        syn::visit::visit_item_struct(self, item);
    }
    fn visit_item_enum(&mut self, item: &'ast syn::ItemEnum) {
        self.0.insert(item.ident.to_string());
        syn::visit::visit_item_enum(self, item);
    }
    fn visit_item_type(&mut self, item: &'ast syn::ItemType) {
        self.0.insert(item.ident.to_string());
        syn::visit::visit_item_type(self, item);
    }
    fn visit_item_trait(&mut self, item: &'ast syn::ItemTrait) {
        self.0.insert(item.ident.to_string());
        syn::visit::visit_item_trait(self, item);
    }
}

/// What a piece of Rust says about the crate: builder chains and struct literals on crate
/// types (checked here), and its paths and `use` lists (gathered for the page's checks).
struct CodeCheck<'a> {
    api: &'a Api,
    local: BTreeSet<String>,
    /// (text to find its line by, what is wrong).
    found: Vec<(String, String)>,
    paths: Vec<CodePath>,
}

impl<'a> CodeCheck<'a> {
    fn new(api: &'a Api, local: BTreeSet<String>) -> Self {
        CodeCheck {
            api,
            local,
            found: Vec::new(),
            paths: Vec::new(),
        }
    }

    fn crate_type(&self, name: &str) -> bool {
        self.api.is_type(name) && !self.local.contains(name)
    }

    /// The crate type a builder expression gives: `Type::new(..)`, then its methods that
    /// return `Self`.
    fn type_of(&self, expr: &syn::Expr) -> Option<String> {
        match expr {
            syn::Expr::Call(call) => {
                let syn::Expr::Path(path) = &*call.func else {
                    return None;
                };
                let segments: Vec<String> = path
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                let [.., ty, function] = segments.as_slice() else {
                    return None;
                };
                (self.crate_type(ty) && self.api.is_builder(ty, function)).then(|| ty.clone())
            }
            syn::Expr::MethodCall(call) => {
                let ty = self.type_of(&call.receiver)?;
                self.api
                    .is_builder(&ty, &call.method.to_string())
                    .then_some(ty)
            }
            syn::Expr::Paren(paren) => self.type_of(&paren.expr),
            _ => None,
        }
    }
}

impl<'ast> Visit<'ast> for CodeCheck<'_> {
    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        if let Some(ty) = self.type_of(&call.receiver) {
            let method = call.method.to_string();
            match self.api.member(&ty, &method) {
                Some(true) => {}
                Some(false) => self.found.push((
                    format!(".{method}"),
                    format!(
                        "`.{method}(..)` on a `{ty}`: `{ty}::{method}` is not `pub` in the crate"
                    ),
                )),
                None => self.found.push((
                    format!(".{method}"),
                    format!("`.{method}(..)` on a `{ty}`: `{ty}` has no method `{method}`"),
                )),
            }
        }
        syn::visit::visit_expr_method_call(self, call);
    }

    fn visit_expr_struct(&mut self, literal: &'ast syn::ExprStruct) {
        if let Some(ty) = literal.path.segments.last().map(|s| s.ident.to_string())
            && self.crate_type(&ty)
        {
            for field in &literal.fields {
                if let syn::Member::Named(name) = &field.member
                    && self.api.member(&ty, &name.to_string()) != Some(true)
                {
                    self.found.push((
                        format!("{ty} {{"),
                        format!("`{ty} {{ {name}, .. }}`: `{ty}` has no public field `{name}`"),
                    ));
                }
            }
        }
        syn::visit::visit_expr_struct(self, literal);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.segments.len() > 1 {
            self.paths
                .push(path.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        fn leaves(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<CodePath>) {
            match tree {
                syn::UseTree::Path(path) => {
                    prefix.push(path.ident.to_string());
                    leaves(&path.tree, prefix, out);
                    prefix.pop();
                }
                syn::UseTree::Name(name) if name.ident != "self" => {
                    let mut path = prefix.clone();
                    path.push(name.ident.to_string());
                    out.push(path);
                }
                syn::UseTree::Rename(rename) => {
                    let mut path = prefix.clone();
                    path.push(rename.ident.to_string());
                    out.push(path);
                }
                syn::UseTree::Group(group) => {
                    group
                        .items
                        .iter()
                        .for_each(|item| leaves(item, prefix, out));
                }
                _ => {}
            }
        }
        let mut found = Vec::new();
        leaves(&item.tree, &mut Vec::new(), &mut found);
        self.paths
            .extend(found.into_iter().filter(|path| path.len() > 1));
    }
}

/// The pages: the README and every page under docs/.
fn pages() -> Vec<(String, String)> {
    let mut names = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .to_string()
        })
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    docs.sort();
    names.extend(docs);
    names
        .into_iter()
        .map(|name| {
            let text = read(&name);
            (name, text)
        })
        .collect()
}

fn check_pages(known: &Known, pages: &[(String, String)], private_ok: bool) -> Vec<String> {
    let mut problems = Problems::default();
    for (page, text) in pages {
        PageCheck {
            known,
            page,
            problems: &mut problems,
            private_ok,
        }
        .check_page(text);
    }
    problems.list()
}

#[test]
fn the_pages_name_only_what_the_crate_has() {
    let known = Known::read();
    let problems = check_pages(&known, &pages(), false);
    assert!(
        problems.is_empty(),
        "{} names on the README and docs/ pages that the crate does not have:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// ARCHITECTURE.md, checked the same way, but it may name the crate's private items.
#[test]
fn architecture_names_only_what_the_crate_has() {
    let known = Known::read();
    let page = ("ARCHITECTURE.md".to_string(), read("ARCHITECTURE.md"));
    let problems = check_pages(&known, &[page], true);
    assert!(
        problems.is_empty(),
        "{} names in ARCHITECTURE.md that the crate does not have:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The crates' own `//!` docs (`lib.rs`): their feature tables list every feature.
#[test]
fn the_crate_docs_feature_tables_list_every_feature() {
    let known = Known::read();
    let mut problems = Problems::default();
    for file in ["src/lib.rs", "crates/viewshed_core/src/lib.rs"] {
        let docs: Vec<String> = read(file)
            .lines()
            .map(|line| {
                line.trim_start()
                    .strip_prefix("//!")
                    .map(|d| d.trim_start().to_string())
                    .unwrap_or_default()
            })
            .collect();
        let mut check = PageCheck {
            known: &known,
            page: file,
            problems: &mut problems,
            private_ok: false,
        };
        let mut table: Option<Table> = None;
        for (index, line) in docs.iter().enumerate() {
            if line.starts_with('|') {
                match &mut table {
                    Some(t) => t.rows.push((index + 1, line.clone())),
                    None => {
                        table = Some(Table {
                            header: line.clone(),
                            rows: Vec::new(),
                            line: index + 1,
                        })
                    }
                }
            } else if let Some(t) = table.take() {
                check.check_table(&t);
            }
        }
    }
    let problems = problems.list();
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The checks fail on planted errors: a copy of the README, as a string, with a made-up name
/// of each kind added (the real page is not touched).
#[test]
fn planted_wrong_names_fail_with_page_line_and_name() {
    let known = Known::read();
    let readme = read("README.md");
    let base = readme.lines().count();
    let planted = format!(
        "{readme}\n\
         Add `FogStyle::sparkle()` and `FogOfWarMachine` to the map.\n\
         It runs in `ViewshedStepSystems::Maps`, in the `Teleport` step.\n\
         Add `MapsPlugin`, or `bevy_viewshed::fog::FogOfWar::nothing_here`.\n\
         With the `sparkles` feature, or `cargo run --features render,glitter`.\n\
         `bevy_viewshed = {{ version = \"0.1\", features = [\"confetti\"] }}`\n\
         `Viewshed::new(8).with_telepathy(3)` and `LayerOf {{ nowhere: root }}`.\n\
         \n\
         | feature | default | what it does |\n\
         |---|---|---|\n\
         | `render` | no | drawing |\n\
         \n\
         | component | what |\n\
         |---|---|\n\
         | `MapOpacity` | `grid()`, `opaque_entities_at(TilePos)` |\n\
         See `src/change_ticks.rs`.\n\
         \n\
         ```rust\n\
         use bevy_viewshed::{{Viewshed, NoSuchThing}};\n\
         let cone = VisionCone::wider(90.0);\n\
         ```\n"
    );
    let problems = check_pages(&known, &[("README.md".to_string(), planted)], false);
    let expect = |line: usize, needle: &str| {
        let prefix = format!("README.md:{}: ", base + line);
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with(&prefix) && p.contains(needle)),
            "no problem at {prefix} naming {needle}; found:\n{}",
            problems.join("\n")
        );
    };
    expect(2, "`FogStyle` has no member `sparkle`");
    expect(2, "`FogOfWarMachine`");
    expect(3, "`ViewshedStepSystems` has no member `Maps`");
    expect(3, "`Teleport`");
    expect(4, "`MapsPlugin`");
    expect(4, "has no member `nothing_here`");
    expect(5, "feature `sparkles`");
    expect(5, "feature `glitter`");
    expect(6, "feature `confetti`");
    expect(7, "no method `with_telepathy`");
    expect(7, "no public field `nowhere`");
    expect(9, "lacks feature `serde`");
    expect(11, "default \"no\"");
    expect(15, "`MapOpacity` has no member `opaque_entities_at`");
    expect(16, "`src/change_ticks.rs`: no such file");
    expect(19, "`NoSuchThing`");
    expect(20, "`VisionCone` has no member `wider`");
}

/// The checks pass what is right: real names of every kind, external names, file names and
/// flags, and other crates' features.
#[test]
fn right_names_pass() {
    let known = Known::read();
    let page = "Add `Viewshed::new(8).with_cone(VisionCone::degrees(0.0, 90.0))` and `FogStyle::default()`.\n\
        The `Fog` step runs `ViewshedStepSystems::Fog`; `LayerOf(root)`, `TilePos`, `Cargo.toml`, `wasm-opt -Oz`.\n\
        `bevy_viewshed::ldtk::LdtkViewshedPlugin` with the `ldtk` feature (features `render`, `serde`).\n\
        lightyear without its `prediction` feature; bevy_ecs_tiled's `user_properties` feature.\n\
        `HexCoords::{Row, ColumnOdd}`, `Visible`, `Vec<Point>`, `Err(ParseError)`, `src/support/change_ticks.rs`.\n\
        \n\
        | component | what |\n\
        |---|---|\n\
        | `Viewshed` | `is_visible(TilePos)`, `iter()`, `field_of_view(..)` in the core |\n";
    let problems = check_pages(
        &known,
        &[("docs/test.md".to_string(), page.to_string())],
        false,
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
