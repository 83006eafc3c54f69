//! The dual perceptron's Gram rows under a memory budget: cached while it lasts,
//! recomputed on demand above it.

use super::gram::Gram;

/// Gram rows for training, computed on demand (each row in parallel over column ranges)
/// and cached while the memory budget lasts. When all n rows fit, no row is ever computed
/// twice; above the budget the rows that do not fit are recomputed on every use. Only the
/// rows of examples that cause updates (the support vectors) are ever asked for, which on
/// text is a small fraction of n.
#[derive(Debug)]
pub(crate) struct GramRows {
    gram: Gram,
    slot_of: Vec<u32>,
    cache: Vec<Box<[f32]>>,
    capacity_rows: usize,
    scratch: Vec<f32>,
    computed: u64,
}

impl GramRows {
    /// Rows of `gram`, caching at most `budget` bytes of them.
    pub(crate) fn new(gram: Gram, budget: u64) -> Self {
        let n = gram.n();
        let row_bytes = (n as u64 * 4).max(1);
        GramRows {
            slot_of: vec![u32::MAX; n],
            cache: Vec::new(),
            capacity_rows: (budget / row_bytes).min(n as u64) as usize,
            scratch: Vec::new(),
            computed: 0,
            gram,
        }
    }

    /// Whether every row fits in the cache (the whole matrix when all are asked for).
    #[cfg(test)]
    pub(crate) fn fits(&self) -> bool {
        self.capacity_rows == self.gram.n()
    }

    /// Rows computed so far (recomputations included).
    pub(crate) fn rows_computed(&self) -> u64 {
        self.computed
    }

    /// Rows held in the cache.
    #[cfg(test)]
    pub(crate) fn rows_cached(&self) -> usize {
        self.cache.len()
    }

    /// The index behind the rows.
    pub(crate) fn gram(&self) -> &Gram {
        &self.gram
    }

    /// Row i: K(xᵢ, xⱼ) for every j.
    pub(crate) fn row(&mut self, i: usize) -> &[f32] {
        let n = self.gram.n();
        let slot = self.slot_of[i];
        if slot != u32::MAX {
            return &self.cache[slot as usize];
        }
        self.computed += 1;
        if self.cache.len() < self.capacity_rows {
            let mut row = vec![0f32; n].into_boxed_slice();
            self.gram.row_into(i, &mut row);
            self.slot_of[i] = self.cache.len() as u32;
            self.cache.push(row);
            self.cache.last().expect("just pushed")
        } else {
            self.scratch.resize(n, 0.0);
            self.gram.row_into(i, &mut self.scratch);
            &self.scratch
        }
    }
}
