//! A learner from its name and the estimator's parameters, each turned into the library's
//! `Setting` exactly as the command line's flags are, so that the same parameters train
//! the same model.

use crate::errors::to_py;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rosenblatt::learn::{
    AnyLearner, Averaging, Bias, Check, Checked, Kernel, RateSchedule, Schedule, Setting, Solver,
};

/// Reads `key` from the parameters, if given and not None.
fn get<'py, T: for<'a> FromPyObject<'a, 'py>>(
    p: &Bound<'py, PyDict>,
    key: &str,
) -> PyResult<Option<T>> {
    match p.get_item(key)? {
        Some(v) if !v.is_none() => {
            // Constants are 32-bit floats inside: a nonzero value that would round to 0
            // or to ∞ there is refused as given, not reported as 0 or inf later.
            if let Ok(f) = v.cast::<pyo3::types::PyFloat>() {
                let f = f.value();
                let a = f.abs();
                if f.is_finite()
                    && a != 0.0
                    && !(f64::from(f32::MIN_POSITIVE)..=f64::from(f32::MAX)).contains(&a)
                {
                    return Err(PyValueError::new_err(format!(
                        "{key}={f} is outside what a 32-bit float holds (about 1.2e-38 to \
                         3.4e38 in size), as the model keeps its constants"
                    )));
                }
            }
            v.extract().map(Some).map_err(|_| {
                PyValueError::new_err(format!("{key} has a value of the wrong type: {v}"))
            })
        }
        _ => Ok(None),
    }
}

fn unknown(key: &str, value: &str, known: &str) -> PyErr {
    PyValueError::new_err(format!("{key}={value:?} is not one of {known}"))
}

/// The settings the parameters give, in the order the command line applies them (the
/// schedule before the epochs it caps).
fn settings(p: &Bound<'_, PyDict>, n_rows: usize, seed: u64) -> PyResult<Vec<Setting>> {
    let mut out = Vec::new();
    let epochs: Option<usize> = get(p, "epochs")?;
    let mode: Option<String> = get(p, "mode")?;
    if let Some(mode) = &mode {
        let e = epochs.unwrap_or(10);
        out.push(Setting::Schedule(match mode.as_str() {
            "online" => Schedule::Online,
            "batch" => Schedule::Epochs(e),
            "converge" => Schedule::UntilConvergence { max_epochs: e },
            "random" => Schedule::Randomized {
                rounds: get(p, "rounds")?.unwrap_or(10 * n_rows as u64),
                seed,
                patience: get(p, "patience")?,
            },
            m => {
                return Err(unknown(
                    "mode",
                    m,
                    "'online', 'batch', 'converge', 'random'",
                ));
            }
        }));
    }
    if let (Some(e), None) = (epochs, &mode) {
        out.push(Setting::Epochs(e));
    }
    if let Some(eta) = get(p, "eta")? {
        out.push(Setting::Eta(eta));
    }
    if let Some(b) = get::<String>(p, "bias")? {
        out.push(Setting::Bias(match b.as_str() {
            "none" => Bias::None,
            "augmented" => Bias::Augmented,
            "r2" => Bias::R2,
            b => return Err(unknown("bias", b, "'none', 'augmented', 'r2'")),
        }));
    }
    if let Some(false) = get::<bool>(p, "shuffle")? {
        out.push(Setting::Shuffle(None));
    }
    if let Some(a) = get(p, "average")? {
        out.push(Setting::Average(a));
    }
    if let Some(m) = get(p, "margin")? {
        out.push(Setting::Margin(m));
    }
    if let Some(c) = get(p, "C")? {
        out.push(Setting::C(c));
    }
    if let Some(l2) = get(p, "l2")? {
        out.push(Setting::L2(l2));
    }
    if let Some(s) = get::<String>(p, "solver")? {
        out.push(Setting::Solver(match s.as_str() {
            "batch" => Solver::Batch,
            "sgd" => Solver::Sgd,
            "minibatch" => Solver::MiniBatch(get(p, "batch_size")?.unwrap_or(32)),
            s => return Err(unknown("solver", s, "'batch', 'sgd', 'minibatch'")),
        }));
    }
    if let Some(r) = get::<String>(p, "lr_schedule")? {
        out.push(Setting::RateSchedule(match r.as_str() {
            "constant" => RateSchedule::Constant,
            "inverse-sqrt" => RateSchedule::InverseSqrt,
            "inverse" => RateSchedule::Inverse,
            r => {
                return Err(unknown(
                    "lr_schedule",
                    r,
                    "'constant', 'inverse-sqrt', 'inverse'",
                ));
            }
        }));
    }
    if let Some(k) = get::<String>(p, "kernel")? {
        out.push(Setting::Kernel(match k.as_str() {
            "linear" => Kernel::Linear,
            "poly" => Kernel::Polynomial {
                degree: get(p, "degree")?.unwrap_or(2),
                coef0: get(p, "coef0")?.unwrap_or(1.0),
            },
            "rbf" => Kernel::Rbf {
                gamma: get(p, "gamma")?.unwrap_or(1.0),
            },
            k => return Err(unknown("kernel", k, "'linear', 'poly', 'rbf'")),
        }));
    }
    if let Some(a) = get::<String>(p, "averaging")? {
        out.push(Setting::Averaging(match a.as_str() {
            "none" => Averaging::None,
            "averaged" => Averaging::Averaged,
            "voted" => Averaging::Voted,
            a => return Err(unknown("averaging", a, "'none', 'averaged', 'voted'")),
        }));
    }
    Ok(out)
}

/// The learner `name` with `params` applied and its draws seeded by `seed`, checked.
pub fn learner(
    name: &str,
    params: &Bound<'_, PyDict>,
    n_rows: usize,
    seed: u64,
) -> PyResult<Checked<AnyLearner>> {
    let mut l = AnyLearner::from_name(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "{name:?} is not a learner; the learners are {}",
            AnyLearner::NAMES.join(", ")
        ))
    })?;
    for s in settings(params, n_rows, seed)? {
        l.set(s).map_err(to_py)?;
    }
    l.set_seed(seed);
    l.check().map_err(|e| to_py(e.into()))
}
