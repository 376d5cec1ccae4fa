//! Map generation: grass with forests and rock ridges, deterministic for a seed, and the
//! hexagonal neighbourhood units walk on. Pure logic.

use bevy::prelude::*;
use bevy_ecs_tilemap::helpers::hex_grid::neighbors::HexNeighbors;
use bevy_ecs_tilemap::prelude::*;

/// Map size in hexagons: 28x32-pixel hexagons fill most of a 1280x720 window.
pub const MAP_SIZE: TilemapSize = TilemapSize::new(40, 24);
/// The hexagonal coordinate system of the map (pointy-top, odd rows shifted right).
pub const COORDS: HexCoordSystem = HexCoordSystem::RowOdd;
/// Columns at each side of the map kept open for the two teams' start.
const CAMP_WIDTH: u32 = 4;

/// One hexagon of the map; forests and rocks block sight and movement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Terrain {
    Grass,
    Forest,
    Rock,
}

/// A small deterministic generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        ((self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) % u64::from(n.max(1))) as u32
    }
}

/// A generated map, `cells[y * width + x]`.
#[derive(Resource)]
pub struct HexMap {
    cells: Vec<Terrain>,
}

impl HexMap {
    /// Forest patches grown by random walks and straight rock ridges, with both camps clear.
    pub fn generate(seed: u64) -> Self {
        let mut map = Self {
            cells: vec![Terrain::Grass; (MAP_SIZE.x * MAP_SIZE.y) as usize],
        };
        let mut rng = Rng::new(seed);
        for _ in 0..22 {
            let steps = 8 + rng.below(14);
            map.walk(&mut rng, Terrain::Forest, steps, None);
        }
        for _ in 0..12 {
            let direction = rng.below(6) as usize;
            let steps = 3 + rng.below(5);
            map.walk(&mut rng, Terrain::Rock, steps, Some(direction));
        }
        for tile in tiles().filter(|t| t.x < CAMP_WIDTH || t.x >= MAP_SIZE.x - CAMP_WIDTH) {
            map.set(tile, Terrain::Grass);
        }
        map
    }

    /// Paints `terrain` along a walk of `steps` hexagons from a random start, turning at random
    /// or keeping one `direction` (an index into the six neighbours).
    fn walk(&mut self, rng: &mut Rng, terrain: Terrain, steps: u32, direction: Option<usize>) {
        let mut tile = TilePos {
            x: rng.below(MAP_SIZE.x),
            y: rng.below(MAP_SIZE.y),
        };
        for _ in 0..steps {
            self.set(tile, terrain);
            let next = neighbours(tile);
            let pick = direction.unwrap_or_else(|| rng.below(6) as usize);
            match next.get(pick).or(next.first()) {
                Some(&n) => tile = n,
                None => return,
            }
        }
    }

    pub fn terrain(&self, tile: TilePos) -> Terrain {
        self.cells[(tile.y * MAP_SIZE.x + tile.x) as usize]
    }

    fn set(&mut self, tile: TilePos, terrain: Terrain) {
        self.cells[(tile.y * MAP_SIZE.x + tile.x) as usize] = terrain;
    }

    pub fn is_open(&self, tile: TilePos) -> bool {
        self.terrain(tile) == Terrain::Grass
    }
}

/// Every hexagon of the map, row by row from the bottom.
pub fn tiles() -> impl Iterator<Item = TilePos> {
    (0..MAP_SIZE.y).flat_map(|y| (0..MAP_SIZE.x).map(move |x| TilePos { x, y }))
}

/// The hexagons next to `tile` on the map, in a fixed order.
pub fn neighbours(tile: TilePos) -> Vec<TilePos> {
    HexNeighbors::get_neighboring_positions(&tile, &MAP_SIZE, &COORDS)
        .iter()
        .copied()
        .collect()
}
