//! `--plot FILE.svg`, shared by the subcommands that draw a chart of their results.

use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

/// `--plot FILE.svg`.
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Output")]
pub struct PlotArg {
    /// Also draw the results as an 800×500 chart (a heat map of many classes larger) into
    /// FILE (SVG only, the name ending in .svg: PNG would need system fonts; convert the
    /// SVG when a bitmap is wanted). What it shows is said at the end of this help.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
}

impl PlotArg {
    /// The chart file, checked before any work: SVG, and a file that can be replaced.
    pub fn checked(self) -> Result<Option<PathBuf>> {
        if let Some(p) = &self.plot {
            crate::plot::check_path(p)?;
        }
        Ok(self.plot)
    }
}
