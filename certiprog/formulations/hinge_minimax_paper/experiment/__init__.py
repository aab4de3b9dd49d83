"""`certiprog reproduce hinge-minimax`: paper 000's experiments (Sec. 5) on the shared runner.

Parts (``--parts``; default all that can run):

* ``table1`` (Sec. 5.1.1, Table 1): 2-D synthetic data, two overlapping Gaussians (the paper gives neither mean nor
  covariance; ours: positives N((1.5, 1.5), 0.5 I), negatives N(0, I), whose Bayes-optimal AUC is about 95.7 %, the
  level of the paper's Table 1), 5,000 points per positive fraction in {0.01, ..., 0.5}, each class split in equal
  training / validation / test thirds. KHHM with K = 5 (Alg. 1, `khhm.fit_khhm`, every sub-problem certified),
  ``delta`` and ``lam`` chosen by validation AUC, test AUC beside the paper's; for context a linear SVM (balanced
  class weights, C by validation AUC) and the Bayes-optimal score (the true log-likelihood ratio, no training).
* ``fig5`` (Fig. 5): on one such data set (fraction 0.1) the greedy steps t = 1..5 (the first t hyperplanes of the
  greedy phase, with the 1- and 2-sigma ellipses of the negatives inside the intersection of the first t - 1, the
  moments hyperplane t is trained against) and the final classifier after the refinement rounds.
* ``table2`` (Sec. 5.1.2, Table 2): UCI Letter (``keel/letter.dat``, 20,000 x 16). Per repetition every letter's
  rows are split at random into 100 training, 250 validation and the rest test; problem "letter vs rest" uses every
  letter's parts (so the test part has ~25 times more negatives, as the paper says). Methods: KHHM K = 1..4
  (``delta``, ``lam`` by validation), linear SVM and RBF SVM (libsvm's C-SVC with class weights balanced, C and
  gamma by validation), AdaBoost
  with 100 trees (depth by validation). Score: classification rate at the EER (1 - EER, `eer`), averaged over the
  letters; time: the test set's decision function time per sample (best of 3).
* ``table4`` (a Table 4 ANALOGUE: the VOC features are missing): Letter one-vs-rest for the first 10 letters,
  the background moments from all training rows (every class, as the paper does on VOC); LHM (K = 2, C = 2..5,
  k-means start), union of LDAs (C = 2..5), "NN" (Sec. 4.2's network with G = 2 from a random start, needs the
  ``nn`` extra) and KHHM (K = 2..5); accuracy at EER averaged over letters and sizes.
* ``transfer`` (a Figs. 10-11 ANALOGUE on MNIST: CIFAR is missing; needs the ``nn`` extra): a small CNN trained
  on digits 0-4 is the source feature extractor; best case = targets built from digits it saw, worst case = digits
  5-9; binary imbalanced (1 - EER vs positives: LHM, NN linear, NN matching) and multi-class (accuracy vs training
  images per class: LHM-NN fine-tuned end to end, NN linear, NN matching, a CNN from scratch).
* ``fig78`` (Sec. 5.2.1, Figs. 7-8): a 2-D latent toy (`latent_toy`: positives from two long parallel bars that
  k-means splits across, negatives a broad Gaussian and a bar between the positive ones): LHM (Alg. 2) from a random assignment vs a union of LDAs after k-means
  (Hariharan et al.: w_c = Sigma^-1 (mu_c - mu), the background's moments); the risk per LHM iteration (Fig. 8).

Not run: Table 3 / Fig. 6 (SUN397 features), Table 4 / Fig. 9 (VOC 2007 HOG), Figs. 10-11 (CIFAR): the data are not
available (`tables.MISSING`).

AUC is `sklearn.metrics.roc_auc_score`; the EER is read off `sklearn.metrics.roc_curve` by linear interpolation
where FNR = FPR (`eer`): one definition for every method.

Tasks: one per (part, scenario, method): pure functions of their JSON configuration; outputs in ``--out``:
``table.md``, ``table1.csv``, ``table2.csv``, ``table4_analogue.csv``, ``transfer_analogue.csv``, ``fig5.png``, ``fig7.png``, ``fig8.png``, ``results.json``.

The package, one idea per module (moved from the former experiment.py, code unchanged): config.py (parts,
grids, Config, validation), metrics.py (AUC, EER), data.py, learners.py (KHHM grid, baselines), runs.py (the
tasks), transfer.py (Figs. 10-11 analogue), report.py (tables, CSV, figures, JSON), command.py (the command line
and `HingeMinimaxExperiment` on `certiprog.experiments.kit`). Every name is re-exported here, so
``from certiprog.formulations.hinge_minimax_paper.experiment import X`` keeps working.
"""
from __future__ import annotations

from dataclasses import asdict  # noqa: F401 (callers write experiment.asdict(cfg))
from pathlib import Path  # noqa: F401 (the former module's imports)

from certiprog.datasets.letter import LETTERS  # noqa: F401 (the former module's imports)
from certiprog.errors import InputError  # noqa: F401 (the former module's imports)
from certiprog.experiments.runner import Task, number_list  # noqa: F401 (the former module's imports)

from ..tables import MISSING, TABLE1_AUC, TABLE1_FRACTIONS, TABLE2, TABLE4  # noqa: F401 (the former module's imports)
from .command import (  # noqa: F401
    EXPERIMENT,
    HingeMinimaxExperiment,
    add_arguments,
    config_from_args,
    default_out,
    run,
)
from .config import (  # noqa: F401
    ADA_DEPTHS,
    ADA_RATES,
    C_GRID,
    DELTA_GRID,
    FIG78_LHM,
    GAMMA_GRID,
    KHHM_ACCEPTS,
    LAM_GRID,
    LINEAR_C_GRID,
    OUR_BASELINES,
    PAPER_BASELINES,
    PARTS,
    QUICK,
    REFITS,
    SYNTH_NEG,
    SYNTH_POS,
    TABLE1_METHODS,
    TABLE2_BASELINES,
    TABLE4_METHODS,
    TRANSFER_BINARY,
    TRANSFER_MULTI,
    VERSION,
    Config,
    has_network_library,
    network_library_installed,
    validate_config,
)
from .data import (  # noqa: F401
    _seed,
    bayes_score,
    latent_toy,
    letter_split,
    load_letter,
    synthetic_2d,
)
from .learners import (  # noqa: F401
    _baseline,
    _khhm_settings,
    _khhm_summary,
    fit_khhm_grid,
    random_components,
    rounds_for,
    scored_and_timed,
    svc_decisions,
)
from .metrics import (  # noqa: F401
    auc,
    eer,
)
from .report import (  # noqa: F401
    TABLE2_SETTINGS,
    _by,
    _count,
    _figures,
    aggregate,
    collect,
    format_report,
    khhm_fit_stats,
    table1_rows,
    table2_rows,
    table2_setting,
    table4_rows,
    transfer_rows,
    verdict_counts,
)
from .runs import (  # noqa: F401
    _GRID_FIELDS,
    fig5_task,
    fig78_lda_task,
    fig78_lhm_task,
    khhm_method,
    khhm_methods,
    paper_row,
    table1_task,
    table2_task,
    table4_task,
    tasks,
    union_of_ldas,
)
from .transfer import (  # noqa: F401
    BEST_MULTI_CLASSES,
    WORST_MULTI_CLASSES,
    _draw,
    _features,
    _fit_lhm,
    binary_problem,
    mnist_pools,
    source_cnn,
    transfer_binary_task,
    transfer_multi_task,
)
