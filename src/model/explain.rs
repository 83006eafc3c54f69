//! Why a document got its verdict: a linear class score taken apart into the bias and one
//! contribution per feature the document holds (its weight times the row's value under
//! the model's geometry), strongest first, as bogofilter's `-vvv` lists each token's
//! spamicity. A model file and its store explain a message alike.

use super::Model;
use crate::features::SparseRows;
use crate::input::Document;
use crate::learn::{AnyModel, Classifier, LabelScorer, Predictor, SoftmaxModel};
use crate::text::Analyzer;
use crate::{Error, Result, RowRef};
use std::collections::BTreeMap;

/// One feature's part in a score.
#[derive(Debug, Clone, PartialEq)]
pub struct Contribution {
    /// The feature as the model names it: a word, a mail feature (`subject:free`), or in
    /// a hashed space the document's tokens that hash to it.
    pub feature: String,
    /// Its weight in the explained class's score.
    pub weight: f32,
    /// Its value in the document's row under the model's geometry (1 for a binary row;
    /// idf or naive-Bayes weight, times 1/‖x‖ where rows are normalized).
    pub value: f32,
    /// weight × value: what it adds to the score.
    pub contribution: f32,
}

impl Contribution {
    /// Feature `feature` of weight `weight` at value `value`: it adds weight × value.
    pub(crate) fn new(feature: String, weight: f32, value: f32) -> Self {
        Contribution {
            feature,
            weight,
            value,
            contribution: weight * value,
        }
    }
}

/// A class's score for one document, taken apart: the bias plus the contributions add up
/// to the score (up to float rounding).
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// The class explained (index into the model's classes). For a two-class model it is
    /// the class decided; the score is then the one discriminant, positive for class 1.
    pub class: usize,
    /// The class's score as the model computes it: w·x + b (a softmax model's logit).
    pub score: f32,
    /// The bias b.
    pub bias: f32,
    /// Every feature of the document the model weighs (nonzero weight), strongest
    /// (largest |contribution|) first.
    pub features: Vec<Contribution>,
}

impl Explanation {
    /// An explanation with its features sorted strongest first (ties by name, so that
    /// two explanations of one score list alike).
    pub(crate) fn new(
        class: usize,
        score: f32,
        bias: f32,
        mut features: Vec<Contribution>,
    ) -> Self {
        features.retain(|c| c.weight != 0.0);
        features.sort_by(|a, b| {
            b.contribution
                .abs()
                .total_cmp(&a.contribution.abs())
                .then_with(|| a.feature.cmp(&b.feature))
        });
        Explanation {
            class,
            score,
            bias,
            features,
        }
    }

    /// The first `n` features of [`Explanation::new`]'s list from a document's
    /// `(weight, value)` parts, calling `name(i)` only for the parts that can be among
    /// them (those at least as strong as the `n`-th strongest, ties included): naming
    /// every feature of a message cost more than finding its strongest ten.
    pub(crate) fn strongest(
        class: usize,
        score: f32,
        bias: f32,
        parts: &[(f32, f32)],
        n: usize,
        name: impl Fn(usize) -> String,
    ) -> Self {
        let strength = |&(w, v): &(f32, f32)| (w * v).abs();
        let mut strengths: Vec<f32> = parts.iter().filter(|p| p.0 != 0.0).map(strength).collect();
        let cut = match n {
            0 => f32::INFINITY,
            n if n >= strengths.len() => f32::NEG_INFINITY,
            n => {
                *strengths
                    .select_nth_unstable_by(n - 1, |a, b| b.total_cmp(a))
                    .1
            }
        };
        let features = parts
            .iter()
            .enumerate()
            .filter(|(_, p)| p.0 != 0.0 && strength(p).total_cmp(&cut).is_ge())
            .map(|(i, &(w, v))| Contribution::new(name(i), w, v))
            .collect();
        let mut e = Explanation::new(class, score, bias, features);
        e.features.truncate(n);
        e
    }

    /// The bias plus every contribution, summed in f64: equal to the score up to the
    /// rounding of the model's f32 sums.
    pub fn total(&self) -> f64 {
        f64::from(self.bias)
            + self
                .features
                .iter()
                .map(|c| f64::from(c.contribution))
                .sum::<f64>()
    }
}

/// Names features of a hashed space by the document's own tokens: each id gets the
/// tokens that hash to it (joined by ` | ` where several collide), since the space
/// keeps no words. `None` for a vocabulary of words.
pub(crate) fn hashed_names(analyzer: &Analyzer, doc: &Document) -> Option<BTreeMap<u32, String>> {
    let h = analyzer.hashing()?;
    let mut names: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    analyzer.tokens(doc, &mut |t| {
        let words = names.entry(h.id(t)).or_default();
        if !words.iter().any(|w| w == t) {
            words.push(t.to_string());
        }
    });
    Some(
        names
            .into_iter()
            .map(|(id, words)| (id, words.join(" | ")))
            .collect(),
    )
}

/// The name of hashed feature `id` among `names` (from [`hashed_names`]): the tokens
/// that hash to it, or `#id` when none of the document's does.
pub(crate) fn hashed_name(names: &BTreeMap<u32, String>, id: u32) -> String {
    names.get(&id).cloned().unwrap_or_else(|| format!("#{id}"))
}

/// A class's weights: one linear model's, or one column of a softmax model's.
pub(super) enum ClassWeights<'a> {
    Vector(&'a crate::learn::LinearModel),
    Column(&'a SoftmaxModel, usize),
}

impl ClassWeights<'_> {
    /// Feature `j`'s weight in the class's score (0 past the weights' end).
    pub(super) fn weight(&self, j: u32) -> f32 {
        let j = j as usize;
        match self {
            ClassWeights::Vector(m) => m.w.get(j).copied().unwrap_or(0.0),
            ClassWeights::Column(m, c) => m.w.get(j * m.k + c).copied().unwrap_or(0.0),
        }
    }

    /// The class's bias.
    pub(super) fn bias(&self) -> f32 {
        match self {
            ClassWeights::Vector(m) => m.bias,
            ClassWeights::Column(m, c) => m.bias[*c],
        }
    }

    /// How many feature ids the class weighs.
    pub(super) fn len(&self) -> usize {
        match self {
            ClassWeights::Vector(m) => m.w.len(),
            ClassWeights::Column(m, _) => m.w.len().checked_div(m.k).unwrap_or(0),
        }
    }

    fn score(&self, row: RowRef<'_>) -> f32 {
        match self {
            ClassWeights::Vector(m) => m.score(row),
            ClassWeights::Column(m, c) => {
                let mut z = vec![0.0; m.k];
                m.logits(row, &mut z);
                z[*c]
            }
        }
    }
}

/// The refusal for a model whose score is not a sum over features.
fn kernel_refused() -> Error {
    Error::Data(
        "a kernel model's score is a sum over its support vectors, not over features: only \
         linear models can be explained"
            .into(),
    )
}

/// Class `c`'s linear weights in `p` (a two-class model's one weight vector, whichever
/// `c`); a class past the model's is refused, not indexed.
pub(super) fn class_weights(p: &Predictor, c: usize) -> Result<ClassWeights<'_>> {
    let missing = || Error::Data(format!("the model has no class number {c}"));
    fn linear(m: &AnyModel) -> Result<ClassWeights<'_>> {
        m.as_linear()
            .map(ClassWeights::Vector)
            .ok_or_else(kernel_refused)
    }
    match p {
        Predictor::Binary(m) => linear(m),
        Predictor::OneVsRest(ms)
        | Predictor::MultiLabel(crate::learn::MultiLabelModel {
            scorer: LabelScorer::OneVsRest(ms),
            ..
        }) => linear(ms.get(c).ok_or_else(missing)?),
        Predictor::Softmax(m)
        | Predictor::MultiLabel(crate::learn::MultiLabelModel {
            scorer: LabelScorer::Softmax(m),
            ..
        }) if c < m.k && c < m.bias.len() => Ok(ClassWeights::Column(m, c)),
        Predictor::Softmax(_) | Predictor::MultiLabel(_) => Err(missing()),
    }
}

impl Model {
    /// Why `text` gets its label: the decided class's score taken apart into the bias
    /// and each feature's contribution, strongest first.
    ///
    /// ```
    /// use rosenblatt::{Document, Model, TrainConfig};
    ///
    /// let docs = [
    ///     Document::labelled("spam", "cheap meds buy now"),
    ///     Document::labelled("ham", "lunch at noon tomorrow"),
    /// ];
    /// let model = Model::fit(&docs, &TrainConfig::default())?;
    /// let e = model.explain("buy cheap meds at noon")?;
    /// assert_eq!(model.classes()[e.class], "spam");
    /// assert!((e.total() - f64::from(e.score)).abs() < 1e-4);
    /// assert!(e.features.iter().any(|c| c.feature == "cheap" && c.contribution > 0.0));
    /// # Ok::<(), rosenblatt::Error>(())
    /// ```
    pub fn explain(&self, text: &str) -> Result<Explanation> {
        self.explain_document(&self.document(text.as_bytes()), None)
    }

    /// Why one raw RFC 822 message gets its verdict, read as
    /// [`Model::classify_mail`] reads it (an empty message is refused alike).
    #[cfg(feature = "mail")]
    pub fn explain_mail(&self, raw: &[u8]) -> Result<Explanation> {
        super::refuse_empty_message(raw)?;
        self.explain_document(&self.document(raw), None)
    }

    /// Why `text` scores as it does for the class named `class` (models of three classes
    /// or more, where each class has its own score).
    pub fn explain_class(&self, text: &str, class: &str) -> Result<Explanation> {
        let c = self.class_to_explain(class)?;
        self.explain_document(&self.document(text.as_bytes()), Some(c))
    }

    /// The index of `class`, for [`Model::explain_class`]: refused for a two-class model
    /// (its one score explains both classes) and for a class it does not have.
    pub fn class_to_explain(&self, class: &str) -> Result<usize> {
        if matches!(self.predictor, Predictor::Binary(_)) {
            return Err(Error::Data(format!(
                "a two-class model has one score, positive for {:?} and negative for {:?}: \
                 explain it without naming a class",
                self.classes[1], self.classes[0]
            )));
        }
        self.class_index(class)
    }

    /// The index of the class named `class` among [`Model::classes`], for any model: a
    /// name the model does not have is refused with the classes it has.
    pub fn class_index(&self, class: &str) -> Result<usize> {
        self.classes.iter().position(|c| c == class).ok_or_else(|| {
            Error::Data(format!(
                "the model has no class {class:?} (its classes: {})",
                self.classes.join(", ")
            ))
        })
    }

    /// [`Model::explain`] of a document already read: class `class`, or the one decided.
    pub fn explain_document(&self, doc: &Document, class: Option<usize>) -> Result<Explanation> {
        self.explain_strongest(doc, class, usize::MAX)
    }

    /// [`Model::explain_document`] with its `n` strongest features alone (a verdict's
    /// symbols): only those that can be among them are named.
    pub(crate) fn explain_strongest(
        &self,
        doc: &Document,
        class: Option<usize>,
        n: usize,
    ) -> Result<Explanation> {
        let rows = self.text_rows(std::slice::from_ref(doc))?;
        let x = self.geometry.apply(&rows);
        let row = x.row(0);
        let decided = self.decide_read(&x)[0];
        let c = class.unwrap_or(decided.class);
        let weights = class_weights(&self.predictor, c)?;
        let hashed = hashed_names(&self.analyzer, doc);
        let (ids, parts): (Vec<u32>, Vec<(f32, f32)>) = row
            .iter()
            .map(|(j, value)| (j, (weights.weight(j), value)))
            .unzip();
        let name = |i: usize| match &hashed {
            Some(names) => hashed_name(names, ids[i]),
            None => self.vocab.word(ids[i]).to_string(),
        };
        let score = match self.predictor {
            // The score the decision was made by (the threshold applies to it).
            Predictor::Binary(_) => decided.score,
            _ => weights.score(row),
        };
        Ok(Explanation::strongest(
            c,
            score,
            weights.bias(),
            &parts,
            n,
            name,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The `n` strongest are the first `n` of the whole list, ties at the cut
        /// included (weights from a few values, so that strengths tie often).
        #[test]
        fn the_strongest_are_the_head_of_the_whole_list(
            parts in proptest::collection::vec((-2i8..=2, 1u8..=3), 0..40),
            n in 0usize..45,
        ) {
            let parts: Vec<(f32, f32)> = parts
                .iter()
                .map(|&(w, v)| (f32::from(w) * 0.5, f32::from(v)))
                .collect();
            let name = |i: usize| format!("f{:02}", (i * 7) % 40);
            let all = parts
                .iter()
                .enumerate()
                .map(|(i, &(w, v))| Contribution::new(name(i), w, v))
                .collect();
            let mut whole = Explanation::new(1, 0.5, 0.25, all);
            whole.features.truncate(n);
            let named = std::cell::Cell::new(0);
            let head = Explanation::strongest(1, 0.5, 0.25, &parts, n, |i| {
                named.set(named.get() + 1);
                name(i)
            });
            prop_assert_eq!(&head, &whole);
            // Only what can make the cut is named: the head and its ties.
            let ties = head.features.last().map_or(0, |last| {
                parts
                    .iter()
                    .filter(|p| p.0 != 0.0 && (p.0 * p.1).abs() == last.contribution.abs())
                    .count()
            });
            prop_assert!(named.get() <= head.features.len() + ties);
        }
    }
}
