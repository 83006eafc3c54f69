//! The dual (kernel) perceptron's flags for `train`, the rules on when they apply, and
//! their translation into a learner.

use super::names::{AveragingName, parse_memory};
use super::schedule::ScheduleArgs;
use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use rosenblatt::learn::{AnyLearner, Averaging, Kernel, KernelPerceptron};

/// The kernels `--kernel` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KernelName {
    /// K(x, z) = x·z (binary rows: the number of shared words).
    Linear,
    /// K(x, z) = (x·z + coef0)^degree.
    Poly,
    /// K(x, z) = exp(−gamma·‖x − z‖²).
    Rbf,
}

/// Flags of `--learner kernel-perceptron`.
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = "Learner")]
pub struct KernelArgs {
    /// Kernel of --learner kernel-perceptron.
    #[arg(long, value_enum)]
    pub kernel: Option<KernelName>,
    /// Degree d of the polynomial kernel.
    #[arg(long)]
    pub degree: Option<u32>,
    /// Constant c of the polynomial kernel (x·z + c)^d.
    #[arg(long, allow_negative_numbers = true)]
    pub coef0: Option<f32>,
    /// Width γ of the RBF kernel exp(−γ‖x − z‖²) [default: 1, for rows of length 1 as
    /// the default --normalize l2 makes them; binary rows want about 1/(2·words per
    /// document)].
    #[arg(long, allow_negative_numbers = true)]
    pub gamma: Option<f32>,
    /// Last, averaged or voted hypothesis of the kernel perceptron.
    #[arg(long, value_enum)]
    pub averaging: Option<AveragingName>,
    /// Memory for the kernel perceptron's Gram matrix (e.g. 512M, 2G); above it, rows are
    /// computed on demand [default: 1G].
    #[arg(long, value_parser = parse_memory)]
    pub memory: Option<u64>,
    /// Train the kernel perceptron even when its time or memory estimate is above the limits.
    #[arg(long)]
    pub force: bool,
}

/// Applies the kernel perceptron's flags (and the perceptron flags it shares) to `p`.
pub fn apply(
    a: &ScheduleArgs,
    k: &KernelArgs,
    no_shuffle: bool,
    p: &mut KernelPerceptron,
) -> Result<()> {
    let name = k.kernel.unwrap_or(KernelName::Linear);
    if name != KernelName::Poly && (k.degree.is_some() || k.coef0.is_some()) {
        bail!("--degree and --coef0 apply to --kernel poly only");
    }
    if name != KernelName::Rbf && k.gamma.is_some() {
        bail!("--gamma applies to --kernel rbf only");
    }
    if a.eta != 1.0 {
        bail!("--eta does not apply to the kernel perceptron (it only rescales α)");
    }
    p.kernel = match name {
        KernelName::Linear => Kernel::Linear,
        KernelName::Poly => Kernel::Polynomial {
            degree: k.degree.unwrap_or(2),
            coef0: k.coef0.unwrap_or(1.0),
        },
        KernelName::Rbf => Kernel::Rbf {
            gamma: k.gamma.unwrap_or(1.0),
        },
    };
    p.bias = a.bias.into();
    p.schedule = a.schedule();
    p.shuffle = a.shuffle(no_shuffle);
    p.averaging = k.averaging.map_or(p.averaging, Averaging::from);
    p.memory = k.memory.unwrap_or(p.memory);
    p.force = k.force;
    Ok(())
}

/// Refuses kernel flags given with another learner.
pub fn refuse_unused(k: &KernelArgs) -> Result<()> {
    if k.kernel.is_some()
        || k.degree.is_some()
        || k.coef0.is_some()
        || k.gamma.is_some()
        || k.averaging.is_some()
        || k.memory.is_some()
        || k.force
    {
        bail!(
            "--kernel, --degree, --coef0, --gamma, --averaging, --memory and --force apply to --learner kernel-perceptron only"
        );
    }
    Ok(())
}

/// A few words on the kernel settings for the model's options string.
pub fn describe(l: &AnyLearner) -> Option<String> {
    match l {
        AnyLearner::KernelPerceptron(p) => Some(format!(
            "{}, averaging {}",
            p.kernel.describe(),
            format!("{:?}", p.averaging).to_lowercase()
        )),
        _ => None,
    }
}
