//! Accuracy, per-class precision/recall/F1 and the confusion matrix, over class indices.

use serde::Serialize;

/// Precision, recall and F1 of one class (0 where undefined).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClassMetrics {
    /// TP / (TP + FP).
    pub precision: f64,
    /// TP / (TP + FN).
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub f1: f64,
    /// Number of true members of the class.
    pub support: u64,
}

/// Metrics of a single-label classification.
#[derive(Debug, Clone, PartialEq)]
pub struct Metrics {
    /// Class names, indexing the confusion matrix.
    pub classes: Vec<String>,
    /// `confusion[truth][predicted]` counts.
    pub confusion: Vec<Vec<u64>>,
}

impl Metrics {
    /// Counts (truth, prediction) pairs of class indices.
    pub fn new(classes: Vec<String>, truth: &[usize], predicted: &[usize]) -> Metrics {
        let k = classes.len();
        let mut confusion = vec![vec![0u64; k]; k];
        for (&t, &p) in truth.iter().zip(predicted) {
            confusion[t][p] += 1;
        }
        Metrics { classes, confusion }
    }

    /// Number of documents evaluated.
    pub(crate) fn documents(&self) -> u64 {
        self.confusion.iter().flatten().sum()
    }

    /// Fraction predicted correctly.
    pub fn accuracy(&self) -> f64 {
        let correct: u64 = (0..self.classes.len()).map(|i| self.confusion[i][i]).sum();
        ratio(correct, self.documents())
    }

    /// Precision, recall and F1 of class `c`.
    pub fn class(&self, c: usize) -> ClassMetrics {
        let tp = self.confusion[c][c];
        let predicted: u64 = self.confusion.iter().map(|r| r[c]).sum();
        let support: u64 = self.confusion[c].iter().sum();
        let (precision, recall) = (ratio(tp, predicted), ratio(tp, support));
        let f1 = if precision + recall > 0.0 {
            2.0 * precision * recall / (precision + recall)
        } else {
            0.0
        };
        ClassMetrics {
            precision,
            recall,
            f1,
            support,
        }
    }

    /// The classes an average of per-class figures counts: those some document belongs
    /// to or was given (as scikit-learn's `f1_score` counts the labels present).
    fn present(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.classes.len()).filter(|&c| {
            self.confusion[c].iter().sum::<u64>() > 0 || self.confusion.iter().any(|r| r[c] > 0)
        })
    }

    /// The mean of the present classes' F1, each class counting alike: what a rare class
    /// does shows here, where accuracy hides it.
    pub fn macro_f1(&self) -> f64 {
        let f1: Vec<f64> = self.present().map(|c| self.class(c).f1).collect();
        if f1.is_empty() {
            0.0
        } else {
            f1.iter().sum::<f64>() / f1.len() as f64
        }
    }

    /// The mean of the classes' F1 weighted by their support (scikit-learn's
    /// `average="weighted"`).
    pub fn weighted_f1(&self) -> f64 {
        let total = self.documents();
        let sum: f64 = self
            .present()
            .map(|c| {
                let m = self.class(c);
                m.f1 * m.support as f64
            })
            .sum();
        if total == 0 { 0.0 } else { sum / total as f64 }
    }

    /// The metrics as the JSON object `eval --json` prints.
    pub fn to_json(&self) -> serde_json::Value {
        let per_class = per_class_json(&self.classes, |c| self.class(c));
        serde_json::json!({
            "accuracy": self.accuracy(),
            "macro_f1": self.macro_f1(),
            "weighted_f1": self.weighted_f1(),
            "documents": self.documents(),
            "classes": self.classes,
            "per_class": per_class,
            "confusion": self.confusion,
        })
    }

    /// A human-readable report: accuracy, a per-class table and the confusion matrix.
    pub fn to_text(&self) -> String {
        format!("{}{}", self.summary_text(), self.tables_text())
    }

    /// The first lines of [`Metrics::to_text`]: documents, accuracy, macro- and
    /// weighted-F1, for reports that choose how to show the confusions (`eval
    /// --confusion`).
    pub fn summary_text(&self) -> String {
        format!(
            "documents      {}\naccuracy       {:.4}\nmacro-F1       {:.4}\nweighted-F1    {:.4}\n",
            self.documents(),
            self.accuracy(),
            self.macro_f1(),
            self.weighted_f1(),
        )
    }

    /// The per-class table and the confusion matrix of [`Metrics::to_text`] alone, for
    /// reports that give the count and accuracy their own way (a filter's spam block).
    pub fn tables_text(&self) -> String {
        format!("{}{}", self.class_table_text(), self.matrix_text())
    }

    /// The per-class table (precision, recall, F1, support), after a blank line: what
    /// every report of a single-label evaluation shows, whatever it shows of the matrix.
    pub fn class_table_text(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let w = label_width(&self.classes);
        let _ = writeln!(s, "\n{:w$}  precision  recall  f1      support", "class");
        for c in 0..self.classes.len() {
            let m = self.class(c);
            let _ = writeln!(
                s,
                "{:w$}  {:9.4}  {:6.4}  {:6.4}  {}",
                self.classes[c], m.precision, m.recall, m.f1, m.support
            );
        }
        s
    }

    /// The whole confusion matrix, after a blank line: readable while the classes are
    /// few (each column is as wide as the longest class name).
    pub fn matrix_text(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let w = label_width(&self.classes);
        let _ = writeln!(s, "\nconfusion (rows: truth, columns: predicted)");
        let _ = write!(s, "{:w$}", "");
        for c in &self.classes {
            let _ = write!(s, "  {c:>w$}");
        }
        let _ = writeln!(s);
        for (c, row) in self.classes.iter().zip(&self.confusion) {
            let _ = write!(s, "{c:w$}");
            for n in row {
                let _ = write!(s, "  {n:>w$}");
            }
            let _ = writeln!(s);
        }
        s
    }
}

/// `{class: {precision, recall, f1, support}}`, the `per_class` object of `eval --json`.
pub(crate) fn per_class_json(
    classes: &[String],
    class: impl Fn(usize) -> ClassMetrics,
) -> serde_json::Map<String, serde_json::Value> {
    classes
        .iter()
        .enumerate()
        .map(|(c, name)| {
            (
                name.clone(),
                serde_json::to_value(class(c)).unwrap_or_default(),
            )
        })
        .collect()
}

/// The width of a text table's label column: the longest label, at least 5.
pub(crate) fn label_width(classes: &[String]) -> usize {
    classes.iter().map(String::len).max().unwrap_or(5).max(5)
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_binary_case() {
        // truth: 3 ham (0), 2 spam (1); one ham predicted spam, one spam predicted ham.
        let m = Metrics::new(
            vec!["ham".into(), "spam".into()],
            &[0, 0, 0, 1, 1],
            &[0, 0, 1, 1, 0],
        );
        assert_eq!(m.confusion, vec![vec![2, 1], vec![1, 1]]);
        assert!((m.accuracy() - 0.6).abs() < 1e-12);
        let s = m.class(1);
        assert!((s.precision - 0.5).abs() < 1e-12 && (s.recall - 0.5).abs() < 1e-12);
        let h = m.class(0);
        assert!((h.precision - 2.0 / 3.0).abs() < 1e-12 && (h.f1 - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(m.to_json()["per_class"]["spam"]["f1"], 0.5);
        // (2/3 + 1/2) / 2 and (3 · 2/3 + 2 · 1/2) / 5.
        assert!((m.macro_f1() - 7.0 / 12.0).abs() < 1e-12);
        assert!((m.weighted_f1() - 0.6).abs() < 1e-12);
    }

    #[test]
    fn averages_count_the_classes_present_as_scikit_learn_does() {
        // Three classes, the third neither a truth nor a prediction: it is left out.
        // Class 0: tp 2, fp 1, fn 0 → P 2/3, R 1, F1 0.8; class 1: tp 0, fp 0, fn 1 → 0.
        let m = Metrics::new(
            vec!["a".into(), "b".into(), "c".into()],
            &[0, 0, 1],
            &[0, 0, 0],
        );
        assert!((m.class(0).f1 - 0.8).abs() < 1e-12);
        assert!((m.macro_f1() - 0.4).abs() < 1e-12);
        assert!((m.weighted_f1() - 0.8 * 2.0 / 3.0).abs() < 1e-12);
        let json = m.to_json();
        assert!((json["macro_f1"].as_f64().unwrap() - 0.4).abs() < 1e-12);
        assert!(m.to_text().contains("macro-F1       0.4000"));
    }
}
