"""`certiprog demo`: every paper's core program on a small embedded instance, on every backend that can take it.

`run_demo` solves and certifies; `skipped_backends` says which backends were left out and why (package missing,
licence missing, cone or objective not taken); `explain_failures` says why a row failed (status, the
certificate's verdict and its reason). The CLI prints all three and exits 1 on a failing row.
"""
from __future__ import annotations

import logging

import numpy as np

from certiprog.datasets import load_pima, standardize

log = logging.getLogger(__name__)

#: statuses that count as an answer (anything else is a failing row, as is a certificate verdict "failed")
OK_STATUSES = ("optimal", "inaccurate", "unconfirmed")
#: the pip extra that installs each optional backend (the others come with ``pip install certiprog``)
EXTRAS = {"pyomo": "pyomo", "mosek": "mosek"}


def _ellipsoids(rng, P=6, D=8, m=3):
    centers = np.vstack([(1.5 if mu % 2 == 0 else -1.5) * np.ones(D) + 0.3 * rng.standard_normal(D) for mu in range(P)])
    bases = np.stack([np.linalg.qr(rng.standard_normal((D, m)))[0] for _ in range(P)])
    radii = 0.5 + 0.3 * rng.random((P, m))
    labels = np.array([1.0 if mu % 2 == 0 else -1.0 for mu in range(P)])
    return centers, bases, radii, labels


def demo_instances() -> list[tuple[str, object]]:
    """(label, Model) for each core program, built from the embedded Pima data or a seeded synthetic set."""
    from certiprog.formulations import (
        background_risk,
        error_clumping,
        hinge_minimax,
        mcp,
        me2_dual,
        me2_primal,
        mpm,
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


def backend_problem(name: str) -> str | None:
    """Why the backend ``name`` cannot run here at all (unknown, package missing, licence missing), or None."""
    from certiprog.solvers import registered_backends

    b = registered_backends().get(name)
    if b is None:
        return f"unknown backend; registered: {sorted(registered_backends())}"
    if not b.available():
        extra = EXTRAS.get(name, name)
        return f"package missing: {', '.join(b.requires)} is not installed (pip install 'certiprog[{extra}]')"
    why = b.licence_problem()
    return f"licence missing: {why}" if why else None


def _refusals(text: str) -> str:
    """`why_none`'s "backend/solver: reason; ..." with each distinct reason once (PIQP's three interfaces agree)."""
    reasons = [part.split(": ", 1)[-1] for part in text.split("; ")]
    return "; ".join(dict.fromkeys(reasons))


def _plan(backends: list[str] | None):
    """(label, model, backends to run, {backend: why skipped}) per instance."""
    from certiprog.solvers import available_backends, registered_backends
    from certiprog.solvers.registry import why_none

    names = list(backends) if backends else list(registered_backends())
    down = {b: backend_problem(b) for b in names}
    plan = []
    for label, model in demo_instances():
        takes = set(available_backends(model=model))
        run, skip = [], {}
        for b in names:
            if down[b]:
                skip[b] = down[b]
            elif b in takes:
                run.append(b)
            else:  # installed and licensed, but none of its solvers takes this program's cones or objective
                skip[b] = "cone not supported: " + _refusals(why_none(model, backend=b))
        plan.append((label, model, run, skip))
    return plan


def skipped_backends(backends: list[str] | None = None) -> list[dict]:
    """One entry per (backend, reason): ``{"backend", "reason", "programs"}`` (the demo programs it skipped)."""
    grouped: dict = {}
    for label, _, _, skip in _plan(backends):
        for b, why in skip.items():
            grouped.setdefault((b, why), []).append(label)
    return [{"backend": b, "reason": why, "programs": progs} for (b, why), progs in grouped.items()]


def _reason(sol, cert) -> str:
    """Why a row failed, in the solver's and the certificate's words."""
    parts = []
    info = getattr(sol, "info", {}) or {}
    for key in ("error", "solver_status", "cvxpy_status"):
        if info.get(key):
            parts.append(f"{key.replace('_', ' ')}: {info[key]}")
    if cert is not None:
        if cert.worst:
            parts.append(f"largest relative residual {cert.max_rel:.3g} in {cert.worst} (tolerance {cert.tol:g})")
        parts += list(cert.notes)
    attempts = getattr(sol, "attempts", None) or []
    if len(attempts) > 1:
        parts.append("solvers tried: " + "; ".join(
            f"{a.label} -> {a.termination or 'error'} ({a.error if a.refused else a.rejected or a.verdict})"
            for a in attempts))
    return "; ".join(str(p) for p in parts) or "no further detail from the solver or the certificate"


def _why_not_certified(cert) -> str:
    """Why an answer that is not failing was not certified, in the certificate's words (its interval notes)."""
    notes = [n for n in cert.interval_notes + cert.notes if n]
    return "; ".join(notes) or f"the certificate's verdict is {cert.verdict} (no rigorous interval was proved)"


def failing(row: dict) -> bool:
    """A row fails when the solver gave no answer or the certificate rejects the answer it gave."""
    return row["status"] not in OK_STATUSES or row["verdict"] == "failed"


def run_demo(backends: list[str] | None = None) -> list[dict]:
    """Solve each demo instance on each backend that takes it (default: every registered backend that is
    installed and licensed here); one row per (program, backend) with status, certificate and, for a failing
    row, ``reason``. Backends left out are listed by `skipped_backends`."""
    from certiprog.certify import check
    from certiprog.errors import BackendError

    rows = []
    for label, model, run, _ in _plan(backends):
        for b in run:
            try:
                sol = model.solve(backend=b)
            except BackendError as exc:  # the backend refused at solve time (e.g. a size-limited licence)
                rows.append({"program": label, "backend": b, "solver": "", "objective": np.nan, "compile_s": np.nan,
                             "solve_s": np.nan, "status": "error", "verdict": "failed", "interval": None,
                             "reason": str(exc)})
                continue
            cert = check(model, sol)
            row = {"program": label, "backend": b, "solver": str(sol.solver or ""), "objective": sol.objective,
                   "compile_s": sol.compile_time, "solve_s": sol.solve_time, "status": sol.status.termination,
                   "verdict": cert.verdict, "interval": cert.interval, "reason": ""}
            if failing(row):
                row["reason"] = _reason(sol, cert)
            elif not cert.verdict.startswith("certified"):  # an answer, but nothing proved: say why
                row["reason"] = _why_not_certified(cert)
            rows.append(row)
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


def format_skipped(skipped: list[dict], n_programs: int) -> str:
    """The backends left out, one line per (backend, reason)."""
    if not skipped:
        return "skipped: none (every registered backend ran every program)"
    lines = ["skipped:"]
    for s in skipped:
        which = "every program" if len(s["programs"]) == n_programs else ", ".join(s["programs"])
        lines.append(f"  {s['backend']:9s} {which}: {s['reason']}")
    return "\n".join(lines)


def _explain(rows: list[dict], title: str) -> str:
    """``title`` with the number of ``rows``, then one line each: program, backend, status, verdict and reason."""
    if not rows:
        return ""
    lines = [f"{len(rows)} {title}:"]
    for r in rows:
        solver = f"/{r['solver']}" if r.get("solver") else ""
        lines.append(f"  {r['program']} on {r['backend']}{solver}: status {r['status']}, certificate "
                     f"{r['verdict']}: {r.get('reason') or 'no reason given'}")
    return "\n".join(lines)


def explain_failures(rows: list[dict]) -> str:
    """One line per failing row: program, backend, status, the certificate's verdict and the reason."""
    return _explain([r for r in rows if failing(r)], "failing row(s)")


def explain_uncertified(rows: list[dict]) -> str:
    """One line per row that has an answer but is not certified (accurate, inaccurate): why nothing was proved."""
    weak = [r for r in rows if not failing(r) and not str(r["verdict"]).startswith("certified")]
    return _explain(weak, "row(s) answered but not certified")


def report(backends: list[str] | None = None) -> tuple[str, int]:
    """``certiprog demo``'s text (the table, the backends skipped and why, why any row failed or was not
    certified) and its exit code: 1 on a failing row, 2 when ``backends`` names a backend that is not registered
    (the text lists the registered ones); the CLI prints it."""
    from certiprog.solvers import registered_backends

    unknown = [b for b in (backends or []) if b not in registered_backends()]
    if unknown:
        return (f"certiprog demo: unknown backend(s) {unknown}; registered backends: {sorted(registered_backends())}"
                f" (available here: {available()})", 2)
    rows = run_demo(backends)
    parts = [format_table(rows), format_skipped(skipped_backends(backends), len(demo_instances()))]
    for why in (explain_failures(rows), explain_uncertified(rows)):
        if why:
            parts.append(why)
    return "\n\n".join(parts), (1 if any(failing(r) for r in rows) else 0)


def available() -> list[str]:
    from certiprog.solvers import available_backends

    return list(available_backends())
