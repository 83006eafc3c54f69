//! `NativeModel`: a `rosenblatt::Model` as the estimators hold it. Fitting, scoring,
//! one-row-at-a-time learning and the model file's bytes, with the interpreter's lock
//! released while the library works.

use crate::errors::to_py;
use crate::rows::Arrays;
use crate::settings::learner;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use rayon::prelude::*;
use rosenblatt::classifier::SavedClassifier;
use rosenblatt::features::GeometrySpec;
use rosenblatt::incremental::{empty_rows_model, learn_rows};
use rosenblatt::learn::{LabelScorer, OnlineState, Rate, UpdateRule};
use rosenblatt::learn::{MultiLabelOptions, Thresholds};
use rosenblatt::model::{FeatureSpace, Predictor};
use rosenblatt::training::check_width;
use rosenblatt::training::{decide_labels, fit_label_sets, fit_rows};
use rosenblatt::{Model, SparseRows, TrainConfig};
use std::path::{Path, PathBuf};

/// A fitted model, with the class names its file records (an estimator's classes as
/// text, or the command line's class names).
#[pyclass(module = "rosenblatt._rosenblatt")]
pub struct NativeModel {
    model: Model,
    /// The online rule's state per linear model, for `partial_fit`.
    states: Vec<OnlineState>,
}

/// Values, row after row, as an `(n, k)` float32 array.
fn matrix<'py>(py: Python<'py>, n: usize, k: usize, v: Vec<f32>) -> Bound<'py, PyArray2<f32>> {
    Array2::from_shape_vec((n, k), v)
        .expect("n·k values")
        .into_pyarray(py)
}

/// An explanation as Python receives it: label, score, bias and the contributions.
type Explained = (String, f32, f32, Vec<(String, f32, f32, f32)>);

impl NativeModel {
    /// `e` as Python receives it.
    fn explained(&self, e: rosenblatt::model::Explanation) -> Explained {
        let features = e.features.into_iter();
        let features = features.map(|c| (c.feature, c.weight, c.value, c.contribution));
        let label = self.model.classes()[e.class].clone();
        (label, e.score, e.bias, features.collect())
    }

    fn wrap(model: Model) -> NativeModel {
        NativeModel {
            model,
            states: Vec::new(),
        }
    }

    /// Each row's class index, checked against the `n` classes.
    fn class_indices(y: &[i64], n: usize) -> PyResult<Vec<usize>> {
        y.iter()
            .map(|&c| usize::try_from(c).ok().filter(|&c| c < n))
            .collect::<Option<Vec<usize>>>()
            .ok_or_else(|| PyValueError::new_err("a class index is outside the classes"))
    }
}

#[pymethods]
impl NativeModel {
    /// Fits learner `name` with `params` on CSR rows; `y` is each row's class index
    /// (1-D int64, an index into `classes`, the names the model file records) or a 2-D
    /// 0/1 indicator of label sets (int8, a column per class), which
    /// fits one model per label with thresholds chosen on `threshold_folds` folds (0: the
    /// learner's default, as the command line's). With `calibrate`, a one-vs-rest model of
    /// three classes or more gets a sigmoid per class (`train --calibrate`).
    #[staticmethod]
    #[pyo3(signature = (indptr, indices, data, n_features, y, classes, name, params, seed, threshold_folds=0, calibrate=false))]
    #[allow(clippy::too_many_arguments)]
    fn fit(
        py: Python<'_>,
        indptr: &Bound<'_, PyAny>,
        indices: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        n_features: usize,
        y: &Bound<'_, PyAny>,
        classes: Vec<String>,
        name: &str,
        params: &Bound<'_, PyDict>,
        seed: u64,
        threshold_folds: usize,
        calibrate: bool,
    ) -> PyResult<NativeModel> {
        let arrays = Arrays::extract(indptr, indices, data, n_features)?;
        let x = arrays.rows()?;
        let cfg = TrainConfig {
            learner: learner(name, params, x.n_rows(), seed)?,
            geometry: GeometrySpec::default(),
            calibrate,
            ..TrainConfig::default()
        };
        let n_classes = classes.len();
        if let Ok(y) = y.extract::<PyReadonlyArray1<'_, i64>>() {
            let idx = NativeModel::class_indices(y.as_slice()?, n_classes)?;
            let model = py.detach(|| fit_rows(&x, &idx, classes, &cfg, Vec::new()));
            return model.map(NativeModel::wrap).map_err(to_py);
        }
        let y: PyReadonlyArray2<'_, i8> = y.extract()?;
        let y = y.as_array();
        if y.ncols() != n_classes {
            return Err(PyValueError::new_err("y has a column per label"));
        }
        let sets: Vec<Vec<usize>> = y
            .rows()
            .into_iter()
            .map(|r| (0..r.len()).filter(|&c| r[c] != 0).collect())
            .collect();
        let opt = MultiLabelOptions {
            thresholds: Thresholds::CrossValidated {
                // 0: the learner's own default, as the command line's.
                folds: match threshold_folds {
                    MultiLabelOptions::FOLDS => MultiLabelOptions::FOLDS,
                    k => k.min(sets.len()).max(2),
                },
                seed,
                min_f1: 0.3,
            },
            at_least_one: true,
        };
        let model = py.detach(|| fit_label_sets(&x, &sets, classes, &cfg, &opt, Vec::new()));
        model.map(NativeModel::wrap).map_err(to_py)
    }

    /// A model of zero weights over `n_features` for `classes`, for learning one batch at
    /// a time (`partial_fit`): one linear model (two classes) or one per class, whose
    /// scores are logits when `logistic`; one softmax model when `softmax`.
    #[staticmethod]
    fn empty(
        n_features: usize,
        classes: Vec<String>,
        logistic: bool,
        softmax: bool,
    ) -> PyResult<NativeModel> {
        check_width(n_features, classes.len(), &TrainConfig::default()).map_err(to_py)?;
        empty_rows_model(n_features, classes, logistic, softmax)
            .map(NativeModel::wrap)
            .map_err(to_py)
    }

    /// Rows learned so far by each online model (the t of a decaying rate), to carry
    /// over a pickle.
    fn seen(&self) -> Vec<u64> {
        self.states.iter().map(|s| s.seen).collect()
    }

    /// Restores the counts `seen` gave, for `rule` (as `partial_fit` names it).
    fn restore_seen(&mut self, seen: Vec<u64>, rule: &str, c: f32, eta: f32) -> PyResult<()> {
        let rule = online_rule(rule, c, eta)?;
        self.states = seen
            .into_iter()
            .map(|seen| OnlineState {
                seen,
                ..OnlineState::new(rule)
            })
            .collect();
        Ok(())
    }

    /// Learns CSR rows in order, one at a time, by `rule` ("perceptron" with step `eta`,
    /// "pa" with aggressiveness `c`, or "logistic" with initial rate `eta`), continuing
    /// from the model's weights; `y` holds each row's class index. Without `bias` the
    /// bias stays 0.
    #[allow(clippy::too_many_arguments)]
    fn partial_fit(
        &mut self,
        py: Python<'_>,
        indptr: &Bound<'_, PyAny>,
        indices: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        n_features: usize,
        y: PyReadonlyArray1<'_, i64>,
        rule: &str,
        c: f32,
        eta: f32,
        bias: bool,
    ) -> PyResult<()> {
        let rule = online_rule(rule, c, eta)?;
        let arrays = Arrays::extract(indptr, indices, data, n_features)?;
        let x = arrays.rows()?;
        let y = NativeModel::class_indices(y.as_slice()?, self.model.classes().len())?;
        let (model, states) = (&mut self.model, &mut self.states);
        py.detach(|| learn_rows(model, states, &x, &y, rule, eta, bias))
            .map_err(to_py)
    }

    /// Every row's scores as a float32 `(n, k)` array: w·x + b of each class's model
    /// (`k` = 1 for two classes: the positive class's score), softmax's logits, or each
    /// label's score.
    fn scores<'py>(
        &self,
        py: Python<'py>,
        indptr: &Bound<'py, PyAny>,
        indices: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        n_features: usize,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let arrays = Arrays::extract(indptr, indices, data, n_features)?;
        let x = arrays.rows()?;
        let (n, p) = (x.n_rows(), self.model.predictor());
        let v = py.detach(|| p.score_rows(&self.model.geometry().apply(&x)));
        Ok(matrix(py, n, p.n_scores(), v))
    }

    /// Whether the scores are logits (logistic and softmax models), so that they give
    /// probabilities.
    fn probabilistic(&self) -> bool {
        self.model.predictor().probabilistic()
    }

    /// How the scores are laid out: "binary", "ovr", "softmax", "multilabel-ovr" or
    /// "multilabel-softmax".
    fn kind(&self) -> &'static str {
        match self.model.predictor() {
            Predictor::Binary(_) => "binary",
            Predictor::OneVsRest(_) => "ovr",
            Predictor::Softmax(_) => "softmax",
            Predictor::MultiLabel(m) => match m.scorer {
                LabelScorer::OneVsRest(_) => "multilabel-ovr",
                LabelScorer::Softmax(_) => "multilabel-softmax",
            },
        }
    }

    /// Every row's class index (the model's own decision, its threshold included), or
    /// for a multi-label model an int8 `(n, k)` indicator of the labels it gives.
    fn predict<'py>(
        &self,
        py: Python<'py>,
        indptr: &Bound<'py, PyAny>,
        indices: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        n_features: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arrays = Arrays::extract(indptr, indices, data, n_features)?;
        let x = arrays.rows()?;
        if let Predictor::MultiLabel(_) = self.model.predictor() {
            let k = self.model.classes().len();
            let labels = py.detach(|| decide_labels(&self.model, &x));
            let mut ind = vec![0i8; labels.len() * k];
            for (i, ls) in labels.iter().enumerate() {
                for &(c, _) in ls {
                    ind[i * k + c] = 1;
                }
            }
            let a = Array2::from_shape_vec((labels.len(), k), ind).expect("n·k values");
            return Ok(a.into_pyarray(py).into_any());
        }
        let d = py.detach(|| self.model.decide_rows(&x));
        let classes: Vec<i64> = d.iter().map(|d| d.class as i64).collect();
        Ok(PyArray1::from_vec(py, classes).into_any())
    }

    /// The weights, one row per class's model (one row for two classes; softmax: one
    /// per class), as float32 `(k, n_features)`; `None` for kernel models.
    fn coef<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray2<f32>>> {
        let (w, _) = self.model.predictor().linear_weights()?;
        let k = w.len();
        let n = w.first().map_or(0, Vec::len);
        Some(matrix(py, k, n, w.concat()))
    }

    /// The biases, one per row of `coef`.
    fn intercept<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f32>>> {
        let (_, b) = self.model.predictor().linear_weights()?;
        Some(PyArray1::from_vec(py, b))
    }

    /// The class names the model was trained with.
    fn classes(&self) -> Vec<String> {
        self.model.classes().to_vec()
    }

    /// Features the model reads: its vocabulary's words, or the width of its rows.
    fn n_features(&self) -> usize {
        match self.model.features() {
            FeatureSpace::Indexed { n_features } => n_features,
            FeatureSpace::Text => self.model.vocab().len(),
        }
    }

    /// The word of every feature id of a text model (`None`: hashed or feature vectors).
    fn feature_names(&self) -> Option<Vec<String>> {
        self.reads_text()
            .then(|| crate::vectorizer::words(self.model.vocab()))
            .flatten()
    }

    /// Whether the model reads text (trained by the command line on documents).
    fn reads_text(&self) -> bool {
        matches!(self.model.features(), FeatureSpace::Text)
    }

    /// Whether the model reads its text as mail (a spam filter).
    fn reads_mail(&self) -> bool {
        self.model.analyzer().source().mail_rules().is_some()
    }

    /// The learner's name as the model file records it.
    fn learner(&self) -> String {
        self.model.meta().learner.clone()
    }

    /// The passes over the rows its fit made (of a one-vs-rest fit, the most any class
    /// made), scikit-learn's `n_iter_`.
    fn epochs(&self) -> usize {
        self.model.meta().report.epochs
    }

    /// The score above which a two-class model says its second class.
    fn threshold(&self) -> f32 {
        self.model.threshold()
    }

    /// P(the second class) of each two-class score, as `classify --format jsonl` reports
    /// it (the model's calibration, or a logistic model's own); `None` when the model
    /// gives no probability.
    fn probability(&self, scores: Vec<f32>) -> Option<Vec<f32>> {
        scores.iter().map(|&s| self.model.probability(s)).collect()
    }

    /// Every row's probability of each class as a float32 `(n, k)` array, as
    /// `classify -k` reports them (a single-label model's rows sum to 1); `None` when the
    /// model has no probabilities.
    fn class_probabilities<'py>(
        &self,
        py: Python<'py>,
        indptr: &Bound<'py, PyAny>,
        indices: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        n_features: usize,
    ) -> PyResult<Option<Bound<'py, PyArray2<f32>>>> {
        let arrays = Arrays::extract(indptr, indices, data, n_features)?;
        let x = arrays.rows()?;
        let (n, k) = (x.n_rows(), self.model.classes().len());
        let p = py.detach(|| self.model.class_probability_rows(&x));
        Ok(p.map(|p| matrix(py, n, k, p.concat())))
    }

    /// Classifies texts as the command line's `classify` does: `(label, score)` each.
    fn classify(&self, py: Python<'_>, texts: Vec<String>) -> PyResult<Vec<(String, f32)>> {
        let d = py
            .detach(|| self.model.classify_batch(&texts))
            .map_err(to_py)?;
        Ok(d.into_iter().map(|d| (d.label, d.score)).collect())
    }

    /// Every label each text gets, best first (a multi-label model's label set).
    fn labels(&self, py: Python<'_>, texts: Vec<String>) -> PyResult<Vec<Vec<(String, f32)>>> {
        let d = py
            .detach(|| self.model.labels_batch(&texts))
            .map_err(to_py)?;
        Ok(d.into_iter()
            .map(|ls| ls.into_iter().map(|d| (d.label, d.score)).collect())
            .collect())
    }

    /// Classifies raw messages (RFC 822 bytes) under the model's mail rules.
    fn classify_mail(
        &self,
        py: Python<'_>,
        messages: Vec<Vec<u8>>,
    ) -> PyResult<Vec<(String, f32)>> {
        let d: rosenblatt::Result<Vec<_>> = py.detach(|| {
            messages
                .par_iter()
                .map(|m| self.model.classify_mail(m))
                .collect()
        });
        Ok(d.map_err(to_py)?
            .into_iter()
            .map(|d| (d.label, d.score))
            .collect())
    }

    /// Why a text gets its verdict (or class `class_name`'s score, for models of three
    /// classes or more): `(label, score, bias, [(feature, weight, value, contribution)])`,
    /// strongest first, as `classify --explain` lists it.
    #[pyo3(signature = (text, class_name=None))]
    fn explain(
        &self,
        py: Python<'_>,
        text: String,
        class_name: Option<String>,
    ) -> PyResult<Explained> {
        let e = py
            .detach(|| match &class_name {
                Some(c) => self.model.explain_class(&text, c),
                None => self.model.explain(&text),
            })
            .map_err(to_py)?;
        Ok(self.explained(e))
    }

    /// [`NativeModel::explain`] of one raw message, read under the model's mail rules.
    fn explain_mail(&self, py: Python<'_>, message: Vec<u8>) -> PyResult<Explained> {
        let e = py
            .detach(|| self.model.explain_mail(&message))
            .map_err(to_py)?;
        Ok(self.explained(e))
    }

    /// The model file's bytes (header, checksum, payload), as `rosenblatt train` saves.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let b = self.model.to_bytes().map_err(to_py)?;
        Ok(PyBytes::new(py, &b))
    }

    /// A model from a model file's bytes, checked as a file is (`what` names them in
    /// errors).
    #[staticmethod]
    fn from_bytes(bytes: &[u8], what: &str) -> PyResult<NativeModel> {
        Model::from_bytes(bytes, Path::new(what))
            .map(NativeModel::wrap)
            .map_err(to_py)
    }

    /// A model file saved by `rosenblatt train`, `learn` or `eval --online --save`.
    #[staticmethod]
    fn load(path: PathBuf) -> PyResult<NativeModel> {
        SavedClassifier::open(path)
            .and_then(SavedClassifier::into_model)
            .map(NativeModel::wrap)
            .map_err(to_py)
    }

    /// Writes the model file atomically.
    fn save(&self, path: PathBuf) -> PyResult<()> {
        self.model.save(path).map_err(to_py)
    }
}

/// The online rule `partial_fit` names: "perceptron", "pa" (aggressiveness `c`) or
/// "logistic" (initial rate `eta`, decaying as η/√(1 + t)).
fn online_rule(rule: &str, c: f32, eta: f32) -> PyResult<UpdateRule> {
    let rule = match rule {
        "perceptron" => UpdateRule::Perceptron,
        "pa" => UpdateRule::PassiveAggressive { c },
        "logistic" => UpdateRule::Logistic {
            eta,
            rate: Rate::Decaying,
        },
        r => return Err(PyValueError::new_err(format!("no online rule {r:?}"))),
    };
    rule.validate().map_err(|e| to_py(e.into()))?;
    Ok(rule)
}
