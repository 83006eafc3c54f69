"""Models saved by the command line (``rosenblatt train``, ``learn``, ``eval --online
--save``), opened from Python to classify strings and raw mail as ``rosenblatt
classify`` does."""

import os
from collections import namedtuple

from ._rosenblatt import NativeModel

Decision = namedtuple("Decision", ["label", "score"])
Decision.__doc__ = """A model's answer for one text: the label and the score behind it
(w·x + b for linear models, compared with the model's threshold for two classes)."""

Contribution = namedtuple("Contribution", ["feature", "weight", "value", "contribution"])
Contribution.__doc__ = """One feature's part in a score: its weight, its value in the text's row
under the model's geometry, and weight × value, what it adds to the score."""

Explanation = namedtuple("Explanation", ["label", "score", "bias", "features"])
Explanation.__doc__ = """Why a text got its verdict: the explained label's score, the bias and
each feature's Contribution, strongest first; the bias plus the contributions add up to
the score."""


_BYTES = (bytes, bytearray, memoryview)


def _as_text(t):
    """A text as str: bytes read as UTF-8 or else latin-1, lone surrogates replaced."""
    if isinstance(t, _BYTES):
        t = bytes(t)
        try:
            return t.decode("utf-8")
        except UnicodeDecodeError:
            return t.decode("latin-1")
    if not isinstance(t, str):
        raise TypeError(f"expected str or bytes, got {type(t).__name__}")
    return t.encode("utf-8", "replace").decode("utf-8")


def _as_message(m):
    """A raw message as bytes (a str is encoded as UTF-8)."""
    if isinstance(m, _BYTES):
        return bytes(m)
    if isinstance(m, str):
        return m.encode("utf-8", "replace")
    raise TypeError(f"expected a message as bytes or str, got {type(m).__name__}")


class Model:
    """A saved model: its classes and learner, and ``classify`` / ``classify_mail``."""

    def __init__(self, native, path):
        self._native = native
        self.path = path

    @property
    def classes(self):
        """The class names; for two classes the second is the positive one."""
        return self._native.classes()

    @property
    def learner(self):
        """The learner that trained it, as ``--learner`` names it."""
        return self._native.learner()

    @property
    def threshold(self):
        """The score above which a two-class model gives its second class."""
        return self._native.threshold()

    @property
    def feature_names(self):
        """The word of every feature, in the model's order (None for hashed models and
        models trained on feature vectors)."""
        return self._native.feature_names()

    @property
    def reads_mail(self):
        """Whether it is a mail filter (its texts are read as RFC 822 messages)."""
        return self._native.reads_mail()

    def classify(self, texts):
        """The decision for one text (str or bytes), or a list of decisions for an
        iterable of texts. A mail filter reads each text as a message. A multi-label
        model's decision is its best label; ``labels`` gives the whole set."""
        if self.reads_mail:
            return self.classify_mail(texts)
        one = isinstance(texts, (str, *_BYTES))
        batch = [_as_text(t) for t in ([texts] if one else texts)]
        out = [Decision(*d) for d in self._named(self._native.classify, batch)]
        return out[0] if one else out

    def labels(self, texts):
        """Every label one text (str or bytes) gets, best first, as decisions: a
        multi-label model's label set, as ``rosenblatt classify`` prints it (each score
        a probability where the model has one); the one decision of ``classify`` for
        other models. A list of such lists for an iterable of texts."""
        one = isinstance(texts, (str, *_BYTES))
        if self.reads_mail:
            # A mail filter has two classes: one label, read from the raw bytes.
            d = self.classify_mail(texts)
            return [d] if one else [[x] for x in d]
        batch = [_as_text(t) for t in ([texts] if one else texts)]
        out = [[Decision(*d) for d in ls] for ls in self._named(self._native.labels, batch)]
        return out[0] if one else out

    def _named(self, native, batch):
        """``native(batch)``, its ValueErrors naming the model file (what they are about)."""
        try:
            return native(batch)
        except ValueError as e:
            raise ValueError(f"{os.fspath(self.path)}: {e}") from None

    def classify_mail(self, messages):
        """The decision for one raw message (bytes or str, RFC 822), or a list of
        decisions for an iterable of them."""
        one = isinstance(messages, (str, *_BYTES))
        batch = [_as_message(m) for m in ([messages] if one else messages)]
        out = [Decision(*d) for d in self._native.classify_mail(batch)]
        return out[0] if one else out

    def explain(self, text, class_name=None):
        """Why one text (str or bytes; a raw message for a mail filter) gets its verdict, as
        ``rosenblatt classify --explain`` lists it: an Explanation of the decided label's
        score, or of ``class_name``'s for models of three classes or more."""
        if self.reads_mail:
            if class_name is not None:
                raise ValueError(f"{os.fspath(self.path)}: a filter has one score, positive "
                                 "for spam and negative for ham; leave out class_name")
            e = self._native.explain_mail(_as_message(text))
        else:
            t = _as_text(text)
            e = self._named(lambda b: self._native.explain(b[0], class_name), [t])
        label, score, bias, features = e
        return Explanation(label, score, bias, [Contribution(*c) for c in features])

    def probability(self, texts):
        """P(the second class) for one text (str or bytes), or a list of them for an
        iterable of texts: what ``rosenblatt classify --format jsonl`` reports, e.g.
        P(spam) of a mail filter (which calls a message spam above 0.9 by default). Two-class
        models give one: every linear one ``train`` fits records a calibration, and a logistic
        model's scores are log-odds. A ValueError, whatever the texts, for models of more
        classes and for two-class models without a calibration (files written before it
        was recorded, filters trained over processes)."""
        if self._native.probability([0.0]) is None:
            k = len(self.classes)
            why = (f"a model of {k} classes gives no probability" if k != 2 else
                   "a multi-label model gives a probability per label: see labels()"
                   if self._native.kind().startswith("multilabel") else
                   "this model holds no calibration (a class of fewer than two documents, a "
                   "file written before calibrations were recorded, or one trained over "
                   "processes)")
            raise ValueError(f"{os.fspath(self.path)}: {why}")
        decisions = self.classify(texts)
        one = isinstance(decisions, Decision)
        p = self._native.probability([d.score for d in ([decisions] if one else decisions)])
        return p[0] if one else p

    def __repr__(self):
        return f"rosenblatt.Model({str(self.path)!r}, learner={self.learner!r}, classes={self.classes!r})"


def load(path):
    """Opens a model file saved by ``rosenblatt train`` (or a spam filter). A truncated,
    damaged or foreign file is refused with a ValueError that names it."""
    path = os.fsdecode(os.fspath(path))
    return Model(NativeModel.load(path), path)
