//! `rosenblatt serve`: the filter opened once through the library's saved classifier,
//! then [`rosenblatt::serve::run`] until SIGTERM; the listeners' addresses are said on
//! stderr once bound, and the daemon's log goes there too. A model that is no spam filter
//! (a text model) is served over the JSON API alone.

use crate::flags::ServePlan;
use anyhow::Result;
use rosenblatt::serve::Daemon;
use std::process::ExitCode;

/// Runs `serve`.
pub fn run(plan: ServePlan) -> Result<ExitCode> {
    let classifier = Daemon::open(&plan.model, &plan.config)?;
    let mut config = plan.config;
    // A model that is no spam filter is served to documents only: the JSON API.
    if let Err(not_a_filter) = classifier.spam_filter() {
        if plan.spamd_given || config.learn_key.is_some() || config.allow_tell {
            return Err(not_a_filter.into());
        }
        config.spamd.clear();
        errln!(
            "rosenblatt serve: note: {} is no spam filter: only the JSON API (/v1/classify, \
             /v1/explain) answers; mail protocols are refused",
            plan.model.display()
        );
    }
    let log = Box::new(|line: &str| errln!("rosenblatt serve: {line}"));
    let daemon = Daemon::new(classifier, config, log);
    rosenblatt::serve::run(daemon, |listening| {
        for l in listening {
            errln!("rosenblatt serve: listening: {l}");
        }
    })?;
    Ok(ExitCode::SUCCESS)
}
