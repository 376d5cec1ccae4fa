//! Shared by the examples (each includes it with `#[path]`): the minimap in the top right
//! corner. It shows the image of the map's `FogMinimap` (on a tilemap, a world or an imported
//! level: whichever the example gave one), at its size as it grows with a world's chunks,
//! `SCALE` window pixels per tile, and a dot on the tile of the entity marked `P`.

use std::marker::PhantomData;

use bevy::prelude::*;
use bevy_viewshed::prelude::*;
use bevy_viewshed::{Placed, ViewshedSystems};

/// Window pixels per tile.
const SCALE: f32 = 3.0;

/// The corner minimap, its dot on the entity marked `P` (the player).
pub struct CornerMinimapPlugin<P: Component> {
    /// Window pixels from the top of the window to the frame.
    pub top: f32,
    marker: PhantomData<P>,
}

impl<P: Component> CornerMinimapPlugin<P> {
    pub fn below(top: f32) -> Self {
        Self {
            top,
            marker: PhantomData,
        }
    }
}

impl<P: Component> Plugin for CornerMinimapPlugin<P> {
    fn build(&self, app: &mut App) {
        let top = self.top;
        app.add_systems(Startup, move |commands: Commands| spawn(commands, top))
            .add_systems(PostUpdate, show::<P>.after(ViewshedSystems));
    }
}

#[derive(Component)]
struct MinimapView;

#[derive(Component)]
struct PlayerDot;

/// The minimap's frame, empty until the plugin has made the image, and the player's dot.
fn spawn(mut commands: Commands, top: f32) {
    let frame = Node {
        position_type: PositionType::Absolute,
        top: Val::Px(top),
        right: Val::Px(10.0),
        border: UiRect::all(Val::Px(1.0)),
        ..default()
    };
    let dot = Node {
        position_type: PositionType::Absolute,
        width: Val::Px(SCALE),
        height: Val::Px(SCALE),
        ..default()
    };
    commands.spawn((
        MinimapView,
        ImageNode::default(),
        frame,
        BorderColor::all(Color::srgba(0.8, 0.8, 0.9, 0.5)),
        children![(PlayerDot, dot, BackgroundColor(Color::srgb(1.0, 0.9, 0.2)))],
    ));
}

/// The minimap's picture: its image and its frame.
type MinimapFrame<'w, 's> = Single<
    'w,
    's,
    (&'static mut ImageNode, &'static mut Node),
    (With<MinimapView>, Without<PlayerDot>),
>;

/// Shows the minimap's image at its size and puts the dot on the player's tile.
fn show<P: Component>(
    minimaps: Query<&FogMinimap>,
    player: Query<&Placed, With<P>>,
    mut view: MinimapFrame,
    mut dot: Single<(&mut Node, &mut Visibility), With<PlayerDot>>,
) {
    let Some(minimap) = minimaps.iter().find(|minimap| minimap.image().is_some()) else {
        return;
    };
    let (Some(image), Some(tiles)) = (minimap.image(), minimap.tiles()) else {
        return;
    };
    let (node, frame) = &mut *view;
    if node.image != *image {
        node.image = image.clone();
    }
    let size = (
        Val::Px(tiles.width as f32 * SCALE),
        Val::Px(tiles.height as f32 * SCALE),
    );
    if (frame.width, frame.height) != size {
        (frame.width, frame.height) = size;
    }
    let pixel = player
        .iter()
        .find_map(Placed::tile)
        .and_then(|tile| minimap.pixel_of(tile));
    let (dot, shown) = &mut *dot;
    shown.set_if_neq(match pixel {
        Some(_) => Visibility::Inherited,
        None => Visibility::Hidden,
    });
    if let Some(pixel) = pixel {
        let at = (
            Val::Px(pixel.x as f32 * SCALE),
            Val::Px(pixel.y as f32 * SCALE),
        );
        if (dot.left, dot.top) != at {
            (dot.left, dot.top) = at;
        }
    }
}
