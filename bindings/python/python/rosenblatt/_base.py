"""What every rosenblatt classifier shares: scikit-learn's fit / predict contract over
the native model, multi-label targets, partial_fit and pickling through the model file
format."""

import contextlib
import numbers
import os
import threading
import warnings

import numpy as np
from scipy.special import expit, softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from ._data import csr_parts, seed_of
from ._rosenblatt import NativeModel

_DTYPES = (np.float32, np.float64)


#: Upper bounds that keep a parameter within what the learners' float32 and counters hold.
_MAX = {"epochs": 1_000_000, "rounds": 10**12, "patience": 10**12, "batch_size": 10**9,
        "degree": 16}


def _positive(name, value, integer=False, most=1e6):
    """Refuses anything but a positive number (an integer when asked) up to a bound."""
    kind = numbers.Integral if integer else numbers.Real
    most = _MAX.get(name, most)
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, kind)
            or not 0 < value <= most):
        what = "a positive integer" if integer else "a positive number"
        raise ValueError(f"{name} must be {what} (at most {most:g}), got {value!r}")


def _non_negative(name, value, most=1e6):
    """Refuses anything but a number in [0, most]."""
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real)
            or not 0 <= value <= most):
        raise ValueError(f"{name} must be a number from 0 to {most:g}, got {value!r}")


def _boolean(name, value):
    """Refuses anything but True or False."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")


def _one_of(name, value, allowed):
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")


_MAKING = threading.Lock()
"""Held while a first ``partial_fit`` call makes an estimator's model."""


def _held(est):
    """The estimator's lock while it uses its native model. ``partial_fit`` changes the
    model in place with the GIL released, so a predict, pickle or second ``partial_fit``
    from another thread meanwhile waits for it instead of failing ("Already borrowed")."""
    return est.__dict__.get("_lock") or contextlib.nullcontext()


def _repeated(X, y, sample_weight):
    """``X`` and ``y`` with each row repeated as many times as its whole-number weight
    says; weights that are not whole numbers, negative or all 0 are refused, naming the
    first such row."""
    w = _check_sample_weight(sample_weight, X, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0) | (w != np.round(w)))
    if bad.size:
        i = bad[0]
        raise ValueError(
            f"sample_weight must be whole numbers of 0 or more (a weight of k counts a row "
            f"k times), got {float(w[i]):g} for row {i}"
        )
    if not w.any():
        raise ValueError("sample_weight is 0 for every row: there is nothing to learn")
    if (w == 1).all():
        return X, y
    rows = np.repeat(np.arange(X.shape[0]), w.astype(np.int64))
    return X[rows], y[rows]


class RosenblattClassifier(ClassifierMixin, BaseEstimator):
    """Base class: subclasses say which learner they fit (``_learner``) and with which
    library settings (``_settings``); the fitting, scoring and checks are here."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.multi_label = True
        return tags

    def _learner(self, n_classes):
        raise NotImplementedError

    def _settings(self):
        raise NotImplementedError

    def _check_params(self):
        """Refuses parameter values the learner cannot take, before any work."""

    # -- fitting ---------------------------------------------------------------------

    def _targets(self, y):
        """Class indices (1-D int64) or a label indicator (2-D int8), the classes, and
        whether the target is multi-label."""
        y = np.asarray(y) if not hasattr(y, "toarray") else y.toarray()
        if y.ndim == 2 and y.shape[1] == 1:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected; it is raveled.",
                DataConversionWarning,
                stacklevel=3,
            )
            y = y.ravel()
        if y.ndim == 2:
            if type_of_target(y) != "multilabel-indicator" or not np.isin(y, (0, 1)).all():
                raise ValueError(
                    "a 2-D y must be a label indicator matrix of 0 and 1 (multi-label), "
                    f"got {type_of_target(y)} with values {np.unique(y)[:5]!r}"
                )
            if y.shape[0] < 2:
                raise ValueError(
                    f"a multi-label fit needs at least 2 samples (its thresholds are chosen "
                    f"on held-out folds), got {y.shape[0]}"
                )
            if not y.any():
                raise ValueError(
                    "the label indicator y has no 1 at all: no sample carries a label, so "
                    "there is nothing to learn"
                )
            return np.ascontiguousarray(y, dtype=np.int8), np.arange(y.shape[1]), True
        check_classification_targets(y)
        classes, idx = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes in the data, "
                f"but the data contains only one class: {classes[0]!r}"
            )
        return np.ascontiguousarray(idx, dtype=np.int64), classes, False

    def fit(self, X, y, sample_weight=None):
        """Fits the learner on ``X`` (scipy sparse or dense, binary or real values) and
        ``y`` (class labels, or a 2-D 0/1 indicator for several labels per row: one
        model per label, with per-label thresholds chosen by cross-validation).
        ``sample_weight``, whole numbers: a row of weight k counts as k copies of it in
        its place (0 leaves it out), so the fit equals the fit on the rows repeated."""
        self._check_params()
        X, y = validate_data(
            self, X, y, accept_sparse="csr", dtype=_DTYPES, multi_output=True
        )
        if sample_weight is not None:
            X, y = _repeated(X, y, sample_weight)
        targets, classes, multilabel = self._targets(y)
        if multilabel and _calibrated(self):
            raise ValueError(
                "calibrate=True gives probabilities of classes with one label a row, and y "
                "has rows of several labels (or none), each label decided at a threshold of "
                "its own: fit without calibrate=True"
            )
        indptr, indices, data, width = csr_parts(X)
        # Values are 32-bit floats inside: 1e-50 counts as the 0 it becomes there.
        if np.count_nonzero(data.astype(np.float32, copy=False)) == 0:
            raise ValueError(
                "X has no nonzero value (as 32-bit floats, which the model computes in): "
                "every row would get the same score"
            )
        self._native = NativeModel.fit(
            indptr,
            indices,
            data,
            width,
            targets,
            [str(c) for c in classes],
            self._learner(len(classes)),
            self._settings(),
            seed_of(getattr(self, "random_state", None)),
            calibrate=_calibrated(self),
        )
        self.classes_ = classes
        self._multilabel = multilabel
        self.__dict__.setdefault("_lock", threading.RLock())
        return self

    # -- scoring ---------------------------------------------------------------------

    def __sklearn_is_fitted__(self):
        return hasattr(self, "_native")

    def _rows(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=_DTYPES, reset=False)
        return csr_parts(X)

    def decision_function(self, X):
        """The scores: w·x + b of the positive class for two classes (shape
        ``(n_samples,)``), one per class otherwise (each class's model, or softmax's
        logits), one per label for multi-label models."""
        rows = self._rows(X)
        with _held(self):
            s = self._native.scores(*rows).astype(np.float64)
        return s.ravel() if s.shape[1] == 1 else s

    def predict(self, X):
        """The classes (for multi-label models: the 0/1 indicator of the labels given)."""
        rows = self._rows(X)
        with _held(self):
            p = self._native.predict(*rows)
        if self._multilabel:
            return p.astype(np.int64)
        return self.classes_[p]

    def _probabilities(self, X):
        rows = self._rows(X)
        with _held(self):
            if not self._native.probabilistic():
                raise AttributeError("this model's scores are not probabilities")
            s = self._native.scores(*rows).astype(np.float64)
            kind = self._native.kind()
        if kind == "binary":
            p = expit(s[:, 0])
            return np.column_stack([1.0 - p, p])
        if kind in ("softmax", "multilabel-softmax"):
            p = softmax(s, axis=1)
            return p
        p = expit(s)
        if kind == "ovr":
            p /= p.sum(axis=1, keepdims=True)
        return p

    # -- attributes ------------------------------------------------------------------

    @property
    def coef_(self):
        """The weights, ``(1, n_features)`` for two classes, ``(n_classes, n_features)``
        otherwise (kernel models have none)."""
        check_is_fitted(self)
        with _held(self):
            c = self._native.coef()
        if c is None:
            raise AttributeError("a kernel model has no weights over the features")
        return c.astype(np.float64)

    @property
    def intercept_(self):
        """The bias of each row of ``coef_``."""
        check_is_fitted(self)
        with _held(self):
            b = self._native.intercept()
        if b is None:
            raise AttributeError("a kernel model has no intercept")
        return b.astype(np.float64)

    def save(self, path):
        """Writes the fitted model as a rosenblatt model file (atomically), readable by
        ``rosenblatt inspect`` and ``rosenblatt.load``."""
        check_is_fitted(self)
        with _held(self):
            self._native.save(os.fsdecode(os.fspath(path)))

    # -- pickling --------------------------------------------------------------------

    def __getstate__(self):
        state = self.__dict__.copy()
        native = state.pop("_native", None)
        state.pop("_lock", None)
        if native is not None:
            with _held(self):
                state["_model_file"] = native.to_bytes()
                state["_online_seen"] = native.seen()
        return state

    def __setstate__(self, state):
        state = dict(state)
        model_file = state.pop("_model_file", None)
        seen = state.pop("_online_seen", [])
        self.__dict__.update(state)
        if model_file is not None:
            self._lock = threading.RLock()
            self._native = NativeModel.from_bytes(model_file, "the pickled model")
            if seen and hasattr(self, "_online_args"):
                rule, c, eta, _ = self._online_args()
                self._native.restore_seen(seen, rule, c, eta)


def _calibrated(est):
    """Whether the estimator was asked for calibrated probabilities."""
    return getattr(est, "calibrate", False) is True


class CalibratedMixin:
    """``calibrate=True``: ``predict_proba`` gives P(class | x) as ``rosenblatt train``
    fits it: for two classes Platt's sigmoid on out-of-fold scores of the training rows
    (five stratified folds), and ``predict`` decides where that probability passes ½, as
    scikit-learn's ``CalibratedClassifierCV`` does; for three classes or more a sigmoid
    per class fitted alike (``train --calibrate``), normalised so that a row's
    probabilities sum to 1, while ``predict`` keeps the class of the highest score.
    Without it (the default) the estimator decides at score 0 and has no
    ``predict_proba``."""

    def _class_probabilities(self, X):
        rows = self._rows(X)
        with _held(self):
            p = self._native.class_probabilities(*rows)
        if p is None:
            raise ValueError(
                "this model holds no calibration: it learned by partial_fit alone (fit "
                "computes the calibration), or its training rows were too few to fold"
            )
        # Normalised again in float64: the model's float32 sums are 1 within 1e-7, and
        # scikit-learn's metrics ask more of probabilities.
        p = p.astype(np.float64)
        return p / p.sum(axis=1, keepdims=True)

    def _positive_probability(self, X):
        check_is_fitted(self)
        if self._multilabel or len(self.classes_) != 2:
            raise ValueError(
                f"calibrate=True gives probabilities of two classes, and this model has "
                f"{len(self.classes_)}{' labels' if self._multilabel else ''}"
            )
        scores = self.decision_function(X).astype(np.float32)
        with _held(self):
            p = self._native.probability(scores.tolist())
        if p is None:
            raise ValueError(
                "this model holds no calibration: a class had fewer than two samples, or "
                "it learned by partial_fit alone (fit computes the calibration)"
            )
        return np.asarray(p, dtype=np.float64)

    @available_if(_calibrated)
    def predict_proba(self, X):
        """P(class | x) for each class, shape ``(n_samples, n_classes)`` (with
        ``calibrate=True``); a row's probabilities sum to 1."""
        check_is_fitted(self)
        if len(self.classes_) > 2 and not self._multilabel:
            return self._class_probabilities(X)
        p = self._positive_probability(X)
        return np.column_stack([1.0 - p, p])

    @available_if(_calibrated)
    def predict_log_proba(self, X):
        """The natural logarithm of ``predict_proba``."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """The classes; with ``calibrate=True`` and two classes, the one of probability
        above ½ (several classes or labels are decided as without it)."""
        check_is_fitted(self)
        if not _calibrated(self) or self._multilabel or len(self.classes_) != 2:
            return super().predict(X)
        return self.classes_[(self._positive_probability(X) > 0.5).astype(np.int64)]


class OnlineMixin:
    """``partial_fit`` for the learners that learn one row at a time: the class says the
    rule (``_online_rule``: "perceptron", "pa" or "logistic")."""

    def partial_fit(self, X, y, classes=None):
        """Learns the rows of ``X`` one at a time, in order, from the weights fitted so far
        (``classes``, every class ``y`` may hold, is needed on the first call). The steps
        are those ``rosenblatt learn`` takes on a saved filter: the perceptron's η·y·x on
        a mistake, PA-I's capped step (``C``), logistic regression's gradient step at
        η/√(1 + t) after t rows (softmax: its own gradient step); the bias stays 0 without
        ``fit_intercept`` (``bias="none"``). Averaging, ``l2``, ``solver`` and
        ``lr_schedule`` belong to ``fit``'s passes and do not apply here; a model fitted
        with averaging goes on from its averaged weights."""
        self._check_params()
        # The first call makes the model; two threads making it at once would each make
        # one and lose the other's rows, so the making is done one at a time.
        with _MAKING:
            if not hasattr(self, "_native"):
                X, y = self._first_partial_fit(X, y, classes)
                classes = None
        with _held(self):
            self._partial_fit_rows(X, y, classes)
        return self

    def _first_partial_fit(self, X, y, classes):
        """The empty model of the first ``partial_fit`` call, for ``classes``; its rows
        validated as the first rows (they set ``n_features_in_``)."""
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=_DTYPES, reset=True)
        if classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit")
        all_classes = np.unique(np.asarray(classes))
        if len(all_classes) < 2:
            raise ValueError("classes must name at least 2 classes")
        softmax = self._learner(len(all_classes)) == "softmax"
        native = NativeModel.empty(
            X.shape[1], [str(c) for c in all_classes],
            self._online_rule == "logistic", softmax,
        )
        self.__dict__.setdefault("_lock", threading.RLock())
        self._native, self.classes_, self._multilabel = native, all_classes, False
        return X, y

    def _partial_fit_rows(self, X, y, classes):
        """One ``partial_fit`` step on a model that exists: the rows checked against it."""
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=_DTYPES, reset=False)
        if classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(
                f"classes {np.unique(classes)!r} differ from those of the first call "
                f"{self.classes_!r}"
            )
        if self._multilabel:
            raise ValueError("partial_fit learns single-label models only")
        check_classification_targets(y)
        idx = np.searchsorted(self.classes_, y)
        idx = np.minimum(idx, len(self.classes_) - 1)
        if not np.array_equal(self.classes_[idx], y):
            unknown = sorted(set(np.asarray(y).tolist()) - set(self.classes_.tolist()))
            raise ValueError(f"y holds classes not given on the first call: {unknown!r}")
        indptr, indices, data, width = csr_parts(X)
        self._native.partial_fit(
            indptr, indices, data, width, idx.astype(np.int64), *self._online_args()
        )

    def _online_args(self):
        """The online rule's name and constants (C, η) and whether it learns a bias."""
        self._learner(len(self.classes_))
        s = self._settings()
        return (
            self._online_rule,
            float(s.get("C", 1.0)),
            float(s.get("eta", 1.0)),
            s.get("bias", "augmented") != "none",
        )
