//! Read-only work on all threads: a list cut into a few parts per thread, each part's results
//! gathered in the list's order.

use bevy::tasks::ComputeTaskPool;

/// Calls `each` with every item of `items` and what it found so far, on all threads when there
/// are at least `at_least` items (fewer are not worth a task each), and returns what the calls
/// pushed, in the order of `items`.
pub(crate) fn collect_in_parts<T: Sync, R: Send + 'static>(
    items: &[T],
    at_least: usize,
    each: impl Fn(&T, &mut Vec<R>) + Sync,
) -> Vec<R> {
    let run = |part: &[T]| {
        let mut found = Vec::new();
        for item in part {
            each(item, &mut found);
        }
        found
    };
    let pool = ComputeTaskPool::try_get().filter(|pool| pool.thread_num() > 1);
    let Some(pool) = pool.filter(|_| items.len() >= at_least.max(1)) else {
        return run(items);
    };
    // A few parts per thread, so that a thread done early (or whose core another process
    // takes) takes over parts still waiting.
    let size = items.len().div_ceil(4 * pool.thread_num());
    let run = &run;
    pool.scope(|scope| {
        for part in items.chunks(size) {
            scope.spawn(async move { run(part) });
        }
    })
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::tasks::TaskPoolBuilder;

    #[test]
    fn results_come_in_the_order_of_the_items_on_one_thread_or_many() {
        let items: Vec<u32> = (0..1000).collect();
        let twice = |&n: &u32, found: &mut Vec<u32>| found.extend([n, n]);
        let expected: Vec<u32> = items.iter().flat_map(|&n| [n, n]).collect();
        assert_eq!(collect_in_parts(&items, 10, twice), expected);
        ComputeTaskPool::get_or_init(|| TaskPoolBuilder::new().num_threads(3).build());
        assert_eq!(collect_in_parts(&items, 10, twice), expected);
        assert_eq!(collect_in_parts(&items[..3], 10, twice), expected[..6]);
        assert!(collect_in_parts(&[] as &[u32], 0, twice).is_empty());
    }
}
