"""Compile a Model to the standard conic form

    minimise   1/2 x^T P x + q^T x + r0
    subject to s = b - A x,  s in K = K_1 x ... x K_p

(the form Clarabel, SCS and MOSEK's conic interface read), keeping the columns
of every variable and the rows of every constraint so that any backend's
answer maps back by name. Compilation runs in two stages:

1. `canonicalize` (structure, once): atoms become epigraph variables plus cone
   constraints, quadratic objective atoms go to P, rows and columns are laid out;
2. `Structure.assemble` (numbers, at every solve): coefficient matrices are
   evaluated (Parameters read here) and stacked into sparse A, P.
"""
from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from ..conic.cones import Cone
from ..conic.problem import Block, ConicProblem, QuadTerm, checksum
from ..errors import ModelError
from . import coef as cf
from .expression import Expression, Variable
from .forall import ForAll


def _offset_rows(blocks: list, start: int) -> int:
    for blk in blocks:
        blk.start = start
        start += blk.cone.rows
    return start


def _assemble_rows(blocks, columns, n, row0, cache):
    """Sparse A (CSC) and vector b for blocks whose rows start at ``row0`` (A = -coef, b = const).

    A is written straight into its CSC arrays (`_assemble_csc`): each variable's columns take their blocks' entries
    in row order. What the stacked sum of full-width block matrices gave (`_assemble_rows_stacked`, the fallback
    when a coefficient is not a canonical matrix of its block's shape): the same entries, values and order; a
    block of two terms or more stores no zeros (the sum of the terms dropped them), a block of one term keeps its
    matrix's stored zeros.
    """
    m = sum(blk.cone.rows for blk in blocks)
    A = _assemble_csc(blocks, columns, n, row0, m, cache)
    if A is None:
        return _assemble_rows_stacked(blocks, columns, n, row0, cache)
    b = np.zeros(m)
    for blk in blocks:
        r = blk.start - row0
        b[r:r + blk.cone.rows] = np.asarray(cf.evaluate(blk.s.const, cache), float).reshape(-1)
    return A, b


def _csc_parts(M, rows: int, cols: int):
    """The coefficient ``M`` as a canonical CSC of shape (rows, cols): ``(data, row indices, indptr)``, or a dense
    float array (every entry stored, as `coef.to_csr` keeps them); None when it is neither (wrong shape,
    duplicates)."""
    if sp.issparse(M):
        if M.shape != (rows, cols):
            return None
        if M.format == "csr" and M.nnz == rows * cols and rows and cols and _full_pattern(M):
            return np.asarray(M.data, float).reshape(rows, cols)  # every entry stored in order (a dense matrix's
            # CSR): its data is the dense matrix, a view (no conversion to CSC, no copy)
        C = M.tocsc()
        if not C.has_canonical_format or C.indptr[0] != 0 or C.data.size != C.indptr[-1]:
            return None
        return np.asarray(C.data, float), C.indices, C.indptr
    a = np.atleast_2d(np.asarray(M, dtype=float))
    return a if a.shape == (rows, cols) else None


def _full_pattern(M) -> bool:
    """Whether the CSR ``M`` stores every entry, row by row in column order (its data is the dense matrix)."""
    rows, cols = M.shape
    if M.data.size != rows * cols or not np.array_equal(M.indptr, np.arange(0, rows * cols + 1, cols)):
        return False
    idx = M.indices.reshape(rows, cols)
    ramp = np.arange(cols)
    step = max(1, 65536 // cols)  # (compared in row chunks: no temporary of M's size)
    return all(np.array_equal(idx[i:i + step], np.broadcast_to(ramp, idx[i:i + step].shape))
               for i in range(0, rows, step))


def _assemble_csc(blocks, columns, n, row0, m, cache):
    """A (m x n, CSC) from the blocks' coefficients, or None when one is not a canonical matrix (`_csc_parts`).

    Each variable's columns receive their blocks' pieces in row order, column by column into the final arrays (a
    dense piece fills whole column segments: no index arrays of its size, the temporaries a fresh process pays for
    in page faults)."""
    span = {v.id: (start, stop) for v, start, stop in columns.values()}
    pieces = []  # (column start, row offset, part), blocks in row order
    counts = np.zeros(n, np.int64)
    for blk in blocks:
        r = blk.start - row0
        several = len(blk.s.terms) > 1
        for v, c in blk.s.terms.items():
            start, stop = span[v.id]
            part = _csc_parts(cf.evaluate(c, cache), blk.cone.rows, stop - start)
            if part is None:
                return None
            if several and isinstance(part, np.ndarray) and np.count_nonzero(part) < part.size:
                part = _dense_to_csc(part)  # (zeros to drop: as a sparse piece)
            if several and not isinstance(part, np.ndarray):  # (a sum of terms stores no zeros)
                data, ind, ptr = part
                keep = data != 0
                if not keep.all():
                    kept = np.concatenate([[0], np.cumsum(keep)])
                    part = (data[keep], ind[keep], kept[ptr])
            if isinstance(part, np.ndarray):
                counts[start:stop] += part.shape[0]
            else:
                counts[start:stop] += np.diff(part[2])
            pieces.append((start, r, part))
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=indptr[1:])
    nnz = int(indptr[-1])
    idx = np.int32 if max(m, n, nnz) < 2 ** 31 - 1 else np.int64
    data = np.empty(nnz)
    indices = np.empty(nnz, idx)
    fill = indptr[:-1].copy()  # each column's next free slot
    for start, r, part in pieces:
        if isinstance(part, np.ndarray):  # whole column segments
            rows = part.shape[0]
            ramp = np.arange(r, r + rows, dtype=idx)
            for k in range(part.shape[1]):
                f = fill[start + k]
                np.negative(part[:, k], out=data[f:f + rows])
                indices[f:f + rows] = ramp
            fill[start:start + part.shape[1]] += rows
            continue
        d, ind, ptr = part
        cnt = np.diff(ptr)
        if d.size == 0:
            continue
        stop = start + cnt.size
        if 8 * cnt.size <= d.size:  # few columns for their entries: a slice per column
            for k in np.flatnonzero(cnt):
                f, a, e = fill[start + k], ptr[k], ptr[k + 1]
                np.negative(d[a:e], out=data[f:f + e - a])
                indices[f:f + e - a] = ind[a:e]
                indices[f:f + e - a] += r
        else:
            dest = np.repeat(fill[start:stop] - ptr[:-1], cnt)
            dest += np.arange(d.size)
            data[dest] = -d
            indices[dest] = ind.astype(idx, copy=False) + idx(r)
        fill[start:stop] += cnt
    return sp.csc_matrix((data, indices, indptr.astype(idx)), shape=(m, n))


def _dense_to_csc(a: np.ndarray):
    """(data, row indices, indptr) of a dense matrix with every entry stored (column-major)."""
    rows, cols = a.shape
    return a.ravel(order="F"), np.tile(np.arange(rows, dtype=np.int32), cols), np.arange(0, rows * cols + 1, rows)


def _assemble_rows_stacked(blocks, columns, n, row0, cache):
    """`_assemble_rows` by summing each block's full-width CSR term matrices and stacking the blocks (the
    reference the direct assembly reproduces; used when a coefficient is not a canonical matrix)."""
    m = sum(blk.cone.rows for blk in blocks)
    b = np.zeros(m)
    col_of = {v.id: start for v, start, _ in columns.values()}
    parts = []
    for blk in blocks:
        r = blk.start - row0
        rows = blk.cone.rows
        acc = None
        for v, c in blk.s.terms.items():
            M = cf.to_csr(cf.evaluate(c, cache))
            placed = sp.csr_matrix((-M.data, M.indices + col_of[v.id], M.indptr), shape=(rows, n))
            acc = placed if acc is None else acc + placed
        parts.append(acc if acc is not None else sp.csr_matrix((rows, n)))
        b[r:r + rows] = np.asarray(cf.evaluate(blk.s.const, cache), float).reshape(-1)
    if not parts:
        return sp.csc_matrix((0, n)), b
    return sp.vstack(parts, format="csr").tocsc(), b


class Structure:
    """Result of canonicalisation: columns, row blocks, objective pieces. Reused across parameter changes."""

    def __init__(self, model, forall: str):
        t0 = time.perf_counter()
        if model.objective is None:
            raise ModelError(f"model {model.name!r} has no objective: call model.minimize(...) or model.maximize(...)")
        self.model = model
        self.sense = model.objective.sign
        self.user_vars = list(model.variables.values())
        self.aux_vars: list[Variable] = []
        self.blocks: list[Block] = []
        self.quad: list[QuadTerm] = []
        self.cutting_plane: list[ForAll] = []
        self.aux_defs: dict = {}  # aux variable id -> the Expression it equals at an optimum (atom or sum_squares)
        self._n_aux = 0
        for name, con in model.constraints.items():
            if isinstance(con, ForAll) and (forall == "cutting_plane" or not con.has_exact_form):
                self.cutting_plane.append(con)
                continue
            for cone, s in con.blocks():
                self._add_block(name, cone, s, primary=True)
        for v in self.user_vars:  # sign domains and simple bounds: '<name>>=0', '<name>>=lb', '<name><=ub'
            for owner, cone, s in v.domain():
                self._add_block(owner, cone, s, False)
        self.objective = self._objective(model.objective.sign * model.objective.expr)
        known = {v.id for v in self.user_vars + self.aux_vars}
        for blk in self.blocks:  # variables created inside atoms' epigraphs (e.g. pnorm's |e| bounds)
            for v in blk.s.terms:
                if v.id not in known:
                    known.add(v.id)
                    self.aux_vars.append(v)
        self.columns: dict[str, tuple[Variable, int, int]] = {}  # name -> (variable, first, end column)
        col = 0
        for v in self.user_vars + self.aux_vars:
            name = v.name if v.name not in self.columns else f"{v.name}#{v.id}"
            self.columns[name] = (v, col, col + v.n_free)
            col += v.n_free
        self.n = col
        self.m = _offset_rows(self.blocks, 0)
        self.time = time.perf_counter() - t0

    # --------------------------------------------------- canonicalisation
    def _aux(self, shape, label: str) -> Variable:
        self._n_aux += 1
        v = Variable(shape, name=f"_{label}{self._n_aux}")
        self.aux_vars.append(v)
        return v

    def _replace_atoms(self, e: Expression, owner: str) -> Expression:
        """Substitute each atom by an epigraph variable t with atom <= t (cones added under owner/...)."""
        if not e.nonlin:
            return e
        out = Expression(e.shape, e.terms, e.const)
        for S, atom in e.nonlin:
            t = self._aux(atom.shape, atom.name)
            self.aux_defs[t.id] = atom.expr()
            for con in atom.epigraph(t):
                for cone, s in con.blocks():
                    self._add_block(f"{owner}/{atom.name}", cone, s, primary=False)
            out = out + Expression(e.shape, {t: S @ t.lift})
        return out

    def _add_block(self, owner: str, cone: Cone, s: Expression, primary: bool):
        s = self._replace_atoms(s.flatten(), owner)
        self.blocks.append(Block(owner, cone, s, primary))

    def _objective(self, f: Expression) -> Expression:
        aff = Expression((), f.terms, f.const)
        for S, atom in f.nonlin:
            w = float(S.toarray().reshape(-1)[0]) if atom.size == 1 else None
            quad = atom.quadratic() if w is not None else None
            row = None
            if quad is None and getattr(atom, "elementwise_quadratic", False):  # sum_i w_i e_i^2 (w_i >= 0)
                row = S.toarray().reshape(-1)
                quad = atom.quadratic() if np.all(row >= 0) else None
            if quad is None:
                aff = aff + self._replace_atoms(Expression((), nonlin=((S, atom),)), "_objective")
                continue
            F, Q = quad
            if row is not None:  # sum_i w_i e_i^2 = ||sqrt(w) * e||^2
                F, w = F * np.sqrt(row), 1.0
            if Q is None and not _is_selection(F):
                u = self._aux(F.shape, "sq")
                self.aux_defs[u.id] = F
                self._add_block("_objective/sum_squares", Cone("zero", F.size), (u - F).flatten(), False)
                F = u.flatten() if u.ndim else u
            assert w is not None  # quad is found only where w is set (1.0 on the elementwise row path)
            self.quad.append(QuadTerm(w, F.flatten(), Q))
        return aff

    # -------------------------------------------------------- assembly
    def assemble(self) -> ConicProblem:
        """Evaluate all coefficients (current Parameter values) into numeric conic data."""
        t0 = time.perf_counter()
        cache: dict = {}
        A, b = _assemble_rows(self.blocks, self.columns, self.n, 0, cache)
        col_of = {v.id: start for v, start, _ in self.columns.values()}
        q = np.zeros(self.n)
        for v, c in self.objective.terms.items():
            M = cf.evaluate(c, cache)
            row = np.asarray(M.toarray() if sp.issparse(M) else M).reshape(-1)
            q[col_of[v.id]:col_of[v.id] + row.size] += row
        r0 = float(np.asarray(cf.evaluate(self.objective.const, cache)).reshape(-1)[0])
        P = sp.csc_matrix((self.n, self.n))
        for term in self.quad:  # each term C'QC is symmetric (Q is checked symmetric), so P is too
            C, g = _full_matrix(term.F, col_of, self.n, cache)
            if term.Q is None:
                QC, Qg = C, g
            else:
                Q = cf.evaluate(term.Q, cache)
                QC, Qg = sp.csr_matrix(Q @ C), Q @ g
            P = P + (2.0 * term.weight) * (C.T @ QC)
            q += 2.0 * term.weight * np.asarray(C.T @ Qg).reshape(-1)
            r0 += term.weight * float(g @ Qg)
        P = sp.csc_matrix(P)
        prob = ConicProblem(
            P, q, r0, A, b, [blk.cone for blk in self.blocks], self.sense, self.columns, list(self.blocks), self,
        )
        prob.data_key = self.data_key(cache)
        prob.times = {"canonicalize": self.time, "assemble": time.perf_counter() - t0}
        return prob

    def data_key(self, cache: dict | None = None) -> tuple:
        """Checksums of every coefficient's current value (Parameters read, `Lazy` nodes evaluated; ``cache``: the
        values `assemble` already evaluated): two assemblies with equal keys give the same numbers. A pass over the
        coefficients without stacking them, so a check can tell cheaply that the problem a solution was computed
        for is still what the model compiles to (`certiprog.certify.kkt.resolve_problem`); a coefficient edited in
        place (data the model holds by reference) changes the key."""
        cache = {} if cache is None else cache
        coefs: list = []
        for blk in self.blocks:
            coefs += [*blk.s.terms.values(), blk.s.const]
        coefs += [*self.objective.terms.values(), self.objective.const]
        for term in self.quad:
            coefs += [*term.F.terms.values(), term.F.const, term.weight] + ([term.Q] if term.Q is not None else [])
        return tuple(checksum(cf.evaluate(c, cache)) for c in coefs)


def _is_selection(F: Expression) -> bool:
    """True when every row of F's coefficients has at most one nonzero (a scaled selection of variables)."""
    if len(F.terms) == 0:
        return True
    per_row = np.zeros(F.size)
    for c in F.terms.values():
        if cf.is_lazy(c):
            return False
        per_row += np.diff(sp.csr_matrix(c).indptr)
    return bool(np.all(per_row <= 1))


def _full_matrix(F: Expression, col_of: dict, n: int, cache) -> tuple:
    rows, cols, vals = [], [], []
    for v, c in F.terms.items():
        M = sp.coo_matrix(cf.evaluate(c, cache))
        rows.append(M.row)
        cols.append(M.col + col_of[v.id])
        vals.append(M.data)
    if rows:
        C = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(F.size, n))
    else:
        C = sp.csr_matrix((F.size, n))
    g = np.asarray(cf.evaluate(F.const, cache), float).reshape(-1)
    return C, g


def compile_model(model, forall: str = "exact") -> Structure:
    """Canonicalise ``model`` (structure only; call ``.assemble()`` for numbers)."""
    if forall not in ("exact", "cutting_plane", "auto"):
        raise ModelError(f"forall must be 'auto', 'exact' or 'cutting_plane'; got {forall!r}")
    return Structure(model, "exact" if forall == "auto" else forall)
