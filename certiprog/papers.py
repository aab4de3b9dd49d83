"""Paper discovery: the core finds paper packages through the ``certiprog.papers`` entry points, never by name.

A paper package (``certiprog/formulations/<name>/``, or a third party's) exposes ``PAPER = Paper(...)`` and lists
it in its ``pyproject.toml`` under ``[project.entry-points."certiprog.papers"]``. The core asks `papers()` for
the claims and bounds to audit, the experiments to reproduce and the estimators to re-export.
"""
from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass, field
from importlib.metadata import entry_points

from .errors import InputError

GROUP = "certiprog.papers"


@dataclass(frozen=True)
class Experiment:
    """``certiprog reproduce NAME``: ``module`` follows the task protocol of `certiprog.experiments.runner`
    (``add_arguments``, ``config_from_args``, ``tasks``, ``aggregate``), or has ``add_arguments(parser)`` and
    ``run(args) -> {name: path}``."""

    name: str
    module: str
    help: str


@dataclass(frozen=True)
class Paper:
    """What a paper package offers the core: every entry is a module path, imported only when needed."""

    id: str  # "000" .. "004": the file prefix in shared/papers
    title: str
    package: str
    claims: tuple = ()  # modules whose import registers claims (in the one audit registry)
    experiments: tuple = ()  # Experiment entries
    estimators: dict = field(default_factory=dict)  # class name -> module
    bounds: tuple = ()  # modules whose import registers bounds (same registry, same id scheme)


@functools.lru_cache(maxsize=1)
def papers() -> dict[str, Paper]:
    """Every installed paper by id, in id order."""
    found = {}
    for ep in entry_points(group=GROUP):
        paper = ep.load()
        if not isinstance(paper, Paper) or paper.id != ep.name:
            raise InputError(f"entry point {ep.name!r} of {GROUP!r} must name a Paper with id {ep.name!r}")
        found[paper.id] = paper
    return dict(sorted(found.items()))


def paper(paper_id: str) -> Paper:
    """The paper with this id, or an InputError listing the installed ones."""
    have = papers()
    if paper_id not in have:
        raise InputError(f"unknown paper {paper_id!r}; installed: {list(have)}")
    return have[paper_id]


def load_bounds(paper_ids=None) -> None:
    """Import the bound modules of the given papers (all if None), registering their bounds."""
    for pid in (papers() if paper_ids is None else paper_ids):
        for module in paper(pid).bounds:
            importlib.import_module(module)


def load_claims(paper_ids=None) -> None:
    """Import the bound and claim modules of the given papers (all if None), registering their entries."""
    load_bounds(paper_ids)
    for pid in (papers() if paper_ids is None else paper_ids):
        for module in paper(pid).claims:
            importlib.import_module(module)


def experiments() -> dict[str, Experiment]:
    """Every paper's experiments by name."""
    return {e.name: e for p in papers().values() for e in p.experiments}


def estimators() -> dict[str, str]:
    """Every paper's estimator class name -> its module."""
    return {name: module for p in papers().values() for name, module in p.estimators.items()}
