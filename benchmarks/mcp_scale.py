"""MCP at scale (issue 6, item 7): P = 48 L2 ellipsoids, N = 500, D = 40, against a point SVM on the same budget of
points, and against MCP with Clarabel masters, all measured in one run.

Scenarios (``--scenarios``):

* ``hard``: MCP-simple, R0 = 0.5 (library generator `random_lq_ellipsoids`: centres and bases N(0, I/N); this draw
  is separable, just below capacity, kappa ~ 0.013);
* ``slack``: MCP-slack, R0 = 1, C = 1 (above capacity: not separable);
* ``paper-scale``: MCP-slack, R0 = 20, C = 1 with centres and bases N(0, I_N) (the generator of
  `certiprog reproduce mcp`): the points are sqrt(N) times longer, so C = 1 here is C = N = 500 in the unit scale,
  nearly hard margin above capacity. The cutting planes converge slowly there; it runs to ``--max-iter``.

For each scenario: the exact optimum (robust counterpart, Clarabel), then MCP with one point per violating manifold
(``cuts='all'``), with and without dropping cuts inactive at the master optimum (``drop_inactive=1e-3``), and the
paper's one most-violating point per iteration (``cuts='worst'``), on the default master backend (PIQP's dense
interior point), and MCP ``cuts='all'`` on Clarabel masters as the reference (``--variants`` picks among them);
then a point SVM (no bias, hinge with the same C, or the exact hard
margin) on as many uniform points as MCP holds. Columns: master solves, points, seconds (master / oracle),
(F* - F)/F*, test error (500 uniform points per manifold), and the ratios point SVM / MCP and Clarabel / PIQP.

    python benchmarks/mcp_scale.py [--scenarios hard slack paper-scale] [--variants drop all worst reference] [--quick]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from certiprog.formulations.mcp_paper import experiment as exp
from certiprog.formulations.mcp_paper.manifolds import LqEllipsoidManifold
from certiprog.formulations.mcp_paper.programs import mcp_model, mcp_simple, mcp_slack

VARIANTS = {
    "drop": ("MCP all + drop (piqp)", dict(cuts="all", drop_inactive=1e-3, backend=None)),
    "all": ("MCP all (piqp)", dict(cuts="all", backend=None)),
    "worst": ("MCP worst, paper (piqp)", dict(cuts="worst", backend=None)),
    "reference": ("MCP all (clarabel)", dict(cuts="all", backend="clarabel")),
}
SCENARIOS = {  # name: (R0, C, unit scale)
    "hard": (0.5, None, True),
    "slack": (1.0, 1.0, True),
    "paper-scale": (20.0, 1.0, False),
}


def geometry(P, N, D, R0, unit, rng) -> dict:
    """A `random_ellipsoids` draw (q = 2), rescaled to N(0, I/N) centres and bases when ``unit``."""
    geom = exp.random_ellipsoids(P, N, D, R0, 2.0, rng)
    if unit:
        geom["centers"] = geom["centers"] / np.sqrt(N)
        geom["bases"] = geom["bases"] / np.sqrt(N)
    return geom


def run_scenario(name, args, rng) -> list:
    R0, C, unit = SCENARIOS[name]
    P, N, D = args.P, args.N, args.D
    geom = geometry(P, N, D, R0, unit, rng)
    manifolds = [LqEllipsoidManifold(c, U, r, q=2.0) for c, U, r in zip(geom["centers"], geom["bases"], geom["radii"])]
    X_test, y_test = exp.sample_ellipsoids(geom, args.n_test, rng)
    t0 = time.perf_counter()
    exact = mcp_model(manifolds, geom["labels"], C=C).solve(backend="clarabel", forall="exact")
    exact_time = time.perf_counter() - t0
    print(f"\n## {name}: P={P} N={N} D={D} R0={R0} C={C} ({'N(0, I/N)' if unit else 'N(0, I)'} centres and bases), "
          f"delta={args.delta}; exact program {exact.status.termination}, F* = {exact.objective:.6g} "
          f"({exact_time:.2f} s)", flush=True)
    if not exact.ok:
        print("   (not separable: this draw does not fit the scenario; change --seed)")
        return []
    variants = [(label, opts) for key, (label, opts) in VARIANTS.items() if key in args.variants]
    rows = []
    for label, opts in variants:
        fit = mcp_simple if C is None else (lambda ms, y, **kw: mcp_slack(ms, y, C, **kw))
        res = fit(manifolds, geom["labels"], delta=args.delta, max_iter=args.max_iter,
                  progress=not args.no_progress, **opts)
        err = exp.error_rate(res.w, X_test, y_test)
        used = P + res.n_added  # centres + every point the oracle added
        m = max(1, int(np.ceil(used / P)))  # the same budget of uniform points per manifold
        X, y = exp.sample_ellipsoids(geom, m, rng)
        t0 = time.perf_counter()
        w_svm = exp.point_svm(X, y, C)
        svm_time = time.perf_counter() - t0
        rows.append(dict(scenario=name, variant=label, status=res.status, solves=len(res.history), points=used,
                         time=res.solve_time, master=res.master_time, oracle=res.oracle_time,
                         gap=(exact.objective - res.objective) / exact.objective, error=err, svm_points=len(y),
                         svm_time=svm_time, svm_error=exp.error_rate(w_svm, X_test, y_test)))
        print(f"   {label}: {res.status} after {len(res.history)} master solves, {res.solve_time:.2f} s", flush=True)
    return rows


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scenarios", nargs="+", default=list(SCENARIOS), choices=list(SCENARIOS))
    p.add_argument("--P", type=int, default=48)
    p.add_argument("--N", type=int, default=500)
    p.add_argument("--D", type=int, default=40)
    p.add_argument("--delta", type=float, default=1e-2)
    p.add_argument("--max-iter", type=int, default=1000)
    p.add_argument("--n-test", type=int, default=500)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS),
                   help="drop: cuts='all' + drop_inactive; all: cuts='all'; worst: the paper's one point per "
                        "iteration; reference: cuts='all' on Clarabel masters (minutes at full size)")
    p.add_argument("--quick", action="store_true", help="P=12, N=100, D=10, at most 300 master solves")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    if args.quick:
        args.P, args.N, args.D, args.n_test, args.max_iter = 12, 100, 10, 200, min(args.max_iter, 300)
    rng = np.random.default_rng(args.seed)
    rows = [r for name in args.scenarios for r in run_scenario(name, args, rng)]
    ref = {r["scenario"]: r["time"] for r in rows if r["variant"] == "MCP all (clarabel)"}
    print("\n| scenario | variant | status | master solves | points | time (s) | master / oracle (s) | (F*-F)/F* "
          "| test error | point-SVM points | point-SVM time (s) | point-SVM error | error ratio SVM/MCP "
          "| time ratio SVM/MCP | time ratio Clarabel/this |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        ratio = r["svm_error"] / r["error"] if r["error"] > 0 else float("inf")
        vs = f"{ref[r['scenario']] / r['time']:.1f}" if r["scenario"] in ref else "-"
        print(f"| {r['scenario']} | {r['variant']} | {r['status']} | {r['solves']} | {r['points']} | {r['time']:.2f} | "
              f"{r['master']:.2f} / {r['oracle']:.2f} | {r['gap']:.2e} | {r['error']:.4f} | {r['svm_points']} | "
              f"{r['svm_time']:.2f} | {r['svm_error']:.4f} | {ratio:.2f} | {r['svm_time'] / r['time']:.3f} | {vs} |")


if __name__ == "__main__":
    main()
