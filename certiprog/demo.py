"""`certiprog demo`: every paper's core program on a small embedded instance, on every backend."""
from __future__ import annotations

import logging

import numpy as np

from certiprog.datasets import load_pima, standardize

log = logging.getLogger(__name__)


def _ellipsoids(rng, P=6, D=8, m=3):
    centers = np.vstack([(1.5 if mu % 2 == 0 else -1.5) * np.ones(D) + 0.3 * rng.standard_normal(D) for mu in range(P)])
    bases = np.stack([np.linalg.qr(rng.standard_normal((D, m)))[0] for _ in range(P)])
    radii = 0.5 + 0.3 * rng.random((P, m))
    labels = np.array([1.0 if mu % 2 == 0 else -1.0 for mu in range(P)])
    return centers, bases, radii, labels


def demo_instances() -> list[tuple[str, object]]:
    """(label, Model) for each core program, built from the embedded Pima data or a seeded synthetic set."""
    from certiprog.formulations import (
        background_risk, error_clumping, hinge_minimax, mcp, me2_dual, me2_primal, mpm,
    )

    X, y = load_pima()
    X = standardize(X)
    rng = np.random.default_rng(0)
    X1, X0 = X[y > 0][:120], X[y < 0][:200]
    mu0, S0 = X0.mean(axis=0), np.cov(X0, rowvar=False, bias=True)
    W = np.vstack([np.eye(8)[1], -np.eye(8)[5]])
    cen, bas, rad, lab = _ellipsoids(rng)
    idx = rng.choice(len(X), 200, replace=False)
    return [
        ("004 mpm (Pima)", mpm(X1, X0)),
        ("000 hinge_minimax (Pima)", hinge_minimax(X1, mu0, S0, lam=0.1, delta=0.3, bias=True)),
        ("000 background_risk (Pima)", background_risk(W, mu0, S0)),
        ("001 mcp hard (ellipsoids)", mcp(cen, bas, rad, lab, q=2)),
        ("001 mcp slack (ellipsoids)", mcp(cen, bas, 3 * rad, lab, q=2, C=1.0)),
        ("002 me2_primal (Pima)", me2_primal(X0[:100], X1[0], mu=1.0, lam=1.0, B=4.0)),
        ("002 me2_dual (Pima)", me2_dual(X0[:100], X1[0], mu=1.0, lam=1.0, B=4.0)),
        ("003 error_clumping (Pima)", error_clumping(X[idx], y[idx], rho=1.5, eta=1.0, lam=0.1)),
    ]


def run_demo(backends: list[str] | None = None) -> list[dict]:
    """Solve each demo instance on each backend; one row per (program, backend)."""
    from certiprog.certificates import check
    from certiprog.solvers import available_backends, get_backend

    rows = []
    for label, model in demo_instances():  # every free backend that takes the model's cones (piqp: LP/QP only)
        for b in backends or [b for b in available_backends(model=model) if get_backend(b).licence is None]:
            sol = model.solve(backend=b)
            cert = check(model, sol)
            rows.append({"program": label, "backend": b, "objective": sol.objective, "compile_s": sol.compile_time,
                         "solve_s": sol.solve_time, "status": sol.status.termination, "verdict": cert.verdict,
                         "interval": cert.interval})
    return rows


def format_table(rows: list[dict]) -> str:
    head = (f"{'program':30s} {'backend':9s} {'objective':>14s} {'compile s':>10s} {'solve s':>9s} {'status':11s}"
            f" {'certificate':12s} {'optimality interval':>30s}")
    lines = [head, "-" * len(head)]
    for r in rows:
        lo, hi = r["interval"] or (np.nan, np.nan)
        lines.append(f"{r['program']:30s} {r['backend']:9s} {r['objective']:14.7g} {r['compile_s']:10.4f} "
                     f"{r['solve_s']:9.4f} {r['status']:11s} {r['verdict']:12s} "
                     f"{'[' + format(lo, '.8g') + ', ' + format(hi, '.8g') + ']':>30s}")
    return "\n".join(lines)
