"""Eq. (1) of paper 003 at MNIST scale: the structured certified solver against CVXPY + Clarabel, in one run (issue 14).

Instance: MNIST 0-4 (y = -1) vs 5-9 (y = +1), pixels / 255 plus a constant feature, the paper's split (70,000
shuffled with seed 0, the first half for training) and its first ``m`` training points; rho chosen so that the mean
neighbourhood holds ``--fraction`` of the points (`graph.rho_for_mean_degree`; the exact mean degree is printed);
eta and lam from the command line (default eta = 0.5, the paper's clumping value, lam = 1e-2).

Measured, each in its own spawned process ("peak RSS" is that whole process's maximum resident set: imports, the
MNIST arrays and the work; "baseline" is a process that only imported the same modules; "peak heap" is
tracemalloc's peak, numpy and Python allocations only, not Clarabel's native memory, from a second, traced run of
the jobs under 10 s: tracing is never on while the clock runs; "n/a" for the longer jobs):

1. the neighbourhood graph: ``graph.radius_graph`` with the blocked float32 BLAS products and exact recheck
   (``blas``), scikit-learn's ``radius_neighbors_graph(algorithm='brute')`` and scipy's cKDTree (the old path);
   the three graphs are compared entry by entry;
2. eq. (1) given the graph: ``solver.solve_error_clumping`` (structured, certified gap) and CVXPY + Clarabel
   (``quad_form(xi, psd_wrap(Theta))``, build + solve), the reference's objective checked against our interval.

BLAS is single-threaded. ``--quick``: m = 2,000 (seconds).

Measured 2026-11-25 on the shared 2-core machine (load 3-17, so absolute times are inflated; ratios are within
one run), eta = 0.5, lam = 1e-2, tol = 1e-4:

| m, neighbourhood | graph blas / sklearn brute / cKDTree | structured (rel. gap) | CVXPY + Clarabel | speed-up |
|---|---|---|---|---|
| 2,000, 1 % | 0.10 / 0.39 / 1.2 s | 0.12 s (2.4e-6) | 3.4 s | 28x |
| 35,000, 1 % (12.2 M nnz) | 37 / 129 / 647 s | 3.1 s (4.9e-8), 1.15 GB RSS | 1317 s, 4.9 GB RSS | 423x (end to end 40 s vs 1965 s today) |
| 10,000, 10 % (9.7 M nnz) | 9.5 s / - / 53 s | 1.7 s (2.6e-5) | 314 s, 2.7 GB RSS | 184x |
| 35,000, 10 % (121.5 M nnz) | 40 s, 3.3 GB RSS | 10.5 s (2.3e-5), 3.4 GB RSS (graph loaded), 1.5 GB heap | not run | - |

All graphs identical entry by entry; Clarabel's objective above our proved lower end in every run.

Issue 24, ``--normalisation`` (Theta's reading; the reference is handed the same Theta), measured 2026-11-27 at
load 7-9, eta = 0.5, lam = 1e-2, tol = 1e-4, 1 % neighbourhoods:

| m, reading | structured (rel. gap) | CVXPY + Clarabel | speed-up |
|---|---|---|---|
| 2,000, dmax | 0.20 s (2.8e-5) | 3.2 s | 16x |
| 2,000, symmetric | 0.29 s (1.5e-5) | 3.3 s | 11.5x |
| 10,000, printed / dmax / symmetric | 0.47 / 0.70 / 1.3 s (2.8e-7 / 7.5e-6 / 2.8e-5) | not run | - |

The normalised readings cost more inner Jacobi sweeps (contraction eta instead of eta d_max/(m-1)); Clarabel's
objective lies inside our certified interval's rounding in every run.

    python benchmarks/error_clumping.py [--quick] [--m 35000] [--fraction 0.01] [--eta 0.5] [--lam 1e-2]
        [--paths structured cvxpy] [--graphs blas sklearn kdtree] [--timeout 3600] [--out result.json]
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

from _measuring import finish, heap_text, peak_rss_kb, run_isolated, run_measured, start_trace
from _references import cvxpy_error_clumping

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

PATHS = ("structured", "cvxpy")
GRAPHS = ("blas", "sklearn", "kdtree")


def _instance(m: int, fraction: float):
    from certiprog.datasets.mnist import mnist_binary
    from certiprog.formulations.error_clumping_paper.graph import rho_for_mean_degree

    d = mnist_binary(positive=(5, 6, 7, 8, 9), seed=0, n_train=m)
    return d.X_train, d.y_train, rho_for_mean_degree(d.X_train, fraction, seed=0)


def _imports():
    import cvxpy  # noqa: F401
    import numpy  # noqa: F401
    import scipy.sparse  # noqa: F401
    import sklearn.neighbors  # noqa: F401

    from certiprog.formulations.error_clumping_paper import graph, solver  # noqa: F401


def _measure(job: dict) -> dict:
    """One measurement in a fresh process (`run_measured`): its result, time and peak RSS (kB); in the traced run
    also tracemalloc's peak."""
    import scipy.sparse as sp

    _imports()
    if job["kind"] == "baseline":
        return dict(rss_kb=peak_rss_kb())
    X, y, rho = _instance(job["m"], job["fraction"])
    out: dict = {}
    if job["kind"] == "graph":
        start_trace(job)
        t0 = time.perf_counter()
        if job["method"] == "sklearn":
            from sklearn.neighbors import NearestNeighbors

            nn = NearestNeighbors(radius=rho, algorithm="brute").fit(X)
            A = sp.csr_matrix(nn.radius_neighbors_graph(mode="connectivity"), dtype=float)  # X=None: self excluded
        else:
            from certiprog.formulations.error_clumping_paper.graph import radius_graph

            A = radius_graph(X, rho, method=job["method"])
        out["seconds"] = time.perf_counter() - t0
        A.sort_indices()
        sp.save_npz(job["save"], A, compressed=False)
        out.update(nnz=int(A.nnz), rho=rho)
    else:
        A = sp.load_npz(job["graph"]).tocsr()
        eta, lam = job["eta"], job["lam"]
        start_trace(job)
        t0 = time.perf_counter()
        if job["path"] == "structured":
            from certiprog.formulations.error_clumping_paper.solver import solve_error_clumping

            fit = solve_error_clumping(X, y, rho, eta, lam, graph=A, tol=job["tol"], normalisation=job["normalisation"])
            out.update(lower=fit.lower, upper=fit.upper, rel_gap=fit.rel_gap, status=fit.status,
                       iterations=fit.iterations, objective=fit.objective,
                       certify_seconds=fit.info.get("certify_seconds"))
        else:
            import cvxpy as cp

            if job["normalisation"] != "printed":  # the reference's Theta = I - eta/(m-1) A_ref = I - (eta/den) W
                from certiprog.formulations.error_clumping_paper.normalisation import normalise

                G = normalise(A, job["normalisation"])
                A = G.W * ((A.shape[0] - 1) / G.den)
            prob = cvxpy_error_clumping(X, y, A, eta, lam)
            prob.solve(solver=cp.CLARABEL)
            out.update(objective=float(prob.value), status=prob.status,
                       solver_seconds=float(prob.solver_stats.solve_time or float("nan")))
        out["seconds"] = time.perf_counter() - t0
    return finish(out, job)


def _t(s) -> str:
    return "-" if s is None else f"{s * 1e3:.0f} ms" if s < 1 else f"{s:.1f} s"


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="m = 2,000")
    ap.add_argument("--m", type=int, default=35000)
    ap.add_argument("--fraction", type=float, default=0.01)
    ap.add_argument("--eta", type=float, default=0.5)
    ap.add_argument("--lam", type=float, default=1e-2)
    ap.add_argument("--tol", type=float, default=1e-4, help="certified relative gap to reach")
    ap.add_argument("--normalisation", default="printed", choices=("printed", "dmax", "symmetric", "max", "row"),
                    help="Theta's off-diagonal (issue 24; the reference gets the same Theta)")
    ap.add_argument("--paths", nargs="+", default=list(PATHS), choices=PATHS)
    ap.add_argument("--graphs", nargs="+", default=list(GRAPHS), choices=GRAPHS)
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds per measurement")
    ap.add_argument("--out", default=None, help="write the measurements as JSON here")
    args = ap.parse_args(argv)
    m = 2000 if args.quick else args.m
    base = run_isolated(_measure, dict(kind="baseline"))["rss_kb"]
    inst = dict(m=m, fraction=args.fraction)
    report = dict(m=m, fraction=args.fraction, eta=args.eta, lam=args.lam, tol=args.tol, graphs={}, solves={},
                  normalisation=args.normalisation,
                  baseline_rss_kb=base, load=os.getloadavg()[0])
    print(f"baseline process (imports only): {base / 1024:.0f} MB\n")
    print(f"# Error clumping (paper 003) at m = {m}: MNIST 0-4 vs 5-9, 785 features, eta = {args.eta}, "
          f"lam = {args.lam}, Theta {args.normalisation}, mean neighbourhood ~{args.fraction:.0%} (BLAS threads "
          f"{os.environ['OPENBLAS_NUM_THREADS']}, load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)\n")
    with tempfile.TemporaryDirectory() as tmp:
        import numpy as np
        import scipy.sparse as sp

        graphs = {}
        for g in (["blas"] + [g for g in args.graphs if g != "blas"]):
            path = os.path.join(tmp, f"{g}.npz")
            r = run_measured(_measure, dict(kind="graph", method=g, save=path, **inst), timeout=args.timeout)
            report["graphs"][g] = r
            if "timeout" not in r:
                graphs[g] = sp.load_npz(path)
        ref = graphs["blas"]
        rho = report["graphs"]["blas"]["rho"]
        print(f"rho = {rho:.6g}; graph: {ref.nnz:,} nonzeros, mean degree {ref.nnz / m:.1f} "
              f"({ref.nnz / m / (m - 1):.2%} of m - 1), max degree {int(np.diff(ref.indptr).max())}\n")
        print("| graph method | time | vs blas | peak RSS | peak heap | same graph as blas |\n|---|---|---|---|---|---|")
        tb = report["graphs"]["blas"]["seconds"]
        for g, r in report["graphs"].items():
            if "timeout" in r:
                print(f"| {g} | > {_t(r['timeout'])} (timeout) | | | | |")
                continue
            same = (graphs[g] != ref).nnz == 0
            r["same_as_blas"] = bool(same)
            print(f"| {g} | {_t(r['seconds'])} | {r['seconds'] / tb:.1f}x | {r['rss_kb'] / 1024:.0f} MB | "
                  f"{heap_text(r, 0)} | {'yes' if same else 'NO: ' + str((graphs[g] != ref).nnz) + ' entries'} |")
        gpath = os.path.join(tmp, "blas.npz")
        for p in args.paths:
            job = dict(kind="solve", path=p, graph=gpath, eta=args.eta, lam=args.lam, tol=args.tol,
                       normalisation=args.normalisation, **inst)
            report["solves"][p] = run_measured(_measure, job, timeout=args.timeout)
    s, c = report["solves"].get("structured"), report["solves"].get("cvxpy")
    print("\n| eq. (1) solver | time (graph given) | vs structured | objective | certified interval | rel. gap | "
          "peak RSS | peak heap |\n|---|---|---|---|---|---|---|---|")
    for p, r in report["solves"].items():
        if "timeout" in r:
            print(f"| {p} | > {_t(r['timeout'])} (timeout) | | | | | | |")
            continue
        ratio = r["seconds"] / s["seconds"] if s and "seconds" in s else float("nan")
        interval = f"[{r['lower']:.10g}, {r['upper']:.10g}]" if p == "structured" else "-"
        gap = f"{r['rel_gap']:.1e}" if p == "structured" else "-"
        print(f"| {p} | {_t(r['seconds'])} | {ratio:.1f}x | {r['objective']:.10g} | {interval} | {gap} | "
              f"{r['rss_kb'] / 1024:.0f} MB | {heap_text(r, 0)} |")
    if s and c and "seconds" in s and "seconds" in c:
        consistent = c["objective"] >= s["lower"]
        rel = (c["objective"] - s["upper"]) / abs(s["upper"])
        tg = report["graphs"]["blas"]["seconds"]
        tk = report["graphs"].get("kdtree", {}).get("seconds")
        print(f"\nClarabel's objective (its own value, not certified) is {'>=' if consistent else 'BELOW'} our proved "
              f"lower end; (Clarabel - our upper end) / our upper end = {rel:+.1e}; speed-up on the solve "
              f"{c['seconds'] / s['seconds']:.1f}x; end to end "
              f"(blas graph + solve) {tg + s['seconds']:.1f} s vs (blas graph + CVXPY) {tg + c['seconds']:.1f} s"
              + (f", vs today's path (cKDTree graph + CVXPY) {tk + c['seconds']:.1f} s: "
                 f"{(tk + c['seconds']) / (tg + s['seconds']):.1f}x" if tk else ""))
        report.update(clarabel_above_lower=bool(consistent), speedup=c["seconds"] / s["seconds"])
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(report, fh, indent=1, default=str)
    return report


if __name__ == "__main__":
    main()
