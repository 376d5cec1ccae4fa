//! [`FogDrawPlugin`]: the drawing's systems, observers and resources.

use bevy::app::{App, Plugin};
use bevy::prelude::*;

use super::edges::FogEdges;
use super::fade::{FadingTiles, advance_fades, on_fog_style_removed};
use super::fog_layers::{draw_fog_layers, style_new_tiles};
use super::minimap::FogMinimap;
use super::minimap_canvas::draw_minimaps;
use super::overlay::{FogOverlay, FogOverlayLayer, keep_fog_overlays, on_fog_overlay_removed};
use super::terrain::{TerrainMemory, on_terrain_memory_removed, remember_terrain};
use super::{FogFade, FogStyle, SoftEdge, TileLook};
use crate::fog::change_list::FogChanges;
use crate::fog::{FogOfWar, FogPlugin};
use crate::schedule::{ViewshedSchedule, ViewshedStepSystems};

/// The fog of war drawn: the fog's model ([`FogPlugin`](crate::fog::FogPlugin)) written into
/// the tile layers with a [`FogStyle`] (fades, soft edges) and the overlay layers of
/// [`FogOverlay`] maps, drawn on the GPU over [`SmoothFog`](crate::SmoothFog) maps (feature
/// `render`), [`TerrainMemory`] layers drawn as each team last saw them, and [`FogMinimap`]
/// images, in the step [`ViewshedStepSystems::Draw`]. It reads only the fog and its list of
/// what changed; a headless server leaves it out.
#[derive(Debug, Clone, Copy, Default)]
pub struct FogDrawPlugin;

impl Plugin for FogDrawPlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<FogFade>()
            .register_type::<SoftEdge>()
            .register_type::<FogStyle>()
            .register_type::<FogOverlay>()
            .register_type::<FogOverlayLayer>()
            .register_type::<TileLook>()
            .register_type::<TerrainMemory>()
            .register_type::<FogMinimap>();
        // Every fog layer keeps its tiles in transition; every map's fog, its edges.
        app.register_required_components::<FogStyle, FadingTiles>()
            .register_required_components::<FogOfWar, FogEdges>();
        app.add_systems(
            ViewshedSchedule,
            (
                keep_fog_overlays.run_if(any_with_component::<FogOverlay>),
                draw_fog_layers,
                remember_terrain.run_if(any_with_component::<TerrainMemory>),
                style_new_tiles,
                advance_fades.run_if(any_with_component::<FadingTiles>),
                draw_minimaps.run_if(any_with_component::<FogMinimap>),
            )
                .chain()
                .run_if(resource_exists::<FogChanges>)
                .in_set(ViewshedStepSystems::Draw),
        );
        // Overlays: a FogOverlay removed, or its map despawned, takes its layer with it.
        app.add_observer(on_fog_overlay_removed);
        // Remembered terrain: a layer that loses its memory is drawn as it is.
        app.add_observer(on_terrain_memory_removed);
        // Fades: a layer that loses its style stops fading.
        app.add_observer(on_fog_style_removed);
        #[cfg(feature = "render")]
        super::smooth::add_smooth_fog(app);
        #[cfg(feature = "render")]
        add_sprite_fog(app);
    }

    fn finish(&self, app: &mut App) {
        if !app.is_plugin_added::<FogPlugin>() {
            error!(
                "bevy_viewshed: FogDrawPlugin needs FogPlugin, whose model it draws; no fog is \
                 drawn without it"
            );
        }
    }
}

/// Sprites under the fog: their types, each map's memory of them, and their systems at the end
/// of the drawing.
#[cfg(feature = "render")]
fn add_sprite_fog(app: &mut App) {
    use super::sprite_fog::{
        FreshSprites, SeenLooks, draw_sprites, on_fog_sprite_inserted, remember_sprites,
        sprites_under_fog,
    };
    use super::sprites::{FogSprite, FogSpriteStandIn, SpriteMemory};
    app.init_resource::<FreshSprites>()
        .init_resource::<SeenLooks>()
        .add_observer(on_fog_sprite_inserted)
        .register_type::<FogSprite>()
        .register_type::<FogSpriteStandIn>()
        .register_type::<SpriteMemory>()
        .register_required_components::<FogOfWar, SpriteMemory>();
    app.add_systems(
        ViewshedSchedule,
        (remember_sprites, draw_sprites)
            .chain()
            .after(draw_fog_layers)
            .run_if(resource_exists::<FogChanges>.and_then(sprites_under_fog))
            .in_set(ViewshedStepSystems::Draw),
    );
}
