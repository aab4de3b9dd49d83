"""A box ``lo <= x <= hi`` containing every feasible x whose objective is at most the upper end (bound tightening).

`variable_box` intersects the user's ``x_bound`` with feasibility-based bound tightening (FBBT) over the linear
rows the cones imply and over the objective's level set; `tighten_columns` runs the same passes for a few columns
over their own rows, and `row_slack_hi` bounds each row's slack over a box. It is enough that the box contains the
feasible points with ``f(x) <= upper``: the optimum is the infimum over that set. The derivation:
docs/derivations/optimality-interval.md (the box).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..conic.cones import Cone
from ..errors import InputError
from .cache import csc_A, csr_A
from .rigorous import U as _U
from .rigorous import gamma

_INFL = 1e-9  # relative widening of derived bounds
_BLOCK = 1 << 16  # entries per block of rows in `tighten_columns`' products (its buffer's size)


def _copies(c: Cone) -> Cone:
    """The cone whose copies `Cone.linear_cuts` acts on: a separable cone (zero, nonneg) row by row (its one copy
    of all inequality rows would give a dense rows x rows matrix), any other cone copy by copy."""
    return Cone(c.kind, 1, c.rows, c.alpha) if c.separable else c


def _linear_rows(problem):
    """Rows (G, h) with G x <= h implied by the blocks: each cone's cuts ``C s <= 0`` (`Cone.linear_cuts`, one copy)
    on all its copies at once, ``kron(I_count, C) (b - A x) <= 0``, i.e. ``G = -(C A_blk)``, ``h = -(C b_blk)``."""
    A, b = csr_A(problem), problem.b
    Gs, hs = [], []
    for blk in problem.blocks:
        one = _copies(blk.cone)
        if one.rows == 0:
            continue
        C = sp.kron(sp.eye(one.count, format="csr"), sp.csr_matrix(one.linear_cuts()), format="csr")
        Gs.append(-(C @ A[blk.start:blk.stop])), hs.append(-(C @ b[blk.start:blk.stop]))
    if not Gs:
        return sp.csr_matrix((0, A.shape[1])), np.zeros(0)
    return sp.csr_matrix(sp.vstack(Gs)), np.concatenate([np.atleast_1d(np.asarray(h, float)) for h in hs])


def _bound_rows(problem):
    """(G, h): the single-entry rows of `_linear_rows` whose cut reads one slack (``c s_r <= 0``: variable bounds
    of zero / nonneg rows, ``s_0 >= 0`` of SOC heads, PSD diagonals, ...) on a row of A with one entry, read off A
    in O(nnz) without building the others; the cheap box of `variable_box`."""
    A, b = csr_A(problem), problem.b
    single = np.diff(A.indptr) == 1
    single[single] = A.data[A.indptr[:-1][single]] != 0
    rows, scale = [np.zeros(0, int)], [np.zeros(0)]
    for blk in problem.blocks:
        one = _copies(blk.cone)
        if one.rows == 0:
            continue
        C = one.linear_cuts()
        for j in np.flatnonzero(np.count_nonzero(C, axis=1) == 1):
            r = int(np.flatnonzero(C[j])[0])
            i = blk.start + r + one.dim * np.arange(one.count)
            i = i[single[i]]
            rows.append(i), scale.append(np.full(i.size, -C[j, r]))
    r, sign = np.concatenate(rows), np.concatenate(scale)
    G = sp.csr_matrix((sign * A.data[A.indptr[r]], A.indices[A.indptr[r]], np.arange(r.size + 1)),
                      shape=(r.size, A.shape[1]))
    return G, sign * b[r]


def _improves(new, old, side) -> np.ndarray:
    """new is a notably tighter bound than old (side -1: upper bounds, +1: lower bounds)."""
    with np.errstate(invalid="ignore"):
        tight = side * (new - old) > 1e-7 * (1 + np.abs(old))
    return np.isfinite(new) & (~np.isfinite(old) | tight)


def _column_order(G):
    """(order, starts, cols): G's entries grouped by column (a stable sort of its column indices), for per-column
    minima by ``np.minimum.reduceat`` (``ufunc.at`` is far slower on millions of entries)."""
    order = np.argsort(G.indices, kind="stable")
    cs = G.indices[order]
    starts = np.flatnonzero(np.r_[True, cs[1:] != cs[:-1]]) if cs.size else np.zeros(0, int)
    return order, starts, cs[starts]


def _col_reduce(ufunc, vals, n: int, fill: float, order) -> np.ndarray:
    """Per-column ``ufunc``-reduction of one value per entry of G (``fill`` where a column has none)."""
    out = np.full(n, fill)
    idx, starts, cols = order
    if starts.size:
        out[cols] = ufunc.reduceat(vals[idx], starts)
    return out


def _tighten_rows(G, h, lo, hi, order=None) -> bool:
    """One FBBT pass over G x <= h; updates lo, hi in place; True if something changed notably.

    ``order``: `_column_order(G)` when several passes run over the same G."""
    if G.shape[0] == 0:
        return False
    if order is None:
        order = _column_order(G)
    a, col = G.data, G.indices
    row = np.repeat(np.arange(G.shape[0]), np.diff(G.indptr))
    with np.errstate(invalid="ignore", over="ignore"):
        c = np.where(a > 0, a * lo[col], a * hi[col])
    c = np.where(a == 0, 0.0, c)
    inf = ~np.isfinite(c)
    cf = np.where(inf, 0.0, c)
    fin_sum = np.bincount(row, cf, G.shape[0])
    abs_sum = np.bincount(row, np.abs(cf), G.shape[0])
    n_inf = np.bincount(row, inf.astype(float), G.shape[0])
    if not np.any(n_inf <= 1):  # every row has two unbounded terms or more: nothing to derive
        return False
    rest_inf = n_inf[row] - inf
    ok = (rest_inf == 0) & (a != 0)
    val = np.zeros_like(a)
    pad = np.zeros_like(a)
    if ok.any():  # (only the entries that can give a bound)
        r_ok, a_ok = row[ok], a[ok]
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            v = (h[r_ok] - (fin_sum[r_ok] - cf[ok])) / a_ok
            val[ok] = v
            pad[ok] = _INFL * (np.abs(h[r_ok]) + abs_sum[r_ok] + np.abs(v * a_ok)) / np.abs(a_ok) + 1e-300
    changed = False
    up = ok & (a > 0)
    if up.any():
        new = _col_reduce(np.minimum, np.where(up, val + pad, np.inf), lo.size, np.inf, order)
        better = _improves(new, hi, -1)
        changed |= bool(better.any())
        np.minimum(hi, new, out=hi)
    dn = ok & (a < 0)
    if dn.any():
        new = _col_reduce(np.maximum, np.where(dn, val - pad, -np.inf), lo.size, -np.inf, order)
        better = _improves(new, lo, 1)
        changed |= bool(better.any())
        np.maximum(lo, new, out=lo)
    return changed


def _separable_diagonal(problem):
    """P's diagonal when P is diagonal with P >= 0 (the objective is separable), else None."""
    P = sp.csr_matrix(problem.P)
    if not P.has_canonical_format:  # (duplicates summed first, on a copy)
        P = P.copy()
        P.sum_duplicates()
    d = P.diagonal()
    rows = np.repeat(np.arange(P.shape[0]), np.diff(P.indptr))  # an off-diagonal nonzero, read off the entries in
    if np.any((P.indices != rows) & (P.data != 0)) or (d < 0).any():  # O(nnz) (not P - diag(d): ~0.5 ms at n = 10^4)
        return None
    return d


def _useful_rows(G, lo, hi, q=None, d=None) -> np.ndarray:
    """Rows of G x <= h that `_tighten_rows` could ever use; a boolean mask.

    A row gives a bound on one of its columns only when every *other* entry's needed end (lo for a > 0, hi for
    a < 0) is finite. The ends that could ever become finite are over-approximated by a fixpoint: the finite
    ends of the start box, plus every end some row (or the separable objective level set, when ``d`` is the
    diagonal of P >= 0 and ``q`` the linear part: columns with d > 0 need nothing and get both ends) would give
    if all ends found so far were finite. A row with two entries or more whose needed end stays infinite at the
    fixpoint never yields a bound in any pass, so dropping it leaves the box unchanged (only the work goes)."""
    m, n = G.shape
    if m == 0:
        return np.ones(0, bool)
    a, col = G.data, G.indices
    row = np.repeat(np.arange(m), np.diff(G.indptr))
    quad = np.zeros(a.size, bool)
    if d is not None:  # the objective as one more row: q_j t (d_j = 0) or a quadratic (d_j > 0, needs nothing)
        oc = np.flatnonzero((d != 0) | (q != 0))
        a = np.concatenate([a, np.where(d[oc] > 0, 0.0, q[oc])])
        col = np.concatenate([col, oc])
        row = np.concatenate([row, np.full(oc.size, m)])
        quad = np.concatenate([quad, d[oc] > 0])
    # ends as one flat array: 2j = lo_j, 2j + 1 = hi_j, 2n = "nothing needed" (always finite)
    can = np.concatenate([np.isfinite(np.column_stack([lo, hi])).ravel(), [True]])
    zero = a == 0
    need = 2 * col + (a < 0)
    need[zero] = 2 * n
    give = 2 * col + (a > 0)  # the end a row gives its column: hi for a > 0, lo for a < 0
    give[zero & ~quad] = 2 * n
    qcols = col[quad]
    rows_total = m + (d is not None)
    while True:
        bad = ~can[need]
        k = np.bincount(row[bad], minlength=rows_total)
        kr = k[row]
        yields = (kr == 0) | ((kr == 1) & bad)
        newly = give[yields]
        newly = newly[~can[newly]]
        qy = qcols[yields[quad]] if qcols.size else qcols
        qnew = np.concatenate([2 * qy, 2 * qy + 1]) if qy.size else qy
        qnew = qnew[~can[qnew]] if qnew.size else qnew
        if newly.size == 0 and qnew.size == 0:
            break
        can[newly] = True
        can[qnew] = True
    return k[:m] <= 1


def _tighten_objective(problem, U, lo, hi, d=False) -> bool:
    """Bounds from f(x) <= U when P is diagonal with P >= 0 (separable quadratic).

    ``d``: `_separable_diagonal(problem)` when already at hand (None: not separable)."""
    if d is False:
        d = _separable_diagonal(problem)
    if d is None or not np.isfinite(U):
        return False
    q = problem.q
    # minimum of h_j(x) = d/2 x^2 + q x over [lo, hi]
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        def h(t):
            return np.where(np.isfinite(t), 0.5 * d * t * t + q * t, np.where((d > 0) | (q * t > 0), np.inf, -np.inf))

        cand = [h(lo), h(hi)]
        xs = np.where(d > 0, np.clip(-q / np.where(d > 0, d, 1), lo, hi), lo)
        cand.append(np.where(d > 0, h(xs), np.inf))
        m = np.minimum.reduce(cand)
        m = np.where((d == 0) & (q == 0), 0.0, m)
    inf = ~np.isfinite(m)
    if inf.sum() > 1:
        return False
    R_all = U - problem.r0 - m[~inf].sum()
    pad_all = _INFL * (abs(U) + abs(problem.r0) + np.abs(m[~inf]).sum()) + 1e-300
    cols = np.flatnonzero(inf) if inf.sum() == 1 else np.arange(lo.size)
    cols = cols[(d[cols] != 0) | (q[cols] != 0)]
    if cols.size == 0:
        return False
    dj, qj = d[cols], q[cols]
    R = R_all + np.where(inf[cols], 0.0, m[cols]) + pad_all
    new_lo, new_hi = np.full(cols.size, -np.inf), np.full(cols.size, np.inf)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        curved = dj > 0
        disc = qj * qj + 2 * dj * R
        ok = curved & (disc >= 0)  # (an infeasible level set leaves the bounds as they are)
        sq = np.sqrt(np.where(ok, disc, 0.0)) * (1 + _INFL)
        dd = np.where(ok, dj, 1.0)
        lo_q, hi_q = (-qj - sq) / dd, (-qj + sq) / dd
        new_lo = np.where(ok, lo_q - _INFL * (1 + np.abs(lo_q)), new_lo)
        new_hi = np.where(ok, hi_q + _INFL * (1 + np.abs(hi_q)), new_hi)
        lin = ~curved
        qq = np.where(lin, qj, 1.0)
        t = R / qq
        new_hi = np.where(lin & (qj > 0), t + _INFL * (1 + np.abs(t)), new_hi)
        new_lo = np.where(lin & (qj < 0), t - _INFL * (1 + np.abs(t)), new_lo)
    changed = bool(np.any(_improves(new_hi, hi[cols], -1)) or np.any(_improves(new_lo, lo[cols], 1)))
    hi[cols] = np.minimum(hi[cols], new_hi)
    lo[cols] = np.maximum(lo[cols], new_lo)
    return changed


def variable_box(problem, x_bound=None, upper: float = np.inf, rounds: int = 30,
                 cheap: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Box ``lo <= x <= hi`` (stacked columns) containing every feasible x with f(x) <= upper.

    ``x_bound``: None; a number R (every entry of every *user* variable in [-R, R], e.g. from a ball
    ||x|| <= R); a dict ``{variable name: R or (lo, hi)}``; or a pair of arrays (lo, hi) over all columns.
    ``upper`` is in the minimisation form of the problem. ``cheap``: only the single-entry rows (variable
    bounds, `_bound_rows`) and the objective level set, in O(nnz): a looser box, as valid (any box containing
    those points is), for a first try of the lower bound (`optimality_interval`'s ``width_goal``).
    """
    n = problem.n
    lo, hi = np.full(n, -np.inf), np.full(n, np.inf)
    if x_bound is not None:
        if isinstance(x_bound, dict):
            for name, bnd in x_bound.items():
                if name not in problem.columns:
                    raise InputError(f"x_bound names {name!r}, which is no variable here; have {list(problem.columns)}")
                _, a, b = problem.columns[name]
                scalar = bool(np.isscalar(bnd))  # a plain bool: np.isscalar's stub narrows to str | complex | ...
                l_, h_ = (-float(bnd), float(bnd)) if scalar else bnd
                lo[a:b], hi[a:b] = np.maximum(lo[a:b], l_), np.minimum(hi[a:b], h_)
        elif bool(np.isscalar(x_bound)):  # (as above)
            R = float(x_bound)
            if not R > 0:
                raise InputError(f"x_bound must be positive, got {x_bound!r}")
            for name, (_, a, b) in problem.columns.items():
                if not name.startswith("_"):
                    lo[a:b], hi[a:b] = -R, R
        else:
            l_, h_ = (np.broadcast_to(np.asarray(t, float), (n,)) for t in x_bound)
            lo, hi = np.maximum(lo, l_), np.minimum(hi, h_)
    G, h = _bound_rows(problem) if cheap else _linear_rows(problem)
    d = _separable_diagonal(problem) if np.isfinite(upper) else None
    if not cheap:
        keep = _useful_rows(G, lo, hi, problem.q if d is not None else None, d)
        if not keep.all():  # drop the rows that can never give a bound (the box is the same without them)
            G, h = sp.csr_matrix(G[keep]), h[keep]
    order = _column_order(G)
    for _ in range(rounds):
        ch = _tighten_rows(G, h, lo, hi, order)
        ch |= _tighten_objective(problem, upper, lo, hi, d)
        if not ch:
            break
    return lo, hi


def tighten_columns(problem, J, lo, hi, rounds: int = 2):
    """(lo, hi) with the bounds of columns J tightened over the zero / nonneg rows they occur in (FBBT passes on
    those rows alone, `_tighten_rows`'s rule for J's entries only), or (None, None) when nothing about J changed.
    Valid for any box that contains the feasible points: it only reads the rows' own implications."""
    J = np.asarray(J, dtype=np.intp).reshape(-1)
    Ac = csc_A(problem)
    # the rows J occurs in, as a mask, from J's column segments of the CSC A (no column slice, no sort)
    starts, lens = Ac.indptr[J], Ac.indptr[J + 1] - Ac.indptr[J]
    ent = np.arange(int(lens.sum())) + np.repeat(starts - (np.cumsum(lens) - lens), lens)
    touched = np.zeros(problem.m, bool)
    touched[Ac.indices[ent]] = True
    zero_rows = problem.rows_in("zero")
    rows = np.flatnonzero(touched & (zero_rows | problem.rows_in("nonneg")))
    if rows.size == 0:
        return None, None
    A = csr_A(problem)
    eq = zero_rows[rows]
    sel = None  # the rows of G that count (None: all of them)
    if not eq.any() and 4 * int(np.diff(A.indptr)[rows].sum()) >= A.nnz:  # rows holding a quarter of A's entries
        # or more, no equalities: A's rows read in place (the others masked out), no copy
        G, h = A, problem.b
        sel = np.zeros(problem.m, bool)
        sel[rows] = True
    else:
        Ar = A[rows]
        br = problem.b[rows]
        G = sp.csr_matrix(sp.vstack([Ar, -Ar[eq]])) if eq.any() else Ar
        h = np.concatenate([br, -br[eq]])
    lo2, hi2 = lo.copy(), hi.copy()
    # only J's ends move (the other columns keep theirs: a looser box, as valid), so every row's least activity over
    # the box is split once into the other columns' part (one pass over G, O(nnz)) and J's part, recomputed each
    # round from J's entries alone; one bound per entry of G in a column of J whose row has no other unbounded
    # term (the `_tighten_rows` rule and pad; the pad's 1e-9 relative widening dwarfs any summation order's error)
    R = G.shape[0]
    a, col = G.data, G.indices
    inJ = np.zeros(problem.n, bool)
    inJ[J] = True
    at = np.flatnonzero(inJ[col])  # J's entries of G, and their rows (indexing, not take: no int64 copy of col)
    er = np.searchsorted(G.indptr, at, side="right") - 1
    if sel is not None:
        keep = sel[er]
        at, er = at[keep], er[keep]
    ej, ea = col[at], a[at]
    # J's entries grouped by column once (a stable sort of a few entries), for per-column minima by reduceat
    # (``ufunc.at`` is several times slower)
    by_col = np.argsort(ej, kind="stable")
    ejs = ej[by_col]
    firsts = np.flatnonzero(np.r_[True, ejs[1:] != ejs[:-1]]) if ejs.size else np.zeros(0, np.intp)
    cols_J = ejs[firsts]

    # the other columns' part, once: products with G's positive and negative entries, J's ends read as 0 (so J's
    # entries add exact zeros: no copy of G with them zeroed); each entry reads only its own end, so a huge unused
    # end never enters a sum
    lo_inf, hi_inf = ~np.isfinite(lo2) & ~inJ, ~np.isfinite(hi2) & ~inJ
    lof, hif = np.where(lo_inf | inJ, 0.0, lo2), np.where(hi_inf | inJ, 0.0, hi2)
    # in blocks of rows of ~_BLOCK entries (G's positive entries, then in the same buffer its negative ones): per row
    # the same sums in the same order as whole-matrix products, without an nnz-sized copy
    fin0, abs0 = np.empty(R), np.empty(R)
    alo, ahi = np.abs(lof), np.abs(hif)

    def other_part(r0, r1):  # (a function: its block buffers go when it returns)
        e0, e1 = G.indptr[r0], G.indptr[r1]
        seg = a[e0:e1]
        part = np.maximum(seg, 0.0)
        Gs = sp.csr_matrix((part, col[e0:e1], G.indptr[r0:r1 + 1] - e0), shape=(r1 - r0, G.shape[1]))
        with np.errstate(invalid="ignore", over="ignore"):
            f, ab = Gs @ lof, Gs @ alo
            np.minimum(seg, 0.0, out=part)
            fin0[r0:r1] = f + Gs @ hif
            abs0[r0:r1] = ab - Gs @ ahi

    bounds = np.unique(np.r_[0, np.searchsorted(G.indptr, np.arange(_BLOCK, G.nnz, _BLOCK)), R])
    for r0, r1 in zip(bounds[:-1], bounds[1:]):
        other_part(r0, r1)
    inf0 = np.zeros(R)  # the count of infinite least terms per row (none when only J's ends are infinite)
    if (lo_inf | hi_inf).any():
        inf0 = np.bincount(np.repeat(np.arange(R), np.diff(G.indptr)),
                           ((a > 0) & lo_inf[col]) | ((a < 0) & hi_inf[col]), R)

    def least_terms():
        """(per-row sums of J's part: finite, |finite|, infinite count), and per entry of J: finite part, infinite."""
        with np.errstate(invalid="ignore", over="ignore"):
            c = np.where(ea > 0, ea * lo2[ej], ea * hi2[ej])
        c = np.where(ea == 0, 0.0, c)
        inf = ~np.isfinite(c)
        cf = np.where(inf, 0.0, c)
        return (np.bincount(er, cf, R), np.bincount(er, np.abs(cf), R), np.bincount(er, inf, R)), cf, inf

    for _ in range(rounds):
        (finJ, absJ, infJ), cf, inf = least_terms()
        fin_sum, abs_sum, n_inf = fin0 + finJ, abs0 + absJ, inf0 + infJ
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            ok = (n_inf[er] - inf == 0) & (ea != 0) & np.isfinite(fin_sum[er]) & np.isfinite(abs_sum[er])
            v = (h[er] - (fin_sum[er] - cf)) / np.where(ok, ea, 1.0)
            pad = _INFL * (np.abs(h[er]) + abs_sum[er] + np.abs(v * ea)) / np.abs(np.where(ok, ea, 1.0)) + 1e-300
        ok &= np.isfinite(v) & np.isfinite(pad)
        new_hi, new_lo = hi2.copy(), lo2.copy()
        up, dn = ok & (ea > 0), ok & (ea < 0)
        if cols_J.size:  # (per column of J: the least of its entries' bounds; inf / -inf where an entry gives none)
            with np.errstate(invalid="ignore", over="ignore"):
                least = np.minimum.reduceat(np.where(up, v + pad, np.inf)[by_col], firsts)
                most = np.maximum.reduceat(np.where(dn, v - pad, -np.inf)[by_col], firsts)
            new_hi[cols_J] = np.minimum(new_hi[cols_J], least)
            new_lo[cols_J] = np.maximum(new_lo[cols_J], most)
        changed = bool(np.any(_improves(new_hi[J], hi2[J], -1)) or np.any(_improves(new_lo[J], lo2[J], 1)))
        hi2[J], lo2[J] = new_hi[J], new_lo[J]
        if not changed:
            break
    if np.array_equal(lo2[J], lo[J]) and np.array_equal(hi2[J], hi[J]):
        return None, None
    return lo2, hi2


def row_slack_hi(A, b, lo, hi) -> np.ndarray:
    """Upper bounds of s_i = b_i - A_i x over the box (inf where a needed end is infinite)."""
    a, col = A.data, A.indices
    row = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    with np.errstate(invalid="ignore", over="ignore"):
        t = np.where(a > 0, a * lo[col], a * hi[col])  # min of a x_j
    t = np.where(a == 0, 0.0, t)
    inf = ~np.isfinite(t)
    tf = np.where(inf, 0.0, t)
    m = A.shape[0]
    s = b - np.bincount(row, tf, m)
    k = int(np.diff(A.indptr).max()) if A.nnz else 1
    pad = gamma(k + 2) * (np.abs(b) + np.bincount(row, np.abs(tf), m)) * (1 + 4 * (k + 4) * _U) + 1e-290
    s = np.nextafter(s + pad, np.inf)
    return np.where(np.bincount(row, inf.astype(float), m) > 0, np.inf, s)
