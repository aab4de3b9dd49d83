"""ME^2's local tuning exactly as Sec. 5.2 of the paper describes it, with every choice the text leaves open named.

The paper: "we use a 2-fold cross-validation on the set S while preserving the same I.R. in each fold ... we
associate each example of the validation set to its closest positive example (with respect to the Euclidean
distance) in the training set ... The hyper-parameters mu and lambda are tuned by maximizing the F-Measure for each
local model according to the previous classification rule. Note that this is only possible when both positive and
negative examples belong to the local validation set. In the case where there are only negative examples, we keep the
pair (mu, lambda) which minimizes the FP Rate. ... mu and lambda are tuned respectively in the range {0.75, 0.8, 0.85,
0.9, 0.95, 1, 2, 10} and {10^-6:2}."

Implemented (`tune_local`): ``StratifiedKFold(cv=2, shuffle=True)`` on S (the class proportions, hence the I.R., are
kept in each fold). In fold k every positive ``c`` of the training half is a local model: for every (mu, lam) of the
grids (72 pairs; with the dedicated solver all the fold's centres at once, `tune_fold` and `batch_solver`, else
one centre at a time along a warm-started path, `local_solver.solve_local_path`) its ellipsoid is learnt against
the training half's negatives, and its LOCAL VALIDATION SET is the validation half's points whose Euclidean-nearest
training-half positive is ``c``; they are labelled with the decision rule (`decision`), the rank thresholds of the
"rank" rule taken from the same training negatives. With 2 folds every positive of S is a local model in exactly one
fold, so each gets one (mu, lam).

Choices the text leaves open (parameters of `tune_local`):

* local set with positives and negatives: the largest F-measure; ties go to the fewest false positives, then to the
  preference order (``prefer``);
* only negatives: the lowest FP rate (= fewest false positives); ties by ``prefer``;
* only positives (the text does not say): the largest F-measure (= the largest recall);
* empty local set: no information, the first pair in the preference order;
* ``prefer="grid"`` (default): the paper's listing order (mu, then lam, ascending); ``"simple"``: larger lam first
  (a metric closer to the Euclidean one), then larger mu (R closer to B), i.e. the least distorted ellipsoid.
* After tuning, the final local model of ``c`` is learnt with its (mu, lam) against ALL negatives of S (the paper
  trains on S).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from certiprog import validation as validate
from certiprog.errors import InputError
from certiprog.model import Record

from .batch_solver import left_aligned
from .decision import nearest_centre, quad_forms, rule_scores
from .local_solver import DEFAULT_TOL, grid_path, local_method, local_problem, local_problems, solve_local_path
from .parallel import one_blas_thread, over_chunks

PAPER_MU = (0.75, 0.8, 0.85, 0.9, 0.95, 1.0, 2.0, 10.0)
PAPER_LAM = tuple(float(10.0 ** k) for k in range(-6, 3))
PREFER = ("simple", "grid")

__all__ = ["PAPER_LAM", "PAPER_MU", "CentreTuning", "positive_grid", "tune_centre", "tune_fold", "tune_local",
           "tuning_folds"]


def positive_grid(grid, name: str) -> np.ndarray:
    """A grid of parameter values (``mu_grid``, ``lam_grid``, the baselines' ``C_grid``, ...) as a flat float array:
    one or more finite numbers > 0, else InputError naming ``name``."""
    g = validate.vector(grid, f"{name} (a grid of parameter values)")
    if g.size == 0 or np.any(g <= 0):
        raise InputError(f"{name} must hold one or more numbers > 0; got {grid!r:.80}")
    return g


@dataclass(eq=False)
class CentreTuning(Record):
    """What the tuning chose for one local model: ``mu``, ``lam``; ``criterion`` ("f-measure", "fp-rate" or "none"),
    its value ``score``; the local validation set's size (``n_val_pos``, ``n_val_neg``); ``fold``; and per grid pair
    (in ``pairs`` order) the local counts ``tp``, ``fp``, ``fn`` and the solves' worst relative gap and time;
    ``ellipsoid``: the chosen pair's (M, R) on the fold (the final fit's warm start)."""

    mu: float
    lam: float
    criterion: str
    score: float
    n_val_pos: int
    n_val_neg: int
    fold: int = -1
    pairs: list = field(default_factory=list)
    tp: list = field(default_factory=list)
    fp: list = field(default_factory=list)
    fn: list = field(default_factory=list)
    max_rel_gap: float = 0.0
    seconds: float = 0.0
    n_solves: int = 0
    _ellipsoid: tuple | None = field(default=None, repr=False)

    @property
    def ellipsoid(self) -> tuple | None:
        """(M, R) learnt at the chosen pair against the fold's training negatives (None when nothing was solved): the
        warm start of the final fit (`programs.me2_fit`'s ``warm_start``). Not in ``as_dict()``."""
        return self._ellipsoid


def _preference(pairs, prefer: str) -> np.ndarray:
    """Rank of every pair in the preference order (0 = most preferred)."""
    if prefer == "simple":
        order = sorted(range(len(pairs)), key=lambda i: (-pairs[i][1], -pairs[i][0]))
    else:
        order = sorted(range(len(pairs)), key=lambda i: (pairs[i][0], pairs[i][1]))
    rank = np.empty(len(pairs), int)
    rank[order] = np.arange(len(pairs))
    return rank


def _f_measure(tp, fp, fn) -> np.ndarray:
    tp, fp, fn = (np.asarray(a, float) for a in (tp, fp, fn))
    den = 2 * tp + fp + fn
    return np.where(den > 0, 2 * tp / np.where(den > 0, den, 1.0), 0.0)


def tune_centre(center, X_neg, X_val, y_val, *, mu_grid=PAPER_MU, lam_grid=PAPER_LAM, B: float = 4.0, m: int = 3,
                rule: str = "rank", rank_metric: str = "mahalanobis", prefer: str = "grid",
                tol: float = DEFAULT_TOL, fold: int = -1, solver: str = "dedicated") -> CentreTuning:
    """Choose (mu, lam) for the local model at ``center`` learnt against ``X_neg``, from its local validation set
    ``(X_val, y_val)`` (``y_val`` True for positives): every grid pair is solved and the local set labelled by the
    decision rule. See the module docstring for the criterion and the ties. ``solver``: "dedicated" (warm-started
    along the grid, `local_solver.solve_local_path`), "cvxpy-direct" (the box QP in CVXPY + Clarabel), "generic"
    (the Model path, backend chosen by certiprog) or a backend name."""
    import time

    t0 = time.perf_counter()
    pairs = grid_path(mu_grid, lam_grid)
    y_val = np.asarray(y_val, bool)
    n_pos, n_neg = int(y_val.sum()), int((~y_val).sum())
    pref = _preference(pairs, prefer)
    if n_pos + n_neg == 0:  # nothing to learn from: the most preferred pair, no solve needed
        best = int(np.argmin(pref))
        return CentreTuning(pairs[best][0], pairs[best][1], "none", float("nan"), 0, 0, fold, pairs,
                            seconds=time.perf_counter() - t0)
    prob = local_problem(X_neg, center)
    method, backend = local_method(solver)
    sols = solve_local_path(prob, pairs, B, method=method, backend=backend, tol=tol)
    C = np.asarray(center, float)[None, :]
    tp, fp, fn = [], [], []
    Yn = X_neg - C[0]
    e2_neg = np.einsum("ij,ij->i", Yn, Yn)
    for sol in sols:
        thr = None
        if rule == "rank":
            r = quad_forms(Yn, sol.M) if rank_metric == "mahalanobis" else e2_neg
            thr = np.array([np.partition(r, m - 1)[m - 1] if r.size >= m else np.inf])
        score, _ = rule_scores(C, [sol.M], np.array([sol.R]), X_val, rule=rule, m=m, rank_metric=rank_metric,
                               thresholds=thr)
        pred = score > 0
        tp.append(int(np.sum(pred & y_val)))
        fp.append(int(np.sum(pred & ~y_val)))
        fn.append(int(np.sum(~pred & y_val)))
    best, crit, value = _choose(tp, fp, fn, n_pos, n_neg, pref)
    return CentreTuning(pairs[best][0], pairs[best][1], crit, value, n_pos, n_neg, fold, pairs, tp, fp,
                        fn, max(s.rel_gap for s in sols), time.perf_counter() - t0, len(sols),
                        (sols[best].M, sols[best].R))


def _choose(tp, fp, fn, n_pos: int, n_neg: int, pref) -> tuple:
    """(index of the chosen pair, criterion, its value) from the local counts (module docstring's rule)."""
    fp_arr = np.asarray(fp)
    if n_pos > 0:
        crit, value = "f-measure", _f_measure(tp, fp, fn)
        key = np.lexsort((pref, fp_arr, -value))
    else:
        crit, value = "fp-rate", fp_arr / max(n_neg, 1)
        key = np.lexsort((pref, value))
    best = int(key[0])
    return best, crit, float(value[best])


def tuning_folds(y_pos, cv: int = 2, random_state=None) -> list:
    """The stratified folds of S: [(train indices, validation indices)], class proportions kept in each fold."""
    from sklearn.model_selection import StratifiedKFold

    y_pos = np.asarray(y_pos, bool)
    if isinstance(cv, bool) or not isinstance(cv, (int, np.integer)) or cv < 2:
        raise InputError(f"cv must be an integer >= 2 (the paper uses 2 folds); got {cv!r}")
    n_pos, n_neg = int(y_pos.sum()), int((~y_pos).sum())
    if min(n_pos, n_neg) < cv:
        raise InputError(f"local tuning with {cv}-fold cross-validation needs at least {cv} examples of each class; "
                         f"got {n_pos} positives and {n_neg} negatives (use tuning=None and fixed mu, lam)")
    skf = StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state)
    return [(tr, va) for tr, va in skf.split(np.zeros((len(y_pos), 1)), y_pos)]


def local_tasks(X, y_pos, folds) -> list:
    """One entry per positive of S, in the order of ``np.flatnonzero(y_pos)``: (row of the positive, fold, indices of
    the fold's training negatives, indices of its local validation set)."""
    y_pos = np.asarray(y_pos, bool)
    out = {}
    for k, (tr, va) in enumerate(folds):
        pos_tr = tr[y_pos[tr]]
        neg_tr = tr[~y_pos[tr]]
        assign, _ = nearest_centre(X[pos_tr], X[va])
        for j, row in enumerate(pos_tr):
            out[int(row)] = (int(row), k, neg_tr, va[assign == j])
    return [out[int(r)] for r in np.flatnonzero(y_pos)]


def tune_local(X, y_pos, *, mu_grid=PAPER_MU, lam_grid=PAPER_LAM, B: float = 4.0, m: int = 3, rule: str = "rank",
               rank_metric: str = "mahalanobis", prefer: str = "grid", cv: int = 2, random_state=None,
               tol: float = DEFAULT_TOL, n_jobs=None, rows=None, solver: str = "dedicated") -> list:
    """Sec. 5.2's local tuning on S = (X, y_pos): a `CentreTuning` per positive of S (in row order), or only for the
    positives whose row is in ``rows``. ``n_jobs``: joblib workers over the local models (they are independent;
    scikit-learn's semantics, `parallel.over_chunks`: the result does not depend on it); ``solver`` as in `tune_centre`."""
    y_pos = np.asarray(y_pos, bool)
    if prefer not in PREFER:
        raise InputError(f"prefer must be one of {PREFER}; got {prefer!r}")
    for name, grid in (("mu_grid", mu_grid), ("lam_grid", lam_grid)):
        positive_grid(grid, name)
    folds = tuning_folds(y_pos, cv, random_state)
    jobs = local_tasks(X, y_pos, folds)
    if rows is not None:
        wanted = set(int(r) for r in rows)
        jobs = [j for j in jobs if j[0] in wanted]
    kw = dict(mu_grid=mu_grid, lam_grid=lam_grid, B=B, m=m, rule=rule, rank_metric=rank_metric, prefer=prefer,
              tol=tol, solver=solver)
    if solver == "dedicated" and 2.0 * float(np.min(positive_grid(mu_grid, "mu_grid"))) * B >= 1.0:
        # the centres of a fold in batches (tune_fold); the batches do not depend on n_jobs, so neither does the fit
        groups = batch_groups(jobs, X.shape[1], key=lambda job: job[1], size=lambda job: len(job[2]))
        done = {job[0]: t for chunk in over_chunks(_tune_groups, groups, n_jobs, X, y_pos, kw)
                for job, t in chunk}
        return [done[job[0]] for job in jobs]
    return [t for chunk in over_chunks(_tune_chunk, jobs, n_jobs, X, y_pos, kw) for t in chunk]


def batch_groups(items: list, d: int, key, size, max_bytes: float = 16e6) -> list:
    """``items`` cut into the batches of the batched solver: items with the same ``key(item)`` (the same negatives),
    in their order, at most ``max_bytes`` of `local_solver.LocalProblem.K` (``size(item)`` negatives x d(d+1)/2
    doubles each) per batch. Deterministic, so results do not depend on how the batches are spread over workers."""
    groups: list = []
    keys = [key(item) for item in items]
    for k in sorted(set(keys)):
        for item in (it for it, kk in zip(items, keys) if kk == k):
            per = 8.0 * size(item) * d * (d + 1) / 2
            if groups and key(groups[-1][-1]) == k and (len(groups[-1]) + 1) * per <= max_bytes:
                groups[-1].append(item)
            else:
                groups.append([item])
    return groups


def _tune_groups(groups, X, y_pos, kw) -> list:
    """`tune_fold` for every batch of ``groups`` (one joblib task), BLAS on 1 thread: [(job, CentreTuning)]."""
    with one_blas_thread():
        return [(job, t) for group in groups for job, t in zip(group, tune_fold(X, y_pos, group, **kw))]


def _tune_chunk(jobs, X, y_pos, kw) -> list:
    """`tune_centre` for every (row, fold, negatives, validation set) of ``jobs`` (one joblib task), BLAS on 1 thread."""
    with one_blas_thread():
        return [tune_centre(X[row], X[neg], X[val], y_pos[val], fold=k, **kw) for row, k, neg, val in jobs]


def tune_fold(X, y_pos, jobs, *, mu_grid=PAPER_MU, lam_grid=PAPER_LAM, B: float = 4.0, m: int = 3,
              rule: str = "rank", rank_metric: str = "mahalanobis", prefer: str = "grid", tol: float = DEFAULT_TOL,
              solver: str = "dedicated", max_bytes: float = 16e6) -> list:
    """`tune_centre` for the local models of ONE fold at once (``jobs``: (row, fold, negatives, validation set) with
    the same negatives): the same choices from certified solves of the same problems, but solved in batches
    (`batch_solver.solve_batch`): for a chunk of lam values (as many as fit in ``max_bytes`` of the batch's work
    arrays), every centre x lam is a slot walking the mu values in ascending order, from a cold start at the
    smallest, each problem warm-started from the previous one's answer; the few answers the batch does not certify
    are re-solved one by one (`local_solver.solve_local_checked`, from the batch's best point). The local validation sets are labelled for all pairs at once. ``seconds`` of each `CentreTuning` is
    the fold's time divided by its number of centres."""
    import time

    from .batch_solver import solve_batch
    from .local_solver import solve_local_checked

    t0 = time.perf_counter()
    if solver != "dedicated":
        raise InputError(f"tune_fold runs the dedicated solver only; got solver={solver!r}")
    if len({tuple(job[2]) for job in jobs}) != 1:
        raise InputError("tune_fold needs local models that share their negatives (one fold)")
    neg = jobs[0][2]
    pairs = grid_path(mu_grid, lam_grid)
    where = {pair: j for j, pair in enumerate(pairs)}
    mus, lams = sorted({mu for mu, _ in pairs}), sorted({lam for _, lam in pairs})
    # a centre whose local validation set is empty needs no solve (its pair is the most preferred one: tune_centre)
    solved = [i for i, job in enumerate(jobs) if len(job[3]) > 0]
    P, C = len(pairs), len(solved)
    d = X.shape[1]
    Ms, Rs, gaps = np.empty((P, len(jobs), d, d)), np.empty((P, len(jobs))), np.zeros((P, len(jobs)))
    if not solved:
        lams = []
    else:
        probs, K, q0 = local_problems(X[neg], X[[jobs[i][0] for i in solved]])
    # a batch's memory per lam value: for each of its C slots, ~24 work arrays of n and its best point,
    # and the face solve's columns and matrix (k x (p + k), k <= min(n, 2 (p + 1)) free coordinates)
    n_, p_ = len(neg), d * (d + 1) // 2
    k_ = min(n_, 2 * (p_ + 1))
    step = max(1, int(max_bytes // max(8 * C * (n_ * 25 + k_ * (p_ + k_)), 1)))
    for a in range(0, len(lams), step):
        chunk = lams[a:a + step]
        L = len(chunk)
        which = np.repeat(np.arange(C), L)  # slot r: centre r // L, lam chunk[r % L], along the mu values
        lam_rows = np.tile(np.asarray(chunk, float), C)
        b = C * L
        ans = solve_batch(K, q0, np.tile(np.asarray(mus, float), (b, 1)), np.tile(lam_rows[:, None], len(mus)), B,
                          which=which, tol=tol, keep_alpha=False)
        M, R, gap = ans.M, ans.R, ans.rel_gap  # row t * b + r: slot r at mus[t]
        for r in np.flatnonzero(~ans.ok):
            sol = solve_local_checked(probs[which[r % b]], mus[r // b], lam_rows[r % b], B, alpha0=ans.unsettled[r],
                                      tol=tol)
            M[r], R[r], gap[r] = sol.M, sol.R, sol.rel_gap
        for t, mu in enumerate(mus):
            for li, lam in enumerate(chunk):
                j, a = where[(mu, lam)], t * b + li
                Ms[j, solved], Rs[j, solved], gaps[j, solved] = M[a:a + b:L], R[a:a + b:L], gap[a:a + b:L]
    seconds = (time.perf_counter() - t0) / max(len(jobs), 1)
    slot = {i: c for c, i in enumerate(solved)}
    pref = _preference(pairs, prefer)
    out = []
    for i, (row, k, _, val) in enumerate(jobs):
        t1 = time.perf_counter()
        y_val = np.asarray(y_pos[val], bool)
        n_pos, n_neg = int(y_val.sum()), int((~y_val).sum())
        if n_pos + n_neg == 0:  # as tune_centre: the most preferred pair, nothing solved
            best = int(np.argmin(pref))
            out.append(CentreTuning(pairs[best][0], pairs[best][1], "none", float("nan"), 0, 0, k, pairs,
                                    seconds=seconds))
            continue
        tp, fp, fn = _pair_counts(X[row], X[neg], X[val], y_val, Ms[:, i], Rs[:, i], m, rule, rank_metric,
                                  K[slot[i]])
        best, crit, value = _choose(tp, fp, fn, n_pos, n_neg, pref)
        out.append(CentreTuning(pairs[best][0], pairs[best][1], crit, value, n_pos, n_neg, k, pairs, tp, fp, fn,
                                float(gaps[:, i].max()), seconds + time.perf_counter() - t1, P,
                                (Ms[best, i], Rs[best, i])))
    return out


def _pair_counts(center, X_neg, X_val, y_val, Ms, Rs, m: int, rule: str, rank_metric: str, K_neg=None) -> tuple:
    """(tp, fp, fn) lists of the local validation set ``(X_val, y_val)`` labelled by the decision rule with each
    local model (``Ms`` P x d x d, ``Rs``) of the centre: the same numbers as `tune_centre`'s loop, the "rank" and
    "ellipsoid" rules for all P models at once. ``K_neg``: the centre's `local_solver.LocalProblem.K` (svec of
    y_i y_i^T), so the negatives' distances y_i^T M y_i = svec(M)^T K_neg[:, i] are one matrix product."""
    C = np.asarray(center, float)[None, :]
    Yn = X_neg - C[0]
    if rule == "batch":
        tp, fp, fn = [], [], []
        for M, R in zip(Ms, Rs):
            score, _ = rule_scores(C, [M], np.array([R]), X_val, rule=rule, m=m, rank_metric=rank_metric)
            pred = score > 0
            tp.append(int(np.sum(pred & y_val)))
            fp.append(int(np.sum(pred & ~y_val)))
            fn.append(int(np.sum(~pred & y_val)))
        return tp, fp, fn
    Yv = X_val - C[0]
    q_val = np.einsum("pij,ij->pi", np.matmul(Yv, Ms), Yv)
    score = Rs[:, None] - q_val
    if rule == "rank":
        if rank_metric == "mahalanobis" and K_neg is not None:
            iu, ju = np.triu_indices(Ms.shape[1])
            r_neg, r_val = (Ms[:, iu, ju] * np.where(iu == ju, 1.0, np.sqrt(2.0))) @ K_neg, q_val
        elif rank_metric == "mahalanobis":
            r_neg, r_val = np.einsum("pij,ij->pi", np.matmul(Yn, Ms), Yn), q_val
        else:
            e2 = np.einsum("ij,ij->i", Yn, Yn)
            r_neg, r_val = np.broadcast_to(e2, (len(Ms), len(e2))), np.einsum("ij,ij->i", Yv, Yv)[None, :]
        thr = _mth_smallest(r_neg, m) if r_neg.shape[1] >= m else np.full(len(Ms), np.inf)
        score = np.minimum(score, thr[:, None] - r_val)
    pred = score > 0
    return ([int(v) for v in np.sum(pred & y_val, axis=1)], [int(v) for v in np.sum(pred & ~y_val, axis=1)],
            [int(v) for v in np.sum(~pred & y_val, axis=1)])


def _mth_smallest(r, m: int, head: int = 32) -> np.ndarray:
    """Each row's m-th smallest entry (``np.partition(r, m - 1, axis=1)[:, m - 1]``, ties counted), selected
    among the entries no larger than the m-th smallest of the first ``head`` columns (an upper bound on it, so
    every entry up to it is kept): a selection over ~m n / head entries a row instead of n."""
    P, n = r.shape
    if n <= 2 * head or m > head:
        return np.partition(r, m - 1, axis=1)[:, m - 1]
    bound = np.partition(r[:, :head], m - 1, axis=1)[:, m - 1]
    keep = r <= bound[:, None]
    count = keep.sum(axis=1)
    k = int(count.max())
    if 4 * k > n:
        return np.partition(r, m - 1, axis=1)[:, m - 1]
    rows, pos, cols = left_aligned(keep, count)
    cand = np.full((P, k), np.inf)
    cand[rows, pos] = r[rows, cols]
    return np.partition(cand, m - 1, axis=1)[:, m - 1]
