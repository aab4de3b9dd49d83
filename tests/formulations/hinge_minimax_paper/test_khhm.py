"""Paper 000, Alg. 1 (KHHM, `khhm.fit_khhm`): greedy steps against an independent eq. (8) solve, the history against
direct recomputation, certificates, the corrected acceptance rules (the tracked risk never increases; the printed
algorithm's increase shown on a seeded instance), Lemma 2's probability part, backends, and bad input."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from certiprog.errors import CertiprogError, InputError
from certiprog.formulations.hinge_minimax_paper.khhm import (
    background_moments,
    fit_khhm,
    hinge_losses,
    inside,
    region_scores,
)
from certiprog.formulations.hinge_minimax_paper.programs import background_risk, hinge_minimax, worst_case_fp


def two_clusters(seed, n_pos=40, n_neg=300):
    """Positives near (2, 0); negatives in two clusters, (-3, 0) and (2, 4): one hyperplane cannot reject both well."""
    rng = np.random.default_rng(seed)
    Xp = rng.normal(size=(n_pos, 2)) * 0.5 + [2.0, 0.0]
    centres = np.array([[-3.0, 0.0], [2.0, 4.0]])
    Xn = centres[rng.integers(0, 2, n_neg)] + rng.normal(size=(n_neg, 2)) * 0.9
    return Xp, Xn


def eq8(X, Z, delta=0.3, lam=0.1):
    mu, S = background_moments(Z)
    m = hinge_minimax(X, mu, S, lam, delta, bias=True)
    return m.derived(m.solve(backend="clarabel"))


def test_greedy_steps_are_eq8_on_the_conditional_moments():
    Xp, Xn = two_clusters(0)
    fit = fit_khhm(Xp, Xn, K=2, delta=0.3, lam=0.1, max_rounds=0, backend="clarabel")
    first = eq8(Xp, Xn)
    assert np.allclose(fit.W[0], first.w, atol=1e-5) and abs(fit.b[0] - first.b) <= 1e-5
    S = Xn @ fit.W[0] + fit.b[0] >= 0
    assert 0 < S.sum() < len(Xn)
    second = eq8(Xp, Xn[S])
    assert np.allclose(fit.W[1], second.w, atol=1e-5) and abs(fit.b[1] - second.b) <= 1e-5
    assert fit.active.all() and fit.rounds == 0 and len(fit.history) == 1


def test_history_matches_a_direct_recomputation_and_is_certified():
    Xp, Xn = two_clusters(1)
    fit = fit_khhm(Xp, Xn, K=3, delta=0.3, lam=0.1, eps=0.0, backend="clarabel")
    last = fit.history[fit.best_round]   # the returned model's round
    Wa, ba = fit.W[fit.active], fit.b[fit.active]
    assert last.hinge == pytest.approx(hinge_losses(Xp, Wa, ba).sum(), abs=1e-9)
    assert last.hinge_mean == pytest.approx(last.hinge / len(Xp))
    assert last.background_rate == pytest.approx(np.mean(inside(Xn, fit.W, fit.b)))
    mu, S = background_moments(Xn)
    q = background_risk(fit.W, mu, S, fit.b)
    ref = q.derived(q.solve(backend="cvxpy")).risk
    assert last.worst_case_background == pytest.approx(ref, abs=1e-6)
    lo, hi = last.worst_case_interval
    assert lo - 1e-9 <= last.worst_case_background <= hi + 1e-9 and hi - lo <= 1e-5
    assert last.risk == pytest.approx(last.hinge_mean + last.worst_case_background)
    assert fit.certified, fit.verdicts
    assert {s.program for s in fit.subproblems} == {"eq8", "thm1"}
    assert all(s.interval is not None for s in fit.subproblems if s.verdict == "certified")
    # the score is the min over the active planes; inactive rows are the constant half-space (0, 1)
    assert np.array_equal(fit.decision(Xn) >= 0, inside(Xn, fit.W, fit.b))
    assert np.all(fit.W[~fit.active] == 0) and np.all(fit.b[~fit.active] == 1)
    (W, b), = fit.components()
    assert W.shape == (3, 2) and b.shape == (3,)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), K=st.integers(2, 3))
def test_tracked_risk_never_increases_with_the_corrected_acceptance(seed, K):
    Xp, Xn = two_clusters(seed, n_pos=30, n_neg=200)
    fit = fit_khhm(Xp, Xn, K=K, delta=0.3, lam=0.1, eps=-0.0, max_rounds=4, accept="risk", backend="clarabel",
                   certify=False)
    risks = [h.risk for h in fit.history]
    assert all(b <= a for a, b in zip(risks, risks[1:])), risks
    fit_b = fit_khhm(Xp, Xn, K=K, delta=0.3, lam=0.1, max_rounds=4, accept="background", backend="clarabel",
                     certify=False)
    rates = [h.background_rate for h in fit_b.history]
    assert all(b <= a for a, b in zip(rates, rates[1:])), rates


def test_printed_algorithm_increases_risk_and_background_rate():
    """Lemma 2 (000-L2b): the printed Alg. 1 keeps every refit; on this seeded instance the refit of hyperplane 0
    in round 1 raises both the background rate (0 -> 1/300) and the tracked risk; the corrected rule keeps the old
    hyperplane there."""
    Xp, Xn = two_clusters(2)
    paper = fit_khhm(Xp, Xn, K=3, delta=0.3, lam=0.1, eps=0.0, accept="always", backend="clarabel", certify=False)
    h0, h1 = paper.history[0], paper.history[1]
    assert h1.background_rate > h0.background_rate and h1.risk > h0.risk
    fixed = fit_khhm(Xp, Xn, K=3, delta=0.3, lam=0.1, eps=0.0, accept="risk", backend="clarabel", certify=False)
    assert fixed.history[1].risk <= fixed.history[0].risk and not all(fixed.history[1].accepted)


def test_lemma2_probability_part_on_every_greedy_plane():
    """Each active greedy plane t has Cantelli worst case <= delta under the moments of the negatives it was fitted
    on, so the empirical joint rate is <= P(z in S_t) * (the conditional rate) and the conditional rate is bounded
    by the worst case only in the worst-case sense: check the exact product identity and the worst-case bound."""
    Xp, Xn = two_clusters(3)
    delta = 0.3
    fit = fit_khhm(Xp, Xn, K=3, delta=delta, lam=0.1, max_rounds=0, backend="clarabel")
    for t in np.flatnonzero(fit.active):
        S = inside(Xn, fit.W, fit.b, rows=np.flatnonzero(fit.active & (np.arange(3) < t)))
        mu, Sig = background_moments(Xn[S])
        assert worst_case_fp(fit.W[t], mu, Sig, fit.b[t]) <= delta + 1e-6
        cond = np.mean(Xn[S] @ fit.W[t] + fit.b[t] >= 0)
        joint = np.mean(S & (Xn @ fit.W[t] + fit.b[t] >= 0))
        assert joint == pytest.approx(cond * S.mean())


def test_no_negative_left_makes_the_remaining_planes_inactive():
    rng = np.random.default_rng(4)
    Xp = rng.normal(size=(30, 2)) * 0.3 + [4.0, 0.0]
    Xn = rng.normal(size=(100, 2)) * 0.5 + [-4.0, 0.0]
    fit = fit_khhm(Xp, Xn, K=3, delta=0.02, lam=0.1, backend="clarabel")  # gamma = 7: the plane is 3.5 sd away
    assert fit.active[0] and not fit.active[1:].any()
    # eq. (8) runs only for plane 0 (greedy and its refit); planes 1, 2 have no negative to be trained against
    assert [(s.stage, s.hyperplane) for s in fit.subproblems if s.program == "eq8"] == \
        [("greedy", 0)] + [("refit", 0)] * fit.rounds and fit.rounds == 10
    assert fit.history[-1].background_rate == 0.0
    assert np.allclose(region_scores(Xp, fit.W, fit.b, fit.active), Xp @ fit.W[0] + fit.b[0])


def test_backends_agree():
    Xp, Xn = two_clusters(5, n_pos=25, n_neg=150)
    a = fit_khhm(Xp, Xn, K=2, delta=0.3, lam=0.1, max_rounds=1, backend="clarabel")
    b = fit_khhm(Xp, Xn, K=2, delta=0.3, lam=0.1, max_rounds=1, backend="cvxpy")
    assert np.allclose(a.W, b.W, atol=1e-4) and np.allclose(a.b, b.b, atol=1e-4)
    assert a.history[-1].worst_case_background == pytest.approx(b.history[-1].worst_case_background, abs=1e-6)


def test_homogeneous_planes_without_bias():
    Xp, Xn = two_clusters(6)
    fit = fit_khhm(Xp, Xn, K=2, delta=0.3, lam=0.1, bias=False, max_rounds=1, backend="clarabel")
    assert np.all(fit.b[fit.active] == 0.0)


@pytest.mark.parametrize("kw, match", [
    (dict(K=0), "K"), (dict(K=1.5), "K"), (dict(K=True), "K"), (dict(delta=0.0), "delta"), (dict(delta=1.0), "delta"),
    (dict(lam=-1.0), "lam"), (dict(eps=-1.0), "eps"), (dict(max_rounds=-1), "max_rounds"),
    (dict(accept="sometimes"), "accept"), (dict(cov_ridge=-1.0), "cov_ridge"), (dict(lam=float("nan")), "lam")])
def test_bad_settings(kw, match):
    Xp, Xn = two_clusters(0, n_pos=5, n_neg=20)
    with pytest.raises(InputError, match=match):
        fit_khhm(Xp, Xn, **kw)


def test_bad_data():
    Xp, Xn = two_clusters(0, n_pos=5, n_neg=20)
    bad = Xp.copy()
    bad[0, 1] = np.nan
    with pytest.raises(InputError, match="NaN"):
        fit_khhm(bad, Xn)
    with pytest.raises(InputError, match="NaN"):
        fit_khhm(Xp, np.vstack([Xn, [np.inf, 0]]))
    with pytest.raises(InputError, match="rows"):
        fit_khhm(Xp[:0], Xn)  # no positive
    with pytest.raises(InputError, match="rows"):
        fit_khhm(Xp, Xn[:1])  # one negative: no covariance
    with pytest.raises(InputError, match="columns"):
        fit_khhm(Xp, Xn[:, :1])
    line = np.c_[np.linspace(-3, 3, 30), np.zeros(30)]  # negatives on a line: singular covariance
    with pytest.raises(CertiprogError, match="singular"):
        fit_khhm(Xp, line)
    fit = fit_khhm(Xp, line, cov_ridge=1e-3, max_rounds=0, backend="clarabel")  # the ridge makes it usable
    assert fit.W.shape == (2, 2)


def test_set_moments_and_set_halfspaces_reuse_the_compiled_model():
    """eq. (8) moved to new moments equals a fresh build; Thm 1 moved to a new region equals a fresh build; the
    compiled structure is kept (no recompilation)."""
    from certiprog.formulations.hinge_minimax_paper.programs import set_halfspaces, set_moments

    Xp, Xn = two_clusters(7)
    m = hinge_minimax(Xp, *background_moments(Xn), 0.1, 0.3, bias=True)
    m.solve(backend="clarabel")
    compiled = m.compile()
    sub = Xn[Xn[:, 1] > 1.0]
    moved = m.derived(set_moments(m, *background_moments(sub)).solve(backend="clarabel"))
    assert m.compile() is compiled
    fresh = eq8(Xp, sub)
    assert moved.objective == pytest.approx(fresh.objective, rel=1e-7) and np.allclose(moved.w, fresh.w, atol=1e-5)
    mu, S = background_moments(Xn)
    W = np.array([[1.0, 0.0], [0.0, -1.0]])
    q = background_risk(W, mu, S, np.array([-2.0, 1.0]))
    q.solve(backend="clarabel")
    got = q.derived(set_halfspaces(q, W, np.array([-1.0, 3.0])).solve(backend="clarabel")).d2
    ref = background_risk(W, mu, S, np.array([-1.0, 3.0]))
    assert got == pytest.approx(ref.derived(ref.solve(backend="cvxpy")).d2, rel=1e-6)
    with pytest.raises(InputError, match="K = 2"):
        set_halfspaces(q, W[:1], np.zeros(1))
    with pytest.raises(InputError, match="hinge_minimax"):
        set_moments(q, mu, S)
    with pytest.raises(InputError, match="indefinite"):
        set_moments(m, mu, -S)


@pytest.mark.parametrize("factor, singular", [(0.3, True), (3.0, False)])
def test_one_positive_definiteness_test_for_alg1_and_thm1(factor, singular):
    """`programs.PD_RTOL` is the one threshold: Alg. 1's check of the negatives' covariance and Thm 1's QP
    (`background_risk`, `background_risks`) refuse or accept the same Sigma."""
    from certiprog.formulations.hinge_minimax_paper.programs import PD_RTOL, background_risks

    Xp, Xn = two_clusters(2, n_pos=8, n_neg=60)
    mu, S = background_moments(Xn)
    evals, V = np.linalg.eigh(S)
    scale = max(1.0, float(np.max(np.abs(S))))
    evals[0] = factor * PD_RTOL * scale * 2  # just below / above the threshold (d = 2)
    S2 = (V * evals) @ V.T
    S2 = (S2 + S2.T) / 2
    from certiprog.formulations.hinge_minimax_paper.khhm import check_background_covariance

    W = np.array([[1.0, 0.0]])
    calls = [lambda: check_background_covariance(S2), lambda: background_risk(W, mu, S2, [-5.0]),
             lambda: background_risks(W, np.array([[-5.0]]), mu, S2)]
    for call in calls:
        if singular:
            with pytest.raises(InputError, match="singular"):
                call()
        else:
            call()


# ------------------------------------------------------------------ eq. (8) on the certified structured solver
@pytest.mark.parametrize("bias", [True, False])
def test_structured_eq8_gives_the_same_fit_and_records_its_solver(bias):
    Xp, Xn = two_clusters(1)
    kw = dict(K=2, delta=0.3, lam=0.1, bias=bias, max_rounds=1)
    ref = fit_khhm(Xp, Xn, backend="clarabel", **kw)
    fit = fit_khhm(Xp, Xn, solver="structured", **kw)
    eq8s = [s for s in fit.subproblems if s.program == "eq8"]
    assert eq8s and all(s.solver in ("structured", "clarabel") for s in eq8s)
    assert all(s.fallback is None for s in eq8s if s.solver == "structured")
    assert all(s.verdict.startswith("certified") for s in eq8s if s.solver == "structured")
    assert any(s.solver == "structured" for s in eq8s)
    assert all(s.solver == "clarabel" and s.fallback is None for s in ref.subproblems if s.program == "eq8")
    assert np.array_equal(fit.active, ref.active)
    assert np.allclose(fit.W, ref.W, atol=1e-3) and np.allclose(fit.b, ref.b, atol=1e-3)
    assert fit.risk == pytest.approx(ref.risk, rel=1e-5)
    assert fit.certified, fit.verdicts
    d = eq8s[0].to_dict()
    assert d["solver"] == eq8s[0].solver and "fallback" in d


def test_structured_rule_and_its_fallback(monkeypatch):
    """certiprog's choice answers every covered eq. (8) by the structured solver (issue 23: its interior point
    certifies Alg. 1's refits too); STRUCTURED_MIN_SIZE switches it off; an answer it cannot certify goes to the
    generic backend with the reason recorded; the planes agree on every path."""
    from certiprog.formulations.hinge_minimax_paper import khhm

    Xp, Xn = two_clusters(2, n_pos=30, n_neg=200)
    kw = dict(K=2, delta=0.3, lam=0.1, max_rounds=1)
    direct = fit_khhm(Xp, Xn, **kw)
    eq8s = [s for s in direct.subproblems if s.program == "eq8"]
    assert eq8s and all(s.solver == "structured" and s.fallback is None and s.verdict == "certified" for s in eq8s)
    assert direct.certified
    monkeypatch.setattr(khhm, "STRUCTURED_MIN_SIZE", float("inf"))
    generic = fit_khhm(Xp, Xn, **kw)
    assert all(s.solver != "structured" and s.fallback is None for s in generic.subproblems)
    assert np.array_equal(direct.active, generic.active)
    assert np.allclose(direct.W, generic.W, atol=1e-3) and np.allclose(direct.b, generic.b, atol=1e-3)
    monkeypatch.setattr(khhm, "STRUCTURED_MIN_SIZE", 0)
    monkeypatch.setattr(khhm, "STRUCTURED_MAX_ITER", 0)  # no iteration: only a trivial fit could certify
    fb = fit_khhm(Xp, Xn, **kw)
    eq8s = [s for s in fb.subproblems if s.program == "eq8"]
    assert eq8s[0].solver != "structured" and eq8s[0].fallback.startswith("structured interval")
    assert np.allclose(fb.W, generic.W, atol=1e-3) and fb.certified
    assert khhm.uses_structured(None, None, True, 0.1, 10, 2)
    assert not khhm.uses_structured(None, None, False, 0.1, 10, 2)  # squared_reg=False: not covered
    assert not khhm.uses_structured(None, None, True, 0.0, 10, 2)  # lam = 0: not covered
    assert not khhm.uses_structured("clarabel", None, True, 0.1, 10, 2)  # a named backend is obeyed


@pytest.mark.parametrize("seed, delta, bias", [(0, 0.3, True), (1, 0.1, True), (2, 0.5, False), (3, 0.9, True)])
def test_structured_certificate_agrees_with_the_generic_check(seed, delta, bias):
    """The structured solver's interval (the certificate `solve_eq8` keeps without re-checking) and certiprog's
    generic rigorous check of Clarabel's answer both hold p*: they overlap, each is narrow, and the structured
    answer's recomputed objective lies in its own interval; also on the conditional moments of a refit."""
    from certiprog.formulations.hinge_minimax_paper.khhm import solve_eq8
    from certiprog.formulations.hinge_minimax_paper.programs import set_moments

    Xp, Xn = two_clusters(seed, n_pos=50, n_neg=400)
    mu, S = background_moments(Xn)
    model = hinge_minimax(Xp, mu, S, 0.1, delta, bias=bias)
    for Z in (Xn, Xn[Xn[:, 1] > 2.0]):  # all negatives; the cluster a second plane is fitted against
        set_moments(model, *background_moments(Z))
        ans, verdict, (lo, up), fallback = solve_eq8(model, True, True)
        assert verdict == "certified" and fallback is None and ans.backend == "structured"
        ref, ref_verdict, ref_iv, _ = solve_eq8(model, False, True, backend="clarabel")
        assert str(ref_verdict) == "certified", ref_verdict
        assert max(lo, ref_iv[0]) <= min(up, ref_iv[1]), ((lo, up), ref_iv)
        assert up - lo <= 1e-6 * max(1.0, abs(up))
        obj = model.derived(ans).objective
        assert lo <= obj <= up
        assert obj == pytest.approx(model.derived(ref).objective, rel=1e-5, abs=1e-7)


@pytest.mark.parametrize("kw, match", [(dict(squared_reg=False), "squared_reg=False"), (dict(lam=0.0), "lam = 0"),
                                       (dict(backend="clarabel"), "no backend")])
def test_structured_solver_refuses_what_it_does_not_cover(kw, match):
    Xp, Xn = two_clusters(0, n_pos=5, n_neg=20)
    with pytest.raises(InputError, match=match):
        fit_khhm(Xp, Xn, solver="structured", **kw)


def test_lhm_with_the_structured_solver():
    from certiprog.formulations.hinge_minimax_paper.lhm import fit_lhm

    Xp, Xn = two_clusters(3, n_pos=30, n_neg=150)
    kw = dict(C=2, K=1, delta=0.3, lam=0.1, max_iter=2, max_rounds=0, random_state=0)
    fit = fit_lhm(Xp, Xn, solver="structured", **kw)
    ref = fit_lhm(Xp, Xn, backend="clarabel", **kw)
    assert any(s.solver == "structured" for s in fit.subproblems)
    assert all(s.solver != "structured" for s in fit.subproblems if s.program == "thm1")
    assert np.allclose(fit.W, ref.W, atol=1e-3) and fit.risk == pytest.approx(ref.risk, rel=1e-5)


# ------------------------------------------------------------------------------------------------------------------
# Issue 24: the refinement runs, the best round is kept, infeasible planes are reported, the enclosing start
# ------------------------------------------------------------------------------------------------------------------
def around_the_mean(seed=0, n_pos=60, n_neg=600, sd=0.4):
    """Positives N(0, sd^2 I) inside negatives N(0, I): every region holding the background mean has worst-case
    risk 1, so Alg. 1's greedy start cannot begin."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n_pos, 2)) * sd, rng.normal(size=(n_neg, 2))


def test_a_fixed_number_of_rounds_runs_by_default():
    Xp, Xn = two_clusters(5)
    fit = fit_khhm(Xp, Xn, K=3, delta=0.3, lam=0.1, max_rounds=4, backend="clarabel", certify=False)
    assert fit.rounds == 4 and [h.round for h in fit.history] == [0, 1, 2, 3, 4]
    assert fit.stop_reason == "max_rounds"
    refits = [s for s in fit.subproblems if s.program == "eq8" and s.stage == "refit"]
    assert all(len(h.accepted) == 3 for h in fit.history[1:]) and {s.round for s in refits} == {1, 2, 3, 4}


def test_eps_rule_is_on_thm1_worst_case_probability_and_can_fire_or_run():
    Xp, Xn = two_clusters(6)
    # a fall of more than 1 is impossible: the printed rule stops after the first round
    fit = fit_khhm(Xp, Xn, K=3, delta=0.3, lam=0.1, eps=1.0, max_rounds=6, backend="clarabel", certify=False)
    assert fit.rounds == 1 and "worst-case background risk P fell by" in fit.stop_reason
    P = [h.worst_case_background for h in fit.history]
    assert P[0] - P[1] <= 1.0
    # with the rule off (eps None) the same fit runs every round; the rule with eps = 0 stops exactly where P first
    # stops falling
    full = fit_khhm(Xp, Xn, K=3, delta=0.3, lam=0.1, max_rounds=6, accept="always", keep="last", backend="clarabel",
                    certify=False)
    P = [h.worst_case_background for h in full.history]
    first = next((t for t in range(1, len(P)) if P[t - 1] - P[t] <= 0.0), None)
    ruled = fit_khhm(Xp, Xn, K=3, delta=0.3, lam=0.1, eps=0.0, max_rounds=6, accept="always", keep="last",
                     backend="clarabel", certify=False)
    assert ruled.rounds == (6 if first is None else first)


def test_keep_best_returns_the_round_with_the_smallest_tracked_risk():
    Xp, Xn = two_clusters(2)
    best = fit_khhm(Xp, Xn, K=3, delta=0.3, lam=0.1, max_rounds=5, accept="always", backend="clarabel",
                    certify=False)
    last = fit_khhm(Xp, Xn, K=3, delta=0.3, lam=0.1, max_rounds=5, accept="always", keep="last", backend="clarabel",
                    certify=False)
    risks = [h.risk for h in best.history]
    assert [h.risk for h in last.history] == pytest.approx(risks)     # the same run, another round returned
    assert last.best_round == 5 and best.risk == min(risks) and best.history[best.best_round].risk == min(risks)
    assert max(risks) > min(risks)                                    # the printed rule moves the risk (000-L2b)
    # the returned planes are that round's: their hinge and background rate recomputed
    h = best.history[best.best_round]
    Wa, ba = best.W[best.active], best.b[best.active]
    assert h.hinge == pytest.approx(hinge_losses(Xp, Wa, ba).sum(), abs=1e-9)
    assert h.background_rate == pytest.approx(np.mean(inside(Xn, best.W, best.b, best.active)))


def test_k1_runs_no_round():
    Xp, Xn = two_clusters(0)
    fit = fit_khhm(Xp, Xn, K=1, delta=0.3, lam=0.1, max_rounds=25, backend="clarabel", certify=False)
    assert fit.rounds == 0 and fit.stop_reason.startswith("K = 1")
    assert sum(s.program == "eq8" for s in fit.subproblems) == 1


def test_greedy_start_that_cannot_begin_is_refused_or_replaced_by_the_enclosing_box():
    from sklearn.metrics import roc_auc_score

    from certiprog.formulations.hinge_minimax_paper.khhm import InfeasiblePlaneWarning

    Xp, Xn = around_the_mean(0)
    with pytest.raises(InputError, match="greedy start cannot begin"):
        fit_khhm(Xp, Xn, K=4, delta=0.5, start="greedy", certify=False)
    with pytest.raises(InputError, match="bias=True"):
        fit_khhm(Xp, Xn, K=4, delta=0.5, bias=False, certify=False)
    with pytest.warns(InfeasiblePlaneWarning, match="greedy start cannot begin"):
        fit = fit_khhm(Xp, Xn, K=4, delta=0.5, max_rounds=2, certify=False)
    assert fit.start == "enclosing" and fit.active.all() and np.abs(fit.W).sum() > 0
    # every greedy plane was trivial, and is reported
    assert [(e["stage"], e["hyperplane"]) for e in fit.events[:4]] == [("greedy", k) for k in range(4)]
    # a meaningful classifier: near the Bayes AUC 1/(1 + 0.16) = 0.862 of -|x|^2, far from the accept-all 0.5
    Tp, Tn = around_the_mean(1, 400, 4000)
    y = np.r_[np.ones(400), np.zeros(4000)]
    assert roc_auc_score(y, fit.decision(np.vstack([Tp, Tn]))) > 0.8
    # the box holds the background mean: Thm 1's risk is 1, as for any region there
    assert fit.worst_case_background == 1.0


def test_enclosing_polytope_holds_every_positive_along_the_concentrated_directions():
    from scipy.linalg import eigh

    from certiprog.formulations.hinge_minimax_paper.khhm import enclosing_polytope

    rng = np.random.default_rng(3)
    Xp = rng.normal(size=(50, 3)) * [0.2, 1.0, 0.5]
    Z = rng.normal(size=(400, 3))
    mu, S = background_moments(Z)
    W, b, active = enclosing_polytope(Xp, S, 7)
    assert active.tolist() == [True] * 6 + [False] and np.all(W[6] == 0) and b[6] == 1
    scores = Xp @ W[:6].T + b[:6]
    assert np.allclose(scores.min(axis=0), 1.0) and np.allclose(np.median(scores, axis=0), 2.0)
    # one positive: a box of one background sd around it, not a point
    W1, b1, _ = enclosing_polytope(Xp[:1], S, 2)
    assert np.allclose(Xp[:1] @ W1.T + b1, 1.0) and np.all(np.sqrt(np.einsum("kd,de,ke->k", W1, S, W1)) == 1.0)
    # faces in +-pairs along the generalised eigenvectors, the most concentrated (smallest ratio) first
    vals, V = eigh(np.cov(Xp, rowvar=False, bias=True), S)
    for j in range(3):
        for sign, row in ((1, 2 * j), (-1, 2 * j + 1)):
            u = W[row] / np.linalg.norm(W[row])
            assert abs(abs(u @ V[:, j]) / np.linalg.norm(V[:, j]) - 1) < 1e-9 and sign * (u @ V[:, j]) > 0
    assert vals[0] < vals[1] < vals[2]


def test_a_later_greedy_plane_with_only_the_trivial_optimum_is_reported():
    """Positives at (3, 0); a far cluster of negatives (plane 1 cuts it) and a ring of negatives around the
    positives: the negatives inside plane 1 are the ring, centred on the positives, so plane 2 has only w = 0."""
    from certiprog.formulations.hinge_minimax_paper.khhm import InfeasiblePlaneWarning

    rng = np.random.default_rng(7)
    Xp = rng.normal(size=(40, 2)) * 0.3 + [3.0, 0.0]
    angle = rng.uniform(0, 2 * np.pi, 40)
    ring = np.column_stack([np.cos(angle), np.sin(angle)]) * 1.5 + [3.0, 0.0]
    Xn = np.vstack([rng.normal(size=(400, 2)) * 0.7 + [-6.0, 0.0], ring])
    with pytest.warns(InfeasiblePlaneWarning, match="greedy hyperplane"):
        fit = fit_khhm(Xp, Xn, K=2, delta=0.3, lam=0.1, max_rounds=1, backend="clarabel", certify=False)
    assert fit.start == "greedy" and fit.active.tolist() == [True, False]
    assert fit.events[0]["stage"] == "greedy" and fit.events[0]["hyperplane"] == 1
    assert fit.events[0]["n_background"] == 40   # exactly the ring


@pytest.mark.parametrize("kw, match", [(dict(keep="first"), "keep"), (dict(start="box"), "start"),
                                       (dict(eps=-1.0), "eps")])
def test_bad_new_settings(kw, match):
    Xp, Xn = two_clusters(0)
    with pytest.raises(InputError, match=match):
        fit_khhm(Xp, Xn, **kw)
