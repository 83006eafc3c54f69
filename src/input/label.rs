//! The rule every label of every input format meets, in one place: a label is a class
//! name, written one per line in a model's class list and between tabs in `classify`'s
//! output, so it may not be empty or blank, nor hold a tab, a line end or any other
//! control character.
//!
//! The line readers (TSV, JSONL) and the class folders refuse a label that breaks it,
//! naming the file and line (or the folder); Reuters topics that break it make their
//! article skipped; SVMlight labels are numbers. Training checks the classes of
//! documents made in code ([`crate::training::classes_of`]).

/// Why `label` cannot be a class name, as a sentence without its place; `None` when it
/// can.
pub(crate) fn label_problem(label: &str) -> Option<String> {
    if label.is_empty() {
        return Some("the label is empty: a labelled document needs a class name".into());
    }
    if label.trim().is_empty() {
        return Some(format!(
            "the label {label:?} is blank: a labelled document needs a class name"
        ));
    }
    if label.chars().any(char::is_control) {
        return Some(format!(
            "the label {label:?} holds a control character (a tab, a line end or another): \
             class names are written between tabs and one per line"
        ));
    }
    None
}

/// The first label of `labels` that cannot be a class name, with why.
pub(crate) fn first_problem<'a>(labels: impl IntoIterator<Item = &'a String>) -> Option<String> {
    labels.into_iter().find_map(|l| label_problem(l))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_pass_and_the_rest_say_why() {
        for good in ["spam", "ham", "1", "-1", "grain wheat", "é", "a,b"] {
            assert_eq!(label_problem(good), None, "{good:?}");
        }
        assert!(label_problem("").unwrap().contains("empty"));
        assert!(label_problem(" \u{3000}").unwrap().contains("blank"));
        for bad in ["a\tb", "a\nb", "a\rb", "\u{1b}[31m", "x\u{0}", "a\u{85}b"] {
            assert!(
                label_problem(bad).unwrap().contains("control character"),
                "{bad:?}"
            );
        }
    }
}
