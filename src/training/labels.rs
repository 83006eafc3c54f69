//! Class names and label indices: which classes a corpus has (the positive one last),
//! each document's class or label set, and the ±1 labels of one-vs-rest problems.

use crate::error::{ConfigError, Param};
use crate::input::Document;
use crate::learn::{Label, Multiclass};
use crate::{Error, Result};

/// The sorted class names of `docs`; for two classes the positive one is put last.
pub fn classes_of(docs: &[Document], positive: Option<&str>) -> Result<Vec<String>> {
    classes_from(
        docs.iter().flat_map(|d| d.labels.iter().cloned()).collect(),
        positive,
    )
}

/// The sorted distinct class names among `classes` (labels as they occur, repeats
/// allowed), ordered as [`classes_of`] orders them.
pub(crate) fn classes_from(
    mut classes: Vec<String>,
    positive: Option<&str>,
) -> Result<Vec<String>> {
    classes.sort();
    classes.dedup();
    // The readers refuse such labels naming their line; documents made in code meet the
    // same rule here.
    if let Some(why) = classes.iter().find_map(|c| crate::input::label_problem(c)) {
        return Err(Error::Data(why));
    }
    if classes.len() < 2 {
        return Err(Error::Data(format!(
            "training needs at least two classes, found {}: {:?}",
            classes.len(),
            classes
        )));
    }
    let pos = positive.or(classes.iter().any(|c| c == "spam").then_some("spam"));
    if let Some(p) = pos {
        let i = classes.iter().position(|c| c == p).ok_or_else(|| {
            ConfigError::new(
                Param::Positive,
                p,
                format!("must be a label of the documents ({classes:?})"),
            )
        })?;
        if classes.len() == 2 {
            classes.swap(i, 1);
        }
    }
    Ok(classes)
}

/// The class index of each document's single label.
pub fn class_indices(docs: &[Document], classes: &[String]) -> Result<Vec<usize>> {
    docs.iter()
        .map(|d| match d.labels.as_slice() {
            [l] => classes.iter().position(|c| c == l).ok_or_else(|| {
                Error::Data(format!(
                    "{}: label {l:?} is not one of the model's {classes:?}",
                    d.id
                ))
            }),
            [] => Err(Error::Data(format!("{}: document has no label", d.id))),
            _ => Err(Error::Data(format!(
                "{}: document has {} labels; this task is single-label",
                d.id,
                d.labels.len()
            ))),
        })
        .collect()
}

/// ±1 labels for the one-vs-rest problem of class `c`.
pub fn binary_labels(idx: &[usize], c: usize) -> Vec<Label> {
    Multiclass::new(idx, c + 1).one_vs_rest(c)
}

/// Class indices of string labels (one per row), for pre-vectorized input such as SVMlight.
pub fn label_indices(labels: &[String], classes: &[String]) -> Result<Vec<usize>> {
    labels
        .iter()
        .enumerate()
        .map(|(i, l)| {
            classes.iter().position(|c| c == l).ok_or_else(|| {
                Error::Data(format!(
                    "row {}: label {l:?} is not one of {classes:?}",
                    i + 1
                ))
            })
        })
        .collect()
}

/// Each document's labels as indices into `classes`, sorted, each once; a label the
/// model does not know is an error naming the document.
pub fn label_sets(docs: &[Document], classes: &[String]) -> Result<Vec<Vec<usize>>> {
    docs.iter()
        .map(|d| {
            let mut set = d
                .labels
                .iter()
                .map(|l| {
                    classes.iter().position(|c| c == l).ok_or_else(|| {
                        Error::Data(format!(
                            "{}: label {l:?} is not one of the model's labels",
                            d.id
                        ))
                    })
                })
                .collect::<Result<Vec<usize>>>()?;
            // A label given twice (two Reuters documents list a topic twice) is one
            // label: softmax shares a row's target among its labels.
            set.sort_unstable();
            set.dedup();
            Ok(set)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_made_in_code_meet_the_label_rule() {
        let docs = |l: &str| vec![Document::labelled(l, "a"), Document::labelled("x", "b")];
        for bad in ["", "  ", "a\tb", "a\nb"] {
            let e = classes_of(&docs(bad), None).unwrap_err().to_string();
            assert!(e.contains("label"), "{bad:?}: {e}");
        }
        assert_eq!(classes_of(&docs("y"), None).unwrap(), ["x", "y"]);
    }

    #[test]
    fn a_label_given_twice_counts_once() {
        let mut d = Document::labelled("corn", "a");
        d.labels = vec!["corn".into(), "wheat".into(), "corn".into()];
        let classes = vec!["corn".to_string(), "wheat".to_string()];
        assert_eq!(label_sets(&[d], &classes).unwrap(), [vec![0, 1]]);
    }
}
