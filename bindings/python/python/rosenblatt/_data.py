"""Inputs as the native layer reads them: checked by scikit-learn's own validation,
then handed over as the three arrays of a canonical CSR matrix."""

import numpy as np
import scipy.sparse as sp


def csr_parts(X):
    """The CSR arrays of ``X`` (already validated): ``(indptr, indices, data, width)``.

    Dense arrays become CSR (zeros dropped). A CSR matrix whose rows hold unsorted or
    repeated column indices is copied and summed into canonical form; otherwise its
    arrays are passed as they are (float32 values are then read without a copy)."""
    if not sp.issparse(X):
        X = sp.csr_matrix(X)
    elif X.format != "csr":
        X = X.tocsr()
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    data = X.data
    if data.dtype not in (np.float32, np.float64):
        data = data.astype(np.float64)
    ints = lambda a: a if a.dtype in (np.int32, np.int64) else a.astype(np.int64)
    return (
        np.ascontiguousarray(ints(X.indptr)),
        np.ascontiguousarray(ints(X.indices)),
        np.ascontiguousarray(data),
        X.shape[1],
    )


def seed_of(random_state):
    """The seed a ``random_state`` gives: None is the command line's default seed (42),
    so that results repeat and match ``rosenblatt train``; an int is itself; a
    ``RandomState`` draws one."""
    import numbers

    from sklearn.utils import check_random_state

    if random_state is None:
        return 42
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if not 0 <= random_state < 2**64:
            raise ValueError(f"random_state must be from 0 to 2**64 - 1, got {random_state}")
        return int(random_state)
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
