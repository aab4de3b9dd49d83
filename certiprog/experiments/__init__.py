"""``certiprog reproduce NAME``: the experiments every paper package declares (`certiprog.papers`).

An experiment module follows the task protocol of `certiprog.experiments.runner`: ``add_arguments(parser)`` (its
own options; the shared ones -- ``--out --executor --jobs --scheduler --shard --merge --no-progress`` -- come from
the runner), ``config_from_args(args)``, ``tasks(config) -> [Task]`` and ``aggregate(config, results, out, meta)
-> {file name: path}`` (the first file is the report to show). A legacy module with only ``add_arguments`` and
``run(args)`` still works. Bad input raises a CertiprogError; the CLI does all printing. Each paper's experiment
subclasses `certiprog.experiments.kit.PaperExperiment` (the options from a configuration dataclass, ``--quick``,
validation, the output folder, JSON / CSV / Markdown writers) and exposes its methods under the protocol's names.
"""
from __future__ import annotations

import importlib

from ..papers import experiments
from .kit import PaperExperiment, option
from .runner import ResultStore, RunReport, Task, TaskError, reproduce, run_tasks


def load(name: str):
    """The experiment module registered as ``name``."""
    return importlib.import_module(experiments()[name].module)


__all__ = ["PaperExperiment", "ResultStore", "RunReport", "Task", "TaskError", "experiments", "load", "option",
           "reproduce", "run_tasks"]
