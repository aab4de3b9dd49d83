"""A minimal experiment on the runner's protocol: the template for a new ``certiprog reproduce NAME``.

Each task draws ``n`` Gaussian samples from its own seed and returns their mean (and, with ``keep_samples``, the
samples as an array, stored in a .npz beside the JSON); the aggregation writes ``summary.md`` and ``means.csv``.
The tests run it on every executor (it is tiny and needs nothing but numpy).
"""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from certiprog.errors import InputError
from certiprog.experiments.runner import Task

VERSION = "1"


def sample_mean(config: dict, scale: float = 1.0) -> dict:
    """One task: a pure function of ``config`` (``scale`` is an extra that tests use to detect a recomputation)."""
    x = np.random.default_rng([config["seed"], config["rep"]]).normal(config["mu"], 1.0, config["n"]) * scale
    out = dict(rep=config["rep"], mean=float(x.mean()), std=float(x.std(ddof=1)) if x.size > 1 else 0.0)
    if config.get("keep_samples"):
        out["samples"] = x
    return out


def add_arguments(parser) -> None:
    parser.add_argument("--reps", type=int, default=4, help="repetitions")
    parser.add_argument("--n", type=int, default=100, help="samples per repetition")
    parser.add_argument("--mu", type=float, default=0.0, help="mean of the samples")
    parser.add_argument("--seed", type=int, default=0, help="base seed")


def config_from_args(args) -> dict:
    cfg = dict(reps=args.reps, n=args.n, mu=args.mu, seed=args.seed, keep_samples=False)
    if cfg["reps"] < 1 or cfg["n"] < 1:
        raise InputError(f"--reps and --n must be >= 1, got {cfg['reps']} and {cfg['n']}")
    return cfg


def tasks(cfg: dict) -> list:
    return [Task(f"rep {r}", sample_mean, dict(seed=cfg["seed"], rep=r, n=cfg["n"], mu=cfg["mu"],
                                               keep_samples=cfg.get("keep_samples", False)), VERSION)
            for r in range(cfg["reps"])]


def aggregate(cfg: dict, results: list, out, meta: dict) -> dict:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    means = np.array([r["mean"] for r in results])
    paths = dict(summary=out / "summary.md", csv=out / "means.csv")
    paths["summary"].write_text(f"# example: {len(results)} repetitions\n\nmean of means {means.mean():.6f}, "
                                f"{meta.get('n_computed', '?')} computed, {meta.get('n_reused', '?')} reused\n")
    with open(paths["csv"], "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["rep", "mean", "std"])
        writer.writerows([r["rep"], repr(r["mean"]), repr(r["std"])] for r in results)
    return {p.name: p for p in paths.values()}


def default_out(cfg) -> str:
    return "results/example"
