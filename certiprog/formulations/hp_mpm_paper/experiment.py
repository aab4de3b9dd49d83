"""`certiprog reproduce hp-mpm`: paper 004's Table 2 (linear) and Table 3 (Gaussian kernel) on the real data.

Protocol (paper Sec. 6), for each data set, training proportion p and random partition:

1. split the rows at random (stratified by class, seeded) into a training part (p n), a validation part
   (``validation`` n, 0.2 in the paper) and a test part (the rest);
2. standardise every feature with the training part's mean and standard deviation; missing values (Vote) are
   set to 0 afterwards (the paper's rule, `certiprog.datasets.standardize_fill_missing`);
3. fit every method on the training part for every value of its grid, keep the one with the best validation
   accuracy and report its test accuracy (no refit on training + validation: the paper evaluates "the predictor
   with the best validation set accuracy on the test sample");
4. report the mean and standard deviation over the partitions beside the paper's number.

Methods: ``MPM`` (no parameter); ``HP-MPM`` with ``A_j = nu A_j`` (paper grid nu in {0.05, ..., 1}, R = the largest
training norm, delta = 0.1: the paper gives neither, and both only rescale nu, A_j ~ nu R^2 (2 + sqrt(2 ln(2/delta))));
where no nu of the grid gives a meaningful solution (kappa* > 0 needs
``||x̂1 - x̂0|| > sqrt(2 nu A1) + sqrt(2 nu A0)``, i.e. nu < `nu_max`) the grid is replaced by ``nu_max`` times the
paper's fractions and the table says so; ``bHP-MPM`` (paper Sec. 6, Tables 4-5:
the HP-MPM direction with the bias that maximises training accuracy); ``SVM``: `sklearn.svm.LinearSVC` (liblinear,
squared hinge, C in {1e-3, ..., 1e3}; the standard hinge converges badly at large C) or `sklearn.svm.SVC` with the
Gaussian kernel; ``FDA``: `sklearn.discriminant_analysis.LinearDiscriminantAnalysis(solver="lsqr",
shrinkage=lam/(1+lam))` for lam in {1e-3, ..., 1e3}: its direction is the ridge-regularised Fisher direction
``(Sigma_w + lam' I)^{-1}(x̂1 - x̂0)`` with ``lam' = lam * tr(Sigma_w)/d`` (~ lam for standardised data), and its bias
accounts for the class priors; with the kernel, the regularised kernel Fisher discriminant of Mika et al. (1999),
``gamma = (N + lam I)^{-1}(l1 - l0)``, with the same prior-aware bias on the projections.

Gaussian kernel: the paper's ``k(x, x') = exp(-||x - x'||^2 / sigma)``, sigma in {1e-3, ..., 1e3}, i.e.
``gamma = 1/sigma`` for every method; R = 1 (k(x, x) = 1).

Outputs in ``--out``: ``table.md``, ``table.csv``, ``accuracy_vs_proportion.png`` and ``results.json`` (every
partition's numbers and the configuration; no pickle).

Cost (issue 15): the kernel factorisation and the class moments depend on the training set and the width only, so
one `CoordinateCache` per width serves the MPM and every nu; the grids' fits skip the certificate of their last SOCP
and the chosen MPM and HP-MPM are refitted with the full one (``certificate``, ``certificate_interval``,
``kappa_bracket`` in the record). LinearSVC is seeded (`SVM_SEED`) so runs and workers agree.

Runs on `certiprog.experiments.runner`: one task per (data set, proportion, partition) (`tasks`,
`partition_task`), results kept in ``OUT/tasks`` (a rerun resumes; ``--shard`` / ``--merge`` split a run over
machines), tables from `aggregate`.
"""
from __future__ import annotations

import functools
import json
import logging
import platform
import time
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from certiprog.errors import CertiprogError, InputError
from certiprog.experiments.runner import Task, number_list, run_tasks
from certiprog.formulations.hp_mpm_paper.estimator import CoordinateCache

log = logging.getLogger(__name__)

PAPER_PROPORTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
PAPER_NU = (0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0)
PAPER_C = PAPER_LAMBDA = PAPER_SIGMA = tuple(10.0 ** k for k in range(-3, 4))
QUICK_GRIDS = dict(nu=(0.05, 0.2, 1.0), C=(0.01, 1.0, 100.0), lam=(0.01, 1.0, 100.0), sigma=(10.0, 100.0))
QUICK_DATASETS = ("sonar", "heart")
QUICK_PROPORTIONS = (0.1, 0.3)
QUICK_PARTITIONS = 2
KERNEL_DATASETS = ("sonar", "ionosphere", "heart")
METHODS = ("MPM", "HP-MPM", "bHP-MPM", "SVM", "FDA")
MISSING_NOTE = "missing (not in ../shared/data)"
SVM_SEED = 0  # LinearSVC's random_state (`_fit_svm`)
VERSION = "3"  # of the task results: bump when a change to the code changes what a task returns
# Config fields a task's result depends on (its key); the others only say which tasks to run or how
TASK_FIELDS = ("validation", "seed", "delta", "kernel", "nu", "C", "lam", "sigma", "backend", "solver")


@dataclass
class Config:
    """Everything that defines a run (stored in results.json)."""

    datasets: tuple = ()
    proportions: tuple = PAPER_PROPORTIONS
    adult_proportions: tuple = (0.1,)
    partitions: int = 50
    validation: float = 0.2
    seed: int = 0
    delta: float = 0.1
    kernel: bool = False
    nu: tuple = PAPER_NU
    C: tuple = PAPER_C
    lam: tuple = PAPER_LAMBDA
    sigma: tuple = PAPER_SIGMA
    backend: str | None = None  # None: certiprog chooses the solver
    solver: str | None = None
    n_jobs: int = 1
    progress: bool | None = False  # None: a bar only on a terminal
    data_root: str | None = None
    quick: bool = False


# ----------------------------------------------------------------------------------------------------------------
# Command line
# ----------------------------------------------------------------------------------------------------------------


def add_arguments(parser) -> None:
    """The options of ``certiprog reproduce hp-mpm``."""
    parser.add_argument("--datasets", nargs="+", default=None,
                        help="data sets (default: every available one; --quick: sonar heart; --kernel: sonar "
                             "ionosphere heart); 'all' = every available one")
    parser.add_argument("--proportions", default=None,
                        help="training proportions, e.g. '0.1,0.2' (default 0.1..0.7; --quick: 0.1,0.3)")
    parser.add_argument("--adult-proportions", default="0.1", help="training proportions for Adult (default 0.1)")
    parser.add_argument("--partitions", type=int, default=None,
                        help=f"random partitions per cell (default 50 as in the paper; --quick: {QUICK_PARTITIONS})")
    parser.add_argument("--validation", type=float, default=0.2, help="validation fraction of the data (0.2)")
    parser.add_argument("--seed", type=int, default=0, help="base seed of the partitions")
    parser.add_argument("--delta", type=float, default=0.1, help="HP-MPM confidence parameter delta (0.1)")
    parser.add_argument("--kernel", action="store_true", help="Table 3: Gaussian kernel, width chosen on validation")
    parser.add_argument("--quick", action="store_true", help="few partitions, small grids, two small data sets")
    parser.add_argument("--backend", default=None, help="backend of the MPM/HP-MPM solves (default: certiprog chooses)")
    parser.add_argument("--solver", default=None, help="solver for the cvxpy backend")
    parser.add_argument("--data", default=None, help="data folder (default: $CERTIPROG_DATA or ../shared/data)")


def config_from_args(args) -> Config:
    """A validated `Config` from parsed arguments (``--quick`` fills what was not given)."""
    from certiprog.datasets import DATASETS_004

    kernel, quick = bool(args.kernel), bool(args.quick)
    if args.datasets is None or [d.lower() for d in args.datasets] == ["all"]:
        if args.datasets is None and quick:
            names = QUICK_DATASETS
        elif args.datasets is None and kernel:
            names = KERNEL_DATASETS
        else:
            names = available_datasets(args.data)
            if not names:
                from certiprog.datasets import data_root

                raise InputError(f"no paper-004 data file under {args.data or data_root()}; set CERTIPROG_DATA "
                                 "or --data to the shared data folder")
    else:
        names = tuple(d.lower() for d in args.datasets)
    grids = QUICK_GRIDS if quick else dict(nu=PAPER_NU, C=PAPER_C, lam=PAPER_LAMBDA, sigma=PAPER_SIGMA)
    cfg = Config(
        datasets=tuple(names),
        proportions=number_list(args.proportions) if args.proportions else (QUICK_PROPORTIONS if quick
                                                                        else PAPER_PROPORTIONS),
        adult_proportions=number_list(args.adult_proportions),
        partitions=args.partitions if args.partitions is not None else (QUICK_PARTITIONS if quick else 50),
        validation=args.validation, seed=args.seed, delta=args.delta, kernel=kernel, backend=args.backend,
        solver=args.solver, n_jobs=getattr(args, "jobs", 1), progress=False if getattr(args, "no_progress", False)
        else None, data_root=args.data, quick=quick,
        **grids,
    )
    validate_config(cfg, known=DATASETS_004)
    return cfg


def validate_config(cfg: Config, known=None) -> None:
    """InputError for anything a run cannot use (unknown data set, proportions outside (0, 1), ...)."""
    from certiprog.datasets import DATASETS_004, MISSING_004

    known = DATASETS_004 if known is None else known
    if not cfg.datasets:
        raise InputError("no data set to run: give --datasets (see certiprog.datasets.DATASETS_004)")
    for name in cfg.datasets:
        if name in MISSING_004:
            raise InputError(f"data set {name!r} is {MISSING_NOTE}; it is listed as missing in the table")
        if name not in known:
            raise InputError(f"unknown data set {name!r}; choose from {sorted(known)} or 'all'")
    if not 0 < cfg.validation < 1:
        raise InputError(f"--validation must be in (0, 1), got {cfg.validation}")
    for p in tuple(cfg.proportions) + tuple(cfg.adult_proportions):
        if not (0 < p < 1 and p + cfg.validation < 1):
            raise InputError(f"training proportion {p} must be in (0, 1) and leave a test part next to the "
                             f"validation fraction {cfg.validation}")
    if not cfg.proportions:
        raise InputError("--proportions is empty")
    if cfg.partitions < 1:
        raise InputError(f"--partitions must be >= 1, got {cfg.partitions}")
    if not 0 < cfg.delta < 1:
        raise InputError(f"--delta must be in (0, 1), got {cfg.delta}")
    if cfg.n_jobs == 0:
        raise InputError("--n-jobs must be nonzero (joblib: -1 = all cores)")
    from certiprog.solvers import available_backends

    if cfg.backend is not None and cfg.backend not in available_backends():
        raise InputError(f"backend {cfg.backend!r} is not available here; choose from {available_backends()}")
    for key in ("nu", "C", "lam", "sigma"):
        grid = np.asarray(getattr(cfg, key), float)
        if grid.size == 0 or not np.all(np.isfinite(grid) & (grid > 0)):
            raise InputError(f"the {key} grid must hold positive finite numbers, got {getattr(cfg, key)}")


def available_datasets(root=None) -> tuple:
    """The paper-004 data sets whose file is present under the data folder."""
    from certiprog.datasets import DATASETS_004, data_root

    base = Path(root) if root else data_root()
    return tuple(name for name, info in DATASETS_004.items() if (base / info.file).is_file())


def run(args) -> dict:
    """Entry point of ``certiprog reproduce hp-mpm`` (`certiprog.experiments.runner.reproduce`): run and write the
    files; ``{name: path}``, the table first. Bad input raises a CertiprogError (the CLI prints it, exits 2)."""
    import sys

    from certiprog.experiments.runner import reproduce

    return reproduce(sys.modules[__name__], args, "hp-mpm").paths


def default_out(cfg: Config) -> str:
    return "results/hp-mpm-kernel" if cfg.kernel else "results/hp-mpm"


# ----------------------------------------------------------------------------------------------------------------
# Tasks and aggregation (certiprog.experiments.runner)
# ----------------------------------------------------------------------------------------------------------------
def tasks(cfg: Config) -> list:
    """One `Task` per (data set, proportion, partition), in table order; InputError for a missing data file."""
    validate_config(cfg)
    present = set(available_datasets(cfg.data_root))
    for name in cfg.datasets:
        if name not in present:
            from certiprog.datasets import DATASETS_004, data_root

            root = cfg.data_root or data_root()
            raise InputError(f"data set {name!r}: {Path(root) / DATASETS_004[name].file} not found; set "
                             "CERTIPROG_DATA or --data to the shared data folder")
    keyed = {k: getattr(cfg, k) for k in TASK_FIELDS}
    out = []
    for name in cfg.datasets:
        for p in (cfg.adult_proportions if name == "adult" else cfg.proportions):
            out += [Task(f"{name} p={float(p):g} partition {k}", partition_task,
                         dict(keyed, dataset=name, proportion=float(p), partition=k), VERSION,
                         extra=dict(data_root=cfg.data_root)) for k in range(cfg.partitions)]
    return out


def partition_task(config: dict, data_root=None) -> dict:
    """A task: `run_task` on one partition, every parameter from ``config`` (`tasks`); the data set is read from
    ``data_root`` (not part of the task's key) once per worker."""
    c = dict(config)
    name, p, k = c.pop("dataset"), c.pop("proportion"), c.pop("partition")
    cfg = Config(datasets=(name,), data_root=data_root,
                 **{key: tuple(v) if isinstance(v, list) else v for key, v in c.items()})
    return run_task(*_dataset(name, data_root), name, p, k, cfg)


@functools.lru_cache(maxsize=4)
def _dataset(name: str, root) -> tuple:
    from certiprog.datasets import load_dataset

    X, y = load_dataset(name, root=root, **({"missing": "nan"} if name == "vote" else {}))
    X.setflags(write=False)  # shared by every task of the worker
    y.setflags(write=False)
    return X, y


def assemble(cfg: Config, records: list, meta: dict) -> dict:
    """``dict(config, meta, records)`` (what results.json holds) from the tasks' records."""
    records = sorted(records, key=lambda r: (cfg.datasets.index(r["dataset"]), r["proportion"], r["partition"]))
    return dict(config=asdict(cfg), meta=dict(meta, versions=_versions()), records=records)


def aggregate(cfg: Config, records: list, out, meta: dict) -> dict:
    """The runner's aggregation: `write_outputs` of the records; ``{name: path}``, the table first."""
    return write_outputs(assemble(cfg, records, meta), out)


def run_experiment(cfg: Config, store=None, executor: str = "loky", scheduler=None) -> dict:
    """Every task of ``cfg`` (``cfg.n_jobs`` workers; ``store``: a `ResultStore` to resume from, None: keep
    nothing); returns ``dict(config, meta, records)``."""
    report = run_tasks(tasks(cfg), store, executor, cfg.n_jobs, scheduler, progress=cfg.progress, desc="hp-mpm")
    meta = dict(wall_time_s=report.wall_time_s, n_tasks=len(report.results), n_computed=len(report.computed),
                n_reused=len(report.reused), executor=executor, jobs=cfg.n_jobs,
                python=platform.python_version(), machine=platform.machine())
    return assemble(cfg, report.results, meta)


def _versions() -> dict:
    import importlib.metadata as md

    out = {}
    for pkg in ("certiprog", "numpy", "scipy", "scikit-learn", "clarabel", "cvxpy"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            out[pkg] = None
    return out


def partition(y: np.ndarray, proportion: float, validation: float, seed) -> tuple:
    """Stratified random (train, validation, test) indices: round(p n), round(validation n), the rest."""
    from sklearn.model_selection import train_test_split

    n = len(y)
    n_train, n_val = int(round(proportion * n)), int(round(validation * n))
    if min(n_train, n_val, n - n_train - n_val) < 4:
        raise InputError(f"{n} rows cannot be split into {proportion} / {validation} / rest with >= 4 rows each")
    rng = np.random.default_rng(seed)
    idx = np.arange(n)
    train, rest = train_test_split(idx, train_size=n_train, stratify=y, random_state=int(rng.integers(2**31)))
    val, test = train_test_split(rest, train_size=n_val, stratify=y[rest], random_state=int(rng.integers(2**31)))
    return np.sort(train), np.sort(val), np.sort(test)


def task_seed(cfg: Config, name: str, proportion: float, k: int) -> list:
    """Seed of one partition: independent of the order and the worker the task runs in."""
    return [cfg.seed, zlib.crc32(name.encode()), int(round(proportion * 1000)), k]


def hp_mpm_uncertainty(R: float, m: int, delta: float, form: str = "eq8") -> float:
    """Eq. (8)'s A_j for a class of m points, before the nu scaling (`hp_mpm.uncertainty_terms`)."""
    from certiprog.formulations.hp_mpm_paper.hp_mpm import uncertainty_terms

    return uncertainty_terms(m, m, R, delta, 1.0, form)[0]


def nu_max(mean_gap: float, R: float, m1: int, m0: int, delta: float, form: str = "eq8") -> float:
    """Largest nu with a meaningful HP-MPM solution (`hp_mpm.nu_max`); ``mean_gap`` = ||x̂1 - x̂0|| (feature space)."""
    from certiprog.formulations.hp_mpm_paper.hp_mpm import nu_max as _nu_max

    return _nu_max(mean_gap, R, m1, m0, delta, form)


def _mean_gap(X1, X0, gamma=None) -> float:
    """||x̂1 - x̂0||, in the Gaussian feature space when ``gamma`` is given (via the Gram blocks)."""
    if gamma is None:
        return float(np.linalg.norm(X1.mean(axis=0) - X0.mean(axis=0)))
    from sklearn.metrics.pairwise import rbf_kernel

    sq = rbf_kernel(X1, X1, gamma=gamma).mean() + rbf_kernel(X0, X0, gamma=gamma).mean() \
        - 2 * rbf_kernel(X1, X0, gamma=gamma).mean()
    return float(np.sqrt(max(sq, 0.0)))


def _accuracy(y_true, y_pred) -> float:
    return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))


def best_threshold(scores: np.ndarray, y: np.ndarray) -> float:
    """The threshold t maximising the accuracy of ``sign(score - t)`` on (scores, y in {+1,-1}) (bHP-MPM, Sec. 6);
    candidates: midpoints between sorted scores and both ends. Vectorised: O(n log n)."""
    order = np.argsort(scores, kind="stable")
    s, pos = scores[order], (y[order] > 0)
    # predicting +1 for the points from index i on: errors = negatives at or above i + positives below i
    neg_above = np.concatenate([np.cumsum((~pos)[::-1])[::-1], [0]])
    pos_below = np.concatenate([[0], np.cumsum(pos)])
    errors = neg_above + pos_below
    cuts = np.concatenate([[s[0] - 1.0], 0.5 * (s[1:] + s[:-1]), [s[-1] + 1.0]])
    distinct = np.concatenate([[True], s[1:] > s[:-1], [True]])  # a cut between equal scores is not realisable
    errors = np.where(distinct, errors, np.iinfo(np.int64).max)
    return float(cuts[int(np.argmin(errors))])


# ----------------------------------------------------------------------------------------------------------------
# Baselines that scikit-learn does not have in this form
# ----------------------------------------------------------------------------------------------------------------
def _prior_aware_rule(z: np.ndarray, y: np.ndarray):
    """1-D LDA on projections z: returns f(z') >= 0 <=> predict +1 (shared variance, class priors)."""
    z1, z0 = z[y > 0], z[y < 0]
    m1, m0 = z1.mean(), z0.mean()
    var = (((z1 - m1) ** 2).sum() + ((z0 - m0) ** 2).sum()) / len(z)  # prior-weighted biased, as sklearn
    var = max(var, 1e-12 * max(m1 ** 2 + m0 ** 2, 1.0))
    log_prior = np.log(len(z1) / len(z0))
    return lambda t: (t - 0.5 * (m1 + m0)) * (m1 - m0) / var + log_prior


def kernel_fisher(K: np.ndarray, y: np.ndarray, lam: float):
    """Regularised kernel Fisher discriminant (Mika et al. 1999) from the training Gram matrix ``K``:
    ``gamma = (N + lam I)^{-1} (l1 - l0)``, N = sum_j K_j (I - 1/m_j) K_j^T; returns (gamma, rule) where
    ``rule(K_new @ gamma) >= 0`` predicts +1 (prior-aware bias, as sklearn's LDA)."""
    import scipy.linalg

    pos = y > 0
    l1, l0 = K[:, pos].mean(axis=1), K[:, ~pos].mean(axis=1)
    C1 = K[:, pos] - l1[:, None]
    C0 = K[:, ~pos] - l0[:, None]
    N = C1 @ C1.T + C0 @ C0.T
    gamma = scipy.linalg.solve(N + lam * np.eye(len(K)), l1 - l0, assume_a="pos")
    return gamma, _prior_aware_rule(K @ gamma, y)


# ----------------------------------------------------------------------------------------------------------------
# One (data set, proportion, partition) task
# ----------------------------------------------------------------------------------------------------------------
def run_task(X: np.ndarray, y: np.ndarray, name: str, proportion: float, k: int, cfg: Config) -> dict:
    """Fit and select every method on one random partition; returns the record stored in results.json."""
    from certiprog.datasets import standardize_fill_missing

    t0 = time.perf_counter()
    train, val, test = partition(y, proportion, cfg.validation, task_seed(cfg, name, proportion, k))
    Z = standardize_fill_missing(X, ref=X[train])
    parts = dict(train=(Z[train], y[train]), val=(Z[val], y[val]), test=(Z[test], y[test]))
    # R (paper Sec. 4: "estimated from the training sample"): Prop. 1 needs ||x|| <= R, so no smaller R is allowed;
    # a larger one only rescales nu (A_j is proportional to nu R^2). k(x, x) = 1 for the Gaussian kernel.
    R = 1.0 if cfg.kernel else float(np.linalg.norm(parts["train"][0], axis=1).max())
    rec = dict(dataset=name, proportion=proportion, partition=k, seed=task_seed(cfg, name, proportion, k),
               n_train=len(train), n_val=len(val), n_test=len(test), R=R, kernel=cfg.kernel)
    widths = cfg.sigma if cfg.kernel else (None,)
    # the kernel factorisation and the moments depend on (training data, width) only: one per width, shared by
    # the MPM and every nu (CoordinateCache)
    caches = {s: CoordinateCache() for s in widths}
    # a width grid's fits skip the certificate; the chosen one is refitted (from the cache) with it
    one = len(widths) == 1
    rec["MPM"] = _select([_fit_mpm(parts, s, cfg, caches[s], "full" if one else False) for s in widths])
    if not one and rec["MPM"].get("error") is None:
        sigma = rec["MPM"]["params"]["sigma"]
        chosen = _fit_mpm(parts, sigma, cfg, caches[sigma], "full")
        rec["MPM"].update({k: chosen.get(k) for k in ("certificate", "certificate_interval", "certified_kappa")})
    hp = _fit_hp_mpm(parts, widths, R, cfg, caches)
    rec["HP-MPM"] = _select([c for c in hp if c["meaningful"]] or [c for c in hp if c.get("error")])
    rec["HP-MPM"].update(_hp_summary(hp, rec["HP-MPM"]))
    if rec["HP-MPM"].get("error") is None:
        rec["HP-MPM"].update(_certify_chosen(parts, rec["HP-MPM"]["params"], R, cfg, caches))
    rec["bHP-MPM"] = _select([c["biased"] for c in hp if c["meaningful"]])
    rec["SVM"] = _select([_fit_svm(parts, C, s) for s in widths for C in cfg.C])
    rec["FDA"] = _select([_fit_fda(parts, lam, s) for s in widths for lam in cfg.lam])
    rec["time_s"] = time.perf_counter() - t0
    return rec


def _select(candidates: list) -> dict:
    """The candidate with the best validation accuracy (the first one on ties), without its bHP-MPM twin."""
    ok = [c for c in candidates if c.get("error") is None]
    if not ok:
        errors = sorted({c["error"] for c in candidates if c.get("error")})
        return dict(n_candidates=0, test_acc=None, val_acc=None, params=None,
                    error="; ".join(errors) or "no candidate")
    best = max(ok, key=lambda c: c["val_acc"])  # max() keeps the first maximum
    return dict({k: v for k, v in best.items() if k not in ("biased", "meaningful")}, n_candidates=len(ok))


def _scores(parts, predict) -> dict:
    return dict(val_acc=_accuracy(parts["val"][1], predict(parts["val"][0])),
                test_acc=_accuracy(parts["test"][1], predict(parts["test"][0])))


def _scores_of(parts, predicted) -> dict:
    """`_scores` from ``predicted(part)``, the predictions on the part named 'val' or 'test'."""
    return dict(val_acc=_accuracy(parts["val"][1], predicted("val")),
                test_acc=_accuracy(parts["test"][1], predicted("test")))


def _kernel_args(sigma):
    return {} if sigma is None else dict(kernel="rbf", gamma=1.0 / sigma)


def _quiet_fit(est, X, y, cache=None):
    """fit without the estimators' status warnings (the status is recorded in the results instead); ``cache``: the
    `CoordinateCache` of this training set and width."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        return est.fit(X, y, cache=cache)


def _fit_mpm(parts, sigma, cfg, cache=None, certify="full") -> dict:
    """The MPM at one width; ``certify`` False for the points of a width grid (`run_task` certifies the chosen
    one), else its certificate's verdict and rigorous interval around kappa*^{-1} are recorded."""
    from certiprog.estimators import MPMClassifier

    X, y = parts["train"]
    t = time.perf_counter()
    try:
        est = _quiet_fit(MPMClassifier(backend=cfg.backend, solver=cfg.solver, certify=certify,
                                       **_kernel_args(sigma)), X, y, cache)
    except CertiprogError as exc:
        return dict(error=f"{type(exc).__name__}: {exc}", params=dict(sigma=sigma))
    out = _scores(parts, est.predict)
    out.update(params=dict(sigma=sigma), kappa=float(est.kappa_), bound=float(est.worst_case_error_),
               status=str(est.status_), fit_s=time.perf_counter() - t)
    if certify:
        cert = est.solution_.get("certificate") or {}
        interval = est.solution_.get("interval")
        out.update(certificate=cert.get("verdict"), certificate_interval=interval, certified_kappa=out["kappa"])
    return out


def _fit_hp_mpm(parts, widths, R, cfg, caches=None) -> list:
    """HP-MPM for every (sigma, nu) of the grids; when no pair gives a meaningful solution (kappa* > 0), every
    width is refitted on nu_max(width) times the paper's fractions below 1 (marked grid="extended"). The grid's
    fits skip the certificate of their last SOCP (their kappa bracket comes from the bisection's attained root and
    weak-duality bound either way); `_certify_chosen` certifies the chosen one in full. ``caches``: a
    `CoordinateCache` per width."""
    caches = caches if caches is not None else {s: None for s in widths}
    X, y = parts["train"]
    m1, m0 = int((y > 0).sum()), int((y < 0).sum())
    runs = []
    for sigma in widths:
        gap = _mean_gap(X[y > 0], X[y < 0], None if sigma is None else 1.0 / sigma)
        numax = nu_max(gap, R, m1, m0, cfg.delta)
        runs += [dict(_fit_one_hp(parts, nu, sigma, R, cfg, "paper", caches[sigma]), nu_max=numax)
                 for nu in cfg.nu]
    if not any(r["meaningful"] for r in runs):
        fractions = [f for f in cfg.nu if f < 1.0] or [0.5]
        for sigma, numax in {r["params"]["sigma"]: r["nu_max"] for r in runs}.items():
            runs += [dict(_fit_one_hp(parts, f * numax, sigma, R, cfg, "extended", caches[sigma]), nu_max=numax)
                     for f in fractions]
    return runs


def _hp_estimator(nu, sigma, R, cfg, certify):
    from certiprog.estimators import HPMPMClassifier

    return HPMPMClassifier(delta=cfg.delta, nu=float(nu), R=R, backend=cfg.backend, solver=cfg.solver,
                           certify=certify, **_kernel_args(sigma))


def _certify_chosen(parts, params, R, cfg, caches) -> dict:
    """The chosen HP-MPM refitted with the full certificate of its last SOCP (`HPMPMClassifier` certify='full'):
    the verdict, the rigorous interval around that SOCP's optimum (ball arithmetic; at kappa* the optimum g(kappa*)
    is 0 and the interval a few 1e-13 wide) and the bisection's kappa bracket. The refit is the grid's fit (same data, nu, width, solver): its kappa is the
    chosen one (``certified_kappa``, recorded to show it)."""
    X, y = parts["train"]
    est = _quiet_fit(_hp_estimator(params["nu"], params["sigma"], R, cfg, "full"), X, y, caches[params["sigma"]])
    cert = est.solution_.get("certificate") or {}
    interval = cert.get("interval")
    return dict(certificate=cert.get("verdict"), certificate_interval=None if interval is None else
                [float(v) for v in interval], kappa_bracket=[float(k) for k in est.kappa_bracket_],
                certified_kappa=float(est.kappa_))


def _fit_one_hp(parts, nu, sigma, R, cfg, grid, cache=None) -> dict:
    X, y = parts["train"]
    params = dict(nu=float(nu), sigma=sigma, grid=grid)
    t = time.perf_counter()
    try:
        est = _quiet_fit(_hp_estimator(nu, sigma, R, cfg, False), X, y, cache)
    except CertiprogError as exc:
        return dict(error=f"{type(exc).__name__}: {exc}", params=params, meaningful=False)
    meaningful = est.status_ in ("optimal", "inaccurate") and float(est.kappa_) > 0
    out = dict(params=params, kappa=float(est.kappa_), bound=float(est.worst_case_error_), status=str(est.status_),
               meaningful=meaningful, fit_s=time.perf_counter() - t)
    if not meaningful:
        return out
    # the decision values once per part, for both rules (est.predict is classes_[score > 0])
    values = {part: est.decision_function(Z) for part, (Z, _) in parts.items()}
    pos, neg = est.classes_[1], est.classes_[0]
    out.update(_scores_of(parts, lambda part: np.where(values[part] > 0, pos, neg)))
    threshold = best_threshold(values["train"], np.where(y == pos, 1, -1))
    out["biased"] = dict(params=dict(params, threshold=threshold),
                         **_scores_of(parts, lambda part: np.where(values[part] >= threshold, pos, neg)))
    return out


def _hp_summary(runs: list, chosen: dict) -> dict:
    """What the table reports about the nu grid: extended or not, and the bound at nu = 1 (the statistically valid
    one, 1 where kappa* = 0) for the chosen kernel width."""
    sigma = (chosen.get("params") or {}).get("sigma")
    at_one = [r for r in runs if r["params"]["grid"] == "paper" and r["params"]["nu"] == 1.0
              and r["params"]["sigma"] == sigma]
    return dict(grid_extended=any(r["params"]["grid"] == "extended" for r in runs),
                n_meaningful_paper_grid=sum(r["meaningful"] for r in runs if r["params"]["grid"] == "paper"),
                bound_nu1=(at_one[0].get("bound", 1.0) if at_one[0]["meaningful"] else 1.0) if at_one else None,
                nu_max=next((r["nu_max"] for r in runs if r["params"]["sigma"] == sigma), None))


def svm_estimator(C, sigma):
    """The SVM baseline at C (and width sigma): LinearSVC, or SVC with the Gaussian kernel. liblinear's coordinate
    descent visits the points in a random order: a fixed seed (`SVM_SEED`) makes its result the same in every run
    and worker (random_state=None drew it from numpy's global generator)."""
    from sklearn.svm import SVC, LinearSVC

    return LinearSVC(C=C, max_iter=20000, random_state=SVM_SEED) if sigma is None else \
        SVC(C=C, kernel="rbf", gamma=1.0 / sigma)


def _fit_svm(parts, C, sigma) -> dict:
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    X, y = parts["train"]
    t = time.perf_counter()
    est = svm_estimator(C, sigma)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        est.fit(X, y)
    out = _scores(parts, est.predict)
    out.update(params=dict(C=C, sigma=sigma), converged=not any(issubclass(w.category, ConvergenceWarning)
                                                                for w in caught), fit_s=time.perf_counter() - t)
    return out


def fda_direction_shrinkage(lam: float) -> float:
    """sklearn LDA shrinkage s equivalent to the ridge lam of the paper's grid: s = lam / (1 + lam)."""
    return lam / (1.0 + lam)


def _fit_fda(parts, lam, sigma) -> dict:
    X, y = parts["train"]
    t = time.perf_counter()
    if sigma is None:
        from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

        est = LinearDiscriminantAnalysis(solver="lsqr", shrinkage=fda_direction_shrinkage(lam)).fit(X, y)
        predict = est.predict
    else:
        from sklearn.metrics.pairwise import rbf_kernel

        gamma_k = 1.0 / sigma
        coef, rule = kernel_fisher(rbf_kernel(X, X, gamma=gamma_k), y, lam)
        predict = lambda Z: np.where(rule(rbf_kernel(Z, X, gamma=gamma_k) @ coef) >= 0, 1.0, -1.0)  # noqa: E731
    out = _scores(parts, predict)
    out.update(params=dict(lam=lam, sigma=sigma), fit_s=time.perf_counter() - t)
    return out


# ----------------------------------------------------------------------------------------------------------------
# Summary, table, CSV, plot, JSON
# ----------------------------------------------------------------------------------------------------------------
def summarise(result: dict) -> list[dict]:
    """One row per (data set, proportion, method): mean/std test accuracy (percent), the paper's number, the
    worst-case bounds next to the test error, and how often the nu grid had to be extended."""
    from certiprog.formulations.hp_mpm_paper.tables import paper_accuracy

    kernel = bool(result["config"]["kernel"])
    groups: dict = {}
    for r in result["records"]:
        groups.setdefault((r["dataset"], r["proportion"]), []).append(r)
    rows = []
    for (name, p), recs in groups.items():
        for method in METHODS:
            acc = np.array([np.nan if r[method]["test_acc"] is None else r[method]["test_acc"] for r in recs])
            ok = acc[np.isfinite(acc)] * 100
            row = dict(dataset=name, proportion=p, method=method, kernel=kernel, n_partitions=len(recs),
                       n_failed=int(np.sum(~np.isfinite(acc))),
                       mean=float(ok.mean()) if ok.size else None,
                       std=float(ok.std(ddof=1)) if ok.size > 1 else (0.0 if ok.size else None),
                       paper=paper_accuracy(name, method, p, kernel=kernel))
            row["diff"] = None if row["mean"] is None or row["paper"] is None else row["mean"] - row["paper"]
            if method in ("MPM", "HP-MPM"):
                bounds = [r[method].get("bound") for r in recs if r[method].get("bound") is not None
                          and r[method]["test_acc"] is not None]
                errs = [1 - r[method]["test_acc"] for r in recs if r[method]["test_acc"] is not None
                        and r[method].get("bound") is not None]
                row["bound_mean"] = float(np.mean(bounds)) if bounds else None
                row["test_error_mean"] = float(np.mean(errs)) if errs else None
                row["bound_holds"] = int(np.sum(np.array(bounds) >= np.array(errs))) if bounds else None
            if method == "HP-MPM":
                row["grid_extended"] = int(sum(bool(r[method].get("grid_extended")) for r in recs))
                nu1 = [r[method]["bound_nu1"] for r in recs if r[method].get("bound_nu1") is not None]
                row["bound_nu1_mean"] = float(np.mean(nu1)) if nu1 else None
                nus = [r[method]["params"]["nu"] for r in recs if r[method].get("params")]
                row["nu_median"] = float(np.median(nus)) if nus else None
            rows.append(row)
    return rows


CSV_FIELDS = ("dataset", "kernel", "proportion", "method", "n_partitions", "n_failed", "mean", "std", "paper", "diff",
              "bound_mean", "test_error_mean", "bound_holds", "bound_nu1_mean", "grid_extended", "nu_median", "status")


def _fmt(v, spec=".2f"):
    return "" if v is None or (isinstance(v, float) and not np.isfinite(v)) else format(v, spec)


def format_table(result: dict, rows: list[dict]) -> str:
    """The Markdown report: one table per data set (methods x proportions, 'ours ± std (paper)'), the HP-MPM and
    MPM worst-case bounds beside their test errors, the nu-grid notes and the missing data sets."""
    from certiprog.datasets import DATASETS_004, MISSING_004

    cfg, meta = result["config"], result["meta"]
    table_no = 3 if cfg["kernel"] else 2
    radius = "1" if cfg["kernel"] else "the largest training norm"
    out = [f"# Paper 004, Table {table_no} ({'Gaussian kernel' if cfg['kernel'] else 'linear'}): our runs beside "
           "the paper's", "",
           f"Mean test accuracy (%) ± std over {cfg['partitions']} random partition(s) per cell, paper's value in "
           f"parentheses (50 partitions, no std published). Validation fraction {cfg['validation']}, "
           f"delta = {cfg['delta']}, R = {radius}, backend {cfg['backend'] or 'chosen by certiprog'}, "
           f"seed {cfg['seed']}"
           f"{', QUICK grids' if cfg['quick'] else ''}. Wall time {meta['wall_time_s']:.1f} s for "
           f"{meta['n_tasks']} tasks ({_run_note(cfg, meta)}).", ""]
    by_set: dict = {}
    for r in rows:
        by_set.setdefault(r["dataset"], []).append(r)
    for name, rs in by_set.items():
        info = DATASETS_004[name]
        props = sorted({r["proportion"] for r in rs})
        cell = {(r["method"], r["proportion"]): r for r in rs}
        out += [f"## {info.paper_name}" + (f" ({info.note})" if info.note else ""), "",
                "| method | " + " | ".join(f"{p:g}" for p in props) + " |",
                "|---|" + "---|" * len(props)]
        for m in METHODS:
            vals = []
            for p in props:
                r = cell[(m, p)]
                txt = "failed" if r["mean"] is None else f"{r['mean']:.2f} ± {r['std']:.2f}"
                if r["n_failed"] and r["mean"] is not None:
                    txt += f" [{r['n_failed']} failed]"
                vals.append(txt + (f" ({r['paper']:.2f})" if r["paper"] is not None else ""))
            out.append(f"| {m} | " + " | ".join(vals) + " |")
        for m, label in (("HP-MPM", "HP-MPM bound 1-α* / test error"), ("MPM", "MPM bound 1-α* / test error")):
            out.append(f"| {label} | " + " | ".join(
                f"{_fmt(cell[(m, p)]['bound_mean'], '.3f')} / {_fmt(cell[(m, p)]['test_error_mean'], '.3f')}"
                for p in props) + " |")
        out.append("| HP-MPM bound at ν = 1 (the valid one) | " + " | ".join(
            _fmt(cell[("HP-MPM", p)]["bound_nu1_mean"], ".3f") for p in props) + " |")
        out.append("| ν grid (median ν chosen) | " + " | ".join(
            ("extended " + f"{cell[('HP-MPM', p)]['grid_extended']}/{cell[('HP-MPM', p)]['n_partitions']}"
             if cell[("HP-MPM", p)]["grid_extended"] else "paper")
            + f" ({_fmt(cell[('HP-MPM', p)]['nu_median'], '.2g')})" for p in props) + " |")
        out.append("")
    out += ["## Not run", ""]
    for key, label in MISSING_004.items():
        out.append(f"- {label}: {MISSING_NOTE}")
    out += ["", "Notes: 'extended k/n' = in k of n partitions no ν of the paper's grid gave κ* > 0, and ν was "
            "chosen from ν_max × the paper's fractions instead. "
            "Adult is compared with Table 5's m = 5000 row (linear only). bHP-MPM has paper numbers only there "
            "and in Table 4 (German, kernel). Bounds are means over partitions of 1/(1+κ*²) at the chosen "
            "parameter (HP-MPM with ν < 1 is no longer a valid high-probability bound, paper Sec. 6).", ""]
    return "\n".join(out)


def _run_note(cfg: dict, meta: dict) -> str:
    note = f"{meta.get('executor', 'loky')}, n_jobs = {meta.get('jobs', cfg['n_jobs'])}"
    if meta.get("n_reused"):
        note += f"; {meta['n_reused']} reused from {meta.get('store', 'the store')}, " \
                f"{meta.get('task_seconds', 0.0):.1f} s of task time in all"
    return note


def _json_safe(obj):
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if isinstance(obj, (np.floating, float)):
        v = float(obj)
        return v if np.isfinite(v) else ("inf" if v > 0 else "-inf" if v < 0 else None)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    return obj


def write_outputs(result: dict, out) -> dict:
    """table.md, table.csv, accuracy_vs_proportion.png and results.json under ``out``; returns their paths."""
    import csv

    from certiprog.datasets import MISSING_004
    from certiprog.formulations.hp_mpm_paper.tables import TABLE2, TABLE3

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rows = summarise(result)
    paths = {name: out / name for name in ("table.md", "table.csv", "accuracy_vs_proportion.png", "results.json")}
    paths["table.md"].write_text(format_table(result, rows))
    paper = TABLE3 if result["config"]["kernel"] else TABLE2
    with open(paths["table.csv"], "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=CSV_FIELDS, extrasaction="ignore")
        writer.writeheader()
        for r in rows:
            writer.writerow({k: ("" if v is None else v) for k, v in dict(r, status="ok").items()})
        for key in MISSING_004:  # the paper's numbers of the sets we cannot run, ours left empty
            for method, values in paper.get(key, {}).items():
                for p, v in zip(PAPER_PROPORTIONS, values):
                    writer.writerow(dict(dataset=key, kernel=result["config"]["kernel"], proportion=p,
                                         method=method, paper=v, status=MISSING_NOTE))
    try:
        import matplotlib.pyplot as plt

        from certiprog.formulations.hp_mpm_paper.plots import plot_accuracy_vs_proportion
    except ImportError as exc:  # the tables and the JSON do not need matplotlib
        log.warning("no accuracy plot: %s (pip install certiprog[plots])", exc)
        del paths["accuracy_vs_proportion.png"]
    else:
        fig = plot_accuracy_vs_proportion(rows, title="Table 3 (Gaussian kernel)" if result["config"]["kernel"]
                                          else "Table 2 (linear)")
        fig.savefig(paths["accuracy_vs_proportion.png"], dpi=110)
        plt.close(fig)
    paths["results.json"].write_text(json.dumps(_json_safe(result), indent=1))
    return paths


def load_results(path) -> dict:
    """A results.json written by `write_outputs` (config, meta, records), checked for its three parts."""
    data = json.loads(Path(path).read_text())
    if not isinstance(data, dict) or not {"config", "meta", "records"} <= set(data):
        raise InputError(f"{path} is not a certiprog hp-mpm results file (needs config, meta, records)")
    return data
