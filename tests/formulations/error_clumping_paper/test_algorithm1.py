"""Algorithm 1 of paper 003 (corrected: w-step and feasible start) and the rigorous duality gap of eq. (1).

Checked against an independent dense transcription of the Algorithm box (below, written from docs/derivations/003.md
§2 with the feasible start), against the reference implementation in tests/reference (which starts at xi_1 = 0) and
against eq. (1) solved by CVXPY + Clarabel (tests/reference).
"""
import math

import numpy as np
import pytest

from certiprog.errors import BackendError, CertiprogError, InputError
from certiprog.formulations.error_clumping_paper.algorithm1 import algorithm1
from certiprog.formulations.error_clumping_paper.gap import certified_gap
from certiprog.formulations.error_clumping_paper.programs import error_clumping

from ref_001_003 import build_theta, error_clumping_alg1, ref_error_clumping  # noqa: E402


def data(seed=0, m=60):
    rng = np.random.default_rng(seed)
    X = np.c_[rng.standard_normal((m, 2)), np.ones(m)]
    y = np.sign(X[:, 0] + 0.8 * rng.standard_normal(m))
    y[y == 0] = 1.0
    return X, y


def dense_alg1(X, y, rho, eta, lam, T, c=1.0, seed=0):
    """The Algorithm box, literally and densely: every xi recomputed each step (O(m n) per step)."""
    m, n = X.shape
    Th = build_theta(X, rho, eta)["Theta"].toarray()
    idx = np.random.default_rng(seed).integers(m, size=T)
    w, u, mu = np.zeros(n), np.zeros(n), np.zeros(m)
    g = 1 - y * (X @ w)
    xi = np.maximum(0.0, g)  # feasible start
    ws, xs = np.zeros(n), np.zeros(m)
    for t in range(1, T + 1):
        ws += w
        xs += xi
        I = idx[t - 1]
        th = Th[I] @ xi
        active = xi[I] == g[I] and th > 0
        u = u + lam * w - (th * y[I] * X[I] if active else 0.0)
        if (xi[I] > max(0.0, g[I]) and th > 0) or th < 0:
            mu[I] += th
        step = c / math.sqrt(t)
        w = -step * u
        g = 1 - y * (X @ w)
        xi = np.maximum(np.maximum(-step * mu, g), 0.0)
    return ws / T, xs / T


@pytest.mark.parametrize("eta", [0.0, 0.5, 1.0])
def test_matches_the_dense_transcription_exactly(eta):
    X, y = data(1, 50)
    T = 1500
    w_ref, xi_ref = dense_alg1(X, y, 1.0, eta, 0.1, T)
    for block in (None, 1, 13):  # the blocked exact average of xi does not depend on the block size
        res = algorithm1(X, y, 1.0, eta, 0.1, passes=T / 50, c=1.0, seed=0, block=block)
        np.testing.assert_allclose(res.w, w_ref, rtol=0, atol=1e-12)
        np.testing.assert_allclose(res.xi, xi_ref, rtol=0, atol=1e-11)
        assert res.steps == T and res.passes == pytest.approx(T / 50)


def test_converges_and_the_gap_brackets_the_optimum():
    X, y = data(0)
    ref = ref_error_clumping(X, y, 1.0, 0.5, 0.1)
    opt = ref["objective"]
    short = algorithm1(X, y, 1.0, 0.5, 0.1, passes=10, c=1.0, seed=3)
    long = algorithm1(X, y, 1.0, 0.5, 0.1, passes=200, c=1.0, seed=3)
    for res in (short, long):
        assert res.gap.lower <= opt + 1e-7 and opt - 1e-7 <= res.gap.upper  # rigorous bracket (+ Clarabel's tol)
        assert res.objective >= opt - 1e-7  # feasible average: never below the optimum
        g = 1 - y * (X @ res.w)
        assert np.all(res.xi >= -1e-12) and np.all(res.xi >= g - 1e-9)  # feasible start -> feasible average
    assert long.objective - opt < 0.2 * (short.objective - opt)
    assert long.objective - opt < 1e-3 * opt
    assert long.gap.gap < short.gap.gap and long.gap.verdict in ("bounded", "certified")
    # the reference (printed start xi_1 = 0) reaches the same neighbourhood of the optimum
    r = error_clumping_alg1(X, y, 1.0, 0.5, 0.1, T=long.steps, seed=3)
    assert abs(r["objective"] - long.objective) < 1e-3 * opt
    assert not r["feasible"]  # its average is infeasible by ~1/T (claim 003-init); ours is feasible


@pytest.mark.parametrize("scale", [1e-4, 1.0, 100.0, 1e4])
def test_default_step_is_stable_at_every_scale(scale):
    """c = None gives min(1, 1/(lam + max ||x||^2)): no step overshoots in either block, whatever the scale of X."""
    X, y = data(5, 40)
    Xs = scale * X
    opt = ref_error_clumping(X, y, 1.0, 0.5, 0.1)["objective"]  # the same problem: w -> w/scale, lam -> lam scale^2
    res = algorithm1(Xs, y, scale, 0.5, 0.1 * scale**2, passes=30, seed=0)
    assert res.c == pytest.approx(min(1.0, 1 / (0.1 * scale**2 + np.max(np.sum(Xs**2, axis=1)))))
    assert np.isfinite(res.objective) and res.gap.lower <= opt * (1 + 1e-6) and opt <= res.gap.upper * (1 + 1e-6)
    assert res.history[-1]["objective"] < res.history[0]["objective"]


def test_divergence_is_reported():
    X, y = data(5, 40)
    with pytest.raises(BackendError, match="diverged"):
        algorithm1(100 * X, y, 100.0, 0.5, 0.1, passes=30, c=1.0, seed=0)


def test_history_per_pass_and_seeding(capsys):
    X, y = data(2, 40)
    a = algorithm1(X, y, 0.8, 0.3, 0.05, passes=5, seed=7)
    b = algorithm1(X, y, 0.8, 0.3, 0.05, passes=5, seed=np.random.default_rng(7))
    c = algorithm1(X, y, 0.8, 0.3, 0.05, passes=5, seed=8)
    assert [h["pass"] for h in a.history] == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert all(h["gap"] >= 0 and h["lower"] <= h["objective"] <= h["upper"] for h in a.history)
    assert a.history[-1]["objective"] == pytest.approx(a.objective, rel=1e-12)
    np.testing.assert_array_equal(a.w, b.w)
    assert not np.array_equal(a.w, c.w)
    partial = algorithm1(X, y, 0.8, 0.3, 0.05, passes=2.5, seed=7)
    assert [h["pass"] for h in partial.history] == [1.0, 2.0, 2.5]
    assert capsys.readouterr().err == ""  # the progress bar is quiet off a terminal


@pytest.mark.parametrize("eta", [0.0, 0.7, 1.0])
def test_certified_gap_at_clarabel_and_at_poor_points(eta):
    X, y = data(4, 80)
    model = error_clumping(X, y, 1.2, eta, 0.1)
    sol = model.solve()
    d = model.data
    opt = ref_error_clumping(X, y, 1.2, eta, 0.1)["objective"]
    G = certified_gap(X, y, d.A, eta, 0.1, sol.value("w"), sol.value("xi"))
    assert G.verdict == "certified" and G.lower <= opt + 1e-8 <= G.upper + 2e-8 and G.rel_gap < 1e-6
    assert G.lower <= G.objective <= G.upper
    rng = np.random.default_rng(0)
    for w, xi in ((np.zeros(3), np.zeros(80)), (rng.standard_normal(3), rng.random(80))):
        P = certified_gap(X, y, d.A, eta, 0.1, w, xi)
        assert P.lower <= opt <= P.upper and P.verdict in ("bounded", "failed")
    assert certified_gap(X, y, d.A, eta, 0.1, sol.value("w")).verdict == "certified"  # xi from w alone


def test_bad_input_raises_certiprog_errors():
    X, y = data(0, 30)
    with pytest.raises(InputError, match="eta must lie"):
        algorithm1(X, y, 1.0, 1.2, 0.1, passes=1)
    with pytest.raises(InputError, match="eta must lie"):
        algorithm1(X, y, 1.0, -0.5, 0.1, passes=1)
    for rho in (0.0, -1.0):
        with pytest.raises(InputError, match="rho"):
            algorithm1(X, y, rho, 0.5, 0.1, passes=1)
    with pytest.raises(InputError, match="one class"):
        algorithm1(X, np.ones(30), 1.0, 0.5, 0.1, passes=1)
    with pytest.raises(InputError, match="0 columns"):
        algorithm1(np.zeros((30, 0)), y, 1.0, 0.5, 0.1, passes=1)
    Xn = X.copy()
    Xn[0, 0] = np.inf
    with pytest.raises(CertiprogError, match="NaN or inf"):
        algorithm1(Xn, y, 1.0, 0.5, 0.1, passes=1)
    with pytest.raises(InputError, match="passes"):
        algorithm1(X, y, 1.0, 0.5, 0.1, passes=0)


def test_convergence_figure(tmp_path):
    from certiprog.formulations.error_clumping_paper.plots import convergence_data, plot_convergence

    X, y = data(6, 60)
    d = convergence_data(X, y, 1.0, 0.5, 0.1, passes=20, seed=0, solvers=("algorithm1", "clarabel"), c=1.0)
    a, cl = d["algorithm1"], d["clarabel"]
    assert len(a["passes"]) == 20 and cl["certificate"]["verdict"] == "certified"
    assert d["lower"] == max(a["certificate"]["lower"], cl["certificate"]["lower"])
    assert all(o >= d["lower"] for o in a["objective"]) and a["objective"][-1] < a["objective"][0]
    fig = plot_convergence(d, tmp_path / "alg1.png")
    assert (tmp_path / "alg1.png").stat().st_size > 10_000 and len(fig.axes) == 2
    with pytest.raises(InputError, match="solvers"):
        convergence_data(X, y, 1.0, 0.5, 0.1, solvers=("sgd",))
