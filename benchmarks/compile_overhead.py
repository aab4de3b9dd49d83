"""Compile overhead: certiprog's compile vs Clarabel's solve and CVXPY's compile, same problems, one run.

For growing sizes of hinge_minimax (000 eq. 8) and error_clumping (003 eq. 1) prints
our compile time (build the Model + canonicalise + assemble the conic data), Clarabel's
solve time on our conic data, and CVXPY's compile time (`get_problem_data`) on the same
program written directly in CVXPY, with the ratios. Targets: compile <= 10% of the solve,
and >= 5x faster than CVXPY at the largest sizes.

    python benchmarks/compile_overhead.py [--quick]
"""
from __future__ import annotations

import argparse
import time

import cvxpy as cp
import numpy as np

from certiprog.formulations import error_clumping, hinge_minimax
from certiprog.formulations.error_clumping_paper.programs import neighbourhood_graph
from certiprog.solvers import solve_conic

from _measuring import best_of
from _references import cvxpy_error_clumping


def hinge_instance(n, d, rng):
    X = rng.standard_normal((n, d)) + 0.3
    B = rng.standard_normal((2 * d, d))
    return X, -0.3 * np.ones(d), np.cov(B, rowvar=False, bias=True)


def cvxpy_hinge(X, mu, Sigma, lam, delta):
    w = cp.Variable(X.shape[1])
    L = np.linalg.cholesky(Sigma + 1e-12 * np.eye(len(Sigma)))
    gamma = np.sqrt((1 - delta) / delta)
    return cp.Problem(cp.Minimize(lam * cp.sum_squares(w) + cp.sum(cp.pos(1 - X @ w))),
                      [gamma * cp.norm(L.T @ w) + mu @ w <= 0])


def measure(build, cvx_build, repeats=3):
    ours, problem = best_of(lambda: build().compile().assemble(), repeats)
    sol = solve_conic(problem, "clarabel")
    theirs, _ = best_of(lambda: cvx_build().get_problem_data(cp.CLARABEL), repeats)
    return ours, sol.solve_time, theirs, sol.status.termination


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small sizes only (for a smoke run)")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    hinge_sizes = [(1000, 50), (5000, 100)] if args.quick else [(1000, 50), (5000, 100), (10000, 200), (20000, 300)]
    clump_sizes = [500, 1000] if args.quick else [500, 1000, 2000, 5000, 20000]
    head = (f"{'program':16s} {'size':>13s} {'ours compile s':>15s} {'clarabel solve s':>17s} "
            f"{'cvxpy compile s':>16s} {'compile/solve':>14s} {'cvxpy/ours':>11s}  status")
    print(head)
    print("-" * len(head))
    for n, d in hinge_sizes:
        X, mu, S = hinge_instance(n, d, rng)
        ours, solve, theirs, st = measure(lambda: hinge_minimax(X, mu, S, lam=0.1, delta=0.1),
                                          lambda: cvxpy_hinge(X, mu, S, 0.1, 0.1))
        print(f"{'hinge_minimax':16s} {f'{n}x{d}':>13s} {ours:15.3f} {solve:17.3f} {theirs:16.3f} "
              f"{ours / solve:14.3f} {theirs / ours:11.1f}  {st}")
    for m in clump_sizes:
        X = rng.standard_normal((m, 10))
        y = np.sign(X[:, 0] + 0.3 * rng.standard_normal(m))
        t0 = time.perf_counter()
        A = neighbourhood_graph(X, 1.2)  # data preparation shared by both sides, timed apart
        t_graph = time.perf_counter() - t0
        ours, solve, theirs, st = measure(lambda: error_clumping(X, y, rho=1.2, eta=0.5, lam=0.1, graph=A),
                                          lambda: cvxpy_error_clumping(X, y, A, 0.5, 0.1))
        print(f"{'error_clumping':16s} {f'{m}x10':>13s} {ours:15.3f} {solve:17.3f} {theirs:16.3f} "
              f"{ours / solve:14.3f} {theirs / ours:11.1f}  {st}  (graph {t_graph:.3f} s, both sides)")


if __name__ == "__main__":
    main()
