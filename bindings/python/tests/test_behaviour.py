"""What scikit-learn users rely on beyond the estimator checks: pipelines in grid search,
pickles and joblib, partial_fit, saved models from the command line, and bad input
answered with scikit-learn's exceptions and a sentence."""

import pickle
import threading

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline

import rosenblatt

SPAM = ["cheap meds buy now", "buy cheap watches now", "win money now cheap", "cheap pills online"]
HAM = ["lunch at noon tomorrow", "the meeting moved to noon", "see you at lunch", "notes from the meeting"]
TEXTS = SPAM * 5 + HAM * 5
LABELS = ["spam"] * 20 + ["ham"] * 20

ESTIMATORS = [
    rosenblatt.Perceptron,
    rosenblatt.AveragedPerceptron,
    rosenblatt.PassiveAggressive,
    rosenblatt.LogisticRegression,
    rosenblatt.KernelPerceptron,
]


def test_readme_pipeline_in_grid_search_and_cross_validation():
    pipe = make_pipeline(rosenblatt.Vectorizer(), rosenblatt.PassiveAggressive())
    grid = GridSearchCV(pipe, {"passiveaggressive__C": [0.1, 1.0], "vectorizer__ngrams": [1, 2]}, cv=3)
    grid.fit(TEXTS, LABELS)
    assert grid.best_score_ == 1.0
    assert list(grid.predict(["buy cheap pills", "lunch meeting"])) == ["spam", "ham"]
    assert cross_val_score(pipe, TEXTS, LABELS, cv=4).min() == 1.0


@pytest.mark.parametrize("make", ESTIMATORS)
def test_pickle_and_joblib_round_trip(make, tmp_path):
    v = rosenblatt.Vectorizer()
    X = v.fit_transform(TEXTS)
    clf = make().fit(X, LABELS)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.decision_function(X), clf.decision_function(X))
    joblib.dump((v, clf), tmp_path / "m.joblib")
    v2, clf2 = joblib.load(tmp_path / "m.joblib")
    assert list(clf2.predict(v2.transform(["buy cheap pills"]))) == ["spam"]
    assert list(pickle.loads(pickle.dumps(v)).get_feature_names_out()) == list(v.get_feature_names_out())


def test_saved_estimator_loads_as_a_model_file(tmp_path):
    X = rosenblatt.Vectorizer().fit_transform(TEXTS)
    clf = rosenblatt.PassiveAggressive().fit(X, LABELS)
    clf.save(tmp_path / "m.model")
    m = rosenblatt.load(tmp_path / "m.model")
    assert m.learner == "pa" and m.classes == ["ham", "spam"]


def test_partial_fit_learns_online_and_refuses_unknown_classes():
    X = rosenblatt.Vectorizer().fit_transform(TEXTS)
    y = np.array(LABELS)
    order = np.random.default_rng(0).permutation(40)
    clf = rosenblatt.Perceptron()
    for _ in range(3):
        for i in range(0, 40, 8):
            rows = order[i:i + 8]
            clf.partial_fit(X[rows], y[rows], classes=["ham", "spam"])
    assert (clf.predict(X) == y).mean() == 1.0
    # Several classes: one model per class, softmax for logistic regression.
    y3 = np.array([f"{lab}{i % 2}" if lab == "ham" else lab for i, lab in enumerate(LABELS)])
    for make in (rosenblatt.PassiveAggressive, rosenblatt.LogisticRegression):
        fitted = make().fit(X, y3)
        before = fitted.decision_function(X)
        fitted.partial_fit(X[order], y3[order])
        assert fitted.decision_function(X).shape == before.shape == (40, 3)
        assert not np.array_equal(fitted.decision_function(X), before)
    with pytest.raises(ValueError, match="not given on the first call"):
        clf.partial_fit(X[:2], ["eggs", "spam"])
    with pytest.raises(ValueError, match="classes must be passed"):
        rosenblatt.PassiveAggressive().partial_fit(X, y)


def test_multilabel_indicator_gives_label_sets():
    X = rosenblatt.Vectorizer().fit_transform(TEXTS)
    Y = np.zeros((40, 3), dtype=int)
    Y[:20, 0] = 1
    Y[20:, 1] = 1
    Y[::4, 2] = 1
    clf = rosenblatt.PassiveAggressive().fit(X, Y)
    P = clf.predict(X)
    assert P.shape == (40, 3)
    assert (P[:, :2] == Y[:, :2]).all()
    assert rosenblatt.LogisticRegression().fit(X, Y).predict_proba(X).shape == (40, 3)


def test_cli_spam_filter_classifies_strings_and_mail(tmp_path):
    X = rosenblatt.Vectorizer()
    clf = rosenblatt.PassiveAggressive().fit(X.fit_transform(TEXTS), LABELS)
    path = tmp_path / "est.model"
    clf.save(path)
    with pytest.raises(ValueError, match="feature vectors"):
        rosenblatt.load(path).classify("cheap meds")


def test_mail_filter_probability_is_the_command_lines(cli, tmp_path):
    """`Model.probability` of a filter `train --spam --ham` made gives the `probability`
    that `classify --format jsonl` prints, and the filter calls spam above P = 0.9; a
    model of three classes and a two-class file from before calibrations were recorded
    have none and say so."""
    import json
    import pathlib

    shipped = pathlib.Path(__file__).resolve().parents[3] / "corpora" / "spamassassin"
    for kind, sub, n in (("spam", "spam", 60), ("ham", "ham/easy_ham", 200)):
        d = tmp_path / kind
        d.mkdir()
        for f in sorted((shipped / sub).iterdir())[:n]:
            (d / f.name).symlink_to(f)
    held_out = sorted((shipped / "spam").iterdir())[-20:] + sorted((shipped / "ham" / "hard_ham").iterdir())[:20]
    model = tmp_path / "spam.model"
    cli("train", "--spam", tmp_path / "spam", "--ham", tmp_path / "ham", "-o", model)
    theirs = {json.loads(line)["id"]: json.loads(line)
              for line in cli("classify", "-m", model, "--format", "jsonl", *held_out).splitlines()}
    m = rosenblatt.load(model)
    raw = [f.read_bytes() for f in held_out]
    mine = m.probability(raw)
    expected = [theirs[str(f)]["probability"] for f in held_out]
    np.testing.assert_allclose(mine, expected, rtol=1e-5, atol=1e-6)
    assert 0.0 < min(mine) < 0.5 < max(mine) < 1.0
    assert [p > 0.9 for p in mine] == [d.label == "spam" for d in m.classify(raw)]
    assert m.probability(raw[0]) == mine[0]
    (tmp_path / "three.tsv").write_text("a\tred apples\nb\tblue sky\nc\tgreen grass\n")
    cli("train", tmp_path / "three.tsv", "-o", tmp_path / "three.model")
    with pytest.raises(ValueError, match="three.model: a model of 3 classes gives no probability"):
        rosenblatt.load(tmp_path / "three.model").probability("red sky")
    older = pathlib.Path(__file__).resolve().parents[3] / "tests" / "data" / "format6.model"
    with pytest.raises(ValueError, match="format6.model: this model holds no calibration"):
        rosenblatt.load(older).probability("cheap meds")
    with pytest.raises(ValueError, match="format6.model: this model holds no calibration"):
        rosenblatt.load(older).probability([])


def test_bad_input_gets_sentences():
    X = rosenblatt.Vectorizer().fit_transform(TEXTS)
    clf = rosenblatt.PassiveAggressive()
    with pytest.raises(NotFittedError):
        clf.predict(X)
    with pytest.raises(ValueError, match="only one class"):
        clf.fit(X, ["spam"] * 40)
    with pytest.raises(ValueError, match="Found input variables with inconsistent numbers"):
        clf.fit(X, LABELS[:-1])
    with pytest.raises(ValueError, match="NaN"):
        clf.fit(np.full((4, 2), np.nan), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="infinity"):
        clf.fit(np.array([[np.inf, 1], [0, 1]]), [0, 1])
    with pytest.raises(ValueError, match="C must be a positive number"):
        rosenblatt.PassiveAggressive(C=-1).fit(X, LABELS)
    with pytest.raises(ValueError, match="epochs must be a positive integer"):
        rosenblatt.Perceptron(epochs=0).fit(X, LABELS)
    with pytest.raises(ValueError, match="mode must be one of"):
        rosenblatt.Perceptron(mode="sometimes").fit(X, LABELS)
    with pytest.raises(ValueError, match="no nonzero value"):
        clf.fit(sp.csr_matrix((4, 3)), [0, 1, 0, 1])
    clf.fit(X, LABELS)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :3])
    with pytest.raises(ValueError, match="empty vocabulary"):
        rosenblatt.Vectorizer().fit(["...", "!!"])
    with pytest.raises(ValueError, match="string object received"):
        rosenblatt.Vectorizer().fit("one string")
    with pytest.raises(ValueError, match="ngrams must be an integer of at least 1"):
        rosenblatt.Vectorizer(ngrams=-1).fit(TEXTS)
    with pytest.raises(ValueError, match="max_features"):
        rosenblatt.Vectorizer(max_features=True).fit(TEXTS)
    with pytest.raises(ValueError, match="shuffle must be True or False"):
        rosenblatt.PassiveAggressive(shuffle="x").fit(X, LABELS)
    with pytest.raises(ValueError, match="rounds applies to mode='random' only"):
        rosenblatt.Perceptron(rounds=5).fit(X, LABELS)
    with pytest.raises(ValueError, match="l2 must be a number"):
        rosenblatt.LogisticRegression(l2="x").fit(X, LABELS)
    with pytest.raises(ValueError, match="a 2-D y must be a label indicator matrix of 0 and 1"):
        clf.fit(X, np.where(np.eye(40, 3) > 0, 1, -1))
    with pytest.raises(ValueError, match="1e18"):
        clf.fit(np.array([[3e38, 1.0], [1.0, 0.0]]), [0, 1])
    with pytest.raises(ValueError, match="fit_intercept=False needs multi_class='ovr'"):
        rosenblatt.LogisticRegression(fit_intercept=False).fit(X, np.arange(40) % 3)
    with pytest.raises(TypeError, match="expected a message"):
        rosenblatt.Model(None, "x").classify_mail([5])
    with pytest.raises(ValueError, match="hash"):
        rosenblatt.Vectorizer(hash_bits=60).fit(TEXTS)


def test_damaged_model_files_are_refused_by_name(tmp_path):
    p = tmp_path / "bad.model"
    p.write_bytes(b"RSNBLATT" + b"\0" * 10)
    with pytest.raises(ValueError, match="bad.model"):
        rosenblatt.load(p)
    with pytest.raises(OSError, match="missing.model"):
        rosenblatt.load(tmp_path / "missing.model")
    clf = rosenblatt.Perceptron().fit(rosenblatt.Vectorizer().fit_transform(TEXTS), LABELS)
    state = clf.__getstate__()
    state["_model_file"] = state["_model_file"][:-5]
    with pytest.raises(ValueError, match="pickled model"):
        rosenblatt.Perceptron().__setstate__(state)


def test_a_malformed_csr_is_refused_not_read():
    from rosenblatt._rosenblatt import NativeModel

    ok = dict(indptr=np.array([0, 1, 2], np.int32), indices=np.array([0, 1], np.int32),
              data=np.ones(2, np.float32))
    y = np.array([0, 1], np.int64)
    for bad, match in [
        (dict(indices=np.array([0, 9], np.int32)), "outside"),
        (dict(indices=np.array([0, -1], np.int32)), "outside"),
        (dict(indptr=np.array([0, 2, 1], np.int32)), "indptr"),
        (dict(indptr=np.array([0, 1, 5], np.int64)), "indptr"),
        (dict(indptr=np.array([0, 2, 2], np.int32), indices=np.array([1, 0], np.int32)), "sorted"),
        (dict(data=np.array([1.0, np.nan], np.float64)), "NaN"),
        (dict(indices=np.array([0.0, 1.0])), "int32 or int64"),
    ]:
        a = {**ok, **bad}
        with pytest.raises(ValueError, match=match):
            NativeModel.fit(a["indptr"], a["indices"], a["data"], 2, y, ["a", "b"], "perceptron", {}, 1)


def test_fitting_releases_the_interpreter():
    """While one thread fits, another runs Python code: the lock is released."""
    rng = np.random.default_rng(0)
    X = sp.random(20000, 2000, density=0.01, format="csr", random_state=0, dtype=np.float32)
    y = rng.integers(0, 2, 20000)
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(1)

    t = threading.Thread(target=tick)
    t.start()
    try:
        rosenblatt.LogisticRegression(epochs=30).fit(X, y)
    finally:
        done.set()
        t.join()
    assert len(ticks) > 1000


def test_partial_fit_keeps_the_settings_and_its_state_across_pickles():
    X = rosenblatt.Vectorizer().fit_transform(TEXTS)
    y = np.array(LABELS)
    # No bias without fit_intercept; the perceptron's step is its eta.
    pa = rosenblatt.PassiveAggressive(fit_intercept=False).partial_fit(X, y, classes=["ham", "spam"])
    assert pa.intercept_ == [0.0]
    p = rosenblatt.Perceptron(eta=0.25).partial_fit(X[:1], y[:1], classes=["ham", "spam"])
    np.testing.assert_allclose(p.coef_[0], 0.25 * (1 if y[0] == "spam" else -1) * X[0].toarray()[0], rtol=1e-6)
    # The decaying rate's count travels with the pickle.
    lr = rosenblatt.LogisticRegression().partial_fit(X[:20], y[:20], classes=["ham", "spam"])
    copy = pickle.loads(pickle.dumps(lr))
    lr.partial_fit(X[20:], y[20:])
    copy.partial_fit(X[20:], y[20:])
    np.testing.assert_array_equal(lr.decision_function(X), copy.decision_function(X))
    # Several classes under the default multi_class learn one softmax model.
    y3 = np.arange(40) % 3
    sm = rosenblatt.LogisticRegression().partial_fit(X, y3, classes=[0, 1, 2])
    assert sm._native.kind() == "softmax"


def test_a_failed_refit_leaves_the_fitted_model_whole():
    X = rosenblatt.Vectorizer().fit_transform(TEXTS)
    clf = rosenblatt.PassiveAggressive().fit(X, LABELS)
    with pytest.raises(ValueError):
        clf.fit(X[:1], np.array([[1, 0, 1]]))
    assert list(clf.predict(X[:1])) == ["spam"]


def test_a_model_too_wide_for_a_file_is_refused_before_allocating():
    X = sp.csr_matrix((np.ones(2), [0, 1], [0, 1, 2]), shape=(2, 2**40))
    with pytest.raises(ValueError, match="more than a model file can hold"):
        rosenblatt.Perceptron().partial_fit(X, [0, 1], classes=[0, 1])


def test_naive_bayes_weighting_gives_the_hand_computed_ratios_and_fits_in_a_pipeline():
    # Positive ("spam", the second class sorted) texts "a b" and "a"; negative "b c".
    # Counts plus 1: p = (3, 2, 1) of 6, q = (1, 2, 2) of 5; r = ln((p/6) / (q/5)).
    v = rosenblatt.Vectorizer(weighting="nb", normalize="none")
    X = v.fit_transform(["a b", "a", "b c"], ["spam", "spam", "ham"]).toarray()
    col = {w: j for j, w in enumerate(v.get_feature_names_out())}
    want = {"a": np.log(2.5), "b": np.log(5 / 6), "c": np.log(5 / 12)}
    for w, r in want.items():
        assert X[0 if w != "c" else 2, col[w]] == pytest.approx(r, abs=1e-6)
    # The ratios come from fit's labels and stay for transform.
    np.testing.assert_allclose(v.transform(["c"]).toarray()[0, col["c"]], np.log(5 / 12), atol=1e-6)
    pipe = make_pipeline(rosenblatt.Vectorizer(weighting="nb"), rosenblatt.PassiveAggressive())
    assert cross_val_score(pipe, TEXTS, LABELS, cv=4).min() == 1.0
    again = pickle.loads(pickle.dumps(v))
    np.testing.assert_array_equal(again.transform(["a b c"]).toarray(), v.transform(["a b c"]).toarray())


def test_naive_bayes_weighting_needs_two_classes_of_labels():
    with pytest.raises(ValueError, match="give y"):
        rosenblatt.Vectorizer(weighting="nb").fit(TEXTS)
    with pytest.raises(ValueError, match="two classes"):
        rosenblatt.Vectorizer(weighting="nb").fit(TEXTS[:3], ["a", "b", "c"])
    with pytest.raises(ValueError, match="nb_alpha"):
        rosenblatt.Vectorizer(weighting="nb", nb_alpha=0).fit(TEXTS, LABELS)


def test_linear_svm_solves_linearsvc_s_problem():
    # The same problem as scikit-learn's LinearSVC (squared hinge, L2, the intercept a
    # regularized constant feature 1): on the same rows the weights agree to the
    # tolerance at which the dual solver stops, and so do nearly all decisions.
    from sklearn.datasets import make_classification
    from sklearn.svm import LinearSVC

    X, y = make_classification(n_samples=300, n_features=12, n_informative=6,
                               flip_y=0.1, random_state=3)
    for C in (0.1, 1.0):
        ours = rosenblatt.LinearSVM(C=C).fit(X, y)
        theirs = LinearSVC(C=C, tol=1e-8, max_iter=100_000).fit(X, y)
        w = np.append(ours.coef_.ravel(), ours.intercept_)
        v = np.append(theirs.coef_.ravel(), theirs.intercept_)
        assert np.linalg.norm(w - v) <= 0.01 * np.linalg.norm(v), (C, w, v)
        assert (ours.predict(X) == theirs.predict(X)).mean() >= 0.98
    # Several classes, one-vs-rest, as LinearSVC.
    X3, y3 = make_classification(n_samples=300, n_features=12, n_informative=6,
                                 n_classes=3, random_state=4)
    ours = rosenblatt.LinearSVM().fit(X3, y3)
    theirs = LinearSVC(tol=1e-8, max_iter=100_000).fit(X3, y3)
    assert (ours.predict(X3) == theirs.predict(X3)).mean() >= 0.97
    with pytest.raises(ValueError, match="max_iter"):
        rosenblatt.LinearSVM(max_iter=0).fit(X, y)
