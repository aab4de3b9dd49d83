"""A minimal experiment on the paper kit: the template for a new ``certiprog reproduce NAME``.

Each task draws ``n`` Gaussian samples from its own seed and returns their mean (and, with ``keep_samples``, the
samples as an array, stored in a .npz beside the JSON); the aggregation writes ``summary.md`` and ``means.csv``.
The tests run it on every executor (it is tiny and needs nothing but numpy).

The pattern every paper follows: a ``Config`` dataclass whose `option` fields are the command line, a
`PaperExperiment` subclass with ``check``, ``tasks`` and ``aggregate``, and the protocol's module-level names bound
to one instance (``add_arguments = EXPERIMENT.add_arguments`` ...).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from certiprog.errors import InputError
from certiprog.experiments.kit import PaperExperiment, option, output_folder, write_csv
from certiprog.experiments.runner import Task

VERSION = "1"


def sample_mean(config: dict, scale: float = 1.0) -> dict:
    """One task: a pure function of ``config`` (``scale`` is an extra that tests use to detect a recomputation)."""
    x = np.random.default_rng([config["seed"], config["rep"]]).normal(config["mu"], 1.0, config["n"]) * scale
    out = dict(rep=config["rep"], mean=float(x.mean()), std=float(x.std(ddof=1)) if x.size > 1 else 0.0)
    if config.get("keep_samples"):
        out["samples"] = x
    return out


@dataclass
class Config:
    """Everything that defines a run; the `option` fields are the command line."""

    reps: int = option(4, help="repetitions")
    n: int = option(100, help="samples per repetition")
    mu: float = option(0.0, help="mean of the samples")
    seed: int = option(0, help="base seed")
    keep_samples: bool = False
    quick: bool = False


class ExampleExperiment(PaperExperiment):
    """The example: ``reps`` tasks of `sample_mean`, a summary and a CSV."""

    name = "example"
    config_class = Config
    quick = dict(reps=2, n=20)

    def check(self, cfg: Config) -> None:
        if cfg.reps < 1 or cfg.n < 1:
            raise InputError(f"--reps and --n must be >= 1, got {cfg.reps} and {cfg.n}")

    def tasks(self, cfg: Config) -> list:
        return [Task(f"rep {r}", sample_mean, dict(seed=cfg.seed, rep=r, n=cfg.n, mu=cfg.mu,
                                                   keep_samples=cfg.keep_samples), VERSION)
                for r in range(cfg.reps)]

    def aggregate(self, cfg: Config, results: list, out, meta: dict) -> dict:
        out = output_folder(out)
        means = np.array([r["mean"] for r in results])
        paths = dict(summary=out / "summary.md", csv=out / "means.csv")
        paths["summary"].write_text(f"# example: {len(results)} repetitions\n\nmean of means {means.mean():.6f}, "
                                    f"{meta.get('n_computed', '?')} computed, {meta.get('n_reused', '?')} reused\n")
        write_csv(paths["csv"], [dict(rep=r["rep"], mean=repr(r["mean"]), std=repr(r["std"])) for r in results],
                  ["rep", "mean", "std"])
        return {p.name: p for p in paths.values()}


EXPERIMENT = ExampleExperiment()
add_arguments = EXPERIMENT.add_arguments
config_from_args = EXPERIMENT.config_from_args
tasks = EXPERIMENT.tasks
aggregate = EXPERIMENT.aggregate
default_out = EXPERIMENT.default_out
