"""``certiprog reproduce mcp`` on the paper kit: `MCPExperiment` (the figures' settings, the runner's --jobs /
--no-progress) and the module-level protocol names.
"""
from __future__ import annotations

from dataclasses import replace

from certiprog.experiments.kit import PaperExperiment

from .config import PAPER_SETTINGS, QUICK, QUICK_SETTINGS, Config, validate_config
from .runs import aggregate, tasks


class MCPExperiment(PaperExperiment):
    """``certiprog reproduce mcp``: Figs. 3-4 and the image manifolds (see the package docstring)."""

    name = "mcp"
    config_class = Config
    quick = QUICK
    quick_help = "small sizes with the same regimes (about 10 s)"

    def complete(self, cfg: Config, args) -> Config:
        """The figures' settings (the paper's or the quick ones) and the runner's --jobs / --no-progress."""
        cfg = replace(cfg, n_jobs=getattr(args, "jobs", 1),
                      progress=False if getattr(args, "no_progress", False) else None)
        cfg.settings = QUICK_SETTINGS if cfg.quick else PAPER_SETTINGS
        return cfg

    check = staticmethod(validate_config)

    tasks = staticmethod(tasks)  # the module's functions are the hooks
    aggregate = staticmethod(aggregate)


EXPERIMENT = MCPExperiment()
add_arguments = EXPERIMENT.add_arguments
config_from_args = EXPERIMENT.config_from_args
run = EXPERIMENT.run
