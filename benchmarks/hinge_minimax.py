"""Paper 000 (KHHM / LHM) on Letter: compiled-structure reuse, one LHM fit, all 26 one-vs-rest fits, against
scikit-learn's RBF SVC on the same splits, measured in one run (issue 16, item 6).

Data: UCI Letter (`certiprog.datasets.letter`), the paper's split (per letter 100 training / 250 validation / rest
test, seed ``--seed``), features z-scored with the training part's statistics. Problem "L vs rest": 100 positives
and 2,500 negatives for training, ~420 positives and ~10,500 negatives for testing.

1. SUB-PROBLEMS (letter ``--letter``): Alg. 1 solves eq. (8) against many conditional moments and eq. (25) scores
   every positive by Thm 1. Timed: eq. (8) moved by `programs.set_moments` (Parameters, compiled once) vs rebuilt per
   solve; Thm 1 for the positives' surrogate regions as one separable QP (`programs.background_risks`) vs one QP per
   region. No backend takes a warm start (every backend declares ``warm_start=False``), so none is used.
2. ONE LHM FIT (C = ``--C``, K = ``--K``, delta 0.5, lam 0.1, Clarabel), certified (rigorous interval of every
   sub-problem) and KKT-checked only, against ``SVC(kernel="rbf")`` (C = 1, gamma = "scale") on the same data.
3. ALL 26 LETTERS through the shared runner (`certiprog.experiments.runner.run_tasks`, ``--executor``, ``--jobs``):
   the LHM fits (KKT-checked; ``--certify`` for the rigorous intervals) and the 26 SVC fits as tasks.

4. KHHM AT SCALE (``--scale-only`` runs just this part; ``--skip-scale`` skips it): seeded synthetic two-cluster data
   (`scale_data`, m positives x d = 16, 2m negatives), K = 2, 3, one refinement round, every sub-problem certified:
   "before" = every eq. (8) on certiprog's generic choice, "after" = `khhm.uses_structured`'s rule (the certified
   structured solver first when m * d >= `khhm.STRUCTURED_MIN_SIZE`, at most `khhm.STRUCTURED_MAX_ITER` iterations,
   the generic backend when its answer is not certified); the per-sub-problem solvers and verdicts are printed.
   Measured 2026-11-25 (2 shared cores, BLAS 1 thread, delta 0.3): before / after 2.72 / 2.70 s (5,000, K = 2),
   3.50 / 2.73 s (5,000, K = 3), 11.15 / 8.74 s (20,000, K = 2), 15.96 / 12.98 s (20,000, K = 3): 1.0-1.28x, the
   same planes and risk; the structured solver certified every eq. (8) against all the negatives (0.36 s vs ~0.7 s
   at 5,000, 0.8 s vs ~2.6 s at 20,000); the refits against the few negatives near the positives stay on Clarabel,
   several only 'accurate' there (not certified).

Hyper-parameters are fixed, not tuned on the validation part: this measures cost; the classification rates at EER
on the test part are printed for orientation only (the paper's Table 2 is `certiprog reproduce hinge-minimax`).
Every measurement runs in its own spawned process: "peak RSS" is its maximum resident set size minus that of a
process that only imported the same modules and read the data; "peak heap" is tracemalloc's peak (Python and numpy
allocations; the solvers' native memory is only in the RSS column) from a second, traced run of the jobs under 10 s
(tracing is never on while the clock runs; "n/a" for the longer jobs). BLAS is single-threaded.

    python benchmarks/hinge_minimax.py [--letter A] [--C 2] [--K 2] [--seed 0] [--executor serial] [--jobs 1]
                                       [--certify] [--skip-all] [--out results.json]
                                       [--scale-only | --skip-scale] [--scale-m 5000 20000] [--scale-K 2 3]
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
BENCH_DIR = str(Path(__file__).resolve().parent)
# delta 0.5 (gamma = 1): at delta 0.1 eq. (8) returns the trivial w = 0 for about a third of the letters (measured:
# 6 of 9 letters' K = 1 fits trivial at 0.1, 1 at 0.3, none at 0.5), i.e. a model that accepts everything
LHM_ARGS = dict(delta=0.5, lam=0.1, backend="clarabel", random_state=0)


# ----------------------------------------------------------------------------------------------------------------
# Data and the two task functions (module level: the runner imports them as "hinge_minimax:<name>")
# ----------------------------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=4)
def _standardised_split(seed: int):
    """The Letter data split and z-scored by the training part's statistics (`certiprog.datasets.letter.
    standardised_split`, the experiment's definition), read once per process: X_train, y_train, X_test, y_test."""
    from certiprog.datasets.letter import load_letter, standardised_split

    parts = standardised_split(*load_letter(), seed=seed)
    return parts["train"] + parts["test"]


def letter_problem(letter: str, seed: int):
    """Standardised (X_train, y_train, X_test, y_test) of "letter vs rest", y in {0, 1}."""
    Xtr, ytr, Xte, yte = _standardised_split(seed)
    return Xtr, (ytr == letter).astype(int), Xte, (yte == letter).astype(int)


def rate_at_eer(y, score) -> float:
    """The paper's "classification rate at EER", 1 - EER, with the experiment's EER (`hinge_minimax_paper.
    experiment.eer`: interpolated where the ROC's false-negative rate meets its false-positive rate)."""
    from certiprog.formulations.hinge_minimax_paper.experiment import eer

    return 1.0 - eer(y, score)


def lhm_task(config: dict) -> dict:
    """One LHM fit on "letter vs rest": time, iterations, sub-problem count and verdicts, test rate at EER."""
    import numpy as np

    from certiprog.formulations.hinge_minimax_paper.lhm import fit_lhm

    Xtr, ytr, Xte, yte = letter_problem(config["letter"], config["seed"])
    t0 = time.perf_counter()
    fit = fit_lhm(Xtr[ytr == 1], Xtr[ytr == 0], C=config["C"], K=config["K"], certify=config["certify"],
                  **LHM_ARGS)
    fit_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    score = fit.decision(Xte)
    pred_s = (time.perf_counter() - t0) / len(Xte)
    verdicts: dict = {}
    for s in fit.subproblems:
        verdicts[s.verdict] = verdicts.get(s.verdict, 0) + 1
    return dict(fit_s=fit_s, predict_s_per_sample=pred_s, iterations=len(fit.history), risk=fit.risk,
                n_subproblems=len(fit.subproblems), verdicts=verdicts, rate_eer=rate_at_eer(yte, score),
                n_pos=int(ytr.sum()), n_neg=int((ytr == 0).sum()), n_test=len(yte),
                worst_case_background=np.asarray(fit.worst_case_background).tolist())


def svc_task(config: dict) -> dict:
    """scikit-learn's RBF SVC on the same problem: time, support vectors, test rate at EER."""
    from sklearn.svm import SVC

    Xtr, ytr, Xte, yte = letter_problem(config["letter"], config["seed"])
    t0 = time.perf_counter()
    clf = SVC(kernel="rbf", C=1.0, gamma="scale").fit(Xtr, ytr)
    fit_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    score = clf.decision_function(Xte)
    pred_s = (time.perf_counter() - t0) / len(Xte)
    return dict(fit_s=fit_s, predict_s_per_sample=pred_s, n_support=int(clf.n_support_.sum()),
                rate_eer=rate_at_eer(yte, score))


# ----------------------------------------------------------------------------------------------------------------
# Part 1: sub-problem reuse
# ----------------------------------------------------------------------------------------------------------------
def reuse(letter: str, seed: int, n_moments: int = 20) -> dict:
    import numpy as np

    from certiprog.formulations.hinge_minimax_paper.khhm import background_moments, fit_khhm
    from certiprog.formulations.hinge_minimax_paper.lhm import surrogate
    from certiprog.formulations.hinge_minimax_paper.programs import (background_risk, background_risks,
                                                                     hinge_minimax, set_halfspaces, set_moments)

    Xtr, ytr, _, _ = letter_problem(letter, seed)
    P, N = Xtr[ytr == 1], Xtr[ytr == 0]
    rng = np.random.default_rng(seed)
    subsets = [N[rng.random(len(N)) < 0.5] for _ in range(n_moments)]
    moments = [background_moments(S) for S in subsets]
    out = {}
    model = hinge_minimax(P, *background_moments(N), 0.1, 0.5, bias=True)
    model.solve(backend="clarabel")  # compile once
    t0 = time.perf_counter()
    reused = []
    for mu, S in moments:
        reused.append(model.derived(set_moments(model, mu, S).solve(backend="clarabel")).objective)
    out["eq8_reuse_s"] = (time.perf_counter() - t0) / n_moments
    t0 = time.perf_counter()
    rebuilt = []
    for mu, S in moments:
        m = hinge_minimax(P, mu, S, 0.1, 0.5, bias=True)
        rebuilt.append(m.derived(m.solve(backend="clarabel")).objective)
    out["eq8_rebuild_s"] = (time.perf_counter() - t0) / n_moments
    out["eq8_max_rel_diff"] = float(np.max(np.abs(np.subtract(reused, rebuilt)) / np.maximum(1, np.abs(rebuilt))))
    fit = fit_khhm(P, N, K=2, delta=0.5, lam=0.1, max_rounds=1, backend="clarabel", certify=False)
    mu, S = background_moments(N)
    B = np.vstack([surrogate(fit.W, fit.b, fit.active, x) for x in P])
    need = ~np.all(fit.W @ mu + B >= 0, axis=1)
    B = B[need]
    out["regions"] = int(len(B))
    t0 = time.perf_counter()
    stacked_model = background_risks(fit.W, B, mu, S)
    stacked = stacked_model.derived(stacked_model.solve(backend="clarabel")).d2
    out["thm1_stacked_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    one = background_risk(fit.W, mu, S, B[0])
    single = []
    for bb in B:
        single.append(one.derived(set_halfspaces(one, fit.W, bb).solve(backend="clarabel")).d2)
    out["thm1_per_region_s"] = time.perf_counter() - t0
    out["thm1_max_abs_diff"] = float(np.max(np.abs(np.asarray(single) - stacked))) if len(B) else 0.0
    return out


# ----------------------------------------------------------------------------------------------------------------
# Part 3: all 26 letters through the runner
# ----------------------------------------------------------------------------------------------------------------
def all_letters(job: dict) -> dict:
    sys.path.insert(0, BENCH_DIR)
    import hinge_minimax as bench  # this file, under an importable name

    from certiprog.datasets.letter import LETTERS
    from certiprog.experiments.runner import Task, run_tasks

    fn = bench.lhm_task if job["method"] == "lhm" else bench.svc_task
    tasks = [Task(f"{job['method']} {L}", fn, dict(letter=L, seed=job["seed"], C=job["C"], K=job["K"],
                                                   certify=job["certify"]))
             for L in LETTERS]
    report = run_tasks(tasks, store=None, executor=job["executor"], jobs=job["jobs"], progress=False)
    return dict(results=report.results, wall_s=report.wall_time_s)


# ----------------------------------------------------------------------------------------------------------------
# Part 4: KHHM at scale, eq. (8) on the generic backend vs the certified structured solver (issue 15 item 2)
# ----------------------------------------------------------------------------------------------------------------
def scale_data(m: int, d: int, seed: int):
    """Seeded synthetic version of the tests' two-cluster toy in d dimensions: m positives N(2 e_1, 0.25 I); 2m
    negatives N(-3 e_1, 0.81 I) or N(2 e_1 + 4 e_2, 0.81 I) (one plane cannot reject both clusters well)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    e1, e2 = np.eye(d)[0], np.eye(d)[1]
    P = 2.0 * e1 + 0.5 * rng.normal(size=(m, d))
    centres = np.vstack([-3.0 * e1, 2.0 * e1 + 4.0 * e2])
    N = centres[rng.integers(0, 2, 2 * m)] + 0.9 * rng.normal(size=(2 * m, d))
    return P, N


def khhm_scale(job: dict) -> dict:
    """One KHHM fit (certified) on `scale_data`; ``structured``: False puts every eq. (8) on the generic backend
    (certiprog's choice, the "before"), True lets `khhm.uses_structured` decide (the "after")."""
    from certiprog.formulations.hinge_minimax_paper import khhm

    P, N = scale_data(job["m"], job["d"], job["seed"])
    if not job["structured"]:
        khhm.STRUCTURED_MIN_SIZE = float("inf")
    t0 = time.perf_counter()
    fit = khhm.fit_khhm(P, N, K=job["K"], delta=job["delta"], lam=0.1, max_rounds=job["rounds"], certify=True)
    fit_s = time.perf_counter() - t0
    eq8 = [s for s in fit.subproblems if s.program == "eq8"]
    return dict(fit_s=fit_s, risk=fit.risk, certified=fit.certified, rounds=fit.rounds,
                eq8=[dict(stage=s.stage, k=s.hyperplane, n=s.n_background, solver=s.solver, verdict=s.verdict,
                          fallback=s.fallback, seconds=s.seconds, objective=s.objective) for s in eq8],
                eq8_s=sum(s.seconds for s in eq8), verdicts=khhm.verdict_counts(fit.subproblems),
                W=fit.W.tolist(), b=fit.b.tolist())


def scale_section(args) -> dict:
    """Part 4 printed: before / after per (m, K), and the per-sub-problem solvers and verdicts of the after run."""
    import numpy as np

    out = {}
    print(f"## 4. KHHM at scale (seeded synthetic, d = {args.scale_d}, delta {args.scale_delta}, lam 0.1, "
          f"{args.scale_rounds} refinement round(s), every sub-problem certified)\n")
    print("eq. (8) goes to the certified structured solver first when m * d >= khhm.STRUCTURED_MIN_SIZE (at most "
          "khhm.STRUCTURED_MAX_ITER iterations; fallback to the generic backend when not certified).\n")
    print("| m x d | K | before: generic eq. (8) | after: rule | ratio | eq. (8) time before / after | "
          "after: eq. (8) solvers | same planes | risk before / after | peak memory after |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for m in args.scale_m:
        for K in args.scale_K:
            job = dict(kind="scale", m=m, d=args.scale_d, K=K, seed=args.seed, delta=args.scale_delta,
                       rounds=args.scale_rounds)
            before = run_isolated(dict(job, structured=False))
            after = run_isolated(dict(job, structured=True))
            out[f"{m}x{args.scale_d} K={K}"] = dict(before=before, after=after)
            solvers: dict = {}
            for s in after["eq8"]:
                key = s["solver"] + (" (after a structured attempt)" if s["fallback"] else "")
                solvers[key] = solvers.get(key, 0) + 1
            same = np.allclose(before["W"], after["W"], atol=1e-3) and np.allclose(before["b"], after["b"], atol=1e-3)
            print(f"| {m:,} x {args.scale_d} | {K} | {_t(before['fit_s'])} | {_t(after['fit_s'])} | "
                  f"{before['fit_s'] / after['fit_s']:.2f}x | {_t(before['eq8_s'])} / {_t(after['eq8_s'])} | "
                  f"{solvers} | {same} | {before['risk']:.6f} / {after['risk']:.6f} | "
                  f"{after['rss_kb'] / 1024:.0f} MB RSS |")
    print("\nPer eq. (8) sub-problem of the 'after' runs (stage, plane, negatives, solver, verdict, seconds; fallback "
          "reason when the structured answer was not kept):\n")
    for key, r in out.items():
        print(f"* {key}: " + "; ".join(
            f"{s['stage']} k={s['k']} n={s['n']} {s['solver']} {s['verdict']} {_t(s['seconds'])}"
            + (f" [{s['fallback']}]" if s["fallback"] else "") for s in r["after"]["eq8"]))
    print()
    return out


# ----------------------------------------------------------------------------------------------------------------
# Isolation and printing
# ----------------------------------------------------------------------------------------------------------------
def _measure(job: dict) -> dict:
    sys.path.insert(0, BENCH_DIR)
    import resource

    import numpy as np  # noqa: F401
    import sklearn.svm  # noqa: F401

    import certiprog.formulations.hinge_minimax_paper.lhm  # noqa: F401
    import hinge_minimax as bench  # this file, importable: the runner's tasks live here
    from _measuring import finish, start_trace

    if job["kind"] != "scale":
        bench._standardised_split(job["seed"])  # read the data once, before measuring: its memory is not the method's
    if job["kind"] == "baseline":
        return dict(rss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    start_trace(job)
    t0 = time.perf_counter()
    if job["kind"] == "reuse":
        out = bench.reuse(job["letter"], job["seed"])
    elif job["kind"] == "all":
        out = bench.all_letters(job)
    elif job["kind"] == "scale":
        out = bench.khhm_scale(job)
    else:
        out = (bench.lhm_task if job["kind"] == "lhm" else bench.svc_task)(job)
    out["seconds"] = time.perf_counter() - t0
    return finish(out, job)


def run_isolated(job: dict) -> dict:
    """`_measure` of ``job`` in fresh processes (`_measuring.run_measured`: timed untraced, then traced for the
    peak heap when it took under 10 s)."""
    if BENCH_DIR not in sys.path:
        sys.path.insert(0, BENCH_DIR)
    from _measuring import run_measured

    return run_measured(_measure, job)


def _t(s: float) -> str:
    return f"{s * 1e6:.1f} us" if s < 1e-3 else f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.2f} s"


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--letter", default="A")
    ap.add_argument("--C", type=int, default=2)
    ap.add_argument("--K", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--executor", default="serial", help="runner executor for the 26 letters (serial, loky, ...)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--certify", action="store_true", help="rigorous intervals in the 26-letter LHM fits too")
    ap.add_argument("--skip-all", action="store_true", help="skip the 26-letter part")
    ap.add_argument("--out", default=None)
    ap.add_argument("--scale-only", action="store_true", help="run only part 4 (KHHM at scale, synthetic data)")
    ap.add_argument("--skip-scale", action="store_true", help="skip part 4")
    ap.add_argument("--scale-m", type=int, nargs="+", default=[5000, 20000])
    ap.add_argument("--scale-K", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--scale-d", type=int, default=16)
    ap.add_argument("--scale-delta", type=float, default=0.3)
    ap.add_argument("--scale-rounds", type=int, default=1)
    args = ap.parse_args(argv)
    if args.scale_only:
        report = dict(args=vars(args), scale=scale_section(args))
        if args.out:
            Path(args.out).write_text(json.dumps(report, indent=1, default=str))
        return report
    base = run_isolated(dict(kind="baseline", seed=args.seed))["rss_kb"]
    from _measuring import heap_text  # on sys.path once run_isolated ran

    mem = lambda r: f"{max(r['rss_kb'] - base, 0) / 1024:.1f} MB RSS, {heap_text(r)} heap"  # noqa: E731
    print(f"# KHHM / LHM on Letter (paper 000) vs RBF SVC (BLAS threads {os.environ['OPENBLAS_NUM_THREADS']}, "
          f"cpu count {os.cpu_count()}, load {os.getloadavg()[0]:.1f})\n")
    report = dict(baseline_rss_kb=base, args=vars(args))
    common = dict(letter=args.letter, seed=args.seed, C=args.C, K=args.K)

    r = run_isolated(dict(common, kind="reuse"))
    report["reuse"] = r
    print(f"## 1. Sub-problems, letter {args.letter} (100 positives, 2,500 negatives, d = 16), Clarabel\n")
    print("| sub-problem | reused structure | rebuilt each time | ratio | agreement |")
    print("|---|---|---|---|---|")
    print(f"| eq. (8), one conditional moment set (mean of 20) | {_t(r['eq8_reuse_s'])} | {_t(r['eq8_rebuild_s'])} | "
          f"{r['eq8_rebuild_s'] / r['eq8_reuse_s']:.2f}x | max rel. objective diff {r['eq8_max_rel_diff']:.1e} |")
    print(f"| Thm 1 for {r['regions']} surrogate regions (eq. (25), one component) | {_t(r['thm1_stacked_s'])} "
          f"(one stacked QP) | {_t(r['thm1_per_region_s'])} (one QP each, Parameters) | "
          f"{r['thm1_per_region_s'] / max(r['thm1_stacked_s'], 1e-12):.1f}x | max |d2 diff| "
          f"{r['thm1_max_abs_diff']:.1e} |\n")

    print(f"## 2. One LHM fit, letter {args.letter}, C = {args.C}, K = {args.K} (train 100 + 2,500, test ~10,900)\n")
    rows = {}
    for label, job in (("LHM, every sub-problem certified", dict(common, kind="lhm", certify=True)),
                       ("LHM, KKT-checked", dict(common, kind="lhm", certify=False)),
                       ("RBF SVC (sklearn)", dict(common, kind="svc", certify=False))):
        rows[label] = run_isolated(job)
    report["one_fit"] = rows
    svc = rows["RBF SVC (sklearn)"]
    print("| method | fit time | vs SVC | decision time / sample | iterations | sub-problems (verdicts) | "
          "rate at EER (test) | peak memory |")
    print("|---|---|---|---|---|---|---|---|")
    for label, x in rows.items():
        verdicts = ", ".join(f"{k}: {v}" for k, v in x.get("verdicts", {}).items())
        extra = (f"{x['iterations']} | {x['n_subproblems']} ({verdicts})"
                 if "iterations" in x else f"- | {x['n_support']} support vectors")
        print(f"| {label} | {_t(x['fit_s'])} | {x['fit_s'] / svc['fit_s']:.2f}x | {_t(x['predict_s_per_sample'])} | "
              f"{extra} | {100 * x['rate_eer']:.2f} % | {mem(x)} |")
    print()
    if not args.skip_all:
        print(f"## 3. All 26 letters through the runner (executor {args.executor}, jobs {args.jobs})\n")
        all_rows = {}
        for method in ("lhm", "svc"):
            all_rows[method] = run_isolated(dict(common, kind="all", method=method, certify=args.certify,
                                                 executor=args.executor, jobs=args.jobs))
        report["all_letters"] = all_rows
        lhm, sv = all_rows["lhm"], all_rows["svc"]
        fit_l = sum(x["fit_s"] for x in lhm["results"])
        fit_s = sum(x["fit_s"] for x in sv["results"])
        rate_l = sum(x["rate_eer"] for x in lhm["results"]) / 26
        rate_s = sum(x["rate_eer"] for x in sv["results"]) / 26
        pred_l = sum(x["predict_s_per_sample"] for x in lhm["results"]) / 26
        pred_s = sum(x["predict_s_per_sample"] for x in sv["results"]) / 26
        verd: dict = {}
        for x in lhm["results"]:
            for k, v in x["verdicts"].items():
                verd[k] = verd.get(k, 0) + v
        print("| method | wall time (26 fits) | sum of fit times | vs SVC | mean decision time / sample | "
              "mean rate at EER | peak memory |")
        print("|---|---|---|---|---|---|---|")
        print(f"| LHM C={args.C} K={args.K} ({'certified' if args.certify else 'KKT-checked'}) | {_t(lhm['wall_s'])} | "
              f"{_t(fit_l)} | {fit_l / fit_s:.2f}x | {_t(pred_l)} | {100 * rate_l:.2f} % | {mem(lhm)} |")
        print(f"| RBF SVC | {_t(sv['wall_s'])} | {_t(fit_s)} | 1x | {_t(pred_s)} | {100 * rate_s:.2f} % | {mem(sv)} |")
        print(f"\nLHM sub-problem verdicts over the 26 fits: {verd}; iterations per fit: "
              f"{[x['iterations'] for x in lhm['results']]}")
    if not args.skip_scale:
        report["scale"] = scale_section(args)
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1, default=str))
    return report


if __name__ == "__main__":
    main()
