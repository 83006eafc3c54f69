"""scikit-learn's own estimator checks, run on every rosenblatt estimator."""

from sklearn.utils.estimator_checks import parametrize_with_checks

import rosenblatt

ESTIMATORS = [
    rosenblatt.Perceptron(),
    rosenblatt.AveragedPerceptron(),
    rosenblatt.PassiveAggressive(),
    rosenblatt.LogisticRegression(),
    rosenblatt.LinearSVM(),
    rosenblatt.KernelPerceptron(kernel="rbf"),
]


# The learners visit rows in order (shuffled by their seed, each epoch): a weight of k is
# the row repeated k times in its place, and these two checks compare it with the rows
# repeated in another order, which fits another model (scikit-learn's own SGD
# estimators are marked alike). test_weights_explain.py checks the weights against the
# rows repeated in place.
ORDER_DEPENDENT = (
    "an online learner's fit depends on the order of the rows; sample_weight repeats "
    "each row in its place"
)


# The linear SVM's dual solver visits rows in a seeded order too and stops at LIBLINEAR's
# tolerance: rows repeated in another order stop at another point within it.
TOLERANCE = (
    "the dual solver stops at a tolerance, where rows repeated in another order stop "
    "at another point; sample_weight repeats each row in its place"
)


def expected_failures(estimator):
    why = TOLERANCE if isinstance(estimator, rosenblatt.LinearSVM) else ORDER_DEPENDENT
    return {
        "check_sample_weight_equivalence_on_dense_data": why,
        "check_sample_weight_equivalence_on_sparse_data": why,
    }


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures)
def test_sklearn_check(estimator, check):
    check(estimator)
