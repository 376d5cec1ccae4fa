//! `adam_fov_rs`, a peer of the benches, is symmetric: it sees exactly the floors that the
//! exact rules see (apart from its own radius rule), and A sees B exactly when B sees A.
//! Checked on every bench map (`benches/support`), from the floors nearest its centre.

#[path = "../benches/support/mod.rs"]
mod support;

use support::{MapKind, check_adam_is_symmetric};

/// Viewers per map: every pair of them is checked both ways.
const VIEWERS: usize = 100;

#[test]
fn adam_fov_rs_sees_our_floors_and_is_symmetric_on_every_bench_map() {
    for kind in MapKind::ALL {
        let grid = kind.generate(128, 128, 42);
        if let Err(problem) = check_adam_is_symmetric(&grid, VIEWERS, 8) {
            panic!("{}: {problem}", kind.name());
        }
    }
}
