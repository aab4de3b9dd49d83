"""Hole punching (paper 003, Sec. 5.2): the ball search against the reference step (tests/reference) and brute
force, innermost routing, the stall the audit found (claim 003-hp) and how it is handled, the loop's guarantees."""
import numpy as np
import pytest
from ref_001_003 import hole_punch_ball  # noqa: E402

from certiprog.errors import InputError
from certiprog.formulations.error_clumping_paper.hole_punching import (
    _CentreDistances,
    ball_distances,
    find_hole,
    hole_punching,
    next_hole,
    route,
)
from certiprog.formulations.error_clumping_paper.programs import neighbourhood_graph


def brute_hole(X, err, owner_radius, c, min_size=1):
    """Every candidate radius, the would-be set built literally (innermost rule: j joins iff d_j <= r <= o_j)."""
    d = np.linalg.norm(X - X[c], axis=1)
    best = None
    for r in np.unique(d):
        take = (d <= r) & (owner_radius >= r)
        if take.sum() >= min_size and 2 * err[take].sum() > take.sum():
            best = (r, take)
    return best


@pytest.mark.parametrize("seed", range(6))
def test_first_round_matches_the_reference_step(seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((80, 2))
    err = rng.random(80) < 0.3 + 0.1 * seed
    A = neighbourhood_graph(X, 0.6)
    ref = hole_punch_ball(X, np.ones(80), np.where(err, -1.0, 1.0), 0.6)
    counts = A @ err.astype(float)
    c_ref = int(np.argmax(counts))
    mine = find_hole(X, err, np.full(80, np.inf), c_ref)
    if ref is None:
        assert mine is None
    else:
        assert mine[0] == ref["radius"] and np.array_equal(mine[1], ref["inside"])
    nxt = next_hole(X, err, A, np.full(80, -1), [], 50)
    assert counts[nxt[0]] == counts.max()  # the paper's centre rule (ties: a misclassified point first)
    if ref is not None and nxt[0] == c_ref:
        assert nxt[1] == ref["radius"] and nxt[3] == 1


@pytest.mark.parametrize("seed", range(8))
def test_radius_search_with_existing_holes_matches_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    X = rng.standard_normal((60, 2))
    X[:5] = X[5]  # duplicates: ties in distance
    err = rng.random(60) < 0.45
    owner_r = np.where(rng.random(60) < 0.4, rng.choice([0.3, 0.7, 1.2], 60), np.inf)
    for c in range(0, 60, 7):
        for size in (1, 3):
            got, want = find_hole(X, err, owner_r, c, size), brute_hole(X, err, owner_r, c, size)
            assert (got is None) == (want is None)
            if got is not None:
                assert got[0] == want[0] and np.array_equal(got[1], want[1])


def test_the_stall_and_how_it_is_handled():
    """Claim 003-hp: x = -1, -0.5, 0, 0.5, 1 with errors at both ends, rho = 1. The paper's centre (x = 0, two erring
    neighbours) has no ball that is > 50 % wrong (0/1, 0/3, 2/5): the paper's loop stops although errors exist. We
    try the next centres; the misclassified end points' radius-0 balls are 100 % wrong, so a hole is punched."""
    X = np.array([[-1.0], [-0.5], [0.0], [0.5], [1.0]])
    err = np.array([True, False, False, False, True])
    A = neighbourhood_graph(X, 1.0)
    assert int(np.argmax(A @ err.astype(float))) == 2
    assert find_hole(X, err, np.full(5, np.inf), 2) is None
    assert hole_punch_ball(X, np.ones(5), np.where(err, -1.0, 1.0), 1.0) is None  # the reference stalls too
    c, r, take, tries, nb = next_hole(X, err, A, np.full(5, -1), [], max_center_tries=1)
    assert c in (0, 4) and r == 0.0 and take.sum() == 1 and err[take].all() and tries >= 2
    # when no ball can take enough points, no hole helps and the search says so
    assert next_hole(X, err, A, np.full(5, -1), [], max_center_tries=5, min_hole_size=2) is None


def test_loop_stops_honestly_when_no_hole_helps():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((60, 2))
    y = np.where(X[:, 0] + 0.7 * rng.standard_normal(60) > 0, 1.0, -1.0)
    res = hole_punching(X, y, 5, 0.7, 0.5, 0.05, min_hole_size=61)
    assert res.holes == [] and res.stop_reason.startswith("no hole helps") and res.history[0]["n_errors"] > 0
    with pytest.raises(InputError):
        hole_punching(X, y, 2, 0.7, 0.5, 0.05, max_center_tries=0)


def test_innermost_routing():
    centers = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [5.0, 5.0]])
    radii = np.array([2.0, 0.5, 0.5, 0.5])
    P = np.array([[0.0, 0.1], [1.6, 0.0], [1.2, 0.0], [0.0, 1.9], [9.0, 9.0], [5.0, 5.5]])
    np.testing.assert_array_equal(route(P, centers, radii), [1, 0, 2, 0, -1, 3])
    # equal radii: the later hole wins
    np.testing.assert_array_equal(route(np.array([[0.5, 0.0]]), centers[[1, 2]], radii[[1, 2]]), [1])


def test_loop_guarantees_on_clumped_errors(capsys):
    """Labels flipped in two discs: holes find them, every round lowers the training error, the training routing
    is the prediction routing, and each hole took > 50 % misclassified points."""
    rng = np.random.default_rng(7)
    X = rng.uniform(-2, 2, size=(250, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    for c in ([1.0, 1.0], [-1.0, -1.0]):
        y[np.linalg.norm(X - c, axis=1) < 0.5] *= -1
    res = hole_punching(X, y, 6, 0.4, 0.5, 0.01, augment=lambda Z: np.c_[Z, np.ones(len(Z))])
    errs = [h["n_errors"] for h in res.history]
    assert len(res.holes) >= 2 and all(b < a for a, b in zip(errs, errs[1:]))
    np.testing.assert_array_equal(route(X, res.centers, res.radii), res.train_route)
    Xa = np.c_[X, np.ones(len(X))]
    assert int(np.sum(np.where(res.decision(Xa) > 0, 1.0, -1.0) != y)) == errs[-1]
    for h in res.holes:
        assert 2 * h["errors_before"] > h["n_points"] and h["errors_after"] < h["errors_before"]
    # the two flipped discs are found: some hole centre lies in each
    for c in ([1.0, 1.0], [-1.0, -1.0]):
        assert np.min(np.linalg.norm(res.centers - c, axis=1)) < 0.6
    assert errs[-1] < 0.5 * errs[0]
    assert capsys.readouterr().err == ""  # the progress bar over rounds is quiet off a terminal


def test_disjoint_holes_mode():
    """disjoint_holes=True: every new ball misses the earlier ones (closed balls: distance > r_i + r_j), the
    training error still falls each round, and the radius search with a cap matches brute force."""
    rng = np.random.default_rng(7)
    X = rng.uniform(-2, 2, size=(250, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    for c in ([1.0, 1.0], [-1.0, -1.0]):
        y[np.linalg.norm(X - c, axis=1) < 0.5] *= -1
    res = hole_punching(X, y, 6, 0.4, 0.5, 0.01, augment=lambda Z: np.c_[Z, np.ones(len(Z))], disjoint_holes=True)
    C, r = res.centers, res.radii
    assert len(r) >= 2
    assert all(np.linalg.norm(C[i] - C[j]) > r[i] + r[j] for i in range(len(r)) for j in range(i))
    errs = [h["n_errors"] for h in res.history]
    assert all(b < a for a, b in zip(errs, errs[1:]))
    np.testing.assert_array_equal(route(X, C, r), res.train_route)
    err = rng.random(250) < 0.4
    for c in range(0, 250, 31):
        for cap in (0.3, 1.0):
            got = find_hole(X, err, np.full(250, np.inf), c, 1, cap)
            d = np.linalg.norm(X - X[c], axis=1)
            ok = [q for q in np.unique(d) if q < cap and 2 * err[d <= q].sum() > (d <= q).sum()]
            assert (got is None) == (not ok) and (got is None or got[0] == max(ok))


@pytest.mark.parametrize("order", ["C", "F", "view"])
def test_ball_distances_are_numpys_norm_bit_for_bit(order):
    """The blocked distances are exactly np.linalg.norm(X - c, axis=1) (the radii and routing depend on them)."""
    rng = np.random.default_rng(7)
    X = rng.standard_normal((1500, 300)) * 10.0 ** rng.integers(-3, 4, size=(1500, 1))
    if order == "F":
        X = np.asfortranarray(X)
    elif order == "view":
        X = np.hstack([X, np.ones((1500, 1))])[:, :300]
    c = X[17]
    np.testing.assert_array_equal(ball_distances(X, c), np.linalg.norm(X - c[None, :], axis=1))


@pytest.mark.parametrize("seed", range(3))
def test_cached_centre_distances_give_the_same_holes(seed):
    """find_hole with the distances kept across rounds (tiny cache: entries dropped and recomputed) = without."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((120, 3))
    X[:119:7] = X[1::7]  # duplicate points: equal distances
    err = rng.random(120) < 0.4
    owner_r = np.where(rng.random(120) < 0.3, rng.random(120), np.inf)
    cache = _CentreDistances(X, max_bytes=3 * 8 * 120 * 4)
    for c in list(range(0, 120, 3)) * 2:
        got, want = find_hole(X, err, owner_r, c, 1, np.inf, cache), find_hole(X, err, owner_r, c)
        assert (got is None) == (want is None)
        if got is not None:
            assert got[0] == want[0]
            np.testing.assert_array_equal(got[1], want[1])
    assert len(cache.entries) == 4


def test_staged_decisions_equal_the_truncated_predictors():
    """Built hole by hole, the staged values are each truncation's decision (the same routing, bit for bit)."""
    rng = np.random.default_rng(3)
    X = np.concatenate([rng.normal(0, 1, (150, 2)), rng.normal(2, 0.3, (50, 2))])
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(200) > 1.0, 1.0, -1.0)
    y[150:175] *= -1
    aug = lambda Z: np.hstack([Z, np.ones((Z.shape[0], 1))])  # noqa: E731
    res = hole_punching(X, y, 6, 0.5, 0.5, 0.01, augment=aug)
    assert len(res.holes) >= 2
    Xt = aug(rng.normal(1, 1.5, (400, 2)))
    Xt[:len(res.holes)] = aug(res.centers)  # points on the centres and ...
    Xt[-1, :2] = res.centers[0] + np.array([res.radii[0], 0.0])  # ... on a ball's boundary
    staged = list(res.staged_decisions(Xt))
    assert len(staged) == len(res.holes) + 1
    for r, dec in enumerate(staged):  # the pieces' values as BLAS gives them on other row subsets: equal to ulps
        want = res.truncated(r).decision(Xt)
        np.testing.assert_allclose(dec, want, rtol=1e-13, atol=1e-15)
        np.testing.assert_array_equal(dec > 0, want > 0)


# ---------------------------------------------------------------- the radius rule's threshold, validated holes
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("frac", [0.5, 0.3, 0.15])
def test_error_fraction_matches_brute_force(seed, frac):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((70, 2))
    err = rng.random(70) < 0.2
    o_r = np.where(rng.random(70) < 0.2, rng.random(70), np.inf)
    for c in range(0, 70, 7):
        d = np.linalg.norm(X - X[c], axis=1)
        best = None
        for r in np.unique(d):
            take = (d <= r) & (o_r >= r)
            if take.sum() >= 3 and err[take].sum() > frac * take.sum():
                best = (r, take)
        mine = find_hole(X, err, o_r, c, 3, error_fraction=frac)
        assert (mine is None) == (best is None)
        if best is not None:
            assert mine[0] == best[0] and np.array_equal(mine[1], best[1])


def _two_blobs(seed, m=300):
    """A linear problem with a blob of flipped labels: a hole with its own linear classifier pays off."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(m, 2))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(m) > 0, 1.0, -1.0)
    blob = np.linalg.norm(X - [1.0, 1.0], axis=1) < 0.8
    y[blob] = np.where(X[blob, 1] > 1.0, 1.0, -1.0)
    return X, y


def test_validated_holes_choose_by_validation_and_lower_errors():
    X, y = _two_blobs(0, 400)
    Xv, yv = _two_blobs(1, 200)
    aug = lambda Z: np.c_[Z, np.ones(len(Z))]  # noqa: E731
    res = hole_punching(X, y, 3, 0.4, 0.0, 0.01, augment=aug, min_hole_size=10, hole_lams=[1e-3, 1e-1, 10.0],
                        validation=(Xv, yv))
    assert len(res.holes) >= 1
    for h in res.holes:
        assert "validation_points" in h and h["validation_errors_after"] <= h["validation_points"]
        if h["kind"] == "error_clumping":
            assert h["lam"] in (1e-3, 1e-1, 10.0)
    # the chosen hole classifier is the best of the candidates on the validation points the ball takes
    h0 = res.holes[0]
    owner0 = ball_distances(Xv, res.centers[0]) <= res.radii[0]
    pred = np.where(aug(Xv[owner0]) @ res.hole_w[0] > 0, 1.0, -1.0) if h0["kind"] == "error_clumping" else \
        np.full(owner0.sum(), h0["constant"])
    assert int((pred != yv[owner0]).sum()) == h0["validation_errors_after"]
    for lam_h in (1e-3, 1e-1, 10.0):
        from certiprog.formulations.error_clumping_paper.learner import fit_error_clumping

        take = ball_distances(X, res.centers[0]) <= res.radii[0]
        w = fit_error_clumping(aug(X[take]), y[take], 0.4, 0.0, lam_h).w
        alt = int((np.where(aug(Xv[owner0]) @ w > 0, 1.0, -1.0) != yv[owner0]).sum())
        assert h0["validation_errors_after"] <= alt
    # test error goes down with the validated holes
    Xt, yt = _two_blobs(2, 2000)
    errs = [np.mean(np.where(d > 0, 1.0, -1.0) != yt) for d in res.staged_decisions(aug(Xt))]
    assert errs[-1] < errs[0] - 0.02
    # below 0.5 no ball is punched twice (the same centre and radius would take the same points)
    low = hole_punching(X, y, 3, 0.4, 0.0, 0.01, augment=aug, error_fraction=0.3, min_hole_size=10,
                        hole_lams=[1e-3, 1e-1, 10.0], validation=(Xv, yv))
    balls = [(h["center_index"], float(r)) for h, r in zip(low.holes, low.radii)]
    assert len(set(balls)) == len(balls) == 3


def test_hole_options_bad_input():
    X, y = _two_blobs(0, 60)
    for frac in (-0.1, 1.0, float("nan")):
        with pytest.raises(InputError, match="error_fraction"):
            hole_punching(X, y, 2, 0.4, 0.0, 0.01, error_fraction=frac)
    for lams in ([], [0.0], [float("nan")], [-1.0]):
        with pytest.raises(InputError, match="hole_lams"):
            hole_punching(X, y, 2, 0.4, 0.0, 0.01, hole_lams=lams)
    with pytest.raises(InputError, match="validation"):
        hole_punching(X, y, 2, 0.4, 0.0, 0.01, validation=(X[:, :1], y))
    with pytest.raises(InputError, match="validation"):
        hole_punching(X, y, 2, 0.4, 0.0, 0.01, validation=(np.full_like(X, np.nan), y))
    from certiprog.estimators import HolePunchingClassifier

    with pytest.raises(InputError):
        HolePunchingClassifier(rho=0.4, error_fraction=1.5).fit(X, y)
    with pytest.raises(InputError):
        HolePunchingClassifier(rho=0.4, hole_lams=[]).fit(X, y)
    with pytest.raises(InputError, match="X_val"):
        HolePunchingClassifier(rho=0.4).fit(X, y, X_val=X)
    with pytest.raises(InputError, match="labels"):
        HolePunchingClassifier(rho=0.4).fit(X, y, X_val=X, y_val=np.full(len(y), 7.0))


def test_estimator_with_validation_and_dmax_roundtrip(tmp_path):
    from certiprog.estimators import HolePunchingClassifier

    X, y = _two_blobs(3, 300)
    Xv, yv = _two_blobs(4, 150)
    est = HolePunchingClassifier(n_holes=3, rho=0.4, eta=0.5, lam=0.01, normalisation="dmax", error_fraction=0.3,
                                 min_hole_size=10, hole_lams=[1e-2, 1.0]).fit(X, y, X_val=Xv, y_val=yv)
    assert est.verdict_ == "certified" and est.n_holes_ >= 1
    est.save(tmp_path / "hp")
    back = HolePunchingClassifier.load(tmp_path / "hp")
    assert back.get_params()["normalisation"] == "dmax"
    np.testing.assert_array_equal(back.predict(Xv), est.predict(Xv))
