//! The grid: learners with values of their main constant ([`LearnerChoice`],
//! [`Constant`]), geometries and n-gram orders ([`Grid`]), and its points in evaluation
//! order ([`PointSpec`], ready to run as a [`GridPoint`] that spells its `train` flags).
//! Kept apart from running them: what a grid is does not depend on how it is scored.

use crate::Result;
use crate::features::{GeometrySpec, Normalize, TermCounts, Weighting};
use crate::learn::{AnyLearner, Check, Checked, Setting};
use serde::{Deserialize, Serialize};

/// The main constant of a grid learner and its value.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Constant {
    /// C: Passive-Aggressive's aggressiveness, the linear SVM's penalty.
    C(f32),
    /// Passes over the data.
    Epochs(usize),
    /// The L2 strength λ of logistic and softmax regression.
    L2(f32),
}

impl Constant {
    /// The constant as the command line spells it for `learner` (`--pa-c 0.1`, `--svm-c
    /// 1`).
    pub(crate) fn flag(&self, learner: &str) -> String {
        match self {
            Constant::C(c) if learner == "svm" => format!("--svm-c {c}"),
            Constant::C(c) => format!("--pa-c {c}"),
            Constant::Epochs(e) => format!("--epochs {e}"),
            Constant::L2(l) => format!("--l2 {l}"),
        }
    }

    /// The constant as a learner setting.
    pub(crate) fn setting(&self) -> Setting {
        match *self {
            Constant::C(c) => Setting::C(c),
            Constant::Epochs(e) => Setting::Epochs(e),
            Constant::L2(v) => Setting::L2(v),
        }
    }

    /// The grid constant a learner setting is, if it is one.
    fn of(setting: Setting) -> Option<Constant> {
        match setting {
            Setting::C(c) => Some(Constant::C(c)),
            Setting::Epochs(e) => Some(Constant::Epochs(e)),
            Setting::L2(v) => Some(Constant::L2(v)),
            _ => None,
        }
    }

    /// Sets the constant in `learner` (learners that do not have it are left as they are).
    pub(crate) fn apply(&self, learner: &mut AnyLearner) {
        // A grid constant is a value every learner that takes it accepts.
        let _ = learner.set_where_taken(self.setting());
    }
}

/// One learner of a grid: its name, whether it is averaged (`pa --average`), and the
/// value of its main constant when the grid varies it.
#[derive(Debug, Clone, PartialEq)]
pub struct LearnerChoice {
    /// The learner's name, as [`AnyLearner::from_name`] takes it.
    pub name: &'static str,
    /// Averaged weights (`--average`; for the learners that offer it).
    pub average: bool,
    /// The constant's value, or `None` for the learner's own (or the user's) setting.
    pub constant: Option<Constant>,
}

impl LearnerChoice {
    /// The default grid's values of `name`'s main constant, as the learner states them:
    /// C ∈ {0.1, 1} for `pa`, epochs ∈ {5, 10} for the averaged perceptron, λ ∈ {1e-5,
    /// 1e-4} for logistic and softmax regression, C ∈ {1, 3} for the linear SVM; other learners are tuned on their other
    /// dimensions only.
    pub fn defaults_for(name: &'static str, average: bool) -> Vec<LearnerChoice> {
        let constants: Vec<Constant> = AnyLearner::from_name(name)
            .map(|l| l.tuned().iter().filter_map(|&s| Constant::of(s)).collect())
            .unwrap_or_default();
        let choice = |constant| LearnerChoice {
            name,
            average,
            constant,
        };
        if constants.is_empty() {
            vec![choice(None)]
        } else {
            constants.into_iter().map(|c| choice(Some(c))).collect()
        }
    }

    /// The learner with the library's defaults and this choice applied.
    pub(crate) fn default_learner(&self) -> Option<AnyLearner> {
        let mut l = AnyLearner::from_name(self.name)?;
        l.set_where_taken(Setting::Average(self.average)).ok()?;
        if let Some(c) = self.constant {
            c.apply(&mut l);
        }
        Some(l)
    }

    /// A rough cost of fitting it, relative to 10 epochs of the averaged perceptron, to
    /// run cheap points first: logistic regression's exp per row costs about three times
    /// a perceptron update.
    fn relative_cost(&self) -> f64 {
        let per_epoch = AnyLearner::from_name(self.name).map_or(0.1, |l| l.cost_per_epoch());
        let epochs = match self.constant {
            Some(Constant::Epochs(e)) => e as f64,
            _ => 10.0,
        };
        per_epoch * epochs
    }
}

/// A grid: every learner choice × geometry × term counts × n-gram order.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    /// The learners and their constants.
    pub learners: Vec<LearnerChoice>,
    /// Weighting and normalization.
    pub geometries: Vec<GeometrySpec>,
    /// Word n-gram orders (1: single words).
    pub ngrams: Vec<usize>,
    /// What rows keep of each word. A grid that tries both binary rows and counts pairs
    /// the counts with the weighted unit-length geometries only (sublinear tf-idf): raw
    /// counts without the l2 scale let long documents weigh more, and without weights a
    /// repeated common word is louder, not more telling.
    pub counts: Vec<TermCounts>,
}

impl Default for Grid {
    /// The default grid, 32 points: `pa --average` with C ∈ {0.1, 1}, the averaged
    /// perceptron with 5 or 10 epochs, logistic regression with λ ∈ {1e-5, 1e-4} and the
    /// linear SVM with C ∈ {1, 3}, each
    /// on binary rows as stored, on binary unit-length rows (the spam filter's default),
    /// on idf-weighted unit-length rows (text's default) and on sublinear term counts under
    /// idf and l2; single words only.
    fn default() -> Self {
        Grid {
            learners: [
                LearnerChoice::defaults_for("pa", true),
                LearnerChoice::defaults_for("averaged-perceptron", false),
                LearnerChoice::defaults_for("logistic", false),
                LearnerChoice::defaults_for("svm", false),
            ]
            .concat(),
            geometries: Grid::geometries_with(None, None),
            ngrams: vec![1],
            counts: Grid::COUNTS.to_vec(),
        }
    }
}

impl Grid {
    /// The term counts a grid tries unless they are fixed: binary rows and sublinear counts.
    pub const COUNTS: [TermCounts; 2] = [TermCounts::Binary, TermCounts::Sublinear];

    /// The geometries a grid tries when some of weighting and normalization are fixed:
    /// the default grid's three when neither is, else every value of the free one.
    pub fn geometries_with(
        weighting: Option<Weighting>,
        normalize: Option<Normalize>,
    ) -> Vec<GeometrySpec> {
        match (weighting, normalize) {
            (None, None) => vec![
                GeometrySpec::default(),
                GeometrySpec::BINARY_L2,
                GeometrySpec::IDF_L2,
            ],
            (Some(w), None) => [Normalize::None, Normalize::L2]
                .map(|n| GeometrySpec {
                    weighting: w,
                    normalize: n,
                })
                .to_vec(),
            (None, Some(n)) => [Weighting::Binary, Weighting::Idf]
                .map(|w| GeometrySpec {
                    weighting: w,
                    normalize: n,
                })
                .to_vec(),
            (Some(w), Some(n)) => vec![GeometrySpec {
                weighting: w,
                normalize: n,
            }],
        }
    }

    /// Every point, in the order they are evaluated: by n-gram order (each analyzer
    /// vectorizes once), then cheapest learner first (a stable sort, so equal costs keep
    /// the grid's order: learners as listed, binary rows before weighted ones).
    pub fn points(&self) -> Vec<PointSpec> {
        let mut points = Vec::new();
        for &ngrams in &self.ngrams {
            let both = self.counts.len() > 1;
            let mut group: Vec<PointSpec> = self
                .learners
                .iter()
                .flat_map(|l| {
                    self.geometries.iter().flat_map(move |&geometry| {
                        let weighted = geometry.weighting != Weighting::Binary
                            && geometry.normalize == Normalize::L2;
                        self.counts
                            .iter()
                            .filter(move |c| !(both && c.counted() && !weighted))
                            .map(move |&counts| PointSpec {
                                learner: l.clone(),
                                geometry,
                                ngrams,
                                counts,
                            })
                    })
                })
                .collect();
            group.sort_by(|a, b| {
                a.learner
                    .relative_cost()
                    .total_cmp(&b.learner.relative_cost())
            });
            points.extend(group);
        }
        points
    }
}

/// One point of a grid, before its learner is built.
#[derive(Debug, Clone, PartialEq)]
pub struct PointSpec {
    /// The learner and its constant.
    pub learner: LearnerChoice,
    /// Weighting and normalization.
    pub geometry: GeometrySpec,
    /// Word n-gram order.
    pub ngrams: usize,
    /// What rows keep of each word.
    pub counts: TermCounts,
}

impl PointSpec {
    /// The point with the library's default learner settings, checked.
    pub fn with_defaults(&self) -> Result<GridPoint> {
        let learner = self.learner.default_learner().ok_or_else(|| {
            crate::Error::Unsupported(format!("no learner is called {:?}", self.learner.name))
        })?;
        Ok(GridPoint {
            spec: self.clone(),
            learner: learner.check()?,
        })
    }
}

/// A point ready to run: its spec and its learner, built and checked.
#[derive(Debug, Clone)]
pub struct GridPoint {
    /// What the point is.
    pub spec: PointSpec,
    /// The learner, with the spec's constant in it.
    pub learner: Checked<AnyLearner>,
}

impl GridPoint {
    /// The point's flags as the command line spells them, so a row of the table can be
    /// copied into a `train` command.
    pub fn flags(&self) -> String {
        let s = &self.spec;
        let mut f = format!("--learner {}", s.learner.name);
        if s.learner.average && matches!(s.learner.name, "pa" | "margin-perceptron") {
            f.push_str(" --average");
        }
        if let Some(c) = s.learner.constant {
            f.push(' ');
            f.push_str(&c.flag(s.learner.name));
        }
        // Both spelled out: `train`'s defaults depend on the input.
        f.push_str(&match s.geometry.weighting {
            Weighting::Binary => " --weighting binary".to_string(),
            Weighting::Idf => " --weighting idf".to_string(),
            Weighting::Nb { alpha } => format!(" --weighting nb --nb-alpha {alpha}"),
        });
        f.push_str(match s.geometry.normalize {
            Normalize::None => " --normalize none",
            Normalize::L2 => " --normalize l2",
        });
        if s.counts.counted() {
            f.push_str(&format!(" --term-counts {}", s.counts.name()));
        }
        if s.ngrams != 1 {
            f.push_str(&format!(" --ngrams {}", s.ngrams));
        }
        f
    }
}
