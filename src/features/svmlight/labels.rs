//! The classes of SVMlight labels: how numeric labels sort, which class is positive, and
//! the labels written for a corpus's classes.

use super::normalize_label;
use crate::{Error, Result};

fn numeric(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The classes of SVMlight labels, sorted numerically when all are numbers (else as
/// strings); for two classes the positive one (`positive`, else the larger) comes last,
/// as [`crate::training::classes_of`] orders text classes.
pub fn classes_of_labels(labels: &[String], positive: Option<&str>) -> Result<Vec<String>> {
    let mut classes: Vec<String> = labels.to_vec();
    classes.sort_unstable();
    classes.dedup();
    if classes.iter().all(|c| numeric(c).is_some()) {
        classes.sort_by(|a, b| numeric(a).unwrap().total_cmp(&numeric(b).unwrap()));
    }
    if classes.len() < 2 {
        return Err(Error::Data(format!(
            "training needs at least two classes, found {}: {:?}",
            classes.len(),
            classes
        )));
    }
    if let Some(p) = positive {
        let p = normalize_label(p);
        let i = classes.iter().position(|c| *c == p).ok_or_else(|| {
            crate::error::ConfigError::new(
                crate::error::Param::Positive,
                &p,
                format!("must be a label of the rows ({classes:?})"),
            )
        })?;
        if classes.len() == 2 {
            classes.swap(i, 1);
        }
    }
    Ok(classes)
}

/// The SVMlight label written for each class of a corpus whose classes are `classes`
/// (ordered as [`crate::training::classes_of`] orders them): `-1`/`+1` for two classes
/// (the positive one, last, is `+1`); the class names themselves when they are all
/// numbers, no two of them the same number; otherwise `1..=k` in class order — numeric labels, as LIBLINEAR, Vowpal
/// Wabbit and scikit-learn require.
pub fn class_labels(classes: &[String]) -> Vec<String> {
    if classes.len() == 2 {
        return vec!["-1".into(), "+1".into()];
    }
    if classes.iter().all(|c| numeric(c).is_some()) {
        let written: Vec<String> = classes.iter().map(|c| normalize_label(c)).collect();
        // Names that read as one number (`1`, `01`, `1.0`) would merge their classes.
        let mut distinct = written.clone();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() == written.len() {
            return written;
        }
    }
    (1..=classes.len()).map(|i| i.to_string()).collect()
}
