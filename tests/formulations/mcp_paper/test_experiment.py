"""`certiprog reproduce mcp` (paper 001 Sec. 4): generator, sampling, point-SVM baseline, MCP runs, outputs, CLI."""
import json
import math

import cvxpy as cp
import numpy as np

from certiprog.model.index_sets import sample_lq_ball
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog.cli import main
from certiprog.errors import InputError
from certiprog.experiments.runner import encode
from certiprog.formulations.mcp_paper import experiment as exp
from certiprog.formulations.mcp_paper.programs import mcp as mcp_model



# ------------------------------------------------------------------ data
@pytest.mark.parametrize("q", [1.0, 2.0, 50.0, math.inf])
def test_sample_lq_ball_is_uniform(q):
    """Uniform in the unit Lq ball of R^D iff ||s||_q <= 1 and P(||s||_q <= r) = r^D (volume scaling)."""
    D, n = 3, 20000
    s = sample_lq_ball(n, D, q, np.random.default_rng(0))
    norms = np.linalg.norm(s, ord=q, axis=1)
    assert s.shape == (n, D) and np.all(norms <= 1 + 1e-12)
    u = np.sort(norms ** D)  # must be U(0, 1)
    ks = np.max(np.abs(u - np.arange(1, n + 1) / n))
    assert ks < 1.63 / np.sqrt(n)  # Kolmogorov-Smirnov at level 1%
    assert np.all(np.abs(s.mean(axis=0)) < 0.02)  # symmetric
    # uniform within the ball, not only radially: q = 1, D = 2: a quarter of the points lie in the inner half
    if q == 1.0:
        t = sample_lq_ball(n, 2, 1.0, np.random.default_rng(1))
        inner = np.mean(np.abs(t).sum(axis=1) <= 0.5)
        assert abs(inner - 0.25) < 0.015


def test_random_ellipsoids_and_samples_lie_in_the_manifolds():
    g = exp.random_ellipsoids(6, 30, 4, 5.0, 3.0, np.random.default_rng(2))
    assert g["centers"].shape == (6, 30) and g["bases"].shape == (6, 30, 4) and g["radii"].shape == (6, 4)
    assert sorted(g["labels"]) == [-1, -1, -1, 1, 1, 1]
    assert np.all((g["radii"] >= 2.5) & (g["radii"] <= 7.5))
    X, y = exp.sample_ellipsoids(g, 50, np.random.default_rng(3))
    assert X.shape == (300, 30) and np.array_equal(y, np.repeat(g["labels"], 50))
    for p in range(6):  # recover s from x = c + U (r o s) and check ||s||_3 <= 1
        coef, *_ = np.linalg.lstsq(g["bases"][p], (X[50 * p:50 * (p + 1)] - g["centers"][p]).T, rcond=None)
        s = coef.T / g["radii"][p]
        assert np.all(np.linalg.norm(s, ord=3, axis=1) <= 1 + 1e-9)
    for bad in (dict(P=1), dict(N=0), dict(D=2.5), dict(R0=-1.0), dict(q=0.5), dict(R0=np.nan)):
        args = dict(P=4, N=10, D=2, R0=1.0, q=2.0) | bad
        with pytest.raises(InputError):
            exp.random_ellipsoids(**args, rng=0)


# ------------------------------------------------------------------ point SVM baseline
def _cvxpy_svm(X, y, C=None):
    w = cp.Variable(X.shape[1])
    margins = cp.multiply(y, X @ w)
    if C is None:
        prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w)), [margins >= 1])
    else:
        prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * cp.sum(cp.pos(1 - margins))))
    prob.solve(solver=cp.CLARABEL)
    return prob, w.value


@settings(derandomize=True, deadline=None, max_examples=8)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 40), d=st.integers(1, 12))
def test_hard_margin_point_svm_matches_cvxpy(seed, n, d):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = rng.choice([-1.0, 1.0], n)
    w = exp.point_svm(X, y)
    prob, w_ref = _cvxpy_svm(X, y)
    if prob.status == "infeasible":
        assert w is None  # NNLS certifies non-separability
    else:
        assert w is not None
        assert np.min(y * (X @ w)) >= 1 - 1e-7
        assert abs(0.5 * w @ w - prob.value) <= 1e-5 * max(1.0, prob.value)


def test_hard_margin_point_svm_edge_cases():
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    assert exp.point_svm(X, np.array([1.0, 1.0])) is None  # x and -x with one label: no w through the origin
    w = exp.point_svm(np.array([[2.0, 0.0]]), np.array([1.0]))  # one point, one class: w = x / ||x||^2
    assert np.allclose(w, [0.5, 0.0])
    with pytest.raises(InputError, match="NaN"):
        exp.point_svm(np.array([[np.nan, 1.0]]), np.array([1.0]))
    with pytest.raises(InputError, match="entries"):
        exp.point_svm(np.ones((3, 2)), np.ones(2))
    with pytest.raises(InputError, match="labels"):
        exp.point_svm(np.ones((2, 2)), np.array([1.0, 0.0]))
    with pytest.raises(InputError, match="C"):
        exp.point_svm(np.ones((2, 2)), np.ones(2), C=-1.0)


def test_slack_point_svm_matches_cvxpy_objective():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((80, 6))
    y = np.sign(X[:, 0] + 0.8 * rng.standard_normal(80))
    for C in (0.1, 1.0):
        w = exp.point_svm(X, y, C)
        prob, _ = _cvxpy_svm(X, y, C)
        ours = 0.5 * w @ w + C * np.maximum(0, 1 - y * (X @ w)).sum()
        assert abs(ours - prob.value) <= 1e-6 * prob.value


def test_error_rate_counts_ties_as_errors():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    assert exp.error_rate(np.array([1.0, 0.0]), X, np.array([1.0, 1.0, -1.0])) == pytest.approx(1 / 3)
    assert math.isnan(exp.error_rate(None, X, np.ones(3)))


# ------------------------------------------------------------------ MCP runs
@pytest.fixture(scope="module")
def small():
    return exp.random_ellipsoids(4, 30, 3, 5.0, 2.0, np.random.default_rng(7))


def test_mcp_run_against_the_exact_program(small):
    run = exp.fit_mcp(exp.ellipsoid_manifolds(small), small["labels"], None, delta=0.01)
    exact = mcp_model(small["centers"], small["bases"], small["radii"], small["labels"], q=2).solve()
    assert exact.ok and run.status == "converged"
    # Cor. 3: F_MCP <= F* <= F_MCP / (1 - delta)^2 (1e-6 for the interior-point tolerance)
    assert run.objective <= exact.objective * (1 + 1e-6)
    assert exact.objective <= run.objective / 0.99 ** 2 * (1 + 1e-6)
    # one point per iteration: |T_k| = P + k - 1, and the iterates are those of the history
    assert [n for n, _ in run.iterates] == list(range(4, 4 + run.n_solves))
    assert run.n_points == 4 + run.n_solves - 1 and np.array_equal(run.iterates[-1][1], run.w)
    assert run.history[-1]["violation"] <= 0.01
    X, y = exp.sample_ellipsoids(small, 200, np.random.default_rng(8))
    assert exp.error_rate(run.w, X, y) == 0.0  # delta < 1: every manifold point classified with margin > 0


def test_mcp_error_curve_uses_the_iterates(small):
    run = exp.fit_mcp(exp.ellipsoid_manifolds(small), small["labels"], None, delta=0.01)
    X, y = exp.sample_ellipsoids(small, 100, np.random.default_rng(9))
    curve = exp.mcp_error_curve(run, 4, X, y)
    points = [n for n, _ in curve]
    assert points[0] == 4 and points[-1] == run.n_points and points == sorted(points)
    assert curve[-1][1] == exp.error_rate(run.w, X, y) == 0.0
    assert curve[0][1] > 0  # the centres alone do not separate the manifolds here
    # the k-th iterate is what MCP returns when stopped after k master solves
    k = exp.checkpoint_solves(run.n_solves, 4)[1]
    stopped = exp.fit_mcp(exp.ellipsoid_manifolds(small), small["labels"], None, 0.01, max_iter=k)
    assert np.allclose(stopped.w, run.iterates[k - 1][1])
    assert exp.checkpoint_solves(100, 5) == [1, 3, 10, 32, 100]


def test_capacity_task_m_is_the_first_zero_error_iterate():
    cfg = exp.Config(**exp.QUICK)
    row = exp.capacity_task("3d", 4, 3, 5.0, 0, cfg)
    assert row["separable"] and row["kappa"] > 0
    assert row["m"] >= row["P"] and row["m_kappa2"] == pytest.approx(row["m"] * row["kappa"] ** 2)
    g = exp.random_ellipsoids(4, cfg.sweep_N, 3, 5.0, 2.0, np.random.default_rng([0, exp.zlib_id("3d"), 4, 3, 0]))
    g2 = exp.random_ellipsoids(4, cfg.sweep_N, 3, 2.0, 2.0, np.random.default_rng([0, exp.zlib_id("3d"), 4, 3, 0]))
    assert np.allclose(g2["radii"] * 2.5, g["radii"]) and np.array_equal(g2["centers"], g["centers"])
    run = exp.fit_mcp(exp.ellipsoid_manifolds(g), g["labels"], None, 0.5)  # run on to a smaller violation
    first = next(i for i, h in enumerate(run.history) if h["violation"] < 1)
    assert run.history[first]["n_points"] == row["m"]
    # exact check of zero error on the whole manifolds at that iterate, and of an error just before it
    margins = lambda w: np.array([g["labels"][p] * (g["centers"][p] @ w) - np.linalg.norm(
        g["radii"][p] * (g["bases"][p].T @ w)) for p in range(4)])
    assert margins(run.iterates[first][1]).min() > 0
    if first > 0:
        assert margins(run.iterates[first - 1][1]).min() <= 0


# ------------------------------------------------------------------ the command
@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("mcp")
    figs = list(exp.FIGURES)
    rc = main(["reproduce", "mcp", "--quick", "--figures", *figs, "--out", str(out), "--no-progress"])
    return rc, out, figs


def test_quick_run_writes_every_output_with_finite_errors(quick_run):
    rc, out, figs = quick_run
    assert rc == 0
    for name in ("summary.md", "generalisation.csv", "capacity.csv", "curves.csv", "results.json", "capacity.png",
                 "convergence.png", "fig3a.png", "fig3b.png", "fig4a.png", "fig4b.png",
                 "images_2_D_translation__pixel__shift_2.png", "images_4_D_translation_shear__pixel__shift_2.png"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    res = json.loads((out / "results.json").read_text())
    recs = res["records"]
    gen = [r for r in recs if r["kind"] in ("ellipsoid", "image")]
    assert {r["figure"] for r in gen} == set(figs) - {"3c", "3d"}
    assert {r["config"] for r in gen if r["kind"] == "image"} == {"2-D translation, pixel, shift 2",
                                                                  "4-D translation+shear, pixel, shift 2"}
    for r in gen:
        assert 0 <= r["mcp"]["error"] <= 1 and r["mcp"]["n_points"] >= 4
        assert all(c["error"] is not None and 0 <= c["error"] <= 1 for c in r["mcp"]["curve"])
        for s in r["svm"]:
            assert s["error"] is None or 0 <= s["error"] <= 1
    for r in (r for r in recs if r["kind"] == "ellipsoid"):
        s = r["setting"]
        # hard-margin figures are separable (exact program), slack figures are not: the regimes of the paper
        assert r["exact"]["separable"] == (s["C"] is None)
        if s["C"] is None:
            assert r["mcp"]["error"] == 0.0
        # Cor. 3 / Cor. 5 brackets between MCP's objective and the exact optimum
        F, Fs, d, P = r["mcp"]["objective"], r["exact"]["objective"], res["config"]["delta"], s["P"]
        upper = F / (1 - d) ** 2 if s["C"] is None else F + P * s["C"] * d
        assert F <= Fs * (1 + 1e-5) and Fs <= upper * (1 + 1e-5)
    caps = [r for r in recs if r["kind"] == "capacity"]
    assert {r["figure"] for r in caps} == {"3c-P", "3c-D", "3d"}
    assert all(r["m_kappa2"] > 0 for r in caps if r["separable"])
    md = (out / "summary.md").read_text()
    assert "Paper's claims" in md and "m kappa^2" in md and "| 3a |" in md


@pytest.mark.parametrize("argv, message", [
    (["--figures", "5a"], "unknown figure"),
    (["--delta", "1.5"], "--delta"),
    (["--delta", "nan"], "--delta"),
    (["--reps", "0"], "--reps"),
    (["--n-test", "-3"], "--n-test"),
    (["--n-jobs", "0"], "--jobs"),
    (["--jobs", "0"], "--jobs"),
    (["--shard", "2/2"], "--shard"),
    (["--executor", "serial", "--scheduler", "tcp://127.0.0.1:1"], "--scheduler"),
])
def test_bad_arguments_give_clear_errors(argv, message, tmp_path, capsys):
    rc = main(["reproduce", "mcp", "--quick", "--out", str(tmp_path), *argv])
    assert rc == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "results.json").exists()


def test_plot_convergence_and_tables_from_a_history(tmp_path):
    hist = [dict(iteration=k, objective=1 - 0.5 ** k, violation=0.5 ** k) for k in range(1, 8)]
    exp.plot_convergence(hist, tmp_path / "c.png")
    assert (tmp_path / "c.png").stat().st_size > 0
    curve = [dict(n_points=4, error=0.4), dict(n_points=8, error=0.04), dict(n_points=16, error=0.0)]
    assert exp.first_reaching(curve, 0.05) == 8 and math.isnan(exp.first_reaching(curve[:1], 0.05))


# ------------------------------------------------------------------ on the runner (resume, shards, executors)
def tiny_cfg(**kw):
    cfg = exp.Config(**dict(exp.QUICK, figures=("3d",), sweep_R0=(1.0, 5.0, 10.0), **kw))
    exp.validate_config(cfg)
    return cfg


def strip_times(records):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in records]


def test_resume_shards_and_loky_give_the_serial_records(tmp_path):
    from certiprog.experiments.runner import ResultStore, run_tasks

    cfg = tiny_cfg()
    serial = exp.run_experiment(cfg, executor="serial")["records"]
    assert [r["R0"] for r in serial] == [1.0, 5.0, 10.0]
    store = ResultStore(tmp_path / "full")
    loky = exp.run_experiment(tiny_cfg(n_jobs=2), store, executor="loky")
    assert strip_times(loky["records"]) == strip_times(serial) and loky["meta"]["n_computed"] == 3
    again = exp.run_experiment(cfg, store, executor="serial")
    assert again["meta"]["n_computed"] == 0 and again["records"] == loky["records"]
    shards = [ResultStore(tmp_path / f"s{i}") for i in range(2)]
    for i, s in enumerate(shards):
        run_tasks(exp.tasks(cfg), s, "serial", shard=(i, 2))
    merged = ResultStore(tmp_path / "merged")
    merged.merge(*shards)
    report = run_tasks(exp.tasks(cfg), merged, "serial")
    assert report.computed == [] and strip_times(encode(report.results, None)) == strip_times(serial)


def test_task_keys_follow_what_each_kind_of_task_uses():
    cfg = exp.Config(**dict(exp.QUICK, figures=("3a", "3d")))
    exp.validate_config(cfg)
    tasks = exp.tasks(cfg)
    kinds = [t.config["kind"] for t in tasks]
    assert kinds == ["ellipsoid"] + ["capacity"] * 2 and tasks[0].name == "fig 3a rep 0"
    other = exp.Config(**dict(exp.QUICK, figures=("3a", "3d"), delta=0.05, n_jobs=2, progress=True))
    exp.validate_config(other)
    moved = [a.key != b.key for a, b in zip(tasks, exp.tasks(other))]
    assert moved == [True, False, False]  # delta changes the MCP runs, not the capacity points (delta ~ 1 there)
    assert exp.run_task(dict(tasks[1].config))["kind"] == "capacity"
    with pytest.raises(InputError, match="unknown mcp task kind"):
        exp.run_task(dict(tasks[1].config, kind="nope"))
