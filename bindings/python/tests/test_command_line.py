"""Every estimator, and the vectorizer, decide as the command line does on the same rows
and seed: SMS spam (TSV), SpamAssassin (mail) and Reuters-21578 ModApte (multi-label).

The command line trains on the corpus itself with binary, unscaled rows (`--weighting
binary --normalize none`); the same rows come to Python through `rosenblatt vectorize`
(SVMlight, with its vocabulary), test documents mapped into the training vocabulary by
word, as `classify` maps them."""

import json
import os

import numpy as np
import pytest
import scipy.sparse as sp

import rosenblatt

# Every word kept, as `vectorize` and the Vectorizer keep them (`train` leaves out words of
# one document from 1,000 documents on).
GEOMETRY = ["--weighting", "binary", "--normalize", "none", "--min-df", "1"]

# (estimator, the command line's learner flags), per corpus kind.
BINARY = [
    (rosenblatt.Perceptron(), ["--learner", "perceptron"]),
    (rosenblatt.AveragedPerceptron(), ["--learner", "averaged-perceptron"]),
    # C named: `train` gives two-class text C = 0.3 by default, the estimator C = 1.
    (rosenblatt.PassiveAggressive(), ["--learner", "pa", "--pa-c", "1"]),
    (rosenblatt.LogisticRegression(), ["--learner", "logistic"]),
    (rosenblatt.Perceptron(mode="converge", bias="r2", eta=0.5, random_state=7),
     ["--learner", "perceptron", "--mode", "converge", "--bias", "r2", "--eta", "0.5", "--seed", "7"]),
    (rosenblatt.KernelPerceptron(kernel="rbf", gamma=0.5),
     ["--learner", "kernel-perceptron", "--kernel", "rbf", "--gamma", "0.5"]),
]
MULTILABEL = [
    (rosenblatt.Perceptron(), ["--learner", "perceptron"]),
    (rosenblatt.AveragedPerceptron(), ["--learner", "averaged-perceptron"]),
    (rosenblatt.PassiveAggressive(), ["--learner", "pa"]),
    (rosenblatt.LogisticRegression(), ["--learner", "softmax"]),
    (rosenblatt.LogisticRegression(multi_class="ovr"), ["--learner", "logistic"]),
    (rosenblatt.KernelPerceptron(), ["--learner", "kernel-perceptron"]),
]


def read_svm(path):
    """(label field, feature ids) per line of an SVMlight file `vectorize` wrote, and its
    vocabulary (line i: word of id i) and classes (label → class name)."""
    rows = []
    with open(path) as f:
        for line in f:
            label, *feats = line.split()
            rows.append((label, [int(t.split(":")[0]) for t in feats]))
    with open(f"{path}.vocab", encoding="utf-8") as f:
        vocab = [line.rstrip("\n").split("\t")[0] for line in f]
    classes = {}
    with open(f"{path}.classes", encoding="utf-8") as f:
        for line in f:
            k, v = line.rstrip("\n").split("\t")
            classes[k] = v
    return rows, vocab, classes


def matrix(rows, vocab, columns):
    """The rows as binary CSR over `columns` (word → column), unknown words left out."""
    indptr, indices = [0], []
    for _, ids in rows:
        cols = sorted({columns[vocab[i - 1]] for i in ids if vocab[i - 1] in columns})
        indices.extend(cols)
        indptr.append(len(indices))
    data = np.ones(len(indices), dtype=np.float32)
    return sp.csr_matrix((data, indices, indptr), shape=(len(rows), len(columns)))


def train_and_test(cli, tmp, train_args, test_args, model=None):
    """The training and test rows as the command line vectorizes them, with their label
    fields and classes; columns in the order of `model`'s vocabulary when given (the
    command line's model numbers words its own way), else of the training rows'."""
    cli("vectorize", "-o", tmp / "train.svm", *train_args)
    cli("vectorize", "-o", tmp / "test.svm", *test_args)
    tr, vocab, classes = read_svm(tmp / "train.svm")
    te, te_vocab, te_classes = read_svm(tmp / "test.svm")
    words = rosenblatt.load(model).feature_names if model else vocab
    assert sorted(words) == sorted(vocab)
    columns = {w: j for j, w in enumerate(words)}
    return (matrix(tr, vocab, columns), [r[0] for r in tr], classes,
            matrix(te, te_vocab, columns), [r[0] for r in te], te_classes)


def decisions(cli, model, *inputs):
    """The command line's `classify --format jsonl` lines."""
    out = cli("classify", "-m", model, "--format", "jsonl", *inputs)
    return [json.loads(line) for line in out.splitlines()]


def check_binary(cli, tmp, estimator, flags, train, test, train_inputs, test_inputs):
    model = tmp / "cli.model"
    cli("train", "-o", model, *train_inputs, *GEOMETRY, *flags)
    X, y, classes, Xt, _, _ = train_and_test(cli, tmp, train, test, model)
    labels = np.array([classes[v] for v in y])
    theirs = decisions(cli, model, *test_inputs)
    mine = estimator.fit(X, labels)
    their_labels = [d["label"] for d in theirs]
    their_scores = np.array([d["score"] for d in theirs])
    assert len(their_labels) == Xt.shape[0] > 100
    scores = mine.decision_function(Xt)
    if hasattr(mine, "predict_proba"):
        # A logistic model's line gives P(its label): compare with the same probability.
        proba = mine.predict_proba(Xt)
        column = {c: k for k, c in enumerate(mine.classes_)}
        np.testing.assert_allclose(
            [proba[i, column[lab]] for i, lab in enumerate(their_labels)], their_scores,
            rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_allclose(scores, their_scores, rtol=1e-5, atol=1e-5)
    # The command line decides at the model's threshold (a logistic mail filter at
    # P(spam) > 0.9), the estimator at 0: the two agree wherever the threshold is 0.
    threshold = rosenblatt.load(model).threshold
    positive = mine.classes_[1]
    assert all((lab == positive) == (s > threshold) for lab, s in zip(their_labels, scores))
    if threshold == 0:
        assert list(mine.predict(Xt)) == their_labels


@pytest.mark.parametrize("estimator,flags", BINARY, ids=lambda p: str(p)[:60])
def test_sms_spam(cli, corpora, tmp_path, estimator, flags):
    lines = (corpora / "sms-spam-collection" / "SMSSpamCollection").read_text(encoding="utf-8").splitlines(True)
    cut = len(lines) * 4 // 5
    (tmp_path / "train.tsv").write_text("".join(lines[:cut]), encoding="utf-8")
    (tmp_path / "test.tsv").write_text("".join(lines[cut:]), encoding="utf-8")
    tr, te = [tmp_path / "train.tsv", "--format", "tsv"], [tmp_path / "test.tsv", "--format", "tsv"]
    check_binary(cli, tmp_path, estimator, flags, tr, te, tr, [tmp_path / "test.tsv", "--input-format", "tsv"])


def mail_split(corpora, tmp):
    """SpamAssassin's spam and ham, every fifth message (in name order) held out, as
    folders of links."""
    for kind in ("spam", "ham"):
        files = sorted(p for p in (corpora / "spamassassin" / kind).rglob("*") if p.is_file())
        for i, f in enumerate(files):
            part = "test" if i % 5 == 4 else "train"
            d = tmp / part / kind
            d.mkdir(parents=True, exist_ok=True)
            os.symlink(f, d / f"{f.parent.name}-{f.name}")
    return tmp


@pytest.mark.parametrize("estimator,flags", BINARY, ids=lambda p: str(p)[:60])
def test_spamassassin(cli, corpora, tmp_path, estimator, flags):
    """Mail: the command line trains on `vectorize`'s rows of the messages (SVMlight, in
    the order both sides read) and classifies the held-out messages' rows in the
    training vocabulary."""
    from sklearn.datasets import dump_svmlight_file

    d = mail_split(corpora, tmp_path / "mail")
    X, y, _, Xt, yt, _ = train_and_test(
        cli, tmp_path,
        ["--spam", d / "train" / "spam", "--ham", d / "train" / "ham"],
        ["--spam", d / "test" / "spam", "--ham", d / "test" / "ham"])
    dump_svmlight_file(Xt, np.array(yt, dtype=float), str(tmp_path / "held-out.svm"), zero_based=False)
    model = tmp_path / "cli.model"
    cli("train", "-o", model, tmp_path / "train.svm", *flags)
    theirs = decisions(cli, model, tmp_path / "held-out.svm")
    mine = estimator.fit(X, np.array(y, dtype=float))
    assert [float(d["label"]) for d in theirs] == list(mine.predict(Xt))
    their_scores = np.array([d["score"] for d in theirs])
    if hasattr(mine, "predict_proba"):
        # P(the label given), as the command line prints it for a logistic model.
        p = mine.predict_proba(Xt)
        mine_scores = np.where(mine.predict(Xt) == mine.classes_[1], p[:, 1], p[:, 0])
    else:
        mine_scores = mine.decision_function(Xt)
    np.testing.assert_allclose(mine_scores, their_scores, rtol=1e-5, atol=1e-6)
    assert len(theirs) > 600


@pytest.mark.parametrize("estimator,flags", MULTILABEL, ids=lambda p: str(p)[:60])
def test_reuters(cli, corpora, tmp_path, estimator, flags):
    sgml = corpora / "reuters21578" / "sgml"
    model = tmp_path / "cli.model"
    cli("train", "-o", model, sgml, "--format", "reuters", "--split", "train", *GEOMETRY, *flags)
    X, y, classes, Xt, _, _ = train_and_test(
        cli, tmp_path, [sgml, "--format", "reuters", "--split", "train"],
        [sgml, "--format", "reuters", "--split", "test"], model)
    names = sorted(classes.values())
    col = {n: c for c, n in enumerate(names)}
    Y = np.zeros((len(y), len(names)), dtype=np.int8)
    for i, field in enumerate(y):
        for k in field.split(","):
            Y[i, col[classes[k]]] = 1
    theirs = decisions(cli, model, sgml, "--input-format", "reuters", "--split", "test")
    mine = estimator.fit(X, Y).predict(Xt)
    assert mine.shape == (len(theirs), len(names)) and len(theirs) > 3000
    mine_sets = [sorted(names[c] for c in np.flatnonzero(r)) for r in mine]
    assert mine_sets == [sorted(d["labels"]) for d in theirs]


def test_vectorizer_rows_equal_the_command_lines(cli, corpora, tmp_path):
    """`Vectorizer` with binary unscaled rows gives `rosenblatt vectorize`'s rows, word
    for word, on SMS spam (train with idf and unit length: the values `train` reads)."""
    path = corpora / "sms-spam-collection" / "SMSSpamCollection"
    lines = path.read_text(encoding="utf-8").splitlines()
    texts = [line.split("\t", 1)[1] for line in lines]
    cli("vectorize", "-o", tmp_path / "sms.svm", path, "--format", "tsv")
    rows, vocab, _ = read_svm(tmp_path / "sms.svm")
    v = rosenblatt.Vectorizer(weighting="binary", normalize="none")
    X = v.fit_transform(texts)
    assert list(v.get_feature_names_out()) == vocab
    assert X.shape == (len(rows), len(vocab))
    for i in range(0, len(rows), 7):
        assert list(X[i].indices) == [j - 1 for j in rows[i][1]]
    assert set(X.data) == {1.0}
    # idf + l2: unit rows, idf = ln((n+1)/(df+1)) + 1 before scaling.
    Xi = rosenblatt.Vectorizer().fit_transform(texts)
    norms = np.sqrt(np.asarray(Xi.multiply(Xi).sum(axis=1))).ravel()
    np.testing.assert_allclose(norms[norms > 0], 1.0, rtol=1e-5)
