//! How a [`SpriteMemory`] saves (feature `serde`): per team, each remembered sprite with its
//! entity by [`Entity::to_bits`] and its assets by their paths, so a save loads in a new run.
//! A look whose image was made in code (no path) cannot be loaded again: it is left out of the
//! save, with a warning.

use bevy::asset::AssetPath;
use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;
use serde::{Deserialize, Serialize};

use super::sprites::{LookAsset, RememberedSprite, SpriteLook, SpriteMemory};
use crate::fog::Team;
use crate::support::save_format;

/// A saved [`SpriteMemory`]: the save format, and per team its sprites.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SpriteMemorySave {
    #[serde(default = "save_format::unspecified")]
    format: u32,
    teams: Vec<(Team, Vec<SpriteSave>)>,
}

/// A saved [`RememberedSprite`].
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpriteSave {
    entity: u64,
    tile: (u32, u32),
    transform: TransformSave,
    looks: Vec<LookSave>,
}

/// A saved `Transform`: translation, rotation (a quaternion), scale.
type TransformSave = ([f32; 3], [f32; 4], [f32; 3]);

/// A saved [`SpriteLook`]; colours in linear RGBA, rectangles as `[min x, min y, max x, max y]`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LookSave {
    offset: TransformSave,
    image: String,
    #[serde(default)]
    atlas: Option<(String, usize)>,
    #[serde(default)]
    rect: Option<[f32; 4]>,
    color: [f32; 4],
    #[serde(default)]
    flip: (bool, bool),
    #[serde(default)]
    custom_size: Option<[f32; 2]>,
    anchor: [f32; 2],
}

impl Serialize for SpriteMemory {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SpriteMemorySave::from(self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for SpriteMemory {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let save = SpriteMemorySave::deserialize(deserializer)?;
        Self::try_from(save).map_err(serde::de::Error::custom)
    }
}

impl From<&SpriteMemory> for SpriteMemorySave {
    fn from(memory: &SpriteMemory) -> Self {
        let teams = memory.teams.iter().map(|(&team, sprites)| {
            let mut saved: Vec<SpriteSave> = sprites.iter().map(save_sprite).collect();
            saved.sort_by_key(|sprite| sprite.entity);
            (team, saved)
        });
        Self {
            format: save_format::SAVE_FORMAT,
            teams: teams.filter(|(_, sprites)| !sprites.is_empty()).collect(),
        }
    }
}

impl TryFrom<SpriteMemorySave> for SpriteMemory {
    type Error = String;

    fn try_from(save: SpriteMemorySave) -> Result<Self, String> {
        save_format::check(save.format, "SpriteMemory")?;
        let mut memory = SpriteMemory::default();
        for (team, sprites) in save.teams {
            if memory.teams.contains_key(&team) {
                return Err(format!("team {} twice in a saved SpriteMemory", team.0));
            }
            let known = memory.teams.entry(team).or_default();
            for sprite in sprites {
                let entity = Entity::try_from_bits(sprite.entity)
                    .ok_or_else(|| format!("{} is no entity", sprite.entity))?;
                if known.insert(entity, load_sprite(sprite)).is_some() {
                    return Err(format!("entity {entity} twice for team {}", team.0));
                }
            }
        }
        Ok(memory)
    }
}

fn save_sprite((entity, sprite): (&Entity, &RememberedSprite)) -> SpriteSave {
    let looks = sprite.looks.iter().filter_map(|look| {
        let saved = save_look(look);
        if saved.is_none() {
            warn!(
                "bevy_viewshed: a remembered look of {entity} has an image made in code, with no \
                 asset path; it is left out of the save"
            );
        }
        saved
    });
    SpriteSave {
        entity: entity.to_bits(),
        tile: (sprite.tile.x, sprite.tile.y),
        transform: save_transform(&sprite.transform),
        looks: looks.collect(),
    }
}

fn load_sprite(sprite: SpriteSave) -> RememberedSprite {
    RememberedSprite {
        tile: TilePos::new(sprite.tile.0, sprite.tile.1),
        transform: load_transform(sprite.transform),
        looks: sprite.looks.into_iter().map(load_look).collect(),
    }
}

/// `look` as saved, or `None` if one of its assets has no path.
fn save_look(look: &SpriteLook) -> Option<LookSave> {
    let atlas = match &look.atlas {
        Some((layout, index)) => Some((path_of(layout)?, *index)),
        None => None,
    };
    Some(LookSave {
        offset: save_transform(&look.offset),
        image: path_of(&look.image)?,
        atlas,
        rect: look.rect.map(|r| [r.min.x, r.min.y, r.max.x, r.max.y]),
        color: look.color.to_linear().to_f32_array(),
        flip: (look.flip_x, look.flip_y),
        custom_size: look.custom_size.map(|size| size.to_array()),
        anchor: look.anchor.to_array(),
    })
}

fn path_of<A: Asset>(asset: &LookAsset<A>) -> Option<String> {
    asset.path().map(|path| path.to_string())
}

fn load_look(look: LookSave) -> SpriteLook {
    SpriteLook {
        offset: load_transform(look.offset),
        image: path_to(look.image),
        atlas: look.atlas.map(|(layout, index)| (path_to(layout), index)),
        rect: look.rect.map(|[x0, y0, x1, y1]| Rect::new(x0, y0, x1, y1)),
        color: LinearRgba::from_f32_array(look.color).into(),
        flip_x: look.flip.0,
        flip_y: look.flip.1,
        custom_size: look.custom_size.map(Vec2::from_array),
        anchor: Vec2::from_array(look.anchor),
    }
}

fn path_to<A: Asset>(path: String) -> LookAsset<A> {
    LookAsset::Path(AssetPath::from(path))
}

fn save_transform(transform: &Transform) -> TransformSave {
    (
        transform.translation.to_array(),
        transform.rotation.to_array(),
        transform.scale.to_array(),
    )
}

fn load_transform((translation, rotation, scale): TransformSave) -> Transform {
    Transform {
        translation: Vec3::from_array(translation),
        rotation: Quat::from_array(rotation).normalize(),
        scale: Vec3::from_array(scale),
    }
}
