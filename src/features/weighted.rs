//! Weighted geometry over binary storage: idf feature weights and unit-length rows, read
//! inside the sparse operations instead of stored in the matrix.
//!
//! A [`Geometry`] is fitted on the training rows (document frequencies counted from
//! their ids) and saved in the model; [`Geometry::apply`] shows any rows through it as a
//! [`Weighted`] row source. A weighted row is the stored row (4 bytes per nonzero) with a
//! pointer to the per-feature weights and one scale (4 bytes per row), so a dot product
//! is `scale · Σ w_j·f_j` and an update `w_j += η·y·scale·f_j`, each over the row's
//! nonzeros only. Learners, theory and scoring read rows through [`SparseRows`] and so
//! see the weighted values without knowing.

use super::{CsrView, RowRef, SparseRows};
use crate::Result;
use crate::raw::CowVec;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// How each feature's value is weighted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub enum Weighting {
    /// Every present feature counts 1 (the stored binary row).
    #[default]
    Binary,
    /// Inverse document frequency, ln((n+1)/(df+1)) + 1 over the n training rows: rare
    /// words count more than words nearly every document has.
    Idf,
    /// The naive-Bayes log-count ratio of two classes (Wang and Manning 2012's NBSVM):
    /// r = ln((p/‖p‖₁) / (q/‖q‖₁)), with p and q each feature's count of training rows in
    /// the positive and the other class plus the smoothing `alpha`. A word's weight says
    /// how strongly, and for which class, it is evidence: the learner then fits a linear
    /// model on rows that already lean the naive-Bayes way.
    Nb {
        /// The smoothing α added to every count (1: Laplace), finite and positive.
        alpha: f32,
    },
}

/// Equality is an equivalence: α is checked finite and positive wherever it is set (the
/// flags, and the check of a model read from a file).
impl Eq for Weighting {}

/// How each row is scaled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Normalize {
    /// Rows as weighted.
    #[default]
    None,
    /// Every row scaled to Euclidean length 1, so long documents do not dominate the
    /// updates and the radius R is 1.
    L2,
}

/// The geometry a model is trained in, as chosen: what `--weighting` and `--normalize`
/// say before any data is seen. Its `Default` reads rows as stored (binary, unscaled);
/// [`GeometrySpec::IDF_L2`] is what `train` uses for text unless told otherwise, and
/// [`GeometrySpec::BINARY_L2`] for mail.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeometrySpec {
    /// Feature weighting.
    pub weighting: Weighting,
    /// Row normalization.
    pub normalize: Normalize,
}

impl GeometrySpec {
    /// Idf-weighted, unit-length rows.
    pub const IDF_L2: GeometrySpec = GeometrySpec {
        weighting: Weighting::Idf,
        normalize: Normalize::L2,
    };

    /// Binary, unit-length rows: the spam filter's default. On mail, rare tokens are
    /// mostly message ids, hosts and dates; idf would weigh them up.
    pub const BINARY_L2: GeometrySpec = GeometrySpec {
        weighting: Weighting::Binary,
        normalize: Normalize::L2,
    };

    /// The spec's name as the flags spell it (`binary`, `idf+l2`, …).
    pub fn name(&self) -> String {
        let w = match self.weighting {
            Weighting::Binary => "binary".to_string(),
            Weighting::Idf => "idf".to_string(),
            Weighting::Nb { alpha: 1.0 } => "nb".to_string(),
            Weighting::Nb { alpha } => format!("nb(alpha {alpha})"),
        };
        match self.normalize {
            Normalize::None => w,
            Normalize::L2 => format!("{w}+l2"),
        }
    }
}

/// A fitted geometry: the spec and, for idf, one weight per training feature. Saved in
/// the model, so classification reads rows as training did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Geometry {
    /// What was asked for.
    pub spec: GeometrySpec,
    /// One weight per feature id (empty when the weighting is binary).
    weights: CowVec<f32>,
    /// The weight of a feature that no training row had (ids beyond `weights`, such as
    /// words `learn` adds later): the idf of df = 0.
    unseen: f32,
}

impl Geometry {
    /// Fits `spec` on training rows: document frequencies are counted from their ids.
    ///
    /// # Panics
    /// Under naive-Bayes weighting, which needs the rows' classes: fit it with
    /// [`Geometry::fit_labelled`].
    pub fn fit<X: SparseRows>(spec: GeometrySpec, x: &X) -> Geometry {
        assert!(
            !matches!(spec.weighting, Weighting::Nb { .. }),
            "naive-Bayes weights are fitted with the rows' classes (Geometry::fit_labelled)"
        );
        let mut df = Vec::new();
        if spec.weighting == Weighting::Idf {
            df = vec![0u32; x.n_cols()];
            for i in 0..x.n_rows() {
                for &j in x.row(i).ids {
                    df[j as usize] += 1;
                }
            }
        }
        Geometry::from_df(spec, &df, x.n_rows())
    }

    /// Fits `spec` on training rows whose classes are `of_row` (indices into `classes`
    /// classes): naive-Bayes ratios count each feature's rows per class, the positive
    /// class being index 1 of two, and are refused for more classes; the other
    /// weightings ignore the classes.
    pub(crate) fn fit_classes<X: SparseRows>(
        spec: GeometrySpec,
        x: &X,
        of_row: &[usize],
        classes: usize,
    ) -> Result<Geometry> {
        if !matches!(spec.weighting, Weighting::Nb { .. }) {
            return Ok(Geometry::fit(spec, x));
        }
        if classes != 2 {
            return Err(nb_two_classes(classes));
        }
        let positive: Vec<bool> = of_row.iter().map(|&c| c == 1).collect();
        Ok(Geometry::fit_labelled(spec, x, &positive))
    }

    /// Fits `spec` on training rows of two classes, `positive[i]` saying whether row `i`
    /// is of the positive one: naive-Bayes weights count each feature's rows per class;
    /// the other weightings ignore the classes ([`Geometry::fit`]).
    pub fn fit_labelled<X: SparseRows>(spec: GeometrySpec, x: &X, positive: &[bool]) -> Geometry {
        let Weighting::Nb { alpha } = spec.weighting else {
            return Geometry::fit(spec, x);
        };
        assert_eq!(positive.len(), x.n_rows(), "one class per row");
        let (mut p, mut q) = (vec![0u32; x.n_cols()], vec![0u32; x.n_cols()]);
        for (i, &pos) in positive.iter().enumerate() {
            let counts = if pos { &mut p } else { &mut q };
            for &j in x.row(i).ids {
                counts[j as usize] += 1;
            }
        }
        let a = f64::from(alpha);
        let total = |c: &[u32]| c.iter().map(|&v| f64::from(v) + a).sum::<f64>();
        let (np, nq) = (total(&p), total(&q));
        let ratio = |pj: u32, qj: u32| {
            (((f64::from(pj) + a) / np) / ((f64::from(qj) + a) / nq)).ln() as f32
        };
        Geometry {
            spec,
            weights: p.iter().zip(&q).map(|(&pj, &qj)| ratio(pj, qj)).collect(),
            unseen: ratio(0, 0),
        }
    }

    /// Fits `spec` from document frequencies counted elsewhere: `df[j]` of feature j among
    /// `n` training rows (a cluster's totals; ignored under binary weighting). Not for
    /// naive-Bayes weighting, which needs counts per class (it panics).
    pub(crate) fn from_df(spec: GeometrySpec, df: &[u32], n: usize) -> Geometry {
        let (weights, unseen) = match spec.weighting {
            Weighting::Binary => (Vec::new(), 1.0),
            Weighting::Idf => (df.iter().map(|&d| idf(n, d as usize)).collect(), idf(n, 0)),
            Weighting::Nb { .. } => panic!("naive-Bayes weights are fitted with classes"),
        };
        Geometry {
            spec,
            weights: weights.into(),
            unseen,
        }
    }

    /// Binary weighting under `normalize`: the geometry of a filter that starts from no
    /// documents (idf has no document counts to be fitted on then).
    pub fn binary(normalize: Normalize) -> Geometry {
        Geometry {
            spec: GeometrySpec {
                weighting: Weighting::Binary,
                normalize,
            },
            weights: CowVec::default(),
            unseen: 1.0,
        }
    }

    /// A geometry from its parts: `weights` one per feature (empty under binary weighting)
    /// and the weight of an unseen feature; a filter's store keeps them per feature and
    /// builds the geometry of one row's features from them.
    #[cfg(any(test, feature = "store"))]
    pub(crate) fn from_parts(spec: GeometrySpec, weights: Vec<f32>, unseen: f32) -> Geometry {
        Geometry {
            spec,
            weights: weights.into(),
            unseen,
        }
    }

    /// The weight of a feature that no training row had.
    #[cfg(feature = "store")]
    pub(crate) fn unseen(&self) -> f32 {
        self.unseen
    }

    /// The per-feature weights (`None` for binary weighting).
    pub(crate) fn feature_weights(&self) -> Option<&[f32]> {
        (self.spec.weighting != Weighting::Binary).then_some(&self.weights[..])
    }

    /// The weight of feature `j`.
    pub fn weight(&self, j: u32) -> f32 {
        match self.spec.weighting {
            Weighting::Binary => 1.0,
            Weighting::Idf | Weighting::Nb { .. } => {
                self.weights.get(j as usize).copied().unwrap_or(self.unseen)
            }
        }
    }

    /// Extends the weights to cover `n` features (new ones weigh as unseen), so rows with
    /// ids beyond the training features — words learned later — can be read.
    pub(crate) fn cover(&mut self, n: usize) {
        if self.spec.weighting != Weighting::Binary && self.weights.len() < n {
            self.weights.resize(n, self.unseen);
        }
    }

    /// Refuses a geometry whose weights do not match the model's features (a damaged or
    /// foreign model file); the error is the end of a sentence about the model.
    pub(crate) fn check(&self, n_features: usize) -> std::result::Result<(), String> {
        let ok = match self.spec.weighting {
            Weighting::Binary => self.weights.is_empty(),
            Weighting::Idf => {
                self.weights.len() == n_features
                    && self
                        .weights
                        .iter()
                        .chain([&self.unseen])
                        .all(|w| w.is_finite() && *w > 0.0)
            }
            // Ratios of either sign; α as the flags allow it.
            Weighting::Nb { alpha } => {
                self.weights.len() == n_features
                    && alpha.is_finite()
                    && alpha > 0.0
                    && self
                        .weights
                        .iter()
                        .chain([&self.unseen])
                        .all(|w| w.is_finite())
            }
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "its feature weights ({} of them) do not match its {n_features} features",
                self.weights.len()
            ))
        }
    }

    /// The scale of a stored row under this geometry: 1/‖x‖ of the weighted row for l2
    /// (1 for an empty row), else 1.
    pub(crate) fn scale(&self, row: RowRef<'_>) -> f32 {
        match self.spec.normalize {
            Normalize::None => 1.0,
            Normalize::L2 => {
                let sq: f64 = row
                    .ids
                    .iter()
                    .enumerate()
                    .map(|(k, &j)| {
                        let v = f64::from(row.vals.map_or(1.0, |v| v[k]) * self.weight(j));
                        v * v
                    })
                    .sum();
                if sq > 0.0 {
                    (1.0 / sq.sqrt()) as f32
                } else {
                    1.0
                }
            }
        }
    }

    /// One stored row read through this geometry; its ids must be covered by the weights
    /// (see [`Geometry::cover`]) — ids beyond them panic.
    pub(crate) fn row<'a>(&'a self, row: RowRef<'a>) -> RowRef<'a> {
        RowRef {
            feature_weights: self.feature_weights(),
            scale: self.scale(row),
            ..row
        }
    }

    /// Rows `x` (stored, unweighted) read through this geometry. Weights must cover
    /// `x.n_cols()`: features beyond the training ones are covered with the unseen weight
    /// in a copy, so the model's own weights never change.
    pub fn apply<'a, X: SparseRows>(&'a self, x: &'a X) -> Weighted<'a, X> {
        let weights = match self.feature_weights() {
            Some(f) if f.len() < x.n_cols() => {
                let mut g = self.clone();
                g.cover(x.n_cols());
                Some(Weights::Owned(g.weights.into_vec()))
            }
            Some(f) => Some(Weights::Borrowed(f)),
            None => None,
        };
        let scales = match self.spec.normalize {
            Normalize::None => None,
            Normalize::L2 => Some(
                (0..x.n_rows())
                    .into_par_iter()
                    .map(|i| self.scale(x.row(i)))
                    .collect(),
            ),
        };
        Weighted { x, weights, scales }
    }
}

/// Why naive-Bayes weighting is refused for `classes` classes or label sets.
pub(crate) fn nb_two_classes(classes: usize) -> crate::Error {
    crate::Error::Unsupported(format!(
        "naive-Bayes weighting (--weighting nb) compares two classes; this corpus has \
         {classes} (or several labels a document): use --weighting idf"
    ))
}

/// The idf weight of a feature in `df` of `n` rows: ln((n+1)/(df+1)) + 1, smoothed as if
/// one more row had every feature, so no weight is zero or infinite.
pub fn idf(n: usize, df: usize) -> f32 {
    (((n as f64 + 1.0) / (df as f64 + 1.0)).ln() + 1.0) as f32
}

/// The feature weights of a [`Weighted`] source: the model's own, or a copy covering
/// more features.
#[derive(Debug)]
enum Weights<'a> {
    Borrowed(&'a [f32]),
    Owned(Vec<f32>),
}

impl Weights<'_> {
    fn get(&self) -> &[f32] {
        match self {
            Weights::Borrowed(w) => w,
            Weights::Owned(w) => w,
        }
    }
}

/// Stored rows read through a [`Geometry`]: what learners fit on and models score when
/// the geometry is not binary. Costs 4 bytes per row (the scales) beside the rows.
#[derive(Debug)]
pub struct Weighted<'a, X> {
    x: &'a X,
    weights: Option<Weights<'a>>,
    scales: Option<Vec<f32>>,
}

impl<X: SparseRows> SparseRows for Weighted<'_, X> {
    fn n_rows(&self) -> usize {
        self.x.n_rows()
    }
    fn n_cols(&self) -> usize {
        self.x.n_cols()
    }
    #[inline]
    fn row(&self, i: usize) -> RowRef<'_> {
        RowRef {
            feature_weights: self.weights.as_ref().map(Weights::get),
            scale: self.scales.as_ref().map_or(1.0, |s| s[i]),
            ..self.x.row(i)
        }
    }
    fn nnz(&self) -> usize {
        self.x.nnz()
    }
    fn csr(&self) -> Option<CsrView<'_>> {
        let v = self.x.csr()?;
        Some(v.weighted(
            self.weights.as_ref().map(Weights::get),
            self.scales.as_deref(),
        ))
    }
    fn check_rows(&self) -> Result<()> {
        self.x.check_rows()
    }
    fn shuffle_block(&self) -> Option<usize> {
        self.x.shuffle_block()
    }
}

#[cfg(test)]
#[path = "weighted_tests.rs"]
mod tests;
