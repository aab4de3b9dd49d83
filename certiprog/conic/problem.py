"""The conic problem every backend and certificate reads: numbers plus the maps back to names.

    minimise   1/2 x^T P x + q^T x + r0
    subject to s = b - A x,  s in K = K_1 x ... x K_p

`ConicProblem` holds the numbers (P, q, r0, A, b, the cones), the columns of every variable and the rows of every
constraint (`Block`); `certiprog.model.compile` builds it from a Model. This layer sits under the model, the
certificates and the solvers, and imports none of them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from ..errors import ModelError
from .cones import Cone, NonnegCone, ZeroCone

if TYPE_CHECKING:  # annotations only: the model layer sits above this one
    from ..model.compile import Structure
    from ..model.expression import Expression


_CHUNK = 1024
_RAMP = np.arange(_CHUNK, dtype=float)


def checksum(a) -> tuple:
    """(sum, position-weighted sum) of an array's numbers (a sparse matrix: its stored ones and its pattern's size):
    an edit in place changes it unless it is contrived (a swap of two entries changes the weighted sum); two cheap
    passes, no copy (only ever compared with itself: its rounding is its own). The weights ``i`` are applied chunk by
    chunk, ``sum_c (a_c'r + 1024 c 1'a_c)`` with ``r`` = 0..1023: no ramp as long as the array is kept (a 189,135-entry
    A held a 1.5 MB one for the process's life)."""
    if sp.issparse(a):
        return (a.shape, a.nnz) + checksum(a.data)
    a = np.asarray(a, float).reshape(-1)
    k = a.size // _CHUNK
    total = weighted = 0.0
    if k:  # two passes: the chunks' sums and their ramp products
        head = a[:k * _CHUNK].reshape(k, _CHUNK)  # (a view)
        sums = head.sum(axis=1)
        total = float(np.sum(sums))
        weighted = float(np.sum(head @ _RAMP)) + float((_CHUNK * np.arange(k, dtype=float)) @ sums)
    tail = a[k * _CHUNK:]
    if tail.size:
        tail_sum = float(np.sum(tail))
        total += tail_sum
        weighted += float(tail @ _RAMP[:tail.size]) + float(k * _CHUNK) * tail_sum
    return total, weighted


@dataclass
class Block:
    """Rows ``s = expr`` in ``cone``; ``owner`` is a constraint name; ``primary`` marks its own rows."""

    owner: str
    cone: Cone
    s: Expression
    primary: bool
    start: int = 0

    @property
    def stop(self) -> int:
        return self.start + self.cone.rows


@dataclass
class QuadTerm:
    """``weight * F(x)^T Q F(x)`` in the objective (Q None means identity)."""

    weight: float
    F: Expression
    Q: object = None


@dataclass
class ConicProblem:
    """Numeric conic data plus the maps back to names."""

    P: sp.csc_matrix
    q: np.ndarray
    r0: float
    A: sp.csc_matrix
    b: np.ndarray
    cones: list
    sense: float
    columns: dict  # variable name -> (Variable, start, stop)
    blocks: list  # Block objects with row ranges
    structure: "Structure"
    times: dict = field(default_factory=dict)
    #: ``structure.data_key()`` when assembled from it (`certiprog.model.compile.Structure.assemble`); not carried
    #: over by ``dataclasses.replace`` (a changed copy is no longer what the structure assembles)
    data_key: tuple | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def n(self) -> int:
        """Number of columns (scalar variables) of the conic form."""
        return self.A.shape[1]

    @property
    def m(self) -> int:
        """Number of rows (cone entries) of the conic form."""
        return self.A.shape[0]

    def objective_value(self, x: np.ndarray) -> float:
        """The user's objective (sense restored) at the stacked primal vector x."""
        return self.sense * float(0.5 * x @ (self.P @ x) + self.q @ x + self.r0)

    def rows_of(self, name: str, primary_only: bool = True) -> list:
        """The row blocks of the constraint called ``name`` (with its atoms' epigraph rows unless ``primary_only``)."""
        out = [blk for blk in self.blocks if blk.owner == name and (blk.primary or not primary_only)]
        if not out:
            raise ModelError(f"no constraint named {name!r}; have {sorted({b.owner for b in self.blocks})}")
        return out

    def row_kinds(self) -> np.ndarray:
        """The cone kind ('zero', 'nonneg', 'soc', ...) of every row, as an (m,) object array."""
        kinds = np.empty(self.m, dtype=object)
        for blk in self.blocks:
            kinds[blk.start:blk.stop] = blk.cone.kind
        return kinds

    def rows_in(self, *kinds: str) -> np.ndarray:
        """An (m,) boolean mask of the rows whose cone kind is one of ``kinds`` (set block by block: no per-row
        string compares, which cost ~0.2 ms a kind at 20,000 rows)."""
        mask = np.zeros(self.m, bool)
        for blk in self.blocks:
            if blk.cone.kind in kinds:
                mask[blk.start:blk.stop] = True
        return mask

    def merged_cones(self) -> list:
        """Cones with consecutive zero / nonneg blocks merged (fewer, larger cones for solvers)."""
        return merge_cones(self.cones)


def merge_cones(cones) -> list:
    """``cones`` in order, consecutive zero / nonneg ones merged into one of their total size."""
    out: list[Cone] = []
    for c in cones:
        if not isinstance(c, (ZeroCone, NonnegCone)):
            out.append(c)
        elif out and type(out[-1]) is type(c):
            out[-1] = type(c)(out[-1].dim + c.rows)
        else:
            out.append(type(c)(c.rows))
    return out
