//! Each class's words: the features whose weights argue most for a class and most
//! against it, read from the class's linear weights (a one-vs-rest or logistic model's
//! own vector, a softmax model's column, a multi-label model's either) as `inspect`
//! lists them. A two-class model has one weight vector: its second class reads it as it
//! is, its first class with every sign flipped.

use super::explain::class_weights;
use super::{FeatureSpace, Model};
use crate::learn::Predictor;
use crate::{Error, Result};

/// One class's strongest words either way, so that a reader sees what a model learned
/// of each class without taking a document apart.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassWords {
    /// The class (index into [`Model::classes`]).
    pub class: usize,
    /// The class's bias (for the first class of a two-class model, the negated bias).
    pub bias: f32,
    /// The features of largest positive weight, strongest first, as (name, weight):
    /// each adds its weight to the class's score where it occurs (times the row's value
    /// under the model's geometry, whose per-feature weight is included here).
    pub most_positive: Vec<(String, f32)>,
    /// The features of most negative weight, most negative first.
    pub most_negative: Vec<(String, f32)>,
}

impl Model {
    /// What to call feature `j` when showing it: its word (`#j` in a hashed space), or
    /// its SVMlight id for a model trained on vectors.
    pub fn feature_name(&self, j: u32) -> String {
        match self.features {
            FeatureSpace::Text => self.vocab.name(j).into_owned(),
            FeatureSpace::Indexed { .. } => crate::features::svmlight::feature_name(j),
        }
    }

    /// Whether each class's score is a sum of feature weights, so that
    /// [`Model::class_words`] can list its words (a kernel model's is a sum over its
    /// support vectors instead).
    pub fn has_class_words(&self) -> bool {
        class_weights(&self.predictor, 0).is_ok()
    }

    /// Class `class`'s `top` strongest words each way, weights taken under the model's
    /// geometry (w_j times feature j's idf or naive-Bayes weight), ties by feature id.
    /// Works for every linear model: two-class (the first class's view is the second's
    /// with signs flipped), one-vs-rest, logistic, softmax and multi-label. Refused for
    /// a kernel model and for a class the model does not have.
    ///
    /// ```
    /// use rosenblatt::{Document, Model, TrainConfig};
    ///
    /// let docs = [
    ///     Document::labelled("fruit", "apple pear"),
    ///     Document::labelled("pets", "dog cat"),
    ///     Document::labelled("cars", "wheel engine"),
    /// ];
    /// let model = Model::fit(&docs, &TrainConfig::default())?;
    /// let fruit = model.class_words(model.class_index("fruit")?, 2)?;
    /// let words: Vec<&str> = fruit.most_positive.iter().map(|(w, _)| w.as_str()).collect();
    /// assert!(words.contains(&"apple") && words.contains(&"pear"));
    /// # Ok::<(), rosenblatt::Error>(())
    /// ```
    pub fn class_words(&self, class: usize, top: usize) -> Result<ClassWords> {
        if class >= self.classes.len() {
            return Err(Error::Data(format!(
                "the model has no class number {class} (it has {})",
                self.classes.len()
            )));
        }
        let weights = class_weights(&self.predictor, class).map_err(|e| match e {
            Error::Data(_) if !self.has_class_words() => Error::Data(
                "a kernel model weighs its support vectors, not words: only linear models \
                 have words to list"
                    .into(),
            ),
            e => e,
        })?;
        // A two-class model's one score is positive for classes[1].
        let sign = match self.predictor {
            Predictor::Binary(_) if class == 0 => -1.0,
            _ => 1.0,
        };
        let weight = |j: u32| sign * weights.weight(j) * self.geometry.weight(j);
        let list = |positive: bool| -> Vec<(String, f32)> {
            strongest(weights.len(), top, positive, weight)
                .into_iter()
                .map(|j| (self.feature_name(j), weight(j)))
                .collect()
        };
        Ok(ClassWords {
            class,
            bias: sign * weights.bias(),
            most_positive: list(true),
            most_negative: list(false),
        })
    }

    /// [`Model::class_words`] of every class, in the order of [`Model::classes`].
    pub fn words_by_class(&self, top: usize) -> Result<Vec<ClassWords>> {
        (0..self.classes.len())
            .map(|c| self.class_words(c, top))
            .collect()
    }
}

/// The `k` ids among `0..n` of largest `weight` (`positive`) or most negative, strongest
/// first, ties by id; ids of weight 0 or of the other sign left out. A bounded selection,
/// so a model of millions of features is ranked without a copy of its weights.
fn strongest(n: usize, k: usize, positive: bool, weight: impl Fn(u32) -> f32) -> Vec<u32> {
    let order = |a: &(f32, u32), b: &(f32, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    // No more than n ids can be shown, whatever is asked for.
    let k = k.min(n);
    if k == 0 {
        return Vec::new();
    }
    let mut best: Vec<(f32, u32)> = Vec::with_capacity(2 * k);
    for j in 0..u32::try_from(n).unwrap_or(u32::MAX) {
        let v = if positive { weight(j) } else { -weight(j) };
        if v > 0.0 {
            best.push((v, j));
            if best.len() == 2 * k {
                best.select_nth_unstable_by(k - 1, order);
                best.truncate(k);
            }
        }
    }
    best.sort_by(order);
    best.truncate(k);
    best.into_iter().map(|(_, j)| j).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LinearModel;
    use crate::features::{Geometry, GeometrySpec, Normalize, Weighting};
    use crate::learn::{AnyModel, LabelScorer, MultiLabelModel, SoftmaxModel};
    use crate::vocab::Vocabulary;

    #[test]
    fn the_strongest_are_those_a_full_sort_ranks_first() {
        // Weights with ties, zeros and both signs; the bounded selection against sorting
        // every id, for k below, at and above the number of features of each sign.
        let w: Vec<f32> = (0..1000u32)
            .map(|j| ((j * 7919) % 23) as f32 - 11.0)
            .collect();
        for positive in [true, false] {
            let sign = if positive { 1.0 } else { -1.0 };
            let mut all: Vec<u32> = (0..1000).filter(|&j| sign * w[j as usize] > 0.0).collect();
            all.sort_by(|&a, &b| {
                (sign * w[b as usize])
                    .total_cmp(&(sign * w[a as usize]))
                    .then(a.cmp(&b))
            });
            for k in [0, 1, 5, 40, 455, 1000, usize::MAX] {
                let got = strongest(w.len(), k, positive, |j| w[j as usize]);
                assert_eq!(got, all[..k.min(all.len())], "k {k}, positive {positive}");
            }
        }
    }

    /// Words a, b, c, d, e, f: the model's vocabulary in the tests below.
    const WORDS: [&str; 6] = ["a", "b", "c", "d", "e", "f"];

    /// A model of [`WORDS`] with `predictor` over the classes x, y, z (x, y for a
    /// two-class predictor), rows read under `geometry`.
    fn model(predictor: Predictor, geometry: Geometry) -> Model {
        let words = WORDS.iter().map(|w| Box::from(*w)).collect();
        let classes = match predictor {
            Predictor::Binary(_) => vec!["x", "y"],
            _ => vec!["x", "y", "z"],
        };
        Model::new(super::super::ModelParts {
            analyzer: Default::default(),
            vocab: Vocabulary::from_parts(words, vec![1; WORDS.len()], 1),
            features: FeatureSpace::Text,
            geometry,
            classes: classes.into_iter().map(String::from).collect(),
            predictor,
            meta: Default::default(),
            online: None,
            threshold: 0.0,
            calibration: None,
            term_counts: Default::default(),
            class_calibration: None,
        })
        .unwrap()
    }

    /// A linear model of weights `w` and bias `bias`.
    fn linear(w: &[f32], bias: f32) -> AnyModel {
        AnyModel::Linear(LinearModel {
            w: w.to_vec().into(),
            bias,
        })
    }

    /// Three classes' weights over [`WORDS`], one row a class.
    const W: [[f32; 6]; 3] = [
        [3.0, -1.0, 0.0, 0.5, -2.0, 0.0],
        [-1.0, 4.0, 1.0, 0.0, 0.0, -3.0],
        [0.0, 0.0, -1.0, 2.0, 2.0, 0.5],
    ];

    /// Features with their weights, as [`ClassWords`] lists them.
    type Words = Vec<(String, f32)>;

    /// What each class of [`W`] lists, 2 each way under binary rows: (positive, negative).
    fn expected(c: usize) -> (Words, Words) {
        let pair = |w: &str, s: f32| (w.to_string(), s);
        match c {
            0 => (
                vec![pair("a", 3.0), pair("d", 0.5)],
                vec![pair("e", -2.0), pair("b", -1.0)],
            ),
            1 => (
                vec![pair("b", 4.0), pair("c", 1.0)],
                vec![pair("f", -3.0), pair("a", -1.0)],
            ),
            // d and e tie: the lower id first.
            _ => (vec![pair("d", 2.0), pair("e", 2.0)], vec![pair("c", -1.0)]),
        }
    }

    /// The same three classes as one softmax model (feature-major weights).
    fn softmax() -> SoftmaxModel {
        SoftmaxModel {
            k: 3,
            w: (0..6).flat_map(|j| (0..3).map(move |c| W[c][j])).collect(),
            bias: vec![0.1, 0.2, 0.3],
        }
    }

    #[test]
    fn every_linear_kind_lists_each_class_from_its_own_weights() {
        let one_vs_rest = || {
            (0..3)
                .map(|c| linear(&W[c], 0.1 * (c + 1) as f32))
                .collect::<Vec<_>>()
        };
        let multi_label = |scorer| {
            Predictor::MultiLabel(MultiLabelModel {
                scorer,
                thresholds: vec![0.0; 3],
                train_counts: vec![1; 3],
                at_least_one: true,
            })
        };
        let kinds = [
            Predictor::OneVsRest(one_vs_rest()),
            Predictor::OneVsRest(
                (0..3)
                    .map(|c| {
                        AnyModel::Logistic(LinearModel {
                            w: W[c].to_vec().into(),
                            bias: 0.1 * (c + 1) as f32,
                        })
                    })
                    .collect(),
            ),
            Predictor::Softmax(softmax()),
            multi_label(LabelScorer::OneVsRest(one_vs_rest())),
            multi_label(LabelScorer::Softmax(softmax())),
        ];
        for predictor in kinds {
            let kind = format!("{predictor:?}");
            let m = model(predictor, Geometry::default());
            assert!(m.has_class_words());
            let all = m.words_by_class(2).unwrap();
            assert_eq!(all.len(), 3);
            for (c, words) in all.iter().enumerate() {
                let (pos, neg) = expected(c);
                assert_eq!(words.class, c);
                assert_eq!(words.most_positive, pos, "{kind}");
                assert_eq!(words.most_negative, neg, "{kind}");
                assert!((words.bias - 0.1 * (c + 1) as f32).abs() < 1e-6, "{kind}");
                assert_eq!(&m.class_words(c, 2).unwrap(), words);
            }
            // --top bounds the lists; more than the features of a sign lists them all.
            assert!(m.class_words(0, 0).unwrap().most_positive.is_empty());
            assert_eq!(m.class_words(0, 100).unwrap().most_positive.len(), 2);
            assert_eq!(m.class_words(1, 100).unwrap().most_negative.len(), 2);
        }
    }

    #[test]
    fn weights_are_taken_under_the_geometry() {
        // An idf weight of 10 on f lifts it above a for class 2, and z's 0.5 becomes 5.
        let spec = GeometrySpec {
            weighting: Weighting::Idf,
            normalize: Normalize::None,
        };
        let idf = Geometry::from_parts(spec, vec![1.0, 1.0, 1.0, 1.0, 1.0, 10.0], 1.0);
        let m = model(Predictor::Softmax(softmax()), idf);
        let z = m.class_words(2, 1).unwrap();
        assert_eq!(z.most_positive, vec![("f".to_string(), 5.0)]);
        let y = m.class_words(1, 1).unwrap();
        assert_eq!(y.most_negative, vec![("f".to_string(), -30.0)]);
    }

    #[test]
    fn a_two_class_models_first_class_reads_its_weights_with_signs_flipped() {
        let m = model(Predictor::Binary(linear(&W[0], 0.25)), Geometry::default());
        let y = m.class_words(m.class_index("y").unwrap(), 2).unwrap();
        let x = m.class_words(m.class_index("x").unwrap(), 2).unwrap();
        let (pos, neg) = expected(0);
        assert_eq!(
            (y.most_positive.clone(), y.most_negative.clone()),
            (pos, neg)
        );
        let flipped = |l: &[(String, f32)]| -> Vec<(String, f32)> {
            l.iter().map(|(w, s)| (w.clone(), -s)).collect()
        };
        assert_eq!(x.most_positive, flipped(&y.most_negative));
        assert_eq!(x.most_negative, flipped(&y.most_positive));
        assert_eq!((x.bias, y.bias), (-0.25, 0.25));
    }

    #[test]
    fn a_class_it_lacks_is_refused_and_vectors_are_named_by_id() {
        let m = model(Predictor::Softmax(softmax()), Geometry::default());
        let e = m.class_index("boats").unwrap_err().to_string();
        assert!(e.contains("\"boats\"") && e.contains("x, y, z"), "{e}");
        assert_eq!(m.class_index("z").unwrap(), 2);
        assert!(m.class_words(3, 5).is_err());
        assert_eq!(m.feature_name(1), "b");
        // A model of SVMlight vectors names features by their 1-based ids.
        let mut parts = m.into_parts();
        parts.vocab = Vocabulary::default();
        parts.features = FeatureSpace::Indexed { n_features: 6 };
        let m = Model::new(parts).unwrap();
        assert_eq!(
            m.class_words(1, 1).unwrap().most_positive,
            vec![("2".to_string(), 4.0)]
        );
    }
}
