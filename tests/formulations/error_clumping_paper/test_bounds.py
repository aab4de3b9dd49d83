"""Thm 1 of paper 003 as bound objects (003-T1b as printed with the disjointness assumption, 003-T1b.mcdiarmid
re-derived), checked against exact Rademacher complexities (the reference's dynamic programme over all sign
vectors), and evaluated on a fitted hole-punching predictor (refused when its holes intersect)."""
import itertools
import math

import numpy as np
import pytest

from certiprog.audit.bounds import get_bound, list_bounds
from certiprog.errors import InputError
from certiprog.estimators import HolePunchingClassifier
from certiprog.formulations.error_clumping_paper.bounds import T1B, T1B_MCDIARMID, thm1_on_predictor

from ref_001_003 import rademacher_disjoint_intervals  # noqa: E402


def test_registered_and_audited():
    ids = {b.id for b in list_bounds("003")}
    assert {"003-T1b", "003-T1b.mcdiarmid"} <= ids
    assert get_bound("003-T1b") is T1B and get_bound("003-T1b.mcdiarmid") is T1B_MCDIARMID
    for b in (T1B, T1B_MCDIARMID):
        assert b.audit().status == "verified"
        assert any("disjoint" in str(a) for a in b.assumptions)
        assert b.failure_probability(k=2, m=100, d_H=1.0, d_G=3) == 0.0  # a deterministic inequality


def test_formulas_and_assumptions():
    k, m, dH, dG = 3, 1000, 2.0, 5
    assert T1B.evaluate(k=k, m=m, d_H=dH, d_G=dG) == pytest.approx(
        math.sqrt(k) * (math.sqrt(dH / m) + 8 * math.sqrt(dG * math.log(m) / m)))
    assert T1B_MCDIARMID.evaluate(k=k, m=m, d_H=dH, d_G=dG) == pytest.approx(
        math.sqrt(k * dH / m) + math.sqrt(2 * k * dG * math.log(math.e * m / dG) / m))
    # the re-derived bound implies the printed one whenever d_G >= 3 (the theorem's d_G > 2)
    for k, m, dG in itertools.product((1, 2, 7), (3, 10, 100, 10**5), (3, 4, 50)):
        if m >= dG:
            assert T1B_MCDIARMID.evaluate(k=k, m=m, d_H=1.0, d_G=dG) <= T1B.evaluate(k=k, m=m, d_H=1.0, d_G=dG)
    with pytest.raises(InputError, match="d_G > 2"):
        T1B.evaluate(k=2, m=100, d_H=1.0, d_G=2)
    with pytest.raises(InputError, match="Sauer"):
        T1B_MCDIARMID.evaluate(k=2, m=3, d_H=1.0, d_G=5)
    with pytest.raises(InputError, match="integer"):
        T1B.evaluate(k=1.5, m=100, d_H=1.0, d_G=3)


@pytest.mark.parametrize("m,k", [(8, 1), (10, 2), (12, 3)])
def test_exact_rademacher_complexity_is_below_both(m, k):
    """Intervals on a line (VC 2 <= d_G = 3) x constants in [-1, 1] (R_m(H) = E|sum sigma|/m <= 1/sqrt(m): d_H = 1),
    exact over all 2^m sign vectors by the reference's dynamic programme."""
    S = np.array(list(itertools.product([-1.0, 1.0], repeat=m)))
    exact = float(np.mean([rademacher_disjoint_intervals(s, k) for s in S]))
    re = T1B_MCDIARMID.evaluate(k=k, m=m, d_H=1.0, d_G=3)
    assert exact <= re <= T1B.evaluate(k=k, m=m, d_H=1.0, d_G=3)
    assert exact > math.sqrt(k / m) * 0.5  # not trivially small: the complexity grows with k


def clumped(seed=7, m=250):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(m, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    for c in ([1.0, 1.0], [-1.0, -1.0]):
        y[np.linalg.norm(X - c, axis=1) < 0.5] *= -1
    return X, y


def test_on_a_fitted_predictor_and_refusal_when_holes_intersect():
    X, y = clumped()
    one = HolePunchingClassifier(n_holes=1, rho=0.4, eta=0.5, lam=0.01).fit(X, y)
    out = thm1_on_predictor(one, X)
    Xa = np.c_[X, np.ones(len(X))]
    B = np.max(np.linalg.norm(Xa, axis=1))
    W = max([np.linalg.norm(one.w_), 1.0] + [np.linalg.norm(w) for w, h in zip(one.result_.hole_w, one.holes_)
                                             if h["kind"] == "error_clumping"])
    assert out["k"] == 1 and out["m"] == 250 and out["d_G"] == 3 and out["n_holes"] == 1
    assert out["B"] == pytest.approx(B) and out["W"] == pytest.approx(W) and out["d_H"] == pytest.approx((W * B) ** 2)
    assert out["paper"] == pytest.approx(T1B.evaluate(k=1, m=250, d_H=out["d_H"], d_G=3))
    assert out["rederived"] <= out["paper"]
    assert out["fitted_sum_sqrt"] == pytest.approx(math.sqrt(one.holes_[0]["n_points"]))
    # several holes on this data nest (the second ball shares the first's centre): Thm 1 does not cover them
    many = HolePunchingClassifier(n_holes=4, rho=0.4, eta=0.5, lam=0.01).fit(X, y)
    c, r = many.centers_, many.radii_
    assert any(np.linalg.norm(c[i] - c[j]) <= r[i] + r[j] for i in range(len(r)) for j in range(i))
    with pytest.raises(InputError, match="disjoint holes"):
        thm1_on_predictor(many, X)
    with pytest.raises(InputError, match="fitted"):
        thm1_on_predictor(HolePunchingClassifier(), X)
    with pytest.raises(InputError, match="columns"):
        thm1_on_predictor(one, X[:, :1])


def test_on_a_predictor_with_disjoint_holes():
    X, y = clumped()
    est = HolePunchingClassifier(n_holes=4, rho=0.4, eta=0.5, lam=0.01, disjoint_holes=True).fit(X, y)
    out = thm1_on_predictor(est, X)
    assert out["k"] == est.n_holes_ >= 2 and out["d_G"] == 3
    assert out["paper"] == pytest.approx(T1B.evaluate(k=out["k"], m=250, d_H=out["d_H"], d_G=3))
    assert out["rederived"] <= out["paper"]
    n_j = np.bincount(est.route(X)[est.route(X) >= 0])
    assert out["fitted_sum_sqrt"] == pytest.approx(np.sum(np.sqrt(n_j)))
    assert out["fitted_sum_sqrt"] <= math.sqrt(out["k"] * 250)  # Cauchy-Schwarz for disjoint holes
