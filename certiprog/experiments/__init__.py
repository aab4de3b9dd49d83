"""``certiprog reproduce NAME``: the experiments every paper package declares (`certiprog.papers`).

Each experiment module exposes ``add_arguments(parser)`` (its command-line options) and ``run(args) -> dict``
(writes tables, CSV and plots under ``args.out`` and returns ``{file name: path}``, the report to show first;
bad input raises a CertiprogError). The CLI does all printing.
"""
from __future__ import annotations

import importlib

from ..papers import experiments


def load(name: str):
    """The experiment module registered as ``name``."""
    return importlib.import_module(experiments()[name].module)


__all__ = ["experiments", "load"]
