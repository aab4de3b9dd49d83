"""Backends side by side: build time, solve time and certificate verdict per backend and solver, one run.

For each core program (hinge_minimax 000, mcp 001, me2_dual 002, error_clumping 003, mpm 004) at two
sizes of seeded synthetic data, the program is compiled once (canonicalise + assemble, shared by every
backend) and then solved on every available backend and solver. Columns:

* ``build s``: compile (shared, best of N) + the backend's translation (wall time of the first backend call
  minus the solve time it reports: building CVXPY / Pyomo / MOSEK objects, cone lists, ...; the first call,
  because a backend may cache its model for later calls);
* ``solve s``: the solve time as the backend reports it, best of N (for CVXPY this is ``problem.solve``,
  which includes CVXPY's own reduction chain; the solver alone is faster);
* ``verdict``: `certiprog.certificates.check` on the returned solution (KKT residuals from our data);
* ``build/cl``, ``solve/cl``: ratios to Clarabel's times on the same instance in the same run.

Combinations that cannot run are rows too: a cone the backend does not take, a solver that refuses the
problem class, or a missing licence (MOSEK without a licence file, Gurobi's size-limited pip licence).

    python benchmarks/backends.py [--quick] [--all-solvers] [--sizes small,large] [--repeats N] [--no-progress]

By default each backend's default solver runs at both sizes; ``--all-solvers`` adds every other solver each
backend lists (slow: SCIP through Pyomo did not finish error_clumping 'large' in 6 minutes);
``--quick``: the small size, default solvers, one repeat (a smoke run; used by the tests).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from certiprog.certify import check
from certiprog.errors import BackendError
from certiprog.formulations import error_clumping, hinge_minimax, mcp, me2_dual, mpm
from certiprog.formulations.error_clumping_paper.programs import neighbourhood_graph
from certiprog.solvers import available_backends, compile_model, get_backend, solve_conic

BENCH_DIR = str(Path(__file__).resolve().parent)
if BENCH_DIR not in sys.path:  # _measuring.py beside this file, also when a test loads this file by path
    sys.path.insert(0, BENCH_DIR)
from _measuring import best_of  # noqa: E402

#: data sizes per program: small, large
SIZES = {
    "hinge_minimax": [dict(n=200, d=10), dict(n=2000, d=40)],
    "mpm": [dict(n=200, d=10), dict(n=2000, d=40)],
    "mcp": [dict(P=6, N=10, D=3), dict(P=40, N=40, D=8)],
    "me2_dual": [dict(n=60, d=6), dict(n=400, d=12)],
    "error_clumping": [dict(m=200, d=5), dict(m=1000, d=8)],
}


def build_instance(program: str, size: dict, seed: int = 0):
    """(Model, data description) of ``program`` on seeded synthetic data of the given size."""
    rng = np.random.default_rng(seed)
    if program == "hinge_minimax":
        n, d = size["n"], size["d"]
        X = rng.standard_normal((n, d)) + 0.5
        B = rng.standard_normal((2 * d, d))
        return hinge_minimax(X, -0.5 * np.ones(d), np.cov(B, rowvar=False, bias=True), lam=0.1, delta=0.2), \
            f"X_pos {n}x{d}"
    if program == "mpm":
        n, d = size["n"], size["d"]
        return mpm(rng.standard_normal((n, d)) + 0.5, rng.standard_normal((n, d)) - 0.5), f"X1, X0 {n}x{d} each"
    if program == "mcp":
        P, N, D = size["P"], size["N"], size["D"]
        labels = np.where(np.arange(P) % 2 == 0, 1.0, -1.0)
        centers = labels[:, None] * 1.5 * np.ones(N) + 0.3 * rng.standard_normal((P, N))
        bases = np.stack([np.linalg.qr(rng.standard_normal((N, D)))[0] for _ in range(P)])
        radii = 0.5 + 0.3 * rng.random((P, D))
        return mcp(centers, bases, radii, labels, q=2, C=1.0), f"{P} ellipsoids in R^{N}, rank {D}, C=1"
    if program == "me2_dual":
        n, d = size["n"], size["d"]
        X = rng.standard_normal((n, d))
        return me2_dual(X, X.mean(axis=0) + 0.1, mu=1.0, lam=1.0, B=4.0), f"X_neg {n}x{d}"
    if program == "error_clumping":
        m, d = size["m"], size["d"]
        X = rng.standard_normal((m, d))
        y = np.where(X[:, 0] + 0.5 * rng.standard_normal(m) > 0, 1.0, -1.0)
        graph = neighbourhood_graph(X, 1.5)
        return error_clumping(X, y, rho=1.5, eta=0.5, lam=0.1, graph=graph), f"X {m}x{d}, {graph.nnz // 2} edges"
    raise ValueError(f"unknown program {program!r}; have {sorted(SIZES)}")


def combinations(all_solvers: bool) -> list[tuple[str, str | None]]:
    """(backend, solver) pairs: each available backend's default (solver None), and with ``all_solvers``
    every other solver it lists."""
    out = []
    for name in available_backends():
        b = get_backend(name)
        out.append((name, None))
        if all_solvers:
            out += [(name, s) for s in b.solvers() if str(s).upper() != str(b.default_solver).upper()]
    return out


#: how backends word a refusal of a problem class by one of their solvers (raised or reported before solving)
REFUSALS = ("cannot solve this problem", "not support", "does not take", "linear objectives only", "no psd cone")


def run_one(problem, backend: str, solver: str | None, repeats: int) -> dict:
    """Solve and certify one instance on one backend/solver; never raises for a combination that cannot run."""
    missing = {c.kind for c in problem.cones} - set(get_backend(backend).cones)
    if missing:
        return {"verdict": f"no {'/'.join(sorted(missing))} cone"}
    try:
        runs = []  # (wall, solution) per repeat
        for _ in range(repeats):
            t0 = time.perf_counter()
            sol = solve_conic(problem, backend, solver)
            runs.append((time.perf_counter() - t0, sol))
    except BackendError as exc:
        text = str(exc)
        if "licen" in text.lower():
            return {"verdict": "no licence", "note": text}
        return {"verdict": "refused" if any(r in text.lower() for r in REFUSALS) else "error", "note": text}
    except Exception as exc:  # a backend bug (it should raise BackendError): reported as a row, the run goes on
        return {"verdict": "error", "note": f"{type(exc).__name__}: {exc}"}
    error = str(sol.info.get("error", ""))
    if sol.status.termination == "numerical_error" and any(r in error.lower() for r in REFUSALS):
        return {"verdict": "refused", "note": error}
    cert = check(problem, sol, interval=False)
    wall, first = runs[0]  # translation: the first (cold) call; later calls may reuse a backend's cached model
    row = {"translate": max(wall - first.solve_time, 0.0), "solve": min(r.solve_time for _, r in runs),
           "status": str(sol.status), "objective": sol.objective, "verdict": cert.verdict, "solver": sol.solver}
    if error:
        row["note"] = error
    return row


def warm_up(combos) -> None:
    """One tiny solve per combination first, so that lazy imports and licence checks are not timed."""
    from certiprog import Model, Variable, minimize

    x = Variable(2, "x")
    problem = compile_model(Model(minimize(x.sum()), [x >= 0])).assemble()
    for backend, solver in combos:
        try:
            solve_conic(problem, backend, solver)
        except Exception:  # reported by the timed run
            pass


def run(quick: bool = False, all_solvers: bool = False, repeats: int | None = None, sizes=("small", "large"),
        progress: bool = False, on_instance=None, on_row=None) -> tuple[list[dict], list[str]]:
    """All rows of the table and the size lines. ``quick``: small size, default solvers, one repeat.

    ``on_instance(line)`` / ``on_row(row)`` are called as results arrive (the CLI prints them at once).
    """
    from tqdm.auto import tqdm

    if quick:
        all_solvers, sizes = False, ("small",)
    repeats = repeats or (1 if quick else 3)
    combos = sorted(combinations(all_solvers), key=lambda c: c[0] != "clarabel")  # the reference first
    warm_up(combos)
    jobs = [(p, k) for p in SIZES for k, name in enumerate(("small", "large")) if name in sizes]
    rows, sizes = [], []
    bar = tqdm(total=len(jobs) * len(combos), disable=not progress, desc="backends")
    for program, k in jobs:
        size = ["small", "large"][k]
        model, data = build_instance(program, SIZES[program][k])
        t_compile, problem = best_of(lambda: compile_model(model).assemble(), repeats)  # fresh each time
        sizes.append(f"{program:15s} {size}: {data}; conic n={problem.n}, m={problem.m}, "
                     f"nnz(A)={problem.A.nnz}, cones {sorted({c.kind for c in problem.cones})}")
        if on_instance:
            on_instance(sizes[-1])
        ref = None
        for backend, solver in combos:
            bar.set_postfix_str(f"{program} {size} {backend}/{solver or 'default'}")
            r = run_one(problem, backend, solver, repeats)
            name = r.pop("solver", None) or str(solver or get_backend(backend).default_solver)
            r.update(program=program, size=size, backend=backend, compile=t_compile,
                     solver=name + ("*" if solver is None else ""))
            if "translate" in r:
                r["build"] = t_compile + r["translate"]
                if backend == "clarabel" and solver is None:
                    ref = r
                if ref is not None:
                    r["build_ratio"] = r["build"] / ref["build"]
                    r["solve_ratio"] = r["solve"] / max(ref["solve"], 1e-9)
            rows.append(r)
            if on_row:
                on_row(r)
            bar.update()
    bar.close()
    return rows, sizes


HEAD = (f"{'program':15s} {'size':6s} {'backend':9s} {'solver':13s} {'build s':>9s} {'solve s':>9s} "
        f"{'build/cl':>9s} {'solve/cl':>9s} {'status':11s} {'objective':>15s}  verdict")


def format_row(r: dict) -> str:
    def num(key, fmt):
        return format(r[key], fmt) if key in r else "-"

    return (f"{r['program']:15s} {r['size']:6s} {r['backend']:9s} {r['solver'][:13]:13s} "
            f"{num('build', '9.4f'):>9s} {num('solve', '9.4f'):>9s} {num('build_ratio', '9.2f'):>9s} "
            f"{num('solve_ratio', '9.2f'):>9s} {r.get('status', '-'):11s} {num('objective', '15.8g'):>15s}"
            f"  {r['verdict']}")


def format_table(rows: list[dict]) -> str:
    return "\n".join([HEAD, "-" * len(HEAD)] + [format_row(r) for r in rows])


def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small size, default solvers, one repeat (smoke run)")
    ap.add_argument("--all-solvers", action="store_true", help="every solver of every backend, not only defaults "
                    "(slow: SCIP may take many minutes on the large QPs)")
    ap.add_argument("--sizes", default="small,large", help="comma-separated subset of small,large")
    ap.add_argument("--repeats", type=int, default=None, help="best of N timings (default 3, 1 with --quick)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    print("seeded synthetic data; compile (canonicalise + assemble) is shared by all backends; "
          "ratios are to clarabel on the same instance", flush=True)
    print(HEAD + "\n" + "-" * len(HEAD), flush=True)
    sizes = tuple(x.strip() for x in args.sizes.split(","))
    if not set(sizes) <= {"small", "large"}:
        ap.error(f"--sizes takes small and/or large, got {args.sizes!r}")
    rows, _ = run(quick=args.quick, all_solvers=args.all_solvers, repeats=args.repeats, sizes=sizes,
                  progress=not args.no_progress, on_instance=lambda line: print("# " + line, flush=True),
                  on_row=lambda r: print(format_row(r), flush=True))
    print("* the backend's default solver (what backend=... picks without solver=...)")
    notes = sorted({f"{r['backend']}/{r['solver']}: {r['note']}" for r in rows if "note" in r})
    if notes:
        print("\nnotes:\n" + "\n".join("  " + n for n in notes))
    return rows


if __name__ == "__main__":
    main()
