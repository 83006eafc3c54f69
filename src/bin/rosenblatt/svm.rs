//! SVMlight input for `train`, `eval` and `classify`: rows read as they are (no tokenizer,
//! no vocabulary), models with an indexed feature space, and clear errors when text and
//! vectors are mixed up.

use crate::args::{ClassifyArgs, EvalArgs, TrainArgs};
use anyhow::{Context, Result, bail};
use rosenblatt::eval::Metrics;
use rosenblatt::experiment::holdout;
use rosenblatt::features::{RowSubset, SparseRows};
use rosenblatt::input::Format;
use rosenblatt::input::svmlight::{self, Rows, SvmData};
use rosenblatt::model::{FeatureSpace, SavedModel};
use rosenblatt::pipeline::{self, TrainConfig};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Whether the inputs are SVMlight: `--format svmlight`, or every input detected as such
/// (`.svm`, `.svmlight`, `.libsvm`). Mixing vectors with documents is an error.
pub fn is_svm(
    paths: &[PathBuf],
    format: Option<Format>,
    detect: fn(&Path) -> Format,
) -> Result<bool> {
    if let Some(f) = format {
        return Ok(f == Format::Svmlight);
    }
    let svm = paths
        .iter()
        .filter(|p| detect(p) == Format::Svmlight)
        .count();
    if svm > 0 && svm < paths.len() {
        bail!(
            "some inputs are SVMlight vectors and some are documents; give one kind (or \
             --format)"
        );
    }
    Ok(svm > 0)
}

/// For a model trained on vectors, inputs are read as SVMlight whatever their extension
/// (libsvm files often have none) — unless they are plainly documents.
fn looks_like_documents(p: &Path) -> bool {
    p.is_dir()
        || matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("jsonl" | "json" | "ndjson" | "tsv" | "txt" | "eml" | "mbox" | "sgm")
        )
}

/// Runs a function over the rows, whichever kind they are.
macro_rules! with_rows {
    ($rows:expr, $x:ident => $body:expr) => {
        match $rows {
            Rows::Binary($x) => $body,
            Rows::Real($x) => $body,
        }
    };
}

fn names(paths: &[PathBuf]) -> Vec<String> {
    paths.iter().map(|p| p.display().to_string()).collect()
}

fn read(paths: &[PathBuf]) -> Result<(SvmData, Vec<String>)> {
    let (d, ids) = svmlight::read_svmlight_files(paths)?;
    if d.labels.is_empty() {
        bail!("no rows in {}", names(paths).join(" "));
    }
    Ok((d, ids))
}

fn metrics<X: SparseRows>(model: &SavedModel, x: &X, truth: &[usize]) -> Metrics {
    let decisions = pipeline::decide(model, x);
    let predicted: Vec<usize> = decisions.iter().map(|d| d.class).collect();
    Metrics::new(model.classes.clone(), truth, &predicted)
}

fn pick(idx: &[usize], part: &[usize]) -> Vec<usize> {
    part.iter().map(|&i| idx[i]).collect()
}

/// Cross-validation accuracies of `--cv K` over all rows, folds as views of `x`.
fn cv<X: SparseRows>(
    a: &TrainArgs,
    x: &X,
    idx: &[usize],
    classes: &[String],
    cfg: &TrainConfig,
) -> Result<Option<Vec<f64>>> {
    let Some(k) = a.cv else { return Ok(None) };
    let splits = crate::train::cv_splits(k, idx.len(), a.seed, "rows")?;
    let m =
        pipeline::cross_validate_rows(x, idx, classes, cfg, &splits).context("cross-validation")?;
    Ok(Some(m.iter().map(Metrics::accuracy).collect()))
}

/// `train` on SVMlight rows: the model gets an indexed feature space and no vocabulary.
pub fn train(a: &TrainArgs, cfg: TrainConfig) -> Result<ExitCode> {
    let start = Instant::now();
    if a.mail.is_set() {
        bail!("--spam/--ham read mail, not SVMlight vectors");
    }
    if a.input.split.is_some() {
        bail!("--split applies to --format reuters only");
    }
    if a.min_df != 1 || a.max_features.is_some() || a.keep_case {
        bail!(
            "--min-df, --max-features and --keep-case shape a vocabulary; SVMlight rows have none"
        );
    }
    let (data, _) = read(&a.inputs)?;
    if let Some(l) = data.labels.iter().find(|l| l.contains(',')) {
        bail!(
            "label {l:?}: multi-label SVMlight rows are not supported for training; train on \
             the documents instead"
        );
    }
    let cfg = crate::train::with_rounds(a, cfg, data.labels.len())?;
    let classes = svmlight::classes_of_labels(&data.labels, a.positive.as_deref())?;
    let idx = pipeline::label_indices(&data.labels, &classes)?;
    // The model is fitted on the training part and scored on the held-out part, both
    // views of the rows read.
    let split = a
        .holdout
        .map(|h| holdout(idx.len(), h, a.seed))
        .transpose()?;
    let all: Vec<usize> = (0..idx.len()).collect();
    let train = split.as_ref().map_or(&all[..], |s| &s.train[..]);
    let (train_idx, inputs) = (pick(&idx, train), names(&a.inputs));
    let mut model = with_rows!(&data.rows, x => pipeline::fit_rows(
        &RowSubset::new(x, train),
        &train_idx,
        classes.clone(),
        &cfg,
        inputs,
    ))?;
    model.meta.seconds = start.elapsed().as_secs_f64();
    model.save(&a.output)?;
    let held_out = split.map(|s| {
        let truth = pick(&idx, &s.test);
        with_rows!(&data.rows, x => metrics(&model, &RowSubset::new(x, &s.test), &truth))
    });
    let folds = with_rows!(&data.rows, x => cv(a, x, &idx, &classes, &cfg))?;
    crate::train::print_summary(a, &model, 0, held_out.as_ref(), folds.as_deref(), None);
    Ok(ExitCode::SUCCESS)
}

/// Refuses a model/input mismatch: vectors for a text model, or documents for an
/// indexed one. Returns whether the inputs are SVMlight.
fn check_kind(model: &SavedModel, model_path: &Path, svm_input: bool) -> Result<bool> {
    let indexed = matches!(model.features, FeatureSpace::Indexed { .. });
    if indexed && !svm_input {
        bail!(
            "{} was trained on SVMlight vectors; give it SVMlight input (--format svmlight), \
             not documents",
            model_path.display()
        );
    }
    if !indexed && svm_input {
        bail!(
            "{} was trained on text; SVMlight vectors need a model trained on SVMlight \
             input (or give the documents themselves)",
            model_path.display()
        );
    }
    Ok(indexed)
}

fn vectors_hint(model_path: &Path) -> String {
    format!(
        "{} was trained on SVMlight vectors, so its inputs are read as SVMlight",
        model_path.display()
    )
}

/// `eval` on SVMlight input when the model or the inputs call for it; `None` otherwise.
pub fn eval(a: &EvalArgs, model: &SavedModel, model_path: &Path) -> Result<Option<ExitCode>> {
    let indexed = matches!(model.features, FeatureSpace::Indexed { .. });
    let svm_input = match a.input.format {
        Some(f) => f == Format::Svmlight,
        None if indexed => !a.inputs.iter().any(|p| looks_like_documents(p)),
        None => is_svm(&a.inputs, None, Format::detect)?,
    };
    if !check_kind(model, model_path, svm_input)? {
        return Ok(None);
    }
    if a.input.split.is_some() {
        bail!("--split applies to --format reuters only");
    }
    let (data, _) = read(&a.inputs).with_context(|| vectors_hint(model_path))?;
    let truth = pipeline::label_indices(&data.labels, &model.classes)
        .context("the test rows' labels must be the model's classes")?;
    let m = with_rows!(&data.rows, x => metrics(model, x, &truth));
    if a.json {
        println!("{}", m.to_json());
    } else {
        print!("{}", m.to_text());
    }
    Ok(Some(ExitCode::SUCCESS))
}

/// `classify` on SVMlight input when the model or the inputs call for it; `None`
/// otherwise. Ids are line numbers (`FILE:LINE` with several files); labels in the file
/// are ignored.
pub fn classify(
    a: &ClassifyArgs,
    model: &SavedModel,
    format: Option<Format>,
) -> Result<Option<ExitCode>> {
    let indexed = matches!(model.features, FeatureSpace::Indexed { .. });
    let svm_input = match format {
        Some(f) => f == Format::Svmlight,
        None if indexed => !a.inputs.iter().any(|p| looks_like_documents(p)),
        None => is_svm(&a.inputs, None, Format::detect_unlabelled)?,
    };
    if !check_kind(model, &a.model, svm_input)? {
        return Ok(None);
    }
    if a.filter.is_set() {
        bail!("the spam-filter options apply to mail models, not SVMlight vectors");
    }
    if a.inputs.is_empty() || a.inputs.iter().any(|p| p.as_os_str() == "-") {
        bail!("classify reads SVMlight vectors from files; give their paths");
    }
    let (data, ids) = read(&a.inputs).with_context(|| vectors_hint(&a.model))?;
    let labels = with_rows!(&data.rows, x => pipeline::decide_labels(model, x));
    let mut out = BufWriter::new(std::io::stdout().lock());
    for (id, labels) in ids.iter().zip(&labels) {
        crate::classify::write_labels(&mut out, a.output_format, model, id, labels)?;
    }
    out.flush()?;
    Ok(Some(ExitCode::SUCCESS))
}
