"""Exponential-cone programs through certiprog against CVXPY + Clarabel (the reference), measured in one run.

Two seeded programs at several sizes:

* ``logistic``: l2-regularised logistic regression, ``min 1/N sum logistic(-y_i a_i'w) + lam ||w||^2``
  (2 exponential cones per sample);
* ``entropy``: maximum entropy with moment constraints, ``max sum entr(p)  s.t.  F p = f, sum p = 1``
  (one exponential cone per entry).

Columns: certiprog's build (canonicalise + assemble), its Clarabel solve, the certificate (`check`, with the
rigorous interval) and its verdict; CVXPY's ``problem.solve(solver="CLARABEL")`` (its reductions included);
the ratio of certiprog's build + solve to CVXPY's; the relative difference of the two optima; peak memory of
certiprog's build + solve + check (tracemalloc, Python allocations only, measured in a separate run). certiprog's
solve includes its cheap answer check (KKT residuals, no interval); ``check`` adds the rigorous interval, whose
upper end usually needs a second Clarabel solve (a strictly feasible point: exponential-cone optima lie on the
cone's boundary, where membership cannot be proved).

    python benchmarks/exp_cone.py [--quick]
"""
from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

import certiprog as c
from certiprog.certify import check

from _measuring import traced_heap_mb

SIZES = {"logistic": [(500, 10), (2000, 20), (8000, 30)], "entropy": [(200, 5), (2000, 10), (20000, 20)]}


def _logistic(N, d, rng):
    import cvxpy as cp

    A = rng.standard_normal((N, d))
    y = np.sign(A @ rng.standard_normal(d) + 0.5 * rng.standard_normal(N))
    w = c.Variable(d, name="w")
    model = c.Model(c.minimize(c.logistic(-y * (A @ w)).sum() / N + 0.01 * c.square(w).sum()))
    wc = cp.Variable(d)
    ref = cp.Problem(cp.Minimize(cp.sum(cp.logistic(cp.multiply(-y, A @ wc))) / N + 0.01 * cp.sum_squares(wc)))
    return model, ref


def _entropy(n, k, rng):
    import cvxpy as cp

    F = rng.standard_normal((k, n))
    f = F @ rng.dirichlet(np.ones(n))
    p = c.Variable(n, name="p")
    model = c.Model(c.maximize(c.entr(p).sum()), [F @ p == f, p.sum() == 1])
    pc = cp.Variable(n)
    ref = cp.Problem(cp.Maximize(cp.sum(cp.entr(pc))), [F @ pc == f, cp.sum(pc) == 1])
    return model, ref


def run(program: str, size: tuple, seed: int = 0) -> dict:
    make = _logistic if program == "logistic" else _entropy
    model, _ = make(*size, np.random.default_rng(seed))  # peak memory in a run of its own (tracemalloc is slow)
    tracemalloc.start()
    check(model, model.solve(backend="clarabel", solver="clarabel"))
    peak = traced_heap_mb()
    model, ref = make(*size, np.random.default_rng(seed))
    t0 = time.perf_counter()
    model.compile().assemble()
    t_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    sol = model.solve(backend="clarabel", solver="clarabel")
    t_solve = time.perf_counter() - t0
    t0 = time.perf_counter()
    cert = check(model, sol)
    t_check = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref.solve(solver="CLARABEL")
    t_ref = time.perf_counter() - t0
    return dict(program=program, size="x".join(map(str, size)), build=t_build, solve=t_solve, check=t_check,
                verdict=cert.verdict, cvxpy=t_ref, ratio=(t_build + t_solve) / t_ref,
                rel_diff=abs(sol.objective - ref.value) / max(1.0, abs(ref.value)), peak_mb=peak)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the smallest size of each program only")
    args = ap.parse_args(argv)
    rows = [run(p, s) for p, sizes in SIZES.items() for s in (sizes[:1] if args.quick else sizes)]
    print("| program | size | build s | solve s | check s | verdict | cvxpy s | (build+solve)/cvxpy | rel diff | "
          "peak MB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['program']} | {r['size']} | {r['build']:.3f} | {r['solve']:.3f} | {r['check']:.2f} | "
              f"{r['verdict']} | {r['cvxpy']:.3f} | {r['ratio']:.2f} | {r['rel_diff']:.1e} | {r['peak_mb']:.0f} |")
    return rows


if __name__ == "__main__":
    main()
