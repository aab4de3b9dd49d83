"""The certified Newton solvers of 004's MPM (3) and HP-MPM w-step (10) (`hp_mpm_paper.solver`), their
``model.solve(solver="structured")`` hooks and certiprog's automatic choice trying them first."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from certiprog.certify import check
from certiprog.errors import CertiprogError, InputError
from certiprog.formulations.hp_mpm_paper.hp_mpm import HPMPMProblem
from certiprog.formulations.hp_mpm_paper.kernels import kernel_class_moments
from certiprog.formulations.hp_mpm_paper.mpm import ClassMoments, class_moments, mpm_from_moments
from certiprog.formulations.hp_mpm_paper.solver import gram_floor, grams, solve_mpm, solve_w_step


def _data(seed, n1=40, n0=35, d=5, shift=0.5, scale=1.0):
    rng = np.random.default_rng(seed)
    X1 = rng.normal(size=(n1, d)) @ rng.normal(size=(d, d)) * 0.5 + shift
    X0 = rng.normal(size=(n0, d)) - shift
    return X1 * scale, X0 * scale


def _moments(kind, seed):
    X1, X0 = _data(seed)
    if kind == "linear":
        return class_moments(X1, X0)
    # a rank cut that keeps [F1; F0] of full column rank (p < m - 2), so the kernel MPM optimum is positive
    return kernel_class_moments(X1, X0, "rbf", 0.1, rank_tol=1e-4)


def _clarabel_mpm(mom):
    return mpm_from_moments(mom).solve(backend="clarabel")


def _w_model(mom, kappa, nu=0.01):
    prob = HPMPMProblem(mom, delta=0.1, nu=nu)
    return prob, prob.set_kappa(kappa)


# ---------------------------------------------------------------------------------------------- MPM (3)
@pytest.mark.parametrize("kind,seed", [("linear", 0), ("linear", 1), ("kernel", 1), ("kernel", 7)])
def test_mpm_interval_contains_clarabel_and_values_match(kind, seed):
    mom = _moments(kind, seed)
    ref = _clarabel_mpm(mom)
    fit = solve_mpm(mom)
    assert fit.status == "optimal" and fit.lower <= fit.upper
    assert fit.upper - fit.lower <= 1e-7 * fit.upper
    f = ref.objective
    assert fit.lower - 1e-7 * f <= f <= fit.upper + 1e-7 * f  # Clarabel's own accuracy around the true optimum
    assert abs(fit.upper - f) <= 1e-6 * f
    vr = ref.value("v")
    assert np.linalg.norm(fit.v - vr) <= 1e-3 * np.linalg.norm(vr)
    assert abs(mom.dmu @ fit.v - 1.0) <= 1e-12


@pytest.mark.parametrize("seed", [0, 3, 8])
def test_mpm_near_a_kink_is_certified(seed):
    # kernel coordinates with F_j of fewer rows than p: at the optimum one class's projected variance is ~0, Newton
    # stalls there and the barrier path (then smoothed Newton for the dual) takes over
    mom = _moments("kernel", seed)
    fit = solve_mpm(mom)
    f = _clarabel_mpm(mom).objective
    assert fit.lower - 1e-7 * f <= f <= fit.upper + 1e-7 * f
    assert fit.upper <= f * (1 + 1e-6)  # the primal point is good even when the dual bound is not
    assert (fit.status == "optimal") == (fit.upper - fit.lower <= 1e-7 * fit.upper)
    assert fit.status == "optimal" and fit.info["barrier_stages"] > 0  # the barrier + smoothing path closed the gap


@pytest.mark.parametrize("kind,seed", [("linear", 3), ("kernel", 7)])
def test_mpm_hook_duals_match_clarabel_and_certificate_confirms(kind, seed):
    mom = _moments(kind, seed)
    model = mpm_from_moments(mom)
    ref = model.solve(backend="clarabel")
    sol = model.solve(solver="structured")
    assert sol.backend == "structured" and str(sol.status) == "optimal"
    assert sol.verdict in ("accurate", "certified")
    lo, hi = sol.solver_interval
    assert lo <= sol.objective <= hi * (1 + 1e-12)
    assert np.allclose(sol.z, ref.z, atol=1e-4 * np.abs(ref.z).max())  # same sign convention, same multipliers
    cert = check(sol.problem, sol)
    assert cert.verdict == "certified"
    assert cert.interval[0] <= hi and lo <= cert.interval[1]


def test_auto_choice_tries_the_structured_mpm_first_and_estimator_path():
    mom = _moments("linear", 4)
    sol = mpm_from_moments(mom).solve()
    assert sol.backend == "structured"
    assert sol.chosen.label == "structured"
    from certiprog.formulations.hp_mpm_paper.estimator import MPMClassifier

    X1, X0 = _data(4)
    X = np.vstack([X1, X0])
    y = np.r_[np.ones(len(X1)), np.zeros(len(X0))]
    est = MPMClassifier().fit(X, y)
    assert est.solution_["backend"] == "structured"


def test_mpm_means_coincide_is_an_input_error_and_auto_falls_back_to_infeasible():
    mom = _moments("linear", 5)
    same = ClassMoments(mom.mu1, mom.mu1.copy(), mom.F1, mom.F0, mom.n1, mom.n0, mom.radius, mom.basis)
    with pytest.raises(InputError, match="infeasible"):
        solve_mpm(same)
    model = mpm_from_moments(same)
    with pytest.raises(CertiprogError):
        model.solve(solver="structured")
    sol = model.solve()  # the structured refusal moves on to the generic solvers
    assert sol.status.termination == "infeasible" and sol.backend != "structured"


def test_mpm_bad_input():
    mom = _moments("linear", 6)
    bad = ClassMoments(mom.mu1, mom.mu0, mom.F1 * np.nan, mom.F0, mom.n1, mom.n0, mom.radius, mom.basis)
    with pytest.raises(InputError, match="NaN"):
        solve_mpm(bad)
    with pytest.raises(InputError):
        solve_mpm(mom, tol=0.0)
    with pytest.raises(InputError):
        solve_mpm("not moments")


def test_mpm_one_class_without_variance():
    rng = np.random.default_rng(7)
    X1 = np.tile(rng.normal(size=(1, 4)) + 1.0, (16, 1))  # class 1 constant (16 rows: exact mean): F1 = 0
    X0 = rng.normal(size=(30, 4))
    mom = class_moments(X1, X0)
    assert np.abs(mom.F1).max() < 1e-12  # (rounding of the class mean)
    fit = solve_mpm(mom)
    ref = _clarabel_mpm(mom)
    assert fit.lower <= fit.upper
    assert fit.lower - 1e-7 * ref.objective <= ref.objective <= fit.upper + 1e-7 * ref.objective
    assert fit.status == "optimal"


def test_mpm_rank_deficient_is_never_falsely_optimal():
    # kernel coordinates without a rank cut: [F1; F0] has rank <= m - 2 < p, so f* = 0 (perfect separation)
    X1, X0 = _data(8, n1=15, n0=12)
    mom = kernel_class_moments(X1, X0, "rbf", 0.1)
    assert mom.p > mom.n1 + mom.n0 - 2
    G1, G0 = grams(mom)
    assert gram_floor((mom.F1, mom.F0), G1 + G0) == 0.0
    fit = solve_mpm(mom)
    assert fit.lower == 0.0 and 0.0 <= fit.upper < 1e-6
    # f* = 0 has no relative accuracy: 'optimal' only on the absolute floor tol * f_d, with the exact dual 0
    f_d = fit.info["f_d"]
    assert f_d > 0 and (fit.status == "optimal") == (fit.upper <= 1e-7 * f_d)
    if fit.status == "optimal":
        assert fit.t == 0.0 and not np.any(fit.y1) and not np.any(fit.y0)
    model = mpm_from_moments(mom)
    sol = model.solve()
    assert sol.backend == "structured" and sol.verdict in ("accurate", "certified")
    assert sol.objective <= 1e-6


@pytest.mark.parametrize("scale", [1e8, 1e-8])
def test_mpm_scaled_data_certified_or_honest(scale):
    X1, X0 = _data(9)
    f_true = solve_mpm(class_moments(X1, X0)).upper  # f* is scale invariant (f = 1/kappa)
    fit = solve_mpm(class_moments(X1 * scale, X0 * scale))
    assert fit.lower <= fit.upper
    if fit.status == "optimal":
        assert abs(fit.upper - f_true) <= 1e-6 * f_true
    assert fit.lower <= f_true * (1 + 1e-9) and fit.upper >= f_true * (1 - 1e-9)


def test_gram_floor_is_a_lower_bound():
    rng = np.random.default_rng(10)
    F1, F0 = rng.normal(size=(8, 6)), rng.normal(size=(9, 6))
    G = F1.T @ F1 + F0.T @ F0
    floor = gram_floor((F1, F0), G)
    lam = np.linalg.eigvalsh(G)[0]
    assert 0 < floor <= lam and floor >= 0.4 * lam


@settings(max_examples=12, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10**6), n1=st.integers(3, 30), n0=st.integers(3, 30), d=st.integers(1, 6),
       shift=st.floats(0.05, 3.0))
def test_property_interval_contains_clarabel_optimum(seed, n1, n0, d, shift):
    X1, X0 = _data(seed, n1, n0, d, shift)
    mom = class_moments(X1, X0)
    fit = solve_mpm(mom)
    ref = _clarabel_mpm(mom)
    f = ref.objective
    assert fit.lower <= fit.upper
    if ref.verdict in ("accurate", "certified"):
        assert fit.lower - 1e-6 * f <= f <= fit.upper + 1e-6 * f
    if fit.status == "optimal":
        assert fit.upper - fit.lower <= 1e-7 * fit.upper


# ---------------------------------------------------------------------------------------------- w-step (10)
@pytest.mark.parametrize("kind", ["linear", "kernel"])
@pytest.mark.parametrize("kappa", [0.2, 1.0, 4.0])
def test_w_step_interval_contains_clarabel(kind, kappa):
    mom = _moments(kind, 11)
    prob, model = _w_model(mom, kappa)
    ref = model.solve(backend="clarabel")
    c1, c0 = (float(p.value) for p in prob._params[1:])
    fit = solve_w_step(mom, kappa, c1, c0)
    scale = np.linalg.norm(mom.dmu) + c1 + c0
    assert fit.status == "optimal" and fit.lower <= fit.upper <= fit.lower + 1e-9 * scale
    g = ref.objective  # the model maximises h: the objective in the user's sense is g(kappa)
    assert fit.lower - 1e-7 * scale <= g <= fit.upper + 1e-7 * scale
    assert np.linalg.norm(fit.v) <= 1.0


def test_w_step_hook_duals_and_certificate():
    mom = _moments("kernel", 12)
    prob, model = _w_model(mom, 1.5)
    ref = model.solve(backend="clarabel")
    sol = model.solve(solver="structured")
    assert sol.backend == "structured" and sol.verdict in ("accurate", "certified")
    assert np.allclose(sol.z, ref.z, atol=1e-4 * np.abs(ref.z).max())
    cert = check(sol.problem, sol)
    assert cert.verdict == "certified"
    lo, hi = sol.solver_interval
    assert lo - 1e-12 * abs(lo) <= sol.objective <= hi + 1e-12 * abs(hi)  # (objective recomputed in floats)


def test_w_step_interior_maximiser():
    # a large kappa makes the maximiser interior (||v|| < 1, multiplier 0)
    mom = _moments("linear", 13)
    prob, model = _w_model(mom, 50.0)
    ref = model.solve(backend="clarabel")
    fit = solve_w_step(mom, 50.0, *(float(p.value) for p in prob._params[1:]))
    assert np.linalg.norm(fit.v) < 1 - 1e-6 and fit.lam == 0.0 and fit.status == "optimal"
    scale = np.linalg.norm(mom.dmu) + sum(float(p.value) for p in prob._params[1:])
    assert fit.lower - 1e-8 * scale <= ref.objective <= fit.upper + 1e-8 * scale


def test_w_step_bad_input():
    mom = _moments("linear", 14)
    with pytest.raises(InputError):
        solve_w_step(mom, 1.0, 0.0, 1.0)  # c1 = 0: not the smooth case
    with pytest.raises(InputError):
        solve_w_step(mom, np.nan, 1.0, 1.0)
    prob, model = _w_model(mom, 1.0)
    prob.set_kappa(1.0)
    assert prob.structured_auto(None)


@pytest.mark.parametrize("scale", [1e8, 1e-8])
def test_w_step_scaled_data_certified_or_honest(scale):
    X1, X0 = _data(15)
    mom = class_moments(X1 * scale, X0 * scale)
    prob, model = _w_model(mom, 1.0)
    c1, c0 = (float(p.value) for p in prob._params[1:])
    fit = solve_w_step(mom, 1.0, c1, c0)
    assert fit.lower <= fit.upper
    # data x s: d -> s d, F -> s F, so h_s(v) = s h_1(v) with c_j / s on the unscaled data
    ref = solve_w_step(class_moments(X1, X0), 1.0, c1 / scale, c0 / scale)
    assert ref.status == "optimal"
    tol = 1e-8 * scale * (np.linalg.norm(class_moments(X1, X0).dmu) + (c1 + c0) / scale)
    assert fit.lower <= scale * ref.upper + tol and scale * ref.lower - tol <= fit.upper
    if fit.status == "optimal":
        assert abs(fit.upper - scale * ref.upper) <= tol


# ---------------------------------------------------------------------------------------------- HP-MPM
@pytest.mark.parametrize("kind", ["linear", "kernel"])
def test_hp_mpm_bracket_contains_clarabel_bisection_kappa(kind):
    mom = _moments(kind, 16)
    prob = HPMPMProblem(mom, delta=0.1, nu=0.01)
    fast = prob.solve()
    slow = HPMPMProblem(mom, delta=0.1, nu=0.01).solve(backend="clarabel")
    assert fast.backend == "structured" and fast.status == "optimal"
    lo, hi = fast.kappa_bracket
    assert lo <= fast.kappa * (1 + 1e-8) and fast.kappa <= hi
    k = slow.kappa
    assert lo - 1e-6 * k <= k <= hi + 1e-6 * k
    assert slow.kappa_bracket[0] - 1e-6 * k <= fast.kappa <= slow.kappa_bracket[1] + 1e-6 * k
    # the last w-step is at kappa ~ kappa*, where g ~ 0: a narrow interval near 0 is judged in the data's units
    assert fast.certificate is not None and fast.certificate.verdict == "certified"
    lo_g, hi_g = fast.solution.solver_interval
    assert hi_g - lo_g <= 1e-9 * (np.linalg.norm(mom.dmu) + 1.0) and lo_g <= fast.solution.objective * (1 + 1e-9)


def test_bisection_probes_fall_back_to_generic_solvers_when_newton_breaks_down(monkeypatch):
    """With certiprog choosing the solver the probes call the Newton w-step directly; a breakdown there moves the
    bisection to the generic chooser (noted), and the bracket is the same."""
    from certiprog.errors import BackendError

    mom = _moments("linear", 16)
    ref = HPMPMProblem(mom, delta=0.1, nu=0.01).solve()
    prob = HPMPMProblem(mom, delta=0.1, nu=0.01)
    calls = []

    def broken(kappa, *a, **k):
        calls.append(kappa)
        raise BackendError("simulated breakdown")

    monkeypatch.setattr(prob, "newton_w_step", broken)
    monkeypatch.setattr(prob, "structured_auto", lambda problem: problem is None)  # the Model path: generic only
    res = prob.solve()
    assert calls and any("generic solvers from here" in n for n in res.notes)
    assert res.status == "optimal" and res.backend != "structured"
    k = ref.kappa
    assert res.kappa_bracket[0] - 1e-6 * k <= k <= res.kappa_bracket[1] + 1e-6 * k


def test_hp_mpm_alternating_uses_the_structured_w_step():
    mom = _moments("linear", 17)
    prob = HPMPMProblem(mom, delta=0.1, nu=0.01)
    alt = prob.solve("alternating")
    bis = prob.solve()
    assert alt.backend == "structured" and abs(alt.kappa - bis.kappa) <= 1e-6 * bis.kappa


@pytest.mark.parametrize("nu", [1e-6, 1e-4])
def test_hp_mpm_tiny_uncertainty_terms(nu):
    # c_j -> 0: the w-step nears the MPM's kinks; the structured bracket stays proven and overlaps Clarabel's
    rng = np.random.default_rng(5)
    X1, X0 = rng.normal(size=(40, 5)) + 0.5, rng.normal(size=(35, 5)) - 0.5
    mom = kernel_class_moments(X1, X0, "rbf", 0.1)
    fast = HPMPMProblem(mom, delta=0.1, nu=nu).solve()
    slow = HPMPMProblem(mom, delta=0.1, nu=nu).solve(backend="clarabel")
    assert fast.backend == "structured" and fast.status == "optimal"
    lo, hi = fast.kappa_bracket
    slo, shi = slow.kappa_bracket
    assert hi - lo <= 1e-8 * hi
    assert lo <= shi * (1 + 1e-9) and slo <= hi * (1 + 1e-9)  # both brackets contain kappa*


@settings(max_examples=10, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10**6), kappa=st.floats(0.01, 20.0), nu=st.floats(1e-5, 0.05))
def test_property_w_step_interval_contains_clarabel(seed, kappa, nu):
    X1, X0 = _data(seed, 25, 20, 4)
    mom = class_moments(X1, X0)
    prob, model = _w_model(mom, kappa, nu)
    c1, c0 = (float(p.value) for p in prob._params[1:])
    fit = solve_w_step(mom, kappa, c1, c0)
    ref = model.solve(backend="clarabel")
    scale = np.linalg.norm(mom.dmu) + c1 + c0
    assert fit.lower <= fit.upper and fit.status == "optimal"
    if ref.verdict in ("accurate", "certified"):
        assert fit.lower - 1e-6 * scale <= ref.objective <= fit.upper + 1e-6 * scale
