"""Edges a hostile user reaches: damaged pickles, kernels that overflow, multi-label
models read back, paths that are not strings, settings that cannot hold, and the errors
that name what is wrong."""

import json
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import softmax

import rosenblatt as rb


def test_a_damaged_vectorizer_pickle_is_a_value_error_not_an_abort():
    v = rb.Vectorizer().fit(["cheap meds buy now", "lunch at noon"])
    data = pickle.dumps(v)
    # A length byte that claims petabytes, and a changed letter of a word.
    i = data.index(b"\x02at")
    for damaged in (data[:i] + b"\xfd" + data[i + 1:], data.replace(b"noon", b"nooN")):
        with pytest.raises(ValueError, match="not a pickled rosenblatt vectorizer"):
            pickle.loads(damaged)
    w = pickle.loads(data)
    assert (w.transform(["lunch at noon"]) != v.transform(["lunch at noon"])).nnz == 0
    # The state without its header (as pickles before the checksum were) is still
    # decoded with a bound: a length claiming petabytes is refused, not allocated.
    state = v.__getstate__()
    key = next(k for k, b in state.items() if isinstance(b, bytes) and b.startswith(b"RBVECT"))
    payload = state[key][16:]
    j = payload.index(b"\x02at")
    for legacy in (payload, payload[:j] + b"\xfd" + payload[j + 1:]):
        broken = dict(state, **{key: legacy})
        u = rb.Vectorizer.__new__(rb.Vectorizer)
        if legacy is payload:
            u.__setstate__(broken)
            assert (u.transform(["lunch"]) != v.transform(["lunch"])).nnz == 0
        else:
            with pytest.raises(ValueError, match="not a pickled rosenblatt vectorizer"):
                u.__setstate__(broken)


def test_multilabel_softmax_probabilities_are_softmax_of_its_logits():
    rng = np.random.default_rng(0)
    X = rng.random((300, 6))
    Y = np.zeros((300, 3), int)
    Y[np.arange(300), X[:, :3].argmax(1)] = 1
    clf = rb.LogisticRegression().fit(X, Y)
    logits = X[:5] @ clf.coef_.T + clf.intercept_
    np.testing.assert_allclose(clf.decision_function(X[:5]), logits, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(clf.predict_proba(X[:5]), softmax(logits, axis=1), atol=1e-4)


def test_a_polynomial_kernel_that_overflows_is_refused():
    X = np.array([[30.0, 0], [0, 30], [30, 10], [10, 30]])
    y = [0, 1, 0, 1]
    with pytest.raises(ValueError, match="overflows"):
        rb.KernelPerceptron(kernel="poly", degree=16).fit(X, y)
    # Within range the same points are separated.
    clf = rb.KernelPerceptron(kernel="poly", degree=2).fit(X / 30, y)
    assert clf.score(X / 30, y) == 1.0


def test_a_multilabel_models_labels_are_the_command_lines(cli, tmp_path):
    rows = [{"labels": ["a"], "text": "apple banana"}, {"labels": ["b"], "text": "dog cat"},
            {"labels": ["a", "b"], "text": "apple dog"}] * 20
    corpus = tmp_path / "ml.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows))
    model = tmp_path / "ml.model"
    cli("train", corpus, "-o", model)
    query = tmp_path / "q.txt"
    query.write_text("apple dog")
    out = json.loads(cli("classify", "-m", model, "--format", "jsonl", query))
    m = rb.load(model)
    got = m.labels("apple dog")
    assert [d.label for d in got] == out["labels"]
    np.testing.assert_allclose([d.score for d in got], out["scores"], rtol=1e-6)
    assert sorted(out["labels"]) == ["a", "b"]
    # classify gives the best of them; a batch gives a list per text.
    assert m.classify("apple dog").label == got[0].label
    assert [[d.label for d in ls] for ls in m.labels(["apple banana", "dog cat"])] == [["a"], ["b"]]
    with pytest.raises(ValueError, match="a probability per label"):
        m.probability("apple")


def test_save_and_load_take_paths_and_refuse_other_things(tmp_path):
    clf = rb.PassiveAggressive().fit(np.eye(4), [0, 1, 0, 1])
    target = tmp_path / "out.model"
    clf.save(bytes(target))
    assert rb.load(bytes(target)).classes == ["0", "1"]
    assert rb.load(target).path == str(target)
    for bad in (3, None):
        with pytest.raises(TypeError):
            clf.save(bad)


def test_settings_and_targets_that_cannot_hold_are_refused():
    with pytest.raises(ValueError, match="outside what a 32-bit float holds"):
        rb.Perceptron(eta=1e-46).fit(np.eye(2), [0, 1])
    X = sp.random(40, 20, density=0.3, format="csr", random_state=0)
    for est in (rb.PassiveAggressive(), rb.Perceptron(), rb.LogisticRegression()):
        with pytest.raises(ValueError, match="no 1 at all"):
            est.fit(X, np.zeros((40, 3), int))
    with pytest.raises(ValueError, match="at least 2 samples"):
        rb.PassiveAggressive().fit(np.eye(3)[:1], np.array([[1, 0, 1]]))
    with pytest.raises(ValueError, match="no nonzero value"):
        rb.Perceptron().fit(np.eye(4) * 1e-50, [0, 1, 0, 1])
    with pytest.raises(ValueError, match="hash_bits > 0 keeps none"):
        rb.Vectorizer(hash_bits=6, min_df=3).fit(["a b", "b c"])


def test_text_given_to_a_model_of_feature_vectors_names_the_file(tmp_path):
    path = tmp_path / "est.model"
    rb.PassiveAggressive().fit(np.eye(4), [0, 1, 0, 1]).save(path)
    with pytest.raises(ValueError, match=f"^{path}: .*feature vectors"):
        rb.load(path).classify("x")


def test_partial_fit_in_one_thread_and_predict_in_another_wait_for_each_other():
    import threading

    X = sp.random(4000, 2000, density=0.01, format="csr", random_state=0, dtype=np.float32)
    y = np.arange(4000) % 2
    clf = rb.PassiveAggressive().partial_fit(X[:10], y[:10], classes=[0, 1])
    errors = []

    def learn():
        try:
            for _ in range(5):
                clf.partial_fit(X, y)
        except Exception as e:  # noqa: BLE001 - any failure is the finding
            errors.append(e)

    t = threading.Thread(target=learn)
    t.start()
    # Readers run alongside for as long as the learner does, and at least a while.
    calls = 0
    while t.is_alive() or calls < 50:
        clf.predict(X[:100])
        pickle.dumps(clf)
        calls += 1
    t.join()
    assert errors == []
    # First calls from two threads at once make one model, which learns both batches
    # (without the ordering, about one run in ten lost a batch: hence several runs).
    for _ in range(10):
        fresh = rb.PassiveAggressive()
        both = [threading.Thread(target=fresh.partial_fit, args=(X[:2000], y[:2000], [0, 1]))
                for _ in range(2)]
        for b in both:
            b.start()
        for b in both:
            b.join()
        assert fresh._native.seen() == [4000]
    # The model after all of it pickles and predicts as itself.
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(back.predict(X[:50]), clf.predict(X[:50]))
