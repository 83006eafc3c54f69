//! Models of feature vectors that learn rows one at a time, of any number of classes:
//! what the Python package's `partial_fit` needs. A model starts empty over a number of
//! columns ([`empty_rows_model`](super::empty_rows_model)) or from fitted weights, and [`learn_rows`] takes the
//! steps of an [`UpdateRule`] on each row in order — the filter's steps, one binary model
//! per class — or softmax regression's gradient step. The rule's state (the t of a
//! decaying rate) is the caller's to keep between calls: a model file keeps only a
//! two-class filter's.

use crate::features::SparseRows;
use crate::learn::{OnlineState, UpdateRule, learn_rows_ovr};
use crate::model::{FeatureSpace, Model, Predictor};
use crate::{Error, Result};

/// Learns the rows of `x` in order, one at a time, into `model`, continuing from its
/// weights; `y` holds each row's class index. A two-class or one-vs-rest model of linear
/// models learns by `rule` (the perceptron with step `eta`; without
/// `bias` the biases stay 0), `states` holding the rule's state of each binary model
/// (made afresh when they are not as many or belong to another rule); a softmax model
/// takes its gradient step at η/√(1 + t) (`SoftmaxModel::learn_rows`), `states` then
/// holding one state whose count is t. Rows are read as given, as the model's weights
/// were fitted (the models [`empty_rows_model`](super::empty_rows_model) makes have no
/// geometry). A multi-label
/// model is refused; so are rows of another width than the model's and class indices
/// beyond its classes. The model changes only when the result is a valid model.
pub fn learn_rows<X: SparseRows>(
    model: &mut Model,
    states: &mut Vec<OnlineState>,
    x: &X,
    y: &[usize],
    rule: UpdateRule,
    eta: f32,
    bias: bool,
) -> Result<()> {
    let width = match model.features() {
        FeatureSpace::Indexed { n_features } => n_features,
        FeatureSpace::Text => model.vocab().len(),
    };
    if x.n_cols() != width {
        return Err(Error::Data(format!(
            "X has {} features, but the model has {width}",
            x.n_cols()
        )));
    }
    if y.len() != x.n_rows() {
        return Err(Error::Data(format!(
            "{} rows but {} labels",
            x.n_rows(),
            y.len()
        )));
    }
    let k = model.classes().len();
    if let Some(c) = y.iter().find(|&&c| c >= k) {
        return Err(Error::Data(format!(
            "class index {c} is outside the model's {k} classes"
        )));
    }
    let mut parts = model.clone().into_parts();
    let models = match &mut parts.predictor {
        Predictor::Binary(m) => std::slice::from_mut(m),
        Predictor::OneVsRest(ms) => &mut ms[..],
        Predictor::Softmax(sm) => {
            let seen = states.first().map_or(0, |s| s.seen);
            let seen = sm.learn_rows(x, y, eta, seen);
            *states = vec![OnlineState {
                seen,
                ..OnlineState::new(rule)
            }];
            *model = Model::new(parts)?;
            return Ok(());
        }
        Predictor::MultiLabel(_) => {
            return Err(Error::Unsupported(
                "a multi-label model does not learn one row at a time".into(),
            ));
        }
    };
    if states.len() != models.len() || states.iter().any(|s| s.rule != rule) {
        *states = vec![OnlineState::new(rule); models.len()];
    }
    learn_rows_ovr(models, states, x, y, eta, bias);
    *model = Model::new(parts)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::real_from_dense;
    use crate::incremental::empty_rows_model;
    use crate::learn::{Classifier, Rate};

    fn classes(k: usize) -> Vec<String> {
        (0..k).map(|c| format!("c{c}")).collect()
    }

    #[test]
    fn empty_models_have_the_shape_asked_for() {
        let m = empty_rows_model(4, classes(2), true, true).unwrap();
        assert!(matches!(m.predictor(), Predictor::Binary(_)));
        assert!(m.predictor().probabilistic());
        let m = empty_rows_model(4, classes(3), false, false).unwrap();
        assert!(matches!(m.predictor(), Predictor::OneVsRest(ms) if ms.len() == 3));
        assert!(!m.predictor().probabilistic());
        let m = empty_rows_model(4, classes(3), true, true).unwrap();
        let Predictor::Softmax(sm) = m.predictor() else {
            panic!("softmax");
        };
        assert_eq!((sm.k, sm.w.len(), sm.bias.len()), (3, 12, 3));
        assert_eq!(m.features(), FeatureSpace::Indexed { n_features: 4 });
        assert!(empty_rows_model(4, classes(1), false, false).is_err());
    }

    #[test]
    fn rows_are_learned_by_the_rule_and_the_states_carried() {
        // Two classes, perceptron at η = 2: the first row (class 1, score 0) is a
        // mistake: w = 2·x, b = 2; the second is then right (score 2 + 2).
        let mut m = empty_rows_model(2, classes(2), false, false).unwrap();
        let mut states = Vec::new();
        let x = real_from_dense(&[vec![1.0, 0.0], vec![1.0, 0.0]]);
        learn_rows(
            &mut m,
            &mut states,
            &x,
            &[1, 1],
            UpdateRule::Perceptron,
            2.0,
            true,
        )
        .unwrap();
        let Predictor::Binary(b) = m.predictor() else {
            panic!("binary");
        };
        assert_eq!(b.score(x.row(0)), 4.0);
        assert_eq!(states.len(), 1);
        assert_eq!(states[0].seen, 2);
        // Another rule starts a fresh state.
        let pa = UpdateRule::PassiveAggressive { c: 1.0 };
        let one = real_from_dense(&[vec![1.0, 0.0]]);
        learn_rows(&mut m, &mut states, &one, &[1], pa, 1.0, true).unwrap();
        assert_eq!((states[0].rule, states[0].seen), (pa, 1));
        // Softmax counts its rows on in one state.
        let mut m = empty_rows_model(2, classes(3), true, true).unwrap();
        let mut states = Vec::new();
        let rule = UpdateRule::Logistic {
            eta: 1.0,
            rate: Rate::Decaying,
        };
        for _ in 0..2 {
            learn_rows(&mut m, &mut states, &x, &[2, 2], rule, 1.0, true).unwrap();
        }
        assert_eq!(states.len(), 1);
        assert_eq!(states[0].seen, 4);
        let Predictor::Softmax(sm) = m.predictor() else {
            panic!("softmax");
        };
        assert_eq!(sm.decide(x.row(0)).0, 2);
    }

    #[test]
    fn rows_that_do_not_fit_the_model_are_refused_and_it_is_left_as_it_was() {
        let mut m = empty_rows_model(2, classes(3), false, false).unwrap();
        let before = m.to_bytes().unwrap();
        let mut states = Vec::new();
        let rule = UpdateRule::Perceptron;
        let x = real_from_dense(&[vec![1.0, 0.0]]);
        let wide = real_from_dense(&[vec![1.0, 0.0, 1.0]]);
        let err = learn_rows(&mut m, &mut states, &wide, &[0], rule, 1.0, true).unwrap_err();
        assert_eq!(err.to_string(), "X has 3 features, but the model has 2");
        assert!(learn_rows(&mut m, &mut states, &x, &[0, 1], rule, 1.0, true).is_err());
        assert!(learn_rows(&mut m, &mut states, &x, &[3], rule, 1.0, true).is_err());
        assert_eq!(m.to_bytes().unwrap(), before);
    }
}
