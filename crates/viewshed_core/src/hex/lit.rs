//! The directions of one sextant that sight still travels along: closed intervals of exact
//! directions, sorted, shrinking ring after ring as walls cut shadows out of them.
//!
//! A direction is an integer vector in the scan's frame (pointy-top centres of canonical
//! `(a, b)` at `(2a + b, 3b)`, vertices at integer offsets), compared by the sign of a cross
//! product: every direction of a sextant lies within 60 degrees of the others, so "before"
//! is "clockwise of" and no angle is ever rounded.

use std::cmp::Ordering;

/// A direction from the viewer's centre (not both zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Dir {
    pub x: i64,
    pub y: i64,
}

impl Dir {
    pub const fn new(x: i64, y: i64) -> Self {
        Self { x, y }
    }

    /// The order of two directions of one sextant: `Less` when `self` is clockwise of
    /// `other`, `Equal` when they are the same ray.
    #[inline(always)]
    pub fn turn(self, other: Dir) -> Ordering {
        let cross =
            i128::from(self.x) * i128::from(other.y) - i128::from(self.y) * i128::from(other.x);
        0.cmp(&cross)
    }

    #[inline(always)]
    pub fn same_ray(self, other: Dir) -> bool {
        self.turn(other) == Ordering::Equal
    }

    #[inline(always)]
    pub fn before(self, other: Dir) -> bool {
        self.turn(other) == Ordering::Less
    }

    #[inline(always)]
    pub fn not_after(self, other: Dir) -> bool {
        self.turn(other) != Ordering::Greater
    }
}

/// A closed interval of directions, `from` not after `to` (a single ray when equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub from: Dir,
    pub to: Dir,
}

/// The lit directions: disjoint closed spans in clockwise-to-counter-clockwise order.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lit {
    spans: Vec<Span>,
    /// The next ring's spans while they are built (kept to reuse its storage).
    next: Vec<Span>,
}

impl Lit {
    /// Everything from `from` to `to` is lit.
    pub fn reset(&mut self, from: Dir, to: Dir) {
        self.spans.clear();
        self.spans.push(Span { from, to });
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn spans(&self) -> &[Span] {
        &self.spans
    }

    /// The first span that ends at or after `dir`.
    #[inline(always)]
    fn first_ending_from(&self, dir: Dir) -> usize {
        self.spans.partition_point(|span| span.to.before(dir))
    }

    /// Whether the ray `dir` is lit.
    #[inline]
    pub fn contains(&self, dir: Dir) -> bool {
        self.spans
            .get(self.first_ending_from(dir))
            .is_some_and(|span| span.from.not_after(dir))
    }

    /// Whether some ray of the closed interval `from ..= to` is lit.
    #[inline]
    pub fn meets(&self, from: Dir, to: Dir) -> bool {
        self.spans
            .get(self.first_ending_from(from))
            .is_some_and(|span| span.from.not_after(to))
    }

    /// Removes the open intervals of `shadows` (sorted by their start and by their end)
    /// and then the single ray `ray` where it is left alone.
    pub fn cut(&mut self, shadows: &[Span], ray: Option<Dir>) {
        self.next.clear();
        let mut first = 0;
        for &Span { from, to } in &self.spans {
            while shadows.get(first).is_some_and(|s| s.to.not_after(from)) {
                first += 1;
            }
            let mut start = from;
            for shadow in shadows[first..].iter().take_while(|s| s.from.before(to)) {
                if !start.before(shadow.to) {
                    continue;
                }
                if start.not_after(shadow.from) {
                    self.next.push(Span {
                        from: start,
                        to: shadow.from,
                    });
                }
                start = shadow.to;
            }
            if start.not_after(to) {
                self.next.push(Span { from: start, to });
            }
        }
        if let Some(ray) = ray {
            self.next
                .retain(|span| !(span.from.same_ray(ray) && span.to.same_ray(ray)));
        }
        std::mem::swap(&mut self.spans, &mut self.next);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn span(from: (i64, i64), to: (i64, i64)) -> Span {
        Span {
            from: Dir::new(from.0, from.1),
            to: Dir::new(to.0, to.1),
        }
    }

    #[test]
    fn shadows_cut_open_intervals_and_leave_grazing_rays() {
        let mut lit = Lit::default();
        lit.reset(Dir::new(1, 0), Dir::new(1, 3));
        // Two shadows touching at (1, 1): the ray between them stays lit.
        lit.cut(&[span((4, 1), (1, 1)), span((1, 1), (2, 5))], None);
        assert_eq!(
            lit.spans(),
            &[
                span((1, 0), (4, 1)),
                span((1, 1), (1, 1)),
                span((2, 5), (1, 3))
            ]
        );
        assert!(lit.contains(Dir::new(2, 2)) && !lit.contains(Dir::new(3, 2)));
        assert!(lit.meets(Dir::new(3, 2), Dir::new(5, 6)));
        assert!(!lit.meets(Dir::new(3, 2), Dir::new(4, 3)));
        // The lone ray goes when asked.
        lit.cut(&[], Some(Dir::new(1, 1)));
        assert_eq!(lit.spans(), &[span((1, 0), (4, 1)), span((2, 5), (1, 3))]);
    }
}
