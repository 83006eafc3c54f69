"""The estimators: each names its learner and turns its parameters into the library's
settings, exactly as ``rosenblatt train``'s flags do (same names where they can be:
``mode``, ``epochs``, ``eta``, ``bias``, ``C``, ``l2``, ``solver``, ``kernel``)."""

from sklearn.utils.validation import check_is_fitted

from ._base import (
    CalibratedMixin,
    OnlineMixin,
    RosenblattClassifier,
    _boolean,
    _non_negative,
    _one_of,
    _positive,
)

_MODES = ("online", "batch", "converge", "random")
_BIASES = ("none", "augmented", "r2")


def _on_off(fit_intercept):
    return "augmented" if fit_intercept else "none"


class Perceptron(CalibratedMixin, OnlineMixin, RosenblattClassifier):
    """Rosenblatt's perceptron: w ← w + η·y·x on each mistake (y·(w·x + b) ≤ 0).

    mode: "online" (one predict-then-learn pass), "batch" (``epochs`` passes),
    "converge" (passes until one makes no mistake, at most ``epochs``) or "random"
    (``rounds`` seeded draws, default 10 per row; stops after ``patience`` draws without
    an update when given). bias: "none", "augmented" (a constant feature 1) or "r2"
    (b ← b + η·y·R², R the largest row norm). shuffle: a fresh seeded order each pass.
    random_state: the seed (None: 42, the command line's default). calibrate: give
    ``predict_proba``, as the command line fits it (two classes, or a sigmoid per class
    of several; see ``CalibratedMixin``). Several classes are fitted one-vs-rest."""

    _online_rule = "perceptron"

    def __init__(
        self,
        mode="batch",
        epochs=10,
        eta=1.0,
        bias="augmented",
        shuffle=True,
        rounds=None,
        patience=None,
        random_state=None,
        calibrate=False,
    ):
        self.calibrate = calibrate
        self.mode = mode
        self.epochs = epochs
        self.eta = eta
        self.bias = bias
        self.shuffle = shuffle
        self.rounds = rounds
        self.patience = patience
        self.random_state = random_state

    def _check_params(self):
        _boolean("calibrate", self.calibrate)
        _one_of("mode", self.mode, _MODES)
        _one_of("bias", self.bias, _BIASES)
        _positive("epochs", self.epochs, integer=True)
        _positive("eta", self.eta)
        _boolean("shuffle", self.shuffle)
        for name in ("rounds", "patience"):
            if getattr(self, name) is not None:
                if self.mode != "random":
                    raise ValueError(f"{name} applies to mode='random' only")
                _positive(name, getattr(self, name), integer=True)
        if self.mode == "random" and not self.shuffle:
            raise ValueError("shuffle=False does not apply to mode='random' (it draws rows at random)")

    def _learner(self, n_classes):
        return "perceptron"

    def _settings(self):
        s = {
            "mode": self.mode,
            "epochs": int(self.epochs),
            "eta": float(self.eta),
            "bias": self.bias,
        }
        if self.mode == "random":
            s.update(rounds=self.rounds, patience=self.patience)
        else:
            s["shuffle"] = bool(self.shuffle)
        return s


class AveragedPerceptron(CalibratedMixin, RosenblattClassifier):
    """The averaged perceptron: the perceptron's weights averaged over every visit of
    every pass (Freund and Schapire), far steadier than the last weights.

    epochs: passes over the rows. fit_intercept: learn a bias (a constant feature 1).
    shuffle: a fresh seeded order each pass. random_state: the seed (None: 42).
    calibrate: give ``predict_proba`` (two classes, or several: ``train --calibrate``),
    as the command line fits it."""

    def __init__(
        self, epochs=10, fit_intercept=True, shuffle=True, random_state=None, calibrate=False
    ):
        self.calibrate = calibrate
        self.epochs = epochs
        self.fit_intercept = fit_intercept
        self.shuffle = shuffle
        self.random_state = random_state

    def _check_params(self):
        _boolean("calibrate", self.calibrate)
        _positive("epochs", self.epochs, integer=True)
        _boolean("fit_intercept", self.fit_intercept)
        _boolean("shuffle", self.shuffle)

    def _learner(self, n_classes):
        return "averaged-perceptron"

    def _settings(self):
        return {
            "epochs": int(self.epochs),
            "bias": _on_off(self.fit_intercept),
            "shuffle": bool(self.shuffle),
        }


class PassiveAggressive(CalibratedMixin, OnlineMixin, RosenblattClassifier):
    """Passive-Aggressive PA-I (Crammer et al.): after each row with margin below 1, the
    smallest step that fixes it, capped at ``C``; averaged by default. This is
    ``rosenblatt train``'s default learner.

    C: the cap on a step. epochs: passes. average: return the averaged weights.
    fit_intercept: learn a bias. shuffle: a fresh seeded order each pass. random_state:
    the seed (None: 42). calibrate: give ``predict_proba`` (two classes, or several:
    ``train --calibrate``), as the command line fits it."""

    _online_rule = "pa"

    def __init__(
        self,
        C=1.0,
        epochs=7,
        average=True,
        fit_intercept=True,
        shuffle=True,
        random_state=None,
        calibrate=False,
    ):
        self.calibrate = calibrate
        self.C = C
        self.epochs = epochs
        self.average = average
        self.fit_intercept = fit_intercept
        self.shuffle = shuffle
        self.random_state = random_state

    def _check_params(self):
        _boolean("calibrate", self.calibrate)
        _positive("C", self.C)
        _positive("epochs", self.epochs, integer=True)
        for name in ("average", "fit_intercept", "shuffle"):
            _boolean(name, getattr(self, name))

    def _learner(self, n_classes):
        return "pa"

    def _settings(self):
        return {
            "C": float(self.C),
            "epochs": int(self.epochs),
            "average": bool(self.average),
            "bias": _on_off(self.fit_intercept),
            "shuffle": bool(self.shuffle),
        }


class LinearSVM(CalibratedMixin, RosenblattClassifier):
    """The linear support vector machine with the squared hinge loss, L2-regularized:
    min ½‖w‖² + C Σ max(0, 1 − y·(w·x + b))², solved in its dual by coordinate descent
    (LIBLINEAR's ``-s 1``, the problem scikit-learn's ``LinearSVC`` solves by default).

    C: the penalty on the losses. max_iter: the most passes over the rows (it stops
    earlier, at LIBLINEAR's tolerance). fit_intercept: learn a bias (a regularized
    constant feature 1, as LIBLINEAR's ``-B 1``). shuffle: a fresh seeded order each
    pass. random_state: the seed (None: 42). calibrate: give ``predict_proba`` (two
    classes, or several: ``train --calibrate``), as the command line fits it."""

    def __init__(
        self,
        C=1.0,
        max_iter=1000,
        fit_intercept=True,
        shuffle=True,
        random_state=None,
        calibrate=False,
    ):
        self.calibrate = calibrate
        self.C = C
        self.max_iter = max_iter
        self.fit_intercept = fit_intercept
        self.shuffle = shuffle
        self.random_state = random_state

    def _check_params(self):
        _boolean("calibrate", self.calibrate)
        _positive("C", self.C)
        _positive("max_iter", self.max_iter, integer=True)
        _boolean("fit_intercept", self.fit_intercept)
        _boolean("shuffle", self.shuffle)

    def _learner(self, n_classes):
        return "svm"

    @property
    def n_iter_(self):
        """The passes over the rows the fit made (the most of any class's one-vs-rest
        fit), as ``LinearSVC.n_iter_``; fewer than ``max_iter`` once it met its
        tolerance."""
        check_is_fitted(self)
        return self._native.epochs()

    def _settings(self):
        return {
            "C": float(self.C),
            "epochs": int(self.max_iter),
            "bias": _on_off(self.fit_intercept),
            "shuffle": bool(self.shuffle),
        }


class LogisticRegression(OnlineMixin, RosenblattClassifier):
    """Logistic regression by gradient descent on the L2-regularized log-loss: binary,
    or for several classes softmax (multinomial; ``multi_class="softmax"``) or one model
    per class (``"ovr"``). Its scores are logits: ``predict_proba`` gives P(class | x).

    eta: the initial rate. lr_schedule: "inverse-sqrt" (η/√(1 + epoch)), "inverse" or
    "constant". epochs: passes. l2: the L2 strength λ. solver: "sgd" (a step per row),
    "minibatch" (per ``batch_size`` rows) or "batch" (binary only: one step per pass on
    the whole gradient). fit_intercept: learn a bias (binary and one-vs-rest).
    random_state: the seed of the order (None: 42)."""

    _online_rule = "logistic"

    def __init__(
        self,
        eta=1.0,
        epochs=10,
        l2=1e-5,
        solver="sgd",
        batch_size=32,
        lr_schedule="inverse-sqrt",
        multi_class="softmax",
        fit_intercept=True,
        random_state=None,
    ):
        self.eta = eta
        self.epochs = epochs
        self.l2 = l2
        self.solver = solver
        self.batch_size = batch_size
        self.lr_schedule = lr_schedule
        self.multi_class = multi_class
        self.fit_intercept = fit_intercept
        self.random_state = random_state

    def _check_params(self):
        _positive("eta", self.eta)
        _positive("epochs", self.epochs, integer=True)
        _positive("batch_size", self.batch_size, integer=True)
        _non_negative("l2", self.l2)
        _boolean("fit_intercept", self.fit_intercept)
        _one_of("solver", self.solver, ("sgd", "minibatch", "batch"))
        _one_of("lr_schedule", self.lr_schedule, ("inverse-sqrt", "inverse", "constant"))
        _one_of("multi_class", self.multi_class, ("softmax", "ovr"))

    def _learner(self, n_classes):
        self._softmax = n_classes > 2 and self.multi_class == "softmax"
        if self._softmax and not self.fit_intercept:
            raise ValueError(
                "softmax regression always learns a bias per class: fit_intercept=False "
                "needs multi_class='ovr' (or two classes)"
            )
        return "softmax" if self._softmax else "logistic"

    def _settings(self):
        s = {
            "eta": float(self.eta),
            "epochs": int(self.epochs),
            "l2": float(self.l2),
            "solver": self.solver,
            "batch_size": int(self.batch_size),
            "lr_schedule": self.lr_schedule,
        }
        if not getattr(self, "_softmax", False):
            s["bias"] = _on_off(self.fit_intercept)
        return s

    def predict_proba(self, X):
        """P(class | x) for each class, shape ``(n_samples, n_classes)``. For multi-label
        models, one column per label: each label's own probability (one-vs-rest), or its
        share of the softmax over the labels (rows sum to 1); ``predict`` gives the labels
        above their tuned thresholds, not those above ½."""
        return self._probabilities(X)

    def predict_log_proba(self, X):
        """The natural logarithm of ``predict_proba``."""
        import numpy as np

        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


class KernelPerceptron(CalibratedMixin, RosenblattClassifier):
    """The dual (kernel) perceptron, for small corpora: f(x) = Σ αᵢ yᵢ K(xᵢ, x) + b.

    kernel: "linear" (x·z), "poly" ((x·z + coef0)^degree) or "rbf"
    (exp(−gamma·‖x − z‖²)). mode, epochs, bias, shuffle: as for ``Perceptron`` (bias
    "none" or "augmented"). averaging: "none" (the last hypothesis), "averaged" or
    "voted". random_state: the seed (None: 42). calibrate: give ``predict_proba`` (two
    classes, or several: ``train --calibrate``), as the command line fits it."""

    def __init__(
        self,
        kernel="linear",
        degree=2,
        coef0=1.0,
        gamma=1.0,
        mode="batch",
        epochs=10,
        bias="augmented",
        averaging="none",
        shuffle=True,
        random_state=None,
        calibrate=False,
    ):
        self.calibrate = calibrate
        self.kernel = kernel
        self.degree = degree
        self.coef0 = coef0
        self.gamma = gamma
        self.mode = mode
        self.epochs = epochs
        self.bias = bias
        self.averaging = averaging
        self.shuffle = shuffle
        self.random_state = random_state

    def _check_params(self):
        _boolean("calibrate", self.calibrate)
        _one_of("kernel", self.kernel, ("linear", "poly", "rbf"))
        _one_of("mode", self.mode, ("online", "batch", "converge"))
        _one_of("bias", self.bias, ("none", "augmented"))
        _one_of("averaging", self.averaging, ("none", "averaged", "voted"))
        _positive("epochs", self.epochs, integer=True)
        _positive("degree", self.degree, integer=True)
        _positive("gamma", self.gamma)
        _non_negative("coef0", self.coef0)
        _boolean("shuffle", self.shuffle)

    def _learner(self, n_classes):
        return "kernel-perceptron"

    def _settings(self):
        return {
            "kernel": self.kernel,
            "degree": int(self.degree),
            "coef0": float(self.coef0),
            "gamma": float(self.gamma),
            "mode": self.mode,
            "epochs": int(self.epochs),
            "bias": self.bias,
            "averaging": self.averaging,
            "shuffle": bool(self.shuffle),
        }
