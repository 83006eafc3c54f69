"""``Vectorizer``: texts to rows as ``rosenblatt train`` makes them, as a scikit-learn
transformer (for pipelines, grid search and cross-validation)."""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._rosenblatt import NativeVectorizer


def _texts(raw_documents):
    """The documents as a list of str: bytes are read as UTF-8, or latin-1 where they
    are not UTF-8 (as the command line reads files)."""
    if isinstance(raw_documents, (str, bytes, bytearray)):
        raise ValueError(
            "Iterable over raw text documents expected, string object received."
        )
    out = []
    for i, d in enumerate(raw_documents):
        if isinstance(d, (bytes, bytearray, memoryview)):
            d = bytes(d)
            try:
                d = d.decode("utf-8")
            except UnicodeDecodeError:
                d = d.decode("latin-1")
        elif not isinstance(d, str):
            raise ValueError(
                f"document {i} is a {type(d).__name__}, not text (str or bytes)"
            )
        out.append(_encodable(d))
    return out


def _encodable(text):
    """The text with lone surrogates (which no UTF-8 string holds) replaced by U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


class Vectorizer(TransformerMixin, BaseEstimator):
    """Texts to sparse rows with the command line's analyzer.

    UAX #29 words (``words``), and/or every run of ``chars`` characters; lowercased
    unless ``lowercase`` is False; word n-grams of 2 to ``ngrams`` added; tokens hashed
    to 2^``hash_bits`` ids when ``hash_bits`` > 0 (no vocabulary kept). Words in fewer
    than ``min_df`` documents are dropped, at most ``max_features`` kept (the most
    frequent). Values: ``weighting`` "idf" (ln((n+1)/(df+1)) + 1), "binary", or "nb": the
    naive-Bayes log-count ratio of two classes, ln((p/|p|)/(q/|q|)) with p and q a word's
    document counts in ``y``'s second and first class (sorted, as ``classes_``) plus
    ``nb_alpha`` (NBSVM's weighting; ``fit`` then needs ``y``), rows
    scaled to unit length when ``normalize`` is "l2". The defaults are ``rosenblatt
    train``'s for text. Returns float32 CSR rows (read by the rosenblatt estimators
    without a copy)."""

    def __init__(
        self,
        ngrams=1,
        hash_bits=0,
        lowercase=True,
        words=True,
        chars=0,
        weighting="idf",
        normalize="l2",
        min_df=1,
        max_features=None,
        nb_alpha=1.0,
    ):
        self.ngrams = ngrams
        self.hash_bits = hash_bits
        self.lowercase = lowercase
        self.words = words
        self.chars = chars
        self.weighting = weighting
        self.normalize = normalize
        self.min_df = min_df
        self.max_features = max_features
        self.nb_alpha = nb_alpha

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        tags.requires_fit = True
        return tags

    def _native_new(self):
        for name, least in (("ngrams", 1), ("hash_bits", 0), ("chars", 0), ("min_df", 1)):
            v = getattr(self, name)
            if (isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer))
                    or not least <= v <= 2**31):
                raise ValueError(f"{name} must be an integer of at least {least}, got {v!r}")
        for name in ("ngrams", "hash_bits", "chars"):
            if getattr(self, name) > 255:
                raise ValueError(f"{name} must be at most 255 (and the analyzer takes less), "
                                 f"got {getattr(self, name)}")
        if self.max_features is not None and (
            isinstance(self.max_features, (bool, np.bool_))
            or not isinstance(self.max_features, (int, np.integer)) or self.max_features < 1
        ):
            raise ValueError(
                f"max_features must be a positive integer or None, got {self.max_features!r}"
            )
        if self.hash_bits > 0 and (self.min_df > 1 or self.max_features is not None):
            raise ValueError(
                "min_df and max_features prune a vocabulary, and hash_bits > 0 keeps none: "
                "give one or the other"
            )
        for name in ("lowercase", "words"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
        return NativeVectorizer(
            words=bool(self.words),
            chars=int(self.chars),
            lowercase=bool(self.lowercase),
            ngrams=int(self.ngrams),
            hash_bits=int(self.hash_bits),
            weighting=self.weighting,
            normalize=self.normalize,
            min_df=int(self.min_df),
            max_features=None if self.max_features is None else int(self.max_features),
            nb_alpha=float(self.nb_alpha),
        )

    @staticmethod
    def _csr(parts, n):
        indptr, indices, data, width = parts
        return sp.csr_matrix((data, indices, indptr), shape=(n, width))

    def fit(self, raw_documents, y=None):
        """Learns the vocabulary (and idf weights, or with ``y`` naive-Bayes ratios) of the
        documents."""
        self.fit_transform(raw_documents, y)
        return self

    def fit_transform(self, raw_documents, y=None):
        """Learns the vocabulary and returns the documents' rows, in one pass."""
        texts = _texts(raw_documents)
        native = self._native_new()
        positive = None
        if self.weighting == "nb" and y is not None:
            y = np.asarray(y)
            classes = np.unique(y)
            if len(classes) != 2 or len(y) != len(texts):
                raise ValueError(
                    f"weighting='nb' compares two classes: y has {len(classes)} classes "
                    f"for {len(y)} labels and {len(texts)} texts"
                )
            positive = [bool(v == classes[1]) for v in y]
        rows = self._csr(native.fit_transform(texts, positive), len(texts))
        self._native = native
        self.n_features_out_ = native.n_features()
        return rows

    def transform(self, raw_documents):
        """The rows of the documents under the fitted vocabulary (unknown words are
        left out)."""
        check_is_fitted(self)
        texts = _texts(raw_documents)
        return self._csr(self._native.transform(texts), len(texts))

    def __sklearn_is_fitted__(self):
        return hasattr(self, "_native")

    def get_feature_names_out(self, input_features=None):
        """The word of every column (hashing keeps no words: refused)."""
        check_is_fitted(self)
        names = self._native.feature_names()
        if names is None:
            raise AttributeError("a hashing vectorizer keeps no words (hash_bits > 0)")
        return np.asarray(names, dtype=object)

    @property
    def vocabulary_(self):
        """Word → column, as scikit-learn's vectorizers offer it."""
        return {w: j for j, w in enumerate(self.get_feature_names_out())}

    def __getstate__(self):
        state = self.__dict__.copy()
        native = state.pop("_native", None)
        if native is not None:
            state["_fitted"] = native.to_bytes()
        return state

    def __setstate__(self, state):
        state = dict(state)
        fitted = state.pop("_fitted", None)
        self.__dict__.update(state)
        if fitted is not None:
            self._native = NativeVectorizer.from_bytes(fitted)
