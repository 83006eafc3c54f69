//! Flags of the linear learners beside the perceptron (averaged and margin perceptrons,
//! PA-I, Winnow, nearest centroid, logistic and softmax regression) and of multi-label
//! training; which learner each flag applies to; and the one place a learner is built
//! from its name and the flags.

use super::kernel::{self, KernelArgs};
use super::names::{BiasName, RateScheduleName};
use super::schedule::{LearnerName, Mode, ScheduleArgs};
use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use rosenblatt::learn::multilabel::MultiLabelOptions;
use rosenblatt::learn::{AnyLearner, EarlyStopping, OnlineOptions, Solver, Thresholds};

/// The gradient solvers `--solver` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SolverName {
    /// Steepest descent on the full gradient, one step per epoch.
    Batch,
    /// One step per document.
    Sgd,
    /// One step per --batch-size documents.
    Minibatch,
}

/// How multi-label thresholds are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ThresholdMode {
    /// The F1-best cut of each label's out-of-fold scores (--threshold-folds folds).
    Cv,
    /// 0 for discriminants, ½ for softmax probabilities.
    Default,
}

/// Flags of the learners other than the perceptron and the kernel perceptron.
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = "Learner")]
pub struct LearnerArgs {
    /// Margin τ: margin-perceptron updates when y·(w·x + b) ≤ τ [default: 1]; winnow also
    /// updates below it [default: 0].
    #[arg(long, allow_negative_numbers = true)]
    pub margin: Option<f32>,
    /// PA-I aggressiveness C: the largest step [default: 1].
    #[arg(long = "pa-c", allow_negative_numbers = true)]
    pub pa_c: Option<f32>,
    /// Winnow's promotion factor α > 1 [default: 1.5].
    #[arg(long, allow_negative_numbers = true)]
    pub alpha: Option<f32>,
    /// Return the averaged weights: margin-perceptron (pa always averages unless
    /// --no-average is given).
    #[arg(long, conflicts_with = "no_average")]
    pub average: bool,
    /// Return the last weights instead of the average (pa, margin-perceptron).
    #[arg(long)]
    pub no_average: bool,
    /// Visit documents in input order, as the textbook perceptron does, instead of a fresh
    /// seeded shuffle per epoch (every learner shuffles by default). Input sorted by class
    /// (class folders) then pulls the model towards the last class; train warns.
    #[arg(long)]
    pub no_shuffle: bool,
    /// Multiply the steps on positive examples (helps rare classes in one-vs-rest).
    #[arg(long, allow_negative_numbers = true, default_value_t = 1.0)]
    pub positive_weight: f32,
    /// L2 strength λ of logistic and softmax regression [default: 1e-5]. With --tune,
    /// fixes their λ.
    #[arg(long, allow_negative_numbers = true)]
    pub l2: Option<f32>,
    /// Gradient solver of logistic regression (softmax: sgd or minibatch).
    #[arg(long, value_enum, default_value_t = SolverName::Sgd)]
    pub solver: SolverName,
    /// Documents per step for --solver minibatch.
    #[arg(long, default_value_t = 32)]
    pub batch_size: usize,
    /// Learning-rate decay of logistic and softmax regression.
    #[arg(long, value_enum, default_value_t = RateScheduleName::InverseSqrt)]
    pub lr_schedule: RateScheduleName,
    /// Logistic regression: hold out this fraction and stop when its log-loss stops
    /// improving (the best epoch is kept).
    #[arg(long, allow_negative_numbers = true, value_name = "FRACTION")]
    pub early_stop: Option<f64>,
    /// Epochs without held-out improvement before --early-stop stops.
    #[arg(long, default_value_t = 3)]
    pub early_stop_patience: usize,
    /// Multi-label: how per-label thresholds are chosen.
    #[arg(long, value_enum, default_value_t = ThresholdMode::Cv)]
    pub thresholds: ThresholdMode,
    /// Multi-label: folds of the threshold cross-validation [default: 5, or the number
    /// of training documents when there are fewer].
    #[arg(long)]
    pub threshold_folds: Option<usize>,
    /// Multi-label: labels whose best cross-validated F1 is below this keep the default
    /// threshold.
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.3)]
    pub threshold_min_f1: f64,
    /// Multi-label: allow documents with no label (by default a document with no score
    /// above threshold gets its best label).
    #[arg(long)]
    pub allow_empty: bool,
}

impl LearnerArgs {
    /// The multi-label settings.
    pub fn multilabel(&self, seed: u64) -> MultiLabelOptions {
        MultiLabelOptions {
            thresholds: match self.thresholds {
                ThresholdMode::Cv => Thresholds::CrossValidated {
                    folds: self.threshold_folds.unwrap_or(5),
                    seed,
                    min_f1: self.threshold_min_f1,
                },
                ThresholdMode::Default => Thresholds::Default,
            },
            at_least_one: !self.allow_empty,
        }
    }
}

/// Refuses flags that the chosen learner would ignore.
fn refuse_unused(a: &ScheduleArgs, k: &KernelArgs, f: &LearnerArgs) -> Result<()> {
    if a.learner() != LearnerName::KernelPerceptron {
        kernel::refuse_unused(k)?;
    }
    if a.mode != Mode::Batch
        && !matches!(
            a.learner(),
            LearnerName::Perceptron | LearnerName::KernelPerceptron
        )
    {
        bail!("--mode applies to the perceptron and the kernel perceptron only");
    }
    let per_perceptron = matches!(
        a.learner(),
        LearnerName::AveragedPerceptron | LearnerName::MarginPerceptron | LearnerName::Pa
    );
    if !per_perceptron && (f.average || f.no_average || f.pa_c.is_some()) {
        bail!(
            "--average, --no-average and --pa-c apply to the perceptron family \
             (margin-perceptron, pa)"
        );
    }
    if f.margin.is_some()
        && !matches!(
            a.learner(),
            LearnerName::MarginPerceptron | LearnerName::Winnow
        )
    {
        bail!("--margin applies to --learner margin-perceptron and winnow only");
    }
    if a.eta != 1.0
        && matches!(
            a.learner(),
            LearnerName::AveragedPerceptron
                | LearnerName::Pa
                | LearnerName::Winnow
                | LearnerName::Centroid
        )
    {
        bail!(
            "--eta applies to the perceptron, margin-perceptron, logistic and softmax (pa \
             steps by its own rule: see --pa-c)"
        );
    }
    if f.alpha.is_some() && a.learner() != LearnerName::Winnow {
        bail!("--alpha applies to --learner winnow only");
    }
    if f.l2.is_some() && !matches!(a.learner(), LearnerName::Logistic | LearnerName::Softmax) {
        bail!("--l2 applies to --learner logistic and softmax only");
    }
    if f.early_stop.is_some() && a.learner() != LearnerName::Logistic {
        bail!("--early-stop applies to --learner logistic only");
    }
    if f.no_shuffle
        && matches!(
            a.learner(),
            LearnerName::Centroid | LearnerName::Logistic | LearnerName::Softmax
        )
    {
        bail!(
            "--no-shuffle applies to the perceptron family and winnow (centroids ignore \
             order; gradient descent always draws its seeded order)"
        );
    }
    if a.epochs.is_some() && a.learner() == LearnerName::Centroid {
        bail!("--epochs does not apply to --learner centroid (the class means take one pass)");
    }
    if f.no_shuffle && a.mode == Mode::Random {
        bail!("--no-shuffle does not apply to --mode random (it draws documents at random)");
    }
    if a.mode != Mode::Random && (a.rounds.is_some() || a.patience.is_some()) {
        bail!("--rounds and --patience apply to --mode random only");
    }
    if a.learner() == LearnerName::Softmax && f.solver == SolverName::Batch {
        bail!("softmax regression trains with --solver sgd or minibatch");
    }
    Ok(())
}

/// The learner named by `--learner`: the library's defaults for that name, with every
/// learner flag applied (refused where the learner would ignore it). Not yet checked.
pub fn learner(a: &ScheduleArgs, k: &KernelArgs, f: &LearnerArgs) -> Result<AnyLearner> {
    refuse_unused(a, k, f)?;
    let mut l = AnyLearner::from_name(&a.learner().library_name()).context("no such learner")?;
    let shuffle = a.shuffle(f.no_shuffle);
    let bias = a.bias != BiasName::None;
    let online = |o: &mut OnlineOptions| {
        o.epochs = a.epochs();
        o.bias = bias;
        o.shuffle = shuffle;
        o.positive_weight = f.positive_weight;
    };
    let solver = match f.solver {
        SolverName::Batch => Solver::Batch,
        SolverName::Sgd => Solver::Sgd,
        SolverName::Minibatch => Solver::MiniBatch(f.batch_size),
    };
    match &mut l {
        AnyLearner::Perceptron(p) => {
            p.eta = a.eta;
            p.bias = a.bias.into();
            p.schedule = a.schedule();
            p.shuffle = shuffle;
        }
        AnyLearner::KernelPerceptron(p) => kernel::apply(a, k, f.no_shuffle, p)?,
        // Always averaged, whether or not --average is given.
        AnyLearner::AveragedPerceptron(p) => online(&mut p.online),
        AnyLearner::MarginPerceptron(p) => {
            online(&mut p.online);
            p.online.average = (p.online.average || f.average) && !f.no_average;
            p.eta = a.eta;
            p.tau = f.margin.unwrap_or(p.tau);
        }
        AnyLearner::PassiveAggressive(p) => {
            online(&mut p.online);
            p.online.average = (p.online.average || f.average) && !f.no_average;
            p.c = f.pa_c.unwrap_or(p.c);
        }
        AnyLearner::Winnow(w) => {
            w.epochs = a.epochs();
            w.bias = bias;
            w.shuffle = shuffle;
            w.alpha = f.alpha.unwrap_or(w.alpha);
            w.margin = f.margin.unwrap_or(w.margin);
        }
        AnyLearner::Centroid(_) => {}
        AnyLearner::Logistic(r) => {
            r.solver = solver;
            r.eta = a.eta;
            r.schedule = f.lr_schedule.into();
            r.l2 = f.l2.unwrap_or(r.l2);
            r.epochs = a.epochs();
            r.bias = bias;
            r.early_stopping = f.early_stop.map(|fraction| EarlyStopping {
                fraction,
                patience: f.early_stop_patience,
            });
            r.seed = a.seed;
            r.positive_weight = f.positive_weight;
        }
        AnyLearner::Softmax(s) => {
            s.eta = a.eta;
            s.schedule = f.lr_schedule.into();
            s.l2 = f.l2.unwrap_or(s.l2);
            s.epochs = a.epochs();
            s.batch = match solver {
                Solver::MiniBatch(b) => b,
                _ => 1,
            };
            s.seed = a.seed;
        }
    }
    Ok(l)
}

/// A one-line description of the learner's settings, for the model's metadata.
pub fn describe(l: &AnyLearner) -> Option<String> {
    let on = |o: &OnlineOptions| {
        format!(
            "{} epochs, bias {}, averaged {}, shuffle {}",
            o.epochs,
            o.bias,
            o.average,
            o.shuffle.is_some()
        )
    };
    Some(match l {
        AnyLearner::AveragedPerceptron(p) => on(&p.online),
        AnyLearner::MarginPerceptron(p) => {
            format!("margin {}, eta {}, {}", p.tau, p.eta, on(&p.online))
        }
        AnyLearner::PassiveAggressive(p) => format!("C {}, {}", p.c, on(&p.online)),
        AnyLearner::Winnow(w) => format!(
            "alpha {}, margin {}, {} epochs",
            w.alpha, w.margin, w.epochs
        ),
        AnyLearner::Centroid(_) => "class means".to_string(),
        AnyLearner::Logistic(r) => format!(
            "{:?}, eta {} ({:?}), l2 {}, {} epochs, early stopping {:?}",
            r.solver, r.eta, r.schedule, r.l2, r.epochs, r.early_stopping
        )
        .to_lowercase(),
        AnyLearner::Softmax(s) => format!(
            "batch {}, eta {} ({:?}), l2 {}, {} epochs",
            s.batch, s.eta, s.schedule, s.l2, s.epochs
        )
        .to_lowercase(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use rosenblatt::learn::{
        AveragedPerceptron, KernelPerceptron, LogisticRegression, MarginPerceptron,
        NearestCentroid, PassiveAggressive, Perceptron, SoftmaxRegression, Winnow,
    };

    /// The three flag groups that build a learner, as `train` flattens them.
    #[derive(Debug, Parser)]
    struct Groups {
        #[command(flatten)]
        schedule: ScheduleArgs,
        #[command(flatten)]
        kernel: KernelArgs,
        #[command(flatten)]
        learners: LearnerArgs,
    }

    /// The learner that `--learner NAME` and any extra flags build.
    fn build(name: &str, extra: &[&str]) -> Result<AnyLearner> {
        let argv = ["rosenblatt", "--learner", name];
        let g = Groups::try_parse_from(argv.iter().chain(extra)).unwrap();
        learner(&g.schedule, &g.kernel, &g.learners)
    }

    #[test]
    fn every_learner_name_is_a_library_name() {
        let cli: Vec<String> = LearnerName::value_variants()
            .iter()
            .map(|l| l.library_name())
            .collect();
        assert_eq!(cli, AnyLearner::NAMES);
    }

    #[test]
    fn the_command_line_defaults_are_the_library_defaults() {
        // Each learner's Default, written out: from_name must give exactly these.
        let defaults = [
            AnyLearner::Perceptron(Perceptron::default()),
            AnyLearner::KernelPerceptron(KernelPerceptron::default()),
            AnyLearner::AveragedPerceptron(AveragedPerceptron::default()),
            AnyLearner::MarginPerceptron(MarginPerceptron::default()),
            AnyLearner::PassiveAggressive(PassiveAggressive::default()),
            AnyLearner::Winnow(Winnow::default()),
            AnyLearner::Centroid(NearestCentroid),
            AnyLearner::Logistic(LogisticRegression::default()),
            AnyLearner::Softmax(SoftmaxRegression::default()),
        ];
        for (name, default) in AnyLearner::NAMES.into_iter().zip(defaults) {
            let library = AnyLearner::from_name(name).unwrap();
            assert_eq!(library, default, "{name}: from_name is not Default");
            let cli = build(name, &[]).unwrap();
            assert_eq!(cli, library, "{name}: the command line's defaults differ");
        }
        assert_eq!(AnyLearner::from_name("adaline"), None);
    }

    #[test]
    fn flags_override_the_defaults() {
        let l = build("pa", &["--pa-c", "0.5", "--average", "--epochs", "3"]);
        let AnyLearner::PassiveAggressive(p) = l.unwrap() else {
            panic!("pa expected");
        };
        assert_eq!((p.c, p.online.average, p.online.epochs), (0.5, true, 3));
        let l = build("perceptron", &["--no-shuffle", "--bias", "r2"]);
        let AnyLearner::Perceptron(p) = l.unwrap() else {
            panic!("perceptron expected");
        };
        assert_eq!((p.shuffle, p.bias), (None, rosenblatt::learn::Bias::R2));
        assert!(build("logistic", &["--alpha", "2"]).is_err());
    }
}
