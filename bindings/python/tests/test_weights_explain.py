"""Whole-number sample weights as repeated rows, and a fitted pipeline's explanation of a
text adding up to its score."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.pipeline import make_pipeline

import rosenblatt

WEIGHTED = [
    lambda: rosenblatt.Perceptron(random_state=3),
    lambda: rosenblatt.AveragedPerceptron(random_state=3),
    lambda: rosenblatt.PassiveAggressive(random_state=3),
    lambda: rosenblatt.LogisticRegression(random_state=3),
    lambda: rosenblatt.KernelPerceptron(random_state=3),
    lambda: rosenblatt.LinearSVM(random_state=3),
]


def _data(n_classes, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(60, 40, density=0.15, format="csr", random_state=seed)
    X.data[:] = 1.0
    y = rng.integers(0, n_classes, size=60)
    return X, y


@pytest.mark.parametrize("make", WEIGHTED)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_whole_number_weights_fit_as_the_rows_repeated(make, n_classes):
    X, y = _data(n_classes)
    w = np.random.default_rng(1).integers(0, 4, size=X.shape[0])
    rows = np.repeat(np.arange(X.shape[0]), w)
    weighted = make().fit(X, y, sample_weight=w)
    repeated = make().fit(X[rows], y[rows])
    np.testing.assert_array_equal(weighted.decision_function(X), repeated.decision_function(X))
    # Weights that change nothing are not a repetition of anything.
    plain = make().fit(X, y)
    ones = make().fit(X, y, sample_weight=np.ones(X.shape[0]))
    np.testing.assert_array_equal(plain.decision_function(X), ones.decision_function(X))
    # Weights that change something change the model.
    assert not np.array_equal(weighted.decision_function(X), plain.decision_function(X))


def test_weights_that_are_not_whole_numbers_are_refused_naming_the_row():
    X, y = _data(2)
    w = np.ones(X.shape[0])
    w[7] = 0.5
    with pytest.raises(ValueError, match=r"whole numbers.*0\.5 for row 7"):
        rosenblatt.Perceptron().fit(X, y, sample_weight=w)
    w[7] = -1
    with pytest.raises(ValueError, match="row 7"):
        rosenblatt.Perceptron().fit(X, y, sample_weight=w)
    with pytest.raises(ValueError, match="non-zero|0 for every row"):
        rosenblatt.Perceptron().fit(X, y, sample_weight=np.zeros(X.shape[0]))


TEXTS = [
    "cheap meds buy now cheap",
    "win money now click here",
    "lunch at noon with the team",
    "minutes of the team meeting",
    "quarterly report attached for review",
    "review the report before the meeting",
]


@pytest.mark.parametrize(
    "labels,clf",
    [
        (["spam", "spam", "ham", "ham", "ham", "ham"], rosenblatt.PassiveAggressive()),
        (["spam", "spam", "ham", "ham", "work", "work"], rosenblatt.AveragedPerceptron()),
        (["spam", "spam", "ham", "ham", "work", "work"], rosenblatt.LogisticRegression()),
    ],
)
def test_a_pipelines_explanation_adds_up_to_its_score(labels, clf):
    pipe = make_pipeline(rosenblatt.Vectorizer(), clf).fit(TEXTS, labels)
    text = "buy cheap meds before the meeting, cheap"
    e = rosenblatt.explain(pipe, text)
    scores = np.atleast_2d(pipe.decision_function([text]))[0]
    assert e.label == pipe.predict([text])[0]
    explained = 0 if len(scores) == 1 else list(pipe.classes_).index(e.label)
    assert e.score == pytest.approx(scores[explained], rel=1e-5, abs=1e-6)
    assert e.bias + sum(c.contribution for c in e.features) == pytest.approx(e.score, rel=1e-5, abs=1e-6)
    # Every feature is a word of the text, each once, strongest first.
    names = [c.feature for c in e.features]
    assert set(names) <= {"buy", "cheap", "meds", "before", "the", "meeting"}
    assert len(names) == len(set(names))
    sizes = [abs(c.contribution) for c in e.features]
    assert sizes == sorted(sizes, reverse=True)
    for c in e.features:
        assert c.contribution == pytest.approx(c.weight * c.value)
    if len(scores) > 1:
        other = next(k for k in pipe.classes_ if k != e.label)
        o = rosenblatt.explain(pipe, text, class_name=other)
        assert o.label == other
        assert o.bias + sum(c.contribution for c in o.features) == pytest.approx(o.score, rel=1e-5, abs=1e-6)
        with pytest.raises(ValueError, match="no class 'nope'"):
            rosenblatt.explain(pipe, text, class_name="nope")
    else:
        with pytest.raises(ValueError, match="leave out class_name"):
            rosenblatt.explain(pipe, text, class_name="ham")


def test_explain_wants_a_pipeline():
    with pytest.raises(TypeError, match="Pipeline"):
        rosenblatt.explain(rosenblatt.Perceptron(), "text")
