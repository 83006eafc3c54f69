//! The dual (kernel) perceptron's flags for `train`, the rules between them, and the
//! settings they make.

use super::names::{AveragingName, parse_memory};
use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use rosenblatt::learn::{Kernel, Setting};

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
    #[arg(long, value_parser = super::names::whole(1u32), allow_negative_numbers = true)]
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
    #[arg(long, value_parser = parse_memory, allow_negative_numbers = true)]
    pub memory: Option<u64>,
    /// Train the kernel perceptron even when its time or memory estimate is above the limits.
    #[arg(long)]
    pub force: bool,
}

impl KernelArgs {
    /// The first kernel flag given, for a refusal that names it.
    pub fn first_given(&self) -> Option<&'static str> {
        [
            (self.kernel.is_some(), "--kernel"),
            (self.degree.is_some(), "--degree"),
            (self.coef0.is_some(), "--coef0"),
            (self.gamma.is_some(), "--gamma"),
            (self.averaging.is_some(), "--averaging"),
            (self.memory.is_some(), "--memory"),
            (self.force, "--force"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }

    /// The kernel settings given, each with the flag that gave it.
    pub fn settings(&self) -> Result<Vec<(&'static str, Setting)>> {
        let name = self.kernel.unwrap_or(KernelName::Linear);
        if name != KernelName::Poly && (self.degree.is_some() || self.coef0.is_some()) {
            bail!("--degree and --coef0 apply to --kernel poly only");
        }
        if name != KernelName::Rbf && self.gamma.is_some() {
            bail!("--gamma applies to --kernel rbf only");
        }
        let mut out = Vec::new();
        if self.kernel.is_some() {
            let kernel = match name {
                KernelName::Linear => Kernel::Linear,
                KernelName::Poly => Kernel::Polynomial {
                    degree: self.degree.unwrap_or(2),
                    coef0: self.coef0.unwrap_or(1.0),
                },
                KernelName::Rbf => Kernel::Rbf {
                    gamma: self.gamma.unwrap_or(1.0),
                },
            };
            out.push(("--kernel", Setting::Kernel(kernel)));
        }
        if let Some(a) = self.averaging {
            out.push(("--averaging", Setting::Averaging(a.into())));
        }
        if let Some(m) = self.memory {
            out.push(("--memory", Setting::Memory(m)));
        }
        if self.force {
            out.push(("--force", Setting::Force(true)));
        }
        Ok(out)
    }
}
