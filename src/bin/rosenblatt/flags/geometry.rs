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

/// How a model reads its rows; recorded in the model and applied by `classify`, `eval`,
/// `learn` and `vectorize -m`.
#[derive(Debug, Clone, Args)]
pub struct GeometryArgs {
    /// Feature weighting. Rows stay binary in memory (4 bytes per nonzero); the weights
    /// are applied inside every dot product and update.
    #[arg(long, value_enum, default_value = "binary")]
    pub weighting: WeightingArg,
    /// Row normalization, applied after the weighting.
    #[arg(long, value_enum, default_value = "none")]
    pub normalize: NormalizeArg,
}

impl GeometryArgs {
    /// The library's spec for these flags.
    pub fn spec(&self) -> GeometrySpec {
        GeometrySpec {
            weighting: match self.weighting {
                WeightingArg::Binary => Weighting::Binary,
                WeightingArg::Idf => Weighting::Idf,
            },
            normalize: match self.normalize {
                NormalizeArg::None => Normalize::None,
                NormalizeArg::L2 => Normalize::L2,
            },
        }
    }
}
