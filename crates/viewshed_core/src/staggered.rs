//! Staggered isometric maps are square grids in other coordinates: bevy_ecs_tilemap (and Tiled)
//! draws tile `(x, y)` of a staggered map where a diamond isometric map draws tile
//! `(x, x + y)`, and the neighbours of a tile are the same four or eight as on the diamond map.
//! So a staggered map's opacity is kept on that diamond grid (cells that are no tile of the map
//! are opaque), the square-grid field of view is computed there, and the view is brought back
//! to tiles.
//!
//! ```
//! use viewshed_core::staggered::{diamond_grid, to_diamond, view_to_tiles};
//! use viewshed_core::{field_of_view, FovOptions, VisibleSet};
//!
//! // A staggered map 6 tiles wide and 5 high; the viewer on tile (2, 3).
//! let grid = diamond_grid(6, 5);
//! let view = field_of_view(&grid, to_diamond((2, 3)), FovOptions::radius(2))?;
//! let mut tiles = VisibleSet::new();
//! view_to_tiles(&view, 5, &mut tiles);
//! assert!(tiles.contains(2, 3));
//! # Ok::<(), viewshed_core::FovError>(())
//! ```

use crate::grid::OpacityGrid;
use crate::visible::{VisibleSet, Window};

/// The diamond cell of a staggered tile.
pub fn to_diamond((x, y): (u32, u32)) -> (u32, u32) {
    (x, x.saturating_add(y))
}

/// The diamond grid of a staggered map `width` tiles wide and `height` high: every tile's cell
/// transparent, every other cell opaque.
pub fn diamond_grid(width: u32, height: u32) -> OpacityGrid {
    let mut grid = OpacityGrid::new(width, height.saturating_add(width.saturating_sub(1)));
    for u in 0..grid.width() {
        for v in 0..grid.height() {
            if v < u || v - u >= height {
                grid.set_opaque(u, v, true);
            }
        }
    }
    grid
}

/// Writes into `tiles` the staggered tiles of a view computed on the diamond grid of a map
/// `height` tiles high.
pub fn view_to_tiles(view: &VisibleSet, height: u32, tiles: &mut VisibleSet) {
    let window = view.window();
    if view.is_empty() || height == 0 {
        tiles.clear();
        return;
    }
    // Tile rows y = v - u over the window, clamped to the map.
    let last_u = window.x + window.width - 1;
    let first = window.y.saturating_sub(last_u);
    let last = (window.y + window.height - 1)
        .saturating_sub(window.x)
        .min(height - 1);
    let rows = last.saturating_sub(first) + 1;
    let out = Window {
        x: window.x,
        y: first,
        width: window.width,
        height: rows,
    };
    let stride = window.width.div_ceil(64) as usize;
    let mut words = vec![0u64; stride * rows as usize];
    for (u, v) in view.iter() {
        if v >= u && v - u >= first && v - u <= last {
            let (row, column) = ((v - u - first) as usize, (u - window.x) as usize);
            words[row * stride + column / 64] |= 1 << (column % 64);
        }
    }
    match VisibleSet::from_words(out, words) {
        Ok(view) => *tiles = view,
        Err(_) => tiles.clear(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::FovOptions;
    use crate::shadowcast::field_of_view;

    #[test]
    fn tiles_and_diamond_cells_correspond() {
        let grid = diamond_grid(3, 2);
        assert_eq!((grid.width(), grid.height()), (3, 4));
        let open: Vec<(u32, u32)> = (0..4)
            .flat_map(|v| (0..3).map(move |u| (u, v)))
            .filter(|&(u, v)| !grid.is_opaque(u, v))
            .collect();
        let mut tiles: Vec<(u32, u32)> = (0..3)
            .flat_map(|x| (0..2).map(move |y| to_diamond((x, y))))
            .collect();
        tiles.sort_by_key(|&(u, v)| (v, u));
        assert_eq!(open, tiles);
    }

    #[test]
    fn a_view_comes_back_as_the_tiles_it_holds() {
        let size = (6, 5);
        let grid = diamond_grid(size.0, size.1);
        let view = field_of_view(&grid, to_diamond((2, 3)), FovOptions::radius(2)).unwrap();
        let mut tiles = VisibleSet::new();
        view_to_tiles(&view, size.1, &mut tiles);
        let mut want: Vec<(u32, u32)> = (0..size.0)
            .flat_map(|x| (0..size.1).map(move |y| (x, y)))
            .filter(|&tile| {
                let (u, v) = to_diamond(tile);
                view.contains(u, v)
            })
            .collect();
        want.sort_unstable();
        let mut got: Vec<(u32, u32)> = tiles.iter().collect();
        got.sort_unstable();
        assert_eq!(got, want);
        assert!(got.contains(&(2, 3)));
    }
}
