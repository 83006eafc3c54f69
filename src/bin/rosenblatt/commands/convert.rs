//! `rosenblatt convert`: a model file written as a store, or a store as a model file —
//! the two forms of one filter (see [`rosenblatt::store`]). Only a spam filter becomes a
//! store; a store of anything else (made by an older release) still converts back.

use crate::flags::ConvertArgs;
use anyhow::Result;
use rosenblatt::store::Store;
use std::process::ExitCode;

/// Runs `convert`.
pub fn run(a: ConvertArgs) -> Result<ExitCode> {
    // Nothing is written over the input or into a store being read.
    rosenblatt::atomic::check_not_an_input(&a.to, &[&a.from])?;
    let (model, to) = if Store::is_store(&a.from) {
        let model = Store::open_read_only(&a.from)?.to_model()?;
        rosenblatt::classifier::lock::save_locked(&model, &a.to)?;
        (model, "model file")
    } else {
        let model = crate::load::model(&a.from)?;
        if let Some(why) = Store::refusal(&model) {
            anyhow::bail!("{}: {why}", a.from.display());
        }
        // A store is a spam filter's delivery-time form: `classify -m STORE` gives
        // bogofilter's exit codes, which mean nothing for a model that is no filter.
        crate::filter::spam_filter(&model, &a.from)?;
        Store::create(&a.to, &model)?;
        (model, "store")
    };
    let (features, learned) = (model.vocab().len(), model.meta().learned);
    if a.json {
        let v = serde_json::json!({
            "from": a.from.display().to_string(),
            "to": a.to.display().to_string(),
            "form": to,
            "features": features,
            "learned": learned,
        });
        outln!("{v}");
    } else {
        outln!(
            "wrote {} as a {to}: {features} features, {learned} message(s) learned since training",
            a.to.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
