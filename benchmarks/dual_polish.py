"""What recovering duals costs beside the solve, and what the polish buys (issue 21 item 8).

Part 1, CVXPY's standard problems with reference duals (``cvxpy.tests.solver_test_helpers``, built as in
tests/core/test_cvxpy_standard_problems.py) through the dual-less paths (pyomo's scip_direct, CVXPY's SCIP):
SCIP's own solve time (``sol.solve_time``), `recover` (the default: Newton on the active set read from the slacks,
else least squares + polish) and the least-squares recovery alone (``polish=False``, what certiprog did before),
best of ``--reps``; the dual's error against CVXPY's reference, max |z - z_ref| / max(1, max |z_ref|), before and
after; the flag.

Part 2, random sparse programs (seeded; ``lp:N`` min c'x s.t. A x <= b, |x| <= 1 with N columns, N/2 rows of ~10
nonzeros; ``qp:N`` plus 1/2 ||x||^2; ``socp:N`` plus N/10 SOCs of dimension 5): Clarabel's solve (its duals then
dropped), `recover` and the least squares alone on Clarabel's point, their ratios to the solve, tracemalloc's heap
peak of `recover`, and the recovered dual's error against Clarabel's (tight tolerances)::

    OMP_NUM_THREADS=1 python benchmarks/dual_polish.py [--reps 3] [--no-standard] [lp:5000 qp:2000 socp:2000]

No wall-clock assertion anywhere: the figures are for reading.

Measured (2026-11-27, OMP_NUM_THREADS=1, 2 cores shared with up to 8 agents, noisy: +-50 %; best of 3):

    standard problems (23 runs): SCIP's solve 15-540 ms, recover 0.8-24 ms (exp / power cones 12-24 ms, the
      rest <= 3 ms), the least squares alone 0.6-41 ms; every recovered pair a KKT point to <= 8e-16, none
      flagged; error vs CVXPY's reference pcp_1 1.3e-4 -> 2.2e-5, pcp_3 7.7e-5 -> 1.2e-5, socp_3 6.3e-5 -> 3.0e-5
      (what remains is the reference's own error: Clarabel at 1e-10 agrees with the recovered duals to 2e-6)
    lp:5000  (n 5000, m 12500): Clarabel 11.1 s; recover 0.078 s (0.01 of it); least squares alone 13.3 s (1.19)
    qp:2000  (n 2000, m 5000):  Clarabel 0.54 s; recover 0.14 s (0.26); least squares alone 2.5 s (4.6)
    socp:2000 (n 2000, m 6000, 200 SOCs): Clarabel 0.90 s; recover 0.37 s (0.41); least squares alone 0.35 s
    (dual-less solvers are slower than Clarabel: SCIP did not finish socp:1000 in 10 minutes here, so the ratios
    to the solves recover actually follows are smaller still). tracemalloc's heap peak of recover: 1-2 MB (SuperLU's
    native memory is not traced).
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(__file__))

from _measuring import best_of  # noqa: E402

import certiprog.model as cm  # noqa: E402
from certiprog.certify.recovery import recover  # noqa: E402
from certiprog.model import SOC, Model, Variable, minimize  # noqa: E402
from certiprog.solvers import available_solvers  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DUAL_LESS = [("pyomo", "scip_direct"), ("cvxpy", "SCIP")]
TIGHT = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10}


def standard_problems():
    """tests/core/test_cvxpy_standard_problems.py as a module (its CASES and builders)."""
    name = "certiprog_tests_cvxpy_standard_problems"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "core" / "test_cvxpy_standard_problems.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def reference_error(sol, z, converters, ref) -> float:
    worst = 0.0
    for i, (convert, expect) in enumerate(zip(converters, ref.expect_dual_vars)):
        if convert is None or expect is None:
            continue
        blocks = sol.problem.rows_of(f"c{i}")
        got = np.concatenate([z[b.start:b.stop] for b in blocks])
        e = np.asarray(convert(expect), float).reshape(-1)
        worst = max(worst, float(np.max(np.abs(got - e)) / max(1.0, np.max(np.abs(e)))))
    return worst


def run_standard(reps: int) -> None:
    std = standard_problems()
    print(f"{'problem':<17}{'path':<19}{'SCIP ms':>9}{'recover ms':>11}{'LS ms':>8}{'err LS':>9}{'err now':>9}"
          f"{'KKT res':>9}  flag")
    for case in std.CASES:
        if case.status != "optimal" or not case.duals:
            continue
        m, _, converters = case.build()
        if not any(converters):
            continue
        for backend, solver in DUAL_LESS:
            if (backend, solver) not in available_solvers(model=m):
                continue
            sol = m.solve(backend=backend, solver=solver)
            p, ref = sol.problem, case.reference()
            t_rec, rec = best_of(lambda: recover(p, sol.x), reps)
            t_ls, ls = best_of(lambda: recover(p, sol.x, polish=False), reps)
            print(f"{case.name:<17}{backend + '/' + solver:<19}{1e3 * sol.solve_time:>9.1f}{1e3 * t_rec:>11.1f}"
                  f"{1e3 * t_ls:>8.1f}{reference_error(sol, ls.z, converters, ref):>9.1e}"
                  f"{reference_error(sol, rec.z, converters, ref):>9.1e}{rec.residual_after:>9.1e}  "
                  f"{'APPROXIMATE' if rec.approximate else 'exact'}")


def random_program(kind: str, n: int, rng) -> Model:
    m = n // 2
    A = sp.random(m, n, density=min(1.0, 10 / n), random_state=rng, format="csr")
    b = A @ rng.uniform(-0.5, 0.5, n) + rng.uniform(0, 1, m)
    x = Variable(n, "x")
    cons = {"rows": A @ x <= b, "hi": x <= 1.0, "lo": x >= -1.0}
    obj = rng.standard_normal(n) @ x
    if kind == "qp":
        obj = obj + 0.5 * cm.sum_squares(x)
    if kind == "socp":
        for i in range(n // 10):
            cons[f"soc{i}"] = SOC(1.0 + rng.uniform(), x[5 * i:5 * i + 4] - 0.1)
    return Model(minimize(obj), cons)


def run_random(spec: str, reps: int) -> None:
    kind, n = spec.split(":")
    model = random_program(kind, int(n), np.random.default_rng(0))
    t_solve, sol = best_of(lambda: model.solve(backend="clarabel", solver="clarabel"), 1)
    p = sol.problem
    tracemalloc.start()
    rec = recover(p, sol.x)
    heap = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    t_rec, rec = best_of(lambda: recover(p, sol.x), reps)
    t_ls, _ = best_of(lambda: recover(p, sol.x, polish=False), 1)
    ref = model.solve(backend="clarabel", solver="clarabel", **TIGHT)
    err = float(np.max(np.abs(rec.z - ref.z)) / max(1.0, np.max(np.abs(ref.z))))
    print(f"{spec:<11} n {p.n:>6} m {p.m:>6}: Clarabel {sol.solve_time:7.3f} s (solve+check {t_solve:6.2f} s); "
          f"recover {t_rec:6.3f} s ({t_rec / sol.solve_time:.2f}), heap {heap:6.1f} MB; least squares alone "
          f"{t_ls:6.3f} s ({t_ls / sol.solve_time:.2f}); dual error vs Clarabel 1e-10 {err:.1e}; "
          f"{'APPROXIMATE' if rec.approximate else 'exact'} ({rec.reason[:60]})")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--no-standard", action="store_true")
    ap.add_argument("cases", nargs="*", default=["lp:5000", "qp:2000", "socp:2000"])
    args = ap.parse_args(argv)
    if not args.no_standard:
        run_standard(args.reps)
    for spec in args.cases:
        run_random(spec, args.reps)


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"total {time.perf_counter() - t0:.1f} s")
