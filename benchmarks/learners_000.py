"""Paper 000's learners against scikit-learn's RBF SVC on a Letter task, every sub-problem certified (issue 23 item 3).

The task: one letter against the other 25 of UCI Letter (20,000 x 16), a stratified 80 % training part (seed 0;
16,000 rows, ~630 positives) and the other 20 % for the test AUC (``--train-rows N``: the first N training rows, e.g.
2,600, Table 2's training size). Timed, each in its own spawned process (BLAS on one thread):

* ``SVC``: ``make_pipeline(StandardScaler(), SVC(kernel="rbf"))`` with scikit-learn's defaults (C = 1,
  gamma = "scale"), fit only: the reference every ratio divides by;
* ``KHHM``: ``KHHMClassifier(K=4, delta=0.3, lam=0.1)`` (Alg. 1, 10 refinement rounds) with ``certify=True``;
* ``LHM``: ``LHMClassifier(n_components=2, K=2, delta=0.3, lam=0.1, init="kmeans")`` (Alg. 2, up to 10 model steps) with
  ``certify=True``, and with ``n_jobs=2`` (the components of a model step in parallel; the same model, checked);
* with ``--before``: the same two fits with eq. (8) on the generic path (``khhm.STRUCTURED_MIN_SIZE = inf``: the
  compiled model on certiprog's default solver, then certiprog's generic rigorous check), which is what the structured
  interior point's own certificate replaced.

delta and lam are fixed (the paper's Table 4 values): with ``"auto"`` (the default) the internal validation grid
fits 5-7 models first (their sub-problems KKT-checked; the final fit certified), a multiple of these times.

Printed per learner: fit wall seconds (best of ``--repeats``), the ratio to SVC's, the test AUC, the sub-problems
by verdict (every one must be certified or exact: the column says "all certified" or lists the others), the
eq. (8) / Thm 1 seconds, and the peak memory: the process's peak RSS minus that of a process that only imported
the same modules and loaded the data (no tracemalloc: it slows the interior point's many small numpy calls).

    python benchmarks/learners_000.py [--letters A H] [--train-rows N] [--repeats 1] [--before] [--out FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import time

from _measuring import peak_rss_kb, run_isolated

LEARNERS = ("SVC", "KHHM", "LHM", "LHM n_jobs=2")


def _task(letter: str, train_rows: int | None):
    """(Xtr, ytr, Xte, yte) of the Letter task: ``letter`` against the rest, stratified 80 / 20, seed 0."""
    import numpy as np
    from sklearn.model_selection import train_test_split

    from certiprog.datasets.letter import load_letter

    X, labels = load_letter(None)
    y = (labels == letter).astype(int)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
    if train_rows is not None:
        Xtr, ytr = Xtr[:train_rows], ytr[:train_rows]
    return np.ascontiguousarray(Xtr), ytr, Xte, yte


def _estimator(name: str):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    from certiprog.formulations.hinge_minimax_paper.estimator import KHHMClassifier, LHMClassifier

    if name == "SVC":
        return make_pipeline(StandardScaler(), SVC(kernel="rbf"))
    if name == "KHHM":
        return KHHMClassifier(K=4, delta=0.3, lam=0.1, certify=True)
    return LHMClassifier(n_components=2, K=2, delta=0.3, lam=0.1, init="kmeans", random_state=0, certify=True,
                         n_jobs=2 if name.endswith("n_jobs=2") else None)


def _measure(job: dict) -> dict:
    """One learner's fit in this (fresh) process: seconds, test AUC, verdicts, peaks; ``kind="baseline"``: the RSS
    of the imports alone."""
    import warnings

    import numpy as np
    from sklearn.metrics import roc_auc_score
    from threadpoolctl import threadpool_limits

    from certiprog.formulations.hinge_minimax_paper import khhm
    from certiprog.formulations.hinge_minimax_paper.estimator import KHHMClassifier  # noqa: F401 (baseline RSS)

    Xtr, ytr, Xte, yte = _task(job["letter"], job["train_rows"])
    if job["kind"] == "baseline":
        return dict(rss_kb=peak_rss_kb())
    if job["before"]:
        khhm.STRUCTURED_MIN_SIZE = float("inf")
    times, est = [], None  # no tracemalloc: it slows the interior point's many small numpy calls several-fold
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(job["repeats"]):
            est = _estimator(job["learner"])
            t0 = time.perf_counter()
            est.fit(Xtr, ytr)
            times.append(time.perf_counter() - t0)
    out = dict(seconds=min(times), auc=float(roc_auc_score(yte, est.decision_function(Xte))),
               n_train=int(len(ytr)), n_pos=int(ytr.sum()), d=int(Xtr.shape[1]))
    if job["learner"] != "SVC":
        subs = est.subproblems_
        out.update(verdicts={str(k): int(v) for k, v in est.verdicts_.items()}, certified=bool(est.certified_),
                   n_subproblems=len(subs),
                   eq8_s=float(sum(s["seconds"] for s in subs if s["program"] == "eq8")),
                   thm1_s=float(sum(s["seconds"] for s in subs if s["program"] == "thm1")),
                   solvers=sorted({str(s["solver"]) for s in subs if s["program"] == "eq8"}),
                   W=np.asarray(est.W_).tolist(), b=np.asarray(est.b_).tolist())
    out["rss_kb"] = peak_rss_kb()
    return out


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--letters", nargs="+", default=["A", "H"])
    parser.add_argument("--train-rows", type=int, default=None, help="first N rows of the 80 %% training part")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--learners", nargs="+", default=list(LEARNERS), choices=LEARNERS)
    parser.add_argument("--before", action="store_true", help="also eq. (8) on the generic path (the old cost)")
    parser.add_argument("--out", default=None, help="write the measurements as JSON")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    results: dict = {}
    print(f"## 000 learners vs RBF SVC on Letter (one letter vs the rest, every KHHM / LHM sub-problem certified; "
          f"delta = 0.3, lam = 0.1; load average {os.getloadavg()[0]:.1f} at the start)\n")
    print("| letter | n x d (positives) | learner | fit s | ratio to SVC | test AUC | sub-problems | verdicts | "
          "eq. (8) / Thm 1 s | peak RSS over imports (MB) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for letter in args.letters:
        base = run_isolated(_measure, dict(kind="baseline", letter=letter, train_rows=args.train_rows))
        runs = [(name, False) for name in args.learners]
        if args.before:
            runs += [(name, True) for name in args.learners if name in ("KHHM", "LHM")]
        svc = None
        for name, before in runs:
            job = dict(kind="fit", letter=letter, train_rows=args.train_rows, learner=name, before=before,
                       repeats=args.repeats)
            r = run_isolated(_measure, job)
            label = name + (" (before: generic eq. (8) + check)" if before else "")
            results[f"{letter} {label}"] = r
            if name == "SVC":
                svc = r["seconds"]
            ratio = f"{r['seconds'] / svc:.1f}x" if svc else "n/a"
            verdicts = ("all certified" if r.get("certified") else json.dumps(r.get("verdicts"))) \
                if "verdicts" in r else ""
            times = f"{r['eq8_s']:.1f} / {r['thm1_s']:.1f}" if "eq8_s" in r else ""
            print(f"| {letter} | {r['n_train']} x {r['d']} ({r['n_pos']}) | {label} | {r['seconds']:.2f} | {ratio} | "
                  f"{r['auc']:.4f} | {r.get('n_subproblems', '')} | {verdicts} | {times} | "
                  f"{(r['rss_kb'] - base['rss_kb']) / 1024:.0f} |", flush=True)
        if "LHM" in args.learners and "LHM n_jobs=2" in args.learners:
            a, b = results[f"{letter} LHM"], results[f"{letter} LHM n_jobs=2"]
            same = a["W"] == b["W"] and a["b"] == b["b"]
            print(f"\nLHM with n_jobs=2 gives {'bitwise the same' if same else 'a DIFFERENT'} model on {letter}.\n")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(results, fh, indent=1)
    return results


if __name__ == "__main__":
    main()
