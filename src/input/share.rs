//! Which documents one process of a cluster reads: the inputs are cut into units (a file,
//! a line of a line file, a message of an mbox, a document of a corpus read whole),
//! numbered in input order, and unit k belongs to process k mod N. Every process numbers
//! the same inputs the same way, so the shares are disjoint, cover the corpus, and no
//! process reads another's files or parses another's lines.

/// Process `index` of `of`: the units it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Share {
    /// This process, from 0.
    pub index: usize,
    /// How many processes share the input.
    pub of: usize,
}

impl Share {
    /// The whole input: one process reads every unit.
    pub(crate) const ALL: Share = Share { index: 0, of: 1 };

    /// Whether unit `k` (counted from 0 in input order) is this share's.
    #[inline]
    pub(crate) fn takes(self, k: usize) -> bool {
        k % self.of.max(1) == self.index
    }

    #[cfg(test)]
    /// The items of `all` (units in order, numbered from `*next`) this share takes;
    /// advances `*next` past them.
    pub(crate) fn pick<T>(self, all: Vec<T>, next: &mut usize) -> Vec<T> {
        all.into_iter()
            .filter(|_| {
                let k = *next;
                *next += 1;
                self.takes(k)
            })
            .collect()
    }

    /// As [`Share::pick`], keeping each item's unit number: what puts the results of
    /// several shares back in input order.
    pub(crate) fn pick_numbered<T>(self, all: Vec<T>, next: &mut usize) -> Vec<(usize, T)> {
        let first = *next;
        *next += all.len();
        all.into_iter()
            .enumerate()
            .map(|(i, t)| (first + i, t))
            .filter(|(k, _)| self.takes(*k))
            .collect()
    }
}

impl Default for Share {
    fn default() -> Self {
        Share::ALL
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_are_disjoint_and_cover_every_unit() {
        for of in 1..5 {
            let mut seen = vec![0; 23];
            for index in 0..of {
                let mut next = 0;
                let s = Share { index, of };
                // Two lists numbered on from each other, as two inputs are.
                let a = s.pick((0..10).collect::<Vec<_>>(), &mut next);
                let b = s.pick((10..23).collect::<Vec<_>>(), &mut next);
                assert_eq!(next, 23);
                for u in a.into_iter().chain(b) {
                    assert_eq!(u % of, index);
                    seen[u] += 1;
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "{of}: {seen:?}");
        }
    }
}
