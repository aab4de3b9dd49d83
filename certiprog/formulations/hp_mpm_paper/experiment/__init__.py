"""`certiprog reproduce hp-mpm`: paper 004's Table 2 (linear) and Table 3 (Gaussian kernel) on the real data.

Protocol (paper Sec. 6), for each data set, training proportion p and random partition:

1. split the rows at random (stratified by class, seeded) into a training part (p n), a validation part
   (``validation`` n, 0.2 in the paper) and a test part (the rest);
2. standardise every feature with the training part's mean and standard deviation; missing values (Vote) are
   set to 0 afterwards (the paper's rule, `certiprog.datasets.standardize_fill_missing`);
3. fit every method on the training part for every value of its grid, keep the one with the best validation
   accuracy and report its test accuracy (no refit on training + validation: the paper evaluates "the predictor
   with the best validation set accuracy on the test sample");
4. report the mean and standard deviation over the partitions beside the paper's number.

Methods: ``MPM`` (no parameter); ``HP-MPM`` with ``A_j = nu A_j`` (paper grid nu in {0.05, ..., 1}, R = the largest
training norm, delta = 0.1: the paper gives neither, and both only rescale nu, A_j ~ nu R^2 (2 + sqrt(2 ln(2/delta))));
where no nu of the grid gives a meaningful solution (kappa* > 0 needs
``||x̂1 - x̂0|| > sqrt(2 nu A1) + sqrt(2 nu A0)``, i.e. nu < `nu_max`) the grid is replaced by ``nu_max`` times the
paper's fractions and the table says so; ``bHP-MPM`` (paper Sec. 6, Tables 4-5:
the HP-MPM direction with the bias that maximises training accuracy); ``SVM``: `sklearn.svm.LinearSVC` (liblinear,
squared hinge, C in {1e-3, ..., 1e3}; the standard hinge converges badly at large C) or `sklearn.svm.SVC` with the
Gaussian kernel; ``FDA``: `sklearn.discriminant_analysis.LinearDiscriminantAnalysis(solver="lsqr",
shrinkage=lam/(1+lam))` for lam in {1e-3, ..., 1e3}: its direction is the ridge-regularised Fisher direction
``(Sigma_w + lam' I)^{-1}(x̂1 - x̂0)`` with ``lam' = lam * tr(Sigma_w)/d`` (~ lam for standardised data), and its bias
accounts for the class priors; with the kernel, the regularised kernel Fisher discriminant of Mika et al. (1999),
``gamma = (N + lam I)^{-1}(l1 - l0)``, with the same prior-aware bias on the projections.

Gaussian kernel: the paper's ``k(x, x') = exp(-||x - x'||^2 / sigma)``, sigma in {1e-3, ..., 1e3}, i.e.
``gamma = 1/sigma`` for every method; R = 1 (k(x, x) = 1).

Outputs in ``--out``: ``table.md``, ``table.csv``, ``accuracy_vs_proportion.png`` and ``results.json`` (every
partition's numbers and the configuration; no pickle).

Cost (issue 15): the kernel factorisation and the class moments depend on the training set and the width only, so
one `CoordinateCache` per width serves the MPM and every nu; the grids' fits skip the certificate of their last SOCP
and the chosen MPM and HP-MPM are refitted with the full one (``certificate``, ``certificate_interval``,
``kappa_bracket`` in the record). LinearSVC is seeded (`SVM_SEED`) so runs and workers agree.

Runs on `certiprog.experiments.runner`: one task per (data set, proportion, partition) (`tasks`,
`partition_task`), results kept in ``OUT/tasks`` (a rerun resumes; ``--shard`` / ``--merge`` split a run over
machines), tables from `aggregate`.

The package, one idea per module: config.py (grids, Config, validation), partitions.py (split, scores, selection),
baselines.py (SVM, FDA, kernel Fisher), fits.py (one partition's MPM / HP-MPM fits), runs.py (tasks, aggregation),
report.py (tables, CSV, plot, JSON), command.py (the command line on `certiprog.experiments.kit`). Every name is
re-exported here, so ``from certiprog.formulations.hp_mpm_paper.experiment import X`` keeps working.
"""
from __future__ import annotations

from dataclasses import asdict  # noqa: F401 (callers write experiment.asdict(cfg))

from .baselines import (  # noqa: F401
    _fit_fda,
    _fit_svm,
    _prior_aware_rule,
    fda_direction_shrinkage,
    kernel_fisher,
    svm_estimator,
)
from .command import (  # noqa: F401
    EXPERIMENT,
    HPMPMExperiment,
    add_arguments,
    config_from_args,
    default_out,
    run,
)
from .config import (  # noqa: F401
    KERNEL_DATASETS,
    METHODS,
    MISSING_NOTE,
    PAPER_C,
    PAPER_LAMBDA,
    PAPER_NU,
    PAPER_PROPORTIONS,
    PAPER_SIGMA,
    QUICK,
    QUICK_DATASETS,
    QUICK_GRIDS,
    QUICK_PARTITIONS,
    QUICK_PROPORTIONS,
    SVM_SEED,
    TASK_FIELDS,
    VERSION,
    Config,
    _lower,
    available_datasets,
    validate_config,
)
from .fits import (  # noqa: F401
    _certify_chosen,
    _fit_hp_mpm,
    _fit_mpm,
    _fit_one_hp,
    _hp_estimator,
    _hp_summary,
    _kernel_args,
    _mean_gap,
    _quiet_fit,
    hp_mpm_uncertainty,
    nu_max,
    run_task,
)
from .partitions import (  # noqa: F401
    _accuracy,
    _scores,
    _scores_of,
    _select,
    best_threshold,
    partition,
    task_seed,
)
from .report import (  # noqa: F401
    CSV_FIELDS,
    _fmt,
    _run_note,
    format_table,
    load_results,
    log,
    summarise,
    write_outputs,
)
from .runs import (  # noqa: F401
    _dataset,
    _versions,
    aggregate,
    assemble,
    partition_task,
    run_experiment,
    tasks,
)
