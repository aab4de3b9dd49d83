"""``certiprog reproduce error-clumping`` on the paper kit: `ErrorClumpingExperiment` (Fig. 2's sizes default to
the run's own) and the module-level protocol names.
"""
from __future__ import annotations

from dataclasses import replace

from certiprog.experiments.kit import PaperExperiment

from .config import FIG2_SIZE, QUICK, Config, validate_config
from .report import aggregate
from .runs import tasks


class ErrorClumpingExperiment(PaperExperiment):
    """``certiprog reproduce error-clumping``: Table 1, Figs. 1-2 and the Theta study (see the package docstring)."""

    name = "error-clumping"
    config_class = Config
    quick = QUICK
    quick_help = (f"a subsample: {QUICK['n_train']} training / {QUICK['n_test']} test points, Fig. 2 on "
                  f"{QUICK['fig2_train']} / {QUICK['fig2_test']} with {QUICK['n_holes']} holes")

    def complete(self, cfg: Config, args) -> Config:
        """Fig. 2's sizes default to at most the run's own (``min(FIG2_SIZE, n)``)."""
        given = self.given(args)
        if "fig2_train" not in given and not cfg.quick:
            cfg = replace(cfg, fig2_train=min(FIG2_SIZE, cfg.n_train))
        if "fig2_test" not in given and not cfg.quick:
            cfg = replace(cfg, fig2_test=min(FIG2_SIZE, cfg.n_test))
        return cfg

    check = staticmethod(validate_config)

    tasks = staticmethod(tasks)  # the module's functions are the hooks
    aggregate = staticmethod(aggregate)


EXPERIMENT = ErrorClumpingExperiment()
add_arguments = EXPERIMENT.add_arguments
config_from_args = EXPERIMENT.config_from_args
default_out = EXPERIMENT.default_out
run = EXPERIMENT.run
