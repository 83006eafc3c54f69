//! The front door for classifying: a string, many strings, or a raw mail message, each
//! to a label and its score, read exactly as the model's training documents were (a
//! mail filter parses the text as a message under its recorded rules).

use super::{FeatureSpace, Model};
use crate::SparseRows;
use crate::features::vectorize_counted;
use crate::input::Document;
use crate::learn::Predictor;
use crate::{Error, Result};
use rayon::prelude::*;

/// A model's answer for one text: the label it gives and the score behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The class name (multi-label models: the best-scoring label above its threshold).
    pub label: String,
    /// The score the label was chosen by: w·x + b for linear models (compared with the
    /// model's threshold for two classes), the winning class's score otherwise.
    pub score: f32,
}

impl Model {
    /// Classifies one text.
    ///
    /// ```
    /// use rosenblatt::{Document, Model, TrainConfig};
    ///
    /// let docs = [
    ///     Document::labelled("spam", "cheap meds buy now"),
    ///     Document::labelled("ham", "lunch at noon tomorrow"),
    /// ];
    /// let model = Model::fit(&docs, &TrainConfig::default())?;
    /// let d = model.classify("buy cheap meds")?;
    /// assert_eq!(d.label, "spam");
    /// assert!(d.score > 0.0);
    /// # Ok::<(), rosenblatt::Error>(())
    /// ```
    pub fn classify(&self, text: &str) -> Result<Decision> {
        Ok(self.classify_batch(&[text])?.remove(0))
    }

    /// Classifies many texts, tokenized and scored in parallel; the decisions come in
    /// the order of `texts`.
    ///
    /// ```
    /// use rosenblatt::{Document, Model, TrainConfig};
    ///
    /// let docs = [
    ///     Document::labelled("spam", "cheap meds buy now"),
    ///     Document::labelled("ham", "lunch at noon tomorrow"),
    /// ];
    /// let model = Model::fit(&docs, &TrainConfig::default())?;
    /// let labels: Vec<String> = model
    ///     .classify_batch(&["noon lunch", "cheap meds"])?
    ///     .into_iter()
    ///     .map(|d| d.label)
    ///     .collect();
    /// assert_eq!(labels, ["ham", "spam"]);
    /// # Ok::<(), rosenblatt::Error>(())
    /// ```
    pub fn classify_batch<S: AsRef<str> + Sync>(&self, texts: &[S]) -> Result<Vec<Decision>> {
        self.classify_documents(&self.documents(texts))
    }

    /// Classifies one raw RFC 822 message (headers, MIME parts, any charset) as the
    /// model's mail rules read it; a model trained on plain text reads the bytes as text
    /// (UTF-8, else latin-1).
    ///
    /// ```
    /// use rosenblatt::{Document, Model, TrainConfig};
    /// use rosenblatt::input::mail::{MailRules, read_message_bytes};
    ///
    /// let mail = |label: &str, subject: &str, body: &str| {
    ///     let raw = format!("From: a@example.org\nSubject: {subject}\n\n{body}\n");
    ///     let rules = MailRules::default();
    ///     read_message_bytes(raw.as_bytes(), subject, Some(label), &rules).corpus.docs.remove(0)
    /// };
    /// let docs: Vec<Document> = vec![
    ///     mail("spam", "cheap meds", "buy now"),
    ///     mail("ham", "lunch", "at noon tomorrow"),
    /// ];
    /// let filter = Model::fit(&docs, &TrainConfig::spam_filter())?;
    /// let raw = b"From: b@example.org\nSubject: meds\n\ncheap, buy now\n";
    /// assert_eq!(filter.classify_mail(raw)?.label, "spam");
    /// # Ok::<(), rosenblatt::Error>(())
    /// ```
    #[cfg(feature = "mail")]
    pub fn classify_mail(&self, raw: &[u8]) -> Result<Decision> {
        refuse_empty_message(raw)?;
        Ok(self.classify_documents(&[self.document(raw)])?.remove(0))
    }

    /// Decisions for documents already read.
    pub(crate) fn classify_documents(&self, docs: &[Document]) -> Result<Vec<Decision>> {
        let x = self.text_rows(docs)?;
        Ok(self
            .decide_rows(&x)
            .into_iter()
            .map(|d| self.decision(d.class, d.score))
            .collect())
    }

    /// Every label the model gives each text, best first: a multi-label model's whole
    /// label set (each label's probability where its scorer has one, else its score), as
    /// `rosenblatt classify` prints it, where [`Model::classify_batch`] gives the best
    /// label only; one label, as `classify_batch` gives it, for other models.
    ///
    /// ```
    /// use rosenblatt::{Document, Model, TrainConfig};
    ///
    /// let doc = |labels: &[&str], text: &str| Document {
    ///     text: text.into(),
    ///     labels: labels.iter().map(|l| l.to_string()).collect(),
    ///     ..Default::default()
    /// };
    /// let docs: Vec<Document> = (0..10)
    ///     .flat_map(|_| {
    ///         [
    ///             doc(&["fruit"], "apple banana"),
    ///             doc(&["pet"], "dog cat"),
    ///             doc(&["fruit", "pet"], "apple dog"),
    ///         ]
    ///     })
    ///     .collect();
    /// let model = Model::fit(&docs, &TrainConfig::default())?;
    /// let mut labels: Vec<String> = model.labels_batch(&["apple dog"])?.remove(0)
    ///     .into_iter()
    ///     .map(|d| d.label)
    ///     .collect();
    /// labels.sort();
    /// assert_eq!(labels, ["fruit", "pet"]);
    /// # Ok::<(), rosenblatt::Error>(())
    /// ```
    pub fn labels_batch<S: AsRef<str> + Sync>(&self, texts: &[S]) -> Result<Vec<Vec<Decision>>> {
        let x = self.text_rows(&self.documents(texts))?;
        if !matches!(self.predictor, Predictor::MultiLabel(_)) {
            let one = self.decide_rows(&x).into_iter();
            return Ok(one.map(|d| vec![self.decision(d.class, d.score)]).collect());
        }
        let x = self.geometry.apply(&x);
        let block = self.block_for(x.n_rows());
        Ok((0..x.n_rows())
            .into_par_iter()
            .map(|i| {
                let labels = self.predictor.labels(x.row(i), block);
                let labels = labels.into_iter();
                labels.map(|(c, s)| self.decision(c, s)).collect()
            })
            .collect())
    }

    /// The decision of class `c` at `score`.
    fn decision(&self, c: usize, score: f32) -> Decision {
        Decision {
            label: self.classes[c].clone(),
            score,
        }
    }

    /// Documents as rows over the vocabulary, keeping each word's count where the model
    /// was trained on counts; a model of feature vectors has no words to read them with.
    pub(crate) fn text_rows(&self, docs: &[Document]) -> Result<crate::features::TextMatrix> {
        if let FeatureSpace::Indexed { n_features } = self.features {
            return Err(Error::Data(format!(
                "this model was trained on feature vectors ({n_features} features, SVMlight), \
                 not on text: it scores rows, not strings"
            )));
        }
        Ok(vectorize_counted(&self.analyzer, &self.vocab, docs, self.term_counts).0)
    }

    /// Texts as documents, read in parallel as [`Model::document`] reads one.
    pub(super) fn documents<S: AsRef<str> + Sync>(&self, texts: &[S]) -> Vec<Document> {
        texts
            .par_iter()
            .map(|t| self.document(t.as_ref().as_bytes()))
            .collect()
    }

    /// A text as the model's training documents were read: parsed as a mail message by
    /// a mail filter (with the `mail` feature), else taken as the body.
    pub(super) fn document(&self, bytes: &[u8]) -> Document {
        document_of(&self.analyzer, bytes)
    }
}

/// Refuses a raw message of no bytes, as `rosenblatt classify` refuses it: there is no
/// message to classify, and a verdict on nothing would be noise.
#[cfg(feature = "mail")]
pub(crate) fn refuse_empty_message(raw: &[u8]) -> Result<()> {
    if raw.is_empty() {
        return Err(Error::Data(
            "an empty message (0 bytes): there is no message to classify".into(),
        ));
    }
    Ok(())
}

/// A text as a filter reading with `analyzer` reads it: parsed as a mail message under its
/// mail rules (with the `mail` feature), else taken as the body.
#[cfg_attr(not(feature = "mail"), allow(unused_variables))] // the rules are mail's
pub(crate) fn document_of(analyzer: &crate::text::Analyzer, bytes: &[u8]) -> Document {
    #[cfg(feature = "mail")]
    if let Some(rules) = analyzer.source().mail_rules() {
        return crate::input::mail::parse_message(bytes, String::new(), None, rules).doc;
    }
    Document::new("", crate::input::decode_text(bytes.to_vec()), None)
}
