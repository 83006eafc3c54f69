//! `rosenblatt completions SHELL`'s flags and plan: the shell, and the command line whose
//! completions are written.

use clap::{Args, CommandFactory};
use clap_complete::Shell;

/// `rosenblatt completions`.
#[derive(Debug, Args)]
#[command(after_help = "Put the script where the shell looks for completions:
  rosenblatt completions bash > ~/.local/share/bash-completion/completions/rosenblatt
  rosenblatt completions zsh > ~/.zfunc/_rosenblatt
  rosenblatt completions fish > ~/.config/fish/completions/rosenblatt.fish
  rosenblatt completions elvish >> ~/.config/elvish/rc.elv
  rosenblatt completions powershell >> $PROFILE
(zsh: with `fpath+=(~/.zfunc)` before `compinit` in ~/.zshrc). A new shell then completes \
the subcommands, their flags and the values of the flags that take one of a list \
(--learner, --format, the shells here).")]
pub struct CompletionsArgs {
    /// The shell whose completion script to print.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// What `completions` prints: the script of `shell` for `command`.
#[derive(Debug, Clone)]
pub struct CompletionsPlan {
    /// The shell.
    pub shell: Shell,
    /// The whole command line, every subcommand and flag.
    pub command: clap::Command,
}

/// Turns `completions`' flags into a plan (clap has already refused an unknown shell).
pub fn plan(a: CompletionsArgs) -> CompletionsPlan {
    CompletionsPlan {
        shell: a.shell,
        command: super::Cli::command(),
    }
}
