"""`certiprog reproduce mcp`: paper 001's experiments (Sec. 4) -- MCP against a point SVM on sampled points.

Figures (``--figures``, any subset):

* ``3a`` / ``3b``: L2 ellipsoids, D = 40, R0 = 20; (a) N = 500, P = 10, hard margin (MCP-simple); (b) N = 475,
  P = 12, manifold slack with C = 1 (MCP-slack). ``4a`` / ``4b``: L50 ellipsoids, P = 48, D = 10, R0 = 20;
  (a) N = 500 hard margin, (b) N = 490 slack with C = 100. Each reports the test error (500 uniform points per
  manifold) against the total number of training points: for MCP the P initial points (the centres) plus one
  point per iteration; for the point SVM P * m points drawn uniformly, m on a grid.
* ``3c`` / ``3d``: m kappa^2 against PD/N (P varied, then D varied) and against R0, where kappa = 1/||w*|| is the
  exact hard margin (robust counterpart, `certiprog.formulations.mcp_paper.programs.mcp`) and m the number of points MCP holds when
  its iterate first classifies every manifold correctly (the first iterate with worst violation < 1: zero error on
  the whole manifolds, certified by the closed-form oracle, not by samples). Reduced grid, N = 100 (paper: 500),
  D scaled by the same factor so that PD/N covers the same range.
* ``images``: paper Sec. 4.2 on templates from scikit-learn's sample photographs (or ``--image-source digits``):
  P = 8 manifolds of 2-D translations (pixel features, hard margin, two amounts of variation, as Fig. 5b) and of
  4-D translation + shear (pixel and Gabor features, slack, as Fig. 6b), N = 500 features, labels split 4/4 at
  random per repetition; MCP's oracle is a local search over the warp parameters (K = 5 starts).

Generator (Sec. 4.1): centres and basis vectors i.i.d. N(0, I_N) -- the same scale for both, which is what puts
N = 500, P = 10, D = 40, R0 = 20 just below capacity (capacity ~ 1/(D + 1/2) for large radii: 10/500 < 1/40.5 <
12/475), radii ~ U[0.5 R0, 1.5 R0], P/2 manifolds positive. Points are drawn uniformly in the solid ellipsoid
(`certiprog.model.index_sets.sample_lq_ball`, exact for every q). No bias anywhere (paper Sec. 2.1).

Point SVM (`point_svm`, no bias): hard margin solved exactly as a least-distance program by `scipy.optimize.nnls`
(it also certifies non-separable samples); slack (hinge, same C as MCP) as a certiprog Model on the same backend.

Outputs in ``--out``: ``summary.md`` (every table, with the paper's claims beside our numbers), CSV tables
(``generalisation.csv``, ``capacity.csv``, ``curves.csv``: every error-vs-points point), PNG plots (``fig3a.png`` ...,
``capacity.png``, ``images_<configuration>.png``, ``convergence.png``: objective and delta_k per iteration) and
``results.json`` (every repetition's raw numbers and the configuration; no pickle).

Runs on `certiprog.experiments.runner`: one task per repetition of each figure point (`tasks`, `run_task`), results
kept in ``OUT/tasks`` (a rerun resumes; ``--shard`` / ``--merge`` split a run over machines), outputs from
`aggregate`.

The package, one idea per module: config.py (settings, Config, validation), draws.py (random ellipsoids),
baseline.py (point SVM), learner.py (MCP runs), runs.py (tasks, aggregation), report.py (tables, CSV, JSON),
figures.py (plots), command.py (the command line on `certiprog.experiments.kit`). Every name is re-exported here,
so ``from certiprog.formulations.mcp_paper.experiment import X`` keeps working.
"""
from __future__ import annotations

from dataclasses import asdict  # noqa: F401 (callers write experiment.asdict(cfg))

from .baseline import (  # noqa: F401
    error_rate,
    point_svm,
)
from .command import (  # noqa: F401
    EXPERIMENT,
    MCPExperiment,
    add_arguments,
    config_from_args,
    run,
)
from .config import (  # noqa: F401
    FIGURES,
    PAPER_SETTINGS,
    QUICK,
    QUICK_SETTINGS,
    TASK_FIELDS,
    VERSION,
    Config,
    Setting,
    _figure_names,
    validate_config,
)
from .draws import (  # noqa: F401
    random_ellipsoids,
    sample_ellipsoids,
)
from .figures import (  # noqa: F401
    plot_capacity,
    plot_convergence,
    plot_generalisation,
)
from .learner import (  # noqa: F401
    MCPRun,
    _run_record,
    checkpoint_solves,
    ellipsoid_manifolds,
    fit_mcp,
    mcp_error_curve,
    parametric_manifolds,
)
from .report import (  # noqa: F401
    _csv,
    _fmt,
    _markdown,
    _mean_std,
    capacity_table,
    first_reaching,
    generalisation_table,
    summary_markdown,
    write_outputs,
)
from .runs import (  # noqa: F401
    _svm_curve,
    aggregate,
    assemble,
    capacity_task,
    default_out,
    ellipsoid_task,
    image_configs,
    image_task,
    run_experiment,
    run_task,
    tasks,
    zlib_id,
)
