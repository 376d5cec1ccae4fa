//! What the teams explored of a Tiled map, kept across a reload: bevy_ecs_tiled respawns every
//! layer of a map it reloads (a hot reload, `RespawnTiledMap`), so the root tilemap that held
//! the map's fog of war goes; its explored memory is kept on the map entity and given to the
//! new root once it has its fog. (The maps of a world keep theirs in the world's
//! `WorldMemory`.)

use bevy::prelude::*;
use bevy_ecs_tiled::prelude::TiledMapReference;

use crate::editors::tiled::TiledWarnings;
use crate::fog::{ExploredMemory, FogOfWar};
use crate::layers::groups::LayerGroup;

/// On a Tiled map entity whose root tilemap went: what the teams had explored of it.
#[derive(Component, Clone, Debug)]
#[component(clone_behavior = Ignore)]
pub(super) struct KeptExplored(ExploredMemory);

/// The root tilemap of a Tiled map loses its fog (it is despawned, or stops being the root):
/// its explored memory is kept on the map entity, if anything was explored.
pub(super) fn keep_explored(
    event: On<Remove, FogOfWar>,
    roots: Query<(&FogOfWar, &TiledMapReference)>,
    mut commands: Commands,
) {
    let Ok((fog, map)) = roots.get(event.entity) else {
        return;
    };
    let memory = fog.memory();
    let explored = memory.teams.iter().flat_map(|(_, rows)| rows);
    if explored.copied().any(|word| word != 0) {
        // The map itself may be going too.
        commands.entity(map.0).try_insert(KeptExplored(memory));
    }
}

/// Gives the kept memory of each map to its new root tilemap once that has its fog (the
/// update after it appeared), unless the map now has another size.
pub(super) fn give_back_explored(
    maps: Query<(Entity, &KeptExplored, &LayerGroup)>,
    mut fogs: Query<&mut FogOfWar>,
    mut warnings: ResMut<TiledWarnings>,
    mut commands: Commands,
) {
    for (map, kept, group) in &maps {
        let Some(mut fog) = group.root().and_then(|root| fogs.get_mut(root).ok()) else {
            continue;
        };
        if let Err(error) = fog.restore(&kept.0) {
            warnings.once(format!(
                "Tiled map {map} was reloaded with another size ({error}); what the teams had \
                 explored of it is forgotten"
            ));
        }
        commands.entity(map).remove::<KeptExplored>();
    }
}
