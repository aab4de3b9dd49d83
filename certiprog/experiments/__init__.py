"""Reproductions of the papers' experiments, one module per paper, run by ``certiprog reproduce NAME``.

Each module exposes ``add_arguments(parser)`` (its command-line options) and ``run(args) -> dict``
(writes tables, CSV and plots under ``args.out`` and returns ``{file name: path}``, the report to show first;
bad input raises a CertiprogError). The CLI does all printing.
"""
from __future__ import annotations

import importlib

EXPERIMENTS = {
    "hp-mpm": ("certiprog.experiments.hp_mpm", "004: Table 2/3 (MPM, HP-MPM, SVM, FDA on real data), Figure 1"),
    "mcp": ("certiprog.experiments.mcp", "001: Fig. 3/4 (Lq ellipsoid manifolds), image manifolds"),
}


def load(name: str):
    """The experiment module registered as ``name``."""
    return importlib.import_module(EXPERIMENTS[name][0])
