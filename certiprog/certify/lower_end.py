"""The lower end of the optimality interval: weak duality with a dual proved in K* (`lower_bound`).

The dual is moved into K* (`certiprog.certify.dual_cone`), the Lagrangian is bounded below over the box
(`certiprog.certify.lagrangian`); columns it leaves unbounded are tightened over their rows
(`certiprog.certify.box.tighten_columns`), bounded through the SOC constraints (`certiprog.certify.soc_ball`), or
zeroed by a dual correction (`certiprog.certify.correction`). The derivation:
docs/derivations/optimality-interval.md (the lower end).
"""
from __future__ import annotations

import numpy as np

from .box import tighten_columns
from .correction import dual_correction, zero_row_duals
from .dual_cone import dual_in_cone
from .lagrangian import Lagrangian, lin_terms, sum_lo
from .psd import PsdCertificate, psd_certificate
from .rigorous import Ball
from .soc_ball import soc_ball_bound

_BALL_MIN = 64  # from this many unbounded columns on, bound them by the SOC ball first (`soc_ball_bound`)


def lower_bound(problem, x, z, lo, hi, psd: PsdCertificate | None = None,
                upper: float = np.inf) -> tuple[float, str, dict]:
    """Rigorous lower bound on p* (minimisation form); see the module docstring.

    ``upper``: the upper end at hand (minimisation form); it only decides whether the SOC ball's price is small
    enough (`soc_ball_bound`), never the bound's validity."""
    info: dict = {}  # how the lower end was found (the certificate's report)
    pc = psd if psd is not None else psd_certificate(problem.P)
    info["P"] = pc.kind
    if pc.kind == "indefinite":
        return -np.inf, pc.why + ": the program is not convex, no bound", info
    if pc.kind == "unknown":
        return -np.inf, pc.why, info
    zc, dz = dual_in_cone(problem, z)
    info["z_change"] = dz
    lag = Lagrangian(problem, x, lo, hi, pc)
    W = Ball(zc)
    const, terms, coef = lag.evaluate(W)
    J = np.flatnonzero(terms == -np.inf)
    if J.size == 0:
        return sum_lo(terms, const), "" if np.isfinite(const.lo()) else "P is PSD only up to a shift and its " \
            "columns are unbounded", info
    if J.size < _BALL_MIN:  # a few: first tighten their bounds over the linear rows they occur in (cheap box)
        lo2, hi2 = tighten_columns(problem, J, lo, hi)
        if lo2 is not None and pc.kind in ("zero", "diagonal", "pd"):  # J's terms are linear: recompute those only
            tJ = lin_terms(coef[J], lo2[J], hi2[J])
            if np.all(tJ > -np.inf):
                terms2 = terms.copy()
                terms2[J] = tJ
                info["tightened_columns"] = int(J.size)
                return sum_lo(terms2, const), "", info
        elif lo2 is not None:
            lag2 = Lagrangian(problem, x, lo2, hi2, pc)
            const2, terms2, coef2 = lag2.evaluate(W)
            if not np.any(terms2 == -np.inf):
                info["tightened_columns"] = int(J.size)
                return sum_lo(terms2, const2), "" if np.isfinite(const2.lo()) else "P is PSD only up to a shift " \
                    "and its columns are unbounded", info
    if J.size >= _BALL_MIN and pc.kind in ("zero", "diagonal", "pd"):  # many unbounded columns: the SOC ball
        L, bwhy, binfo = soc_ball_bound(problem, lag, coef, J, W, (const, terms, coef))
        if np.isfinite(L):
            price = binfo.get("soc_ball_loss", np.inf)
            # accepted when its price is small beside the interval's width (otherwise the exact correction)
            if not np.isfinite(upper) or price <= 0.25 * max(upper - L, 0.0) or price <= 1e-12 * abs(L):
                info.update(binfo)
                return L, "", info
            info["soc_ball_rejected"] = float(price)
    for _ in range(4):
        L, why, cinfo = dual_correction(problem, lag, W, coef, J, zc)
        more = cinfo.pop("more", None)
        if more is None:
            break
        J = np.union1d(J, more)
    info.update(cinfo)
    if L == -np.inf:  # last resort: the inequality rows touching J with their duals set to exactly 0
        L0, zinfo = zero_row_duals(problem, lag, W, J)
        if np.isfinite(L0):
            info.update(zinfo)
            return L0, "", info
    if L == -np.inf:
        names = sorted({_col_name(problem, int(j)) for j in J})
        return -np.inf, (f"no bound on column(s) of {names[:6]} whose coefficient in the Lagrangian is not exactly "
                         f"zero, and {why}; pass x_bound= (box or ball radius of the variables)"), info
    return L, "", info


def _col_name(problem, j: int) -> str:
    for name, (_, a, b) in problem.columns.items():
        if a <= j < b:
            return name
    return f"column {j}"
