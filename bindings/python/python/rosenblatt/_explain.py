"""Why a fitted pipeline gives a text its score: each feature's weight times its value in
the text's row, the bias, and their sum, the score ``decision_function`` gives; the same
Explanation that ``Model.explain`` gives for a model file."""

import numpy as np
import scipy.sparse as sp

from ._load import Contribution, Explanation, _as_text


def explain(pipeline, text, class_name=None):
    """Why ``pipeline`` (fitted: transformers that turn texts into rows, such as
    ``rosenblatt.Vectorizer``, then a linear rosenblatt classifier) gives ``text`` its
    verdict: an Explanation of the predicted label's score (the second class's score for
    two classes), or of ``class_name``'s for models of three classes or more, its features
    strongest first. The bias plus the contributions add up to the score."""
    steps = getattr(pipeline, "steps", None)
    if not steps or len(steps) < 2:
        raise TypeError(
            "explain takes a fitted Pipeline of a vectorizer and a classifier, e.g. "
            "make_pipeline(rosenblatt.Vectorizer(), rosenblatt.PassiveAggressive()); "
            f"got {type(pipeline).__name__}"
        )
    front, clf = pipeline[:-1], pipeline[-1]
    x = sp.csr_matrix(front.transform([_as_text(text)]))
    coef, bias = clf.coef_, clf.intercept_
    scores = np.atleast_2d(clf.decision_function(x))[0]
    if coef.shape[0] == 1:
        if class_name is not None:
            raise ValueError(
                "a two-class model has one score, positive for its second class "
                f"({clf.classes_[1]!r}); leave out class_name"
            )
        row, label = 0, clf.predict(x)[0]
    elif class_name is None:
        row = int(np.argmax(scores))
        label = clf.classes_[row]
    else:
        found = np.flatnonzero(np.asarray(clf.classes_).astype(str) == str(class_name))
        if not found.size:
            raise ValueError(
                f"no class {class_name!r}: the classes are {list(clf.classes_)!r}"
            )
        row = int(found[0])
        label = clf.classes_[row]
    names = _feature_names(front, coef.shape[1])
    cols, values = x.indices, x.data.astype(np.float64)
    weights = coef[row, cols]
    parts = weights * values
    order = sorted(range(len(cols)), key=lambda i: (-abs(parts[i]), names[cols[i]]))
    features = [
        Contribution(names[cols[i]], float(weights[i]), float(values[i]), float(parts[i]))
        for i in order
    ]
    return Explanation(label, float(scores[row]), float(bias[row]), features)


def _feature_names(front, width):
    """Each column's name, as the transformers name their output; ``x0``, ``x1``, …
    where they do not."""
    try:
        names = front.get_feature_names_out()
    except (AttributeError, ValueError):
        return [f"x{j}" for j in range(width)]
    return [str(n) for n in names]
