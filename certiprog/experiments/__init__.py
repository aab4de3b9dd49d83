"""``certiprog reproduce NAME``: the experiments every paper package declares (`certiprog.papers`).

An experiment module follows the task protocol of `certiprog.experiments.runner`: ``add_arguments(parser)`` (its
own options; the shared ones -- ``--out --executor --jobs --scheduler --shard --merge --no-progress`` -- come from
the runner), ``config_from_args(args)``, ``tasks(config) -> [Task]`` and ``aggregate(config, results, out, meta)
-> {file name: path}`` (the first file is the report to show). A legacy module with only ``add_arguments`` and
``run(args)`` still works. Bad input raises a CertiprogError; the CLI does all printing.
"""
from __future__ import annotations

import importlib

from ..papers import experiments
from .runner import ResultStore, RunReport, Task, TaskError, reproduce, run_tasks


def load(name: str):
    """The experiment module registered as ``name``."""
    return importlib.import_module(experiments()[name].module)


__all__ = ["ResultStore", "RunReport", "Task", "TaskError", "experiments", "load", "reproduce", "run_tasks"]
