"""certiprog's default path on a standard QP test set against Clarabel called directly (issue 21, items 4, 9, 10).

Each problem ``minimise 1/2 x'Px + q'x + r  s.t.  l <= A x <= u`` (with ``A = [C; I_n]``: the last n rows are the
variable bounds, 1e20 meaning infinity; the format of the public Maros-Meszaros ``.mat`` copies in
osqp_benchmarks / proxsuite's benchmarks: fields P, q, r, A, l, u, n, m; the older copy's Q, c, A, rl, ru, lb, ub
is read too) is

* written the way a user writes it: ``x = Variable(n, bounds=(lb, ub))``, ``C_eq @ x == b``, ``C @ x <= u``,
  ``C @ x >= l`` with the sparse matrices as they are, ``0.5 * quad_form(x, P) + q @ x + r``; then built, solved
  with ``model.solve()`` (certiprog chooses) and checked with ``certificates.check``;
* solved by Clarabel directly on the same data (its conic form built here with scipy.sparse, default settings):
  the reference time and optimum.

Both paths are timed warm: a small problem goes through each first in the same process (imports, the licence
probes of certiprog's solver choice: ~0.3 s once per session), so the ratios compare per-problem work.

Per problem: certiprog's verdict (certified / accurate / failed / crash), the times, the objective error against
Clarabel's optimum and the interval, peak memory (each problem runs in a fresh process unless ``--inline``).
Summary against the goals: certified on every problem Clarabel solves; no "accurate" answer whose objective is
off by more than its stated bound (the rigorous interval's reach when both ends are finite, else the verdict's
relative tolerance; Clarabel's own duality gap is allowed on top, its optimum being a reference, not the truth);
build + solve + certify within 1.5x of Clarabel alone in geometric mean.

The Maros-Meszaros files are public but not shipped here; point the script at them::

    OMP_NUM_THREADS=1 python benchmarks/qp_suite.py --dir path/to/maros_meszaros_data [--max-n 10000] [NAMES...]
        [--optima optima.csv]     # name,value rows: published optimal values as the reference instead of Clarabel's

Without them, ``--generated`` runs a stand-in set of seeded sparse random QPs of the same structure (banded PSD
P, singular on an LP part; equality rows, one- and two-sided inequality rows, finite and infinite bounds), labelled
GEN-* and never reported as Maros-Meszaros::

    OMP_NUM_THREADS=1 python benchmarks/qp_suite.py --generated [--sizes 1000,10000,100000]

No wall-clock assertion anywhere: the figures are for reading.

Measured (2026-11-27, ``--generated``, OMP_NUM_THREADS=1, 2 cores shared with other jobs: +-30 %), total =
build + solve + check against Clarabel alone, warm:

    GEN-1000     0.13-0.17 s vs 0.08 s (1.7-2.1x: fixed costs of the solver choice and the certificate)
    GEN-3000     0.38-0.40 s vs 0.25-0.30 s (1.4-1.6x)     GEN-10000   1.25-1.36 s vs 0.97-1.25 s (1.1-1.3x)
    GEN-30000    4.4 s vs 4.2 s (1.03x)                     GEN-100000  34.5 s vs 24.9 s (1.39x), 394 MB peak RSS
    (606,837 nonzeros, 10,000 equalities; a quieter profile: solve 18.6 s of which Clarabel 16.8 s, check 1.5 s)
    all certified, objective within 1.6e-14 (relative) of Clarabel's; geometric mean 1.2-1.5x.
Before issue 21 item 4 a sparse 10,000 x 20,000 constraint matrix raised a MemoryError (1.5 GiB dense copy) and
the certificate's dense equality QR took 3.6 s of a 4.9 s solve at 5,000 variables and 500 equalities.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(__file__))

INF = 1e20  # the test set's infinity


# ------------------------------------------------------------------------------------------------------- data
def _finite_inf(v) -> np.ndarray:
    v = np.asarray(v, float).reshape(-1).copy()
    v[v >= 0.9 * INF] = np.inf
    v[v <= -0.9 * INF] = -np.inf
    return v


def _symmetric(P: sp.spmatrix) -> tuple[sp.csc_matrix, str]:
    """P as a symmetric CSC; a matrix stored as one triangle (OSQP's convention) is completed, and said so."""
    P = sp.csc_matrix(P, dtype=float)
    if P.nnz == 0 or abs(P - P.T).max() == 0:
        return P, ""
    upper, lower = sp.triu(P, 1).nnz, sp.tril(P, -1).nnz
    if upper == 0 or lower == 0:
        return sp.csc_matrix(P + P.T - sp.diags(P.diagonal())), "P stored as a triangle: completed symmetrically"
    return sp.csc_matrix((P + P.T) / 2), "P not symmetric: its symmetric part is used"


def load_mat(path) -> dict:
    """One problem of a ``.mat`` file (module docstring's format) as a dict P, q, r, C, l, u, lb, ub, name."""
    from scipy.io import loadmat

    d = loadmat(str(path))
    name = Path(path).stem
    if "P" in d:
        n = int(np.asarray(d["n"]).reshape(-1)[0])
        A = sp.csr_matrix(d["A"], dtype=float)
        l, u = _finite_inf(d["l"]), _finite_inf(d["u"])
        P, note = _symmetric(d["P"])
        r = float(np.asarray(d.get("r", 0.0)).reshape(-1)[0])
        tail = A[A.shape[0] - n:] if A.shape[0] >= n else None
        if tail is not None and (tail != sp.identity(n, format="csr")).nnz == 0:  # the bounds' rows, as documented
            C, lb, ub, l, u = A[:-n], l[-n:], u[-n:], l[:-n], u[:-n]
        else:  # no identity block: every row is a constraint, no bounds
            C, lb, ub = A, np.full(n, -np.inf), np.full(n, np.inf)
            note = "; ".join(filter(None, [note, "A has no trailing identity block: no variable bounds"]))
        q = np.asarray(d["q"], float).reshape(-1)
    else:  # the older osqp_benchmarks copy
        P, note = _symmetric(d["Q"])
        q = np.asarray(d["c"], float).reshape(-1)
        C = sp.csr_matrix(d["A"], dtype=float)
        l, u, lb, ub = (_finite_inf(d[k]) for k in ("rl", "ru", "lb", "ub"))
        r = 0.0
    return dict(name=name, P=P, q=q, r=r, C=sp.csr_matrix(C), l=l, u=u, lb=lb, ub=ub, note=note, generated=False)


def generated_qp(n: int, seed: int = 0, eq_frac: float = 0.1, ineq_frac: float = 0.4, per_row: int = 8,
                 band: int = 40) -> dict:
    """A seeded sparse random QP with the test set's structure (a stand-in, labelled GEN-*, never real data).

    P = B'B + diag(d) with B bidiagonal on the first 80 % of the columns and d = 0 on the rest (an LP part: P
    singular); C has ``per_row`` entries per row within a band (little fill, like the set's staircase and grid
    matrices); equality rows, two-sided and one-sided inequality rows and bounds (a quarter of them infinite) are
    set around a point x0, so the problem is feasible, and bounded by the finite bounds and the quadratic.
    """
    rng = np.random.default_rng(seed)
    k = int(0.8 * n)
    B = sp.diags([rng.standard_normal(k), rng.standard_normal(k)], [0, 1], shape=(k, n), format="csr")
    d = np.r_[rng.uniform(0.01, 1.0, k), np.zeros(n - k)]
    P = sp.csc_matrix(B.T @ B + sp.diags(d))
    m_eq, m_in = max(1, int(eq_frac * n)), max(1, int(ineq_frac * n))
    m = m_eq + m_in
    centre = np.sort(rng.integers(0, max(1, n - band), m))
    rows = np.repeat(np.arange(m), per_row)
    cols = (centre[:, None] + rng.integers(0, min(band, n), (m, per_row))).ravel()
    C = sp.csr_matrix((rng.standard_normal(m * per_row), (rows, cols)), shape=(m, n))
    x0 = rng.uniform(-1, 1, n)
    Cx = C @ x0
    l, u = Cx - rng.uniform(0.1, 1.0, m), Cx + rng.uniform(0.1, 1.0, m)
    l[:m_eq] = u[:m_eq] = Cx[:m_eq]
    one_sided = rng.random(m) < 0.5
    l[m_eq:][one_sided[m_eq:]] = -np.inf
    lb, ub = x0 - rng.uniform(0.5, 2.0, n), x0 + rng.uniform(0.5, 2.0, n)
    lb[rng.random(n) < 0.25], ub[rng.random(n) < 0.25] = -np.inf, np.inf
    # the LP part (P's zero columns) keeps both bounds finite, so the problem is bounded
    lb[k:], ub[k:] = x0[k:] - 1.0, x0[k:] + 1.0
    q = rng.standard_normal(n)
    return dict(name=f"GEN-{n}-s{seed}", P=P, q=q, r=float(rng.standard_normal()), C=C, l=l, u=u, lb=lb, ub=ub,
                note="generated stand-in (not Maros-Meszaros)", generated=True)


def split_rows(prob: dict) -> tuple:
    """(equality rows, rows with a finite upper side, rows with a finite lower side) of ``l <= C x <= u``; a row is
    an equality when u - l < 1e-10, as the public loaders of the set do."""
    l, u = prob["l"], prob["u"]
    eq = np.flatnonzero(u - l < 1e-10)
    rest = np.setdiff1d(np.arange(l.size), eq)
    return eq, rest[np.isfinite(u[rest])], rest[np.isfinite(l[rest])]


# --------------------------------------------------------------------------------------------------- the paths
def certiprog_model(prob: dict):
    """The problem written as a user writes it (module docstring)."""
    from certiprog.model import Model, Variable, minimize, quad_form

    n = prob["q"].size
    C = prob["C"]
    eq, up, lo = split_rows(prob)
    x = Variable(n, name="x", bounds=(prob["lb"], prob["ub"]))
    cons = {}
    if eq.size:
        cons["eq"] = C[eq] @ x == prob["u"][eq]
    if up.size:
        cons["upper"] = C[up] @ x <= prob["u"][up]
    if lo.size:
        cons["lower"] = C[lo] @ x >= prob["l"][lo]
    model = Model(minimize(0.5 * quad_form(x, prob["P"]) + prob["q"] @ x + prob["r"]), name=prob["name"])
    for name, con in cons.items():
        model.add(con, name=name)
    return model


def clarabel_direct(prob: dict) -> dict:
    """Clarabel on the same data, its conic form built here: ``[C_eq; C_up; -C_lo; I; -I] x + s = b``."""
    import clarabel

    n = prob["q"].size
    C = prob["C"]
    eq, up, lo = split_rows(prob)
    fu, fl = np.flatnonzero(np.isfinite(prob["ub"])), np.flatnonzero(np.isfinite(prob["lb"]))
    eye = sp.identity(n, format="csr")
    A = sp.vstack([C[eq], C[up], -C[lo], eye[fu], -eye[fl]], format="csc")
    b = np.concatenate([prob["u"][eq], prob["u"][up], -prob["l"][lo], prob["ub"][fu], -prob["lb"][fl]])
    cones = ([clarabel.ZeroConeT(eq.size)] if eq.size else []) + [clarabel.NonnegativeConeT(A.shape[0] - eq.size)]
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    t0 = time.perf_counter()
    solver = clarabel.DefaultSolver(sp.triu(prob["P"], format="csc"), prob["q"], A, b, cones, settings)
    res = solver.solve()
    t = time.perf_counter() - t0
    status = str(res.status)
    obj = float(res.obj_val) + prob["r"]
    gap = abs(float(res.obj_val) - float(res.obj_val_dual))
    return dict(clarabel_status=status, clarabel_solved=status == "Solved", clarabel_s=t, reference=obj,
                reference_gap=gap)


def measure(job: dict) -> dict:
    """One problem: Clarabel directly, then certiprog's build + solve + check (module docstring)."""
    from _measuring import peak_rss_kb

    prob = generated_qp(**job["generated"]) if "generated" in job else load_mat(job["path"])
    n, m = prob["q"].size, prob["C"].shape[0]
    out = dict(name=prob["name"], n=n, m=m, nnz=int(prob["P"].nnz + prob["C"].nnz), note=prob["note"],
               generated=prob["generated"])
    from certiprog.certify import check

    if job.get("warm", True):  # one-off costs of a session (imports, the licence probes of the solver choice) paid
        warm = generated_qp(30, seed=0)  # first, on a small problem, by both paths: the timings are per problem
        clarabel_direct(warm)
        wm = certiprog_model(warm)
        check(wm, wm.solve())
    out.update(clarabel_direct(prob))
    if job.get("optimum") is not None:  # a published optimal value given by the user: the reference instead
        out.update(reference=float(job["optimum"]), reference_gap=0.0, reference_source="published")

    try:
        t0 = time.perf_counter()
        model = certiprog_model(prob)
        t1 = time.perf_counter()
        sol = model.solve()
        t2 = time.perf_counter()
        cert = check(model, sol)
        t3 = time.perf_counter()
    except Exception as exc:  # noqa: BLE001 - a crash is a result of the benchmark, reported with its type
        out.update(outcome="crash", error=f"{type(exc).__name__}: {str(exc)[:200]}", rss_mb=peak_rss_kb() / 1024)
        return out
    lo, hi = cert.interval if cert.interval is not None else (-np.inf, np.inf)
    obj = float(sol.objective) if sol.objective is not None else np.nan
    outcome = "certified" if cert.verdict == "certified" else ("accurate" if cert.verdict == "accurate" else
                                                                "failed")
    if np.isfinite(lo) and np.isfinite(hi):
        stated = max(hi - obj, obj - lo, 0.0)
    else:
        stated = cert.tol_inaccurate * max(1.0, abs(obj))
    out.update(outcome=outcome, verdict=cert.verdict, status=str(sol.status), backend=cert.backend,
               objective=obj, lower=float(lo), upper=float(hi), error=abs(obj - out["reference"]),
               stated_bound=float(stated), build_s=t1 - t0, solve_s=t2 - t1, check_s=t3 - t2,
               total_s=t3 - t0, rss_mb=peak_rss_kb() / 1024)
    return out


# -------------------------------------------------------------------------------------------------- reporting
def off_by_more(r: dict) -> bool:
    """An 'accurate' (or certified) answer whose objective is further from Clarabel's optimum than it states."""
    if r.get("outcome") not in ("certified", "accurate") or not r.get("clarabel_solved"):
        return False
    return r["error"] > r["stated_bound"] + r["reference_gap"] + 1e-9 * max(1.0, abs(r["reference"]))


def summary(rows: list) -> dict:
    """Counts and the three goals (module docstring)."""
    counts = {k: sum(r.get("outcome") == k for r in rows) for k in ("certified", "accurate", "failed", "crash")}
    solved = [r for r in rows if r.get("clarabel_solved")]
    missed = [r["name"] for r in solved if r.get("outcome") != "certified"]
    wrong = [r["name"] for r in rows if off_by_more(r)]
    ratios = [r["total_s"] / r["clarabel_s"] for r in rows if "total_s" in r and r["clarabel_s"] > 0]
    gmean = math.exp(float(np.mean(np.log(ratios)))) if ratios else float("nan")
    return dict(counts=counts, clarabel_solved=len(solved), missed=missed, off_by_more=wrong, ratio_gmean=gmean,
                goal_certified=not missed, goal_accurate=not wrong, goal_time=gmean <= 1.5)


def print_report(rows: list, label: str) -> dict:
    print(f"\n{label}")
    head = (f"{'problem':<16}{'n':>8}{'m':>8}{'nnz':>9}  {'outcome':<10}{'clarabel':<14}{'build':>7}{'solve':>8}"
            f"{'check':>8}{'total':>8}{'clar.':>8}{'ratio':>7}{'rel err':>9}{'bound':>9}{'MB':>7}")
    print(head)
    for r in rows:
        if r.get("outcome") == "crash" or "total_s" not in r:
            print(f"{r['name']:<16}{r.get('n', 0):>8}{r.get('m', 0):>8}{r.get('nnz', 0):>9}  "
                  f"{r.get('outcome', 'crash'):<10}{r.get('clarabel_status', '?'):<14}  {r.get('error', '')}")
            continue
        scale = max(1.0, abs(r["reference"]))
        print(f"{r['name']:<16}{r['n']:>8}{r['m']:>8}{r['nnz']:>9}  {r['outcome']:<10}{r['clarabel_status']:<14}"
              f"{r['build_s']:>7.2f}{r['solve_s']:>8.2f}{r['check_s']:>8.2f}{r['total_s']:>8.2f}"
              f"{r['clarabel_s']:>8.2f}{r['total_s'] / r['clarabel_s']:>7.2f}{r['error'] / scale:>9.1e}"
              f"{r['stated_bound'] / scale:>9.1e}{r['rss_mb']:>7.0f}")
    s = summary(rows)
    c = s["counts"]
    print(f"certified {c['certified']}, accurate {c['accurate']}, failed {c['failed']}, crashes {c['crash']} "
          f"of {len(rows)}; Clarabel alone solved {s['clarabel_solved']}")
    print(f"goal 1 (certified wherever Clarabel solves): {'met' if s['goal_certified'] else 'NOT met'}"
          + (f" - not certified: {', '.join(s['missed'])}" if s["missed"] else ""))
    print(f"goal 2 (no answer off by more than its stated bound): {'met' if s['goal_accurate'] else 'NOT met'}"
          + (f" - {', '.join(s['off_by_more'])}" if s["off_by_more"] else ""))
    print(f"goal 3 (build + solve + certify within 1.5x Clarabel alone, geometric mean): "
          f"{s['ratio_gmean']:.2f}x, {'met' if s['goal_time'] else 'NOT met'}")
    return s


def run(jobs: list, inline: bool, timeout: float | None) -> list:
    from _measuring import run_isolated

    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover
        def tqdm(x, **_):
            return x
    rows = []
    for job in tqdm(jobs, disable=not sys.stderr.isatty(), desc="problems"):
        if inline:
            rows.append(measure(job))
            continue
        r = run_isolated(measure, job, timeout=timeout)
        if "name" not in r:  # timeout
            r = dict(name=job.get("label", "?"), outcome="crash", error=f"timeout after {timeout} s")
        rows.append(r)
    return rows


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--dir", help="folder of the Maros-Meszaros .mat files (not shipped: public, see docstring)")
    src.add_argument("--generated", action="store_true", help="the generated stand-in set (GEN-*, not real data)")
    ap.add_argument("names", nargs="*", help="problem names (file stems) to run; all by default")
    ap.add_argument("--max-n", type=int, default=None, help="skip problems with more variables")
    ap.add_argument("--sizes", default="1000,10000", help="--generated: comma-separated n")
    ap.add_argument("--seeds", type=int, default=2, help="--generated: problems per size")
    ap.add_argument("--optima", help="CSV of name,optimal value (e.g. the published Maros-Meszaros optima): the "
                                     "reference objective instead of Clarabel's")
    ap.add_argument("--inline", action="store_true", help="run in this process (no isolation, no timeout)")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per problem (isolated runs)")
    args = ap.parse_args(argv)
    if args.generated:
        jobs = [dict(generated=dict(n=int(n), seed=s), label=f"GEN-{n}-s{s}")
                for n in args.sizes.split(",") for s in range(args.seeds)]
        label = "GENERATED stand-in set (seeded sparse random QPs of the test set's structure; NOT Maros-Meszaros)"
    else:
        files = sorted(Path(args.dir).glob("*.mat"))
        if args.names:
            wanted = {s.upper() for s in args.names}
            files = [f for f in files if f.stem.upper() in wanted]
        if not files:
            raise SystemExit(f"no .mat files to run in {args.dir}")
        if args.max_n is not None:
            from scipy.io import whosmat

            def n_of(f):
                shapes = dict((k, s) for k, s, _ in whosmat(str(f)))
                return (shapes.get("P") or shapes.get("Q"))[0]
            files = [f for f in files if n_of(f) <= args.max_n]
        optima = {}
        if args.optima:
            import csv

            with open(args.optima, newline="") as fh:
                for row in csv.reader(fh):
                    try:
                        optima[row[0].strip().upper()] = float(row[1])
                    except (IndexError, ValueError):
                        continue  # a header or a blank line
        jobs = [dict(path=str(f), label=f.stem, optimum=optima.get(f.stem.upper())) for f in files]
        label = f"Maros-Meszaros files in {args.dir} ({len(jobs)} problems)"
    print(f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, {os.cpu_count()} cores")
    rows = run(jobs, args.inline, args.timeout)
    return print_report(rows, label)


if __name__ == "__main__":
    main()
