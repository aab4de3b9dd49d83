"""Hole punching (paper 003, Sec. 5.2): the piecewise predictor of eq. (6) with Euclidean-ball holes.

f(x) = h(x) g_bar(x) + sum_j h_j(x) g_j(x) (eq. (6) with the typo g_bar(x_i) -> g_bar(x) corrected, claim 003-E6):
an ambient error-clumping classifier h and balls B_j = {x : ||x - c_j|| <= r_j} with their own classifiers h_j. A
point is routed to the **innermost** ball containing it (smallest radius; equal radii: the later hole), so the
pieces are disjoint even when balls nest or overlap.

One round, given the current piecewise predictor's training errors e (points already routed):

1. centre: the training point whose Theta-neighbourhood N_i (radius rho, i excluded, as Theta) holds the most
   errors (ties: a misclassified point first, then the smaller index);
2. radius: the largest r in {||x_j - c||} such that the training points the new ball would take (those within r
   that no strictly smaller hole owns) are more than 50 % misclassified (and number >= ``min_hole_size``);
3. the hole's classifier: eq. (1) trained on those points (same rho, eta, lam; the induced neighbourhood graph), or
   the majority constant when it makes fewer training errors there or the points hold one class. The constant makes
   at most 50 % errors where there were more than 50 %, so every punched hole strictly lowers the training error
   (the paper's boosting argument, claim 003-boost).

**The stall (claim 003-hp)**: the paper's centre can have no qualifying radius although errors exist (five points on
a line, errors at both ends: the middle point has the most erring neighbours but every ball around it is at most
40 % wrong). We then try the next centres in the order of step 1, up to ``max_center_tries`` of them, and after those
the misclassified points themselves (a misclassified point's radius-0 ball is 100 % wrong unless it has correctly
classified duplicates). Only when none qualifies ("no hole helps") does the loop stop early, with ``stop_reason``
saying so. It also stops after ``n_holes`` holes or when no training error is left.

The paper's loop may return a ball that meets an earlier one (claim 003-hpT1), leaving Thm 1's class of disjoint
holes; ``disjoint_holes=True`` caps each radius so every new ball misses the earlier ones (centres inside a hole are
skipped), keeping the predictor in that class.

Cost per round: O(nnz(A)) for the error counts, O(m (n + log m)) per centre tried for the first time (distances
and their sort, kept across rounds) and O(m log m) per centre tried again.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from certiprog.errors import BackendError, InputError

from .learner import fit_error_clumping
from .programs import neighbourhood_graph

__all__ = ["HolePunchingResult", "ball_distances", "find_hole", "hole_punching", "next_hole", "route"]

_BLOCK_VALUES = 2 ** 16  # values per block of ball_distances (512 KB)
_CACHE_BYTES = 256 * 2 ** 20  # the centre distances kept across rounds


def ball_distances(X, center) -> np.ndarray:
    """||x_i - c|| for every row (the one distance used for training and routing, so a ball's boundary points are
    inside it in both). The value of ``np.linalg.norm(X - c, axis=1)`` (the same per-row operations), computed
    over blocks of rows so the difference array stays in cache instead of being an (m, n) temporary."""
    X = np.asarray(X, float)
    c = np.asarray(center, float).reshape(-1)
    m = X.shape[0]
    out = np.empty(m)
    step = max(1, _BLOCK_VALUES // max(X.shape[1], 1))
    for s in range(0, m, step):
        diff = X[s:s + step] - c[None, :]
        np.multiply(diff, diff, out=diff)
        np.add.reduce(diff, axis=1, out=out[s:s + step])
    return np.sqrt(out, out=out)


class _CentreDistances:
    """Distances from training centres to all training points, sorted and as candidate radii, kept across rounds
    (a centre that stalled in one round is usually tried again in the next); least recently used entries are
    dropped beyond ``max_bytes``."""

    def __init__(self, X, max_bytes: int = _CACHE_BYTES):
        self.X = X
        self.entries: OrderedDict = OrderedDict()
        self.limit = max(1, int(max_bytes) // max(1, 3 * 8 * X.shape[0]))

    def __call__(self, center: int):
        hit = self.entries.get(center)
        if hit is not None:
            self.entries.move_to_end(center)
            return hit
        d = ball_distances(self.X, self.X[center])
        ds = np.sort(d)
        hit = (d, ds, ds[np.concatenate(([True], ds[1:] != ds[:-1]))])  # = np.unique(d)
        self.entries[center] = hit
        if len(self.entries) > self.limit:
            self.entries.popitem(last=False)
        return hit


def route(X, centers, radii) -> np.ndarray:
    """The piece of each row of X: -1 (ambient) or the index of the innermost ball containing it (smallest radius;
    equal radii: the later hole)."""
    X = np.asarray(X, float)
    owner = np.full(X.shape[0], -1, dtype=int)
    k = len(radii)
    # lowest priority first, so the innermost ball is written last
    for j in sorted(range(k), key=lambda j: (-radii[j], j)):
        owner[ball_distances(X, centers[j]) <= radii[j]] = j
    return owner


def _owner_radius(owner, radii) -> np.ndarray:
    r = np.full(owner.size, np.inf)
    held = owner >= 0
    r[held] = np.asarray(radii, float)[owner[held]]
    return r


def find_hole(X, err, owner_radius, center: int, min_hole_size: int = 1, r_max: float = np.inf, distances=None,
              error_fraction: float = 0.5, used_radii=()):
    """The largest radius of a ball around ``X[center]`` whose would-be points are more than ``error_fraction``
    (the paper: 50 %) misclassified.

    A point j joins a ball of radius r iff d_j <= r and its current hole's radius is not smaller (owner_radius_j
    >= r; inf when ambient). Only radii r < ``r_max`` are allowed (disjoint holes), and none of ``used_radii``
    (the radii of earlier holes at this centre: the same ball again would take the same points). ``distances``: a
    `_CentreDistances` of X (reused across rounds). Returns (radius, mask of the points it takes) or None.
    """
    if distances is None:
        d = ball_distances(X, X[center])
        ds = np.sort(d)
        cand = np.unique(d)
    else:
        d, ds, cand = distances(int(center))
    t = np.maximum(d, np.nextafter(owner_radius, np.inf))  # j is excluded at r iff t_j <= r (d_j <= r, o_j < r)
    ts = np.sort(t)
    ed, et = d[err], t[err]
    ed.sort()
    et.sort()
    n_in = np.searchsorted(ds, cand, side="right") - np.searchsorted(ts, cand, side="right")
    e_in = np.searchsorted(ed, cand, side="right") - np.searchsorted(et, cand, side="right")
    wrong = (2 * e_in > n_in) if error_fraction == 0.5 else (e_in > error_fraction * n_in)
    ok = wrong & (n_in >= max(1, int(min_hole_size))) & (cand < r_max)
    if len(used_radii):
        ok &= ~np.isin(cand, np.asarray(used_radii, float))
    if not ok.any():
        return None
    r = float(cand[np.flatnonzero(ok)[-1]])
    return r, (d <= r) & (owner_radius >= r)


def next_hole(X, err, A, owner, radii, max_center_tries=50, min_hole_size=1, centers=None, disjoint=False,
              distances=None, error_fraction=0.5, centre_index=None):
    """One round's ball (module docstring, steps 1-2 and the stall rule), or None when no hole helps.

    ``err``: the current training errors (bool); ``A``: the neighbourhood graph; ``owner``: each training point's
    hole (-1 ambient); ``radii``: the holes' radii; ``disjoint``: keep the new ball disjoint from the holes at
    ``centers`` (closed balls: ||c - c_j|| > r + r_j; a centre inside an existing ball is skipped); ``distances``: a
    `_CentreDistances` of X kept across rounds; ``error_fraction``: the radius rule's threshold (paper: 0.5);
    ``centre_index``: the training indices of the earlier holes' centres (no ball is punched twice; under the
    paper's 0.5 a repeat cannot qualify anyway). Returns (centre index, radius, mask of the points it takes, centres
    tried, errors in the centre's neighbourhood).
    """
    if not err.any():
        return None
    cands, counts = _candidates(A, err, int(max_center_tries))
    o_r = _owner_radius(owner, radii)
    if disjoint and len(radii):
        C, R = np.asarray(centers, float), np.asarray(radii, float)
    for tries, ci in enumerate(cands, start=1):
        r_max = np.inf
        if disjoint and len(radii):
            r_max = float(np.min(np.linalg.norm(C - X[ci], axis=1) - R))
            if not r_max > 0:
                continue
        used = [r for c, r in zip(centre_index or (), radii) if c == ci]
        found = find_hole(X, err, o_r, int(ci), min_hole_size, r_max, distances, error_fraction, used)
        if found is not None:
            return int(ci), found[0], found[1], tries, int(counts[ci])
    return None


def _candidates(A, err, max_tries):
    """Centres in the order of step 1, the first ``max_tries`` of them, then the misclassified points."""
    counts = np.asarray(A @ err.astype(float)).ravel()
    order = np.lexsort((np.arange(err.size), ~err, -counts))
    first = order[:max_tries]
    rest = order[max_tries:]
    return np.concatenate([first, rest[err[rest]]]), counts


@dataclass
class HolePunchingResult:
    """``base``: the ambient fit (dict: objective, certificate, solver, status, history); ``base_w``; ``holes``: one
    dict per hole (center_index, radius, kind 'error_clumping' | 'constant', constant, n_points, errors_before,
    errors_after, objective, certificate, solver, tried_centers); ``hole_w`` (k, dim): each hole's weights (zeros for
    a constant); ``centers`` (k, n), ``radii`` (k,); ``history``: per round (round, n_errors, training_error, hole);
    ``stop_reason``; ``n_features``: the columns of the un-augmented X (routing)."""

    base: dict
    base_w: np.ndarray
    holes: list
    hole_w: np.ndarray
    centers: np.ndarray
    radii: np.ndarray
    history: list
    stop_reason: str
    n_features: int
    dim: int = 0
    train_route: np.ndarray | None = None
    _constants: np.ndarray = field(init=False, repr=False)  # set by __post_init__ from holes

    def __post_init__(self):
        self._constants = np.array([h["constant"] if h["kind"] == "constant" else np.nan for h in self.holes])

    def decision(self, Xa) -> np.ndarray:
        """The routed piece's decision value on augmented rows ``Xa`` (routing on their first n_features columns)."""
        Xa = np.asarray(Xa, float)
        owner = route(Xa[:, :self.n_features], self.centers, self.radii)
        out = Xa @ self.base_w
        for j in np.unique(owner[owner >= 0]):
            sel = owner == j
            out[sel] = self._constants[j] if self.holes[j]["kind"] == "constant" else Xa[sel] @ self.hole_w[j]
        return out

    def staged_decisions(self, Xa):
        """``truncated(r).decision(Xa)`` for r = 0, 1, ..., k (a generator of fresh arrays), built hole by hole:
        hole j takes the points of its ball whose current piece has a radius >= r_j (the innermost rule, equal
        radii: the later hole), so each ball's distances and each piece's values are computed once (k passes over
        Xa instead of k(k + 1)/2)."""
        Xa = np.asarray(Xa, float)
        X = Xa[:, :self.n_features]
        out = Xa @ self.base_w
        owner_radius = np.full(Xa.shape[0], np.inf)
        yield out.copy()
        for j, hole in enumerate(self.holes):
            r = float(self.radii[j])
            take = np.flatnonzero((ball_distances(X, self.centers[j]) <= r) & (owner_radius >= r))
            owner_radius[take] = r
            out[take] = self._constants[j] if hole["kind"] == "constant" else Xa[take] @ self.hole_w[j]
            yield out.copy()

    def truncated(self, rounds: int) -> "HolePunchingResult":
        """The predictor after the first ``rounds`` holes (0: the ambient classifier alone), e.g. for test error
        against the hole-punching round (the paper's Fig. 2)."""
        r = int(rounds)
        if not 0 <= r <= len(self.holes):
            raise InputError(f"rounds must lie in [0, {len(self.holes)}]; got {rounds!r}")
        return HolePunchingResult(self.base, self.base_w, self.holes[:r], self.hole_w[:r], self.centers[:r],
                                  self.radii[:r], self.history[:r + 1], self.stop_reason, self.n_features, self.dim)

    def to_saved(self):
        meta = {"base": self.base, "holes": self.holes, "history": self.history, "stop_reason": self.stop_reason,
                "n_features": self.n_features}
        arrays = {"base_w": self.base_w, "hole_w": self.hole_w.reshape(len(self.holes), -1),
                  "centers": self.centers.reshape(len(self.holes), -1), "radii": self.radii}
        return meta, arrays

    @classmethod
    def from_saved(cls, meta, arrays, n_features, dim):
        k = len(meta["holes"])
        base_w = np.asarray(arrays["base_w"], float)
        hole_w = np.asarray(arrays["hole_w"], float).reshape(k, -1) if k else np.zeros((0, dim))
        centers = np.asarray(arrays["centers"], float).reshape(k, -1) if k else np.zeros((0, n_features))
        radii = np.asarray(arrays["radii"], float).reshape(-1)
        if base_w.shape != (dim,) or hole_w.shape != (k, dim) or centers.shape != (k, n_features) or radii.size != k:
            raise ValueError("array shapes do not match the saved holes and features")
        if np.any(radii < 0) or int(meta["n_features"]) != n_features:
            raise ValueError("negative radius or feature count mismatch")
        for h in meta["holes"]:
            if h["kind"] not in ("constant", "error_clumping") or (h["kind"] == "constant" and h["constant"] not in
                                                                   (-1.0, 1.0)):
                raise ValueError(f"invalid hole {h!r}")
        return cls(meta["base"], base_w, meta["holes"], hole_w, centers, radii, meta["history"],
                   meta["stop_reason"], n_features, dim)


def _fit_summary(fit) -> dict:
    return {"objective": float(fit.objective), "certificate": fit.certificate.to_json(), "solver": fit.solver,
            "status": fit.status, "history": fit.history}


def hole_punching(X, y, n_holes, rho, eta, lam, solver="auto", augment=None, min_hole_size=1, max_center_tries=50,
                  graph=None, disjoint_holes=False, error_fraction=0.5, hole_lams=None, validation=None,
                  **fit_kwargs) -> HolePunchingResult:
    """Sec. 5.2's loop (module docstring) on X (m, n), y in {+1, -1}; at most ``n_holes`` holes.

    ``error_fraction`` (the radius rule): a ball qualifies when more than this fraction of the points it takes is
    misclassified (the paper: 0.5; below 0.5 a hole's constant no longer guarantees progress, so the in-hole
    classifier is chosen as below and a round may raise the training error). ``hole_lams``: the lambdas tried for
    each hole's eq. (1) (default: ``lam`` alone). ``validation``: ``(X_val, y_val)`` held-out points (un-augmented,
    y in {+1, -1}); each hole's classifier (the constant or eq. (1) at one of ``hole_lams``) is then the one with
    the fewest errors on the validation points the ball takes (ties: fewer training errors, then the constant,
    then the larger lambda); without it, the fewest training errors (ties: eq. (1) at the first lambda).
    ``augment(X) -> Xa``: the features the linear pieces see (e.g. X with a constant column appended; default X);
    routing and neighbourhoods use X. ``fit_kwargs`` go to `learner.fit_error_clumping` (passes, c, random_state,
    tol, progress; ``progress`` also drives a tqdm bar over the rounds, None: on a terminal only). ``graph``: a
    precomputed `neighbourhood_graph(X, rho)`. ``disjoint_holes``: every new ball must miss the earlier ones, so the
    predictor stays in the class of Thm 1 (disjoint g_j; errors inside a hole are then left to that hole).
    """
    X = np.asarray(X, float)
    y = np.asarray(y, float)
    m, n = X.shape
    if int(n_holes) < 0:
        raise InputError(f"n_holes must be >= 0; got {n_holes!r}")
    if int(max_center_tries) < 1 or int(min_hole_size) < 1:
        raise InputError("max_center_tries and min_hole_size must be >= 1")
    error_fraction = float(error_fraction)
    if not 0.0 <= error_fraction < 1.0:
        raise InputError(f"error_fraction must lie in [0, 1); got {error_fraction!r}")
    lams = [float(lam)] if hole_lams is None else [float(v) for v in np.atleast_1d(hole_lams)]
    if not lams or not all(np.isfinite(v) and v > 0 for v in lams):
        raise InputError(f"hole_lams must be positive finite numbers; got {hole_lams!r}")
    Xa = X if augment is None else np.asarray(augment(X), float)
    A = neighbourhood_graph(X, rho) if graph is None else graph
    if validation is not None:
        Xv = np.asarray(validation[0], float)
        yv = np.asarray(validation[1], float)
        if Xv.ndim != 2 or Xv.shape[1] != n or yv.shape != (Xv.shape[0],) or not np.all(np.isfinite(Xv)):
            raise InputError(f"validation must be (X_val, y_val) with X_val (k, {n}) finite and y_val (k,)")
        Xva = Xv if augment is None else np.asarray(augment(Xv), float)
        val_radius = np.full(Xv.shape[0], np.inf)
    base = fit_error_clumping(Xa, y, rho, eta, lam, solver, graph=A, **fit_kwargs)
    pred = np.where(Xa @ base.w > 0, 1.0, -1.0)
    err = pred != y
    owner = np.full(m, -1, dtype=int)
    holes: list[dict] = []
    hole_w: list[np.ndarray] = []
    centers: list[np.ndarray] = []
    radii: list[float] = []
    distances = _CentreDistances(X)
    history = [{"round": 0, "n_errors": int(err.sum()), "training_error": float(err.mean()), "hole": None}]
    stop = f"n_holes = {n_holes} holes punched"
    progress = fit_kwargs.get("progress")
    bar = tqdm(total=int(n_holes), desc="hole punching", leave=False,
               disable=None if progress is None else not progress)  # None: on a terminal only
    with bar:
        for rnd in range(1, int(n_holes) + 1):
            if not err.any():
                stop = "no training error left"
                break
            found = next_hole(X, err, A, owner, radii, max_center_tries, min_hole_size, centers, disjoint_holes,
                              distances, error_fraction, [h["center_index"] for h in holes])
            if found is None:
                stop = (f"no hole helps: none of the candidate centres (the {min(int(max_center_tries), m)} with "
                        "the most erring neighbours, then every misclassified point) has a ball that is > "
                        f"{100 * error_fraction:g} % misclassified with >= {min_hole_size} points")
                break
            center, radius, take, tries, n_err_nb = found
            idx = np.flatnonzero(take)
            ys = y[idx]
            before = int(err[idx].sum())
            n_pos = int((ys > 0).sum())
            const = 1.0 if 2 * n_pos >= ys.size else -1.0
            vidx = None
            if validation is not None:
                vidx = np.flatnonzero((ball_distances(Xv, X[center]) <= radius) & (val_radius >= radius))
            # candidates: (validation errors, training errors, order, kind, w, summary, lam)
            cands: list[tuple[int, int, int, str, np.ndarray, dict, float | None]] = [
                (0 if vidx is None else int((yv[vidx] != const).sum()), int((ys != const).sum()), 0,
                 "constant", np.zeros(Xa.shape[1]), {}, None)]
            fit_errors = []
            if 0 < n_pos < ys.size and ys.size >= 2:
                sub = A[idx][:, idx]
                for k_lam, lam_h in enumerate(sorted(lams, reverse=validation is not None)):
                    try:
                        fit = fit_error_clumping(Xa[idx], ys, rho, eta, lam_h, solver, graph=sub, **fit_kwargs)
                    except (BackendError, InputError) as exc:  # the constant still helps; say why the fit was dropped
                        fit_errors.append(f"lam {lam_h:g}: {type(exc).__name__}: {exc}")
                        continue
                    tr = int((np.where(Xa[idx] @ fit.w > 0, 1.0, -1.0) != ys).sum())
                    va = 0 if vidx is None else int((np.where(Xva[vidx] @ fit.w > 0, 1.0, -1.0) != yv[vidx]).sum())
                    order = (1 + k_lam) if vidx is not None else -(len(lams) - k_lam)  # no validation: EC wins ties
                    cands.append((va, tr, order, "error_clumping", fit.w, _fit_summary(fit) | {"lam": lam_h},
                                  lam_h))
            best = min(cands, key=lambda c: (c[0], c[1], c[2]) if vidx is not None else (c[1], c[2]))
            kind, w_h, summary = best[3], best[4], dict(best[5])
            if fit_errors:
                summary["fit_error"] = "; ".join(fit_errors)
            if vidx is not None:
                summary |= {"validation_points": int(vidx.size), "validation_errors_after": int(best[0])}
                val_radius[vidx] = radius
            new_pred = (np.where(Xa[idx] @ w_h > 0, 1.0, -1.0) if kind == "error_clumping"
                        else np.full(idx.size, const))
            owner[idx] = len(holes)
            pred[idx] = new_pred
            err[idx] = new_pred != ys
            after = int(err[idx].sum())
            holes.append({"center_index": center, "radius": radius, "kind": kind, "constant": const,
                          "n_points": int(idx.size), "errors_before": before, "errors_after": after,
                          "neighbourhood_errors": n_err_nb, "tried_centers": tries} | summary)
            hole_w.append(np.asarray(w_h, float))
            centers.append(X[center].copy())
            radii.append(radius)
            history.append({"round": rnd, "n_errors": int(err.sum()), "training_error": float(err.mean()),
                            "hole": len(holes) - 1})
            bar.update(1)
            bar.set_postfix(training_error=f"{history[-1]['training_error']:.4f}")
    k = len(holes)
    return HolePunchingResult(_fit_summary(base), np.asarray(base.w, float), holes,
                              np.array(hole_w).reshape(k, Xa.shape[1]), np.array(centers).reshape(k, n),
                              np.asarray(radii, float), history, stop, n, Xa.shape[1], owner)
