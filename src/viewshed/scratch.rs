//! The scratch space of one thread's field-of-view computations: the core's square and
//! hexagonal scans, and a staggered map's diamond grid, each kept warm from view to view; a
//! square or staggered view is thinned by the map's density (`DensityGrid::thin`, one look
//! at the dense bits of its window when none is dense there; `DensityGrid::thin_with` with
//! the shadows kept warm here otherwise).

use crate::opacity::map_opacity::Grid;
use crate::opacity::map_opacity::MapOpacity;
use crate::viewshed::ViewKey;
use viewshed_core::FovError;
use viewshed_core::density::Shadows;
use viewshed_core::hex::HexFov;
use viewshed_core::shadowcast::Fov;
use viewshed_core::staggered;
use viewshed_core::visible::VisibleSet;

/// The scratch space of one thread's field-of-view computations, for every kind of grid.
#[derive(Default)]
pub(super) struct Scratch {
    square: Fov,
    hex: HexFov,
    /// A staggered map's view on its diamond grid, before it is brought back to tiles.
    diamond: VisibleSet,
    /// The shadows of the dense cells of the last thinned view.
    shadows: Shadows,
}

impl Scratch {
    /// Computes the view `key` describes on the map of `opacity` (in map coordinates, the
    /// cells off the map taken out).
    pub(crate) fn compute(
        &mut self,
        key: &ViewKey,
        opacity: &MapOpacity,
        visible: &mut VisibleSet,
    ) -> Result<(), FovError> {
        // The map's walls, with the cells above the viewer's eye among them on high ground.
        let (grid, density) = (opacity.sight_grid(key.eye), opacity.density_grid());
        let faces = (key.cliff_faces, key.eye);
        // The grid's cell (0, 0) is the map's tile (x0, y0): (0, 0) but in a world.
        let (x0, y0) = opacity.grid_origin();
        let origin = (key.origin.0 - x0, key.origin.1 - y0);
        match key.grid {
            Grid::Square => {
                self.square.compute(grid, origin, key.options, visible)?;
                density.thin_with(origin, visible, &mut self.shadows);
                opacity.apply_cliff_faces(faces, visible);
            }
            // Density is not followed on hexagonal maps (`Density`'s docs).
            Grid::Hex(coords) => {
                self.hex
                    .compute(grid, coords, origin, key.options, visible)?;
                opacity.apply_cliff_faces(faces, visible);
            }
            Grid::Staggered => {
                let diamond = staggered::to_diamond(origin);
                self.square
                    .compute(grid, diamond, key.options, &mut self.diamond)?;
                density.thin_with(diamond, &mut self.diamond, &mut self.shadows);
                opacity.apply_cliff_faces(faces, &mut self.diamond);
                staggered::view_to_tiles(&self.diamond, opacity.size().y, visible);
            }
        }
        if (x0, y0) != (0, 0) {
            visible.shift(x0, y0);
            opacity.clip(visible);
        }
        Ok(())
    }
}
