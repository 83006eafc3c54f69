//! `NativeVectorizer`: the command line's analyzer, vocabulary and geometry as one
//! object that turns texts into CSR arrays (the `rosenblatt.Vectorizer` estimator's
//! engine). Fitting builds the vocabulary and the idf weights in one tokenizing pass;
//! transforming tokenizes in parallel; both run without the interpreter's lock.

use crate::errors::to_py;
use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rayon::prelude::*;
use rosenblatt::features::{BinaryMatrix, Geometry, GeometrySpec, Normalize, Weighting, vectorize};
use rosenblatt::text::{Analyzer, Source, Step};
use rosenblatt::training::{check_vocabulary, vectorize_training};
use rosenblatt::vocab::{VocabConfig, Vocabulary};
use rosenblatt::{Document, SparseRows};
use serde::{Deserialize, Serialize};

/// The CSR arrays of transformed texts: indptr (int64), indices (int32), data (float32)
/// and the width.
type Csr<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i32>>,
    Bound<'py, PyArray1<f32>>,
    usize,
);

/// What a fitted vectorizer is: how to tokenize, the words kept, and how rows are read.
#[pyclass(module = "rosenblatt._rosenblatt")]
#[derive(Clone, Serialize, Deserialize)]
pub struct NativeVectorizer {
    analyzer: Analyzer,
    config: VocabConfig,
    spec: GeometrySpec,
    vocab: Vocabulary,
    geometry: Geometry,
}

/// The word of every feature id of `vocab`, in id order; `None` for a hashed space, which
/// keeps no words.
pub fn words(vocab: &Vocabulary) -> Option<Vec<String>> {
    if vocab.hashing().is_some() {
        return None;
    }
    Some(
        (0..vocab.len() as u32)
            .map(|j| vocab.word(j).to_string())
            .collect(),
    )
}

fn documents(texts: Vec<String>) -> Vec<Document> {
    texts
        .into_par_iter()
        .map(|t| Document::new("", t, None))
        .collect()
}

impl NativeVectorizer {
    /// The stored rows read in the fitted geometry, as Python arrays.
    fn arrays<'py>(&self, py: Python<'py>, m: &BinaryMatrix) -> Csr<'py> {
        let (indptr, indices, data) = py.detach(|| {
            let x = self.geometry.apply(m);
            let indptr: Vec<i64> = m.indptr().raw_storage().iter().map(|&p| p as i64).collect();
            let indices: Vec<i32> = m.indices().iter().map(|&j| j as i32).collect();
            let data: Vec<f32> = (0..x.n_rows())
                .into_par_iter()
                .flat_map_iter(|i| {
                    let r = x.row(i);
                    (0..r.nnz()).map(move |k| r.value(k))
                })
                .collect();
            (indptr, indices, data)
        });
        (
            indptr.into_pyarray(py),
            indices.into_pyarray(py),
            data.into_pyarray(py),
            m.cols(),
        )
    }
}

/// The first bytes of a pickled vectorizer's state.
const PICKLE_MAGIC: &[u8; 8] = b"RBVECT\x00\x01";
/// Magic and checksum.
const PICKLE_HEADER: usize = 16;
/// The most a pickled vectorizer's payload may ask to allocate (1 GiB): a damaged length
/// is refused by bincode before the allocation it claims.
const PICKLE_LIMIT: usize = 1 << 30;

#[pymethods]
impl NativeVectorizer {
    /// An unfitted vectorizer: UAX #29 words (and/or runs of `chars` characters),
    /// lowercased unless `lowercase` is false, word n-grams up to `ngrams`, hashed to
    /// 2^`hash_bits` ids when `hash_bits` > 0; binary or idf weights, rows scaled to
    /// unit length or not; words in fewer than `min_df` documents dropped, at most
    /// `max_features` kept; "nb" weighting: naive-Bayes log-count ratios of two classes,
    /// counts smoothed by `nb_alpha`, fitted with the labels.
    #[new]
    #[pyo3(signature = (words=true, chars=0, lowercase=true, ngrams=1, hash_bits=0, weighting="idf", normalize="l2", min_df=1, max_features=None, nb_alpha=1.0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        words: bool,
        chars: u8,
        lowercase: bool,
        ngrams: u8,
        hash_bits: u8,
        weighting: &str,
        normalize: &str,
        min_df: u32,
        max_features: Option<usize>,
        nb_alpha: f32,
    ) -> PyResult<Self> {
        let mut b = Analyzer::builder(Source::Text);
        if words {
            b = b.step(Step::Words);
        }
        if chars > 0 {
            b = b.step(Step::Chars(chars));
        }
        if lowercase {
            b = b.step(Step::Lowercase);
        }
        if ngrams > 1 {
            b = b.step(Step::Ngrams(ngrams));
        }
        if hash_bits > 0 {
            b = b.step(Step::Hash(hash_bits));
        }
        let analyzer = b.build().map_err(to_py)?;
        let spec = GeometrySpec {
            weighting: match weighting {
                "binary" => Weighting::Binary,
                "idf" => Weighting::Idf,
                "nb" if nb_alpha.is_finite() && nb_alpha > 0.0 => Weighting::Nb { alpha: nb_alpha },
                "nb" => {
                    return Err(PyValueError::new_err(format!(
                        "nb_alpha={nb_alpha} is not a number above 0 (the smoothing of the counts)"
                    )));
                }
                w => {
                    return Err(PyValueError::new_err(format!(
                        "weighting={w:?} is not one of 'binary', 'idf', 'nb'"
                    )));
                }
            },
            normalize: match normalize {
                "l2" => Normalize::L2,
                "none" => Normalize::None,
                n => {
                    return Err(PyValueError::new_err(format!(
                        "normalize={n:?} is not one of 'l2', 'none'"
                    )));
                }
            },
        };
        let config = VocabConfig {
            min_df,
            max_features,
            singletons_from: None,
        };
        config.validate().map_err(|e| to_py(e.into()))?;
        Ok(NativeVectorizer {
            analyzer,
            config,
            spec,
            vocab: Vocabulary::default(),
            geometry: Geometry::default(),
        })
    }

    /// Learns the vocabulary and the idf weights of `texts` (naive-Bayes ratios: with
    /// `positive`, whether each text is of the positive class) and returns their rows.
    #[pyo3(signature = (texts, positive=None))]
    fn fit_transform<'py>(
        &mut self,
        py: Python<'py>,
        texts: Vec<String>,
        positive: Option<Vec<bool>>,
    ) -> PyResult<Csr<'py>> {
        let nb = matches!(self.spec.weighting, Weighting::Nb { .. });
        match &positive {
            None if nb => {
                return Err(PyValueError::new_err(
                    "weighting='nb' fits naive-Bayes ratios from the labels: give y (two classes)",
                ));
            }
            Some(p) if p.len() != texts.len() => {
                return Err(PyValueError::new_err(format!(
                    "{} labels for {} texts",
                    p.len(),
                    texts.len()
                )));
            }
            _ => {}
        }
        let (vocab, m) = py.detach(|| {
            let docs = documents(texts);
            vectorize_training(&self.analyzer, &self.config, &docs)
        });
        check_vocabulary(&vocab, &self.config, m.rows()).map_err(|_| {
            PyValueError::new_err(
                "empty vocabulary; perhaps the documents only contain punctuation, or \
                 min_df / max_features removed every word",
            )
        })?;
        self.vocab = vocab;
        self.geometry = match positive {
            Some(p) if nb => Geometry::fit_labelled(self.spec, &m, &p),
            _ => Geometry::fit(self.spec, &m),
        };
        Ok(self.arrays(py, &m))
    }

    /// The rows of `texts` under the fitted vocabulary and weights (unknown words are
    /// left out).
    fn transform<'py>(&self, py: Python<'py>, texts: Vec<String>) -> PyResult<Csr<'py>> {
        let m = py.detach(|| vectorize(&self.analyzer, &self.vocab, &documents(texts)).matrix);
        Ok(self.arrays(py, &m))
    }

    /// The word of every column, in column order (`None` when hashing: no words kept).
    fn feature_names(&self) -> Option<Vec<String>> {
        words(&self.vocab)
    }

    /// Columns of the rows `transform` returns (2^B when hashing).
    fn n_features(&self) -> usize {
        self.vocab.len()
    }

    /// The analyzer's steps by name, as `rosenblatt inspect` shows them.
    fn steps(&self) -> Vec<String> {
        self.analyzer
            .steps()
            .iter()
            .map(|s| s.name().to_string())
            .collect()
    }

    /// The fitted state as bytes, for pickling: [`PICKLE_MAGIC`], the FNV-1a checksum of
    /// the payload (little-endian), then the payload.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let payload = bincode::serde::encode_to_vec(self, bincode::config::standard())
            .map_err(|e| PyValueError::new_err(format!("cannot encode the vectorizer: {e}")))?;
        let mut b = Vec::with_capacity(PICKLE_HEADER + payload.len());
        b.extend_from_slice(PICKLE_MAGIC);
        b.extend_from_slice(&rosenblatt::fnv::fnv1a(&payload).to_le_bytes());
        b.extend_from_slice(&payload);
        Ok(PyBytes::new(py, &b))
    }

    /// A vectorizer from `to_bytes`'s bytes; damaged bytes (a wrong checksum, a length
    /// past what the bytes hold) are a ValueError, never an allocation of what they claim.
    #[staticmethod]
    fn from_bytes(bytes: &[u8]) -> PyResult<Self> {
        let bad = |why: String| {
            PyValueError::new_err(format!("not a pickled rosenblatt vectorizer: {why}"))
        };
        let payload = match bytes.strip_prefix(PICKLE_MAGIC) {
            Some(rest) if rest.len() >= 8 => {
                let (sum, payload) = rest.split_at(8);
                if u64::from_le_bytes(sum.try_into().expect("8 bytes"))
                    != rosenblatt::fnv::fnv1a(payload)
                {
                    return Err(bad("its checksum does not match (damaged)".into()));
                }
                payload
            }
            Some(_) => return Err(bad("cut short".into())),
            // Pickles written before the checksum: the payload alone.
            None => bytes,
        };
        let config = bincode::config::standard().with_limit::<PICKLE_LIMIT>();
        let (v, used): (NativeVectorizer, usize) =
            bincode::serde::decode_from_slice(payload, config).map_err(|e| bad(e.to_string()))?;
        if used != payload.len() {
            return Err(bad(format!("{} bytes past its end", payload.len() - used)));
        }
        Ok(v)
    }
}
