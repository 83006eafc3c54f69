//! Flags of the linear learners beside the perceptron (averaged and margin perceptrons,
//! PA-I, Winnow, nearest centroid, logistic and softmax regression) and of multi-label
//! training, and the one place a learner is built from its name and the flags: each
//! flag becomes a library setting, and a learner that does not take it (its own list
//! of parameters says) refuses the flag.

use super::kernel::KernelArgs;
use super::names::RateScheduleName;
use super::schedule::ScheduleArgs;
use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use rosenblatt::error::Param;
use rosenblatt::learn::MultiLabelOptions;
use rosenblatt::learn::{AnyLearner, EarlyStopping, Setting, Solver, Thresholds};

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
    /// PA-I aggressiveness C: the largest step [default: 0.3 when `train` reads text of two
    /// classes, 1 otherwise: one-vs-rest and multi-label models, mail filters, SVMlight];
    /// as --svm-c, the linear SVM's penalty C on its squared hinge losses [default: 1].
    #[arg(long = "pa-c", visible_alias = "svm-c", allow_negative_numbers = true)]
    pub pa_c: Option<f32>,
    /// Winnow's promotion factor α > 1 [default: 1.5].
    #[arg(long, allow_negative_numbers = true)]
    pub alpha: Option<f32>,
    /// Return the averaged weights: margin-perceptron, and a spam filter's pa (pa averages
    /// unless --no-average is given, but a spam filter's pa keeps its last weights).
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
    /// Multiply the steps on positive examples (helps rare classes in one-vs-rest)
    /// [default: 1].
    #[arg(long, allow_negative_numbers = true)]
    pub positive_weight: Option<f32>,
    /// L2 strength λ of logistic and softmax regression [default: 1e-5]. With --tune,
    /// fixes their λ.
    #[arg(long, allow_negative_numbers = true)]
    pub l2: Option<f32>,
    /// Gradient solver of logistic regression (softmax: sgd or minibatch) [default: sgd].
    #[arg(long, value_enum)]
    pub solver: Option<SolverName>,
    /// Documents per step for --solver minibatch [default: 32].
    #[arg(long, value_parser = super::names::whole(1usize), allow_negative_numbers = true)]
    pub batch_size: Option<usize>,
    /// Learning-rate decay of logistic and softmax regression [default: inverse-sqrt].
    #[arg(long, value_enum)]
    pub lr_schedule: Option<RateScheduleName>,
    /// Logistic regression: hold out this fraction and stop when its log-loss stops
    /// improving (the best epoch is kept).
    #[arg(long, allow_negative_numbers = true, value_name = "FRACTION")]
    pub early_stop: Option<f64>,
    /// Epochs without held-out improvement before --early-stop stops [default: 3].
    #[arg(long, value_parser = super::names::whole(1usize), allow_negative_numbers = true)]
    pub early_stop_patience: Option<usize>,
    /// Multi-label: how per-label thresholds are chosen.
    #[arg(long, value_enum, default_value_t = ThresholdMode::Cv)]
    pub thresholds: ThresholdMode,
    /// Multi-label: folds of the threshold cross-validation [default: 3, or the number
    /// of training documents when there are fewer].
    #[arg(long, value_parser = super::names::whole(2usize), allow_negative_numbers = true)]
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
                    folds: self.threshold_folds.unwrap_or(MultiLabelOptions::FOLDS),
                    seed,
                    min_f1: self.threshold_min_f1,
                },
                ThresholdMode::Default => Thresholds::Default,
            },
            at_least_one: !self.allow_empty,
        }
    }
}

/// Refuses flag combinations that no learner reads (whatever the learner).
fn refuse_combinations(a: &ScheduleArgs, f: &LearnerArgs) -> Result<()> {
    if f.no_shuffle && a.random() {
        bail!("--no-shuffle does not apply to --mode random (it draws documents at random)");
    }
    if !a.random() && (a.rounds.is_some() || a.patience.is_some()) {
        bail!("--rounds and --patience apply to --mode random only");
    }
    if f.batch_size.is_some() && f.solver != Some(SolverName::Minibatch) {
        bail!("--batch-size applies to --solver minibatch only");
    }
    if f.early_stop_patience.is_some() && f.early_stop.is_none() {
        bail!("--early-stop-patience applies to --early-stop only");
    }
    Ok(())
}

/// The learner settings the flags give, each with the flag that gave it.
fn settings(
    a: &ScheduleArgs,
    k: &KernelArgs,
    f: &LearnerArgs,
) -> Result<Vec<(&'static str, Setting)>> {
    let mut out = Vec::new();
    let mut put = |flag, setting: Option<Setting>| {
        if let Some(s) = setting {
            out.push((flag, s));
        }
    };
    put("--epochs", a.epochs.map(Setting::Epochs));
    put("--mode", a.schedule().map(Setting::Schedule));
    put("--eta", a.eta.map(Setting::Eta));
    put("--bias", a.bias.map(|b| Setting::Bias(b.into())));
    put(
        "--no-shuffle",
        f.no_shuffle.then_some(Setting::Shuffle(None)),
    );
    put("--average", f.average.then_some(Setting::Average(true)));
    put(
        "--no-average",
        f.no_average.then_some(Setting::Average(false)),
    );
    put("--margin", f.margin.map(Setting::Margin));
    put("--pa-c", f.pa_c.map(Setting::C));
    put("--alpha", f.alpha.map(Setting::Alpha));
    put("--l2", f.l2.map(Setting::L2));
    put(
        "--solver",
        f.solver.map(|s| {
            Setting::Solver(match s {
                SolverName::Batch => Solver::Batch,
                SolverName::Sgd => Solver::Sgd,
                SolverName::Minibatch => Solver::MiniBatch(f.batch_size.unwrap_or(32)),
            })
        }),
    );
    put(
        "--lr-schedule",
        f.lr_schedule.map(|r| Setting::RateSchedule(r.into())),
    );
    put(
        "--early-stop",
        f.early_stop.map(|fraction| {
            Setting::EarlyStopping(EarlyStopping {
                fraction,
                patience: f.early_stop_patience.unwrap_or(3),
            })
        }),
    );
    put(
        "--positive-weight",
        f.positive_weight.map(Setting::PositiveWeight),
    );
    out.extend(k.settings()?);
    Ok(out)
}

/// The refusal of `flag`, which sets `param`, for learner `name`: which learners read it.
fn not_used(flag: &str, param: Param, name: &str) -> anyhow::Error {
    let takers = AnyLearner::taking(param);
    let who = match takers.as_slice() {
        [] => "no learner reads it".to_string(),
        [one] => format!("only --learner {one} reads it"),
        [rest @ .., last] => format!("{} and {last} read it", rest.join(", ")),
    };
    anyhow::anyhow!("{flag} does not apply to --learner {name}: {who}")
}

/// The learner named by `--learner`: the library's defaults for that name (or `base`,
/// where `base` is that learner: a configuration's own, such as a spam filter's pa),
/// with every learner flag applied; a flag the learner would ignore is refused, as the
/// learner's list of parameters says. Not yet checked.
pub fn learner(
    a: &ScheduleArgs,
    k: &KernelArgs,
    f: &LearnerArgs,
    base: Option<&AnyLearner>,
) -> Result<AnyLearner> {
    refuse_combinations(a, f)?;
    let name = a.learner();
    // The flags change `base` when they name its learner.
    let mut l = match base {
        Some(b) if b.name() == name => b.clone(),
        _ => AnyLearner::from_name(name).context("no such learner")?,
    };
    if let Some(flag) = k.first_given()
        && !l.takes(Param::Kernel)
    {
        return Err(not_used(flag, Param::Kernel, name));
    }
    l.set_seed(a.seed);
    for (flag, setting) in settings(a, k, f)? {
        if !l.takes(setting.param()) {
            return Err(not_used(flag, setting.param(), name));
        }
        l.set(setting)?;
    }
    Ok(l)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

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
        learner(&g.schedule, &g.kernel, &g.learners, None)
    }

    #[test]
    fn a_flag_is_refused_exactly_where_the_learner_does_not_take_it() {
        // (flags, the parameter they set): each learner takes them iff its list says so.
        let cases: [(&[&str], Param); 12] = [
            (&["--eta", "0.5"], Param::Eta),
            (&["--epochs", "3"], Param::Epochs),
            (&["--bias", "none"], Param::Bias),
            (&["--mode", "converge"], Param::Schedule),
            (&["--no-shuffle"], Param::Shuffle),
            (&["--average"], Param::Average),
            (&["--margin", "0.5"], Param::Margin),
            (&["--pa-c", "0.5"], Param::C),
            (&["--alpha", "2"], Param::Alpha),
            (&["--l2", "0.001"], Param::L2),
            (&["--positive-weight", "2"], Param::PositiveWeight),
            (&["--kernel", "rbf"], Param::Kernel),
        ];
        let mut refusals = 0;
        for &name in AnyLearner::NAMES {
            let takes = AnyLearner::from_name(name).unwrap().accepts();
            for (flags, param) in &cases {
                let built = build(name, flags);
                assert_eq!(
                    built.is_ok(),
                    takes.contains(param),
                    "{name} {flags:?}: {built:?}"
                );
                if let Err(e) = built {
                    refusals += 1;
                    let msg = e.to_string();
                    assert!(
                        msg.starts_with(&format!(
                            "{} does not apply to --learner {name}",
                            flags[0]
                        )),
                        "{msg}"
                    );
                    for taker in AnyLearner::taking(*param) {
                        assert!(msg.contains(taker), "{msg} should name {taker}");
                    }
                }
            }
        }
        // Not a vacuous loop: most learner × flag pairs are refusals.
        assert!(refusals > 50, "{refusals}");
    }

    #[test]
    fn the_command_line_defaults_are_the_library_defaults() {
        // No flag: exactly the learner the library names (its Default, by the registry).
        for &name in AnyLearner::NAMES {
            let library = AnyLearner::from_name(name).unwrap();
            let cli = build(name, &[]).unwrap();
            assert_eq!(cli, library, "{name}: the command line's defaults differ");
        }
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
