//! The systems of sprites under the fog: each team's [`SpriteMemory`] kept from the fog's list
//! of what changed (a look taken when a team stops seeing a sprite's tile, forgotten when it
//! sees that tile again), and the sprites drawn for the team drawn (the entity shown on a
//! visible tile, a [`FogSpriteStandIn`] on a remembered one). A frame in which no tile changed
//! and no sprite moved looks at no sprite.

use bevy::asset::AssetServer;
use bevy::ecs::entity::EntityHashMap;
use bevy::ecs::query::QueryData;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy_ecs_tilemap::tiles::TilePos;

use super::smooth::SmoothFog;
use super::sprites::{
    FogSprite, FogSpriteStandIn, LookAsset, RememberedSprite, SpriteLook, SpriteMemory,
};
use crate::fog::change_list::{ChangedTiles, FogChanges, SeenChange};
use crate::fog::{FogOfWar, Team, TeamFog};
use crate::layers::LayerGroup;
use crate::opacity::MapOpacity;
use crate::placement::placed::{Placed, PlacedIndex, PlacedMoves};
use viewshed_core::bits::BitRows;
use viewshed_core::visible::Window;

/// A fogged sprite, as its look is read.
#[derive(QueryData)]
pub(super) struct Fogged {
    entity: Entity,
    mode: &'static FogSprite,
    placed: &'static Placed,
    transform: &'static GlobalTransform,
    sprite: Option<&'static Sprite>,
    anchor: Option<&'static Anchor>,
    children: Option<&'static Children>,
}

/// The fogged sprites and where they stand.
#[derive(SystemParam)]
pub(super) struct Sprites<'w, 's> {
    fogged: Query<'w, 's, Fogged>,
    parts: Query<'w, 's, (&'static Sprite, Option<&'static Anchor>, &'static Transform)>,
    index: Res<'w, PlacedIndex>,
    moves: Res<'w, PlacedMoves>,
}

impl Sprites<'_, '_> {
    /// The tile `entity` stands on, on `map`, if it is a fogged sprite under the fog.
    fn tile_of(&self, entity: Entity, map: Entity) -> Option<TilePos> {
        let item = self.fogged.get(entity).ok()?;
        let (on, tile) = item.placed.get()?;
        (on == map && *item.mode == FogSprite::Remembered).then_some(tile)
    }

    /// How `entity` looks now, standing on `tile`.
    fn look(&self, entity: Entity, tile: TilePos) -> Option<RememberedSprite> {
        let item = self.fogged.get(entity).ok()?;
        let own = item
            .sprite
            .map(|s| SpriteLook::of(s, item.anchor, Transform::IDENTITY));
        let children = item.children.into_iter().flatten();
        let parts = self.parts.iter_many(children.copied());
        let looks = own
            .into_iter()
            .chain(parts.map(|(s, a, t)| SpriteLook::of(s, a, *t)));
        Some(RememberedSprite {
            tile,
            transform: item.transform.compute_transform(),
            looks: looks.collect(),
        })
    }

    /// The fogged sprites that moved this frame.
    fn moved(&self) -> impl Iterator<Item = Entity> + '_ {
        let moves = self.moves.entities().iter().copied();
        moves.filter(|&entity| self.fogged.contains(entity))
    }
}

/// Which of a map's tiles one team's memory looks at again this update.
enum Look<'a> {
    /// The tiles that came into or went out of the team's view.
    Tiles(Window, &'a BitRows),
    /// Every tile (the fog is new, laid out anew, or written by the game).
    All,
    /// No tile: its view did not change (the sprites that moved are looked at all the same).
    Nothing,
}

impl Look<'_> {
    fn holds(&self, tile: TilePos) -> bool {
        match self {
            Look::All => true,
            Look::Nothing => false,
            Look::Tiles(area, bits) => {
                area.contains(tile.x, tile.y) && bits.get(tile.y - area.y, tile.x - area.x)
            }
        }
    }
}

/// A sprite under the fog, or a stand-in drawing one as remembered.
type DrawnUnderFog = Or<(With<FogSprite>, With<FogSpriteStandIn>)>;

/// Whether anything is drawn as a sprite under the fog: a [`FogSprite`], a stand-in, or a
/// team's memory of one. Without any, the sprites' systems do not look up the entities near
/// the tiles that changed (units of a server, which are findable for other reasons).
/// `replicon-fog 2000` (benches/frame_instructions.rs, one thread): 15.34M -> 14.36M
/// instructions a frame.
pub(super) fn sprites_under_fog(
    sprites: Query<(), DrawnUnderFog>,
    memories: Query<&SpriteMemory>,
) -> bool {
    !sprites.is_empty()
        || memories
            .iter()
            .any(|memory| memory.teams.values().any(|t| !t.is_empty()))
}

/// Keeps each map's [`SpriteMemory`] up to date with what each team sees: looking only at the
/// sprites near the tiles that came into or went out of a team's view, those it remembers
/// there, and those that moved.
pub(super) fn remember_sprites(
    mut maps: Query<(Entity, &FogOfWar, &MapOpacity, &mut SpriteMemory)>,
    sprites: Sprites,
    changes: Res<FogChanges>,
) {
    let moved: Vec<Entity> = sprites.moved().collect();
    for (map, fog, opacity, mut memory) in &mut maps {
        let changed = changes.of(map);
        if changed.is_none() && moved.is_empty() {
            continue;
        }
        let mut forgot_or_took = false;
        for (team, team_fog) in fog.teams() {
            let look = match changed.map(|changed| changed.seen(team)) {
                None | Some(SeenChange::Unchanged) if moved.is_empty() => continue,
                None | Some(SeenChange::Unchanged) => Look::Nothing,
                Some(SeenChange::Tiles(bits)) => Look::Tiles(fog.area(), bits),
                Some(SeenChange::Whole) => Look::All,
            };
            let known = memory
                .bypass_change_detection()
                .teams
                .entry(team)
                .or_default();
            let looked_at = (&look, moved.as_slice());
            forgot_or_took |= remember_team((map, opacity), (team_fog, looked_at), known, &sprites);
        }
        if forgot_or_took {
            memory.set_changed();
        }
    }
}

/// Brings one team's memory of one map up to date; returns whether it changed.
fn remember_team(
    (map, opacity): (Entity, &MapOpacity),
    (fog, (look, moved)): (&TeamFog, (&Look, &[Entity])),
    known: &mut EntityHashMap<RememberedSprite>,
    sprites: &Sprites,
) -> bool {
    let near: Vec<Entity> = match look {
        Look::All => sprites.index.on_map(map).collect(),
        Look::Tiles(area, bits) => sprites.index.touched_by(map, bits, (area.x, area.y)),
        Look::Nothing => Vec::new(),
    };
    let remembered = known
        .iter()
        .filter(|(_, r)| look.holds(r.tile))
        .map(|(&e, _)| e);
    let candidates: Vec<Entity> = remembered
        .chain(near)
        .chain(moved.iter().copied())
        .collect();
    let mut changed = false;
    if !matches!(look, Look::Nothing) {
        // What lies on loaded tiles the team no longer explored (the game wrote the fog, a
        // chunk came back unexplored) is forgotten; on tiles not loaded (a chunk streamed out)
        // it stays remembered for the chunk's return.
        let before = known.len();
        known.retain(|_, r| !opacity.covers((r.tile.x, r.tile.y)) || fog.is_explored(r.tile));
        changed |= known.len() != before;
    }
    for entity in candidates {
        let at = sprites.tile_of(entity, map);
        if at.is_some_and(|tile| fog.is_visible(tile)) {
            // It sees it now: drawn as it is.
            changed |= known.remove(&entity).is_some();
            continue;
        }
        if known.get(&entity).is_some_and(|r| fog.is_visible(r.tile)) {
            // It sees the tile it remembered the sprite on, without it.
            known.remove(&entity);
            changed = true;
        }
        if let Some(tile) = at
            && !known.contains_key(&entity)
            && matches!(look, Look::Tiles(..))
            && look.holds(tile)
            && let Some(seen) = sprites.look(entity, tile)
        {
            // Its tile just went out of view: remembered as it was seen.
            known.insert(entity, seen);
            changed = true;
        }
    }
    changed
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
        let changed = drawing.changes.drawn(map);
        let switched = stand_ins.as_ref().is_none_or(|s| s.team != Some(team));
        let relaid = matches!(changed, Some(ChangedTiles::All(_)));
        let any_change = changed.is_some();
        let mut look_at: Vec<Entity> = match changed {
            _ if switched || relaid => drawing.sprites.index.on_map(map).collect(),
            Some(ChangedTiles::Changed { area, bits }) => {
                drawing
                    .sprites
                    .index
                    .touched_by(map, bits, (area.x, area.y))
            }
            _ => Vec::new(),
        };
        look_at.extend(drawing.sprites.moved());
        look_at.extend(fresh.iter().copied());
        drawing.show(map, fog, &look_at);
        if switched || relaid || memory.is_changed() {
            drawing.sync_stand_ins((map, fog), &memory, stand_ins);
        } else if let (true, Some(mut stand_ins)) = (any_change, stand_ins) {
            drawing.reshow_stand_ins(fog, &mut stand_ins);
        }
    }
}

impl Drawing<'_, '_> {
    /// Shows each of `entities` that stands on `map` on a tile the team drawn sees, and hides
    /// the others under the fog.
    fn show(&mut self, map: Entity, fog: &FogOfWar, entities: &[Entity]) {
        for &entity in entities {
            let Ok(item) = self.sprites.fogged.get(entity) else {
                continue;
            };
            let shown = match (item.mode, item.placed.get()) {
                (FogSprite::Ignored, _) => true,
                (FogSprite::Remembered, Some((on, tile))) if on == map => fog.is_visible(tile),
                (FogSprite::Remembered, Some(_)) => continue,
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
