"""`certiprog.datasets.synthetic.conditioned_mixing`: the feature covariance of ``N(0, I) A`` has the condition number
asked for, at every size and condition the sweeps use; bad arguments raise a certiprog error."""
import numpy as np
import pytest

from certiprog.datasets.synthetic import conditioned_mixing
from certiprog.errors import InputError


@pytest.mark.parametrize("d", [1, 2, 7, 60])
@pytest.mark.parametrize("kappa", [1.0, 1e2, 1e4, 1e6])
def test_the_covariance_has_the_condition_number_asked(d, kappa):
    A = conditioned_mixing(d, kappa, np.random.default_rng(d))
    ev = np.linalg.eigvalsh(A.T @ A)
    want = kappa if d > 1 else 1.0
    assert ev[-1] / ev[0] == pytest.approx(want, rel=1e-8)
    assert np.trace(A.T @ A) == pytest.approx(d, rel=1e-12)  # mean square singular value 1: isotropic scale


def test_the_same_generator_state_gives_the_same_matrix():
    a = conditioned_mixing(5, 1e3, np.random.default_rng(3))
    b = conditioned_mixing(5, 1e3, np.random.default_rng(3))
    assert np.array_equal(a, b)


@pytest.mark.parametrize("d,kappa", [(0, 10.0), (-3, 10.0), (2.5, 10.0), (True, 10.0), (4, 0.5), (4, np.nan),
                                     (4, np.inf)])
def test_bad_arguments_raise(d, kappa):
    with pytest.raises(InputError):
        conditioned_mixing(d, kappa, np.random.default_rng(0))
