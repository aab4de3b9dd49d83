"""`certiprog reproduce error-clumping`: paper 003's Table 1, Fig. 1 and Fig. 2 on MNIST (Sec. 5).

Data (paper Sec. 5): the 70,000 MNIST digits shuffled (seeded) and split into two halves, 35,000 training and
35,000 test points (`certiprog.datasets.mnist_binary`); features the pixels / 255 plus a constant 1 (no bias);
labels +1 for one group of five digits, -1 for the other; the digit itself is hidden from the learner.
``--n-train`` / ``--n-test`` keep the first points of each half (``--quick``: 3,000 / 3,000), and the tables say so.

Parameters the paper does not give, chosen by a stated rule (printed in the report):

* ``rho``: the radius whose neighbourhoods hold about ``--neighbourhood`` (1 %) of the training points,
  `graph.rho_for_mean_degree` (the 1 % quantile of the distances from 500 seeded training rows to all of them,
  on the pixels; the constant feature does not change distances); the graph's exact mean degree is reported;
* ``lam``: by validation at eta = 0 (the squared-hinge SVM, whose fit needs no graph): the last ``--validation``
  (20 %) of the training part is held out, eq. (1) is fitted on the rest for every lam of ``--lam-grid`` (1e-4,
  ..., 1) and the lam with the fewest validation errors (ties: the first in the grid) is used for every eta of
  that split, so Table 1's rows differ by eta alone. ``--lam`` fixes it instead. Each split (Table 1's and Fig. 2's)
  is validated on its own training part.

Table 1: for each eta of ``--etas`` (0, 0.3, 0.5) a task builds the rho-graph (`graph.radius_graph`, exact; a worker
keeps its last graph, so its next eta > 0 task, or the Fig. 2 task of the same split and size, reuses it), fits
eq. (1) with the structured certified solver (`learner.fit_error_clumping`, solver 'auto') on the whole training
part and reports the test error per digit, the certificate (rigorous interval, verdict) and the graph and solve
times. Fig. 1 is drawn from the same fits: the training 0's and 1's at (<w_0, x>, <w_0.5, x>).

Fig. 2: for 0-4 vs 5-9 and ``--splits`` - 1 other random (seeded) splits of the digits into two groups of five,
a task (one per split: the data, rho, lam and the graph serve both etas) fits, for eta = 0 and eta = ``--hp-eta``
(0.5), `HolePunchingClassifier` (``--n-holes`` rounds, the split's rho and lam) on ``--fig2-train`` training points
and records the test error after every round (``staged_predict``) on ``--fig2-test`` test points.

Runs on `certiprog.experiments.runner`: every task is independent (loky / dask / ray; ``--shard`` / ``--merge``)
and its result is kept in ``OUT/tasks`` (a rerun resumes). Outputs in ``--out``: ``table.md`` (report),
``table.csv`` (ours beside the paper's, per eta and digit), ``fig1.png``, ``fig2.png``, ``fig2.csv`` and
``results.json`` (configuration, meta, every task's scalars; no pickle).
"""
from __future__ import annotations

import functools
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from certiprog.errors import InputError
from certiprog.experiments.plotting import pyplot
from certiprog.experiments.runner import Task, number_list

from .tables import DIGITS, EXTRACTION_NOTES, TABLE1, check_text_statements, paper_error, paper_overall

VERSION = "4"  # of the task results: bump when a change to the code changes what a task returns
HALF = 35_000  # the paper's training (and test) size
PAPER_ETAS = (0.0, 0.3, 0.5)
LAM_GRID = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)
QUICK = dict(n_train=3000, n_test=3000, fig2_train=3000, fig2_test=3000, n_holes=8)
FIRST_SPLIT = (5, 6, 7, 8, 9)
_SPLIT_SEED = 3  # mixed with --seed: the random splits of the digits


@dataclass
class Config:
    """Everything that defines a run (stored in results.json)."""

    n_train: int = HALF
    n_test: int = HALF
    seed: int = 0
    etas: tuple = PAPER_ETAS
    neighbourhood: float = 0.01
    lam: float | None = None  # None: chosen by validation (module docstring)
    lam_grid: tuple = LAM_GRID
    validation: float = 0.2
    fig2: bool = True
    splits: int = 5
    n_holes: int = 20
    hp_eta: float = 0.5
    fig2_train: int = HALF
    fig2_test: int = HALF
    tol: float = 1e-6
    quick: bool = False
    data_root: str | None = None


# ----------------------------------------------------------------------------------------------------------------
# Command line
# ----------------------------------------------------------------------------------------------------------------


def add_arguments(parser) -> None:
    """The options of ``certiprog reproduce error-clumping``."""
    q = QUICK
    parser.add_argument("--quick", action="store_true",
                        help=f"a subsample: {q['n_train']} training / {q['n_test']} test points, Fig. 2 on "
                             f"{q['fig2_train']} / {q['fig2_test']} with {q['n_holes']} holes")
    parser.add_argument("--n-train", type=int, default=None, help=f"training points (default {HALF}, the paper's)")
    parser.add_argument("--n-test", type=int, default=None, help=f"test points (default {HALF}, the paper's)")
    parser.add_argument("--etas", default=None, help="Table 1's eta values (default 0,0.3,0.5)")
    parser.add_argument("--neighbourhood", type=float, default=0.01,
                        help="rho: the radius of neighbourhoods holding about this fraction of the training points "
                             "(default 0.01)")
    parser.add_argument("--lam", type=float, default=None, help="fix lambda (default: validation on --lam-grid)")
    parser.add_argument("--lam-grid", default=None, help="lambda values validated at eta = 0 (default 1e-4,1e-3,1e-2,1e-1,1)")
    parser.add_argument("--validation", type=float, default=0.2, help="held-out fraction of the training part (0.2)")
    parser.add_argument("--no-fig2", action="store_true", help="skip Fig. 2 (hole punching)")
    parser.add_argument("--splits", type=int, default=5, help="Fig. 2: 0-4 vs 5-9 and SPLITS-1 random splits (5)")
    parser.add_argument("--n-holes", type=int, default=None, help="Fig. 2: hole-punching rounds (20; --quick: 8)")
    parser.add_argument("--hp-eta", type=float, default=0.5, help="Fig. 2: eta of the clumping runs (0.5)")
    parser.add_argument("--fig2-train", type=int, default=None, help="Fig. 2: training points (default --n-train)")
    parser.add_argument("--fig2-test", type=int, default=None, help="Fig. 2: test points (default --n-test)")
    parser.add_argument("--tol", type=float, default=1e-6, help="relative duality gap to certify (1e-6)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the train/test shuffle and of the splits")
    parser.add_argument("--data", default=None, help="data folder (default: $CERTIPROG_DATA or ../shared/data)")


def config_from_args(args) -> Config:
    """A validated `Config` from parsed arguments (``--quick`` fills what was not given)."""
    quick = bool(getattr(args, "quick", False))
    q = QUICK if quick else {}
    n_train = args.n_train if args.n_train is not None else q.get("n_train", HALF)
    n_test = args.n_test if args.n_test is not None else q.get("n_test", HALF)
    cfg = Config(
        n_train=n_train, n_test=n_test, seed=args.seed,
        etas=number_list(args.etas) if args.etas is not None else PAPER_ETAS,
        neighbourhood=args.neighbourhood, lam=args.lam,
        lam_grid=number_list(args.lam_grid) if args.lam_grid is not None else LAM_GRID,
        validation=args.validation, fig2=not args.no_fig2, splits=args.splits,
        n_holes=args.n_holes if args.n_holes is not None else q.get("n_holes", 20), hp_eta=args.hp_eta,
        fig2_train=args.fig2_train if args.fig2_train is not None else q.get("fig2_train", n_train),
        fig2_test=args.fig2_test if args.fig2_test is not None else q.get("fig2_test", n_test),
        tol=args.tol, quick=quick, data_root=args.data)
    validate_config(cfg)
    return cfg


def _int(v, name, low, high):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not low <= v <= high:
        raise InputError(f"--{name} must be an integer in [{low}, {high}], got {v!r}")


def _in(v, name, low, high, low_open=False):
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise InputError(f"--{name} must be a number, got {v!r}") from None
    if not np.isfinite(x) or x < low or x > high or (low_open and x == low):
        raise InputError(f"--{name} must be in {'(' if low_open else '['}{low}, {high}], got {v!r}")


def validate_config(cfg: Config) -> None:
    """InputError for anything a run cannot use (sizes, eta outside [0, 1], nonpositive lam, missing data)."""
    _int(cfg.n_train, "n-train", 10, HALF)
    _int(cfg.n_test, "n-test", 1, HALF)
    _int(cfg.fig2_train, "fig2-train", 10, HALF)
    _int(cfg.fig2_test, "fig2-test", 1, HALF)
    _int(cfg.splits, "splits", 1, 50)
    _int(cfg.n_holes, "n-holes", 0, 10_000)
    _int(cfg.seed, "seed", 0, 2 ** 32 - 1)
    if not cfg.etas:
        raise InputError("--etas is empty")
    if len(set(cfg.etas)) != len(cfg.etas):
        raise InputError(f"--etas repeats a value: {cfg.etas}")
    for eta in cfg.etas:
        _in(eta, "etas", 0.0, 1.0)
    _in(cfg.hp_eta, "hp-eta", 0.0, 1.0, low_open=True)
    _in(cfg.neighbourhood, "neighbourhood", 0.0, 1.0, low_open=True)
    _in(cfg.validation, "validation", 0.0, 0.5, low_open=True)
    _in(cfg.tol, "tol", 0.0, 1.0, low_open=True)
    if cfg.lam is not None:
        _in(cfg.lam, "lam", 0.0, 1e12, low_open=True)
    if not cfg.lam_grid:
        raise InputError("--lam-grid is empty")
    for lam in cfg.lam_grid:
        _in(lam, "lam-grid", 0.0, 1e12, low_open=True)
    for n, name in ((cfg.n_train, "n-train"), (cfg.fig2_train, "fig2-train")):
        if int(round(n * cfg.validation)) < 1 or n - int(round(n * cfg.validation)) < 2:
            raise InputError(f"--{name} {n} with --validation {cfg.validation} leaves no validation or fitting part")
    from certiprog.datasets.loaders import data_path
    from certiprog.datasets.mnist import MNIST_FILES

    for files in MNIST_FILES.values():
        for f in files:
            data_path(f"mnist/{f}", cfg.data_root)  # InputError naming the missing file and CERTIPROG_DATA


def run(args) -> dict:
    """``certiprog reproduce error-clumping`` through the shared runner; ``{name: path}``, the report first."""
    import sys

    from certiprog.experiments.runner import reproduce

    return reproduce(sys.modules[__name__], args, "error-clumping").paths


def default_out(cfg: Config) -> str:
    return "results/error-clumping-quick" if cfg.quick else "results/error-clumping"


# ----------------------------------------------------------------------------------------------------------------
# Splits of the digits and the data
# ----------------------------------------------------------------------------------------------------------------
def digit_splits(n: int, seed: int = 0) -> list[tuple]:
    """The positive groups of Fig. 2: 5-9 (the paper's 0-4 vs 5-9) and ``n - 1`` distinct random groups of five
    digits (seeded), each written as the group without the digit 0 (so a split and its mirror are one split)."""
    out = [FIRST_SPLIT]
    rng = np.random.default_rng([int(seed), _SPLIT_SEED])
    while len(out) < n:
        group = tuple(sorted(int(d) for d in rng.permutation(10)[:5]))
        if 0 in group:
            group = tuple(d for d in DIGITS if d not in group)
        if group not in out:
            out.append(group)
    return out


def split_label(positive) -> str:
    neg = [d for d in DIGITS if d not in positive]
    if tuple(positive) == FIRST_SPLIT:
        return "0-4 vs 5-9"
    return "".join(map(str, neg)) + " vs " + "".join(map(str, positive))


@functools.lru_cache(maxsize=2)
def _data(positive: tuple, seed: int, n_train: int, n_test: int, root):
    """The task's data (`mnist_binary`), the test half cut to ``n_test`` points; arrays read-only (shared)."""
    from certiprog.datasets.mnist import mnist_binary

    d = mnist_binary(positive=positive, seed=seed, n_train=n_train, root=root)
    out = dict(X=d.X_train, y=d.y_train, digit=d.digit_train, Xt=np.ascontiguousarray(d.X_test[:n_test]),
               yt=d.y_test[:n_test].copy(), digit_t=d.digit_test[:n_test].copy())
    for a in out.values():
        a.setflags(write=False)
    return out


def _rho(X, fraction: float) -> float:
    """The rho rule (module docstring): neighbourhoods of about ``fraction`` of the points."""
    from .graph import rho_for_mean_degree

    return rho_for_mean_degree(X[:, :-1], fraction)


@functools.lru_cache(maxsize=1)
def _graph(positive: tuple, seed: int, n_train: int, n_test: int, root, rho: float) -> tuple:
    """The split's rho-graph on the pixels (`graph.radius_graph`, exact: the constant feature does not change
    distances) and the seconds it took, kept for this worker's next task: Table 1's eta > 0 tasks share it, and a
    Fig. 2 split's two tasks (hole punching needs it at eta = 0 too)."""
    from .graph import radius_graph

    t0 = time.perf_counter()
    A = radius_graph(_data(positive, seed, n_train, n_test, root)["X"][:, :-1], rho)
    return A, time.perf_counter() - t0


def _cached_graph(positive: tuple, config: dict, data_root, rho: float) -> tuple:
    """(graph, seconds it took to build, whether an earlier task of this worker built it)."""
    hits = _graph.cache_info().hits
    A, seconds = _graph(positive, config["seed"], config["n_train"], config["n_test"], data_root, rho)
    return A, seconds, _graph.cache_info().hits > hits


@functools.lru_cache(maxsize=8)
def choose_lam(positive: tuple, seed: int, n_train: int, n_test: int, root, lam_grid: tuple, validation: float,
               tol: float, lam=None) -> dict:
    """The lam rule (module docstring): eq. (1) at eta = 0 fitted on the first (1 - validation) of the training
    part for every lam of the grid, validation errors on the rest; ``lam`` given: used as is. Returns dict(lam,
    grid, validation_error (per lam, or None), n_fit, n_validation, rule)."""
    import scipy.sparse as sp

    from .learner import fit_error_clumping

    if lam is not None:
        return dict(lam=float(lam), grid=[float(lam)], validation_error=None, n_fit=0, n_validation=0,
                    rule="given (--lam)")
    d = _data(positive, seed, n_train, n_test, root)  # the task's (cached) data: its training part only
    m = d["X"].shape[0]
    n_val = int(round(m * validation))
    Xf, yf, Xv, yv = d["X"][:m - n_val], d["y"][:m - n_val], d["X"][m - n_val:], d["y"][m - n_val:]
    empty = sp.csr_matrix((Xf.shape[0], Xf.shape[0]))  # eta = 0: Theta = I, the graph plays no part
    errors = []
    for lam_k in lam_grid:
        fit = fit_error_clumping(Xf, yf, 1.0, 0.0, float(lam_k), "auto", graph=empty, tol=tol)
        errors.append(float(np.mean(np.where(Xv @ fit.w > 0, 1.0, -1.0) != yv)))
    best = int(np.argmin(errors))  # ties: the first in the grid
    return dict(lam=float(lam_grid[best]), grid=[float(v) for v in lam_grid], validation_error=errors,
                n_fit=int(m - n_val), n_validation=n_val,
                rule=f"fewest validation errors at eta = 0 ({n_val} held-out training points)")


def _chosen_lam(positive: tuple, config: dict, data_root) -> dict:
    return choose_lam(positive, config["seed"], config["n_train"], config["n_test"], data_root,
                      tuple(config["lam_grid"]), config["validation"], config["tol"], config["lam"])


# ----------------------------------------------------------------------------------------------------------------
# Tasks
# ----------------------------------------------------------------------------------------------------------------
_SHARED = ("seed", "neighbourhood", "lam", "lam_grid", "validation", "tol")


def tasks(cfg: Config) -> list:
    """One `Task` per eta of Table 1 and per (split, eta) of Fig. 2, in report order."""
    validate_config(cfg)
    shared = {k: getattr(cfg, k) for k in _SHARED}
    extra = dict(data_root=cfg.data_root)
    out = [Task(f"table1 eta={float(eta):g}", table1_task,
                dict(shared, eta=float(eta), n_train=cfg.n_train, n_test=cfg.n_test), VERSION, extra=extra)
           for eta in cfg.etas]
    if cfg.fig2:
        etas = [0.0, float(cfg.hp_eta)]
        for pos in digit_splits(cfg.splits, cfg.seed):
            out.append(Task(f"fig2 {split_label(pos)} eta={','.join(f'{e:g}' for e in etas)}", fig2_task,
                            dict(shared, etas=etas, positive=list(pos), n_train=cfg.fig2_train,
                                 n_test=cfg.fig2_test, n_holes=cfg.n_holes), VERSION, extra=extra))
    return out


def _per_digit(pred, y, digits) -> tuple:
    err = np.zeros(10)
    count = np.bincount(np.asarray(digits, int), minlength=10)
    for k in DIGITS:
        sel = digits == k
        err[k] = float(np.mean(pred[sel] != y[sel])) if sel.any() else np.nan
    return err, count


def table1_task(config: dict, data_root=None) -> dict:
    """Fit w_eta on the training part (rho and lam by the module's rules) and score it per digit on the test part;
    also the training decision values of the 0's and 1's (Fig. 1)."""
    from threadpoolctl import threadpool_limits

    from .learner import fit_error_clumping

    t0 = time.perf_counter()
    with threadpool_limits(1):
        d = _data(FIRST_SPLIT, config["seed"], config["n_train"], config["n_test"], data_root)
        X, y = d["X"], d["y"]
        rho = _rho(X, config["neighbourhood"])
        chosen = _chosen_lam(FIRST_SPLIT, config, data_root)
        if config["eta"] > 0:
            A, graph_seconds, reused = _cached_graph(FIRST_SPLIT, config, data_root, rho)
        else:  # eta = 0: Theta = I whatever the graph
            import scipy.sparse as sp

            A, graph_seconds, reused = sp.csr_matrix((X.shape[0], X.shape[0])), 0.0, False
        t2 = time.perf_counter()
        fit = fit_error_clumping(X, y, rho, config["eta"], chosen["lam"], "auto", graph=A, tol=config["tol"])
        t3 = time.perf_counter()
    pred = np.where(d["Xt"] @ fit.w > 0, 1.0, -1.0)
    err, count = _per_digit(pred, d["yt"], d["digit_t"])
    sel = d["digit"] <= 1
    d_max = int(np.diff(A.indptr).max()) if A.nnz else 0
    return dict(eta=config["eta"], rho=rho, lam=chosen["lam"], lam_choice=chosen, m=int(X.shape[0]),
                n_test=int(d["Xt"].shape[0]), nnz=int(A.nnz), mean_degree=float(A.nnz / X.shape[0]),
                max_degree=d_max, clumping_reach=float(config["eta"] * d_max / (X.shape[0] - 1)),
                graph_seconds=graph_seconds, graph_reused=reused, solve_seconds=t3 - t2,
                certificate=fit.certificate.to_json(), solver=fit.solver, status=fit.status,
                iterations=len(fit.history), error=err, count=count, overall=float(np.mean(pred != d["yt"])),
                train_error=float(np.mean(np.where(X @ fit.w > 0, 1.0, -1.0) != y)), w=np.asarray(fit.w),
                fig1_score=X[sel] @ fit.w, fig1_digit=np.asarray(d["digit"][sel], np.int64),
                seconds=time.perf_counter() - t0)


def fig2_task(config: dict, data_root=None) -> dict:
    """Hole punching on one split at each eta of ``config['etas']`` (0 and --hp-eta): the test error after every
    round (`staged_predict`). One task per split, so the data, rho, lam and the rho-graph serve both etas.
    Returns dict(runs=[one dict per eta])."""
    import warnings

    from threadpoolctl import threadpool_limits

    from .estimator import HolePunchingClassifier

    pos = tuple(config["positive"])
    runs = []
    with threadpool_limits(1):
        for eta in config["etas"]:
            t0 = time.perf_counter()
            d = _data(pos, config["seed"], config["n_train"], config["n_test"], data_root)
            rho = _rho(d["X"], config["neighbourhood"])
            chosen = _chosen_lam(pos, config, data_root)
            A, graph_seconds, reused = _cached_graph(pos, config, data_root, rho)
            est = HolePunchingClassifier(n_holes=config["n_holes"], rho=rho, eta=float(eta), lam=chosen["lam"],
                                         tol=config["tol"], progress=False)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", RuntimeWarning)
                est.fit(d["X"][:, :-1], d["y"], graph=A)  # the estimator appends the constant feature itself
            Xt = d["Xt"][:, :-1]
            test_error = [float(np.mean(p != d["yt"])) for p in est.staged_predict(Xt)]
            holes = [dict(radius=float(h["radius"]), n_points=int(h["n_points"]), kind=h["kind"],
                          errors_before=int(h["errors_before"]), errors_after=int(h["errors_after"]),
                          verdict=(h.get("certificate") or {}).get("verdict")) for h in est.holes_]
            runs.append(dict(positive=list(pos), split=split_label(pos), eta=float(eta), rho=rho, lam=chosen["lam"],
                             lam_choice=chosen, m=int(d["X"].shape[0]), n_test=int(Xt.shape[0]),
                             test_error=test_error, train_error=[float(h["training_error"]) for h in est.history_],
                             n_holes=int(est.n_holes_), stop_reason=est.stop_reason_,
                             base_certificate=dict(est.certificate_), holes=holes, uncertified_warnings=len(caught),
                             graph_seconds=graph_seconds, graph_reused=reused, seconds=time.perf_counter() - t0))
    return dict(runs=runs)


def _records(results: list) -> list:
    """Table 1's results and every Fig. 2 run (a Fig. 2 task holds one run per eta), in task order."""
    return [run for r in results for run in (r["runs"] if "runs" in r else [r])]


# ----------------------------------------------------------------------------------------------------------------
# Aggregation
# ----------------------------------------------------------------------------------------------------------------
def table_rows(cfg: Config, table: list) -> list:
    """table.csv rows: per eta and digit (and 'all'), ours beside the paper's."""
    rows = []
    for r in table:
        counts = np.asarray(r["count"], float)
        for k in DIGITS:
            p = paper_error(r["eta"], k)
            rows.append(dict(eta=r["eta"], digit=k, n_test=int(counts[k]), ours=float(r["error"][k]), paper=p,
                             diff=None if p is None else float(r["error"][k]) - p, rho=r["rho"], lam=r["lam"]))
        p = paper_overall(r["eta"], counts)
        rows.append(dict(eta=r["eta"], digit="all", n_test=int(counts.sum()), ours=r["overall"], paper=p,
                         diff=None if p is None else r["overall"] - p, rho=r["rho"], lam=r["lam"]))
    return rows


def fig2_rows(results: list) -> list:
    return [dict(split=r["split"], eta=r["eta"], round=i, test_error=e, train_error=r["train_error"][i])
            for r in results for i, e in enumerate(r["test_error"])]


def _fmt(v, digits=3):
    return "" if v is None or (isinstance(v, float) and not np.isfinite(v)) else f"{v:.{digits}f}"


def format_report(cfg: Config, table: list, fig2: list, meta: dict, have_fig1: bool) -> str:
    size = (f"{cfg.n_train:,} training / {cfg.n_test:,} test points"
            + (" (the paper's size)" if cfg.n_train == HALF and cfg.n_test == HALF
               else f": a SUBSAMPLE of the paper's {HALF:,} / {HALF:,}"))
    out = [f"# Paper 003, Table 1: per-digit test error on MNIST 0-4 vs 5-9 ({size})", ""]
    if cfg.quick:
        out += ["**QUICK run** (`--quick`): a subsample; the paper's size is the default without it.", ""]
    out += [f"Shuffle seed {cfg.seed}; features pixels / 255 plus a constant; eq. (1) solved by the structured "
            f"certified solver (tol {cfg.tol:g}). Wall time {meta.get('wall_time_s', 0.0):.0f} s for "
            f"{meta.get('n_tasks', '?')} tasks ({meta.get('executor', 'loky')}, jobs = {meta.get('jobs', 1)}; "
            f"{meta.get('n_reused', 0)} reused).", ""]
    if table:
        r0 = table[0]
        lc = r0["lam_choice"]
        out += ["## How rho and lambda were chosen", "",
                f"* rho = {r0['rho']:.4g}: the radius whose neighbourhoods hold about {100 * cfg.neighbourhood:g} % of "
                f"the training points (`rho_for_mean_degree`, the {100 * cfg.neighbourhood:g} % quantile of the "
                "distances from 500 seeded training rows); exact mean neighbourhood size "
                + ", ".join(f"{r['mean_degree']:.1f}" for r in table if r["eta"] > 0)
                + f" of m = {r0['m']:,} points.",
                f"* lambda = {r0['lam']:g}: {lc['rule']}"
                + ("" if lc["validation_error"] is None else "; validation error " + ", ".join(
                    f"{e:.4f} at {g:g}" for g, e in zip(lc["grid"], lc["validation_error"])))
                + ". The same lambda for every eta, so the rows differ by eta alone."
                + (" **The chosen lambda is at the edge of the grid**: widen --lam-grid."
                   if len(lc["grid"]) > 1 and r0["lam"] in (min(lc["grid"]), max(lc["grid"])) else ""), ""]
        head = "| classifier | " + " | ".join(str(k) for k in DIGITS) + " | all |"
        out += ["## Table 1: ours beside the paper's", "",
                "Test error rate per digit; each `ours` row is followed by the paper's (`paper`). The paper's "
                "'all' is its rates weighted by our test counts (it gives no overall number).", "",
                head, "|---|" + "---|" * 11]
        for r in table:
            out.append(f"| w_{r['eta']:g} ours | " + " | ".join(_fmt(float(e)) for e in r["error"])
                       + f" | {_fmt(r['overall'])} |")
            p = [paper_error(r["eta"], k) for k in DIGITS]
            if p[0] is not None:
                out.append(f"| w_{r['eta']:g} paper | " + " | ".join(_fmt(v) for v in p)
                           + f" | {_fmt(paper_overall(r['eta'], r['count']))} |")
        out += ["", "| eta | certificate (verdict, interval of the optimum, rel. gap) | graph s | solve s | "
                "nnz(A) | max degree | q | training error |", "|---|---|---|---|---|---|---|---|"]
        for r in table:
            c = r["certificate"]
            out.append(f"| {r['eta']:g} | {c['verdict']}, [{c['lower']:.8g}, {c['upper']:.8g}], {c['rel_gap']:.1e} | "
                       f"{r['graph_seconds']:.1f}{' (shared)' if r.get('graph_reused') else ''} | "
                       f"{r['solve_seconds']:.1f} | {r['nnz']:,} | {r['max_degree']:,} | "
                       f"{r['clumping_reach']:.3f} | {r['train_error']:.4f} |")
        out += ["", "graph s: the seconds the rho-graph took to build; '(shared)': built by an earlier task of the same "
                "worker and reused.", "", "q = eta d_max/(m-1): since lambda_max(A) <= d_max, (1 - q)||xi||^2 <= xi' Theta xi <= ||xi||^2 "
                "for every xi >= 0, so error clumping can lower the loss of any classifier by at most the fraction q "
                "(Theta as printed, off-diagonal -eta/(m-1))."]
        out.append("")
        checks = check_text_statements()
        out += ["Paper's Table 1 against its own text: " + "; ".join(
            f"{t} ({v:.3g}: {'agrees' if ok else 'DISAGREES'})" for t, v, ok in checks) + ".", ""]
    if have_fig1:
        out += ["Fig. 1: `fig1.png`, the training 0's and 1's at (<w_0, x>, <w_0.5, x>) (quadrant counts in its "
                "legend).", ""]
    elif table:
        out += ["Fig. 1 needs eta = 0 and eta = 0.5 among --etas: not drawn.", ""]
    if fig2:
        out += [f"## Fig. 2: test error against the hole-punching round ({cfg.fig2_train:,} training / "
                f"{cfg.fig2_test:,} test points, up to {cfg.n_holes} holes)", "",
                "| split | eta | lambda | rounds | error at round 0 | final error | best (round) | stop | "
                "holes certified |", "|---|---|---|---|---|---|---|---|---|"]
        for r in fig2:
            e = np.asarray(r["test_error"])
            cert = [h["verdict"] for h in r["holes"] if h["kind"] == "error_clumping"]
            out.append(f"| {r['split']} | {r['eta']:g} | {r['lam']:g} | {r['n_holes']} | {e[0]:.4f} | {e[-1]:.4f} | "
                       f"{e.min():.4f} ({int(e.argmin())}) | {r['stop_reason']} | "
                       f"{sum(v == 'certified' for v in cert)}/{len(cert)} (+{r['n_holes'] - len(cert)} constant) |")
        out.append("")
    out += ["Notes: " + "; ".join(EXTRACTION_NOTES) + ".", ""]
    return "\n".join(out)


def aggregate(cfg: Config, results: list, out, meta: dict) -> dict:
    """table.md, table.csv, fig1.png, fig2.png, fig2.csv and results.json under ``out``."""
    import csv

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    results = _records(results)
    table = [r for r in results if "fig1_score" in r]
    fig2 = [r for r in results if "test_error" in r]
    by_eta = {float(r["eta"]): r for r in table}
    have_fig1 = 0.0 in by_eta and 0.5 in by_eta
    paths = {n: out / n for n in ("table.md", "table.csv", "fig1.png", "fig2.png", "fig2.csv", "results.json")}
    paths["table.md"].write_text(format_report(cfg, table, fig2, meta, have_fig1))
    with open(paths["table.csv"], "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["eta", "digit", "n_test", "ours", "paper", "diff", "rho", "lam"])
        w.writeheader()
        w.writerows(table_rows(cfg, table))
        for eta in TABLE1:  # the paper's rows we did not run
            if eta not in by_eta:
                w.writerows(dict(eta=eta, digit=k, paper=TABLE1[eta][k]) for k in DIGITS)
    with open(paths["fig2.csv"], "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["split", "eta", "round", "test_error", "train_error"])
        w.writeheader()
        w.writerows(fig2_rows(fig2))
    from .plots import plot_fig1, plot_fig2

    plt = pyplot()

    if have_fig1:
        a, b = by_eta[0.0], by_eta[0.5]
        f = plot_fig1(a["fig1_score"], b["fig1_score"], a["fig1_digit"], paths["fig1.png"],
                      title=f"Fig. 1: training 0's and 1's (m = {a['m']:,}, rho = {a['rho']:.3g}, lam = {a['lam']:g})")
        plt.close(f)
    else:
        del paths["fig1.png"]
    if fig2:
        f = plot_fig2([dict(split=r["split"], eta=r["eta"], test_error=r["test_error"]) for r in fig2],
                      paths["fig2.png"])
        plt.close(f)
    else:
        del paths["fig2.png"]
    drop = ("w", "fig1_score", "fig1_digit")
    records = [{k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in r.items() if k not in drop}
               for r in results]
    paths["results.json"].write_text(json.dumps(dict(config=asdict(cfg), meta=meta, records=records), indent=1,
                                                default=float))
    return paths
