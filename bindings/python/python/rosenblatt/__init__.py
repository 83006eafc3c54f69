"""rosenblatt: sparse bag-of-words text classification from Python.

scikit-learn estimators over the Rust library (``Perceptron``, ``AveragedPerceptron``,
``PassiveAggressive``, ``LogisticRegression``, ``LinearSVM``, ``KernelPerceptron``), the command
line's analyzer as a transformer (``Vectorizer``), and models saved by the command
line (``load``).

    >>> from sklearn.pipeline import make_pipeline
    >>> import rosenblatt
    >>> clf = make_pipeline(rosenblatt.Vectorizer(), rosenblatt.PassiveAggressive())
    >>> clf = clf.fit(["cheap meds buy now", "lunch at noon"], ["spam", "ham"])
    >>> clf.predict(["buy cheap meds"])[0]
    'spam'
"""

from ._estimators import (
    AveragedPerceptron,
    KernelPerceptron,
    LinearSVM,
    LogisticRegression,
    PassiveAggressive,
    Perceptron,
)
from ._explain import explain
from ._load import Contribution, Decision, Explanation, Model, load
from ._rosenblatt import __version__, learner_names
from ._vectorizer import Vectorizer

__all__ = [
    "AveragedPerceptron",
    "Contribution",
    "Decision",
    "Explanation",
    "KernelPerceptron",
    "LinearSVM",
    "LogisticRegression",
    "Model",
    "PassiveAggressive",
    "Perceptron",
    "Vectorizer",
    "__version__",
    "explain",
    "learner_names",
    "load",
]
