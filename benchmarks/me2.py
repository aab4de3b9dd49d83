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
peak (Python and numpy allocations; the solvers' native memory is only in the RSS column). BLAS is single-threaded.

    python benchmarks/me2.py [--datasets yeast6 abalone19] [--centres 3] [--full] [--pairs 1,1e-3 0.75,1e-6]
"""
from __future__ import annotations

import argparse
import json
import os
import time

from _measuring import peak_rss_kb, record_peaks, run_isolated

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

PATHS = ("dedicated", "generic", "cvxpy")
SOLVER_OF = {"dedicated": "dedicated", "generic": "clarabel", "cvxpy": "cvxpy-direct"}


def _data(name: str):
    from certiprog.formulations.me2_paper import experiment as E

    d = E._scenario_data(dict(part="table3", dataset=name, rate=None, rep=0), dict(seed=0, test_size=0.2))
    return d["Xs"], d["ys"], d["fold_seed"]


def _measure(job: dict) -> dict:
    """Run one measurement (in a fresh process): returns its result plus peak RSS (kB) and tracemalloc peak."""
    import tracemalloc

    import numpy as np

    from certiprog.estimators import ME2Classifier  # noqa: F401 (imports before the baseline RSS)
    from certiprog.formulations.me2_paper import local_solver as LS
    from certiprog.formulations.me2_paper.programs import me2_fit
    from certiprog.formulations.me2_paper.tuning import tune_local

    import cvxpy  # noqa: F401
    if job["kind"] == "baseline":
        return dict(rss_kb=peak_rss_kb())
    Xs, ys, fold_seed = _data(job["dataset"])
    tracemalloc.start()
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
    return record_peaks(out)


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
    args = ap.parse_args(argv)
    pairs = [tuple(float(v) for v in p.split(",")) for p in args.pairs]
    base = run_isolated(_measure, dict(kind="baseline"))["rss_kb"]
    report = dict(baseline_rss_kb=base, local=[], fit=[])
    print(f"# ME2 local solver benchmark (BLAS threads: {os.environ['OPENBLAS_NUM_THREADS']}, cpu count "
          f"{os.cpu_count()}, load {os.getloadavg()[0]:.1f})\n")
    for name in args.datasets:
        print(f"## {name}\n")
        print("| (mu, lam) | path | time | vs dedicated | primal | rel. gap | max |M - M_ded|_F | peak RSS | "
              "peak heap |\n|---|---|---|---|---|---|---|---|---|")
        for pair in pairs:
            res = {p: run_isolated(_measure, dict(kind="local", dataset=name, pair=pair, path=p)) for p in args.paths}
            ref = res.get("dedicated")
            for p, r in res.items():
                dM = np.abs(np.array(r["M"]) - np.array(ref["M"])).max() if ref else float("nan")
                ratio = r["seconds"] / ref["seconds"] if ref else float("nan")
                print(f"| {pair} | {p} | {_fmt_t(r['seconds'])} | {ratio:.1f}x | {r['primal']:.10g} | "
                      f"{r['rel_gap']:.1e} | {dM:.1e} | {(r['rss_kb'] - base) / 1024:.0f} MB | {r['heap_mb']:.1f} MB |")
                report["local"].append(dict(dataset=name, pair=pair, path=p,
                                            **{k: v for k, v in r.items() if k != "M"}))
        n, d = res[args.paths[0]]["n"], res[args.paths[0]]["d"]
        print(f"\nsizes: n = {n} negatives, d = {d} features; dedicated: a {d * (d + 1) // 2 + 1} x {n} least-squares"
              f" matrix (m x m Newton systems, m = {d * (d + 1) // 2 + 1}); generic Model: {n + 2} variables, "
              f"{2 * n + 2} inequality rows and a second-order cone of size {d * (d + 1) // 2 + 2}; CVXPY: {n} "
              "variables, 2n bounds.\n")
        print("| tuned fit | local models run | QP solves | time | full fit | vs dedicated | worst rel. gap | "
              "peak RSS | peak heap |\n|---|---|---|---|---|---|---|---|---|")
        fits = {}
        for p in args.paths:
            job = dict(kind="fit", dataset=name, path=p)
            if p != "dedicated" and not args.full:
                job["centres"] = args.centres
            fits[p] = r = run_isolated(_measure, job)
            r["full_seconds"] = r["seconds"] * r["n_total"] / r["n_models"]
            report["fit"].append(dict(dataset=name, path=p, **r))
        if "dedicated" in fits and not args.full:  # the same first centres on the dedicated path, for the ratio
            job = dict(kind="fit", dataset=name, path="dedicated", centres=args.centres)
            fits["dedicated (same centres)"] = r = run_isolated(_measure, job)
            r["full_seconds"] = r["seconds"] * r["n_total"] / r["n_models"]
        ref = fits.get("dedicated")
        for p, r in fits.items():
            approx = r["n_models"] < r["n_total"]
            ratio = r["full_seconds"] / ref["full_seconds"] if ref else float("nan")
            print(f"| {p} | {r['n_models']} / {r['n_total']} | {r['n_solves']} | {_fmt_t(r['seconds'])} | "
                  f"{_fmt_t(r['full_seconds'], approx)} | {ratio:.1f}x | {r['max_rel_gap']:.1e} | "
                  f"{(r['rss_kb'] - base) / 1024:.0f} MB | {r['heap_mb']:.1f} MB |")
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
