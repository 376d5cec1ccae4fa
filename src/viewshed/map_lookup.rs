//! The maps a run of viewers stands on: a tilemap's root and a map's opacity, looked up once
//! while consecutive viewers stand on the same ones (the recompute visits the viewers in table
//! order, and the viewers of a map are mostly spawned onto it together), instead of walking
//! the `LayerOf` chain and fetching the `MapOpacity` again for every viewer.

use bevy::prelude::*;

use crate::maps::opacity::MapOpacity;
use crate::maps::placement::{PlaceProblem, Placement};

/// One task's lookups of the maps its viewers stand on, remembering the last answer of each.
pub(crate) struct MapLookup<'a, 'w, 's> {
    maps: &'a Query<'w, 's, &'static MapOpacity>,
    placement: &'a Placement<'w, 's>,
    /// The last tilemap asked about, and its root.
    root: Option<(Entity, Result<Entity, PlaceProblem>)>,
    /// The last map asked about, and its opacity if it is a map.
    opacity: Option<(Entity, Option<&'a MapOpacity>)>,
}

impl<'a, 'w, 's> MapLookup<'a, 'w, 's> {
    pub(crate) fn new(
        maps: &'a Query<'w, 's, &'static MapOpacity>,
        placement: &'a Placement<'w, 's>,
    ) -> Self {
        Self {
            maps,
            placement,
            root: None,
            opacity: None,
        }
    }

    /// Where entities are placed.
    pub(crate) fn placement(&self) -> &'a Placement<'w, 's> {
        self.placement
    }

    /// The root map of `tilemap`.
    pub(crate) fn root(&mut self, tilemap: Entity) -> Result<Entity, PlaceProblem> {
        match self.root {
            Some((asked, root)) if asked == tilemap => root,
            _ => {
                let root = self.placement.root(tilemap);
                self.root = Some((tilemap, root));
                root
            }
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
