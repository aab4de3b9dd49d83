"""Paper 003's Thm 1 (Rademacher complexity of piecewise predictors with k disjoint holes) as `Bound` objects, and
its evaluation on a fitted hole-punching predictor.

H (x)^k G = {x -> sum_j h_j(x) g_j(x) : h_j in H, g_1..g_k in G disjoint}, sup |h| <= 1. Thm 1 (the sup form, claim
003-T1) and its sqrt(k) form (claim 003-T1b, registered here under that id): if R_m(H) <= sqrt(d_H/m) on every
sample and VC(G) <= d_G with d_G > 2, then

    R_m(H (x)^k G) <= sqrt(k) (sqrt(d_H/m) + 8 sqrt(d_G log(m)/m)).

The sqrt(k) form needs the g_j disjoint (Cauchy-Schwarz: sum_j sqrt(n_j) <= sqrt(k sum_j n_j) <= sqrt(k m); the
printed sup over arbitrary g_j allows k copies of one ball, claim 003-T1b). Re-derived (doc in claims 003-T1): for a
fixed partition S_1..S_k of the sample the expected sup is sum_j E sup_h sum_{S_j} sigma_i h(x_i) <= sum_j
sqrt(d_H n_j); each partition's sup has bounded differences 2 in every sigma_i (each i lies in one S_j), so
E max over the <= (e m/d_G)^{k d_G} partitions (Sauer) adds sqrt(2 m k d_G log(e m/d_G)). Hence the sharper

    R_m(H (x)^k G) <= sqrt(k d_H/m) + sqrt(2 k d_G log(e m/d_G)/m)        (m >= d_G; '003-T1b.mcdiarmid'),

which implies the printed one when d_G >= 3 (then log(e m/d_G) <= log m): the paper's d_G > 2 is what that step
needs, and its constant 8 can be sqrt(2).

`thm1_on_predictor` evaluates both on a fitted `HolePunchingClassifier`: k = its holes, G = closed Euclidean balls
in R^n (VC dimension n + 1, so d_G = max(n + 1, 3)), H = linear pieces clipped to [-1, 1] (the ambient and hole
classifiers and the constants +-1 lie in it) with ||w|| <= W: by contraction R_m(H) <= W B/sqrt(m), B = max ||x~_i||
over the (augmented) training points, so d_H = (W B)^2 with W = max(max_j ||w_j||, 1/intercept_scaling). W and B
are read off the fit and the sample (a data-dependent class; no union bound over W is included). It refuses
(InputError) when two holes intersect: the theorem does not cover overlapping holes (our routing then makes the
pieces ball differences, another class G; claim 003-hpT1). ``HolePunchingClassifier(disjoint_holes=True)`` keeps
the holes disjoint, so the bound always applies to it.
"""
from __future__ import annotations

import itertools

import numpy as np
import sympy as sp

from certiprog.audit.bounds import Assumption, Bound, register
from certiprog.errors import InputError

__all__ = ["T1B", "T1B_MCDIARMID", "thm1_on_predictor"]

m = sp.Symbol("m", positive=True, integer=True)
k = sp.Symbol("k", positive=True, integer=True)
d_H = sp.Symbol("d_H", positive=True)
d_G = sp.Symbol("d_G", positive=True, integer=True)
_SYMS = {"k": k, "m": m, "d_H": d_H, "d_G": d_G}
_EXAMPLE = {"k": 5, "m": 35_000, "d_H": 1.0, "d_G": 786}

_DISJOINT = "g_1..g_k in G are disjoint (every x lies in at most one hole)"
_RH = "R_m(H) <= sqrt(d_H/m) on every sample of every size m (sup_x |h(x)| <= 1)"
_VC = "VC(G) <= d_G"
_QUANTITY = r"\mathcal{R}_m(\mathcal{H} \otimes^k \mathcal{G})"

T1B = register(Bound(
    "003-T1b", "Rademacher complexity of k disjoint holes (Thm 1, sqrt(k) form)", "003", "Sec. 4, Theorem 1",
    _QUANTITY, _SYMS, sp.sqrt(k) * (sp.sqrt(d_H / m) + 8 * sp.sqrt(d_G * sp.log(m) / m)), sp.Integer(0),
    [_DISJOINT, _RH, _VC, Assumption("d_G > 2", lambda v: v["d_G"] > 2, ("d_G",))],
    status="corrected", example=_EXAMPLE,
    notes="a bound on the empirical Rademacher complexity (deterministic: failure probability 0). As printed the sup "
          "is over any g_1..g_k; the sqrt(k) step needs them disjoint (claim 003-T1b). Implied by the re-derived "
          "003-T1b.mcdiarmid for d_G >= 3."))

T1B_MCDIARMID = register(Bound(
    "003-T1b.mcdiarmid", "Rademacher complexity of k disjoint holes (re-derived: Sauer + McDiarmid)", "003",
    "Sec. 4, Theorem 1 (re-derived)", _QUANTITY, _SYMS,
    sp.sqrt(k * d_H / m) + sp.sqrt(2 * k * d_G * sp.log(sp.E * m / d_G) / m), sp.Integer(0),
    [_DISJOINT, _RH, _VC, Assumption("m >= d_G (Sauer's lemma)", lambda v: v["m"] >= v["d_G"], ("m", "d_G"))],
    status="re-derived", example=_EXAMPLE,
    notes="max over the <= (em/d_G)^(k d_G) partitions of sub-Gaussian sups (variance proxy m); sharper than the "
          "printed constant 8 by a factor 8/sqrt(2) when d_G >= 3."))


def _balls_disjoint(centers, radii):
    """Pairs (i, j) of closed balls that intersect (||c_i - c_j|| <= r_i + r_j)."""
    return [(i, j) for i, j in itertools.combinations(range(len(radii)), 2)
            if np.linalg.norm(centers[i] - centers[j]) <= radii[i] + radii[j]]


def thm1_on_predictor(est, X) -> dict:
    """Thm 1 (both forms) for a fitted `HolePunchingClassifier` ``est`` and its training points ``X`` (module
    docstring for k, d_G, d_H). Raises InputError when holes intersect (the theorem assumes disjoint holes).

    k = max(1, number of holes) (the class with more holes contains the one with fewer). Values >= 1 are vacuous
    (|f| <= 1 gives R_m <= 1). Returns dict(k, m, d_G, d_H, W, B, paper (003-T1b), rederived (003-T1b.mcdiarmid,
    or None when m < d_G), n_holes, fitted_sum_sqrt (sum_j sqrt(n_j) over the fitted holes: a lower estimate of the theorem's sup, not a bound)).
    """
    X = np.asarray(X, float)
    if not hasattr(est, "result_"):
        raise InputError("thm1_on_predictor needs a fitted HolePunchingClassifier")
    if X.ndim != 2 or X.shape[1] != est.n_features_in_ or not np.all(np.isfinite(X)):
        raise InputError(f"X must be the finite training matrix with {est.n_features_in_} columns")
    bad = _balls_disjoint(est.centers_, est.radii_)
    if bad:
        i, j = bad[0]
        raise InputError(f"Thm 1 assumes disjoint holes; holes {i} and {j} intersect (||c_i - c_j|| = "
                         f"{np.linalg.norm(est.centers_[i] - est.centers_[j]):.4g} <= r_i + r_j = "
                         f"{est.radii_[i] + est.radii_[j]:.4g}), and {len(bad)} pair(s) in all: the bound does not "
                         "apply to this predictor")
    res = est.result_
    Xa = est._augment(X)
    B = float(np.max(np.linalg.norm(Xa, axis=1)))
    norms = [float(np.linalg.norm(res.base_w))] + [float(np.linalg.norm(w)) for w, h in zip(res.hole_w, res.holes)
                                                    if h["kind"] == "error_clumping"]
    W = max(norms + ([1.0 / float(est.intercept_scaling)] if est.fit_intercept else []))
    mm, n = X.shape
    kk = max(1, len(res.holes))
    vals = {"k": kk, "m": mm, "d_H": (W * B) ** 2, "d_G": max(n + 1, 3)}
    piece = est.route(X)
    n_j = np.bincount(piece[piece >= 0], minlength=len(res.holes)) if len(res.holes) else np.zeros(0)
    return dict(vals, W=W, B=B, paper=T1B.evaluate(**vals),
                rederived=T1B_MCDIARMID.evaluate(**vals) if mm >= vals["d_G"] else None,
                fitted_sum_sqrt=float(np.sum(np.sqrt(n_j))), n_holes=len(res.holes))
