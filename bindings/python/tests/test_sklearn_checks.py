"""scikit-learn's own estimator checks, run on every rosenblatt estimator."""

from sklearn.utils.estimator_checks import parametrize_with_checks

import rosenblatt

ESTIMATORS = [
    rosenblatt.Perceptron(),
    rosenblatt.AveragedPerceptron(),
    rosenblatt.PassiveAggressive(),
    rosenblatt.LogisticRegression(),
    rosenblatt.KernelPerceptron(kernel="rbf"),
]


def expected_failures(estimator):
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures)
def test_sklearn_check(estimator, check):
    check(estimator)
