//! [`Seen`]: per-thread scratch that keeps a row's ids unique as tokens arrive (one stamp
//! per id), so a document's row needs only its distinct ids sorted, not every token.

/// Marks of which ids the current document already has.
#[derive(Debug, Clone, Default)]
pub(crate) struct Seen {
    stamp: u32,
    marks: Vec<u32>,
}

impl Seen {
    /// Scratch for ids below `n`.
    pub(crate) fn new(n: usize) -> Self {
        Seen {
            stamp: 1,
            marks: vec![0; n],
        }
    }

    /// Starts a new document: every id is unseen again.
    #[inline]
    pub(crate) fn next_document(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.marks.fill(0);
            self.stamp = 1;
        }
    }

    /// Makes room for ids below `n` (for tables that grow).
    #[inline]
    pub(crate) fn grow(&mut self, n: usize) {
        if self.marks.len() < n {
            self.marks.resize(n, 0);
        }
    }

    /// Whether `id` is new in this document (and marks it).
    #[inline]
    pub(crate) fn first(&mut self, id: u32) -> bool {
        let m = &mut self.marks[id as usize];
        if *m == self.stamp {
            false
        } else {
            *m = self.stamp;
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_reset_per_document() {
        let mut s = Seen::new(4);
        assert!(s.first(2) && !s.first(2) && s.first(3));
        s.next_document();
        assert!(s.first(2));
        s.grow(10);
        assert!(s.first(9) && !s.first(9));
    }
}
