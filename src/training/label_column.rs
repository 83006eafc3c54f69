//! Each training document's labels kept apart from its text: the distinct label sets once,
//! and one number per document. A corpus read in batches keeps 4 bytes a document of its
//! labels after its text is dropped, and the classes, the class of each row and the label
//! sets of a multi-label corpus are all read from here.

use super::labels::classes_from;
use crate::input::Document;
use crate::{Error, Result};
use hashbrown::HashMap;

/// The labels of every training document, in input order.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct LabelColumn {
    /// The distinct label sets, as the documents give them (order and repeats kept).
    sets: Vec<Vec<String>>,
    /// Where each distinct set is in `sets`.
    index: HashMap<Vec<String>, u32>,
    /// Each document's set.
    of_doc: Vec<u32>,
}

impl LabelColumn {
    /// The labels of `docs`.
    pub(crate) fn of(docs: &[Document]) -> LabelColumn {
        let mut c = LabelColumn::default();
        for d in docs {
            c.push(&d.labels);
        }
        c
    }

    /// Appends one document's labels.
    pub(crate) fn push(&mut self, labels: &[String]) {
        let k = match self.index.get(labels) {
            Some(&k) => k,
            None => {
                let k = self.sets.len() as u32;
                self.sets.push(labels.to_vec());
                self.index.insert(labels.to_vec(), k);
                k
            }
        };
        self.of_doc.push(k);
    }

    /// Documents recorded.
    pub(crate) fn len(&self) -> usize {
        self.of_doc.len()
    }

    /// Whether some document has several labels or none: a multi-label corpus.
    pub(crate) fn is_multilabel(&self) -> bool {
        self.sets.iter().any(|s| s.len() != 1)
    }

    /// Whether the documents come in one block per label set, with at least two blocks:
    /// the order (class folders read one after another) in which a learner that visits
    /// rows in input order leans towards the last class.
    pub(crate) fn sorted_by_class(&self) -> bool {
        let mut seen = vec![false; self.sets.len()];
        let mut blocks = 0;
        let mut last = None;
        for &k in &self.of_doc {
            if last != Some(k) {
                if std::mem::replace(&mut seen[k as usize], true) {
                    return false;
                }
                blocks += 1;
                last = Some(k);
            }
        }
        blocks >= 2
    }

    /// The classes of a single-label corpus, sorted, the positive one last of two (as
    /// [`classes_of`](super::classes_of) orders a corpus's classes).
    pub(crate) fn classes(&self, positive: Option<&str>) -> Result<Vec<String>> {
        classes_from(self.sets.iter().flatten().cloned().collect(), positive)
    }

    /// The labels of a multi-label corpus, sorted, each once; refused when no document
    /// has a label or a label breaks the label rule.
    pub(crate) fn label_names(&self) -> Result<Vec<String>> {
        let mut names: Vec<String> = self.sets.iter().flatten().cloned().collect();
        names.sort();
        names.dedup();
        if names.is_empty() {
            return Err(Error::Data("no document has a label".into()));
        }
        if let Some(why) = names.iter().find_map(|c| crate::input::label_problem(c)) {
            return Err(Error::Data(why));
        }
        Ok(names)
    }

    /// Each document's class index into `classes`, for a single-label corpus.
    pub(crate) fn class_indices(&self, classes: &[String]) -> Result<Vec<usize>> {
        let of_set = self
            .sets
            .iter()
            .map(|s| match s.as_slice() {
                [l] => classes.iter().position(|c| c == l).ok_or_else(|| {
                    Error::Data(format!("label {l:?} is not one of the model's {classes:?}"))
                }),
                _ => Err(Error::Data(format!(
                    "a document has {} labels; this task is single-label",
                    s.len()
                ))),
            })
            .collect::<Result<Vec<usize>>>()?;
        Ok(self.of_doc.iter().map(|&k| of_set[k as usize]).collect())
    }

    /// Each document's labels as indices into `classes`, sorted, each once (a label given
    /// twice is one label: softmax shares a row's target among its labels).
    pub(crate) fn label_sets(&self, classes: &[String]) -> Result<Vec<Vec<usize>>> {
        let of_set = self
            .sets
            .iter()
            .map(|s| {
                let mut set = s
                    .iter()
                    .map(|l| {
                        classes.iter().position(|c| c == l).ok_or_else(|| {
                            Error::Data(format!("label {l:?} is not one of the model's labels"))
                        })
                    })
                    .collect::<Result<Vec<usize>>>()?;
                set.sort_unstable();
                set.dedup();
                Ok(set)
            })
            .collect::<Result<Vec<Vec<usize>>>>()?;
        Ok(self
            .of_doc
            .iter()
            .map(|&k| of_set[k as usize].clone())
            .collect())
    }
}

/// Whether `docs` come in one block per label set, with at least two blocks: the order
/// (class folders read one after another) in which a learner that visits rows in input
/// order leans towards the last class.
pub fn sorted_by_class(docs: &[Document]) -> bool {
    LabelColumn::of(docs).sorted_by_class()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::training::{class_indices, classes_of, label_sets};

    fn doc(labels: &[&str]) -> Document {
        let mut d = Document::new("d", "text", None);
        d.labels = labels.iter().map(|l| l.to_string()).collect();
        d
    }

    #[test]
    fn a_column_gives_what_the_documents_give() {
        let docs: Vec<Document> = [&["ham"][..], &["spam"], &["ham"], &["spam"], &["ham"]]
            .iter()
            .map(|l| doc(l))
            .collect();
        let c = LabelColumn::of(&docs);
        assert_eq!(c.len(), 5);
        assert!(!c.is_multilabel());
        let classes = c.classes(None).unwrap();
        assert_eq!(classes, classes_of(&docs, None).unwrap());
        assert_eq!(classes, ["ham", "spam"]);
        assert_eq!(
            c.class_indices(&classes).unwrap(),
            class_indices(&docs, &classes).unwrap()
        );
        assert_eq!(c.class_indices(&classes).unwrap(), [0, 1, 0, 1, 0]);
        assert!(!c.sorted_by_class());
    }

    #[test]
    fn label_sets_are_sorted_and_deduplicated_per_document() {
        let docs: Vec<Document> = [&["b", "a", "b"][..], &[], &["c"], &["a", "b", "b"]]
            .iter()
            .map(|l| doc(l))
            .collect();
        let c = LabelColumn::of(&docs);
        assert!(c.is_multilabel());
        let names = c.label_names().unwrap();
        assert_eq!(names, ["a", "b", "c"]);
        let sets = c.label_sets(&names).unwrap();
        assert_eq!(sets, label_sets(&docs, &names).unwrap());
        assert_eq!(sets, vec![vec![0, 1], vec![], vec![2], vec![0, 1]]);
        // Two spellings of one set stay two entries of the table, one set each.
        assert_eq!(c.sets.len(), 4);
    }

    #[test]
    fn sorted_blocks_are_found_and_a_return_is_not_sorted() {
        let col = |ls: &[&str]| {
            let mut c = LabelColumn::default();
            for l in ls {
                c.push(&[l.to_string()]);
            }
            c
        };
        assert!(col(&["a", "a", "b", "b"]).sorted_by_class());
        assert!(!col(&["a", "b", "a"]).sorted_by_class());
        assert!(!col(&["a", "a"]).sorted_by_class());
        assert!(!col(&[]).sorted_by_class());
    }

    #[test]
    fn refusals_name_the_problem() {
        let c = LabelColumn::default();
        assert!(
            c.label_names()
                .unwrap_err()
                .to_string()
                .contains("no document")
        );
        let one = LabelColumn::of(&[doc(&["x"]), doc(&["x"])]);
        assert!(
            one.classes(None)
                .unwrap_err()
                .to_string()
                .contains("two classes")
        );
        let multi = LabelColumn::of(&[doc(&["x", "y"])]);
        let classes = ["x".to_string(), "y".to_string()];
        assert!(
            multi
                .class_indices(&classes)
                .unwrap_err()
                .to_string()
                .contains("single-label")
        );
    }
}
