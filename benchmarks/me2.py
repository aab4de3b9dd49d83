"""ME^2 (paper 002): the dedicated local solver against the generic paths, in one run (issue 12, item 3).

For Yeast6 and Abalone19 (an 80 % stratified training part S, min-max scaled, as `certiprog reproduce me2`):

1. ONE LOCAL PROBLEM: the first positive of S against all negatives of S, at (mu, lam) in ``--pairs``, solved cold by
   * ``dedicated``: `local_solver.solve_local` (box least squares: screening, interior point, active-set crossover);
   * ``generic``: the corrected dual as a certiprog Model (`programs.me2_dual`) on Clarabel (build + compile + solve);
   * ``cvxpy``: the same box QP written directly in CVXPY, solved by Clarabel;
   each certified by the same duality gap (the columns report it);
2. A FULL TUNED FIT: `ME2Classifier(tuning="local")` with the paper's 8 x 9 grid (2-fold CV, 72 QPs per local model,
   then the final fits). The dedicated path runs the whole fit; the two generic paths run the first ``--centres``
   local models (their tuning and final fit) and the full-fit time is extrapolated linearly (marked "~");
   ``--full`` runs them completely (hours on Abalone19).

Every measurement runs in its own spawned process so that its peak memory is its own: "peak RSS" is the process's
maximum resident set size minus that of a process that only imported the same modules; "peak heap" is tracemalloc's
peak (Python and numpy allocations; the solvers' native memory is only in the RSS column), from a second, traced run
of the jobs that took under 10 s (tracing is never on while the clock runs: it slows numpy's small allocations, the
dedicated path's, far more than a native solver's; "n/a" for the longer jobs). BLAS is single-threaded.

3. THE LEARNER AGAINST SCIKIT-LEARN (issue 23, ``--sections learner``), on scikit-learn's breast-cancer data (a 70 %
   stratified training part, 398 x 30, seed 0, min-max scaled on it; the positives are the 148 malignant) and on
   Yeast6's S (1187 x 8, 28 positives): `ME2Classifier` fixed (mu = lam = 1) and tuned (``tuning="local"``, the
   paper's 8 x 9 grid; also with ``n_jobs=2``) against ``SVC(class_weight="balanced")``, and the same
   ``GridSearchCV`` (3 stratified folds, F-measure of the minority class, 6 candidates: ME2 mu in {0.75, 1} x lam in
   {1e-3, 0.1, 10}, SVC C in {0.1, 1, 10} x gamma in {"scale", 1}) around each. Wall and CPU seconds (CPU: this
   process's; with n_jobs = 2 the workers' CPU is not in it: that fit runs in a non-daemon process, since joblib
   runs a daemon's loops on one worker), the ratios to the scikit-learn counterpart, the test F-measure (the 30 % /
   Yeast6's 20 % test part), QP solves, the worst certified relative gap and the chosen (mu, lam) (``--out``:
   compare two runs' choices).

4. THE TUNED FIT AGAINST THE ORIGINAL CODE (issue 23 item 3, ``--sections speedup``): the same tuned
   ``ME2Classifier(tuning="local")`` fit on the same data (breast cancer 398 x 30, Yeast6's S 1187 x 8) by this
   checkout and by the code at ``--original`` (default 1d01032, the commit before the issue-23 speed-ups; checked out
   read-only with ``git worktree add`` into a temporary folder and removed afterwards). Each fit runs in its own
   fresh process (same interpreter, BLAS on one thread, modules imported and scikit-learn's one-time dataframe-plugin
   discovery done before the clock starts, for both codes); wall and CPU seconds, the CPU ratio original / now,
   whether every local model got the same (mu, lam) and the test F-measure, the worst certified relative gap, and
   the process's peak RSS above its imports. Beside: ``SVC`` and the 6 x 3 ``GridSearchCV`` of section 3 on the
   same data. ``--repeats`` fits of each code in turn, the median run shown; each process then fits a second time
   ("again", a notebook's next fit). Measured 2026-11-27 23:12 UTC (2-core VM, load 0.5, ``--repeats 11``): Yeast6
   2.60 s -> 257 ms, 10.1x (pairs 7.8-12.3x), again 2.60 s -> 215 ms, 12.1x (10.8-13.9x); the same hour's other runs
   9.8x, 9.9x, 10.0x at the median (again 13.0-13.2x). The first fit in a fresh process pays ~9,000 page faults of
   fresh memory (the original's one-problem solves ~700) at 2-4 us each on this VM. Breast cancer (one pair, 23:06
   UTC): 2.7 min -> 3.97 s, 39.4x; again 2.6 min -> 3.73 s, 42.3x. The same (mu, lam) and test F (0.444, 0.816) in
   every run.

    python benchmarks/me2.py [--sections learner local fit speedup] [--datasets yeast6 abalone19] [--centres 3]
                             [--full] [--pairs 1,1e-3 0.75,1e-6] [--learner-data breast-cancer yeast6]
                             [--original REV] [--repeats N] [--out FILE]
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import time

from _measuring import finish, heap_text, peak_rss_kb, run_isolated, run_measured, start_trace

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

PATHS = ("dedicated", "generic", "cvxpy")
SOLVER_OF = {"dedicated": "dedicated", "generic": "clarabel", "cvxpy": "cvxpy-direct"}


def _data(name: str):
    from certiprog.formulations.me2_paper import experiment as E

    d = E._scenario_data(dict(part="table3", dataset=name, rate=None, rep=0), dict(seed=0, test_size=0.2))
    return d["Xs"], d["ys"], d["fold_seed"]


def _measure(job: dict) -> dict:
    """Run one measurement (in a fresh process, `run_measured`): its result, time and peak RSS (kB); in the traced
    run also the peak heap."""
    import cvxpy  # noqa: F401
    import numpy as np

    from certiprog.estimators import ME2Classifier  # noqa: F401 (imports before the baseline RSS)
    from certiprog.formulations.me2_paper import local_solver as LS
    from certiprog.formulations.me2_paper.programs import me2_fit
    from certiprog.formulations.me2_paper.tuning import tune_local
    if job["kind"] == "baseline":
        return dict(rss_kb=peak_rss_kb())
    Xs, ys, fold_seed = _data(job["dataset"])
    start_trace(job)
    t0 = time.perf_counter()
    out = {}
    if job["kind"] == "local":
        prob = LS.local_problem(Xs[~ys], Xs[ys][0])
        mu, lam = job["pair"]
        if job["path"] == "dedicated":
            sol = LS.solve_local(problem=prob, mu=mu, lam=lam, B=4.0)
        elif job["path"] == "generic":
            sol = LS.solve_local_generic(problem=prob, mu=mu, lam=lam, B=4.0, backend="clarabel")
        else:
            sol = LS.solve_local_cvxpy(problem=prob, mu=mu, lam=lam, B=4.0)
        out.update(primal=sol.primal, gap=sol.gap, rel_gap=sol.rel_gap, R=sol.R, M=sol.M.tolist(),
                   M_error=sol.M_error, n=prob.n, d=prob.d)
    else:
        rows = np.flatnonzero(ys)
        if job.get("centres"):
            rows = rows[:job["centres"]]
        solver = SOLVER_OF[job["path"]]
        tuned = tune_local(Xs, ys, random_state=fold_seed, rows=rows, solver=solver)
        method, backend = LS.local_method(solver)
        sols = me2_fit(Xs[rows], Xs[~ys], [t.mu for t in tuned], [t.lam for t in tuned], 4.0,
                       method=method, backend=backend).solutions
        out.update(n_models=len(rows), n_total=int(ys.sum()), n_solves=sum(t.n_solves for t in tuned) + len(sols),
                   max_rel_gap=max([s.rel_gap for s in sols] + [t.max_rel_gap for t in tuned]),
                   mu=[t.mu for t in tuned], lam=[t.lam for t in tuned])
    out["seconds"] = time.perf_counter() - t0
    return finish(out, job)


LEARNER_DATA = ("breast-cancer", "yeast6")
ME2_GRID = {"mu": [0.75, 1.0], "lam": [1e-3, 0.1, 10.0]}
SVC_GRID = {"C": [0.1, 1.0, 10.0], "gamma": ["scale", 1.0]}
LEARNER_KINDS = ("svc", "me2-fixed", "me2-tuned", "me2-tuned-2jobs", "svc-grid", "me2-grid")


def _learner_data(name: str):
    """(X_train, y_train, X_test, y_test, minority label, seed of the tuning folds) of a learner benchmark."""
    import numpy as np

    if name == "breast-cancer":
        from sklearn.datasets import load_breast_cancer
        from sklearn.model_selection import train_test_split
        from sklearn.preprocessing import MinMaxScaler

        X, y = load_breast_cancer(return_X_y=True)
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
        scale = MinMaxScaler().fit(Xtr)
        return scale.transform(Xtr), ytr, scale.transform(Xte), yte, int(np.argmin(np.bincount(ytr))), 0
    from certiprog.formulations.me2_paper import experiment as E

    d = E._scenario_data(dict(part="table3", dataset=name, rate=None, rep=0), dict(seed=0, test_size=0.2))
    return d["Xs"], d["ys"], d["Xt"], d["yt"], True, d["fold_seed"]


def _measure_learner(job: dict) -> dict:
    """One learner measurement (in a fresh process): fit time (wall, CPU), test F-measure, peak RSS."""
    import warnings

    import numpy as np
    from sklearn.metrics import f1_score, make_scorer
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.svm import SVC
    from threadpoolctl import threadpool_limits

    from certiprog.estimators import ME2Classifier

    if job["kind"] == "baseline":
        return dict(rss_kb=peak_rss_kb())
    Xtr, ytr, Xte, yte, pos, seed = _learner_data(job["dataset"])
    kind = job["kind"]
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    scorer = make_scorer(f1_score, pos_label=pos, zero_division=0)
    est = {"svc": lambda: SVC(class_weight="balanced"),
           "me2-fixed": lambda: ME2Classifier(),
           "me2-tuned": lambda: ME2Classifier(tuning="local", random_state=seed),
           "me2-tuned-2jobs": lambda: ME2Classifier(tuning="local", random_state=seed, n_jobs=2),
           "svc-grid": lambda: GridSearchCV(SVC(class_weight="balanced"), SVC_GRID, cv=cv, scoring=scorer),
           "me2-grid": lambda: GridSearchCV(ME2Classifier(), ME2_GRID, cv=cv, scoring=scorer)}[kind]()
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0, c0 = time.perf_counter(), time.process_time()
        est.fit(Xtr, ytr)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    out = dict(seconds=wall, cpu=cpu, f1=float(f1_score(yte, est.predict(Xte), pos_label=pos, zero_division=0)),
               n=int(Xtr.shape[0]), d=int(Xtr.shape[1]), n_pos=int(np.sum(ytr == pos)))
    me2 = est.best_estimator_ if kind == "me2-grid" else est
    if kind.startswith("me2"):
        certs = me2.certificates_
        out.update(n_models=len(certs), max_rel_gap=max(c.rel_gap for c in certs),
                   n_solves=len(certs), mu=me2.mu_.tolist(), lam=me2.lam_.tolist())
        if kind.startswith("me2-tuned"):
            out["n_solves"] += sum(t.n_solves for t in me2.tuning_)
            out["max_rel_gap"] = max([out["max_rel_gap"]] + [t.max_rel_gap for t in me2.tuning_])
    if kind.endswith("grid"):
        out["best_params"] = {k: v for k, v in est.best_params_.items()}
    out["rss_kb"] = peak_rss_kb()
    return out


def _spawned(job: dict, conn) -> None:
    conn.send(_measure_learner(job))
    conn.close()


def _run_non_daemon(job: dict) -> dict:
    """`_measure_learner` in a fresh spawned process that is not a daemon (`run_isolated`'s pool workers are, and
    joblib runs a daemon's parallel loops on one worker): for the n_jobs = 2 fit."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    here, there = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_spawned, args=(job, there), daemon=False)
    proc.start()
    out = here.recv()
    proc.join()
    return out


def learner_section(names, report: dict, kinds=LEARNER_KINDS) -> None:
    """Section 3: ME2Classifier against SVC and the same GridSearchCV, printed and stored in ``report``."""
    base = run_isolated(_measure_learner, dict(kind="baseline"))["rss_kb"]
    print("## ME2Classifier against scikit-learn (issue 23)\n")
    print("| data (n x d, positives) | fit | wall | CPU | vs scikit-learn (wall / CPU) | test F | QP solves | worst rel. "
          "gap | peak RSS |\n|---|---|---|---|---|---|---|---|---|")
    for name in names:
        res = {k: (_run_non_daemon if k.endswith("2jobs") else functools.partial(run_isolated, _measure_learner))(
            dict(kind=k, dataset=name)) for k in kinds}
        for k, r in res.items():
            ref = res.get("svc-grid" if k.endswith("grid") else "svc", dict(seconds=float("nan"), cpu=float("nan")))
            size = f"{name} ({r['n']} x {r['d']}, {r['n_pos']})"
            extra = (f"{r['n_solves']} | {r['max_rel_gap']:.1e}" if "n_solves" in r else " | ")
            print(f"| {size} | {k} | {_fmt_t(r['seconds'])} | {_fmt_t(r['cpu'])} | "
                  f"{r['seconds'] / ref['seconds']:.0f}x / {r['cpu'] / max(ref['cpu'], 1e-9):.0f}x | {r['f1']:.3f} | "
                  f"{extra} | "
                  f"{(r['rss_kb'] - base) / 1024:.0f} MB |")
            report["learner"].append(dict(dataset=name, kind=k, **r))
        if not {"me2-tuned", "me2-tuned-2jobs"} <= set(res):
            continue
        t1, t2 = res["me2-tuned"], res["me2-tuned-2jobs"]
        same = t1["mu"] == t2["mu"] and t1["lam"] == t2["lam"] and t1["f1"] == t2["f1"]
        print(f"\n{name}: n_jobs = 2 {'gives the same' if same else 'DIFFERS from the'} tuned model; wall "
              f"{t1['seconds'] / t2['seconds']:.2f}x faster with 2 workers\n")


def _fit_in_this_process(npz: str) -> dict:
    """The tuned fit of section 4 on the data saved in ``npz``, in this process (whichever certiprog is importable):
    JSON-ready figures."""
    import warnings

    import numpy as np
    import sklearn.model_selection  # noqa: F401 (imported before the clock starts, as by any fit after the first)
    from sklearn.dummy import DummyClassifier
    from sklearn.metrics import f1_score
    from threadpoolctl import threadpool_limits

    import certiprog
    from certiprog.formulations.me2_paper.estimator import ME2Classifier

    data = np.load(npz)
    pos = data["pos"].item()
    # scikit-learn's first input validation in a process looks for dataframe plugins (narwhals reads every
    # installed package's entry points, 50-100 ms): paid here, before the clock, as by any fit after the first
    DummyClassifier().fit(np.zeros((2, 1)), [0, 1])
    base = peak_rss_kb()
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0, c0 = time.perf_counter(), time.process_time()
        est = ME2Classifier(tuning="local", random_state=int(data["seed"])).fit(data["Xtr"], data["ytr"])
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        rss = peak_rss_kb()
        # the same fit again in this process, as a notebook user's next fit (memory already mapped)
        c1 = time.process_time()
        ME2Classifier(tuning="local", random_state=int(data["seed"])).fit(data["Xtr"], data["ytr"])
        cpu_again = time.process_time() - c1
    gaps = [c.rel_gap for c in est.certificates_] + [t.max_rel_gap for t in est.tuning_]
    return dict(code=os.path.dirname(os.path.dirname(certiprog.__file__)), seconds=wall, cpu=cpu, cpu_again=cpu_again,
                f1=float(f1_score(data["yte"], est.predict(data["Xte"]), pos_label=pos, zero_division=0)),
                mu=est.mu_.tolist(), lam=est.lam_.tolist(), max_rel_gap=float(max(gaps)),
                n_solves=len(est.certificates_) + sum(t.n_solves for t in est.tuning_),
                rss_mb=(rss - base) / 1024, n=int(data["Xtr"].shape[0]), d=int(data["Xtr"].shape[1]),
                n_pos=int(np.sum(data["ytr"] == pos)))


def _fit_in_fresh_process(npz: str, tree: str | None) -> dict:
    """`_fit_in_this_process` in a new interpreter; ``tree``: a checkout whose certiprog it imports (None: this
    one)."""
    import subprocess
    import sys

    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    if tree is not None:
        env["PYTHONPATH"] = tree + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--fit-npz", npz], env=env, check=True,
                          capture_output=True, text=True, cwd=tree or os.getcwd())
    return json.loads(done.stdout.strip().splitlines()[-1])


def speedup_section(names, original: str, report: dict, repeats: int = 3) -> None:
    """Section 4: the tuned fit now and at ``original``, each in a fresh process, ``repeats`` times in turn (old,
    new, old, new, ...: a passing load hits both); the table gives each code's median run and the ratio of the
    medians, with the range of the ratios of the pairs."""
    import subprocess
    import tempfile

    import numpy as np

    repo = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True,
                          cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    print(f"## Tuned ME2Classifier fit: this checkout against {original} (issue 23 item 3)\n")
    print(f"Each fit in its own fresh process, {repeats} of each in turn; median run (by CPU) shown, the ratio is of "
          "the medians (in brackets: the range of the pairs' ratios). \"again\": the same fit a second time in that "
          "process (a notebook's next fit: its memory is already mapped, the first fit's page faults are not paid "
          "again).\n")
    print("| data (n x d, positives) | code | wall | CPU | original / now (CPU) | CPU again | original / now "
          "(again) | same (mu, lam) | test F | worst rel. gap | QP solves | peak RSS |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, "original")
        subprocess.run(["git", "-C", repo, "worktree", "add", "--detach", tree, original], check=True,
                       capture_output=True)
        try:
            for name in names:
                Xtr, ytr, Xte, yte, pos, seed = _learner_data(name)
                npz = os.path.join(tmp, f"{name}.npz")
                np.savez(npz, Xtr=Xtr, ytr=ytr, Xte=Xte, yte=yte, pos=pos, seed=seed)
                olds, news = [], []
                for _ in range(max(1, repeats)):
                    olds.append(_fit_in_fresh_process(npz, tree))
                    news.append(_fit_in_fresh_process(npz, None))
                old, new = (sorted(runs, key=lambda r: r["cpu"])[len(runs) // 2] for runs in (olds, news))
                again = [float(np.median([r["cpu_again"] for r in runs])) for runs in (olds, news)]
                same = all(o["mu"] == n["mu"] and o["lam"] == n["lam"] for o in olds for n in news)
                pairs = [o["cpu"] / n["cpu"] for o, n in zip(olds, news)]
                pairs_again = [o["cpu_again"] / n["cpu_again"] for o, n in zip(olds, news)]
                size = f"{name} ({new['n']} x {new['d']}, {new['n_pos']})"
                for label, r, a in ((original, old, again[0]), ("now", new, again[1])):
                    several = r is new and len(pairs) > 1
                    spread = f" ({min(pairs):.1f}-{max(pairs):.1f}x)" if several else ""
                    spread_again = f" ({min(pairs_again):.1f}-{max(pairs_again):.1f}x)" if several else ""
                    print(f"| {size} | {label} | {_fmt_t(r['seconds'])} | {_fmt_t(r['cpu'])} | "
                          f"{old['cpu'] / r['cpu']:.1f}x{spread} | {_fmt_t(a)} | {again[0] / a:.1f}x{spread_again} | "
                          f"{'yes' if same else 'NO'} | {r['f1']:.3f} | {r['max_rel_gap']:.1e} | {r['n_solves']} | "
                          f"{r['rss_mb']:.0f} MB |")
                report["speedup"].append(dict(dataset=name, original=original, old=old, new=new, same_choices=same,
                                              old_runs=olds, new_runs=news, pair_ratios=pairs,
                                              again_medians=again, pair_ratios_again=pairs_again))
        finally:
            subprocess.run(["git", "-C", repo, "worktree", "remove", "--force", tree], check=False,
                           capture_output=True)
    print()


def _fmt_t(s: float, approx: bool = False) -> str:
    txt = f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.2f} s" if s < 100 else f"{s / 60:.1f} min"
    return ("~" if approx else "") + txt


def main(argv=None) -> dict:
    import numpy as np

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=["yeast6", "abalone19"])
    ap.add_argument("--pairs", nargs="+", default=["1,1e-3", "0.75,1e-6", "10,1"],
                    help="(mu, lam) of the single local problem")
    ap.add_argument("--centres", type=int, default=3, help="local models timed on the generic paths (extrapolated)")
    ap.add_argument("--full", action="store_true", help="run the generic paths' tuned fits completely")
    ap.add_argument("--paths", nargs="+", default=list(PATHS), choices=PATHS)
    ap.add_argument("--out", default=None, help="write the measurements as JSON here")
    ap.add_argument("--sections", nargs="+", default=["learner", "local", "fit"],
                    choices=("learner", "local", "fit", "speedup"),
                    help="learner: ME2Classifier vs scikit-learn; local: one local problem per path; fit: tuned fits "
                         "per path; speedup: the tuned fit now vs --original")
    ap.add_argument("--original", default="1d01032", help="the code the speedup section compares with (a git rev)")
    ap.add_argument("--repeats", type=int, default=3, help="speedup section: fresh-process fits of each code (median)")
    ap.add_argument("--fit-npz", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--learner-data", nargs="+", default=list(LEARNER_DATA))
    ap.add_argument("--learner-fits", nargs="+", default=list(LEARNER_KINDS), choices=LEARNER_KINDS,
                    help="which fits the learner section times")
    args = ap.parse_args(argv)
    if args.fit_npz:  # one fit of the speedup section, in this (fresh) process
        print(json.dumps(_fit_in_this_process(args.fit_npz)))
        return {}
    pairs = [tuple(float(v) for v in p.split(",")) for p in args.pairs]
    report = dict(local=[], fit=[], learner=[], speedup=[])
    print(f"# ME2 benchmark (BLAS threads: {os.environ['OPENBLAS_NUM_THREADS']}, cpu count "
          f"{os.cpu_count()}, load {os.getloadavg()[0]:.1f})\n")
    if "speedup" in args.sections:
        speedup_section(args.learner_data, args.original, report, args.repeats)
    if "learner" in args.sections:
        learner_section(args.learner_data, report, args.learner_fits)
    base = run_isolated(_measure, dict(kind="baseline"))["rss_kb"]
    report["baseline_rss_kb"] = base
    for name in (args.datasets if {"local", "fit"} & set(args.sections) else []):
        print(f"## {name}\n")
        if "local" in args.sections:
            print("| (mu, lam) | path | time | vs dedicated | primal | rel. gap | max |M - M_ded|_F | peak RSS | "
                  "peak heap |\n|---|---|---|---|---|---|---|---|---|")
            for pair in pairs:
                res = {p: run_measured(_measure, dict(kind="local", dataset=name, pair=pair, path=p)) for p in args.paths}
                ref = res.get("dedicated")
                for p, r in res.items():
                    dM = np.abs(np.array(r["M"]) - np.array(ref["M"])).max() if ref else float("nan")
                    ratio = r["seconds"] / ref["seconds"] if ref else float("nan")
                    print(f"| {pair} | {p} | {_fmt_t(r['seconds'])} | {ratio:.1f}x | {r['primal']:.10g} | "
                          f"{r['rel_gap']:.1e} | {dM:.1e} | {(r['rss_kb'] - base) / 1024:.0f} MB | {heap_text(r)} |")
                    report["local"].append(dict(dataset=name, pair=pair, path=p,
                                                **{k: v for k, v in r.items() if k != "M"}))
            n, d = res[args.paths[0]]["n"], res[args.paths[0]]["d"]
            print(f"\nsizes: n = {n} negatives, d = {d} features; dedicated: a {d * (d + 1) // 2 + 1} x {n} least-squares"
                  f" matrix (m x m Newton systems, m = {d * (d + 1) // 2 + 1}); generic Model: {n + 2} variables, "
                  f"{2 * n + 2} inequality rows and a second-order cone of size {d * (d + 1) // 2 + 2}; CVXPY: {n} "
                  "variables, 2n bounds.\n")
        if "fit" not in args.sections:
            continue
        print("| tuned fit | local models run | QP solves | time | full fit | vs dedicated | worst rel. gap | "
              "peak RSS | peak heap |\n|---|---|---|---|---|---|---|---|---|")
        fits = {}
        for p in args.paths:
            job = dict(kind="fit", dataset=name, path=p)
            if p != "dedicated" and not args.full:
                job["centres"] = args.centres
            fits[p] = r = run_measured(_measure, job)
            r["full_seconds"] = r["seconds"] * r["n_total"] / r["n_models"]
            report["fit"].append(dict(dataset=name, path=p, **r))
        if "dedicated" in fits and not args.full:  # the same first centres on the dedicated path, for the ratio
            job = dict(kind="fit", dataset=name, path="dedicated", centres=args.centres)
            fits["dedicated (same centres)"] = r = run_measured(_measure, job)
            r["full_seconds"] = r["seconds"] * r["n_total"] / r["n_models"]
        ref = fits.get("dedicated")
        for p, r in fits.items():
            approx = r["n_models"] < r["n_total"]
            ratio = r["full_seconds"] / ref["full_seconds"] if ref else float("nan")
            print(f"| {p} | {r['n_models']} / {r['n_total']} | {r['n_solves']} | {_fmt_t(r['seconds'])} | "
                  f"{_fmt_t(r['full_seconds'], approx)} | {ratio:.1f}x | {r['max_rel_gap']:.1e} | "
                  f"{(r['rss_kb'] - base) / 1024:.0f} MB | {heap_text(r)} |")
        same = [r for k, r in fits.items() if k != "dedicated"]
        if len({tuple(r["mu"]) + tuple(r["lam"]) for r in same}) > 1:
            print("\n(note: the paths chose different (mu, lam) for some local model: ties broken at solver "
                  "accuracy)")
        print()
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(report, fh, indent=1, default=float)
    return report


if __name__ == "__main__":
    main()
