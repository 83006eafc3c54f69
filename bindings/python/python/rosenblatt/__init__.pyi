"""Type stubs of the public API, for editors and type checkers."""

from os import PathLike
from typing import Any, Iterable, NamedTuple, Optional, Union

import numpy as np
import numpy.typing as npt
from scipy.sparse import csr_matrix, spmatrix
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin

__version__: str
ArrayLike = Union[npt.ArrayLike, spmatrix]

def learner_names() -> list[str]: ...

class _Classifier(ClassifierMixin, BaseEstimator):
    classes_: npt.NDArray[Any]
    n_features_in_: int
    @property
    def coef_(self) -> npt.NDArray[np.float64]: ...
    @property
    def intercept_(self) -> npt.NDArray[np.float64]: ...
    def fit(self, X: ArrayLike, y: npt.ArrayLike,
            sample_weight: Optional[npt.ArrayLike] = None) -> "_Classifier": ...
    def predict(self, X: ArrayLike) -> npt.NDArray[Any]: ...
    def decision_function(self, X: ArrayLike) -> npt.NDArray[np.float64]: ...
    def save(self, path: Union[str, PathLike[str]]) -> None: ...

class _Calibrated:
    calibrate: bool
    def predict_proba(self, X: ArrayLike) -> npt.NDArray[np.float64]: ...
    def predict_log_proba(self, X: ArrayLike) -> npt.NDArray[np.float64]: ...

class _Online:
    def partial_fit(self, X: ArrayLike, y: npt.ArrayLike,
                    classes: Optional[npt.ArrayLike] = None) -> Any: ...

class Perceptron(_Calibrated, _Online, _Classifier):
    def __init__(self, mode: str = "batch", epochs: int = 10, eta: float = 1.0,
                 bias: str = "augmented", shuffle: bool = True, rounds: Optional[int] = None,
                 patience: Optional[int] = None, random_state: Any = None,
                 calibrate: bool = False) -> None: ...

class AveragedPerceptron(_Calibrated, _Classifier):
    def __init__(self, epochs: int = 10, fit_intercept: bool = True, shuffle: bool = True,
                 random_state: Any = None, calibrate: bool = False) -> None: ...

class PassiveAggressive(_Calibrated, _Online, _Classifier):
    def __init__(self, C: float = 1.0, epochs: int = 7, average: bool = True,
                 fit_intercept: bool = True, shuffle: bool = True,
                 random_state: Any = None, calibrate: bool = False) -> None: ...

class LogisticRegression(_Online, _Classifier):
    def __init__(self, eta: float = 1.0, epochs: int = 10, l2: float = 1e-5,
                 solver: str = "sgd", batch_size: int = 32, lr_schedule: str = "inverse-sqrt",
                 multi_class: str = "softmax", fit_intercept: bool = True,
                 random_state: Any = None) -> None: ...
    def predict_proba(self, X: ArrayLike) -> npt.NDArray[np.float64]: ...
    def predict_log_proba(self, X: ArrayLike) -> npt.NDArray[np.float64]: ...

class LinearSVM(_Calibrated, _Classifier):
    def __init__(self, C: float = 1.0, max_iter: int = 1000, fit_intercept: bool = True,
                 shuffle: bool = True, random_state: Any = None,
                 calibrate: bool = False) -> None: ...

class KernelPerceptron(_Calibrated, _Classifier):
    def __init__(self, kernel: str = "linear", degree: int = 2, coef0: float = 1.0,
                 gamma: float = 1.0, mode: str = "batch", epochs: int = 10,
                 bias: str = "augmented", averaging: str = "none", shuffle: bool = True,
                 random_state: Any = None, calibrate: bool = False) -> None: ...

class Vectorizer(TransformerMixin, BaseEstimator):
    n_features_out_: int
    def __init__(self, ngrams: int = 1, hash_bits: int = 0, lowercase: bool = True,
                 words: bool = True, chars: int = 0, weighting: str = "idf",
                 normalize: str = "l2", min_df: int = 1,
                 max_features: Optional[int] = None, nb_alpha: float = 1.0) -> None: ...
    def fit(self, raw_documents: Iterable[Union[str, bytes]], y: Any = None) -> "Vectorizer": ...
    def fit_transform(self, raw_documents: Iterable[Union[str, bytes]], y: Any = None) -> csr_matrix: ...
    def transform(self, raw_documents: Iterable[Union[str, bytes]]) -> csr_matrix: ...
    def get_feature_names_out(self, input_features: Any = None) -> npt.NDArray[np.object_]: ...
    @property
    def vocabulary_(self) -> dict[str, int]: ...

class Decision(NamedTuple):
    label: str
    score: float

class Contribution(NamedTuple):
    feature: str
    weight: float
    value: float
    contribution: float

class Explanation(NamedTuple):
    label: str
    score: float
    bias: float
    features: list[Contribution]

class Model:
    path: Any
    @property
    def classes(self) -> list[str]: ...
    @property
    def learner(self) -> str: ...
    @property
    def threshold(self) -> float: ...
    @property
    def reads_mail(self) -> bool: ...
    @property
    def feature_names(self) -> Optional[list[str]]: ...
    def classify(self, texts: Union[str, bytes, Iterable[Union[str, bytes]]]) -> Union[Decision, list[Decision]]: ...
    def labels(self, texts: Union[str, bytes, Iterable[Union[str, bytes]]]) -> Union[list[Decision], list[list[Decision]]]: ...
    def classify_mail(self, messages: Union[str, bytes, Iterable[Union[str, bytes]]]) -> Union[Decision, list[Decision]]: ...
    def probability(self, texts: Union[str, bytes, Iterable[Union[str, bytes]]]) -> Union[float, list[float]]: ...
    def explain(self, text: Union[str, bytes], class_name: Optional[str] = None) -> Explanation: ...

def load(path: Union[str, bytes, PathLike[str], PathLike[bytes]]) -> Model: ...

def explain(pipeline: Any, text: Union[str, bytes], class_name: Optional[str] = None) -> Explanation: ...
