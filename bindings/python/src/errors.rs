//! The library's errors as Python exceptions, by scikit-learn's conventions: what is
//! wrong with the data or a parameter is a `ValueError`, a file that cannot be read an
//! `OSError`.

use pyo3::PyErr;
use pyo3::exceptions::{PyOSError, PyValueError};

/// The Python exception for a library error, with the library's sentence.
pub fn to_py(e: rosenblatt::Error) -> PyErr {
    match e {
        rosenblatt::Error::Io { .. } => PyOSError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}
