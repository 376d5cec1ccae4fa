//! Sprites under the fog (feature `render`): a [`FogSprite`] entity (a door, a chest, a Tiled
//! tile object, an LDtk entity drawn as a sprite) follows its tile's fog for the team drawn, as
//! tiles do, and each team remembers how it looked when it last saw it ([`SpriteMemory`]):
//! things that stay, drawn as last seen until seen again. (Ghosts, [`LeavesGhost`], are for
//! things that move: where a team last saw them.)
//!
//! [`LeavesGhost`]: crate::LeavesGhost

use std::collections::BTreeMap;

use bevy::asset::AssetPath;
use bevy::ecs::entity::{EntityHashMap, EntityMapper, MapEntities};
use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy_ecs_tilemap::tiles::TilePos;

use crate::fog::Team;

/// Keeps a sprite drawn on a map under the fog of war, as the map's tiles are, for the team the
/// map draws ([`DrawnTeam`](crate::DrawnTeam)):
///
/// - hidden where its tile is unexplored;
/// - drawn as the team last saw it, dimmed like remembered tiles, where its tile is
///   remembered: a door seen closed stays drawn closed until the team sees it again, and a
///   chest taken away out of sight stays drawn where it was;
/// - drawn as it is where its tile is visible.
///
/// The entity stands on its `TilePos` + `TilemapId`, or under its `Transform` on its
/// `TilemapId`, as viewers do. Its `Sprite` is its own, or its children's (a Tiled object's
/// visuals). Each team's memory of it is in its map's [`SpriteMemory`], taken when the team
/// stops seeing its tile: what a team never saw it does not remember, and a change made out of
/// its sight it does not see. While a tile is remembered, the entity itself is hidden and a
/// stand-in entity (a [`FogSpriteStandIn`]) draws the remembered look, tinted by
/// [`remembered_tint`](Self::remembered_tint) unless its map has a [`SmoothFog`](crate::SmoothFog)
/// (which darkens what it covers). The plugin sets the entity's `Visibility` while it is
/// `Remembered`: a game that hides it itself uses `FogSprite::Ignored` (or removes the
/// component) first.
///
/// Tiled tile objects and LDtk entities with a sprite get `FogSprite::Remembered` from the
/// importers; insert `FogSprite::Ignored` to leave one alone (a marker the player should always
/// see). For a monster that walks, use [`HidesOutsideView`](crate::HidesOutsideView) and
/// [`LeavesGhost`](crate::LeavesGhost) instead.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_ecs_tilemap::prelude::*;
/// # use bevy_viewshed::prelude::*;
/// # fn spawn(mut commands: Commands, map: Entity, chest: Handle<Image>) {
/// // A chest: hidden until seen, then drawn as last seen.
/// commands.spawn((Sprite::from_image(chest), FogSprite::Remembered, TilePos { x: 4, y: 2 }, TilemapId(map)));
/// # }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug)]
#[require(Visibility, crate::placement::placed::Findable)]
#[type_path = "bevy_viewshed"]
pub enum FogSprite {
    /// Under the fog, remembered as last seen.
    #[default]
    Remembered,
    /// Left alone: drawn whatever the fog.
    Ignored,
}

impl FogSprite {
    /// The tint of a remembered sprite's stand-in on a map without a `SmoothFog`: the
    /// remembered tiles' colour of [`FogStyle::default`](crate::FogStyle::default).
    pub fn remembered_tint() -> Color {
        Color::srgb(0.32, 0.32, 0.42)
    }
}

/// On an entity whose [`FogSprite`] an importer (Tiled, LDtk) gave it, not the game: while it
/// stands on no tile of its map (a decoration drawn beside the map), it is left as the file
/// draws it.
#[derive(Component, Clone, Copy, Debug, Default)]
pub(crate) struct ImportedFog;

/// Gives `entity` `FogSprite::Remembered`, as an importer does: unless the game gave it a
/// `FogSprite` of its own.
#[cfg_attr(
    not(any(feature = "ldtk", feature = "tiled")),
    allow(dead_code, reason = "called by the importers")
)]
pub(crate) fn fog_imported_sprite(entity: &mut EntityCommands) {
    entity.queue(|mut entity: EntityWorldMut| {
        if !entity.contains::<FogSprite>() {
            entity.insert((FogSprite::Remembered, ImportedFog));
        }
    });
}

/// On an entity the plugin spawned to draw a [`FogSprite`] as the team drawn remembers it: the
/// entity it stands in for (which may be despawned).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Reflect)]
#[reflect(Component, Debug)]
#[type_path = "bevy_viewshed"]
pub struct FogSpriteStandIn(pub Entity);

/// An asset a remembered look names: its handle, or (loaded from a save) its path.
#[derive(Clone, Debug, PartialEq)]
pub enum LookAsset<A: Asset> {
    /// The asset itself.
    Handle(Handle<A>),
    /// Its path, loaded when the look is drawn.
    Path(AssetPath<'static>),
}

impl<A: Asset> LookAsset<A> {
    /// The path the asset was loaded from, if any.
    pub fn path(&self) -> Option<AssetPath<'static>> {
        match self {
            Self::Handle(handle) => handle.path().cloned(),
            Self::Path(path) => Some(path.clone()),
        }
    }
}

/// One sprite of a remembered look: the parts of a `Sprite` that say how it is drawn, and where
/// it is drawn relative to the remembered entity.
#[derive(Clone, Debug, PartialEq)]
pub struct SpriteLook {
    /// Relative to the entity (`Transform::IDENTITY`: the entity's own sprite).
    pub offset: Transform,
    /// Its image.
    pub image: LookAsset<Image>,
    /// The texture atlas and the index in it.
    pub atlas: Option<(LookAsset<TextureAtlasLayout>, usize)>,
    /// The part of the image drawn, if not all of it.
    pub rect: Option<Rect>,
    /// Its colour (a tint of the image).
    pub color: Color,
    /// Whether it is drawn flipped left to right.
    pub flip_x: bool,
    /// Whether it is drawn flipped top to bottom.
    pub flip_y: bool,
    /// Its size, if not the image's.
    pub custom_size: Option<Vec2>,
    /// Its `Anchor`.
    pub anchor: Vec2,
}

impl SpriteLook {
    /// The look of `sprite` (anchored at `anchor`), drawn at `offset` from the entity.
    pub fn of(sprite: &Sprite, anchor: Option<&Anchor>, offset: Transform) -> Self {
        Self {
            offset,
            image: LookAsset::Handle(sprite.image.clone()),
            atlas: sprite
                .texture_atlas
                .as_ref()
                .map(|atlas| (LookAsset::Handle(atlas.layout.clone()), atlas.index)),
            rect: sprite.rect,
            color: sprite.color,
            flip_x: sprite.flip_x,
            flip_y: sprite.flip_y,
            custom_size: sprite.custom_size,
            anchor: anchor.map_or(Vec2::ZERO, |anchor| anchor.0),
        }
    }
}

/// What a team remembers of a [`FogSprite`]: the tile it stood on, where it was drawn, and how.
#[derive(Clone, Debug, PartialEq)]
pub struct RememberedSprite {
    /// The tile it stood on, in map coordinates.
    pub tile: TilePos,
    /// Where it was drawn (its `GlobalTransform` then).
    pub transform: Transform,
    /// Its sprite, and its children's.
    pub looks: Vec<SpriteLook>,
}

/// What each team remembers of the [`FogSprite`] entities of one map (on every map root, next
/// to its [`FogOfWar`](crate::FogOfWar)): how each looked when the team last saw it, kept until
/// the team sees its tile again. A game may read it, forget an entity (a team told the chest is
/// gone) or clear it (a new level); with the `serde` feature it saves with the fog's memory
/// (entities by their bits, assets by their paths).
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq)]
#[reflect(opaque)]
#[reflect(Component, Default, Debug)]
#[component(map_entities)]
#[type_path = "bevy_viewshed"]
pub struct SpriteMemory {
    pub(super) teams: BTreeMap<Team, EntityHashMap<RememberedSprite>>,
}

impl SpriteMemory {
    /// What `team` remembers of `entity`, if it does not see it now.
    pub fn remembered(&self, team: Team, entity: Entity) -> Option<&RememberedSprite> {
        self.teams.get(&team)?.get(&entity)
    }

    /// Every sprite `team` remembers, by entity.
    pub fn remembered_sprites(
        &self,
        team: Team,
    ) -> impl Iterator<Item = (Entity, &RememberedSprite)> + '_ {
        let sprites = self.teams.get(&team).into_iter().flatten();
        sprites.map(|(&entity, sprite)| (entity, sprite))
    }

    /// `team` forgets `entity` (it is drawn as it is once its tile is seen, hidden until then).
    pub fn forget(&mut self, team: Team, entity: Entity) {
        if let Some(sprites) = self.teams.get_mut(&team) {
            sprites.remove(&entity);
        }
    }

    /// Every team forgets every sprite.
    pub fn clear(&mut self) {
        self.teams.clear();
    }
}

impl MapEntities for SpriteMemory {
    fn map_entities<E: EntityMapper>(&mut self, mapper: &mut E) {
        for sprites in self.teams.values_mut() {
            *sprites = std::mem::take(sprites)
                .into_iter()
                .map(|(entity, sprite)| (mapper.get_mapped(entity), sprite))
                .collect();
        }
    }
}
