//! `--weighting` and `--normalize`: the geometry a model reads its rows in, chosen at
//! training and saved in the model, so every later command reads rows the same way.

use clap::{Args, ValueEnum};
use rosenblatt::features::{GeometrySpec, Normalize, TermCounts, Weighting};

/// `--weighting`'s values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WeightingArg {
    /// Every present word counts 1.
    Binary,
    /// Inverse document frequency ln((n+1)/(df+1)) + 1 over the n training documents:
    /// rare words count more.
    Idf,
    /// Naive-Bayes log-count ratio of two classes, ln((p/|p|)/(q/|q|)) with p and q a
    /// word's document counts in the positive and the other class plus --nb-alpha
    /// (NBSVM, Wang and Manning 2012): each word weighs as much as it says about the
    /// class. Two-class `train` only; ratios fitted on each fold's training part under
    /// --cv and --tune.
    Nb,
}

/// `--term-counts`' values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TermCountsArg {
    /// Whether a word occurs: every present word is 1 (rows store no values).
    Binary,
    /// A word's count in its document as 1 + ln tf, under the weighting and normalization
    /// (sublinear tf-idf with the text defaults); 4 more bytes per nonzero.
    Sublinear,
}

impl From<TermCountsArg> for TermCounts {
    fn from(c: TermCountsArg) -> TermCounts {
        match c {
            TermCountsArg::Binary => TermCounts::Binary,
            TermCountsArg::Sublinear => TermCounts::Sublinear,
        }
    }
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
#[command(next_help_heading = "Features")]
pub struct GeometryArgs {
    /// Feature weighting [default: idf for text; binary for mail (--spam/--ham), for
    /// SVMlight rows (values as given) and for `vectorize`]. Rows stay binary in memory (4 bytes per
    /// nonzero); the weights are applied inside every dot product and update. With
    /// --tune, fixes the grid's weighting.
    #[arg(long, value_enum)]
    pub weighting: Option<WeightingArg>,
    /// The smoothing α added to every count of --weighting nb [default: 1].
    #[arg(long, value_name = "ALPHA", value_parser = positive_alpha)]
    pub nb_alpha: Option<f32>,
    /// Row normalization, after the weighting [default: l2 for text and mail; none for
    /// SVMlight rows and for `vectorize`]. With --tune, fixes the grid's normalization.
    #[arg(long, value_enum)]
    pub normalize: Option<NormalizeArg>,
}

impl GeometryArgs {
    /// The library's spec for these flags; what is not given comes from `default`.
    pub fn spec(&self, default: GeometrySpec) -> GeometrySpec {
        GeometrySpec {
            weighting: self.weighting().unwrap_or(default.weighting),
            normalize: self.normalize().unwrap_or(default.normalize),
        }
    }

    /// The weighting given, if any.
    pub fn weighting(&self) -> Option<Weighting> {
        self.weighting.map(|w| match w {
            WeightingArg::Binary => Weighting::Binary,
            WeightingArg::Idf => Weighting::Idf,
            WeightingArg::Nb => Weighting::Nb {
                alpha: self.nb_alpha.unwrap_or(1.0),
            },
        })
    }

    /// Refuses --nb-alpha without --weighting nb, and naive-Bayes weighting where `what`
    /// (a command or flag that is not two-class `train`) is asked for, if it is.
    pub fn check_nb(&self, what: Option<&str>) -> anyhow::Result<()> {
        let nb = self.weighting == Some(WeightingArg::Nb);
        if self.nb_alpha.is_some() && !nb {
            anyhow::bail!("--nb-alpha is the smoothing of --weighting nb: give both");
        }
        if let (true, Some(what)) = (nb, what) {
            anyhow::bail!(
                "--weighting nb fits its ratios on a two-class training corpus's labels; \
                 it does not run with {what}"
            );
        }
        Ok(())
    }

    /// The normalization given, if any.
    pub fn normalize(&self) -> Option<Normalize> {
        self.normalize.map(Normalize::from)
    }
}

impl From<NormalizeArg> for Normalize {
    fn from(n: NormalizeArg) -> Normalize {
        match n {
            NormalizeArg::None => Normalize::None,
            NormalizeArg::L2 => Normalize::L2,
        }
    }
}

/// `--nb-alpha`: a finite number above 0.
fn positive_alpha(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(a) if a.is_finite() && a > 0.0 => Ok(a),
        _ => Err(format!(
            "{s:?} is not a number above 0 (the smoothing α, e.g. 1)"
        )),
    }
}
