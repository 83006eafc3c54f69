//! `--weighting` and `--normalize`: the geometry a model reads its rows in, chosen at
//! training and saved in the model, so every later command reads rows the same way.

use clap::{Args, ValueEnum};
use rosenblatt::features::{GeometrySpec, Normalize, Weighting};

/// `--weighting`'s values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WeightingArg {
    /// Every present word counts 1.
    Binary,
    /// Inverse document frequency ln((n+1)/(df+1)) + 1 over the n training documents:
    /// rare words count more.
    Idf,
}

/// `--normalize`'s values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NormalizeArg {
    /// Rows as weighted.
    None,
    /// Every row scaled to length 1 (R = 1), so long documents do not dominate.
    L2,
}

/// How a model reads its rows; recorded in the model and applied by `classify`, `eval`
/// and `learn`.
#[derive(Debug, Clone, Args)]
pub struct GeometryArgs {
    /// Feature weighting [default: idf for text and mail; binary (values as given) for
    /// SVMlight rows and for `vectorize`]. Rows stay binary in memory (4 bytes per
    /// nonzero); the weights are applied inside every dot product and update.
    #[arg(long, value_enum)]
    pub weighting: Option<WeightingArg>,
    /// Row normalization, after the weighting [default: l2 for text and mail; none for
    /// SVMlight rows and for `vectorize`].
    #[arg(long, value_enum)]
    pub normalize: Option<NormalizeArg>,
}

impl GeometryArgs {
    /// The library's spec for these flags; what is not given comes from `default`.
    pub fn spec(&self, default: GeometrySpec) -> GeometrySpec {
        GeometrySpec {
            weighting: match self.weighting {
                None => default.weighting,
                Some(WeightingArg::Binary) => Weighting::Binary,
                Some(WeightingArg::Idf) => Weighting::Idf,
            },
            normalize: match self.normalize {
                None => default.normalize,
                Some(NormalizeArg::None) => Normalize::None,
                Some(NormalizeArg::L2) => Normalize::L2,
            },
        }
    }
}
