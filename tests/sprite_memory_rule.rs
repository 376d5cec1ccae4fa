#![cfg(feature = "render")]
//! The rule for sprites under the fog (`FogSprite::Remembered`), as `docs/smooth_fog.md`
//! writes it ("Sprites under the fog: `FogSprite`", "The rule, frame by frame"), held against
//! a plain model of it after every update.
//!
//! The model keeps, per team, what the team knows of each sprite: the tile, place and look
//! of the last frame in which it saw it, and whether it sees it now. It is written only from
//! what the test itself did (where each sprite stands, how it looks, what the game did to the
//! fog) and from which tiles each team sees after each update (read from the `FogOfWar`: the
//! fog has tests of its own). From it the test predicts, for each team, the map's
//! `SpriteMemory`, and for the team each map draws, each sprite's `Visibility` and the
//! `FogSpriteStandIn` entities drawn with their places and (tinted) colours.
//!
//! Random games on square, isometric (diamond) and hexagonal maps apply several changes in one
//! frame: viewers of two teams walk and jump, sprites (placed by `TilePos`, by `Transform`, or
//! drawn by their children) are recoloured, spawned, despawned and moved, the game takes
//! `&mut FogOfWar` without changing it, forgets (`forget_all`, `set_explored(tile, false)`),
//! explores (`explore_all`), and switches the team drawn (`DrawnTeam`, `DrawnTeamOverride`).
//! `PROPTEST_CASES` sets how many games run (64 by default).

mod common_app;

use std::collections::{BTreeMap, BTreeSet};

use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{
    DrawnTeam, DrawnTeamOverride, FogSpriteStandIn, RememberedSprite, SpriteMemory, Team,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// The sprites' colours, told apart after the remembered tint whichever way it multiplies.
const PALETTE: [(f32, f32, f32); 6] = [
    (1.0, 0.2, 0.2),
    (0.2, 1.0, 0.2),
    (0.2, 0.2, 1.0),
    (1.0, 1.0, 0.2),
    (1.0, 1.0, 1.0),
    (0.6, 0.3, 0.9),
];

/// Where the two children of a sprite drawn by its children stand, relative to it.
const CHILD_OFFSETS: [Vec3; 2] = [Vec3::new(-4.0, 3.0, 0.1), Vec3::new(4.0, -3.0, 0.2)];

/// The map's place in the world (so that a `Transform`-placed sprite is read against it).
const MAP_ORIGIN: Vec3 = Vec3::new(40.0, -24.0, 0.0);

const TEAMS: usize = 2;

fn colour(index: usize) -> Color {
    let (r, g, b) = PALETTE[index];
    Color::srgb(r, g, b)
}

/// The colours a palette colour may take once tinted by `FogSprite::remembered_tint()`: the
/// product in sRGB components, or in linear ones (the docs say "tinted", not in which space).
fn tinted(index: usize) -> [Srgba; 2] {
    let (p, k) = (
        colour(index).to_srgba(),
        FogSprite::remembered_tint().to_srgba(),
    );
    let srgb = Srgba::new(
        p.red * k.red,
        p.green * k.green,
        p.blue * k.blue,
        p.alpha * k.alpha,
    );
    let (p, k) = (
        colour(index).to_linear(),
        FogSprite::remembered_tint().to_linear(),
    );
    let linear = LinearRgba::new(
        p.red * k.red,
        p.green * k.green,
        p.blue * k.blue,
        p.alpha * k.alpha,
    );
    [srgb, Srgba::from(linear)]
}

fn close(a: Srgba, b: Srgba, tolerance: f32) -> bool {
    (a.red - b.red).abs() <= tolerance
        && (a.green - b.green).abs() <= tolerance
        && (a.blue - b.blue).abs() <= tolerance
        && (a.alpha - b.alpha).abs() <= tolerance
}

/// Which palette colour `actual` is, untinted.
fn which_colour(actual: Color) -> Option<usize> {
    (0..PALETTE.len()).find(|&i| close(actual.to_srgba(), colour(i).to_srgba(), 1e-4))
}

/// Which palette colour `actual` is, tinted by the remembered tint.
fn which_tinted(actual: Color) -> Option<usize> {
    (0..PALETTE.len()).find(|&i| tinted(i).iter().any(|&t| close(actual.to_srgba(), t, 2e-3)))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Grid {
    Square,
    Diamond,
    Hex,
}

/// A map's geometry, for the tiles' centres in the world.
#[derive(Clone, Copy, Debug)]
struct Geometry {
    size: TilemapSize,
    grid_size: TilemapGridSize,
    tile_size: TilemapTileSize,
    kind: TilemapType,
    anchor: TilemapAnchor,
}

impl Geometry {
    fn new(grid: Grid, width: u32, height: u32) -> Self {
        let (kind, w, h) = match grid {
            Grid::Square => (TilemapType::Square, 16.0, 16.0),
            Grid::Diamond => (TilemapType::Isometric(IsoCoordSystem::Diamond), 32.0, 16.0),
            Grid::Hex => (TilemapType::Hexagon(HexCoordSystem::Row), 16.0, 16.0),
        };
        Geometry {
            size: TilemapSize::new(width, height),
            grid_size: TilemapGridSize::new(w, h),
            tile_size: TilemapTileSize::new(w, h),
            kind,
            anchor: TilemapAnchor::Center,
        }
    }

    /// The centre of `tile` in the world, a little above the map.
    fn centre(&self, tile: TilePos) -> Vec3 {
        let local = tile.center_in_world(
            &self.size,
            &self.grid_size,
            &self.tile_size,
            &self.kind,
            &self.anchor,
        );
        MAP_ORIGIN + local.extend(1.0)
    }

    /// The tile under a world position, by bevy_ecs_tilemap's own helper.
    fn tile_at(&self, place: Vec3) -> Option<TilePos> {
        TilePos::from_world_pos(
            &(place - MAP_ORIGIN).truncate(),
            &self.size,
            &self.grid_size,
            &self.tile_size,
            &self.kind,
            &self.anchor,
        )
    }

    fn tile(&self, x: u32, y: u32) -> TilePos {
        TilePos {
            x: x % self.size.x,
            y: y % self.size.y,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Placing {
    /// `TilePos` + `TilemapId` (and a `Transform` at the tile's centre).
    TilePos,
    /// `Transform` + `TilemapId` only.
    Transform,
}

/// A sprite to spawn: how it is placed, whether its look is its two children's sprites (it
/// has no `Sprite` of its own), where (taken modulo the map's size) and its colour (the
/// second child takes the next one).
#[derive(Clone, Copy, Debug)]
struct SpriteSpec {
    placing: Placing,
    parent: bool,
    x: u32,
    y: u32,
    colour: usize,
}

/// Where an operation acts: a tile, or the tile of a living sprite (by index, modulo).
#[derive(Clone, Copy, Debug)]
enum Target {
    Tile(u32, u32),
    Sprite(usize),
}

#[derive(Clone, Copy, Debug)]
enum Op {
    /// A viewer jumps to a tile.
    Jump {
        team: usize,
        x: u32,
        y: u32,
    },
    /// A viewer steps to a neighbouring tile.
    Step {
        team: usize,
        dx: i32,
        dy: i32,
    },
    /// A sprite (or one of its children) changes colour.
    Recolour {
        sprite: usize,
        child: usize,
        colour: usize,
    },
    Spawn {
        spec: SpriteSpec,
        at: Target,
    },
    Despawn {
        sprite: usize,
    },
    MoveSprite {
        sprite: usize,
        x: u32,
        y: u32,
    },
    /// `&mut FogOfWar` taken without a change (`into_inner`, or `set_changed`).
    TouchFog {
        set_changed: bool,
    },
    ForgetAll {
        team: usize,
    },
    ExploreAll {
        team: usize,
    },
    Unexplore {
        team: usize,
        at: Target,
    },
    DrawTeam {
        team: usize,
    },
    /// Inserts a `DrawnTeamOverride` on the map, or removes it.
    Override {
        team: Option<usize>,
    },
}

/// A sprite alive in the game, as the test made it.
#[derive(Clone, Debug)]
struct Live {
    entity: Entity,
    placing: Placing,
    tile: TilePos,
    children: Vec<Entity>,
    /// Its own colour, or its children's.
    colours: Vec<usize>,
}

/// What a team saw of a sprite in one frame: its tile, its place in the world and its
/// sprites (offset from it, palette colour).
#[derive(Clone, Debug, PartialEq)]
struct Record {
    tile: TilePos,
    place: Vec3,
    looks: Vec<(Vec3, usize)>,
}

/// What a team knows of a sprite: what it saw the last frame it saw it, and whether that
/// frame is this one.
#[derive(Clone, Debug)]
struct Known {
    seen_now: bool,
    record: Record,
}

struct Sim {
    app: App,
    map: Entity,
    geo: Geometry,
    viewers: [Entity; TEAMS],
    sprites: Vec<Live>,
    /// Every sprite entity ever spawned.
    every: BTreeSet<Entity>,
    /// Per team: the model.
    known: [BTreeMap<Entity, Known>; TEAMS],
    drawn: usize,
    drawn_override: Option<usize>,
    frame: usize,
}

impl Sim {
    fn new(
        grid: Grid,
        width: u32,
        height: u32,
        walls: &[(u32, u32)],
        viewers: [(u32, u32, u32); TEAMS],
    ) -> Self {
        let geo = Geometry::new(grid, width, height);
        let walls: BTreeSet<TilePos> = walls.iter().map(|&(x, y)| geo.tile(x, y)).collect();
        let mut app = common_app::app();
        let map = common_app::spawn_map(&mut app, width, height, |x, y| {
            walls.contains(&TilePos { x, y })
        });
        let origin = Transform::from_translation(MAP_ORIGIN);
        app.world_mut().entity_mut(map).insert((
            geo.grid_size,
            geo.tile_size,
            geo.kind,
            geo.anchor,
            origin,
            GlobalTransform::from(origin),
            FogStyle::default(),
        ));
        // The test's own geometry: each tile's centre is found on that tile again.
        for x in 0..width {
            for y in 0..height {
                let tile = TilePos { x, y };
                assert_eq!(geo.tile_at(geo.centre(tile)), Some(tile), "{grid:?}");
            }
        }
        let viewers = std::array::from_fn(|team| {
            let (x, y, radius) = viewers[team];
            app.world_mut()
                .spawn((
                    Viewshed::new(radius),
                    RevealsFog,
                    Team(team as u32),
                    geo.tile(x, y),
                    TilemapId(map),
                ))
                .id()
        });
        Sim {
            app,
            map,
            geo,
            viewers,
            sprites: Vec::new(),
            every: BTreeSet::new(),
            known: Default::default(),
            drawn: 0,
            drawn_override: None,
            frame: 0,
        }
    }

    fn record(&self, live: &Live) -> Record {
        let looks = if live.children.is_empty() {
            vec![(Vec3::ZERO, live.colours[0])]
        } else {
            CHILD_OFFSETS
                .iter()
                .copied()
                .zip(live.colours.iter().copied())
                .collect()
        };
        Record {
            tile: live.tile,
            place: self.geo.centre(live.tile),
            looks,
        }
    }

    fn target(&self, at: Target) -> Option<TilePos> {
        match at {
            Target::Tile(x, y) => Some(self.geo.tile(x, y)),
            Target::Sprite(i) => {
                (!self.sprites.is_empty()).then(|| self.sprites[i % self.sprites.len()].tile)
            }
        }
    }

    fn spawn(&mut self, spec: SpriteSpec, tile: TilePos) -> Entity {
        let place = Transform::from_translation(self.geo.centre(tile));
        let world = self.app.world_mut();
        let mut sprite = world.spawn((
            FogSprite::Remembered,
            TilemapId(self.map),
            place,
            GlobalTransform::from(place),
        ));
        if spec.placing == Placing::TilePos {
            sprite.insert(tile);
        }
        let colours = if spec.parent {
            vec![spec.colour, (spec.colour + 1) % PALETTE.len()]
        } else {
            sprite.insert(Sprite {
                color: colour(spec.colour),
                ..default()
            });
            vec![spec.colour]
        };
        let entity = sprite.id();
        let mut children = Vec::new();
        if spec.parent {
            for (offset, &c) in CHILD_OFFSETS.iter().zip(&colours) {
                let local = Transform::from_translation(*offset);
                let child = world.spawn((
                    Sprite {
                        color: colour(c),
                        ..default()
                    },
                    local,
                    GlobalTransform::from(place).mul_transform(local),
                    ChildOf(entity),
                ));
                children.push(child.id());
            }
        }
        self.sprites.push(Live {
            entity,
            placing: spec.placing,
            tile,
            children,
            colours,
        });
        self.every.insert(entity);
        entity
    }

    fn move_sprite(&mut self, index: usize, tile: TilePos) {
        let live = &mut self.sprites[index];
        live.tile = tile;
        let place = Transform::from_translation(self.geo.centre(tile));
        let world = self.app.world_mut();
        let mut sprite = world.entity_mut(live.entity);
        sprite.insert((place, GlobalTransform::from(place)));
        if live.placing == Placing::TilePos {
            sprite.insert(tile);
        }
        for (child, offset) in live.children.iter().zip(CHILD_OFFSETS) {
            let local = Transform::from_translation(offset);
            world
                .entity_mut(*child)
                .insert(GlobalTransform::from(place).mul_transform(local));
        }
    }

    /// Whether `team` sees `tile` as of the last update.
    fn sees(&self, team: usize, tile: TilePos) -> bool {
        self.app
            .world()
            .get::<FogOfWar>(self.map)
            .and_then(|fog| fog.team(Team(team as u32)))
            .is_some_and(|fog| fog.is_visible(tile))
    }

    fn has_fog(&self) -> bool {
        self.app.world().get::<FogOfWar>(self.map).is_some()
    }

    fn fog_mut(&mut self) -> Mut<'_, FogOfWar> {
        self.app
            .world_mut()
            .get_mut::<FogOfWar>(self.map)
            .expect("the map has a FogOfWar")
    }

    fn apply(&mut self, op: Op) {
        let size = self.geo.size;
        match op {
            Op::Jump { team, x, y } => {
                let tile = self.geo.tile(x, y);
                self.app
                    .world_mut()
                    .entity_mut(self.viewers[team])
                    .insert(tile);
            }
            Op::Step { team, dx, dy } => {
                let viewer = self.viewers[team];
                let mut tile = self.app.world_mut().get_mut::<TilePos>(viewer).unwrap();
                let x = tile.x.saturating_add_signed(dx).min(size.x - 1);
                let y = tile.y.saturating_add_signed(dy).min(size.y - 1);
                if (x, y) != (tile.x, tile.y) {
                    *tile = TilePos { x, y };
                }
            }
            Op::Recolour {
                sprite,
                child,
                colour: c,
            } => {
                if self.sprites.is_empty() {
                    return;
                }
                let count = self.sprites.len();
                let live = &mut self.sprites[sprite % count];
                let (entity, slot) = if live.children.is_empty() {
                    (live.entity, 0)
                } else {
                    let i = child % live.children.len();
                    (live.children[i], i)
                };
                live.colours[slot] = c;
                self.app
                    .world_mut()
                    .get_mut::<Sprite>(entity)
                    .unwrap()
                    .color = colour(c);
            }
            Op::Spawn { spec, at } => {
                let tile = self
                    .target(at)
                    .unwrap_or_else(|| self.geo.tile(spec.x, spec.y));
                self.spawn(spec, tile);
            }
            Op::Despawn { sprite } => {
                if self.sprites.is_empty() {
                    return;
                }
                let live = self.sprites.remove(sprite % self.sprites.len());
                self.app.world_mut().entity_mut(live.entity).despawn();
            }
            Op::MoveSprite { sprite, x, y } => {
                if self.sprites.is_empty() {
                    return;
                }
                let tile = self.geo.tile(x, y);
                self.move_sprite(sprite % self.sprites.len(), tile);
            }
            Op::TouchFog { set_changed } => {
                if !self.has_fog() {
                    return;
                }
                let mut fog = self.fog_mut();
                if set_changed {
                    fog.set_changed();
                } else {
                    fog.into_inner();
                }
            }
            Op::ForgetAll { team } => {
                if !self.has_fog() {
                    return;
                }
                // The team forgets every tile it does not see now (as of the last update),
                // and every sprite it knows there.
                let forgotten: Vec<Entity> = self.known[team]
                    .iter()
                    .filter(|(_, known)| !self.sees(team, known.record.tile))
                    .map(|(&e, _)| e)
                    .collect();
                for e in forgotten {
                    self.known[team].remove(&e);
                }
                self.fog_mut().team_mut(Team(team as u32)).forget_all();
            }
            Op::ExploreAll { team } => {
                if !self.has_fog() {
                    return;
                }
                self.fog_mut().team_mut(Team(team as u32)).explore_all();
            }
            Op::Unexplore { team, at } => {
                if !self.has_fog() {
                    return;
                }
                let Some(tile) = self.target(at) else { return };
                // A tile seen now stays explored (`TeamFog::set_explored`): nothing is
                // forgotten then.
                if !self.sees(team, tile) {
                    self.known[team].retain(|_, known| known.record.tile != tile);
                }
                self.fog_mut()
                    .team_mut(Team(team as u32))
                    .set_explored(tile, false);
            }
            Op::DrawTeam { team } => {
                self.drawn = team;
                self.app
                    .world_mut()
                    .insert_resource(DrawnTeam(Team(team as u32)));
            }
            Op::Override { team } => {
                self.drawn_override = team;
                let mut map = self.app.world_mut().entity_mut(self.map);
                match team {
                    Some(team) => {
                        map.insert(DrawnTeamOverride(Team(team as u32)));
                    }
                    None => {
                        map.remove::<DrawnTeamOverride>();
                    }
                }
            }
        }
    }

    /// The model's step after an update: what each team sees of each sprite in this frame.
    fn observe(&mut self) {
        for team in 0..TEAMS {
            let mut seen = BTreeSet::new();
            for i in 0..self.sprites.len() {
                let live = &self.sprites[i];
                if self.sees(team, live.tile) {
                    let record = self.record(live);
                    seen.insert(live.entity);
                    self.known[team].insert(
                        live.entity,
                        Known {
                            seen_now: true,
                            record,
                        },
                    );
                }
            }
            let mut ended = Vec::new();
            for (&entity, known) in &self.known[team] {
                // Not seen in this frame: remembered as last seen, unless the team sees
                // the remembered tile now (without the sprite there).
                if !seen.contains(&entity) && self.sees(team, known.record.tile) {
                    ended.push(entity);
                }
            }
            for entity in ended {
                self.known[team].remove(&entity);
            }
            for (entity, known) in &mut self.known[team] {
                if !seen.contains(entity) {
                    known.seen_now = false;
                }
            }
        }
    }

    fn remembered(&self, team: usize) -> BTreeMap<Entity, &Record> {
        self.known[team]
            .iter()
            .filter(|(_, known)| !known.seen_now)
            .map(|(&e, known)| (e, &known.record))
            .collect()
    }

    /// One frame: the operations, in order, then one update; then the checks.
    fn frame(&mut self, ops: &[Op]) -> Result<(), String> {
        for &op in ops {
            self.apply(op);
        }
        self.app.update();
        self.observe();
        let frame = self.frame;
        self.frame += 1;
        self.check()
            .map_err(|error| format!("frame {frame} ({ops:?}): {error}"))
    }

    fn check(&mut self) -> Result<(), String> {
        let drawn = self.drawn_override.unwrap_or(self.drawn);
        let world = self.app.world();
        let fog = world
            .get::<FogOfWar>(self.map)
            .ok_or("the map has no FogOfWar")?;
        if fog.drawn_team() != Team(drawn as u32) {
            return Err(format!(
                "the map draws {:?}, the test {drawn}",
                fog.drawn_team()
            ));
        }
        let drawn_fog = fog.team(Team(drawn as u32));

        // Each sprite shown where its tile is visible to the team drawn, hidden elsewhere.
        for live in &self.sprites {
            let visible = drawn_fog.is_some_and(|f| f.is_visible(live.tile));
            let visibility = world.get::<Visibility>(live.entity);
            if (visibility != Some(&Visibility::Hidden)) != visible {
                return Err(format!(
                    "sprite {} on {:?}: Visibility {visibility:?}, its tile is {}visible to team {drawn}",
                    live.entity,
                    live.tile,
                    if visible { "" } else { "not " }
                ));
            }
            let parts = if live.children.is_empty() {
                vec![live.entity]
            } else {
                live.children.clone()
            };
            for part in parts {
                if shown(world, part) != visible {
                    return Err(format!(
                        "sprite {} on {:?}: its sprite {part} is {}shown, its tile is {}visible to team {drawn}",
                        live.entity,
                        live.tile,
                        if visible { "not " } else { "" },
                        if visible { "" } else { "not " }
                    ));
                }
            }
        }

        // Each team's `SpriteMemory`: exactly what the model says it remembers.
        let memory = world
            .get::<SpriteMemory>(self.map)
            .ok_or("the map has no SpriteMemory")?;
        for team in 0..TEAMS {
            let expected = self.remembered(team);
            let actual: BTreeMap<Entity, &RememberedSprite> =
                memory.remembered_sprites(Team(team as u32)).collect();
            let (want, got): (BTreeSet<_>, BTreeSet<_>) =
                (expected.keys().collect(), actual.keys().collect());
            if want != got {
                return Err(format!(
                    "team {team} remembers {got:?}, the rule says {want:?} ({})",
                    self.describe(team)
                ));
            }
            for &entity in &self.every {
                let remembered = memory.remembered(Team(team as u32), entity);
                if remembered.is_some() != expected.contains_key(&entity) {
                    return Err(format!(
                        "remembered(team {team}, {entity}) is {remembered:?}, the rule says {:?}",
                        expected.get(&entity)
                    ));
                }
            }
            for (entity, record) in &expected {
                let sprite = actual[entity];
                if sprite.tile != record.tile
                    || !sprite.transform.translation.abs_diff_eq(record.place, 1e-3)
                {
                    return Err(format!(
                        "team {team} remembers {entity} on {:?} at {}, the rule says on {:?} at {}",
                        sprite.tile, sprite.transform.translation, record.tile, record.place
                    ));
                }
                let looks: Vec<(Vec3, Option<usize>)> = sprite
                    .looks
                    .iter()
                    .map(|look| (look.offset.translation, which_colour(look.color)))
                    .collect();
                let want: Vec<(Vec3, Option<usize>)> =
                    record.looks.iter().map(|&(o, c)| (o, Some(c))).collect();
                if !same_sprites(&looks, &want) {
                    return Err(format!(
                        "team {team} remembers {entity} with the looks (offset, colour) {looks:?}, the rule says {want:?}"
                    ));
                }
            }
        }

        // The stand-ins: the remembered sprites of the team drawn, on explored tiles, each at
        // its remembered place in its remembered colours, tinted; nothing else shown.
        let mut expected: BTreeMap<Entity, Vec<(Vec3, Option<usize>)>> = BTreeMap::new();
        for (entity, record) in self.remembered(drawn) {
            if drawn_fog.is_some_and(|f| f.is_explored(record.tile)) {
                let looks = record
                    .looks
                    .iter()
                    .map(|&(offset, c)| (record.place + offset, Some(c)))
                    .collect();
                expected.insert(entity, looks);
            }
        }
        let actual = self.stand_ins();
        let (want, got): (BTreeSet<_>, BTreeSet<_>) =
            (expected.keys().collect(), actual.keys().collect());
        if want != got {
            return Err(format!(
                "stand-ins shown for {got:?}, the rule says for {want:?} (team {drawn} drawn; {})",
                self.describe(drawn)
            ));
        }
        for (entity, want) in &expected {
            let got = &actual[entity];
            if !same_sprites(got, want) {
                return Err(format!(
                    "the stand-in of {entity} shows (place, colour tinted) {got:?}, the rule says {want:?}"
                ));
            }
        }
        Ok(())
    }

    /// The shown sprites of every `FogSpriteStandIn`, by the entity it stands in for: their
    /// places in the world and their palette colours once tinted (`None` for another colour).
    fn stand_ins(&mut self) -> BTreeMap<Entity, Vec<(Vec3, Option<usize>)>> {
        let world = self.app.world_mut();
        let stand_ins: Vec<(Entity, Entity)> = world
            .query::<(Entity, &FogSpriteStandIn)>()
            .iter(world)
            .map(|(e, s)| (e, s.0))
            .collect();
        let world = self.app.world();
        let mut drawn: BTreeMap<Entity, Vec<(Vec3, Option<usize>)>> = BTreeMap::new();
        for (stand_in, entity) in stand_ins {
            let mut stack = vec![stand_in];
            while let Some(e) = stack.pop() {
                if let Some(children) = world.get::<Children>(e) {
                    stack.extend(children.iter());
                }
                let Some(sprite) = world.get::<Sprite>(e) else {
                    continue;
                };
                if shown(world, e) {
                    let place = world_transform(world, e).translation();
                    drawn
                        .entry(entity)
                        .or_default()
                        .push((place, which_tinted(sprite.color)));
                }
            }
        }
        drawn
    }

    fn describe(&self, team: usize) -> String {
        let sprites: Vec<String> = self
            .sprites
            .iter()
            .map(|l| {
                format!(
                    "{} on ({}, {}) {:?}",
                    l.entity, l.tile.x, l.tile.y, l.colours
                )
            })
            .collect();
        let known: Vec<String> = self.known[team]
            .iter()
            .map(|(e, k)| {
                format!(
                    "{e}: {} ({}, {}) {:?}",
                    if k.seen_now { "seen" } else { "remembered" },
                    k.record.tile.x,
                    k.record.tile.y,
                    k.record.looks.iter().map(|l| l.1).collect::<Vec<_>>()
                )
            })
            .collect();
        format!(
            "sprites: [{}]; team {team} knows [{}]",
            sprites.join(", "),
            known.join(", ")
        )
    }
}

/// Whether two lists of (place, colour) hold the same sprites, in any order.
fn same_sprites(a: &[(Vec3, Option<usize>)], b: &[(Vec3, Option<usize>)]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut left: Vec<_> = b.to_vec();
    for (place, colour) in a {
        match left
            .iter()
            .position(|(p, c)| c == colour && p.abs_diff_eq(*place, 1e-3))
        {
            Some(i) => {
                left.swap_remove(i);
            }
            None => return false,
        }
    }
    true
}

/// Whether `entity` is drawn, by Bevy's rule: hidden by a `Hidden` on itself or on an
/// ancestor it inherits from.
fn shown(world: &World, mut entity: Entity) -> bool {
    loop {
        match world.get::<Visibility>(entity) {
            Some(Visibility::Hidden) => return false,
            Some(Visibility::Visible) => return true,
            _ => {}
        }
        match world.get::<ChildOf>(entity) {
            Some(parent) => entity = parent.parent(),
            None => return true,
        }
    }
}

/// Where transform propagation puts `entity` (the app has no `TransformPlugin`).
fn world_transform(world: &World, entity: Entity) -> GlobalTransform {
    let local = world.get::<Transform>(entity).copied().unwrap_or_default();
    match world.get::<ChildOf>(entity) {
        Some(parent) => world_transform(world, parent.parent()).mul_transform(local),
        None => GlobalTransform::from(local),
    }
}

// --- The random games ---------------------------------------------------------------------

#[derive(Clone, Debug)]
struct Case {
    grid: Grid,
    width: u32,
    height: u32,
    walls: Vec<(u32, u32)>,
    viewers: [(u32, u32, u32); TEAMS],
    sprites: Vec<SpriteSpec>,
    frames: Vec<Vec<Op>>,
}

fn spec() -> impl Strategy<Value = SpriteSpec> {
    (
        prop_oneof![Just(Placing::TilePos), Just(Placing::Transform)],
        prop::bool::weighted(0.3),
        0..14u32,
        0..8u32,
        0..PALETTE.len(),
    )
        .prop_map(|(placing, parent, x, y, colour)| SpriteSpec {
            placing,
            parent,
            x,
            y,
            colour,
        })
}

fn target() -> impl Strategy<Value = Target> {
    prop_oneof![
        (0..14u32, 0..8u32).prop_map(|(x, y)| Target::Tile(x, y)),
        (0..8usize).prop_map(Target::Sprite),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let team = || 0..TEAMS;
    let sprite = || 0..8usize;
    prop_oneof![
        4 => (team(), 0..14u32, 0..8u32).prop_map(|(team, x, y)| Op::Jump { team, x, y }),
        3 => (team(), -1..=1i32, -1..=1i32).prop_map(|(team, dx, dy)| Op::Step { team, dx, dy }),
        4 => (sprite(), 0..2usize, 0..PALETTE.len())
            .prop_map(|(sprite, child, colour)| Op::Recolour { sprite, child, colour }),
        2 => (spec(), prop::option::weighted(0.5, sprite()))
            .prop_map(|(spec, on)| Op::Spawn {
                spec,
                at: on.map_or(Target::Tile(spec.x, spec.y), Target::Sprite),
            }),
        2 => sprite().prop_map(|sprite| Op::Despawn { sprite }),
        2 => (sprite(), 0..14u32, 0..8u32).prop_map(|(sprite, x, y)| Op::MoveSprite { sprite, x, y }),
        3 => any::<bool>().prop_map(|set_changed| Op::TouchFog { set_changed }),
        1 => team().prop_map(|team| Op::ForgetAll { team }),
        1 => team().prop_map(|team| Op::ExploreAll { team }),
        2 => (team(), target()).prop_map(|(team, at)| Op::Unexplore { team, at }),
        1 => team().prop_map(|team| Op::DrawTeam { team }),
        1 => prop::option::of(team()).prop_map(|team| Op::Override { team }),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop_oneof![Just(Grid::Square), Just(Grid::Diamond), Just(Grid::Hex)],
        10..=14u32,
        6..=8u32,
        prop::collection::vec((0..14u32, 0..8u32), 0..7),
        [(0..14u32, 0..8u32, 2..=5u32), (0..14u32, 0..8u32, 2..=5u32)],
        prop::collection::vec(spec(), 1..6),
        prop::collection::vec(prop::collection::vec(op(), 0..5), 1..20),
    )
        .prop_map(
            |(grid, width, height, walls, viewers, sprites, frames)| Case {
                grid,
                width,
                height,
                walls,
                viewers,
                sprites,
                frames,
            },
        )
}

fn play(case: &Case) -> Result<(), String> {
    let mut sim = Sim::new(
        case.grid,
        case.width,
        case.height,
        &case.walls,
        case.viewers,
    );
    for &spec in &case.sprites {
        let tile = sim.geo.tile(spec.x, spec.y);
        sim.spawn(spec, tile);
    }
    for ops in &case.frames {
        sim.frame(ops)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(common_app::model_config())]

    #[test]
    fn sprites_under_the_fog_follow_the_documented_rule(case in case()) {
        play(&case).map_err(TestCaseError::fail)?;
    }
}

// --- The documented examples, frame by frame ------------------------------------------------

/// A corridor 20x3 (walls at `y == 0` and `y == 2`), team 0's player at (7, 1) seeing 4 tiles
/// (up to x = 11), team 1's viewer at the far end seeing only (18..=19, 1).
fn corridor() -> Sim {
    let walls: Vec<(u32, u32)> = (0..20).flat_map(|x| [(x, 0), (x, 2)]).collect();
    Sim::new(Grid::Square, 20, 3, &walls, [(7, 1, 4), (19, 1, 2)])
}

fn sprite_at(x: u32, colour: usize) -> SpriteSpec {
    SpriteSpec {
        placing: Placing::TilePos,
        parent: false,
        x,
        y: 1,
        colour,
    }
}

const AWAY: Op = Op::Jump {
    team: 0,
    x: 2,
    y: 1,
};
const BACK: Op = Op::Jump {
    team: 0,
    x: 7,
    y: 1,
};

fn state(sim: &Sim, x: u32) -> FogState {
    let fog = sim.app.world().get::<FogOfWar>(sim.map).unwrap();
    fog.team(Team(0)).unwrap().state(TilePos { x, y: 1 })
}

fn memory_of(sim: &Sim, entity: Entity) -> Option<RememberedSprite> {
    sim.app
        .world()
        .get::<SpriteMemory>(sim.map)
        .unwrap()
        .remembered(Team(0), entity)
        .cloned()
}

fn run(sim: &mut Sim, ops: &[Op]) {
    if let Err(error) = sim.frame(ops) {
        panic!("{error}");
    }
}

#[test]
fn a_tile_that_leaves_view_while_the_fog_is_taken_mutably_keeps_its_sprite() {
    let mut sim = corridor();
    let chest = sim.spawn(sprite_at(10, 0), TilePos { x: 10, y: 1 });
    run(&mut sim, &[]);
    assert_eq!(state(&sim, 10), FogState::Visible);
    // One frame: the player steps away and the game takes `&mut FogOfWar`, changing nothing.
    run(&mut sim, &[AWAY, Op::TouchFog { set_changed: false }]);
    assert_eq!(state(&sim, 10), FogState::Remembered);
    assert_eq!(
        memory_of(&sim, chest).map(|m| m.tile),
        Some(TilePos { x: 10, y: 1 })
    );
    assert!(sim.stand_ins().contains_key(&chest));
    assert_eq!(
        sim.app.world().get::<Visibility>(chest),
        Some(&Visibility::Hidden)
    );
}

#[test]
fn what_happens_in_the_frame_the_player_steps_away_is_not_seen() {
    let mut sim = corridor();
    let door = sim.spawn(sprite_at(10, 0), TilePos { x: 10, y: 1 });
    let chest = sim.spawn(sprite_at(9, 1), TilePos { x: 9, y: 1 });
    run(&mut sim, &[]);
    // One frame: the player steps away; the door turns blue, the chest is taken, a sprite
    // is dropped on the door's tile.
    run(
        &mut sim,
        &[
            AWAY,
            Op::Recolour {
                sprite: 0,
                child: 0,
                colour: 2,
            },
            Op::Despawn { sprite: 1 },
            Op::Spawn {
                spec: sprite_at(10, 3),
                at: Target::Tile(10, 1),
            },
        ],
    );
    let dropped = sim.sprites.last().unwrap().entity;
    assert_eq!(state(&sim, 10), FogState::Remembered);
    let door_memory = memory_of(&sim, door).expect("the door is remembered");
    assert_eq!(
        which_colour(door_memory.looks[0].color),
        Some(0),
        "as it was"
    );
    assert!(
        memory_of(&sim, chest).is_some(),
        "the chest taken is remembered"
    );
    assert!(
        memory_of(&sim, dropped).is_none(),
        "the sprite dropped is not"
    );
    let drawn = sim.stand_ins();
    assert_eq!(drawn.get(&door).map(|d| d[0].1), Some(Some(0)));
    assert!(drawn.contains_key(&chest));
    assert!(!drawn.contains_key(&dropped));
    // Back: the door is seen blue, the chest seen gone, the dropped sprite seen.
    run(&mut sim, &[BACK]);
    assert!(memory_of(&sim, door).is_none() && memory_of(&sim, chest).is_none());
    assert!(sim.stand_ins().is_empty());

    // The same with the map's only sprite: taken in the frame the player steps away, it is
    // remembered all the same.
    let mut sim = corridor();
    let chest = sim.spawn(sprite_at(10, 1), TilePos { x: 10, y: 1 });
    run(&mut sim, &[]);
    run(&mut sim, &[AWAY, Op::Despawn { sprite: 0 }]);
    assert!(memory_of(&sim, chest).is_some(), "the only chest, taken");
    assert!(sim.stand_ins().contains_key(&chest));
}

#[test]
fn a_sprite_seen_when_the_team_forgets_is_remembered_once_out_of_view() {
    let mut sim = corridor();
    let chest = sim.spawn(sprite_at(10, 4), TilePos { x: 10, y: 1 });
    run(&mut sim, &[]);
    // `forget_all` in the frame the player steps away: the chest's tile was seen now.
    run(&mut sim, &[Op::ForgetAll { team: 0 }, AWAY]);
    assert!(memory_of(&sim, chest).is_some());
    assert!(sim.stand_ins().contains_key(&chest));
    // `forget_all` while the chest is in view, the step away in the next frame.
    run(&mut sim, &[BACK]);
    run(&mut sim, &[Op::ForgetAll { team: 0 }]);
    assert!(memory_of(&sim, chest).is_none(), "seen now");
    run(&mut sim, &[AWAY]);
    assert!(memory_of(&sim, chest).is_some());
    assert!(sim.stand_ins().contains_key(&chest));
    // Forgotten once out of view: gone, and nothing stands in for it.
    run(&mut sim, &[Op::ForgetAll { team: 0 }]);
    assert!(memory_of(&sim, chest).is_none());
    assert!(sim.stand_ins().is_empty());
}
