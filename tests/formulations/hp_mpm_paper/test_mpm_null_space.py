"""004 eq. (3) from samples (`mpm`) on data whose centred points do not span R^d: the null-space pin.

Constant features, one-hot groups (columns summing to 1) and fewer points than features leave directions N with no
spread; there (3) is ill-posed in floating point (a component of w in N is free, and the rounding of x̂1 - x̂0 tilts
it), so `mpm` adds the constraint ``'null_space'`` (``N^T w == 0``, `data_span` with ``scale_free=True``). Checked
against independent programs with the same optimum in exact arithmetic: the data with the redundant columns deleted
(full rank, no pin), the reduced-coordinate program ``mpm_from_moments(class_moments(..., scale_free=True))``, and
standardised features ((3) is invariant under feature scaling). Every test here fails when the pin is removed (the
assertions on ``'null_space'`` and on ``N^T w``, and the unpinned programs are not certified).
"""
import numpy as np
import pytest

from certiprog.errors import InputError
from certiprog.formulations.hp_mpm_paper.mpm import (
    MPMData,
    class_moments,
    data_span,
    mpm,
    mpm_from_moments,
    mpm_moments,
)

SCALES = [1.0, 1e8, 1e-8]
TOL = 1e-6  # certiprog's certificate tolerance (relative)


def _constant_feature(rng):
    """4 Gaussian features and a constant one (0.1 pi: its mean is rounded, so its centred values are not all 0)."""
    X1 = rng.normal(size=(40, 4)) + 0.8
    X0 = rng.normal(size=(50, 4)) * 1.5 - 0.3
    c = 0.1 * np.pi
    full1, full0 = np.c_[X1[:, :2], np.full(40, c), X1[:, 2:]], np.c_[X0[:, :2], np.full(50, c), X0[:, 2:]]
    return full1, full0, np.array([0, 1, 3, 4])  # the columns of an equivalent full-rank design


def _one_hot_group(rng):
    """3 Gaussian features and a one-hot group of 4 levels (its columns sum to 1 in every row)."""
    X1 = rng.normal(size=(60, 3)) + 0.7
    X0 = rng.normal(size=(70, 3)) @ rng.normal(size=(3, 3))
    g1 = np.eye(4)[rng.integers(0, 4, 60)]
    g0 = np.eye(4)[rng.choice(4, 70, p=[0.1, 0.2, 0.3, 0.4])]
    full1, full0 = np.c_[X1[:, :2], g1, X1[:, 2:]], np.c_[X0[:, :2], g0, X0[:, 2:]]
    return full1, full0, np.array([0, 1, 2, 3, 4, 6])  # one level dropped: the same affine functions


def _fewer_points_than_features(rng):
    """17 points in R^30 on a 5-dimensional affine subspace (so kappa* is finite: x̂1 - x̂0 lies in the within-class
    spread); the subspace's own coordinates are the equivalent full-rank design."""
    P = np.linalg.qr(rng.normal(size=(30, 5)))[0] * rng.uniform(0.5, 2.0, 5)  # 30 x 5, full column rank
    Z1 = rng.normal(size=(8, 5)) + 0.6
    Z0 = rng.normal(size=(9, 5)) * 1.3 - 0.2
    offset = rng.normal(size=30)
    return Z1 @ P.T + offset, Z0 @ P.T + offset, (Z1, Z0)


CASES = {"constant feature": _constant_feature, "one-hot group": _one_hot_group,
         "fewer points than features": _fewer_points_than_features}


def _equivalent_full_rank(case, X1, X0, extra, scale):
    if case == "fewer points than features":
        Z1, Z0 = extra
        return Z1 * scale, Z0 * scale
    return X1[:, extra], X0[:, extra]


def _certified(sol):
    """The answer is certified: status optimal, both interval ends finite, narrow, the objective inside."""
    assert sol.status == "optimal", (sol.status, sol.certification.interval_notes)
    lo, hi = sol.certification.interval
    assert np.isfinite(lo) and np.isfinite(hi)
    assert hi - lo <= TOL * max(abs(hi), 1e-300), (lo, hi)
    slack = 1e-12 * abs(hi)
    assert lo - slack <= sol.objective <= hi + slack, (lo, sol.objective, hi)
    return lo, hi


def _pinned(model, w):
    """The pin is in the model and the returned w has no component in N."""
    assert set(model.constraints) == {"normalization", "null_space"}
    N = model.data.null
    assert N is not None and N.shape[1] >= 1
    assert np.abs(N.T @ w).max() <= 1e-9 * np.linalg.norm(w)
    np.testing.assert_allclose(N.T @ N, np.eye(N.shape[1]), atol=1e-12)  # orthonormal
    np.testing.assert_allclose(model.data.span.T @ N, 0.0, atol=1e-12)  # the span's complement


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("case", list(CASES))
def test_rank_deficient_data_are_certified_with_the_pin(case, scale):
    X1, X0, extra = CASES[case](np.random.default_rng(11))
    X1, X0 = X1 * scale, X0 * scale
    model = mpm(X1, X0)
    assert model.variable("w").shape == (X1.shape[1],)
    sol = model.solve()
    lo, hi = _certified(sol)
    w = sol.value("w")
    _pinned(model, w)
    expected_null = {"constant feature": 1, "one-hot group": 1, "fewer points than features": 25}[case]
    assert model.data.null.shape[1] == expected_null
    np.testing.assert_allclose(w @ (X1.mean(0) - X0.mean(0)), 1.0, rtol=1e-9)
    # the reduced-coordinate program (the same span, coordinates v): the same optimum kappa*^{-1}
    reduced = mpm_from_moments(class_moments(X1, X0, scale_free=True)).solve()
    rlo, rhi = _certified(reduced)
    assert abs(sol.objective - reduced.objective) <= TOL * hi
    # an independent full-rank design with the same affine functions of x (redundant columns deleted): no pin
    Y1, Y0 = _equivalent_full_rank(case, X1, X0, extra, scale)
    ref_model = mpm(Y1, Y0)
    assert set(ref_model.constraints) == {"normalization"}
    ref = ref_model.solve()
    flo, fhi = _certified(ref)
    assert lo <= fhi * (1 + TOL) and flo <= hi * (1 + TOL)  # the certified intervals meet
    assert abs(sol.objective - ref.objective) <= TOL * fhi
    d = model.derived(sol)
    assert d.kappa == pytest.approx(1.0 / ref.objective, rel=TOL)
    assert abs(d.b - d.b_from_class0) <= 1e-6 * max(1.0, abs(d.b))


@pytest.mark.parametrize("scale", SCALES)
def test_general_position_few_points_separate_perfectly(scale):
    """3 + 4 points in R^9 in general position: x̂1 - x̂0 leaves the within-class spread, so kappa* = inf
    (objective 0) on the 6-dimensional span; the pin removes the 3 null directions. At scale 1e8 certiprog's
    certificate cannot tell an optimum of 0 from its floor in the data's units (the interval [0, 8e-9] is wider
    than tol times either): an honest 'unconfirmed', as without the pin (a limit of the certificate's rule for zero
    optima, not of the pin)."""
    rng = np.random.default_rng(12)
    X1, X0 = (rng.normal(size=(3, 9)) + 1.0) * scale, (rng.normal(size=(4, 9)) - 1.0) * scale
    model = mpm(X1, X0)
    sol = model.solve()
    assert sol.status == ("unconfirmed" if scale == 1e8 else "optimal")
    lo, hi = sol.certification.interval
    assert lo <= 0.0 <= hi <= 1e-7 and sol.objective <= 1e-7
    _pinned(model, sol.value("w"))
    assert model.data.null.shape[1] == 3
    d = model.derived(sol)
    assert d.worst_case_error <= 1e-12 and d.kappa > 1e6
    assert np.all(X1 @ d.w >= d.b) and np.all(X0 @ d.w <= d.b)


def test_the_structured_solver_honours_the_pin():
    """The structured path (tried first) solves in the span's coordinates and returns w = span @ v and a multiplier
    for every constraint, the pin's included, satisfying the Lagrangian's stationarity in feature coordinates and
    agreeing with Clarabel's; certiprog's own certificate certifies it (solver='structured', no fallback)."""
    X1, X0, _ = _one_hot_group(np.random.default_rng(13))
    model = mpm(X1, X0)
    answer = model.data.structured_solve()
    assert set(answer.duals) == {"normalization", "_objective/pnorm", "null_space"}
    w = answer.values["w"]
    N, mom = model.data.null, model.data.moments
    assert np.abs(N.T @ w).max() <= 1e-12 * np.linalg.norm(w)
    t = float(answer.duals["normalization"][0])
    pn = answer.duals["_objective/pnorm"]
    k1 = mom.F1.shape[0]
    y1, y0 = -pn[1:1 + k1], -pn[2 + k1:]
    assert pn[0] == pn[1 + k1] == 1.0
    stationarity = mom.F1.T @ y1 + mom.F0.T @ y0 - t * mom.dmu - model.data.pin_scale * N @ answer.duals["null_space"]
    assert np.linalg.norm(stationarity) <= 1e-9 * (np.linalg.norm(mom.F1) + np.linalg.norm(mom.F0))
    # in exact arithmetic F_j N = 0 and dmu^T N = 0, so the pin's multiplier is 0 (the pin does not move the
    # optimum): here it is rounding, as Clarabel's is
    assert np.abs(answer.duals["null_space"]).max() <= 1e-12 * abs(t)
    clarabel = model.solve(backend="clarabel")
    np.testing.assert_allclose(clarabel.dual("null_space"), answer.duals["null_space"], atol=1e-9 * abs(t))
    assert clarabel.dual("normalization") == pytest.approx(t, rel=1e-7)
    sol = model.solve(solver="structured")
    assert sol.verdict == "certified"
    auto = model.solve()
    assert [a.label for a in auto.attempts if a.chosen] == ["structured"] and auto.status == "optimal"


def test_full_rank_data_get_exactly_the_model_of_eq_3():
    """No pin on full-rank data, also when a feature of size 1e6 sits next to a rare binary one (the scale-free
    cut keeps it, where class_moments' default relative cut drops two real directions and changes the optimum)."""
    rng = np.random.default_rng(14)
    n = 400
    X = np.c_[rng.normal(size=(n, 2)) * [1e6, 1.0], (rng.random(n) < 0.02).astype(float), rng.normal(size=n)]
    y = rng.random(n) < 0.4
    X[y, 1] += 1.0
    X[y, 3] += 0.5
    X1, X0 = X[y], X[~y]
    model = mpm(X1, X0)
    assert set(model.constraints) == {"normalization"}
    assert model.data.span is None and model.data.null is None
    # the same conic problem as eq. (3) written directly on the model's moments
    plain = mpm_from_moments(model.data.moments, var_name="w")
    a, b = model.compile().assemble(), plain.compile().assemble()
    assert (a.A != b.A).nnz == 0 and np.array_equal(a.b, b.b) and np.array_equal(a.q, b.q)
    sol = model.solve()
    _certified(sol)
    # (3) is invariant under feature scaling: standardised features give the same optimum
    sd = X.std(axis=0)
    std = mpm(X1 / sd, X0 / sd).solve()
    assert sol.objective == pytest.approx(std.objective, rel=TOL)
    assert class_moments(X1, X0, scale_free=True).rank == 4
    assert class_moments(X1, X0).rank == 2  # the default relative cut (kept for the HP-MPM's coordinates)
    dropped = mpm_from_moments(class_moments(X1, X0)).solve()
    assert dropped.objective > sol.objective * (1 + 1e-3)


def test_data_span_is_scale_free_and_finds_the_exact_null_space():
    rng = np.random.default_rng(15)
    X1, X0, _ = _one_hot_group(rng)
    Xc1 = np.c_[X1, np.full(len(X1), 2.5)]
    Xc0 = np.c_[X0, np.full(len(X0), 2.5)]
    mom = mpm_moments(Xc1, Xc0)
    sizes = np.maximum(np.abs(Xc1).max(0), np.abs(Xc0).max(0))
    span, null = data_span(mom.n1 * mom.Sigma1, mom.n0 * mom.Sigma0, mom.n1, mom.n0, mom.mu1 - mom.mu0, sizes,
                           scale_free=True)
    assert span.shape == (8, 6) and null.shape == (8, 2)
    # the exact null directions: the constant column e_7 and the one-hot sum (columns 2..5) minus... span of both
    exact = np.zeros((8, 2))
    exact[7, 0] = 1.0
    exact[2:6, 1] = 0.5
    np.testing.assert_allclose(null @ (null.T @ exact), exact, atol=1e-12)
    # feature scaling (1e-6 .. 1e6) leaves the rank, and the null space maps by D^{-1}
    D = 10.0 ** rng.uniform(-6, 6, 8)
    moms = mpm_moments(Xc1 * D, Xc0 * D)
    span_s, null_s = data_span(moms.n1 * moms.Sigma1, moms.n0 * moms.Sigma0, moms.n1, moms.n0, moms.mu1 - moms.mu0,
                               sizes * D, scale_free=True)
    assert null_s.shape == (8, 2)
    mapped = np.linalg.qr(exact / D[:, None])[0]
    np.testing.assert_allclose(null_s @ (null_s.T @ mapped), mapped, atol=1e-9)
    assert mpm(Xc1 * D, Xc0 * D).data.null.shape == (8, 2)


@pytest.mark.parametrize("case,scale", [("constant feature", 1e8), ("one-hot group", 1.0), ("one-hot group", 1e8),
                                        ("fewer points than features", 1.0), ("fewer points than features", 1e-8)])
def test_without_the_pin_the_same_data_are_not_certified(case, scale):
    """Why the pin: the same programs without 'null_space' (the model of eq. (3) as written) are not certified by
    any solver certiprog tries; with a constant feature at 1e8 the rounded program even has feasible points far
    below the optimum (the rounding of x̂1 - x̂0 in the free direction makes the normalisation cheap)."""
    X1, X0, _ = CASES[case](np.random.default_rng(11))
    X1, X0 = X1 * scale, X0 * scale
    model = mpm(X1, X0)
    lo, hi = _certified(model.solve())
    model.remove("null_space")
    model.data = MPMData(model.data.moments, "w", model.data.sample)
    sol = model.solve()
    assert sol.status == "unconfirmed"
    ulo, uhi = sol.certification.interval
    assert not (np.isfinite(ulo) and uhi - ulo <= TOL * abs(uhi))
    if case == "constant feature":
        assert uhi < 0.9 * lo  # a "better" point of the rounded, unpinned program: not an optimum of (3)


def test_bad_input_still_raises():
    rng = np.random.default_rng(17)
    X1, X0, _ = _one_hot_group(rng)
    bad = X1.copy()
    bad[3, 2] = np.nan
    with pytest.raises(InputError, match="NaN"):
        mpm(bad, X0)
    bad[3, 2] = np.inf
    with pytest.raises(InputError, match="NaN or inf"):
        mpm(X1, bad)
    with pytest.raises(InputError, match="single sample"):
        mpm(X1[:1], X0)
    with pytest.raises(InputError, match="empty"):
        mpm(X1, X0[:0])
    with pytest.raises(InputError, match="columns"):
        mpm(X1, X0[:, :4])
    with pytest.raises(InputError, match="2-D"):
        mpm(X1[:, 0], X0)
    for tol in (-1e-3, 1.0, np.nan):
        with pytest.raises(InputError, match="rank_tol"):
            mpm(X1, X0, rank_tol=tol)
    # no spread at all and equal means: (3) reads 0 = 1, an infeasible status as before (no pin needed)
    const = np.full((6, 7), 0.3)
    model = mpm(const, const[:4])
    assert set(model.constraints) == {"normalization"}
    assert model.solve().status == "infeasible"
    # each class constant, the means apart: everything but x̂1 - x̂0 is pinned, kappa* = inf
    model = mpm(np.ones((5, 3)), np.zeros((6, 3)))
    assert model.data.null.shape == (3, 2)
    sol = model.solve()
    assert sol.status == "optimal" and model.derived(sol).kappa == np.inf


def test_adult_is_certified():
    """Raw Adult (48 842 x 108, numeric columns unscaled next to one-hot groups): 10 null directions (the groups'
    sums and the like), certified; the same optimum as on standardised features, where the data's rounding is
    smaller (agreement 1e-8 measured)."""
    from certiprog.datasets import load_adult

    try:
        X, y = load_adult()
    except InputError as exc:
        pytest.skip(f"Adult data not available: {exc}")
    X1, X0 = X[y == 1], X[y == -1]
    model = mpm(X1, X0)
    sol = model.solve()
    lo, hi = _certified(sol)
    _pinned(model, sol.value("w"))
    assert model.data.null.shape == (108, 10)
    assert [a.label for a in sol.attempts if a.chosen] == ["structured"]
    sd = X.std(axis=0)
    std = mpm_from_moments(class_moments(X1 / sd, X0 / sd, scale_free=True)).solve()
    _certified(std)
    assert abs(sol.objective - std.objective) <= 1e-6 * std.objective
    # the default relative cut of class_moments drops 48 real directions here: a larger kappa*^{-1}
    assert class_moments(X1, X0).rank == 50 and class_moments(X1, X0, scale_free=True).rank == 98
