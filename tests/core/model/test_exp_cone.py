"""The exponential cone: projection, atoms against CVXPY + Clarabel, duals, statuses, certificates, bad input.

Convention (certiprog.model.cones): K_exp = closure{(x, y, z): y > 0, y exp(x/y) <= z}, the order of Clarabel,
SCS and CVXPY's ``ExpCone(x, y, z)``; its dual {(u, v, w): u < 0, -u exp(v/u) <= e w} u {(0, v, w): v, w >= 0}.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import certiprog as c
from certiprog.certify import check
from certiprog.errors import CertiprogError, DCPError, InputError, ShapeError
from certiprog.model.cones import Cone, distance_to_cone, project
from certiprog.solvers import available_backends, choose

cp = pytest.importorskip("cvxpy")

EXP = Cone("exp", 3, 1)
TIGHT = dict(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)


def _in_exp(v, tol):
    x, y, z = v
    if y > tol:
        return y * np.exp(min(x / y, 700)) <= z + tol
    return x <= tol and z >= -tol and y >= -tol


def _in_exp_dual(v, tol):
    u, w1, w2 = v
    if u < -tol:
        return -u * np.exp(min(w1 / u, 700)) <= np.e * w2 + tol
    return abs(u) <= tol and w1 >= -tol and w2 >= -tol


# ----------------------------------------------------------------------------------------------- projection
@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.floats(-1, 1), min_size=3, max_size=3), st.integers(-6, 6))
def test_exp_projection_is_moreau_decomposition(v, expo):
    """v = Pi_K(v) - Pi_K*(-v), both parts in their cones and orthogonal (this characterises the projection)."""
    v = np.array(v) * 10.0**expo
    p = project(EXP, v)
    d = project(EXP, -v, dual=True)
    scale = 1 + np.linalg.norm(v)
    tol = 1e-9 * scale
    assert _in_exp(p, tol) and _in_exp_dual(d, tol)
    assert np.allclose(p - d, v, atol=tol, rtol=0)
    assert abs(p @ d) <= 1e-9 * scale**2
    assert distance_to_cone(EXP, p) <= tol


def test_exp_projection_matches_clarabel_nearest_point():
    rng = np.random.default_rng(3)
    for _ in range(25):
        v = rng.standard_normal(3) * 10.0 ** rng.uniform(-2, 2)
        x = cp.Variable(3)
        cp.Problem(cp.Minimize(cp.sum_squares(x - v)), [cp.constraints.ExpCone(x[0], x[1], x[2])]).solve(**TIGHT)
        ours, ref = np.linalg.norm(project(EXP, v) - v), np.linalg.norm(x.value - v)
        assert ours <= ref + 1e-7 * (1 + np.linalg.norm(v))  # never farther than the solver's nearest point
        assert ours >= ref - 1e-6 * (1 + np.linalg.norm(v))


def test_exp_projection_known_points():
    assert np.array_equal(project(EXP, np.array([0.0, 1.0, 2.0])), [0.0, 1.0, 2.0])  # inside
    assert np.array_equal(project(EXP, np.array([-1.0, -1.0, 3.0])), [-1.0, 0.0, 3.0])  # x, y < 0: the face y = 0
    assert np.allclose(project(EXP, np.array([1.0, -1.0, -1.0])), 0.0)  # in the polar cone
    many = np.random.default_rng(0).standard_normal((500, 3))
    assert np.allclose(project(Cone("exp", 3, 500), many.ravel()).reshape(500, 3),
                       [project(EXP, r) for r in many])  # vectorised = one by one


# ----------------------------------------------------------------------------------------------- atoms vs CVXPY
def _random_problem(kind, rng):
    """(certiprog model, its variable, cvxpy problem, cvxpy variable) for one atom, small and bounded."""
    n = 4
    a, w = rng.standard_normal(n), rng.uniform(0.2, 2.0, n)
    x, xc = c.Variable(n, name="x"), cp.Variable(n)
    box = lambda v: [v <= 2, v >= -2]  # noqa: E731
    if kind == "exp":
        return (c.Model(c.minimize((w * c.exp(x)).sum() - a @ x), box(x)), x,
                cp.Problem(cp.Minimize(w @ cp.exp(xc) - a @ xc), box(xc)), xc)
    if kind == "log":
        return (c.Model(c.maximize((w * c.log(x + 3)).sum() - a @ x), box(x)), x,
                cp.Problem(cp.Maximize(w @ cp.log(xc + 3) - a @ xc), box(xc)), xc)
    if kind == "log_sum_exp":
        X, Xc = c.Variable((2, n), name="X"), cp.Variable((2, n))
        B = rng.standard_normal((2, n))
        return (c.Model(c.minimize(c.log_sum_exp(X, axis=1).sum() + c.log_sum_exp(X) - (B * X).sum()),
                        [X <= 2, X >= -2]), X,
                cp.Problem(cp.Minimize(cp.sum(cp.log_sum_exp(Xc, axis=1)) + cp.log_sum_exp(Xc) - cp.sum(cp.multiply(B, Xc))),
                           [Xc <= 2, Xc >= -2]), Xc)
    if kind == "entr":
        return (c.Model(c.maximize(c.entr(x).sum() + a @ x), [x.sum() == 1]), x,
                cp.Problem(cp.Maximize(cp.sum(cp.entr(xc)) + a @ xc), [cp.sum(xc) == 1]), xc)
    if kind in ("rel_entr", "kl_div"):
        q = rng.uniform(0.1, 1.0, n)
        f, fc = (c.rel_entr, cp.rel_entr) if kind == "rel_entr" else (c.kl_div, cp.kl_div)
        return (c.Model(c.minimize(f(x, q).sum() - a @ x), [x.sum() == 1]), x,
                cp.Problem(cp.Minimize(cp.sum(fc(xc, q)) - a @ xc), [cp.sum(xc) == 1]), xc)
    if kind == "logistic":
        A = rng.standard_normal((6, n))
        return (c.Model(c.minimize(c.logistic(A @ x).sum() + c.square(x).sum() - a @ x), []), x,
                cp.Problem(cp.Minimize(cp.sum(cp.logistic(A @ xc)) + cp.sum_squares(xc) - a @ xc)), xc)
    raise AssertionError(kind)


ATOMS = ["exp", "log", "log_sum_exp", "entr", "rel_entr", "kl_div", "logistic"]


@settings(max_examples=14, deadline=None, derandomize=True)
@given(st.sampled_from(ATOMS), st.integers(0, 2**16))
def test_atoms_match_cvxpy_at_the_optimum(kind, seed):
    model, x, ref, xc = _random_problem(kind, np.random.default_rng(seed))
    ref.solve(**TIGHT)
    sol = model.solve(backend="clarabel")
    assert sol.status.termination in ("optimal", "inaccurate")
    assert sol.objective == pytest.approx(ref.value, rel=1e-6, abs=1e-7)
    assert np.allclose(x.value, xc.value, atol=1e-3)  # flat optima: the objectives agree to 1e-6
    assert model.objective.expr.value == pytest.approx(ref.value, rel=1e-6, abs=1e-7)  # atoms' own values
    cert = check(model, sol)
    assert cert.verdict == "certified", cert
    lo, hi = cert.interval
    assert lo - 1e-7 * (1 + abs(ref.value)) <= ref.value <= hi + 1e-7 * (1 + abs(ref.value))


@pytest.mark.parametrize("kind", ATOMS)
def test_atoms_through_cvxpy_backend(kind):
    model, x, ref, _ = _random_problem(kind, np.random.default_rng(11))
    ref.solve(**TIGHT)
    sol = model.solve(backend="cvxpy", solver="CLARABEL")
    assert sol.objective == pytest.approx(ref.value, rel=1e-6, abs=1e-7)
    assert check(model, sol).verdict in ("certified", "accurate")


def test_atom_values_match_numpy():
    v = np.array([0.5, 1.0, 2.0])
    x = c.Variable(3)
    vals = {x: v}
    assert np.allclose(c.exp(x).value_at(vals), np.exp(v))
    assert np.allclose(c.log(x).value_at(vals), np.log(v))
    assert np.allclose(c.entr(x).value_at(vals), -v * np.log(v))
    assert np.allclose(c.rel_entr(x, 2.0).value_at(vals), v * np.log(v / 2))
    assert np.allclose(c.kl_div(x, 2.0).value_at(vals), v * np.log(v / 2) - v + 2)
    assert np.allclose(c.logistic(x).value_at(vals), np.log1p(np.exp(v)))
    assert c.log_sum_exp(x).value_at(vals) == pytest.approx(np.log(np.exp(v).sum()))
    assert np.allclose(c.entr(x).value_at({x: np.zeros(3)}), 0.0)  # 0 log 0 = 0
    assert np.all(c.log(x).value_at({x: -v}) == -np.inf)


# ----------------------------------------------------------------------------------------------- duals vs CVXPY
def test_expcone_duals_match_cvxpy():
    """ExpCone's dual is CVXPY's (both in K_exp*, Lagrangian f - <z, s>); inequality duals as usual."""
    rng = np.random.default_rng(5)
    a = rng.uniform(0.5, 2.0, 3)
    x, y, z = (c.Variable(3, name=n) for n in "xyz")
    m = c.Model(c.maximize((a * x).sum() + y.sum() - z.sum()),
                {"K": c.ExpCone(x, y, z), "ub": z <= 2, "yb": y <= 1})
    sol = m.solve(backend="clarabel")
    xc, yc, zc = cp.Variable(3), cp.Variable(3), cp.Variable(3)
    K = cp.constraints.ExpCone(xc, yc, zc)
    ub, yb = zc <= 2, yc <= 1
    ref = cp.Problem(cp.Maximize(a @ xc + cp.sum(yc) - cp.sum(zc)), [K, ub, yb])
    ref.solve(**TIGHT)
    assert sol.objective == pytest.approx(ref.value, rel=1e-7)
    dref = np.column_stack([np.reshape(d, -1) for d in K.dual_value])
    assert np.allclose(sol.dual("K"), dref, rtol=1e-5, atol=1e-6)
    assert np.allclose(sol.dual("ub"), ub.dual_value, rtol=1e-5, atol=1e-6)
    for row in sol.dual("K"):
        assert _in_exp_dual(row, 1e-7)
    # the cvxpy backend gives the same numbers
    sol2 = m.solve(backend="cvxpy", solver="CLARABEL")
    assert np.allclose(sol2.dual("K"), dref, rtol=1e-5, atol=1e-6)


def test_log_constraint_dual_is_stationary():
    """t <= log(x) written as a constraint: its multiplier d(objective)/d(rhs) as for any inequality."""
    x = c.Variable(name="x")
    m = c.Model(c.minimize(x), {"lg": c.log(x) >= 1.5})
    sol = m.solve(backend="clarabel")
    assert x.value == pytest.approx(np.exp(1.5), rel=1e-7)
    # min x s.t. log x >= b: optimum e^b, derivative e^b = the multiplier of lhs <= rhs (b <= log x)
    assert float(sol.dual("lg")) == pytest.approx(np.exp(1.5), rel=1e-4)
    xc = cp.Variable()
    con = cp.log(xc) >= 1.5
    cp.Problem(cp.Minimize(xc), [con]).solve(**TIGHT)
    assert float(sol.dual("lg")) == pytest.approx(float(con.dual_value), rel=1e-4)


# ----------------------------------------------------------------------------------------------- statuses
@pytest.mark.parametrize("backend", ["clarabel", "cvxpy"])
def test_infeasible_exp_problem_is_reported_and_certified_only_as_infeasible(backend):
    x, t = c.Variable(name="x"), c.Variable(name="t")
    m = c.Model(c.minimize(t), [c.exp(x) <= t, t <= -1, x >= -1])
    sol = m.solve(backend=backend)
    assert sol.status.termination == "infeasible"
    cert = check(m, sol)
    assert cert.verdict in ("certified_infeasible", "accurate_infeasible"), cert
    assert cert.verdict != "certified"


def test_unbounded_exp_problem_is_reported():
    x = c.Variable(name="x")
    m = c.Model(c.minimize(x), [c.exp(x) <= 1])
    sol = m.solve(backend="clarabel")
    assert sol.status.termination == "unbounded"
    assert check(m, sol).verdict != "certified"


def test_infeasible_and_unbounded_direction_is_never_certified():
    """exp(x) <= t <= -1 has no point, yet min x has a ray (x -> -inf): Clarabel may call it unbounded; no
    verdict may certify unboundedness without a feasible point."""
    x, t = c.Variable(name="x"), c.Variable(name="t")
    m = c.Model(c.minimize(x), [c.exp(x) <= t, t <= -1])
    sol = m.solve(backend="clarabel")
    assert sol.status.termination in ("infeasible", "unbounded")
    assert check(m, sol).verdict not in ("certified", "certified_unbounded")


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.integers(0, 2**16), st.sampled_from([1e-4, 1e-2, 1.0, 1e2, 1e4]))
def test_scaled_exp_problems_never_certified_wrongly(seed, scale):
    """Data scaled 1e-4 .. 1e4: when the verdict is certified, CVXPY + Clarabel's optimum is inside the interval
    and the reported objective agrees with it to the certificate's tolerance."""
    rng = np.random.default_rng(seed)
    n = 3
    A, b, w = rng.standard_normal((5, n)) * scale, rng.standard_normal(5) * scale, rng.uniform(0.5, 2, n)
    x, xc = c.Variable(n, name="x"), cp.Variable(n)
    m = c.Model(c.minimize(c.log_sum_exp(A @ x + b) + (w * c.exp(x / scale)).sum() - c.entr(x + 1).sum()),
                [x <= 3 * scale, x >= -0.5])
    ref = cp.Problem(cp.Minimize(cp.log_sum_exp(A @ xc + b) + w @ cp.exp(xc / scale) - cp.sum(cp.entr(xc + 1))),
                     [xc <= 3 * scale, xc >= -0.5])
    ref.solve(**TIGHT)
    for backend in ("clarabel", "cvxpy"):
        sol = m.solve(backend=backend)
        cert = check(m, sol)
        if cert.verdict == "certified":
            lo, hi = cert.interval
            slack = 1e-6 * max(1.0, abs(ref.value))
            assert lo - slack <= ref.value <= hi + slack
            assert abs(sol.objective - ref.value) <= 1e-6 * max(1.0, abs(ref.value)) + (hi - lo)


# ----------------------------------------------------------------------------------------------- backends
def test_backends_declare_the_exp_cone():
    x = c.Variable(2, name="x")
    m = c.Model(c.minimize(c.exp(x).sum()), [x >= -1])
    names = available_backends(model=m)
    assert "clarabel" in names and "cvxpy" in names
    assert "piqp" not in names
    pairs = choose(m)
    assert pairs and all(b != "piqp" for b, _ in pairs)
    assert ("pyomo", "highs") not in pairs
    assert all(s.upper() not in ("OSQP", "PIQP", "HIGHS") for _, s in pairs)
    with pytest.raises(CertiprogError):
        m.solve(backend="piqp")


def test_mosek_export_writes_exp_cones_in_mosek_order(tmp_path):
    pytest.importorskip("mosek")
    x = c.Variable(2, name="x")
    m = c.Model(c.minimize(c.exp(x).sum()), [x >= -1])
    text = m.export(tmp_path / "e.ptf").read_text()
    assert text.count("[PEXP]") == 2
    # MOSEK's (z, y, x): first the epigraph variable, then the constant 1, then x
    block = text.split("[PEXP]")[1].splitlines()
    assert "_exp" in block[1] and "+ 1" in block[2] and "x[0]" in block[3]


def test_scip_through_pyomo_takes_exp_and_log():
    pytest.importorskip("pyomo")
    pytest.importorskip("pyscipopt")
    x = c.Variable(3, name="x")
    m = c.Model(c.minimize(c.log_sum_exp(x) - c.log(x + 2).sum()), [x.sum() == 1, x >= -1])
    ref = m.solve(backend="clarabel").objective
    sol = m.solve(backend="pyomo", solver="scip_direct")
    assert sol.objective == pytest.approx(ref, rel=1e-5)
    assert check(m, sol).verdict in ("certified", "accurate")


# ----------------------------------------------------------------------------------------------- bad input
def test_exp_atoms_refuse_non_convex_use():
    x = c.Variable(3, name="x")
    t = c.Variable(name="t")
    bad = {
        "exp(x) >= t": lambda: c.exp(x).sum() >= t,
        "log(x) <= t": lambda: c.log(x).sum() <= t,
        "maximize exp": lambda: c.maximize(c.exp(x).sum()),
        "minimize log": lambda: c.minimize(c.log(x).sum()),
        "minimize entr": lambda: c.minimize(c.entr(x).sum()),
        "maximize kl_div": lambda: c.maximize(c.kl_div(x, 1.0).sum()),
        "-logistic in objective min": lambda: c.minimize(-c.logistic(x).sum()),
        "exp of exp": lambda: c.exp(c.exp(x)),
        "log of norm": lambda: c.log(c.norm2(x)),
        "log_sum_exp of log": lambda: c.log_sum_exp(c.log(x)),
        "exp(x) == t": lambda: c.exp(x).sum() == t,
        "ExpCone of an atom": lambda: c.ExpCone(c.exp(x), 1.0, x),
    }
    for what, fn in bad.items():
        with pytest.raises(DCPError):
            fn()
        assert issubclass(DCPError, CertiprogError), what


def test_exp_atoms_refuse_bad_shapes_and_arguments():
    x, X = c.Variable(3), c.Variable((2, 3))
    with pytest.raises(ShapeError):
        c.log_sum_exp(X, axis=2)
    with pytest.raises(ShapeError):
        c.log_sum_exp(X, axis="a")
    with pytest.raises(ShapeError):
        c.log_sum_exp(c.Variable(0))
    with pytest.raises(ShapeError):
        c.rel_entr(x, np.ones(4))
    with pytest.raises(ShapeError):
        c.ExpCone(x, np.ones(2), x)
    with pytest.raises(InputError):
        c.exp(np.array([1.0, np.nan]))
    with pytest.raises(InputError):
        c.kl_div(x, "a")
    with pytest.raises(InputError):
        Cone("exp", 4)


def test_log_sum_exp_axis_values():
    X = c.Variable((2, 3))
    V = np.arange(6.0).reshape(2, 3)
    from scipy.special import logsumexp

    assert np.allclose(c.log_sum_exp(X, axis=0).value_at({X: V}), logsumexp(V, axis=0))
    assert np.allclose(c.log_sum_exp(X, axis=-1).value_at({X: V}), logsumexp(V, axis=1))
    assert c.log_sum_exp(X, axis=0).shape == (3,)


def test_saved_solution_with_exp_and_pownd_cones_round_trips(tmp_path):
    x, z = c.Variable(3, name="x"), c.Variable(name="z")
    m = c.Model(c.minimize(c.exp(x).sum() - z), [x >= -0.5, c.PowConeND(x + 1, z, [0.2, 0.3, 0.5])])
    assert {"exp", "pownd"} <= {cone.kind for cone in m.compile().assemble().cones}
    sol = m.solve(backend="clarabel")
    sol.save(tmp_path / "s")
    back = c.Solution.load(tmp_path / "s", problem=m)
    assert np.allclose(back.x, sol.x)


def test_unbounded_without_a_ray_is_never_certified():
    """max sum log(x), x >= 0 is unbounded but has no improving ray (log grows sublinearly): Clarabel stops
    'optimal' far out; the certificate must not confirm it."""
    x = c.Variable(3, name="x")
    m = c.Model(c.maximize(c.log(x).sum()), [x >= 0])
    sol = m.solve(backend="clarabel")
    assert check(m, sol).verdict not in ("certified", "accurate", "certified_unbounded")


def test_dual_nudging_keeps_exp_duals_finite_and_in_the_dual_cone():
    """A dual with u ~ -1e-300 and v > 0 (exp(v/u) overflows) is moved to the face u = 0, never to w = inf."""
    from certiprog.certify.dual_cone import dual_in_cone

    x = c.Variable(name="x")
    problem = c.Model(c.minimize(c.exp(x)), [x >= -1]).compile().assemble()
    blk = next(b for b in problem.blocks if b.cone.kind == "exp")
    rng = np.random.default_rng(0)
    for u, v, w in [(-1e-300, 1.0, 1.0), (-1.0, 2.0, -3.0), (2.0, -1.0, 1.0), (-1e-3, -5.0, 0.0)]:
        z = rng.uniform(0, 1, problem.m)
        z[blk.start:blk.stop] = [u, v, w]
        zz, _ = dual_in_cone(problem, z)
        part = zz[blk.start:blk.stop]
        assert np.all(np.isfinite(part)) and _in_exp_dual(part, 0.0)
