//! The extension module `rosenblatt._rosenblatt`: a thin layer between the Python
//! package (python/rosenblatt, where the scikit-learn estimators live) and the library.
//! It reads scipy's CSR arrays in place where it can (`rows`), turns estimator
//! parameters into the library's settings (`settings`), and releases the interpreter's
//! lock while the library fits, vectorizes or classifies, so rayon's threads do the work.

mod errors;
mod model;
mod rows;
mod settings;
mod vectorizer;

use pyo3::prelude::*;

/// The learners' names, as `rosenblatt train --learner` takes them.
#[pyfunction]
fn learner_names() -> Vec<&'static str> {
    rosenblatt::learn::AnyLearner::NAMES.to_vec()
}

/// The module: the model and vectorizer classes and the learners' names.
#[pymodule]
fn _rosenblatt(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<model::NativeModel>()?;
    m.add_class::<vectorizer::NativeVectorizer>()?;
    m.add_function(wrap_pyfunction!(learner_names, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
