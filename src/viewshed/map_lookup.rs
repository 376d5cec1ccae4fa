//! The maps a run of viewers stands on: a map's opacity, looked up once while consecutive
//! viewers stand on the same map (the recompute visits the viewers in table order, and the
//! viewers of a map are mostly spawned onto it together), instead of fetching the
//! `MapOpacity` again for every viewer.

use bevy::prelude::*;

use crate::maps::map_opacity::MapOpacity;

/// One task's lookups of the maps its viewers stand on, remembering the last answer.
pub(super) struct MapLookup<'a, 'w, 's> {
    maps: &'a Query<'w, 's, &'static MapOpacity>,
    /// The last map asked about, and its opacity if it is a map.
    opacity: Option<(Entity, Option<&'a MapOpacity>)>,
}

impl<'a, 'w, 's> MapLookup<'a, 'w, 's> {
    pub(crate) fn new(maps: &'a Query<'w, 's, &'static MapOpacity>) -> Self {
        Self {
            maps,
            opacity: None,
        }
    }

    /// The opacity of `map`, if it is a map.
    pub(crate) fn opacity(&mut self, map: Entity) -> Option<&'a MapOpacity> {
        match self.opacity {
            Some((asked, opacity)) if asked == map => opacity,
            _ => {
                let opacity = self.maps.get(map).ok();
                self.opacity = Some((map, opacity));
                opacity
            }
        }
    }
}
