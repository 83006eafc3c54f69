"""Probabilities of every two-class estimator, as the command line fits them (the model
file an estimator saves gives the command line's `classify` the same P); a verdict taken
apart by `Model.explain`; and the empty message refused as the command line refuses it.
Multi-class probabilities are in test_class_probabilities.py."""

import json
import subprocess

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

import rosenblatt
from conftest import ROOT, _program


def two_classes(seed=0, n=400, d=60):
    """Sparse binary rows whose class is a noisy linear function of them."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.1).astype(np.float64)
    w = rng.normal(size=d)
    y = np.where(X @ w + rng.normal(scale=0.5, size=n) > 0, "pos", "neg")
    return X, y


TWO_CLASS = [
    rosenblatt.Perceptron(calibrate=True),
    rosenblatt.AveragedPerceptron(calibrate=True),
    rosenblatt.PassiveAggressive(calibrate=True),
    rosenblatt.KernelPerceptron(calibrate=True),
    rosenblatt.LogisticRegression(),
]


@pytest.mark.parametrize("est", TWO_CLASS, ids=lambda e: type(e).__name__)
def test_every_two_class_estimator_gives_the_command_lines_probabilities(est, cli, tmp_path):
    X, y = two_classes()
    est.fit(X[:300], y[:300])
    held = X[300:]
    p = est.predict_proba(held)
    assert p.shape == (100, 2)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-6)
    assert ((0.0 <= p) & (p <= 1.0)).all()
    # predict gives the more probable class, and the probabilities rank as the scores.
    assert list(est.classes_[p.argmax(axis=1)]) == list(est.predict(held))
    s = est.decision_function(held)
    order = np.argsort(s, kind="stable")
    assert (np.diff(p[order, 1]) >= -1e-7).all()
    np.testing.assert_allclose(np.log(p), est.predict_log_proba(held), rtol=1e-6)
    # The probabilities say something: rows of P(pos) > ½ are mostly "pos".
    sure = p[:, 1] > 0.5
    assert (y[300:][sure] == "pos").mean() > 0.7
    # The model file the estimator saves gives the command line the same probability.
    est.save(tmp_path / "m.model")
    dump_svmlight_file(held, np.zeros(100), str(tmp_path / "held.svm"), zero_based=False)
    out = cli("classify", "-m", tmp_path / "m.model", tmp_path / "held.svm", "--format", "jsonl")
    lines = [json.loads(line) for line in out.splitlines()]
    if isinstance(est, rosenblatt.LogisticRegression):
        # Its own P(label) from the logit, as the command line prints it as the score.
        theirs = [d["score"] if d["label"] == "pos" else 1.0 - d["score"] for d in lines]
    else:
        theirs = [d["probability"] for d in lines]
    np.testing.assert_allclose(theirs, p[:, 1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cls", [rosenblatt.Perceptron, rosenblatt.AveragedPerceptron,
                                 rosenblatt.PassiveAggressive, rosenblatt.KernelPerceptron])
def test_probabilities_are_asked_for(cls):
    X, y = two_classes()
    plain = cls().fit(X, y)
    assert not hasattr(plain, "predict_proba")
    with pytest.raises(ValueError, match="calibrate"):
        cls(calibrate="yes").fit(X, y)
    # Three classes: a sigmoid per class, each row's probabilities summing to 1 ...
    y3 = np.where(X[:, 0] > 0, "third", y)
    three = cls(calibrate=True).fit(X, y3)
    p = three.predict_proba(X)
    assert p.shape == (len(y3), 3)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-5)
    # ... while it decides as without calibrate.
    assert list(three.predict(X)) == list(cls().fit(X, y3).predict(X))


@pytest.fixture(scope="module")
def mail_filter(tmp_path_factory):
    """A filter trained by the command line on the shipped SpamAssassin corpus."""
    shipped = ROOT / "corpora" / "spamassassin"
    model = tmp_path_factory.mktemp("filter") / "spam.model"
    subprocess.run([_program(), "train", "--spam", shipped / "spam", "--ham", shipped / "ham",
                    "-o", model], check=True, capture_output=True)
    return model


def test_an_empty_message_is_refused_as_the_command_line_refuses_it(mail_filter):
    f = rosenblatt.load(mail_filter)
    with pytest.raises(ValueError, match="empty message"):
        f.classify_mail(b"")
    with pytest.raises(ValueError, match="empty message"):
        f.explain(b"")
    r = subprocess.run([_program(), "classify", "-m", mail_filter, "-"], input=b"",
                       capture_output=True)
    assert r.returncode == 3 and b"empty" in r.stderr, r
    # White space alone is a message without headers, read as text, in both.
    assert f.classify_mail(b"\n \n").label == "ham"
    r = subprocess.run([_program(), "classify", "-m", mail_filter, "-"], input=b"\n \n",
                       capture_output=True)
    assert r.returncode == 1 and r.stdout.split(b"\t")[1] == b"ham", r


def test_explain_takes_a_verdict_apart(mail_filter, cli):
    f = rosenblatt.load(mail_filter)
    raw = (ROOT / "tests" / "data" / "mail" / "offer.eml").read_bytes()
    e = f.explain(raw)
    d = f.classify_mail(raw)
    assert (e.label, e.score) == (d.label, d.score)
    total = e.bias + sum(c.contribution for c in e.features)
    assert abs(total - e.score) < 1e-3
    strengths = [abs(c.contribution) for c in e.features]
    assert strengths == sorted(strengths, reverse=True)
    assert all(abs(c.contribution - c.weight * c.value) < 1e-6 for c in e.features)
    # The command line lists the same features with the same contributions.
    out = cli("classify", "--explain", "--format", "jsonl", "-m", mail_filter,
              ROOT / "tests" / "data" / "mail" / "offer.eml")
    line = json.loads(out)
    assert [x["feature"] for x in line["features"]] == [c.feature for c in e.features]
    with pytest.raises(ValueError, match="one score"):
        f.explain(raw, class_name="ham")
