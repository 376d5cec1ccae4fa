//! Components an editor integration derives from a map's data and keeps in step with it
//! (a tile's `Opaque` or `Elevation`): put where the data asks for them, changed or taken
//! away only where the integration put them, never where the game put its own.

use bevy::prelude::*;

/// Gives `entity` the component `wanted` by the editor's data (`None`: none), beside the
/// marker `M` that says the integration put it. `current` is the component the entity has,
/// `ours` whether it carries `M`.
pub(crate) fn put<C, M>(
    commands: &mut Commands,
    entity: Entity,
    wanted: Option<C>,
    (current, ours): (Option<&C>, bool),
) where
    C: Component + PartialEq,
    M: Component + Default,
{
    match (wanted, current) {
        (Some(wanted), None) => {
            commands.entity(entity).try_insert((wanted, M::default()));
        }
        (Some(wanted), Some(current)) if ours && *current != wanted => {
            commands.entity(entity).try_insert(wanted);
        }
        (None, Some(_)) if ours => {
            commands.entity(entity).try_remove::<(C, M)>();
        }
        _ => {}
    }
}
