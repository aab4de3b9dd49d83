"""Speed at the papers' scale (issue 15): build, solve and certify every paper's program at two sizes, against
CVXPY + Clarabel (and scikit-learn / the papers' dedicated solvers where they solve a comparable problem), measured
in one run, plus a scaling curve (time against m, exponent fitted by least squares in log-log) per program.

Programs and instances (seeded; sizes m x d):

* ``000`` eq. (8) hinge-minimax (`hinge_minimax_paper.programs.hinge_minimax`): positives ``N(s, I_d)``, background
  moments from 5,000 draws of ``N(-s, I_d)``, s = 3 / sqrt(d), lam = 1, delta = 0.5. Sizes 2,000 x 100 and 20,000 x 300;
  ``structured``: `hinge_minimax_paper.solver.solve_hinge_minimax` when present (certified first-order solver).
* ``003`` eq. (1) error clumping (`error_clumping_paper.programs.error_clumping`): MNIST 0-4 vs 5-9 (pixels / 255 plus
  a constant feature, the paper's split), rho giving a mean neighbourhood of 1 %, eta = 0.5, lam = 1e-2; m = 2,000
  and 10,000. The graph is built once outside the timings and given to every path. ``structured``:
  `error_clumping_paper.solver.solve_error_clumping` (certified).
* ``004`` kernel MPM, rbf (`hp_mpm_paper.kernels.kernel_mpm`, low-rank coordinates from a pivoted Cholesky with the
  estimators' default ``max_rank``): two Gaussian classes in 10 dimensions (means +-0.5), m/2 points each,
  gamma = 1/d; m = 1,000 and 5,000. ``MPMClassifier`` / ``HPMPMClassifier`` (kernel='rbf', nu = 1e-3, defaults
  otherwise: the solver certiprog picks): the estimators' whole fit (kernel factorisation, SOCPs, certificate,
  training-bound check); ``sklearn``: ``SVC(kernel="rbf")`` on the same data (a different classifier, shown for the
  cost of a kernel machine on the same points); ``fit / SVC`` is their time over SVC's. The 004 curve runs these
  three paths.
* ``002`` ME2 local dual QP (`me2_paper.programs.me2_dual`): `programs.me2_instance` with d = 6 (21 svec rows),
  n = 1,000 and 3,313 negatives, mu = 1, lam = 1e-3, B = 4. ``structured``: `me2_paper.local_solver.solve_local`.

Columns: ``build`` (the Model; for CVXPY the cvxpy.Problem), ``solve`` (Clarabel through certiprog), ``certify``
(`certiprog.certificates.check(model, sol)`: KKT measures and the rigorous interval), ``cert/solve``, the certified
interval and its relative width, the verdict, ``total`` (build + solve + certify) and the reference's total divided
by ours; CVXPY's optimal value is checked against our interval (``in``). ``peak RSS``: the measuring process's
maximum resident set minus that of a process that only imported the same modules (each measurement runs in its
own spawned process; ``--inline`` runs them in this process and prints no memory). BLAS is pinned to one thread.

    python benchmarks/scale.py [--programs 000 003 004 002] [--quick] [--no-curve | --no-sizes] [--timeout 1800]
        [--out r.json]

``--quick``: small sizes, in this process (seconds; the correctness test in tests/core/test_certificates_scale.py
runs it).

Measured 2026-11-25 (2 cores shared with other jobs: load 1.5-14, so absolute times vary up to 7x between rows;
ratios within a row group were taken minutes apart). certify / solve, certiprog + Clarabel, check(model, sol):

    000 2,000 x 100   0.04 (55 ms)    000 20,000 x 300  0.056 (4.4 s of 79 s)  [issue: MemoryError]
    003 2,000         0.034           003 10,000         0.045 (3.5 s of 77 s) [issue: 18-23 s, 7.9 GB]
    004 1,000         0.038           004 5,000          0.038 (70 ms of 1.8 s)  [400 pivots; full rank before]
    002 1,000         0.70            002 3,313          0.41 (56 ms of 134 ms) [issue: 15x]
every interval finite at both ends and certified; CVXPY + Clarabel's value inside it. End to end against CVXPY +
Clarabel: 000 20,000 x 300 structured (certified rel. gap 1.0e-5) 2.7 s vs 117 s (44x; certiprog + Clarabel 83 s);
003 10,000 structured 2.6 s vs 120 s. 000 200,000 x 300 structured: certified 9.6e-6 in 157 s at load ~10, peak RSS
603 MB (X alone 480 MB). Fitted exponents of the total time (certiprog + Clarabel): 000 1.3 (d = 100), 003 1.75,
004 2.6 (Clarabel's sparse LDL on dense kernel data; solve alone 3.2), 002 1.2; of certify alone 0.8, 1.6, 1.7, 1.1.

004 with low-rank kernel coordinates (pivoted Cholesky, at most 400 pivots: the estimators' default), measured
2026-11-25 at load 4-6, the structured solver chosen by default. Fit time over SVC(rbf)'s on the same data:

    m       MPMClassifier          HPMPMClassifier        SVC       (pivots, residual trace share)
    1,000   0.47 s  16.9x          0.73 s  26.2x          28 ms     (400, 0.11)
    5,000   1.15 s   7.7x          0.84 s   5.6x          149 ms    (400, 0.32)   peak RSS 69 / 77 MB (SVC 21 MB)
    curve   500-5,000: 0.23 -> 1.13 s (exponent 0.63)     0.81 -> 1.45 s (0.22)   25 -> 234 ms (1.05)
            fit / SVC at 5,000 in the curve's run: 4.8x and 6.2x
(before: the full m x m Gram matrix and its eigendecomposition, p ~ m coordinates: 47-58 s at m = 2,000, 560x SVC).
The MPM's interval is rigorous and 5e-12 wide; the Model path (Clarabel) is certified, CVXPY's value inside it. At
m = 1,000 the 400 pivots are 40 % of the points, so the fixed cost dominates SVC's 28 ms; from m ~ 3,000 on the fit
grows like m (factorisation O(m r^2)) while SVC grows faster.

Conditioning sweep (issue 23; ``--sweep``, ``--sweep --quick`` is tests/formulations/hinge_minimax_paper/
test_solver_sweep.py; ``--sweep-rows`` / ``--only`` run one row or one path): certiprog (build +
``model.solve(solver="structured")`` + ``check``) against CVXPY + Clarabel (build + solve), one process per
measurement, BLAS pinned to one thread for both, certiprog's modules imported before its timings as cvxpy is before
the reference's. Every interval below is certified by check(), CVXPY's value inside every one.

000 eq. (8), measured 2026-11-27 16:58-17:04 UTC (session 9; load average 1.2-1.9 on the 2 shared cores, a helper
benchmarking 002 beside it); 200,000 x 300 from 15:03 (unchanged path). Letter, MNIST and Adult re-measured on session
10's final code (19:52-19:55 UTC, load 0.8-1.5): Letter 16 runs (median and range in brackets), MNIST and Adult one run
each; the kappa rows are session 9's (their assembly and check are cheaper since, not re-run). With the repeated
measurement of fast rows (``--sweep-repeats``, 19:59-20:00 UTC, load 0.8-1.2): Letter 69.8 ms vs 412 ms, 5.9x, the
median of five pairs (4.2-6.8x); MNIST 1.52 s vs 9.43 s 6.2x, Adult 358 ms vs 15.6 s 43.5x (one pair each: over 10 s).
Letter again on the same code at load 0.4 (session 11, 20:45 UTC, five pairs): 58.8 ms vs 414.5 ms, 7.1x (5.2-9.7x):

    000 eq. (8)         m x d          certiprog (steps)     CVXPY+Clarabel  ratio             rel. width  peak RSS
    mnist (bias)        4,869 x 784    1.45 s (N 11)         9.14 s          6.3x              4.1e-08     279 MB
    letter (bias)       9,940 x 16     60.0 ms (N 14)        400 ms          6.6x (4.3-7.1x)   2.5e-08      30 MB
    kappa=1             20,000 x 300   4.35 s (g107 + N 17)  57.8 s          13.3x             8.9e-10     730 MB
    kappa=1e2           20,000 x 300   3.11 s (N 16)         54.8 s          17.6x             8.6e-09     730 MB
    kappa=1e6           20,000 x 300   2.71 s (N 14)         51.7 s          19.1x             2.8e-09     730 MB
    kappa=1e4           20,000 x 300   2.58 s (N 14)         50.9 s          19.8x             6.3e-09     730 MB
    adult (bias)        11,687 x 108   328 ms (N 18)         16.0 s          48.8x             4.8e-08     149 MB
    kappa=1e6           200,000 x 300  53.3 s (N 19)         not run          -                1.5e-08    5852 MB

003 eq. (1) (graph at a 1 % mean neighbourhood built outside the timings; eta 0.5, lam 1e-2), measured 13:45-14:04
UTC at 50d5676, load 9-14:

    003 eq. (1)         m x d          certiprog (Newton steps)  CVXPY+Clarabel  ratio  rel. width  peak RSS ours/ref
    mnist               10,000 x 785   3.30 s (4)                55.7 s          16.9x  2.8e-07     732 / 741 MB
    kappa=1e4           10,000 x 301   4.01 s (4)                3.4 min         50.3x  2.9e-10     480 / 1096 MB
    kappa=1e6           10,000 x 301   3.94 s (3)                3.7 min         56.3x  5.6e-09     481 / 1113 MB
    kappa=1e2           10,000 x 301   2.74 s (5)                3.4 min         74.1x  8.6e-10     482 / 1061 MB
    kappa=1             10,000 x 301   2.14 s (5)                3.9 min        109.2x  1.5e-08     487 / 1022 MB

004 eq. (3) linear MPM (11:40-12:08 UTC, cda3abe, load 18-21; its solver unchanged since): letter 20,000 x 16 0.3x,
adult 48,842 x 108 0.5x, mnist 10,000 x 784 1.2x, kappa 1..1e6 at 20,000 x 300 2.2-3.4x (CVXPY's MPM has d
variables and no m: certiprog's model overhead dominates; 004 is not among the issue's rows). Re-run 16:57 UTC (load
1.2): letter 0.7x (certified), adult 0.3x and NOT certified: Adult's one-hot groups give both classes' covariances a
common null space, w is free along it at no cost, and the certificate's lower end was -inf (the Lagrangian's
coefficient on those directions is rounding noise, not exactly 0). Since session 11 `mpm` pins that null space
(constraint 'null_space', 004-T2a): re-run 2026-11-27 21:38 UTC (load 0.9, 3 pairs each): letter 17.2 ms vs 12.0 ms
0.7x, adult 82.5 ms vs 77.9 ms 0.9x, both certified (adult [1.088664719, 1.088664719], rel. width 1.5e-11).

The goal (>= 5x on every row) is met on every 003 and 000 row at the median; the two closest are MNIST (5.1-6.3x over
session 9's six runs and 6.3x now: 11 Newton steps of one X'DX each at 4,869 x 673, ~46 ms of BLAS-3 apiece, the part a
loaded machine slows most) and Letter (median 6.6x over 16 runs, 1 below 5x: 4.3x when its ~60 ms took 96 ms in a load
spike, every phase 1.6x slower; session 9: median 5.8x, 2 of 11 below 5x). Interleaved with session 9's final code
(6dd143e) in six pairs of runs: 73.9 -> 61.6 ms median (5.6x -> 6.5x), peak RSS 39 -> 30 MB. Letter (d = 16) is
fixed-cost bound: in one process (steady state, min / median of 40, load ~1.3, 6dd143e -> now) build 2.5 / 2.8 ms,
compile 1.2 / 1.3 ms, assemble 3.0 / 3.8 -> 2.3 / 2.5 ms, the solver 22 / 23 ms (14 steps, unchanged), the generic check
in the solve 18.9 / 27.6 -> 14.2 / 16.1 ms (upper end 7.8 / 11.8 -> 4.1 / 4.6, lower end with its box 8.0 / 11.9 -> 6.9
/ 7.7), check() after it 0.9 / 1.1 ms; total 50.5 / 61.9 -> 45.0 / 48.9 ms. A fresh process pays ~11 ms more (first use
of ~20 MB of memory: ~5,300 page faults at 2-3 us each on this VM, ~6,300 before; and the first calls), which is why the
table's figure is above the in-process sum. Session 10 (this): A written straight into its CSC arrays (the stacked CSR
sums, vstack and conversion gone; bitwise the same A), the certificate's Lift built by per-column reductions and its
last slack enclosure reused by the proof, the bound tightening read in place, in blocks of rows, |A| shared between
kkt_measures, the upper end and the Lagrangian (index arrays shared with the CSR copy), a diagonal P read off in O(n),
checksums without a ramp kept as long as the data, and no tqdm lock when no progress bar is asked for. Session 9:
check(model, sol) no longer assembles the model a second time to compare (the solved problem is reused when the model's
structure is the same object and every coefficient's checksum is as when it was assembled, `Structure.data_key`; new /
edited parameter values and edited coefficients are still refused); the upper end screens a point by its float slack
before the rigorous product (the solver's hinge columns sit on their rows, so the first two tries are given up for one
product each); the bound tightening of the free bias and the norm column splits each hinge row's least activity into the
fixed columns' part, computed once, and the tightened columns' part; ``X @ w`` no longer multiplies X by w's identity
coefficient (a copy of X without stored zeros instead: the 20,000 x 300 rows' build 78 -> 47 ms; MNIST's build is its
covariance factor's eigendecomposition). MNIST went from 1.1x to 5.8-7.0x in session 8: the structured point is proved
by check() as it is (the solver leaves room in the Chebyshev row and `structured.fill_auxiliary` raises the cost-free
norm column by 1e-10 relative; before, check() solved a Clarabel margin problem on the 785-dimensional cone, 18 of 28
s), 111 blank pixels are left out of the Newton steps, the cone's W^-1 Gq and (W^-1 Gq)'(W^-1 Gq) cost O(kp + p^2) a
step, Gondzio correctors, and with a bias the start's cone dual head is set so the bias column's dual equation holds: 18
-> 11 steps. 200,000 x 300 at kappa 1e6 fits in 8 GB (5.85 GB peak: X, its compiled conic matrix and the certificate's
copies).
"""
from __future__ import annotations

import argparse
import functools
import json
import math
import multiprocessing as mp
import os
import time

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

PROGRAMS = ("000", "003", "004", "002")
SIZES = {"000": [(2000, 100), (20000, 300)], "003": [(2000, 785), (10000, 785)], "004": [(1000, 10), (5000, 10)],
         "002": [(1000, 6), (3313, 6)]}
CURVES = {"000": [(1000, 100), (2000, 100), (4000, 100), (8000, 100), (16000, 100)],
          "003": [(1000, 785), (2000, 785), (4000, 785), (8000, 785)],
          "004": [(500, 10), (1000, 10), (2000, 10), (3500, 10), (5000, 10)],
          "002": [(500, 6), (1000, 6), (2000, 6), (4000, 6), (8000, 6)]}
QUICK_SIZES = {"000": [(150, 8), (300, 8)], "003": [(120, 6), (240, 6)], "004": [(60, 4), (120, 4)],
               "002": [(80, 3), (160, 3)]}
QUICK_CURVES = {"000": [(100, 8), (200, 8), (400, 8)], "003": [(100, 6), (200, 6), (400, 6)],
                "004": [(40, 4), (80, 4), (160, 4)], "002": [(100, 3), (200, 3), (400, 3)]}
REFERENCES = {"000": ("cvxpy", "structured"), "003": ("cvxpy", "structured"),
              "004": ("cvxpy", "MPMClassifier", "HPMPMClassifier", "sklearn"), "002": ("cvxpy", "structured")}
CURVE_PATHS = {"004": ("MPMClassifier", "HPMPMClassifier", "sklearn")}  # default: ("certiprog",)
ESTIMATORS_004 = ("MPMClassifier", "HPMPMClassifier")


# --------------------------------------------------------------------------- instances

#: imported before any timing (see `timed_certiprog`)
WARM_MODULES = ("tqdm.auto", "certiprog.solvers.structured", "certiprog.solvers.fallback",
                "certiprog.formulations.hinge_minimax_paper.solver", "certiprog.formulations.hinge_minimax_paper.newton",
                "certiprog.formulations.error_clumping_paper.solver", "certiprog.formulations.hp_mpm_paper.solver")


def timed_certiprog(build, solve_kwargs: dict) -> tuple:
    """(model, sol, fields): build the model, ``model.solve(**solve_kwargs)``, ``check`` it, each timed; ``fields``
    holds build / solve / certify / seconds, the interval's ends, the verdict and the objective. The modules the
    path runs are imported first, outside the timings, as ``import cvxpy`` is for the reference (on Letter's 0.4 s
    row their first import, tqdm.auto's asyncio among them, was ~0.1 s of ours)."""
    import importlib

    from certiprog.certify import check

    for name in WARM_MODULES:
        importlib.import_module(name)
    t0 = time.perf_counter()
    model = build()
    t1 = time.perf_counter()
    sol = model.solve(**solve_kwargs)
    t2 = time.perf_counter()
    cert = check(model, sol)
    t3 = time.perf_counter()
    lo, hi = cert.interval if cert.interval is not None else (-math.inf, math.inf)
    return model, sol, dict(build=t1 - t0, solve=t2 - t1, certify=t3 - t2, seconds=t3 - t0, lower=float(lo),
                            upper=float(hi), verdict=cert.verdict, objective=float(sol.objective))

def instance(program: str, m: int, d: int, quick: bool) -> dict:
    """The seeded data of one program at size (m, d) (MNIST for 003 unless ``quick``)."""
    import numpy as np

    rng = np.random.default_rng(1000 + m)
    if program == "000":
        shift = 3.0 / math.sqrt(d)  # ||mu|| ~ 3 > gamma = 1: the cone has an interior (w = 0 is not forced)
        X = rng.normal(size=(m, d)) + shift
        Z = rng.normal(size=(5000, d)) - shift
        return dict(X=X, mu=Z.mean(axis=0), Sigma=np.cov(Z.T), lam=1.0, delta=0.5)
    if program == "003":
        from certiprog.formulations.error_clumping_paper.graph import radius_graph, rho_for_mean_degree

        if quick:
            X = np.hstack([rng.normal(size=(m, d - 1)), np.ones((m, 1))])
            y = np.where(X[:, 0] + 0.5 * rng.normal(size=m) >= 0, 1.0, -1.0)
        else:
            from certiprog.datasets.mnist import mnist_binary

            data = mnist_binary(positive=(5, 6, 7, 8, 9), seed=0, n_train=m)
            X, y = data.X_train, data.y_train
        rho = rho_for_mean_degree(X, 0.01 if not quick else 0.05, seed=0)
        return dict(X=X, y=y, rho=rho, eta=0.5, lam=1e-2, graph=radius_graph(X, rho))
    if program == "004":
        n1 = m // 2
        X1 = rng.normal(size=(n1, d)) + 0.5
        X0 = rng.normal(size=(m - n1, d)) - 0.5
        return dict(X1=X1, X0=X0, gamma=1.0 / d)
    if program == "002":
        from certiprog.formulations.me2_paper.programs import me2_instance

        X_neg, c = me2_instance(m, m, d)
        return dict(X_neg=X_neg, center=c, mu=1.0, lam=1e-3, B=4.0)
    raise ValueError(f"unknown program {program!r}")


def build_model(program: str, data: dict):
    if program == "000":
        from certiprog.formulations.hinge_minimax_paper.programs import hinge_minimax

        return hinge_minimax(data["X"], data["mu"], data["Sigma"], data["lam"], data["delta"])
    if program == "003":
        from certiprog.formulations.error_clumping_paper.programs import error_clumping

        return error_clumping(data["X"], data["y"], data["rho"], data["eta"], data["lam"], graph=data["graph"])
    if program == "004":
        from certiprog.formulations.hp_mpm_paper.estimator import DEFAULT_MAX_RANK
        from certiprog.formulations.hp_mpm_paper.kernels import kernel_mpm

        return kernel_mpm(data["X1"], data["X0"], "rbf", data["gamma"], max_rank=DEFAULT_MAX_RANK)
    from certiprog.formulations.me2_paper.programs import me2_dual

    return me2_dual(data["X_neg"], data["center"], data["mu"], data["lam"], data["B"])


def cvxpy_solve(program: str, data: dict) -> tuple[float, float, float]:
    """(build seconds, solve seconds, optimal value in the program's own sense) with CVXPY + Clarabel."""
    import cvxpy as cp
    import numpy as np

    t0 = time.perf_counter()
    if program == "000":
        X, mu, S, lam, delta = data["X"], data["mu"], data["Sigma"], data["lam"], data["delta"]
        w = cp.Variable(X.shape[1])
        ev, V = np.linalg.eigh(S)
        LT = (V * np.sqrt(np.clip(ev, 0, None))).T
        gam = math.sqrt((1 - delta) / delta)
        prob = cp.Problem(cp.Minimize(cp.sum(cp.pos(1 - X @ w)) + lam * cp.sum_squares(w)),
                          [gam * cp.norm(LT @ w) + mu @ w <= 0])
    elif program == "003":
        import scipy.sparse as sp

        X, y, lam, eta = data["X"], data["y"], data["lam"], data["eta"]
        m = X.shape[0]
        Theta = sp.identity(m, format="csr") - (eta / (m - 1)) * data["graph"]
        w, xi = cp.Variable(X.shape[1]), cp.Variable(m)
        Z = X * y[:, None]
        prob = cp.Problem(cp.Minimize(0.5 * lam * cp.sum_squares(w) + cp.quad_form(xi, cp.psd_wrap(Theta)) / (2 * m)),
                          [xi >= 1 - Z @ w, xi >= 0])
    elif program == "004":
        from certiprog.formulations.hp_mpm_paper.estimator import DEFAULT_MAX_RANK
        from certiprog.formulations.hp_mpm_paper.kernels import kernel_class_moments

        mom = kernel_class_moments(data["X1"], data["X0"], "rbf", data["gamma"], max_rank=DEFAULT_MAX_RANK)
        v = cp.Variable(mom.p)
        prob = cp.Problem(cp.Minimize(cp.norm(mom.F1 @ v) + cp.norm(mom.F0 @ v)), [mom.dmu @ v == 1])
    else:
        from certiprog.formulations.me2_paper.local_solver import local_problem, solve_local_cvxpy

        prob = local_problem(data["X_neg"], data["center"])
        build = time.perf_counter() - t0
        t1 = time.perf_counter()
        sol = solve_local_cvxpy(problem=prob, mu=data["mu"], lam=data["lam"], B=data["B"])
        return build, time.perf_counter() - t1, float(sol.primal)
    build = time.perf_counter() - t0
    t1 = time.perf_counter()
    prob.solve(solver="CLARABEL")
    _last_cvxpy_status[0] = str(prob.status)
    return build, time.perf_counter() - t1, float(prob.value)


_last_cvxpy_status: list = [None]  # the status of `cvxpy_solve`'s last problem (the sweep reports it)


def other_solve(program: str, path: str, data: dict) -> dict | None:
    """The program's dedicated solver or scikit-learn: seconds and (when certified) its interval; None if absent."""
    t0 = time.perf_counter()
    if path == "sklearn":
        import numpy as np
        from sklearn.svm import SVC

        X = np.vstack([data["X1"], data["X0"]])
        y = np.r_[np.ones(len(data["X1"])), -np.ones(len(data["X0"]))]
        SVC(kernel="rbf", gamma=data["gamma"]).fit(X, y)
        return dict(seconds=time.perf_counter() - t0)
    if path in ESTIMATORS_004:
        return estimator_fit(path, data)
    if program == "003":
        from certiprog.formulations.error_clumping_paper.solver import solve_error_clumping

        fit = solve_error_clumping(data["X"], data["y"], data["rho"], data["eta"], data["lam"], graph=data["graph"])
        return dict(seconds=time.perf_counter() - t0, lower=fit.lower, upper=fit.upper, certified=bool(fit.certified))
    if program == "002":
        from certiprog.formulations.me2_paper.local_solver import solve_local

        sol = solve_local(data["X_neg"], data["center"], mu=data["mu"], lam=data["lam"], B=data["B"])
        return dict(seconds=time.perf_counter() - t0, lower=sol.dual, upper=sol.primal,
                    certified=sol.status == "optimal")
    if program == "000":
        try:
            from certiprog.formulations.hinge_minimax_paper.solver import solve_hinge_minimax
        except ImportError:
            return None
        fit = solve_hinge_minimax(data["X"], data["mu"], data["Sigma"], data["lam"], data["delta"], tol=1e-5)
        return dict(seconds=time.perf_counter() - t0, lower=fit.lower, upper=fit.upper, certified=bool(fit.certified))
    return None


def estimator_fit(path: str, data: dict) -> dict:
    """004: the whole fit of ``MPMClassifier`` / ``HPMPMClassifier`` (kernel='rbf', default max_rank and solver):
    seconds, the solve and certify parts, the rigorous interval (MPM: of kappa*^{-1}; HP-MPM: the kappa bracket),
    the kernel rank and the residual share trace(K - G G^T) / trace(K)."""
    import warnings

    import numpy as np

    from certiprog.estimators import HPMPMClassifier, MPMClassifier

    X = np.vstack([data["X1"], data["X0"]])
    y = np.r_[np.ones(len(data["X1"])), np.zeros(len(data["X0"]))]
    est = (MPMClassifier(kernel="rbf", gamma=data["gamma"]) if path == "MPMClassifier"
           else HPMPMClassifier(kernel="rbf", gamma=data["gamma"], nu=1e-3))
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        est.fit(X, y)
    seconds = time.perf_counter() - t0
    s = est.solution_
    out = dict(seconds=seconds, kernel_rank=s["kernel_rank"], pivots=s["kernel_pivots"],
               residual_share=s["residual_trace"] / s["kernel_trace"], status=est.status_, backend=s.get("backend"),
               worst_case_error=float(est.worst_case_error_))
    if path == "MPMClassifier":
        lo, hi = s["interval"] if s.get("interval") else (-math.inf, math.inf)
        out.update(solve=s["solve_time"], certify=s["certify_time"], lower=lo, upper=hi, objective=s["objective"],
                   certified=bool(math.isfinite(lo) and math.isfinite(hi)), verdict=s["certificate"]["verdict"])
    else:
        lo, hi = est.kappa_bracket_
        out.update(solve=s["seconds"], kappa_lower=float(lo), kappa_upper=float(hi), kappa=float(est.kappa_),
                   verdict=est.status_)
    out["build"] = seconds - out["solve"] - out.get("certify", 0.0)  # factorisation, moments, training-bound check
    return out


# --------------------------------------------------------------------------- one measurement
def measure(job: dict) -> dict:
    """One measurement: the certiprog path (build, solve, certify) or a reference path; times and peak RSS."""
    import resource

    import cvxpy  # noqa: F401  (imported before the baseline)
    import sklearn.svm  # noqa: F401


    if job["path"] == "baseline":
        return dict(rss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    program, (m, d) = job["program"], job["size"]
    data = instance(program, m, d, job["quick"])
    out = dict(program=program, m=m, d=d, path=job["path"])
    if job["path"] == "certiprog":
        _, sol, fields = timed_certiprog(lambda: build_model(program, data), dict(backend="clarabel"))
        out.update(fields, status=str(sol.status))
    elif job["path"] == "cvxpy":
        b, s, v = cvxpy_solve(program, data)
        out.update(build=b, solve=s, seconds=b + s, objective=v)
    else:
        res = other_solve(program, job["path"], data)
        if res is None:
            return dict(out, missing=True)
        out.update(res)
    out["rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return out


def run_isolated(job: dict, timeout: float) -> dict:
    ctx = mp.get_context("spawn")
    pool = ctx.Pool(1, maxtasksperchild=1)
    try:
        return pool.apply_async(measure, (job,)).get(timeout)
    except mp.TimeoutError:
        return dict(program=job["program"], m=job["size"][0], d=job["size"][1], path=job["path"], timeout=timeout)
    except Exception as exc:  # noqa: BLE001 - a failed measurement is reported, not fatal to the run
        return dict(program=job["program"], m=job["size"][0], d=job["size"][1], path=job["path"],
                    error=f"{type(exc).__name__}: {exc}")
    finally:
        pool.terminate()
        pool.join()


# --------------------------------------------------------------------------- conditioning sweep (issue 23)
SWEEP_KAPPAS = (1.0, 1e2, 1e4, 1e6)
SWEEP_SIZE, SWEEP_BIG, QUICK_SWEEP_SIZE = (20000, 300), (200000, 300), (300, 10)
SWEEP_REAL = ("letter", "mnist", "adult")
SWEEP_MNIST_ROWS = 10000  # MNIST images (about half positives) x 784 pixels; CVXPY + Clarabel grows like d^2 there
SWEEP_REAL_003 = ("mnist",)  # 003's own data: MNIST digits 0-4 against 5-9 (pixels / 255 and a constant feature)
SWEEP_003_SIZE, QUICK_SWEEP_003_SIZE = (10000, 300), (300, 10)  # m points x d features (+ a constant feature)


def _standardise(X):
    import numpy as np

    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)  # a constant column stays (all zeros): degenerate data


@functools.lru_cache(maxsize=1)
def _real_rows(row: str, quick: bool):
    """A real data set of the sweep: (features, is-positive); see `sweep_instance`."""
    import numpy as np

    if row == "letter":
        from certiprog.datasets.letter import load_letter

        Xa, y = load_letter()
        pos = np.isin(np.asarray(y).astype(str), list("ABCDEFGHIJKLM"))
    elif row == "mnist":
        from certiprog.datasets.mnist import load_mnist

        images, labels = load_mnist("train")
        n = 600 if quick else SWEEP_MNIST_ROWS
        images, labels = images[:n].astype(float) / 255.0, labels[:n]
        if quick:
            images = images.reshape(n, 7, 4, 7, 4).mean(axis=(2, 4))
        Xa, pos = images.reshape(n, -1), labels >= 5
    elif row == "adult":
        from certiprog.datasets.loaders import load_adult

        Xa, y = load_adult()
        pos = y > 0
    else:
        raise ValueError(f"unknown sweep row {row!r}")
    if quick and row != "mnist":
        keep = np.random.default_rng(0).permutation(len(pos))[:600]
        Xa, pos = Xa[keep], pos[keep]
    Xs = _standardise(np.asarray(Xa, float)) if row != "mnist" else np.asarray(Xa, float)
    return Xs, np.asarray(pos, bool)


@functools.lru_cache(maxsize=2)  # inline runs (--quick) measure both paths on one copy of the data
def sweep_instance(row: str, quick: bool, big: bool = False) -> dict:
    """One row of the conditioning sweep: eq. (8) data (X positives, background mu / Sigma, lam, delta, bias).

    ``kappa=K`` rows: positives ``N(1.73/sqrt(d), I) A``, background moments from 5,000 draws of
    ``N(-5.2/sqrt(d), I) A`` (0.1 and -0.3 per coordinate at d = 300, the issue's instance) with
    ``A = Q1 diag(s) Q2'``, Q random orthogonal, s geometric with ``s_max^2 / s_min^2 = K`` and mean square 1: the
    feature covariance has condition number K (the sample one about K). lam = 1, delta = 0.1, no bias.
    Real rows (standardised features, bias=True, lam = 1, delta = 0.5: at 0.1 Letter's optimum is the trivial w = 0)
    ``letter`` positives letters A-M of the 20,000 Letter rows (16 features), background N-Z; ``mnist`` pixels / 255 of the first SWEEP_MNIST_ROWS training images
    (784 features, ~70 of them constant: singular covariance), positives digits 5-9, background 0-4; ``adult``
    (108 features, one-hot groups collinear with the constant), positives income > 50K. ``quick``: small sizes (real
    rows subsampled, MNIST pooled to 7 x 7)."""
    import numpy as np

    from certiprog.datasets.synthetic import conditioned_mixing

    if row.startswith("kappa="):
        kappa = float(row.split("=")[1])
        m, d = QUICK_SWEEP_SIZE if quick else SWEEP_BIG if big else SWEEP_SIZE
        rng = np.random.default_rng(23)
        A = conditioned_mixing(d, kappa, rng)
        X = (rng.normal(size=(m, d)) + 1.73 / math.sqrt(d)) @ A
        Z = (rng.normal(size=(5000, d)) - 5.2 / math.sqrt(d)) @ A
        return dict(X=X, mu=Z.mean(axis=0), Sigma=np.cov(Z.T), lam=1.0, delta=0.1, bias=False)
    Xs, pos = _real_rows(row, quick)
    Z = Xs[~pos]
    return dict(X=Xs[pos], mu=Z.mean(axis=0), Sigma=np.cov(Z.T), lam=1.0, delta=0.5, bias=True)


@functools.lru_cache(maxsize=2)
def sweep_instance_004(row: str, quick: bool) -> dict:
    """One 004 MPM row of the sweep: classes ``X1``, ``X0``. ``kappa=K``: half of the rows each from the two
    distributions of `sweep_instance` (the same A), 20,000 x 300 in all; real rows: the positives and the others of
    `sweep_instance`'s data set (standardised)."""
    import numpy as np

    from certiprog.datasets.synthetic import conditioned_mixing

    if row.startswith("kappa="):
        kappa = float(row.split("=")[1])
        m, d = QUICK_SWEEP_SIZE if quick else SWEEP_SIZE
        rng = np.random.default_rng(23)
        A = conditioned_mixing(d, kappa, rng)
        X1 = (rng.normal(size=(m // 2, d)) + 1.73 / math.sqrt(d)) @ A
        X0 = (rng.normal(size=(m - m // 2, d)) - 5.2 / math.sqrt(d)) @ A
        return dict(X1=X1, X0=X0)
    Xs, pos = _real_rows(row, quick)
    return dict(X1=Xs[pos], X0=Xs[~pos])


@functools.lru_cache(maxsize=2)
def sweep_instance_003(row: str, quick: bool) -> dict:
    """One 003 eq. (1) row of the sweep: ``X`` (m x (d + 1), the last column constant), labels ``y``, the
    neighbourhood graph (built here, outside the timings, and given to both paths), rho (a mean neighbourhood of 1 %;
    5 % when ``quick``), eta = 0.5, lam = 1e-2. ``kappa=K``: m = 10,000 points ``N(0, I) A`` in d = 300 dimensions
    with the ``A`` of `sweep_instance` (feature covariance of condition number K), labels the sign of a random
    direction of the latent N(0, I) plus noise of sd 0.5 (about 15 % of the margins violated); ``mnist``: the
    first 10,000 training images, digits 5-9 against 0-4, as 003's experiments (`datasets.mnist.mnist_binary`)."""
    import numpy as np

    from certiprog.datasets.synthetic import conditioned_mixing
    from certiprog.formulations.error_clumping_paper.graph import radius_graph, rho_for_mean_degree

    if row.startswith("kappa="):
        kappa = float(row.split("=")[1])
        m, d = QUICK_SWEEP_003_SIZE if quick else SWEEP_003_SIZE
        rng = np.random.default_rng(23)
        A = conditioned_mixing(d, kappa, rng)
        Z = rng.normal(size=(m, d))
        y = np.where(Z @ rng.normal(size=d) / math.sqrt(d) + 0.5 * rng.normal(size=m) >= 0, 1.0, -1.0)
        X = np.hstack([Z @ A, np.ones((m, 1))])
    elif row == "mnist":
        from certiprog.datasets.mnist import mnist_binary

        data = mnist_binary(positive=(5, 6, 7, 8, 9), seed=0, n_train=600 if quick else SWEEP_MNIST_ROWS)
        X, y = data.X_train, data.y_train
    else:
        raise ValueError(f"unknown 003 sweep row {row!r}")
    rho = rho_for_mean_degree(X, 0.05 if quick else 0.01, seed=0)
    return dict(X=X, y=y, rho=rho, eta=0.5, lam=1e-2, graph=radius_graph(X, rho))


def _measure_003(job: dict, out: dict) -> dict:
    """003 eq. (1): certiprog (`error_clumping` build, ``model.solve(solver="structured")``: the generalised Newton
    solver of `error_clumping_paper.solver`, check) or CVXPY + Clarabel (build, solve; `cvxpy_solve`'s program)."""
    data = sweep_instance_003(job["row"], job["quick"])
    X = data["X"]
    out.update(m=X.shape[0], d=X.shape[1], bias="-")
    if job["path"] == "certiprog":
        from certiprog.formulations.error_clumping_paper.programs import error_clumping

        _, sol, fields = timed_certiprog(lambda: error_clumping(X, data["y"], data["rho"], data["eta"], data["lam"],
                                                                graph=data["graph"]), dict(solver="structured"))
        out.update(fields, method=f"Newton (003 solver, {sol.info.get('method', '?')})",
                   steps=str(sol.iterations))
        return out
    b, s, v = cvxpy_solve("003", data)
    out.update(build=b, solve=s, seconds=b + s, objective=v, status=_last_cvxpy_status[0])
    return out


def _measure_004(job: dict, out: dict) -> dict:
    """004 eq. (3), the linear MPM: certiprog (`hp_mpm_paper.mpm.mpm` build (moments and their factors),
    ``model.solve(solver="structured")``: its Newton solver, check) or CVXPY + Clarabel (moments, eigen roots,
    ``min ||F1 w|| + ||F0 w|| s.t. (mu1 - mu0)'w = 1``)."""
    import cvxpy as cp
    import numpy as np


    data = sweep_instance_004(job["row"], job["quick"])
    X1, X0 = data["X1"], data["X0"]
    out.update(m=X1.shape[0] + X0.shape[0], d=X1.shape[1], bias="-")
    if job["path"] == "certiprog":
        from certiprog.formulations.hp_mpm_paper.mpm import mpm

        _, sol, fields = timed_certiprog(lambda: mpm(X1, X0), dict(solver="structured"))
        out.update(fields, method="Newton (004 solver)", steps=str(sol.iterations))
        return out
    t0 = time.perf_counter()

    def root(S):
        ev, V = np.linalg.eigh(S)
        return (V * np.sqrt(np.clip(ev, 0, None))).T

    mu1, mu0 = X1.mean(axis=0), X0.mean(axis=0)
    F1, F0 = root(np.cov(X1.T, bias=True)), root(np.cov(X0.T, bias=True))
    w = cp.Variable(X1.shape[1])
    prob = cp.Problem(cp.Minimize(cp.norm(F1 @ w) + cp.norm(F0 @ w)), [(mu1 - mu0) @ w == 1])
    t1 = time.perf_counter()
    prob.solve(solver="CLARABEL")
    out.update(build=t1 - t0, solve=time.perf_counter() - t1, seconds=time.perf_counter() - t0,
               objective=float(prob.value), status=str(prob.status))
    return out


def sweep_measure(job: dict) -> dict:
    """One sweep measurement: certiprog (hinge_minimax build, ``model.solve(solver="structured")``, check) or CVXPY +
    Clarabel (build, solve), with peak RSS."""
    import resource

    import cvxpy as cp
    import numpy as np


    if job["path"] == "baseline":
        return dict(rss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    if job.get("program", "000") in ("003", "004"):
        prog = job["program"]
        out = (_measure_003 if prog == "003" else _measure_004)(job, dict(program=prog, row=job["row"],
                                                                          path=job["path"]))
        out["rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return out
    data = sweep_instance(job["row"], job["quick"], job.get("big", False))
    X, mu, S, lam, delta, bias = (data[k] for k in ("X", "mu", "Sigma", "lam", "delta", "bias"))
    out = dict(program="000", row=job["row"], m=X.shape[0], d=X.shape[1], bias=bias, path=job["path"])
    if job["path"] == "certiprog":
        from certiprog.formulations.hinge_minimax_paper.programs import hinge_minimax

        _, sol, fields = timed_certiprog(lambda: hinge_minimax(X, mu, S, lam, delta, bias=bias),
                                         dict(solver="structured"))
        runs = sol.info.get("runs", [])
        out.update(fields, method=sol.info.get("method"),
                   steps="+".join(f"{r['method'][0]}{r['iterations']}" for r in runs),
                   kappa=sol.info.get("choice", {}).get("kappa", math.nan))
    else:
        t0 = time.perf_counter()
        w = cp.Variable(X.shape[1])
        b = cp.Variable() if bias else 0.0
        ev, V = np.linalg.eigh(S)
        LT = (V * np.sqrt(np.clip(ev, 0, None))).T
        gam = math.sqrt((1 - delta) / delta)
        prob = cp.Problem(cp.Minimize(cp.sum(cp.pos(1 - X @ w - b)) + lam * cp.sum_squares(w)),
                          [gam * cp.norm(LT @ w) + mu @ w + b <= 0])
        t1 = time.perf_counter()
        prob.solve(solver="CLARABEL")
        out.update(build=t1 - t0, solve=time.perf_counter() - t1, seconds=time.perf_counter() - t0,
                   objective=float(prob.value), status=str(prob.status))
    out["rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return out


def sweep_rows(quick: bool, program: str = "000") -> list:
    from certiprog.datasets.loaders import data_path
    from certiprog.errors import CertiprogError

    rows = [f"kappa={k:g}" for k in SWEEP_KAPPAS]
    files = {"letter": "keel/letter.dat", "mnist": "mnist/train-images.idx3-ubyte.gz", "adult": "uci/adult.csv"}
    for r in SWEEP_REAL_003 if program == "003" else SWEEP_REAL:
        try:
            present = data_path(files[r]).is_file()
        except CertiprogError:  # the file (or the whole data folder) is absent
            present = False
        if present:
            rows.append(r)
        else:
            print(f"(sweep: {r} skipped: {files[r]} is not in the data folder)")
    return rows


SWEEP_TITLES = {"000": "000 eq. (8) hinge-minimax", "004": "004 eq. (3) linear MPM", "003": "003 eq. (1) error clumping"}


def conditioning_sweep(quick: bool, inline: bool, timeout: float, big: bool = True,
                       programs=("000", "003", "004"), rows=None, only=None, repeats: int = 3,
                       repeat_below: float = 10.0) -> list:
    """Issue 23's sweep: every row of every program through certiprog and CVXPY + Clarabel (each in its own process
    unless ``inline``), one table per program printed worst ratio first; for 000 then the largest size at the worst
    conditioning (certiprog only: CVXPY + Clarabel would take hours there). A row whose first pair of measurements
    took under ``repeat_below`` seconds in all is measured ``repeats`` times in turn (ours, the reference, ours,
    ...) and each path's median run is reported (the ratio is of the medians; ``pairs`` keeps every pair's ratio):
    on a shared machine a single load spike otherwise sets the ratio of a row that takes 0.06 s."""
    def run(job):
        job = dict(job, quick=quick)
        if inline:
            return sweep_measure(job)
        ctx = mp.get_context("spawn")
        pool = ctx.Pool(1, maxtasksperchild=1)
        try:
            return pool.apply_async(sweep_measure, (job,)).get(timeout)
        except mp.TimeoutError:
            return dict(job, timeout=timeout)
        except Exception as exc:  # noqa: BLE001 - reported, not fatal
            return dict(job, error=f"{type(exc).__name__}: {exc}")
        finally:
            pool.terminate()
            pool.join()

    base = None if inline else run(dict(path="baseline", row=""))["rss_kb"]
    results = []
    for prog in programs:
        done = []
        for row in sweep_rows(quick, prog):
            if rows and row not in rows:
                continue
            ours = run(dict(program=prog, path="certiprog", row=row)) if only != "cvxpy" else {}
            ref = run(dict(program=prog, path="cvxpy", row=row)) if only != "certiprog" else {}
            pairs = []
            if "seconds" in ours and "seconds" in ref and ours["seconds"] + ref["seconds"] < repeat_below:
                all_ours, all_ref = [ours], [ref]
                for _ in range(repeats - 1):
                    all_ours.append(run(dict(program=prog, path="certiprog", row=row)))
                    all_ref.append(run(dict(program=prog, path="cvxpy", row=row)))
                pairs = [r["seconds"] / o["seconds"] for o, r in zip(all_ours, all_ref)
                         if "seconds" in o and "seconds" in r]
                ours, ref = (_median_run(runs) for runs in (all_ours, all_ref))
            rec = dict(program=prog, row=row, ours=ours, ref=ref, pairs=pairs)
            if "seconds" in ours and "seconds" in ref:
                rec["ratio"] = ref["seconds"] / ours["seconds"]
            elif "seconds" in ours and "timeout" in ref:
                rec["ratio"] = ref["timeout"] / ours["seconds"]
                rec["ratio_is_lower_bound"] = True
            else:
                rec["ratio"] = math.nan
            if "lower" in ours and "objective" in ref:
                tol = 1e-6 * max(abs(ours["lower"]), abs(ours["upper"]), 1.0)
                rec["inside"] = bool(ours["lower"] - tol <= ref["objective"] <= ours["upper"] + tol)
            done.append(rec)
            print(f"(sweep {prog} row {row} done: {json.dumps(rec, default=str)[:400]})", flush=True)
        if big and not quick and prog == "000" and only != "cvxpy" and (not rows or "big" in rows):
            worst = f"kappa={max(SWEEP_KAPPAS):g}"
            done.append(dict(program=prog, row=worst, ratio=math.nan, ref={},
                             ours=run(dict(program=prog, path="certiprog", row=worst, big=True))))
        _print_sweep(prog, done, base)
        results += done
    rated = [r for r in results if math.isfinite(r["ratio"])]
    if rated:
        w = min(rated, key=lambda r: r["ratio"])
        print(f"\nworst row of the sweep: {w['program']} {w['row']}, {w['ratio']:.1f}x against CVXPY + Clarabel "
              f"(goal >= 5x); load average {os.getloadavg()[0]:.1f}")
    return results


def _median_run(runs: list) -> dict:
    """The run with the median time among those that finished (the first run if none did)."""
    ok = sorted((r for r in runs if "seconds" in r), key=lambda r: r["seconds"])
    return ok[(len(ok) - 1) // 2] if ok else runs[0]


def _print_sweep(prog: str, results: list, base) -> None:
    order = sorted(results, key=lambda r: (r["ref"] == {}, r["ratio"] if math.isfinite(r["ratio"]) else -1.0))
    print(f"\n## {SWEEP_TITLES[prog]}: conditioning sweep against CVXPY + Clarabel (worst ratio first)\n")
    print("| row | m x d | bias | certiprog build / solve / certify | total | method (steps) | CVXPY + Clarabel "
          "| ratio | certified interval | rel. width | verdict | CVXPY value | peak RSS ours / ref |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in order:
        o, c = r["ours"], r["ref"]
        if "seconds" not in o:
            ref_t = _t(c["seconds"]) if "seconds" in c else ""
            print(f"| {r['row']} | | | {o.get('error') or ('timeout' if o else 'not run')} ||| {ref_t} |||||||")
            continue
        width = rel_width(o["lower"], o["upper"])
        ratio = "-" if not math.isfinite(r["ratio"]) else f"{'>' if r.get('ratio_is_lower_bound') else ''}" \
                                                           f"{r['ratio']:.1f}x"
        if len(r.get("pairs", [])) > 1:
            ratio += f" (median of {len(r['pairs'])}: {min(r['pairs']):.1f}-{max(r['pairs']):.1f}x)"
        cref = _t(c["seconds"]) if "seconds" in c else ("timeout %.0f s" % c["timeout"] if "timeout" in c
                                                        else c.get("error", "not run"))
        inside = "-" if "inside" not in r else f"{c['objective']:.10g} ({'in' if r['inside'] else 'OUTSIDE'})"
        print(f"| {r['row']} | {o['m']:,} x {o['d']} | {o['bias']} | {_t(o['build'])} / {_t(o['solve'])} / "
              f"{_t(o['certify'])} | {_t(o['seconds'])} | {o.get('method')} ({o.get('steps')}) | {cref} | {ratio} | "
              f"[{o['lower']:.10g}, {o['upper']:.10g}] | {width:.1e} | {o['verdict']} | {inside} | "
              f"{_mb(o, base)} / {_mb(c, base)} |")


# --------------------------------------------------------------------------- report
def fit_exponent(ms, ts) -> float:
    """Least-squares slope of log t against log m (nan with fewer than two usable points)."""
    import numpy as np

    pts = [(math.log(m), math.log(t)) for m, t in zip(ms, ts) if t and t > 0 and np.isfinite(t)]
    if len(pts) < 2:
        return float("nan")
    x, y = np.array(pts).T
    return float(np.polyfit(x, y, 1)[0])


def rel_width(lo: float, hi: float) -> float:
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return math.inf
    return (hi - lo) / max(abs(hi), abs(lo), 1e-300)


def _t(s) -> str:
    if s is None or not isinstance(s, (int, float)) or not math.isfinite(s):
        return "-"
    return f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.2f} s" if s < 100 else f"{s / 60:.1f} min"


def _mb(r: dict, base: float | None) -> str:
    return "-" if base is None or "rss_kb" not in r else f"{(r['rss_kb'] - base) / 1024:.0f} MB"


def kernel_summary(rows: list) -> list:
    """004: one line per estimator row: its fit time over SVC's, the kernel rank (pivots, coordinates), the residual
    share trace(K - G G^T) / trace(K), the solver and the peak memory."""
    svc = next((r for r in rows if r.get("path") == "sklearn" and "seconds" in r), None)
    out = []
    for r in rows:
        if r.get("path") not in ESTIMATORS_004 or "seconds" not in r:
            continue
        r["fit_over_svc"] = r["seconds"] / svc["seconds"] if svc else math.nan
        out.append(f"- m = {r['m']:,}: {r['path']} fit {_t(r['seconds'])}, SVC {_t(svc['seconds']) if svc else '-'}: "
                   f"**{r['fit_over_svc']:.1f}x**; {r['pivots']} pivots, {r['kernel_rank']} coordinates, residual "
                   f"trace share {r['residual_share']:.3f}; {r['backend']}, {r['status']}")
    return out


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--programs", nargs="+", default=list(PROGRAMS), choices=PROGRAMS)
    ap.add_argument("--quick", action="store_true", help="small sizes, in this process (a correctness run)")
    ap.add_argument("--inline", action="store_true", help="measure in this process (no peak memory)")
    ap.add_argument("--no-curve", action="store_true", help="skip the scaling curves")
    ap.add_argument("--no-sizes", action="store_true", help="skip the two-size table (curves only)")
    ap.add_argument("--no-reference", action="store_true", help="skip CVXPY / scikit-learn / dedicated solvers")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per measurement (isolated runs)")
    ap.add_argument("--out", default=None, help="write the measurements as JSON here")
    ap.add_argument("--sweep", action="store_true", help="only issue 23's conditioning sweep of 000 eq. (8)")
    ap.add_argument("--no-big", action="store_true", help="sweep: skip 200,000 x 300 at the worst conditioning")
    ap.add_argument("--sweep-programs", nargs="+", default=["000", "003", "004"], choices=["000", "003", "004"],
                    help="sweep: the programs (000 eq. (8), 003 eq. (1), 004 linear MPM)")
    ap.add_argument("--sweep-rows", nargs="+", default=None, help="sweep: only these rows (e.g. kappa=1e+06 mnist)")
    ap.add_argument("--sweep-repeats", type=int, default=3,
                    help="sweep: rows taking under 10 s a pair are measured this many times in turn (medians)")
    ap.add_argument("--only", choices=["certiprog", "cvxpy"], default=None,
                    help="sweep: run one path only (the other's column reads 'not run')")
    args = ap.parse_args(argv)
    if args.sweep:
        res = conditioning_sweep(args.quick, args.inline or args.quick, args.timeout, big=not args.no_big,
                                 programs=tuple(args.sweep_programs), rows=args.sweep_rows, only=args.only,
                                 repeats=1 if args.quick else args.sweep_repeats)
        if args.out:
            with open(args.out, "w") as fh:
                json.dump(res, fh, indent=1, default=float)
        return dict(sweep=res)
    inline = args.inline or args.quick
    sizes = QUICK_SIZES if args.quick else SIZES
    curves = QUICK_CURVES if args.quick else CURVES

    def run(job):
        job = dict(job, quick=args.quick)
        return measure(job) if inline else run_isolated(job, args.timeout)

    base = None if inline else run_isolated(dict(path="baseline", program="", size=(0, 0)), 600)["rss_kb"]
    report = dict(sizes=[], curves=[], baseline_rss_kb=base, quick=args.quick)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# certiprog at scale (BLAS threads {os.environ['OPENBLAS_NUM_THREADS']}, {os.cpu_count()} cpus, "
          f"load {load:.1f}{', quick' if args.quick else ''})\n")
    print("| program | m x d | path | build | solve | certify | cert/solve | total | ref / ours | interval | rel. width "
          "| verdict | peak RSS |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    kernel_notes = []
    for prog in [] if args.no_sizes else args.programs:
        for size in sizes[prog]:
            ours = run(dict(program=prog, path="certiprog", size=size))
            rows = [ours]
            if not args.no_reference:
                rows += [run(dict(program=prog, path=p, size=size)) for p in REFERENCES[prog]]
            for r in rows:
                report["sizes"].append(r)
                if r.get("missing"):
                    continue
                mxd = f"{r['m']:,} x {r['d']}"
                if "error" in r or "timeout" in r:
                    print(f"| {prog} | {mxd} | {r['path']} | {r.get('error') or 'timeout after %.0f s' % r['timeout']}"
                          " |||||||||")
                    continue
                lo, hi = r.get("lower", math.nan), r.get("upper", math.nan)
                iv = f"[{lo:.10g}, {hi:.10g}]" if "lower" in r else "-"
                if "kappa_lower" in r:  # the HP-MPM estimator: its certified kappa bracket
                    lo, hi = r["kappa_lower"], r["kappa_upper"]
                    iv = f"kappa [{lo:.10g}, {hi:.10g}]"
                if r["path"] == "cvxpy" and "lower" in ours:
                    tol = 1e-6 * max(abs(ours["lower"]), abs(ours["upper"])) + 1e-12  # relative
                    r["inside"] = bool(ours["lower"] - tol <= r["objective"] <= ours["upper"] + tol)
                    iv = f"{r['objective']:.10g} ({'in' if r['inside'] else 'OUTSIDE'})"
                ratio = r.get("certify", math.nan) / r["solve"] if r.get("solve") else math.nan
                speed = r["seconds"] / ours["seconds"] if r is not ours and "seconds" in ours else math.nan
                width = rel_width(lo, hi) if "lower" in r or "kappa_lower" in r else math.nan
                print(f"| {prog} | {mxd} | {r['path']} | {_t(r.get('build'))} | {_t(r.get('solve'))} | "
                      f"{_t(r.get('certify'))} | {ratio:.3f} | {_t(r['seconds'])} | {speed:.2f} | {iv} | {width:.1e} | "
                      f"{r.get('verdict', r.get('certified', '-'))} | {_mb(r, base)} |")
            kernel_notes += kernel_summary(rows)
    if kernel_notes:
        print("\n004 estimators against scikit-learn's SVC(rbf) on the same data:\n")
        print("\n".join(kernel_notes))
    if not args.no_curve:
        print("\n## Scaling curves (certiprog + Clarabel; 004: the estimators and SVC; exponent: least-squares slope of "
              "log time on log m)\n")
        print("| program | path | m | build | solve | certify | total | fit / SVC |\n|---|---|---|---|---|---|---|---|")
        for prog in args.programs:
            by_path = {path: [run(dict(program=prog, path=path, size=size)) for size in curves[prog]]
                       for path in CURVE_PATHS.get(prog, ("certiprog",))}
            svc = {p["m"]: p["seconds"] for p in by_path.get("sklearn", []) if "seconds" in p}
            for path, pts in by_path.items():
                ok = [p for p in pts if "seconds" in p]
                for p in pts:
                    report["curves"].append(p)
                    over = p["seconds"] / svc[p["m"]] if path in ESTIMATORS_004 and p["m"] in svc and "seconds" in p \
                        else math.nan
                    print(f"| {prog} | {path} | {p['m']:,} | {_t(p.get('build'))} | {_t(p.get('solve'))} | "
                          f"{_t(p.get('certify'))} | {_t(p.get('seconds')) if 'seconds' in p else p.get('error', 'timeout')}"
                          f" | {'-' if math.isnan(over) else f'{over:.1f}'} |")
                ms = [p["m"] for p in ok]
                if path == "certiprog":
                    ex = {k: fit_exponent(ms, [p[k] for p in ok]) for k in ("solve", "certify", "seconds")}
                    report.setdefault("exponents", {})[prog] = ex
                    print(f"| {prog} | {path} | exponent | | {ex['solve']:.2f} | {ex['certify']:.2f} | "
                          f"{ex['seconds']:.2f} | |")
                else:  # total fit time of the estimators and of SVC
                    e = fit_exponent(ms, [p["seconds"] for p in ok])
                    report.setdefault("exponents", {}).setdefault(prog, {})[path] = e
                    print(f"| {prog} | {path} | exponent | | | | {e:.2f} | |")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(report, fh, indent=1, default=float)
    return report


if __name__ == "__main__":
    main()
