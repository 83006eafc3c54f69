//! The registry: every learner, one entry each. The macro below makes [`AnyLearner`] from
//! the list, with its name lookup and the `each!` dispatch that [`super::any`] builds the
//! learner's methods on. A new learner is its own file implementing
//! [`super::kind::LearnerKind`] and one entry here.

use super::AnyModel;
use super::into_any::IntoAny;
use super::kind::LearnerKind;
use super::{
    AveragedPerceptron, Check, Checked, Fitted, KernelPerceptron, Label, Learner, LinearSvm,
    LogisticRegression, MarginPerceptron, NearestCentroid, PassiveAggressive, Perceptron,
    SoftmaxRegression, Winnow,
};
use crate::Result;
use crate::error::ConfigError;
use crate::features::SparseRows;
use serde::{Deserialize, Serialize};

/// Makes [`AnyLearner`] and its dispatch from the list of learners. `$d` is a `$`, for
/// the `each!` macro made inside.
macro_rules! learners {
    ($d:tt $( $(#[$doc:meta])* $variant:ident($kind:ty), )*) => {
        /// Any learner's configuration; checked, it fits binary, multiclass and multi-label
        /// targets. The variants are the registry's learners.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        pub enum AnyLearner {
            $( $(#[$doc])* $variant($kind), )*
        }

        /// Runs `$body` with `$l` bound to the learner inside `$any`, whatever its kind.
        macro_rules! each {
            ($d any:expr, $d l:ident => $d body:expr) => {
                match $d any {
                    $( AnyLearner::$variant($d l) => $d body, )*
                }
            };
        }
        pub(crate) use each;

        impl AnyLearner {
            /// The names [`AnyLearner::from_name`] knows, in registry order (the command
            /// line's `--learner` values).
            pub const NAMES: &'static [&'static str] = &[$( <$kind as LearnerKind>::NAME, )*];

            /// The learner called `name`, with its defaults (the command line's defaults),
            /// or `None` for an unknown name.
            pub fn from_name(name: &str) -> Option<AnyLearner> {
                $( if name == <$kind as LearnerKind>::NAME {
                    return Some(AnyLearner::$variant(<$kind>::default()));
                } )*
                None
            }
        }

        $( impl From<$kind> for AnyLearner {
            fn from(l: $kind) -> AnyLearner {
                AnyLearner::$variant(l)
            }
        } )*

        /// A binary problem: the learner's own fit, its model as the model file holds it.
        impl Learner for Checked<AnyLearner> {
            type Model = AnyModel;
            fn fit<X: SparseRows>(&self, x: &X, y: &[Label]) -> Result<Fitted<AnyModel>> {
                match &**self {
                    // Each variant was checked as part of this one.
                    $( AnyLearner::$variant(p) => {
                        let f = Checked::assume(*p).fit(x, y)?;
                        Ok(Fitted {
                            model: f.model.into_any(p.probabilistic()),
                            report: f.report,
                        })
                    } )*
                }
            }
        }
    };
}

learners! { $
    /// Rosenblatt's perceptron.
    Perceptron(Perceptron),
    /// The dual (kernel) perceptron, for small corpora.
    KernelPerceptron(KernelPerceptron),
    /// The averaged perceptron.
    AveragedPerceptron(AveragedPerceptron),
    /// The perceptron that updates when the margin is at most τ.
    MarginPerceptron(MarginPerceptron),
    /// Passive-Aggressive PA-I.
    PassiveAggressive(PassiveAggressive),
    /// Balanced Winnow (multiplicative updates).
    Winnow(Winnow),
    /// The nearest class centroid.
    Centroid(NearestCentroid),
    /// Logistic regression (batch, SGD, mini-batch).
    Logistic(LogisticRegression),
    /// Softmax regression (binary problems: two classes; see `softmax` for more).
    Softmax(SoftmaxRegression),
    /// The linear SVM (squared hinge loss, dual coordinate descent).
    Svm(LinearSvm),
}

impl Check for AnyLearner {
    fn validate(&self) -> std::result::Result<(), ConfigError> {
        each!(self, l => l.validate())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Param;
    use crate::learn::{Averaging, Bias, EarlyStopping, Kernel, RateSchedule, Schedule, Setting};
    use crate::learn::{Check, Solver};

    /// A value of every setting, each different from every learner's default (averaging
    /// twice: on and off, as learners differ in their default).
    fn samples() -> Vec<Setting> {
        vec![
            Setting::Eta(0.5),
            Setting::Epochs(3),
            Setting::Bias(Bias::None),
            Setting::Schedule(Schedule::UntilConvergence { max_epochs: 4 }),
            Setting::Shuffle(None),
            Setting::Average(true),
            Setting::Average(false),
            Setting::Margin(0.25),
            Setting::C(0.5),
            Setting::Alpha(2.0),
            Setting::L2(0.01),
            Setting::Solver(Solver::MiniBatch(8)),
            Setting::RateSchedule(RateSchedule::Inverse),
            Setting::EarlyStopping(EarlyStopping {
                fraction: 0.2,
                patience: 2,
            }),
            Setting::PositiveWeight(2.0),
            Setting::Kernel(Kernel::Rbf { gamma: 0.5 }),
            Setting::Averaging(Averaging::Voted),
            Setting::Memory(1 << 20),
            Setting::Force(true),
        ]
    }

    #[test]
    fn names_round_trip_and_are_distinct() {
        for (i, &name) in AnyLearner::NAMES.iter().enumerate() {
            let l = AnyLearner::from_name(name).unwrap();
            assert_eq!(l.name(), name);
            assert!(!AnyLearner::NAMES[..i].contains(&name), "{name} twice");
            assert!(
                l.clone().check().is_ok(),
                "{name}: its defaults do not check"
            );
            assert!(!AnyLearner::about(name).unwrap().is_empty());
        }
        assert_eq!(AnyLearner::from_name("adaline"), None);
        assert_eq!(AnyLearner::default().name(), "pa");
    }

    #[test]
    fn a_learner_takes_exactly_the_parameters_it_lists_and_each_changes_it() {
        let mut refused = 0;
        for &name in AnyLearner::NAMES {
            let default = AnyLearner::from_name(name).unwrap();
            let mut changed_by = Vec::new();
            for s in samples() {
                let mut l = default.clone();
                let set = l.set(s);
                if default.accepts().contains(&s.param()) {
                    set.unwrap_or_else(|e| panic!("{name} refused {s:?}: {e}"));
                    if l != default {
                        changed_by.push(s.param());
                    }
                } else {
                    let e = set.expect_err("a parameter it does not list");
                    assert!(e.to_string().starts_with(&format!("{name} does not take")));
                    assert_eq!(l, default, "{name}: a refused setting changed it");
                    refused += 1;
                }
            }
            // A listed parameter that changes nothing would be a flag silently ignored.
            for p in default.accepts() {
                assert!(changed_by.contains(p), "{name} lists {p:?} but ignores it");
            }
        }
        assert!(refused > 60, "{refused}");
    }

    #[test]
    fn refusals_name_the_learners_that_take_the_parameter() {
        let mut pa = AnyLearner::from_name("pa").unwrap();
        let e = pa.set(Setting::Alpha(2.0)).unwrap_err().to_string();
        assert_eq!(
            e, "pa does not take Winnow's promotion factor (alpha); winnow does",
            "{e}"
        );
        assert_eq!(AnyLearner::taking(Param::L2), ["logistic", "softmax"]);
        let e = pa.set(Setting::Bias(Bias::R2)).unwrap_err().to_string();
        assert!(e.contains("must be none or augmented for pa"), "{e}");
        pa.set(Setting::C(0.25)).unwrap();
        assert!(
            pa.describe().starts_with("C 0.25, 7 epochs"),
            "{}",
            pa.describe()
        );
    }
}
