//! Multi-label metrics: per-label precision/recall/F1 from true and predicted label sets,
//! micro-F1 (pooled counts: dominated by frequent labels) and macro-F1 (the mean of the
//! per-label F1: every label counts the same, rare ones included), over all labels and
//! over the most frequent ones (Reuters: the top 10 by training documents).

use super::ClassMetrics;

/// Counts per label of a multi-label evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiLabelMetrics {
    /// Label names.
    pub classes: Vec<String>,
    /// True positives per label.
    pub tp: Vec<u64>,
    /// False positives per label.
    pub fp: Vec<u64>,
    /// False negatives per label.
    pub fn_: Vec<u64>,
    /// Documents evaluated.
    pub documents: u64,
    /// Documents whose predicted set equals the true set.
    pub exact: u64,
    /// The labels of the "top" subset (e.g. the 10 most frequent in training).
    pub top: Vec<usize>,
}

fn f1(tp: u64, fp: u64, fn_: u64) -> f64 {
    let d = 2 * tp + fp + fn_;
    if d == 0 {
        0.0
    } else {
        2.0 * tp as f64 / d as f64
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

impl MultiLabelMetrics {
    /// Counts (truth, predicted) label-index sets; `top` names the labels of the subset.
    pub(crate) fn new(
        classes: Vec<String>,
        truth: &[Vec<usize>],
        predicted: &[Vec<usize>],
        top: Vec<usize>,
    ) -> Self {
        let k = classes.len();
        let (mut tp, mut fp, mut fn_) = (vec![0; k], vec![0; k], vec![0; k]);
        let mut exact = 0;
        for (t, p) in truth.iter().zip(predicted) {
            for &c in p {
                if t.contains(&c) {
                    tp[c] += 1;
                } else {
                    fp[c] += 1;
                }
            }
            for &c in t {
                if !p.contains(&c) {
                    fn_[c] += 1;
                }
            }
            let mut a = t.clone();
            let mut b = p.clone();
            a.sort_unstable();
            b.sort_unstable();
            exact += u64::from(a == b);
        }
        MultiLabelMetrics {
            classes,
            tp,
            fp,
            fn_,
            documents: truth.len() as u64,
            exact,
            top,
        }
    }

    /// Micro-F1 over the labels `of`.
    pub(crate) fn micro_f1_of(&self, of: &[usize]) -> f64 {
        let s = |v: &[u64]| of.iter().map(|&c| v[c]).sum::<u64>();
        f1(s(&self.tp), s(&self.fp), s(&self.fn_))
    }

    /// Micro-F1 over all labels.
    pub fn micro_f1(&self) -> f64 {
        self.micro_f1_of(&(0..self.classes.len()).collect::<Vec<_>>())
    }

    /// Macro-F1: the mean per-label F1 over all labels.
    pub fn macro_f1(&self) -> f64 {
        let k = self.classes.len();
        (0..k).map(|c| self.class(c).f1).sum::<f64>() / k.max(1) as f64
    }

    /// Micro-F1 over the top labels.
    pub(crate) fn micro_f1_top(&self) -> f64 {
        self.micro_f1_of(&self.top)
    }

    /// Precision, recall, F1 and support of label `c`.
    pub fn class(&self, c: usize) -> ClassMetrics {
        let (tp, fp, fn_) = (self.tp[c], self.fp[c], self.fn_[c]);
        ClassMetrics {
            precision: ratio(tp, tp + fp),
            recall: ratio(tp, tp + fn_),
            f1: f1(tp, fp, fn_),
            support: tp + fn_,
        }
    }

    /// The JSON object `eval --json` prints for multi-label models.
    pub fn to_json(&self) -> serde_json::Value {
        let per_class = super::metrics::per_class_json(&self.classes, |c| self.class(c));
        serde_json::json!({
            "documents": self.documents,
            "labels": self.classes.len(),
            "micro_f1": self.micro_f1(),
            "macro_f1": self.macro_f1(),
            "micro_f1_top10": self.micro_f1_top(),
            "top10": self.top.iter().map(|&c| &self.classes[c]).collect::<Vec<_>>(),
            "exact_match": ratio(self.exact, self.documents),
            "per_class": per_class,
        })
    }

    /// A human-readable report: the averages and a per-label table.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let w = super::metrics::label_width(&self.classes);
        let _ = writeln!(s, "documents      {}", self.documents);
        let _ = writeln!(s, "labels         {}", self.classes.len());
        let _ = writeln!(s, "micro-F1       {:.4}", self.micro_f1());
        let _ = writeln!(s, "macro-F1       {:.4}", self.macro_f1());
        let _ = writeln!(
            s,
            "micro-F1 top{}  {:.4}",
            self.top.len(),
            self.micro_f1_top()
        );
        let _ = writeln!(s, "exact match    {:.4}", ratio(self.exact, self.documents));
        let _ = writeln!(s, "\n{:w$}  precision  recall  f1      support", "label");
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
}

/// The heat map of a multi-label evaluation: `counts[t][p]` is, for the documents with
/// true label `t`, how many were given `p` — on the diagonal the found ones, off it the
/// labels given that the document does not have. `k` labels; `truth` and `given` are
/// each document's label indices.
pub fn label_confusion(k: usize, truth: &[Vec<usize>], given: &[Vec<usize>]) -> Vec<Vec<u64>> {
    let mut counts = vec![vec![0u64; k]; k];
    for (t, g) in truth.iter().zip(given) {
        for &a in t {
            for &b in g {
                if a == b || !t.contains(&b) {
                    counts[a][b] += 1;
                }
            }
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_micro_macro() {
        // Label a: tp 2, fp 1, fn 0 → F1 4/5. Label b: tp 0, fp 0, fn 1 → 0.
        // Label c: tp 1, fp 0, fn 1 → 2/3. Micro: tp 3, fp 1, fn 2 → 6/9.
        let m = MultiLabelMetrics::new(
            vec!["a".into(), "b".into(), "c".into()],
            &[vec![0, 2], vec![0, 1], vec![2], vec![]],
            &[vec![0, 2], vec![0], vec![], vec![0]],
            vec![0, 2],
        );
        assert!((m.micro_f1() - 6.0 / 9.0).abs() < 1e-12);
        assert!((m.macro_f1() - (0.8 + 0.0 + 2.0 / 3.0) / 3.0).abs() < 1e-12);
        // Top {a, c}: tp 3, fp 1, fn 1 → 6/8.
        assert!((m.micro_f1_top() - 0.75).abs() < 1e-12);
        assert_eq!(m.exact, 1);
        let j = m.to_json();
        assert_eq!(j["micro_f1_top10"], 0.75);
        assert_eq!(j["per_class"]["b"]["support"], 1);
    }

    #[test]
    fn label_confusion_counts_found_labels_and_wrong_ones() {
        // Document 0 has {0, 1} and was given {0, 2}: 0 found (0→0), 2 wrong (0→2, 1→2).
        // Document 1 has {2} and was given {1, 2}: 2 found, 1 wrong (2→1).
        let counts = label_confusion(3, &[vec![0, 1], vec![2]], &[vec![0, 2], vec![1, 2]]);
        assert_eq!(counts, vec![vec![1, 0, 1], vec![0, 0, 1], vec![0, 1, 1]]);
    }
}
