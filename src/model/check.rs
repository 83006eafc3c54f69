//! The parts of a decoded model checked against each other: a file whose checksum is
//! right can still hold lengths that disagree (written by hand, or by a broken build),
//! and every later step indexes one part by another — weights by vocabulary ids, scores
//! by class, support vectors by their row pointers.

use super::{FeatureSpace, Model, Predictor};
use crate::learn::{AnyModel, KernelModel, LabelScorer, OnlineState, SoftmaxModel};

/// The widest feature space a model may have: feature ids are `u32`.
const MAX_WIDTH: usize = 1 << 32;

/// What is wrong, as the end of a sentence.
type Check = Result<(), String>;

impl Model {
    /// Checks that the decoded parts agree; the error says what disagrees.
    pub(super) fn check(&self) -> Check {
        let width = match self.features {
            FeatureSpace::Text => {
                let (a, v) = (self.analyzer.hashing(), self.vocab.hashing());
                if a != v {
                    let says = |h: Option<crate::text::Hashing>| match h {
                        Some(h) => format!("hashes tokens into 2^{} ids", h.bits),
                        None => "keeps a vocabulary of words".to_string(),
                    };
                    return Err(format!(
                        "its analyzer {} but its vocabulary {}",
                        says(a),
                        says(v)
                    ));
                }
                self.vocab.len()
            }
            FeatureSpace::Indexed { n_features } => {
                if n_features > MAX_WIDTH {
                    return Err(format!(
                        "it says {n_features} features; feature ids stop at 2^32"
                    ));
                }
                if !self.vocab.is_empty() {
                    return Err(format!(
                        "a model of SVMlight vectors holds {} vocabulary words",
                        self.vocab.len()
                    ));
                }
                n_features
            }
        };
        self.geometry.check(width)?;
        if let Some(o) = &self.online {
            online(o, width)?;
        }
        let k = self.classes.len();
        if k < 2 {
            return Err(format!("it names {k} classes; a model has at least two"));
        }
        let mut sorted: Vec<&String> = self.classes.iter().collect();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("it names the class {:?} twice", w[0]));
        }
        let per_class = |n: usize, what: &str| -> Check {
            if n == k {
                Ok(())
            } else {
                Err(format!("it has {k} classes but {n} {what}"))
            }
        };
        if self.term_counts.counted() && !matches!(self.features, FeatureSpace::Text) {
            return Err("it counts the words of feature vectors, which have none".into());
        }
        if !self.threshold.is_finite() {
            return Err(format!("its decision threshold is {}", self.threshold));
        }
        if let Some(c) = &self.calibration {
            if !matches!(self.predictor, Predictor::Binary(_)) {
                return Err(format!(
                    "a model of {k} classes has a calibration; only two-class models have one"
                ));
            }
            if !c.is_valid() {
                return Err(format!(
                    "its calibration σ({}·s + {}) does not make a higher score more probable",
                    c.a, c.b
                ));
            }
        }
        if let Some(c) = &self.class_calibration {
            let ovr = matches!(&self.predictor, Predictor::OneVsRest(ms) if ms.len() >= 3);
            if !ovr {
                return Err(format!(
                    "a model of {k} classes has a per-class calibration; only one-vs-rest \
                     models of three classes or more have one"
                ));
            }
            if !c.fits(k) {
                return Err(format!(
                    "it has {k} classes but its per-class calibration has {} sigmoids, or \
                     one that does not make a higher score more probable",
                    c.per_class.len()
                ));
            }
        }
        if self.threshold != 0.0 && !matches!(self.predictor, Predictor::Binary(_)) {
            return Err(format!(
                "a model of {k} classes has the decision threshold {}; only two-class models have one",
                self.threshold
            ));
        }
        match &self.predictor {
            Predictor::Binary(m) => {
                if k != 2 {
                    return Err(format!("a binary model names {k} classes instead of 2"));
                }
                any(m, width)
            }
            Predictor::OneVsRest(ms) => {
                per_class(ms.len(), "one-vs-rest models")?;
                ms.iter().try_for_each(|m| any(m, width))
            }
            Predictor::Softmax(m) => {
                per_class(m.k, "softmax classes")?;
                softmax(m, width)
            }
            Predictor::MultiLabel(m) => {
                per_class(m.scorer.len(), "label scorers")?;
                per_class(m.thresholds.len(), "thresholds")?;
                per_class(m.train_counts.len(), "label counts")?;
                match &m.scorer {
                    LabelScorer::OneVsRest(ms) => ms.iter().try_for_each(|m| any(m, width)),
                    LabelScorer::Softmax(m) => softmax(m, width),
                }
            }
        }
    }
}

/// An online rule's state: constants a step can use, and no more AdaGrad sums than
/// features, each a finite sum of squares.
fn online(o: &OnlineState, width: usize) -> Check {
    o.rule
        .validate()
        .map_err(|e| format!("its update rule ({}) is not valid: {e}", o.rule))?;
    if o.sq_grads.len() > width {
        return Err(format!(
            "its update rule keeps {} sums for {width} features",
            o.sq_grads.len()
        ));
    }
    let fine = |g: &f32| g.is_finite() && *g >= 0.0;
    if !o.sq_grads.iter().all(fine) || !fine(&o.bias_sq_grad) {
        return Err("its update rule's sums of squares are not all finite and ≥ 0".into());
    }
    Ok(())
}

/// Weights over `n` features in a space of `width`.
fn weights(n: usize, width: usize) -> Check {
    if n <= width {
        Ok(())
    } else {
        Err(format!(
            "the weights cover {n} features but the model has {width}"
        ))
    }
}

/// One binary model over `width` features.
fn any(m: &AnyModel, width: usize) -> Check {
    match m {
        AnyModel::Linear(l) | AnyModel::Logistic(l) => weights(l.w.len(), width),
        AnyModel::Kernel(km) => kernel(km, width),
    }
}

/// A softmax model: `k` weights per feature and a bias per class.
fn softmax(m: &SoftmaxModel, width: usize) -> Check {
    if m.k == 0 || !m.w.len().is_multiple_of(m.k) || m.bias.len() != m.k {
        return Err(format!(
            "the softmax model has {} weights and {} biases for {} classes",
            m.w.len(),
            m.bias.len(),
            m.k
        ));
    }
    weights(m.w.len() / m.k, width)
}

/// A kernel model: CSR support vectors whose ids are below their width, and one
/// coefficient, α, norm per support vector.
fn kernel(m: &KernelModel, width: usize) -> Check {
    let s = &m.support;
    let n = m.coef.len();
    let rows = s.indptr.len().checked_sub(1);
    if rows != Some(n) || m.alpha.len() != n || m.sq_norms.len() != n {
        return Err(format!(
            "the kernel model has {n} coefficients, {} α, {} norms and {} support rows",
            m.alpha.len(),
            m.sq_norms.len(),
            s.indptr.len().saturating_sub(1)
        ));
    }
    if s.n_cols > width {
        return Err(format!(
            "the support vectors span {} features but the model has {width}",
            s.n_cols
        ));
    }
    let pointers_ok = s.indptr[0] == 0
        && s.indptr.windows(2).all(|w| w[0] <= w[1])
        && s.indptr[n] == s.ids.len()
        && s.vals.as_ref().is_none_or(|v| v.len() == s.ids.len());
    if !pointers_ok {
        return Err(format!(
            "the support rows' pointers do not cover their {} ids",
            s.ids.len()
        ));
    }
    let rows_ok = s.indptr.windows(2).all(|w| {
        let ids = &s.ids[w[0]..w[1]];
        ids.windows(2).all(|p| p[0] < p[1]) && ids.last().is_none_or(|&j| (j as usize) < s.n_cols)
    });
    if !rows_ok {
        return Err(format!(
            "a support row's ids are unsorted or not below its {} features",
            s.n_cols
        ));
    }
    if let Some(v) = m.votes.iter().flatten().find(|v| v.sv as usize >= n) {
        return Err(format!("a vote names support vector {} of {n}", v.sv));
    }
    Ok(())
}
