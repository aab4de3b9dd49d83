"""Paper 001 (MCP) formulation: exact robust counterpart vs the CVXPY reference on both backends, cutting
planes vs exact within the certified brackets (Cor. 3 / Cor. 5), iteration bounds (Cor. 2, corrected Cor. 4,
Thm. 1 / Thm. 2 per iteration), degenerate manifolds and bad inputs. See docs/derivations/001.md."""
import math
import os
import sys

import cvxpy as cp
import numpy as np
import pytest

from certiprog.errors import InputError
from certiprog.formulations.mcp import achieved_violation, manifold_margins, manifold_norm_bound, mcp, mcp_bracket, mcp_iteration_bound

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference"))
from ref_001_003 import manifold_norm_bound as ref_norm_bound  # noqa: E402
from ref_001_003 import ref_mcp_exact  # noqa: E402

BACKENDS = ["clarabel", "cvxpy"]
QS = [1.0, 1.5, 2.0, 3.0, math.inf]
SOLVER_TOL = 1e-6  # interior-point slack in bracket checks (doc 001, notes for implementers)


def rel(a, b):
    return abs(a - b) / max(1.0, abs(b))


def ellipsoids(seed, P, N, D, R0):
    """001 Sec. 4.1 generator (as in the reference tests)."""
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((P, N))
    U = rng.standard_normal((P, N, D)) / np.sqrt(N)
    r = rng.uniform(0.5 * R0, 1.5 * R0, (P, D))
    y = np.where(np.arange(P) % 2 == 0, 1.0, -1.0)
    return c, U, r, y


HARD = dict(seed=3, P=6, N=20, D=4, R0=2.0)   # separable manifolds
SLACK = dict(seed=1, P=8, N=10, D=4, R0=3.0)  # manifolds overlap: xi* != 0, F* > P C (doc 001 §4 item 3)


# ------------------------------------------------------------------ exact form vs reference
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("q", QS)
def test_exact_matches_cvxpy_reference(backend, q):
    for inst, C in ((HARD, None), (SLACK, 1.0)):
        c, U, r, y = ellipsoids(**inst)
        model = mcp(c, U, r, y, q=q, C=C)
        sol = model.solve(backend=backend)
        ref = ref_mcp_exact(c, U, r, y, q=q, C=C)
        assert sol.status == "optimal" and ref["status"] == cp.OPTIMAL
        assert rel(sol.objective, ref["objective"]) <= 1e-6, (q, C, sol.objective, ref["objective"])
        d = model.derived(sol)
        assert d["margin"] == pytest.approx(1 / np.linalg.norm(sol.value("w")))
        if C is None:
            assert set(d) == {"margin", "w_norm2"}  # exact hard margin: only the margin
            assert sol.objective == pytest.approx(0.5 * d["w_norm2"], rel=1e-9, abs=1e-12)
        else:
            assert np.max(d["xi"]) > 0.1  # the slack instance is not separable
            assert np.all(d["manifold_margins"] + d["xi"] >= 1 - 1e-6)
            assert np.all(y * (c @ sol.value("w")) >= 1 - 1e-6)  # center constraints
    assert list(model.constraints) == [f"manifold{p}" for p in range(8)] + [f"center{p}" for p in range(8)] + ["xi>=0"]
    assert set(model.variables) == {"w", "xi"}


def test_list_inputs_with_different_intrinsic_dimensions():
    c, U, r, y = ellipsoids(**HARD)
    bases = [U[p][:, : 1 + p % 4] for p in range(len(c))]
    radii = [r[p][: 1 + p % 4] for p in range(len(c))]
    sol = mcp(c, bases, radii, y, q=2).solve()
    # independent CVXPY model of the robust counterpart
    w = cp.Variable(c.shape[1])
    cons = [y[p] * c[p] @ w - cp.norm(cp.multiply(radii[p], bases[p].T @ w)) >= 1 for p in range(len(c))]
    ref = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w)), cons)
    ref.solve(solver=cp.CLARABEL)
    assert rel(sol.objective, ref.value) <= 1e-6


def test_point_manifolds_reduce_to_svm_on_centers():
    """Zero radii are allowed: the manifold is its center (rank-deficient bases are fine too)."""
    c, U, _, y = ellipsoids(**HARD)
    U[:, :, 1] = U[:, :, 0]  # rank-deficient basis
    r = np.zeros((len(c), U.shape[2]))
    model = mcp(c, U, r, y, q=2)
    sol = model.solve()
    w = cp.Variable(c.shape[1])
    ref = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w)), [cp.multiply(y, c @ w) >= 1])
    ref.solve(solver=cp.CLARABEL)
    assert rel(sol.objective, ref.value) <= 1e-6
    cut = model.solve(forall="cutting_plane", tol=1e-6)
    assert cut.info["termination"] == "converged" and len(cut.history) == 1  # the centers are the first cuts


# ------------------------------------------------------------------ cutting planes: Cor. 2, Cor. 3, Thm. 1
@pytest.mark.parametrize("q", QS)
@pytest.mark.parametrize("delta", [0.2, 0.05])
def test_hard_margin_cutting_planes_bracket_and_iterations(q, delta):
    c, U, r, y = ellipsoids(**HARD)
    P = len(c)
    model = mcp(c, U, r, y, q=q)
    exact = model.solve()
    F_star = exact.objective
    L = manifold_norm_bound(c, U, r, q)
    assert L == pytest.approx(ref_norm_bound(c, U, r, q))
    for cuts in ("worst", "all"):
        sol = model.solve(forall="cutting_plane", tol=delta, cuts=cuts, max_iter=1000)
        assert sol.info["termination"] == "converged"
        lo, hi = mcp_bracket(sol, delta)
        # Cor. 3: ||w_MCP||^2 <= ||w*||^2 <= ||w_MCP||^2 / (1 - delta)^2 (same factor on 1/2||w||^2)
        assert lo <= F_star * (1 + SOLVER_TOL) and F_star <= hi * (1 + SOLVER_TOL)
        assert hi == pytest.approx(sol.objective / (1 - delta) ** 2)
        # termination: w_MCP / (1 - delta) is feasible for (2.1)
        wv = sol.value("w")
        assert np.all(manifold_margins(wv / (1 - delta), model) >= 1 - 1e-6)
        # Cor. 2 (lost fraction restored): K < L^2 ||w*||^2 / delta^2 = 2 L^2 F* / delta^2
        bound = mcp_iteration_bound(sol, delta, L, F_star=F_star)
        assert bound == pytest.approx(2 * L ** 2 * F_star / delta ** 2)
        n_added = sum(len(v) for v in sol.cuts.values()) - P
        K = n_added if cuts == "worst" else len(sol.history) - 1
        assert K < bound
        if cuts == "worst":
            assert n_added == len(sol.history) - 1
            # Thm. 1 per iteration: ||w_{k+1}||^2 - ||w_k||^2 >= delta_k^2 / L^2 (delta_k = the worst violation)
            h = sol.history
            for a, b in zip(h[:-1], h[1:]):
                assert 2 * (b["objective"] - a["objective"]) >= a["max_violation"] ** 2 / L ** 2 - 1e-6
        d = model.derived(sol)
        assert d["max_violation"] == pytest.approx(achieved_violation(sol))
        assert d["max_violation"] <= delta + 1e-9 and d["bracket"][0] == sol.objective
        assert d["bracket"][1] <= hi + 1e-12  # the achieved violation gives a tighter certificate


# ------------------------------------------------------------------ cutting planes: Cor. 4, Cor. 5, Thm. 2
@pytest.mark.parametrize("q,C", [(1.0, 1.0), (1.5, 1.0), (2.0, 1.0), (2.0, 0.1), (3.0, 10.0), (math.inf, 1.0)])
def test_slack_cutting_planes_bracket_and_iterations(q, C):
    c, U, r, y = ellipsoids(**SLACK)
    P = len(c)
    delta = 0.05
    model = mcp(c, U, r, y, q=q, C=C)
    F_star = model.solve().objective
    L = manifold_norm_bound(c, U, r, q)
    sol = model.solve(forall="cutting_plane", tol=delta, cuts="worst", max_iter=2000)
    assert sol.info["termination"] == "converged"
    lo, hi = mcp_bracket(sol, delta, C=C)
    assert (lo, hi) == mcp_bracket(sol, delta, C=C, P=P)
    # Cor. 5 / eq. (3.30): F_MCP <= F* <= F_MCP + P C delta
    assert lo <= F_star * (1 + SOLVER_TOL) + SOLVER_TOL
    assert F_star <= hi + SOLVER_TOL
    assert hi == pytest.approx(sol.objective + P * C * delta)
    # xi_MCP + delta is feasible; the centers hold exactly
    wv, xv = sol.value("w"), sol.value("xi")
    assert np.all(manifold_margins(wv, model) + xv + delta >= 1 - 1e-6)
    assert np.all(y * (c @ wv) >= 1 - 1e-6)
    # Thm. 2 per iteration: F_{k+1} - F_k >= min(delta_k^2 / (8 L^2), C delta_k / 2)
    h = sol.history
    for a, b in zip(h[:-1], h[1:]):
        dk = a["max_violation"]
        assert b["objective"] - a["objective"] >= min(dk ** 2 / (8 * L ** 2), C * dk / 2) - 1e-6
    # Cor. 4 as corrected in doc 001 §4 item 3: K <= (F* - F_1) max(8 L^2/delta^2, 2/(C delta))
    K = sum(len(v) for v in sol.cuts.values()) - P
    bound = mcp_iteration_bound(sol, delta, L, C=C, F_star=F_star)
    F1 = h[0]["objective"]
    assert bound == pytest.approx((F_star - F1) * max(8 * L ** 2 / delta ** 2, 2 / (C * delta)))
    assert K <= bound
    # without F_star the bracket's upper end stands in (looser, still valid)
    assert mcp_iteration_bound(sol, delta, L, C=C) >= bound * (1 - 1e-9)


def test_cor4_printed_proof_step_fails_with_centers():
    """F* > P C on this instance: the printed Cor. 4 proof (w=0, xi=1 feasible) ignores the centers."""
    c, U, r, y = ellipsoids(**SLACK)
    assert mcp(c, U, r, y, q=2, C=1.0).solve().objective > len(c) * 1.0


def test_bracket_rejects_delta_below_achieved_violation():
    c, U, r, y = ellipsoids(**HARD)
    model = mcp(c, U, r, y, q=2)
    sol = model.solve(forall="cutting_plane", tol=0.2, cuts="worst")
    viol = sol.info["max_violation"]
    assert 0 < viol <= 0.2
    with pytest.raises(InputError, match="achieved worst violation"):
        mcp_bracket(sol, viol / 2)
    with pytest.raises(InputError, match="delta < 1"):
        mcp_bracket(model.solve(), 1.0)  # exact solution: no recorded violation, but Cor. 3 needs delta < 1
    with pytest.raises(InputError, match="C must lie"):
        mcp_bracket(sol, 0.2, C=-1.0)


def test_bracket_of_an_unfinished_run_at_its_achieved_violation():
    """Stopped by max_iter, MCP still certifies F* within [F_k, F_k + P C delta_k] at its own violation."""
    c, U, r, y = ellipsoids(**SLACK)
    model = mcp(c, U, r, y, q=2, C=1.0)
    F_star = model.solve().objective
    sol = model.solve(forall="cutting_plane", tol=1e-9, max_iter=3, cuts="worst")
    assert sol.status == "iteration_limit"
    viol = achieved_violation(sol)
    assert model.derived(sol)["max_violation"] == pytest.approx(viol)
    assert viol > 1e-3
    lo, hi = mcp_bracket(sol, viol, C=1.0)
    assert lo <= F_star * (1 + SOLVER_TOL) and F_star <= hi + SOLVER_TOL


# ------------------------------------------------------------------ bad inputs
def test_bad_inputs():
    c, U, r, y = ellipsoids(**HARD)
    with pytest.raises(InputError, match="bases describes"):
        mcp(c, U[:-1], r, y)
    with pytest.raises(InputError, match="radii describes"):
        mcp(c, U, r[:-1], y)
    with pytest.raises(InputError, match="rows"):
        mcp(c, U[:, :-1, :], r, y)
    with pytest.raises(InputError, match="radii\\[0\\] has 3 entries"):
        mcp(c, U, r[:, :3], y)
    with pytest.raises(InputError, match="labels has 5 entries"):
        mcp(c, U, r, y[:-1])
    with pytest.raises(InputError, match="q must be >= 1"):
        mcp(c, U, r, y, q=0.5)
    with pytest.raises(InputError, match="q must be"):
        mcp(c, U, r, y, q=float("nan"))
    with pytest.raises(InputError, match="labels must be \\+1 or -1"):
        mcp(c, U, r, np.arange(len(c)))
    bad = r.copy()
    bad[2, 1] = -0.1
    with pytest.raises(InputError, match="negative"):
        mcp(c, U, bad, y)
    bad[2, 1] = np.nan
    with pytest.raises(InputError, match="NaN"):
        mcp(c, U, bad, y)
    Ub = U.copy()
    Ub[0, 0, 0] = np.inf
    with pytest.raises(InputError, match="NaN or inf"):
        mcp(c, Ub, r, y)
    cb = c.copy()
    cb[1, 1] = np.nan
    with pytest.raises(InputError, match="NaN"):
        mcp(cb, U, r, y)
    for C in (0.0, -1.0, np.inf):
        with pytest.raises(InputError, match="C must lie"):
            mcp(c, U, r, y, C=C)
    with pytest.raises(InputError, match="point manifold"):
        mcp(c, [np.zeros((c.shape[1], 0))] * len(c), [np.zeros(0)] * len(c), y)
    with pytest.raises(InputError, match="\\(P, N, D\\)"):
        mcp(c, U[0], r, y)
