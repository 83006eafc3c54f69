"""Probabilities of multi-class estimators: a one-vs-rest model fitted with
``calibrate=True`` (a sigmoid per class on out-of-fold scores, as ``train --calibrate``
fits it) gives ``predict_proba`` whose rows sum to 1, the same probabilities the command
line's ``classify -k`` prints from the model file it saves, and passes scikit-learn's
``neg_log_loss`` scoring in a pipeline."""

import json

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file
from sklearn.metrics import log_loss
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline

import rosenblatt

# Three topics of four sentences each, repeated: a corpus small enough to read.
TOPICS = {
    "sport": ["the team won the match", "a goal in the final minute", "the coach praised the players",
              "fans filled the stadium"],
    "money": ["the bank raised interest rates", "shares fell on the market", "the dollar rose against the yen",
              "profits beat forecasts"],
    "food": ["bake the bread for an hour", "a recipe with fresh tomatoes", "the soup needs more salt",
             "serve the cake warm"],
}
TEXTS = [t for ts in TOPICS.values() for t in ts] * 5
LABELS = [c for c, ts in TOPICS.items() for _ in ts] * 5


def three_classes(seed=0, n=600, d=80):
    """Sparse binary rows whose class is the best of three noisy linear functions."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.1).astype(np.float64)
    W = rng.normal(size=(d, 3))
    y = np.array(["a", "b", "c"])[(X @ W + rng.normal(scale=0.5, size=(n, 3))).argmax(axis=1)]
    return X, y


MULTI_CLASS = [
    rosenblatt.Perceptron(calibrate=True),
    rosenblatt.AveragedPerceptron(calibrate=True),
    rosenblatt.PassiveAggressive(calibrate=True),
    rosenblatt.KernelPerceptron(calibrate=True),
    rosenblatt.LogisticRegression(),
    rosenblatt.LogisticRegression(multi_class="ovr"),
]


@pytest.mark.parametrize("est", MULTI_CLASS, ids=lambda e: repr(e))
def test_every_multi_class_estimator_gives_probabilities_summing_to_one(est, cli, tmp_path):
    X, y = three_classes()
    est.fit(X[:450], y[:450])
    held = X[450:]
    p = est.predict_proba(held)
    assert p.shape == (150, 3)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-5)
    assert ((0.0 <= p) & (p <= 1.0)).all()
    # They say something: better than the classes' shares alone (log loss of the prior).
    prior = np.array([(y[:450] == c).mean() for c in est.classes_])
    assert log_loss(y[450:], p, labels=est.classes_) < log_loss(y[450:], np.tile(prior, (150, 1)),
                                                                 labels=est.classes_)
    # The command line's `classify -k 3` prints the same three probabilities from the
    # saved model, best class first.
    est.save(tmp_path / "m.model")
    dump_svmlight_file(held, np.zeros(150), str(tmp_path / "held.svm"), zero_based=False)
    out = cli("classify", "-m", tmp_path / "m.model", tmp_path / "held.svm", "-k", "3",
              "--format", "jsonl")
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == 150
    index = {str(c): i for i, c in enumerate(est.classes_)}
    for row, line in zip(p, lines):
        ranked = line["classes"]
        assert len(ranked) == 3
        for c in ranked:
            assert abs(c["probability"] - row[index[c["label"]]]) < 1e-5


def test_a_calibrated_pipeline_passes_neg_log_loss_cross_validation():
    pipe = make_pipeline(rosenblatt.Vectorizer(), rosenblatt.PassiveAggressive(calibrate=True))
    scores = cross_val_score(pipe, TEXTS, LABELS, cv=3, scoring="neg_log_loss")
    assert len(scores) == 3
    # Better than a uniform guess over three classes (log loss ln 3) on every fold.
    assert (scores > -np.log(3)).all(), scores
    # Without calibrate there are no probabilities to score.
    plain = make_pipeline(rosenblatt.Vectorizer(), rosenblatt.PassiveAggressive())
    assert not hasattr(plain.fit(TEXTS, LABELS), "predict_proba")


def test_calibrate_on_rows_of_several_labels_is_refused_in_python_terms():
    X, y = three_classes()
    Y = np.stack([y == "a", y == "b", (y == "c") | (y == "a")], axis=1).astype(int)
    with pytest.raises(ValueError, match="fit without calibrate=True"):
        rosenblatt.PassiveAggressive(calibrate=True).fit(X, Y)
    # Without it, the labels are learned and each is decided at its own threshold.
    assert rosenblatt.PassiveAggressive().fit(X, Y).predict(X).shape == Y.shape
