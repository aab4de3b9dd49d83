"""What a certificate costs beside the solve (issue 15 item 1): ``check(model, sol)`` / ``model.solve()``.

Cases: 002 ME2 local dual QP (`me2_paper.programs.me2_dual`, d = 6, as in `scale.py`), 004 kernel MPM (rbf,
`hp_mpm_paper.kernels.kernel_mpm`), and a dense SOCP of the MPM form ``min ||F1 v|| + ||F0 v|| s.t. dmu'v = 1`` with
p columns, p x p Gaussian F1, F0 whose columns are scaled from 1 to 1e-3 (the kernel coordinates' spread).
Each case is solved ``--reps`` times with Clarabel; the minima of the solve and certify times are printed with
their ratio, the verdict and the rigorous interval.

The fit cases (``mpm-fit:1000`` kernel MPMClassifier, ``hpmpm-fit:1000`` kernel HPMPMClassifier, rbf, nu = 1e-3,
``linmpm-fit:1000`` linear MPMClassifier; `scale.py`'s 004 data, d = 10) run the whole estimator fit on certiprog's
own choice (the structured Newton solvers) and split it: ``solve`` is the time inside the formulation's
structured solver (`solvers.structured.structured_answer`, every w-step of the HP-MPM bisection), ``certify`` the
time inside every `certificates.check` call (certiprog's confirmation of each answer and the estimator's own
check), summed per fit; the fit with the smallest total is reported. Run with ``OMP_NUM_THREADS=1`` on a quiet
machine::

    python benchmarks/certify_cost.py [--reps 5] [cases ...]     # cases like 002:1000 004:1000 socp:300 mpm-fit:1000

No wall-clock assertion anywhere: the figures are for reading (and for the issue's table).

Measured (2026-11-25, OMP_NUM_THREADS=1, 2 shared cores, noisy: +-30 %; min of 5), certify ms / solve ms:

    002:1000 7.0 / 25.6 (0.27)      002:3313 12.1 / 127 (0.095)         [check(model, sol): ~1 ms recompile]
    mpm-fit:1000 2.2 / 57 (0.04)    mpm-fit:5000 2.1 / 55 (0.04)        [was 8.8-10 / 65-85: KKT measured twice]
    hpmpm-fit:1000 13 / 98 (0.13)   hpmpm-fit:5000 19 / 130 (0.14)      [was 33-57 / 112-160; ~1.5 ms a w-step]
    linmpm-fit:1000 5.5 / 2.2 (2.5) linmpm-fit:5000 5.1 / 1.8 (2.9)     [23 x 12 SOCP: fixed overhead of the interval]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

DEFAULT = ("002:1000", "002:3313", "004:1000", "socp:300")


def dense_mpm(p: int, seed: int = 0):
    """The MPM-form SOCP with dense p x p factors (module docstring)."""
    from certiprog.model import Model, Variable, minimize, norm2

    rng = np.random.default_rng(seed)
    spread = np.geomspace(1.0, 1e-3, p)
    F1 = rng.normal(size=(p, p)) * spread / np.sqrt(p)
    F0 = rng.normal(size=(p, p)) * spread / np.sqrt(p)
    dmu = rng.normal(size=p) + 0.5
    v = Variable(p, "v")
    model = Model(minimize(norm2(F1 @ v) + norm2(F0 @ v)), name=f"dense mpm p={p}")
    model.add(dmu @ v == 1.0, name="normalization")
    return model


def build(case: str):
    program, size = case.split(":")
    size = int(size)
    if program == "socp":
        return dense_mpm(size)
    import scale

    d = {"002": 6, "004": 4, "000": 300, "003": 20}[program]
    return scale.build_model(program, scale.instance(program, size, d, False))


FITS = ("mpm-fit", "hpmpm-fit", "linmpm-fit")


def measure_fit(case: str, reps: int) -> str:
    """One estimator fit split into structured solve and certificate time (module docstring)."""
    import warnings
    from unittest import mock

    import scale

    import certiprog.certify as C
    import certiprog.certify.kkt as K
    import certiprog.solvers.structured as S
    from certiprog.estimators import HPMPMClassifier, MPMClassifier

    kind, size = case.split(":")
    data = scale.instance("004", int(size), 10, False)
    X = np.vstack([data["X1"], data["X0"]])
    y = np.r_[np.ones(len(data["X1"])), np.zeros(len(data["X0"]))]
    spent = {}

    def timed(fn, label):
        def run(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + time.perf_counter() - t0
        return run

    check = timed(K.check, "certify")
    best = None
    with mock.patch.object(K, "check", check), mock.patch.object(C, "check", check), \
            mock.patch.object(S, "structured_answer", timed(S.structured_answer, "solve")):
        for _ in range(reps):
            est = {"mpm-fit": lambda: MPMClassifier(kernel="rbf", gamma=data["gamma"]),
                   "hpmpm-fit": lambda: HPMPMClassifier(kernel="rbf", gamma=data["gamma"], nu=1e-3),
                   "linmpm-fit": lambda: MPMClassifier()}[kind]()
            spent.clear()
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                est.fit(X, y)
            total = time.perf_counter() - t0
            if best is None or total < best[0]:
                best = (total, spent.get("solve", np.nan), spent.get("certify", 0.0), est)
    total, s, c, est = best
    sol = est.solution_
    verdict = (sol.get("certificate") or {}).get("verdict", est.status_) if kind != "hpmpm-fit" else est.status_
    iv = sol.get("interval") if kind != "hpmpm-fit" else est.kappa_bracket_
    lo, hi = iv if iv is not None else (-np.inf, np.inf)
    return (f"| {kind} | {size} | {1e3 * c:.1f} | {1e3 * s:.1f} | {c / s:.3f} | {verdict} "
            f"| [{lo:.12g}, {hi:.12g}] (fit {1e3 * total:.0f} ms) |")


def measure(case: str, reps: int) -> str:
    from certiprog.certify import check

    if case.split(":")[0] in FITS:
        return measure_fit(case, reps)
    model = build(case)
    solves, certs = [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        sol = model.solve(backend="clarabel")
        t1 = time.perf_counter()
        cert = check(model, sol)
        t2 = time.perf_counter()
        solves.append(t1 - t0)
        certs.append(t2 - t1)
    s, c = min(solves), min(certs)
    lo, hi = cert.interval if cert.interval is not None else (-np.inf, np.inf)
    program, size = case.split(":")
    return (f"| {program} | {size} | {1e3 * c:.1f} | {1e3 * s:.1f} | {c / s:.3f} | {cert.verdict} "
            f"| [{lo:.12g}, {hi:.12g}] |")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", default=list(DEFAULT), help="program:size, e.g. 002:1000 004:2000 socp:1000")
    ap.add_argument("--reps", type=int, default=5, help="solves and certificates per case (minima reported)")
    args = ap.parse_args(argv)
    print("| program | size | certify ms | solve ms | certify / solve | verdict | interval |")
    print("|---|---|---|---|---|---|---|")
    for case in args.cases:
        print(measure(case, max(1, args.reps)), flush=True)


if __name__ == "__main__":
    main()
