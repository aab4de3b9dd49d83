"""`certiprog reproduce error-clumping`: paper 003's Table 1, Fig. 1 and Fig. 2 on MNIST (Sec. 5).

Data (paper Sec. 5): the 70,000 MNIST digits shuffled (seeded) and split into two halves, 35,000 training and
35,000 test points (`certiprog.datasets.mnist_binary`); features the pixels / 255 plus a constant 1 (no bias);
labels +1 for one group of five digits, -1 for the other; the digit itself is hidden from the learner.
``--n-train`` / ``--n-test`` keep the first points of each half (``--quick``: 3,000 / 3,000), and the tables say so.

Parameters the paper does not give, chosen by a stated rule (printed in the report):

* ``rho``: the radius whose neighbourhoods hold about ``--neighbourhood`` (1 %) of the training points,
  `graph.rho_for_mean_degree` (the 1 % quantile of the distances from 500 seeded training rows to all of them,
  on the pixels; the constant feature does not change distances); the graph's exact mean degree is reported;
* ``lam``: by validation at eta = 0 (the squared-hinge SVM, whose fit needs no graph): the last ``--validation``
  (20 %) of the training part is held out, eq. (1) is fitted on the rest for every lam of ``--lam-grid`` (1e-4,
  ..., 1) and the lam with the fewest validation errors (ties: the first in the grid) is used for every eta of
  that split, so Table 1's rows differ by eta alone. ``--lam`` fixes it instead. Each split (Table 1's and Fig. 2's)
  is validated on its own training part.

Table 1: for each eta of ``--etas`` (0, 0.3, 0.5) a task builds the rho-graph (`graph.radius_graph`, exact; a worker
keeps its last graph, so its next eta > 0 task, or the Fig. 2 task of the same split and size, reuses it), fits
eq. (1) with the structured certified solver (`learner.fit_error_clumping`, solver 'auto') on the whole training
part and reports the test error per digit, the certificate (rigorous interval, verdict) and the graph and solve
times. Fig. 1 is drawn from the same fits: the training 0's and 1's at (<w_0, x>, <w_0.5, x>).

Fig. 2: for 0-4 vs 5-9 and ``--splits`` - 1 other random (seeded) splits of the digits into two groups of five,
a task (one per split: the data, rho, lam and the graph serve both etas) fits, for eta = 0 and eta = ``--hp-eta``
(0.5), `HolePunchingClassifier` (``--n-holes`` rounds, the split's rho and lam) on ``--fig2-train`` training points
and records the test error after every round (``staged_predict``) on ``--fig2-test`` test points.

Runs on `certiprog.experiments.runner`: every task is independent (loky / dask / ray; ``--shard`` / ``--merge``)
and its result is kept in ``OUT/tasks`` (a rerun resumes). Outputs in ``--out``: ``table.md`` (report),
``table.csv`` (ours beside the paper's, per eta and digit), ``fig1.png``, ``fig2.png``, ``fig2.csv`` and
``results.json`` (configuration, meta, every task's scalars; no pickle).

The package, one idea per module: config.py (sizes, grids, Config, validation), data.py (digit splits, data, rho,
the graph, lambda), runs.py (the tasks), report.py (tables, CSV, figures, JSON), command.py (the command line on
`certiprog.experiments.kit`). Every name is re-exported here, so ``from ...error_clumping_paper.experiment import X``
keeps working.
"""
from __future__ import annotations

from dataclasses import asdict  # noqa: F401 (callers write experiment.asdict(cfg))

from .command import (  # noqa: F401
    EXPERIMENT,
    ErrorClumpingExperiment,
    add_arguments,
    config_from_args,
    default_out,
    run,
)
from .config import (  # noqa: F401
    _SPLIT_SEED,
    FIG2_SIZE,
    FIRST_SPLIT,
    HALF,
    HP_NORMALISATIONS,
    HP_RULES,
    LAM_GRID,
    PAPER_ETAS,
    QUICK,
    STUDY_ETAS,
    STUDY_LAMS,
    STUDY_NEIGHBOURHOODS,
    STUDY_READINGS,
    STUDY_TRAIN,
    VERSION,
    Config,
    _in,
    _int,
    _names,
    validate_config,
)
from .data import (  # noqa: F401
    _cached_graph,
    _chosen_lam,
    _data,
    _graph,
    _rho,
    choose_lam,
    digit_splits,
    split_label,
)
from .report import (  # noqa: F401
    GOAL_POINTS,
    GOAL_ROUND,
    TRADE_D0_RATIO,
    TRADE_D1_RATIO,
    _fig2_report,
    _fmt,
    _study_report,
    aggregate,
    fig2_rows,
    format_report,
    study_rows,
    table_rows,
    trade_summary,
)
from .runs import (  # noqa: F401
    _SHARED,
    _eig_max,
    _fit_graph,
    _fit_part,
    _per_digit,
    _records,
    fig2_task,
    study_task,
    table1_task,
    tasks,
)
