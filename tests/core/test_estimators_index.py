"""`certiprog.estimators` re-exports every paper's estimators, and its docstring table names each one."""
import re

import certiprog.estimators as est
from certiprog.papers import estimators


def test_every_registered_estimator_is_exported_and_documented():
    names = set(estimators())
    assert {"MPMClassifier", "ManifoldClassifier", "ME2Classifier"} <= names
    assert set(est.__all__) == names
    documented = set(re.findall(r"`(\w+Classifier)`", est.__doc__))
    assert documented == names, f"docstring table out of date: missing {names - documented}, extra {documented - names}"


def test_unknown_estimator_is_an_attribute_error_listing_the_known_ones():
    try:
        est.NoSuchClassifier  # noqa: B018
    except AttributeError as e:
        assert "MPMClassifier" in str(e)
    else:
        raise AssertionError("an unknown estimator name was accepted")
