//! Once warmed up, computing a field of view allocates nothing: counted by a global
//! allocator that tallies the allocations this thread makes while counting is on.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use common::random_grid;
use viewshed_core::{Fov, FovOptions, VisibleSet, VisionCone};

struct CountingAllocator;

thread_local! {
    /// Whether this thread counts its allocations now.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    /// This thread's allocations while counting (per thread, so that tests running in
    /// parallel do not count each other's).
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count_one() {
    if COUNTING.with(Cell::get) {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn warmed_up_fov_allocates_nothing() {
    let grid = random_grid(200, 150, 20, 7);
    let viewers: Vec<(u32, u32)> = (0..300).map(|i| ((i * 37) % 200, (i * 53) % 150)).collect();
    let radii = [
        FovOptions::radius(0),
        FovOptions::radius(4),
        FovOptions::radius(16),
        FovOptions::radius(u32::MAX),
        FovOptions::unlimited().with_light_walls(false),
    ];
    let mut fov = Fov::new();
    let mut visible = VisibleSet::new();
    // Vision cones in 24 directions: more than the masks a `Fov` keeps, so masks are made
    // and replaced in both passes.
    let cone = |i: usize| VisionCone::degrees(i as f64 * 15.0, 100.0);
    let run = |fov: &mut Fov, visible: &mut VisibleSet| {
        let mut total = 0;
        for (i, &viewer) in viewers.iter().enumerate() {
            let coned = [FovOptions::radius(8).with_cone(cone(i % 24))];
            for options in radii.into_iter().chain(coned) {
                fov.compute(&grid, viewer, options, visible).unwrap();
                total += visible.count();
            }
        }
        total
    };

    // The counter works: the first, cold pass allocates its buffers.
    let mut cold_total = 0;
    let cold = allocations_during(|| cold_total = run(&mut fov, &mut visible));
    assert!(cold > 0, "the cold pass must allocate its scratch buffers");

    let mut warm_total = 0;
    let warm = allocations_during(|| warm_total = run(&mut fov, &mut visible));
    assert_eq!(warm, 0, "a warmed-up Fov and VisibleSet must not allocate");
    assert_eq!(warm_total, cold_total, "same answers warm and cold");
    assert!(
        warm_total > viewers.len() * radii.len(),
        "the viewers see something"
    );
}

#[test]
fn warmed_up_hex_fov_allocates_nothing() {
    use viewshed_core::{HexCoords, HexFov};

    let grid = random_grid(120, 90, 20, 11);
    let viewers: Vec<(u32, u32)> = (0..60).map(|i| ((i * 37) % 120, (i * 53) % 90)).collect();
    let options = [
        FovOptions::radius(0),
        FovOptions::radius(6),
        FovOptions::radius(u32::MAX),
        FovOptions::unlimited().with_light_walls(false),
        FovOptions::radius(12).with_cone(VisionCone::degrees(30.0, 90.0)),
    ];
    let mut fov = HexFov::new();
    let mut visible = VisibleSet::new();
    let run = |fov: &mut HexFov, visible: &mut VisibleSet| {
        let mut total = 0;
        for &viewer in &viewers {
            for coords in HexCoords::ALL {
                for options in options {
                    fov.compute(&grid, coords, viewer, options, visible)
                        .unwrap();
                    total += visible.count();
                    total += usize::from(fov.line_of_sight(&grid, coords, viewer, (60, 45)));
                }
            }
        }
        total
    };
    let mut cold_total = 0;
    let cold = allocations_during(|| cold_total = run(&mut fov, &mut visible));
    assert!(cold > 0, "the cold pass must allocate its scratch buffers");
    let mut warm_total = 0;
    let warm = allocations_during(|| warm_total = run(&mut fov, &mut visible));
    assert_eq!(
        warm, 0,
        "a warmed-up HexFov and VisibleSet must not allocate"
    );
    assert_eq!(warm_total, cold_total, "same answers warm and cold");
}
