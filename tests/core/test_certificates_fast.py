"""The fast paths of the optimality interval (issue 15): the SOC ball for many unbounded columns, the Gram /
Cholesky proof of lambda_min behind it, and the cheap box of `variable_box`.

Each fast path is checked against the slow one and against an independent optimum (CVXPY + Clarabel at tight
tolerance, or an exact SVD); perturbed answers must not be certified, perturbed duals must still give valid bounds.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog.certify import check, optimality_interval
from certiprog.certify import box, gram, lower_end, upper_end
from certiprog.model import Model, Variable, minimize, norm2


def _mpm_data(p: int, rows: int, seed: int, cond: float = 1.0):
    """Dense F1, F0 (rows x p each) and dmu of the MPM form; ``cond`` stretches F's singular values."""
    rng = np.random.default_rng(seed)
    F1, F0 = rng.normal(size=(rows, p)), rng.normal(size=(rows, p))
    if cond != 1.0:
        scale = np.geomspace(1.0, 1.0 / cond, p)
        F1, F0 = F1 * scale, F0 * scale
    return F1 / np.sqrt(rows), F0 / np.sqrt(rows), rng.normal(size=p) + 0.5


def _mpm_model(F1, F0, dmu) -> Model:
    v = Variable(F1.shape[1], "v")
    model = Model(minimize(norm2(F1 @ v) + norm2(F0 @ v)))
    model.add(dmu @ v == 1.0, name="normalization")
    return model


def _reference(F1, F0, dmu) -> float:
    """The optimum by CVXPY + Clarabel at tight tolerance (an independent path: no certiprog code)."""
    import cvxpy as cp

    v = cp.Variable(F1.shape[1])
    prob = cp.Problem(cp.Minimize(cp.norm(F1 @ v) + cp.norm(F0 @ v)), [dmu @ v == 1])
    # 1e-12: at 1e-10 the ill-conditioned instance (cond 1e3) stops 2e-9 (relative) above the optimum, above the
    # upper end of certiprog's interval, a proved feasible point (found once the default path re-solves tighter)
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    return float(prob.value)


# ------------------------------------------------------------------ lambda_min(M'M) proved
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), cond=st.sampled_from([1.0, 1e2, 1e4, 1e6]),
       shape=st.sampled_from([(40, 30), (80, 80), (200, 64)]))
def test_gram_lambda_min_is_a_lower_bound_and_tight(seed, cond, shape):
    r, p = shape
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(r, p)) * np.geomspace(1.0, 1.0 / cond, p)
    exact = float(np.linalg.svd(M, compute_uv=False)[-1]) ** 2  # relative error ~1e-16 * cond^2 at most
    lam = gram._gram_lambda_min(M)
    assert lam <= exact * (1 + 1e-6)
    rounding = (r + p + 2) * 2.0 ** -53 * float(np.sum(M * M))  # the size of the proof's error terms
    if exact >= 100 * rounding:  # well above the rounding level: the bound is within a small factor of the truth
        assert lam >= 0.3 * exact


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gram_lambda_min_proves_nothing_for_rank_deficient(seed):
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(50, 20))
    M[:, 7] = M[:, 3] * 2.0  # exactly rank deficient: lambda_min(M'M) = 0
    assert not gram._gram_lambda_min(M) > 0
    assert not gram._gram_lambda_min(M[:10]) > 0  # fewer rows than columns
    assert gram._gram_lambda_min(np.full((5, 3), np.nan)) == -np.inf


# ------------------------------------------------------------------ the SOC ball on the MPM form
@pytest.mark.parametrize("p,rows,seed,cond", [(80, 60, 0, 1.0), (100, 70, 1, 1e3), (70, 40, 2, 1.0)])
def test_soc_ball_interval_contains_the_reference_optimum(p, rows, seed, cond, monkeypatch):
    F1, F0, dmu = _mpm_data(p, rows, seed, cond)
    model = _mpm_model(F1, F0, dmu)
    sol = model.solve(backend="clarabel")
    ref = _reference(F1, F0, dmu)
    fast = optimality_interval(sol.problem, sol.x, sol.z)
    assert "soc_ball_radius" in fast.info  # the fast path was taken
    monkeypatch.setattr(lower_end, "_BALL_MIN", 10 ** 9)  # the exact dual correction (the slow path)
    slow = optimality_interval(sol.problem, sol.x, sol.z)
    assert "soc_ball_radius" not in slow.info and "dual_correction_rows" in slow.info
    tol = 1e-9 * abs(ref)  # the reference's own accuracy
    for iv in (fast, slow):
        assert np.isfinite(iv.lower) and np.isfinite(iv.upper)
        assert iv.lower <= ref + tol and ref - tol <= iv.upper
    assert fast.upper == slow.upper
    assert fast.width <= 2 * slow.width + 1e-12 * abs(ref)  # the ball's price is small
    slow_cert = check(model, sol)
    monkeypatch.undo()
    cert = check(model, sol)
    assert cert.verdict == slow_cert.verdict
    assert cert.verdict == "certified" or cond > 1  # (the ill-conditioned one: Clarabel's answer is only accurate)
    assert cert.interval[0] <= ref + tol and ref - tol <= cert.interval[1]


def test_soc_ball_perturbed_answer_not_certified():
    F1, F0, dmu = _mpm_data(80, 60, 3)
    model = _mpm_model(F1, F0, dmu)
    sol = model.solve(backend="clarabel")
    ref = _reference(F1, F0, dmu)
    sol.z = np.asarray(sol.z, float).copy()
    sol.z[1:] *= 1 + 1e-3  # a worse dual: the lower end drops, the width exceeds tol
    cert = check(model, sol)
    assert cert.verdict != "certified"
    lo, hi = cert.interval
    assert lo <= ref + 1e-9 * abs(ref) <= hi + 2e-9 * abs(ref)
    sol2 = model.solve(backend="clarabel")
    sol2.objective = float(sol2.objective) * (1 + 1e-4)  # a wrong objective value
    assert check(model, sol2).verdict != "certified"


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.sampled_from([1e-12, 1e-8, 1e-4, 1e-1]))
def test_soc_ball_lower_end_valid_for_any_dual(seed, size):
    """Whatever dual comes in (noisy, off the cone), the lower end never exceeds the optimum."""
    F1, F0, dmu = _mpm_data(72, 50, 11)
    model = _mpm_model(F1, F0, dmu)
    sol = model.solve(backend="clarabel")
    ref = _reference(F1, F0, dmu)
    rng = np.random.default_rng(seed)
    z = np.asarray(sol.z, float) + size * rng.normal(size=sol.problem.m)
    iv = optimality_interval(sol.problem, sol.x, z)
    assert iv.lower <= ref + 1e-9 * abs(ref)
    assert ref - 1e-9 * abs(ref) <= iv.upper


# ------------------------------------------------------------------ the cheap box
def _me2_small():
    from certiprog.formulations.me2_paper.programs import me2_dual, me2_instance

    X, c = me2_instance(0, 120, 4)
    return me2_dual(X, c, 1.0, 1e-3, 4.0)


def test_cheap_box_contains_the_full_box_and_agrees():
    model = _me2_small()
    sol = model.solve(backend="clarabel")
    pr = sol.problem
    U, _, _ = upper_end.upper_bound(pr, sol.x)
    lo_c, hi_c = box.variable_box(pr, None, U, cheap=True)
    lo_f, hi_f = box.variable_box(pr, None, U)
    assert np.all(lo_c <= lo_f) and np.all(hi_c >= hi_f)  # looser, never tighter (both valid)
    full = optimality_interval(pr, sol.x, sol.z)
    fast = optimality_interval(pr, sol.x, sol.z, width_goal=1e-6)
    assert fast.info.get("box") == "cheap"
    # the primal end (the user's lower end of this maximisation) is the same point; the dual end may differ
    assert pr.sense < 0 and fast.lower == full.lower
    assert fast.lower <= fast.upper and np.isfinite(fast.upper)
    assert abs(fast.upper - full.upper) <= 1e-6 * abs(full.upper)
    # an interval wider than the goal falls back to the full box (identical to no goal)
    strict = optimality_interval(pr, sol.x, sol.z, width_goal=0.0)
    assert strict.info.get("box") != "cheap" and (strict.lower, strict.upper) == (full.lower, full.upper)
    assert check(model, sol).verdict == "certified"


def test_bound_rows_are_the_single_entry_rows():
    model = _me2_small()
    pr = model.compile().assemble()
    G, h = box._bound_rows(pr)
    Gf, hf = box._linear_rows(pr)
    single = np.diff(Gf.indptr) == 1
    full = {(int(Gf.indices[Gf.indptr[i]]), float(Gf.data[Gf.indptr[i]]), float(hf[i])) for i in np.flatnonzero(single)}
    mine = {(int(G.indices[G.indptr[i]]), float(G.data[G.indptr[i]]), float(h[i])) for i in range(G.shape[0])}
    assert mine and mine <= full


def test_upper_bound_leaves_the_callers_point_alone():
    """`_verify_point` writes the equality solve into its ball; it once did so into the solution's own x."""
    model = _me2_small()
    sol = model.solve(backend="clarabel")
    x0 = np.array(sol.x, copy=True)
    first = upper_end.upper_bound(sol.problem, sol.x)[0]
    assert np.array_equal(sol.x, x0)
    assert upper_end.upper_bound(sol.problem, sol.x)[0] == first


# ------------------------------------------------------------------ rows that can never give a bound
def _random_lp(seed):
    """A small LP with a mix of bounded, half-bounded and free columns, dense and single-entry rows."""
    rng = np.random.default_rng(seed)
    n = 12
    x = Variable(n, "x")
    c = rng.normal(size=n)
    model = Model(minimize(c @ x))
    G = rng.normal(size=(6, n)) * (rng.random((6, n)) < 0.4)
    model.add(G @ x <= rng.random(6) + 1.0, name="rows")
    for j in rng.choice(n, 5, replace=False):
        model.add(x[int(j)] >= -rng.random() - 0.5, name=f"lb{j}")
    for j in rng.choice(n, 4, replace=False):
        model.add(x[int(j)] <= rng.random() + 0.5, name=f"ub{j}")
    model.add(norm2(x[:3]) <= 2.0, name="ball")
    return model


@pytest.mark.parametrize("seed", range(8))
def test_useful_rows_leave_the_full_box_unchanged(seed, monkeypatch):
    problems = [_random_lp(seed).compile().assemble()]
    if seed == 0:
        F1, F0, dmu = _mpm_data(70, 40, 5)
        problems += [_mpm_model(F1, F0, dmu).compile().assemble(), _me2_small().compile().assemble()]
    for pr in problems:
        for upper in (np.inf, 1.0, 10.0):
            lo, hi = box.variable_box(pr, None, upper)
            monkeypatch.setattr(box, "_useful_rows", lambda G, *a, **k: np.ones(G.shape[0], bool))
            lo_all, hi_all = box.variable_box(pr, None, upper)
            monkeypatch.undo()
            assert np.array_equal(lo, lo_all) and np.array_equal(hi, hi_all)


@pytest.mark.parametrize("scale", [1e-150, 1e-30, 1.0, 1e30, 1e150])
def test_gram_lambda_min_scale_invariant(scale):
    """Data scaled by 1e+-150: the bound scales with scale^2 (no underflow / overflow in the proof)."""
    rng = np.random.default_rng(4)
    M = rng.normal(size=(30, 20))
    base = gram._gram_lambda_min(M)
    exact = float(np.linalg.svd(M, compute_uv=False)[-1]) ** 2
    assert 0.3 * exact <= base <= exact
    lam = gram._gram_lambda_min(M * scale)
    assert lam > 0 and lam == pytest.approx(base * scale * scale, rel=1e-6)
    assert gram._gram_lambda_min(np.zeros((5, 3))) == -np.inf


def test_gram_proof_cache_keys_on_content():
    rng = np.random.default_rng(9)
    M = rng.normal(size=(40, 25))
    first = gram._gram_lambda_min(M)
    assert gram._gram_lambda_min(M.copy()) == first  # same content: the cached proof
    M2 = M.copy()
    M2[:, 3] = M2[:, 5]  # now rank deficient: a cached answer for M would be wrong here
    assert not gram._gram_lambda_min(M2) > 0
    assert gram._gram_lambda_min(M) == first
