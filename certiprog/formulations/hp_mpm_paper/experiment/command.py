"""``certiprog reproduce hp-mpm`` on the paper kit: `HPMPMExperiment` (defaults that depend on --quick / --kernel,
the runner's --jobs / --no-progress) and the module-level protocol names.
"""
from __future__ import annotations

from dataclasses import replace

from certiprog.errors import InputError
from certiprog.experiments.kit import PaperExperiment

from .config import KERNEL_DATASETS, QUICK, QUICK_DATASETS, Config, available_datasets, validate_config
from .runs import aggregate, tasks


class HPMPMExperiment(PaperExperiment):
    """``certiprog reproduce hp-mpm``: Table 2 (linear) or, with ``--kernel``, Table 3 (see the package docstring)."""

    name = "hp-mpm"
    config_class = Config
    quick = QUICK
    quick_help = "few partitions, small grids, two small data sets"

    def complete(self, cfg: Config, args) -> Config:
        """The default data sets (--quick, --kernel, 'all') and the runner's --jobs / --no-progress."""
        names = cfg.datasets
        if not names or names == ("all",):
            if not names and cfg.quick:
                names = QUICK_DATASETS
            elif not names and cfg.kernel:
                names = KERNEL_DATASETS
            else:
                names = available_datasets(cfg.data_root)
                if not names:
                    from certiprog.datasets import data_root

                    raise InputError(f"no paper-004 data file under {cfg.data_root or data_root()}; set "
                                     "CERTIPROG_DATA or --data to the shared data folder")
        return replace(cfg, datasets=tuple(names), n_jobs=getattr(args, "jobs", 1),
                       progress=False if getattr(args, "no_progress", False) else None)

    check = staticmethod(validate_config)

    def default_out(self, cfg: Config) -> str:
        return "results/hp-mpm-kernel" if cfg.kernel else "results/hp-mpm"

    tasks = staticmethod(tasks)  # the module's functions are the hooks
    aggregate = staticmethod(aggregate)


EXPERIMENT = HPMPMExperiment()
add_arguments = EXPERIMENT.add_arguments
config_from_args = EXPERIMENT.config_from_args
default_out = EXPERIMENT.default_out
run = EXPERIMENT.run
