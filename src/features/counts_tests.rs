//! Counted rows' tests: sublinear tf-idf values against hand-computed rows, and every op a
//! learner runs over counted rows against the dense computation.

use super::*;
use crate::features::{Geometry, GeometrySpec, Normalize, RowAccess, StreamVectorizer, ops};
use crate::input::Document;
use crate::text::Analyzer;
use crate::vocab::VocabConfig;
use proptest::prelude::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-4 * (1.0 + b.abs())
}

#[test]
fn sublinear_tf_idf_l2_rows_are_the_hand_computed_ones() {
    // Three documents; df: a 1, b 2, c 2 of n = 3. Row 0 says a three times, b once.
    let docs = [
        Document::new("0", "a a b a", None),
        Document::new("1", "b c", None),
        Document::new("2", "c", None),
    ];
    let mut s = StreamVectorizer::with_counts(Analyzer::default(), TermCounts::Sublinear);
    s.push(&docs);
    let (vocab, x) = s.finish_rows(&VocabConfig::every_word());
    let g = Geometry::fit(GeometrySpec::IDF_L2, &x);
    let rows = g.apply(&x);
    // tf-idf before the scale: a (1 + ln 3)(ln(4/2) + 1), b 1 · (ln(4/3) + 1); then both
    // divided by the row's length — as scikit-learn's TfidfVectorizer(sublinear_tf=True).
    let a = (1.0 + 3f64.ln()) * (2f64.ln() + 1.0);
    let b = (4f64 / 3.0).ln() + 1.0;
    let norm = (a * a + b * b).sqrt();
    let r = rows.row(0);
    let value = |word: &str| {
        let id = vocab.get(word).unwrap();
        let k = r.ids.iter().position(|&j| j == id).unwrap();
        f64::from(r.value(k))
    };
    assert!(close(value("a"), a / norm), "{} {}", value("a"), a / norm);
    assert!(close(value("b"), b / norm));
    // A word said once counts 1, as in a binary row: row 1 is b and c once each, both of
    // df 2, so both weigh 1/√2 after the scale.
    let r1 = rows.row(1);
    assert_eq!(r1.vals.unwrap(), [1.0, 1.0]);
    assert!(close(f64::from(r1.value(0)), 0.5f64.sqrt()));
    assert!(close(f64::from(r1.value(1)), 0.5f64.sqrt()));
}

/// Rows of (id, count) written out densely under `spec` fitted on them: tf-idf, l2.
fn dense(rows: &[Vec<(u32, u32)>], n_cols: usize, spec: GeometrySpec) -> Vec<Vec<f64>> {
    let n = rows.len() as f64;
    let df = |j: u32| rows.iter().filter(|r| r.iter().any(|e| e.0 == j)).count() as f64;
    rows.iter()
        .map(|r| {
            let mut d = vec![0f64; n_cols];
            for &(j, c) in r {
                let idf = match spec.weighting {
                    crate::features::Weighting::Idf => ((n + 1.0) / (df(j) + 1.0)).ln() + 1.0,
                    _ => 1.0,
                };
                d[j as usize] = (1.0 + f64::from(c).ln()) * idf;
            }
            let norm = d.iter().map(|v| v * v).sum::<f64>().sqrt();
            if spec.normalize == Normalize::L2 && norm > 0.0 {
                d.iter_mut().for_each(|v| *v /= norm);
            }
            d
        })
        .collect()
}

proptest! {
    /// Dot products, updates and squared norms over counted rows — the row's own ops and
    /// the CSR view's loops, under binary or idf weighting, scaled or not — equal the
    /// dense computation of the same tf-idf rows.
    #[test]
    fn counted_dot_and_update_equal_dense(
        rows in proptest::collection::vec(
            proptest::collection::btree_map(0u32..10, 1u32..6, 0..7), 1..8),
        idf in any::<bool>(), l2 in any::<bool>(),
        w in proptest::collection::vec(-8i8..8, 10), a in -3i8..4,
    ) {
        let rows: Vec<Vec<(u32, u32)>> =
            rows.into_iter().map(|m| m.into_iter().collect()).collect();
        let (mut indptr, mut indices) = (vec![0], Vec::new());
        for r in &rows {
            for &(j, c) in r {
                indices.extend(std::iter::repeat_n(j, c as usize));
            }
            indptr.push(indices.len());
        }
        let x = TextMatrix::from_sorted(indptr, indices, 10, TermCounts::Sublinear);
        let spec = GeometrySpec {
            weighting: if idf { crate::features::Weighting::Idf } else { crate::features::Weighting::Binary },
            normalize: if l2 { Normalize::L2 } else { Normalize::None },
        };
        let g = Geometry::fit(spec, &x);
        let wx = g.apply(&x);
        let view = wx.csr().unwrap();
        let d = dense(&rows, 10, spec);
        let w: Vec<f32> = w.into_iter().map(f32::from).collect();
        let a = f32::from(a);
        for (i, di) in d.iter().enumerate() {
            let want: f64 = di.iter().zip(&w).map(|(x, w)| x * f64::from(*w)).sum();
            prop_assert!(close(f64::from(ops::dot(&w, wx.row(i))), want));
            prop_assert!(close(f64::from(view.dot(i, &w)), want));
            let sq: f64 = di.iter().map(|v| v * v).sum();
            prop_assert!(close(f64::from(RowAccess::nrm2_sq(&view, i)), sq));
            for by_view in [false, true] {
                let mut ws = w.clone();
                if by_view {
                    view.axpy(i, a, &mut ws);
                } else {
                    ops::axpy(a, wx.row(i), &mut ws);
                }
                for j in 0..10 {
                    prop_assert!(close(f64::from(ws[j]), f64::from(w[j]) + f64::from(a) * di[j]));
                }
            }
        }
    }

    /// Counted rows read in batches equal the rows of every document at once, and their
    /// document frequencies count a repeated word once a row: the vocabulary is the one
    /// binary rows build.
    #[test]
    fn counted_rows_keep_the_binary_vocabulary(
        texts in proptest::collection::vec(proptest::collection::vec(0usize..6, 0..9), 1..40),
        cut in 0usize..40,
    ) {
        const WORDS: [&str; 6] = ["w", "x", "y", "z", "café", "q"];
        let docs: Vec<Document> = texts
            .iter()
            .enumerate()
            .map(|(i, ws)| {
                let t: Vec<&str> = ws.iter().map(|&w| WORDS[w]).collect();
                Document::new(i.to_string(), t.join(" "), None)
            })
            .collect();
        let cfg = VocabConfig::every_word();
        let mut counted = StreamVectorizer::with_counts(Analyzer::default(), TermCounts::Sublinear);
        let (head, tail) = docs.split_at(cut.min(docs.len()));
        counted.push(head);
        counted.push(tail);
        let mut binary = StreamVectorizer::new(Analyzer::default());
        binary.push(&docs);
        let (cv, cx) = counted.finish_rows(&cfg);
        let (bv, bx) = binary.finish(&cfg);
        prop_assert_eq!(cv.len(), bv.len());
        for id in 0..cv.len() as u32 {
            prop_assert_eq!(cv.word(id), bv.word(id));
        }
        for (i, text) in texts.iter().enumerate() {
            prop_assert_eq!(cx.row(i).ids, bx.row(i).ids);
            let r = cx.row(i);
            for (k, &j) in r.ids.iter().enumerate() {
                let n = text.iter().filter(|&&w| WORDS[w] == cv.word(j)).count();
                prop_assert!(close(f64::from(r.vals.unwrap()[k]), 1.0 + (n as f64).ln()));
            }
        }
    }
}
