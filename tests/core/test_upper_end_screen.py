"""The upper end's floating-point screen (`certiprog.certify.upper_end._verify_point`) gives up only points the
rigorous test would refuse: with the screen switched off (every cone's ``plausibly_contains`` True) every upper end
is the same number, on points inside, on and just outside the boundary, at scales 1e-8 .. 1e8."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog.certify.upper_end import upper_bound
from certiprog.conic.cones.base import Cone
from certiprog.model import Model, Variable, hinge, minimize, norm2


def _svm_like(seed: int, scale: float):
    """A hinge loss with a norm bound (nonneg rows, an SOC) and a free bias: (model, solution)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 5)) * scale
    y = np.where(rng.random(60) < 0.5, -1.0, 1.0)
    w, b = Variable(5, "w"), Variable(name="b")
    model = Model(minimize(np.ones(60) @ hinge(np.diag(y) @ (X @ w) + y * b)))
    model.add(norm2(w) <= 3.0 / scale, name="ball")
    return model, model.solve()


def _both(problem, x):
    screened = upper_bound(problem, x, repair=False)[0]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Cone, "plausibly_contains", lambda self, M: True)
        for sub in Cone.__subclasses__():
            mp.setattr(sub, "plausibly_contains", lambda self, M: True, raising=False)
        plain = upper_bound(problem, x, repair=False)[0]
    return screened, plain


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000), log_scale=st.sampled_from([-8, 0, 8]),
       noise=st.sampled_from([0.0, 1e-16, 1e-12, 1e-6]))
def test_the_screen_never_changes_the_upper_end(seed, log_scale, noise):
    _, sol = _svm_like(seed, 10.0 ** log_scale)
    problem = sol.problem
    rng = np.random.default_rng(seed + 1)
    x = sol.x * (1 + noise * rng.normal(size=sol.x.size))
    screened, plain = _both(problem, x)
    assert screened == plain or (np.isinf(screened) and np.isinf(plain))


def test_matvec_reads_a_given_abs_matrix_both_ways():
    """`rigorous.matvec` with ``abs_A``: the same enclosure as forming |A| itself, with and without transpose (the
    Lagrangian passes the certificate's cached |A| for A'w), and the exact product inside it."""
    from fractions import Fraction

    import scipy.sparse as sp

    from certiprog.certify.rigorous import Ball, matvec

    rng = np.random.default_rng(11)
    A = sp.random(40, 25, density=0.3, random_state=rng, format="csr") * 1e3 - \
        sp.random(40, 25, density=0.2, random_state=rng, format="csr")
    A = sp.csr_matrix(A)
    absA = abs(A)
    for transpose, v in ((False, rng.normal(size=25)), (True, rng.normal(size=40))):
        ref = matvec(A, Ball(v, np.abs(v) * 1e-9), transpose=transpose)
        got = matvec(A, Ball(v, np.abs(v) * 1e-9), transpose=transpose, abs_A=absA)
        np.testing.assert_array_equal(got.mid, ref.mid)
        np.testing.assert_array_equal(got.rad, ref.rad)
        M = (A.T if transpose else A).toarray()
        exact = [sum(Fraction(float(a)) * Fraction(float(x)) for a, x in zip(row, v)) for row in M]
        assert all(abs(Fraction(float(m)) - e) <= Fraction(float(r)) for m, r, e in zip(got.mid, got.rad, exact))
