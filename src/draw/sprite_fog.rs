//! The systems of sprites under the fog: each team's [`SpriteMemory`] kept from what the
//! teams see ([`TeamSight`]): the look of each sprite some team sees is kept as of the last
//! update that saw it (taken when a team starts seeing it, and again only when it changes while
//! seen); when a team stops seeing it, that look is what the team remembers. Then the sprites
//! are drawn for the team drawn (the entity shown where that team sees it, a
//! [`FogSpriteStandIn`] for each remembered one). A frame in which no tile changed, no sprite
//! moved and no seen sprite changed looks at no sprite but the seen ones' change ticks.

use bevy::asset::AssetServer;
use bevy::ecs::entity::EntityHashMap;
use bevy::ecs::query::QueryData;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::sprite::Anchor;

use super::smooth::SmoothFog;
use super::sprites::{
    FogSprite, FogSpriteStandIn, ImportedFog, LookAsset, RememberedSprite, SpriteLook, SpriteMemory,
};
use crate::fog::change_list::FogChanges;
use crate::fog::sight::{At, SightChange, TeamSight};
use crate::fog::{FogOfWar, Team};
use crate::layers::LayerGroup;
use crate::opacity::MapOpacity;
use crate::placement::placed::{Placed, PlacedMoves};
use crate::worlds::layout::ChunkChanges;
use bevy_ecs_tilemap::tiles::TilePos;

/// A fogged sprite, as its look is read.
#[derive(QueryData)]
pub(super) struct Fogged {
    entity: Entity,
    mode: &'static FogSprite,
    placed: &'static Placed,
    transform: Ref<'static, GlobalTransform>,
    sprite: Option<Ref<'static, Sprite>>,
    anchor: Option<Ref<'static, Anchor>>,
    children: Option<Ref<'static, Children>>,
    imported: Has<ImportedFog>,
}

impl FoggedItem<'_, '_> {
    /// Whether it is under the fog, remembered as last seen.
    fn remembered(&self) -> bool {
        *self.mode == FogSprite::Remembered
    }
}

/// A part of a fogged sprite's look: a child's sprite.
type Part = (
    Ref<'static, Sprite>,
    Option<Ref<'static, Anchor>>,
    Ref<'static, Transform>,
);

/// The fogged sprites and where they stand.
#[derive(SystemParam)]
pub(super) struct Sprites<'w, 's> {
    fogged: Query<'w, 's, Fogged>,
    parts: Query<'w, 's, Part>,
    moves: Res<'w, PlacedMoves>,
}

impl Sprites<'_, '_> {
    /// Whether `entity` is a sprite under the fog (`FogSprite::Remembered`).
    fn is_remembered(&self, entity: Entity) -> bool {
        self.fogged.get(entity).is_ok_and(|item| item.remembered())
    }

    /// How `entity` looks now, and on which map it stands, if it is a sprite under the fog.
    fn look(&self, entity: Entity) -> Option<(Entity, RememberedSprite)> {
        let item = self
            .fogged
            .get(entity)
            .ok()
            .filter(|item| item.remembered())?;
        let (map, tile) = item.placed.get()?;
        let own = (item.sprite.as_ref())
            .map(|s| SpriteLook::of(s, item.anchor.as_deref(), Transform::IDENTITY));
        let children = item.children.as_deref().into_iter().flatten();
        let parts = self.parts.iter_many(children.copied());
        let looks = own
            .into_iter()
            .chain(parts.map(|(s, a, t)| SpriteLook::of(&s, a.as_deref(), *t)));
        let sprite = RememberedSprite {
            tile,
            transform: item.transform.compute_transform(),
            looks: looks.collect(),
        };
        Some((map, sprite))
    }

    /// Whether `entity`'s look (its sprite, anchor, place or children's sprites) changed since
    /// the last update.
    fn look_changed(&self, entity: Entity) -> bool {
        let Ok(item) = self.fogged.get(entity) else {
            return false;
        };
        let own = item.transform.is_changed()
            || item.sprite.as_ref().is_some_and(Ref::is_changed)
            || item.anchor.as_ref().is_some_and(Ref::is_changed)
            || item.children.as_ref().is_some_and(Ref::is_changed);
        let children = item.children.as_deref().into_iter().flatten();
        own || self
            .parts
            .iter_many(children.copied())
            .any(|(s, a, t)| s.is_changed() || t.is_changed() || a.is_some_and(|a| a.is_changed()))
    }

    /// The fogged sprites that moved this frame.
    fn moved(&self) -> impl Iterator<Item = Entity> + '_ {
        let moves = self.moves.entities().iter().copied();
        moves.filter(|&entity| self.fogged.contains(entity))
    }
}

/// The look of each sprite under the fog that a team sees, as of the last update: what a team
/// that stops seeing it remembers. The sprites' own bookkeeping (no game names it).
#[derive(Resource, Debug, Default)]
pub(super) struct SeenLooks(EntityHashMap<(Entity, RememberedSprite)>);

/// A stand-in or a sprite under the fog.
type DrawnUnderFog = Or<(With<FogSprite>, With<FogSpriteStandIn>)>;

/// Whether anything is drawn as a sprite under the fog: a [`FogSprite`], a stand-in, a look
/// some team saw (of a sprite despawned since, which a team may still have to remember), or a
/// team's memory of one. Without any, the sprites' systems do not look at the changes of the
/// team sight (units of a server, which are findable for other reasons).
/// `replicon-fog 2000` (benches/frame_instructions.rs, one thread): 15.34M -> 14.36M
/// instructions a frame.
pub(super) fn sprites_under_fog(
    sprites: Query<(), DrawnUnderFog>,
    looks: Res<SeenLooks>,
    memories: Query<&SpriteMemory>,
) -> bool {
    !sprites.is_empty()
        || !looks.0.is_empty()
        || memories
            .iter()
            .any(|memory| memory.teams.values().any(|t| !t.is_empty()))
}

/// The maps' memories of their sprites.
type Memories<'w, 's> = Query<
    'w,
    's,
    (
        &'static FogOfWar,
        &'static MapOpacity,
        &'static mut SpriteMemory,
    ),
>;

/// Keeps each map's [`SpriteMemory`] as the rule says: a team that stops seeing a sprite
/// remembers the look it last saw, on the tile it stood on then (unless it sees that tile now,
/// without it); a team that sees it, or sees the remembered tile without it, or forgets that
/// tile, remembers nothing of it. Only the sprites whose sight changed, the seen ones whose
/// look changed, and the memories on tiles whose state changed are looked at.
pub(super) fn remember_sprites(
    mut maps: Memories,
    sprites: Sprites,
    (sight, changes, chunks): (Res<TeamSight>, Res<FogChanges>, Res<ChunkChanges>),
    mut looks: ResMut<SeenLooks>,
) {
    let looks = &mut looks.0;
    for (team, change) in sight.changes() {
        if change.was && (!change.now || change.changed_map()) {
            remember_look(&mut maps, team, change, looks);
        }
        if change.now && sprites.is_remembered(change.entity) {
            let map = change.to.map(|(map, _)| map);
            forget_sprite(&mut maps, map, team, change.entity);
        }
    }
    refresh_looks(&sprites, &sight, looks);
    for (map, changed) in changes.maps() {
        if let Ok((fog, opacity, mut memory)) = maps.get_mut(map) {
            for (team, tiles) in changed.teams() {
                let looked_at = |tile| tiles.holds(tile);
                let forgot = |tile| changed.forgot(team, tile);
                forget_on_tiles(
                    (fog, opacity),
                    (team, looked_at, forgot),
                    &sight,
                    &mut memory,
                );
            }
        }
    }
    // A chunk that came back: what lies on it is forgotten unless the world gave its tiles
    // back explored.
    for &(world, area) in chunks.areas() {
        if let Ok((fog, opacity, mut memory)) = maps.get_mut(world) {
            for (team, _) in fog.teams() {
                let looked_at = |tile: TilePos| area.contains(tile.x, tile.y);
                let forgot = |_| false;
                forget_on_tiles(
                    (fog, opacity),
                    (team, looked_at, forgot),
                    &sight,
                    &mut memory,
                );
            }
        }
    }
}

/// `team` stops seeing `change.entity` where it saw it: it remembers the look it last saw,
/// unless it sees the tile of that look now (the sprite went or moved away in its sight).
fn remember_look(
    maps: &mut Memories,
    team: Team,
    change: &SightChange,
    looks: &EntityHashMap<(Entity, RememberedSprite)>,
) {
    let Some((map, look)) = looks.get(&change.entity) else {
        return;
    };
    let Ok((fog, _, mut memory)) = maps.get_mut(*map) else {
        return;
    };
    if fog.team(team).is_some_and(|fog| fog.is_visible(look.tile)) {
        return;
    }
    let known = memory.teams.entry(team).or_default();
    known.insert(change.entity, look.clone());
}

/// `team` sees `entity` (on `map`): it remembers nothing of it.
fn forget_sprite(maps: &mut Memories, map: Option<Entity>, team: Team, entity: Entity) {
    let Some(Ok((_, _, mut memory))) = map.map(|map| maps.get_mut(map)) else {
        return;
    };
    let known = memory.bypass_change_detection().teams.get_mut(&team);
    if known.is_some_and(|known| known.remove(&entity).is_some()) {
        memory.set_changed();
    }
}

/// Takes the look of the sprites that a team started seeing, and of the seen ones whose look
/// changed or that moved; drops the looks of those no team sees any more.
fn refresh_looks(
    sprites: &Sprites,
    sight: &TeamSight,
    looks: &mut EntityHashMap<(Entity, RememberedSprite)>,
) {
    let started = sight.changes().filter(|(_, change)| change.now);
    let started = started.map(|(_, change)| change.entity);
    let changed = looks.keys().copied().filter(|&e| sprites.look_changed(e));
    let mut again: Vec<Entity> = started.chain(changed).chain(sprites.moved()).collect();
    let stopped = sight.changes().filter(|(_, change)| !change.now);
    again.extend(stopped.map(|(_, change)| change.entity));
    for entity in again {
        match sprites.look(entity) {
            Some(look) if sight.seen_by_any(entity) => looks.insert(entity, look),
            _ => looks.remove(&entity),
        };
    }
}

/// Forgets what `team` remembers on the tiles `looked_at` names (whose state changed for it,
/// or whose chunk came) that it sees now without the sprite there, or no longer remembers, or
/// `forgot` since the last update (a tile of a chunk streamed out stays remembered for the
/// chunk's return).
fn forget_on_tiles(
    (fog, opacity): (&FogOfWar, &MapOpacity),
    (team, looked_at, forgot): (Team, impl Fn(TilePos) -> bool, impl Fn(TilePos) -> bool),
    sight: &TeamSight,
    memory: &mut Mut<SpriteMemory>,
) {
    let Some(known) = memory.bypass_change_detection().teams.get_mut(&team) else {
        return;
    };
    let fog = fog.team(team);
    let before = known.len();
    known.retain(|&entity, remembered| {
        let tile = remembered.tile;
        if !looked_at(tile) || sight.sees(team, entity) {
            return true;
        }
        let seen = fog.is_some_and(|fog| fog.is_visible(tile));
        let explored = fog.is_some_and(|fog| fog.is_explored(tile)) && !forgot(tile);
        !seen && (explored || !opacity.covers((tile.x, tile.y)))
    });
    if known.len() != before {
        memory.set_changed();
    }
}

/// The fogged sprites whose `FogSprite` was inserted since the drawing last ran (filled by an
/// observer, so a frame in which none was looks at no sprite).
#[derive(Resource, Debug, Default)]
pub(super) struct FreshSprites(Vec<Entity>);

/// A `FogSprite` was inserted (or replaced): the drawing looks at its entity.
pub(super) fn on_fog_sprite_inserted(
    inserted: On<Insert, FogSprite>,
    mut fresh: ResMut<FreshSprites>,
) {
    fresh.0.push(inserted.entity);
}

/// The stand-ins the plugin spawned for a map's remembered sprites, for the team it drew them
/// for: the drawing's bookkeeping beside [`SpriteMemory`].
#[derive(Component, Debug, Default)]
#[component(clone_behavior = Ignore)]
pub(super) struct StandIns {
    team: Option<Team>,
    /// Per remembered entity: its stand-in, what it draws, and whether it is shown.
    spawned: EntityHashMap<(Entity, RememberedSprite, bool)>,
}

/// A map as its sprites are drawn.
type SpriteMap<'a> = (
    Entity,
    &'a FogOfWar,
    Ref<'a, SpriteMemory>,
    Option<&'a mut StandIns>,
);

/// What drawing the fogged sprites reads besides the maps.
#[derive(SystemParam)]
pub(super) struct Drawing<'w, 's> {
    commands: Commands<'w, 's>,
    changes: Res<'w, FogChanges>,
    sight: Res<'w, TeamSight>,
    sprites: Sprites<'w, 's>,
    visibilities: Query<'w, 's, &'static mut Visibility, With<FogSprite>>,
    smooth: Query<'w, 's, (Entity, Option<&'static LayerGroup>), With<SmoothFog>>,
    assets: Option<Res<'w, AssetServer>>,
}

/// Draws the fogged sprites for the team each map draws: each sprite shown where its tile is
/// visible and hidden elsewhere, a stand-in for each remembered one (shown while its tile is
/// explored: not while its chunk is streamed out).
pub(super) fn draw_sprites(
    mut maps: Query<SpriteMap>,
    mut drawing: Drawing,
    mut fresh: ResMut<FreshSprites>,
) {
    let fresh = std::mem::take(&mut fresh.0);
    for (map, fog, memory, stand_ins) in &mut maps {
        let team = fog.drawn_team();
        let changed = drawing.changes.of(map);
        let switched = stand_ins.as_ref().is_none_or(|s| s.team != Some(team));
        let redrawn = switched || changed.is_some_and(|changed| changed.redrawn());
        let drawn_changed = changed.is_some_and(|changed| changed.drawn().count() > 0);
        let mut look_at: Vec<Entity> = if redrawn {
            drawing.sight.on_map(map).collect()
        } else {
            let here = |at: At| at.is_some_and(|(on, _)| on == map);
            let sighted = drawing.sight.changes_of(team).iter();
            let sighted = sighted.filter(|change| here(change.from) || here(change.to));
            sighted.map(|change| change.entity).collect()
        };
        look_at.extend(drawing.sprites.moved());
        look_at.extend(fresh.iter().copied());
        drawing.show((map, team), &look_at);
        if redrawn || memory.is_changed() {
            drawing.sync_stand_ins((map, fog), &memory, stand_ins);
        } else if let (true, Some(mut stand_ins)) = (drawn_changed, stand_ins) {
            drawing.reshow_stand_ins(fog, &mut stand_ins);
        }
    }
}

impl Drawing<'_, '_> {
    /// Shows each of `entities` that stands on `map` where `team` (the team drawn there) sees
    /// it, and hides the others under the fog. An entity the importers put under the fog that
    /// stands on no tile is left as the file draws it.
    fn show(&mut self, (map, team): (Entity, Team), entities: &[Entity]) {
        for &entity in entities {
            let Ok(item) = self.sprites.fogged.get(entity) else {
                continue;
            };
            let shown = match (*item.mode, item.placed.get()) {
                (FogSprite::Ignored, _) => true,
                (FogSprite::Remembered, Some((on, _))) if on == map => {
                    self.sight.sees(team, entity)
                }
                (FogSprite::Remembered, Some(_)) => continue,
                (FogSprite::Remembered, None) if item.imported => continue,
                (FogSprite::Remembered, None) => false,
            };
            if let Ok(mut visibility) = self.visibilities.get_mut(entity) {
                visibility.set_if_neq(shown_or_hidden(shown));
            }
        }
    }

    /// Spawns, redraws, shows, hides and despawns the stand-ins of `map` so that they draw
    /// what its drawn team remembers.
    fn sync_stand_ins(
        &mut self,
        (map, fog): (Entity, &FogOfWar),
        memory: &SpriteMemory,
        stand_ins: Option<Mut<StandIns>>,
    ) {
        match stand_ins {
            Some(mut stand_ins) => self.redraw_stand_ins((map, fog), memory, &mut stand_ins),
            None => {
                let mut fresh = StandIns::default();
                self.redraw_stand_ins((map, fog), memory, &mut fresh);
                self.commands.entity(map).try_insert(fresh);
            }
        }
    }

    /// Brings `spawned` in line with what the drawn team remembers in `memory`.
    fn redraw_stand_ins(
        &mut self,
        (map, fog): (Entity, &FogOfWar),
        memory: &SpriteMemory,
        spawned: &mut StandIns,
    ) {
        let team = fog.drawn_team();
        spawned.team = Some(team);
        let wanted: EntityHashMap<&RememberedSprite> = memory.remembered_sprites(team).collect();
        spawned.spawned.retain(|of, (stand_in, drawn, _)| {
            let keep = wanted.get(of).is_some_and(|want| *want == drawn);
            if !keep {
                self.commands.entity(*stand_in).try_despawn();
            }
            keep
        });
        self.reshow_stand_ins(fog, spawned);
        let tint = self.tint_of(map);
        for (of, remembered) in wanted {
            if !spawned.spawned.contains_key(&of) {
                let shown = fog.is_explored(remembered.tile);
                let stand_in = self.spawn_stand_in((of, remembered), tint, shown);
                spawned
                    .spawned
                    .insert(of, (stand_in, remembered.clone(), shown));
            }
        }
    }

    /// Shows the stand-ins whose tile the drawn team explored, hides the others (their chunk
    /// was streamed out).
    fn reshow_stand_ins(&mut self, fog: &FogOfWar, spawned: &mut StandIns) {
        for (stand_in, drawn, shown) in spawned.spawned.values_mut() {
            if *shown != fog.is_explored(drawn.tile) {
                *shown = !*shown;
                self.commands
                    .entity(*stand_in)
                    .try_insert(shown_or_hidden(*shown));
            }
        }
    }

    /// The tint of `map`'s stand-ins: none under a `SmoothFog`, which darkens them.
    fn tint_of(&self, map: Entity) -> Color {
        let smooth = self
            .smooth
            .iter()
            .any(|(holder, group)| group.and_then(LayerGroup::root).unwrap_or(holder) == map);
        if smooth {
            Color::WHITE
        } else {
            FogSprite::remembered_tint()
        }
    }

    /// Spawns the stand-in of `of`, drawing `remembered` tinted by `tint`.
    fn spawn_stand_in(
        &mut self,
        (of, remembered): (Entity, &RememberedSprite),
        tint: Color,
        shown: bool,
    ) -> Entity {
        let root = (
            Name::new("Remembered sprite"),
            FogSpriteStandIn(of),
            remembered.transform,
            shown_or_hidden(shown),
        );
        let stand_in = self.commands.spawn(root).id();
        for look in &remembered.looks {
            let sprite = self.sprite_of(look, tint);
            let part = (sprite, Anchor(look.anchor), look.offset, ChildOf(stand_in));
            self.commands.spawn(part);
        }
        stand_in
    }

    /// The `Sprite` that draws `look`, tinted by `tint`.
    fn sprite_of(&self, look: &SpriteLook, tint: Color) -> Sprite {
        let (a, b) = (look.color.to_linear(), tint.to_linear());
        let color = LinearRgba::new(a.red * b.red, a.green * b.green, a.blue * b.blue, a.alpha);
        Sprite {
            image: self.load(&look.image),
            texture_atlas: look.atlas.as_ref().map(|(layout, index)| TextureAtlas {
                layout: self.load(layout),
                index: *index,
            }),
            rect: look.rect,
            color: color.into(),
            flip_x: look.flip_x,
            flip_y: look.flip_y,
            custom_size: look.custom_size,
            ..default()
        }
    }

    /// The handle of a remembered asset (loaded by its path when it comes from a save).
    fn load<A: Asset>(&self, asset: &LookAsset<A>) -> Handle<A> {
        match (asset, &self.assets) {
            (LookAsset::Handle(handle), _) => handle.clone(),
            (LookAsset::Path(path), Some(assets)) => assets.load(path.clone()),
            (LookAsset::Path(_), None) => Handle::default(),
        }
    }
}

/// The visibility of something shown (its parent's) or hidden.
fn shown_or_hidden(shown: bool) -> Visibility {
    if shown {
        Visibility::Inherited
    } else {
        Visibility::Hidden
    }
}
