//! The maps a run of viewers stands on: a map's opacity, looked up once while consecutive
//! viewers stand on the same map (the recompute visits the viewers in table order, and the
//! viewers of a map are mostly spawned onto it together), instead of fetching the
//! `MapOpacity` again for every viewer.

use bevy::prelude::*;

use crate::opacity::log::{MapRead, OpacityLog};
use crate::opacity::map_opacity::MapOpacity;

/// The maps, as the views read them.
pub(super) type Maps<'w, 's> = Query<'w, 's, (&'static MapOpacity, &'static OpacityLog)>;

/// One task's lookups of the maps its viewers stand on, remembering the last answer.
pub(super) struct MapLookup<'a, 'w, 's> {
    maps: &'a Maps<'w, 's>,
    /// The last map asked about, and its opacity if it is a map.
    opacity: Option<(Entity, Option<MapRead<'a>>)>,
}

impl<'a, 'w, 's> MapLookup<'a, 'w, 's> {
    pub(crate) fn new(maps: &'a Maps<'w, 's>) -> Self {
        Self {
            maps,
            opacity: None,
        }
    }

    /// The opacity of `map`, if it is a map.
    pub(crate) fn opacity(&mut self, map: Entity) -> Option<MapRead<'a>> {
        match self.opacity {
            Some((asked, opacity)) if asked == map => opacity,
            _ => {
                let opacity = self.maps.get(map).ok();
                let opacity = opacity.map(|(opacity, log)| MapRead { opacity, log });
                self.opacity = Some((map, opacity));
                opacity
            }
        }
    }
}
