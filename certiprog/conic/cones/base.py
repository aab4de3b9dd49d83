"""`Cone`: the common base of the cone classes, and the dispatch from today's kind words to them.

A cone object describes ``count`` consecutive copies of one cone of ``dim`` rows each (``rows = dim * count``). Each
kind of cone is one subclass in its own module (as Clarabel.rs has one file per cone implementing its ``Cone``
trait), and carries everything the rest of certiprog asks of a cone:

* ``project`` / ``project_dual``: Euclidean projections onto K and onto its dual K*, vectorised over the copies;
  ``distance``; by Moreau's decomposition ``v = Pi_K(v) + Pi_K°(v)`` with ``K° = -K*`` and the two parts
  orthogonal, so ``Pi_K*(v) = -Pi_K°(-v) = v + Pi_K(-v)``;
* ``interior`` / ``dual_interior``: a point strictly inside K (K*) in every copy, such as e = (1, 0, ..., 0) for the
  second-order cone and the identity for the PSD cone (the zero cone has no interior: its only point is 0);
* ``contains`` / ``dual_contains``: rigorous membership of every point of a ball vector (mid, rad), in floating-point
  bounds with a-priori rounding errors or in arb; True is a proof, False means "not proved";
* ``contains_exactly`` (decided without rounding, or False) and ``plausibly_contains`` (a floating-point screen that
  lets a failing test skip the arb proofs); ``dual_nudge``: a point of K* near w whose membership is proved.

``Cone("soc", 3)``, ``Cone(kind="pow", dim=3, alpha=0.3)`` and ``Cone(**cone.to_json())`` build the subclass of that
kind; ``cone.kind`` is the word. Cones are immutable, compare and hash by (kind, dim, count, alpha).
"""
from __future__ import annotations

from typing import Any, ClassVar, TypeVar

import numpy as np

from ...errors import InputError, ShapeError
from ._balls import as_ball

_C = TypeVar("_C", bound="Cone")


class Cone:
    """``count`` copies of one cone of ``dim`` rows; ``Cone(kind, dim, count=1, alpha=None)`` builds the subclass
    registered for ``kind`` (one of `KINDS`); ``alpha``: the power cones' exponents."""

    kind: ClassVar[str] = ""
    #: K* = K (the dual projection and membership are the cone's own)
    self_dual: ClassVar[bool] = False
    #: the cone is the product of its rows' 1-D cones (zero, nonneg): ``count`` copies of ``dim`` rows are the same
    #: set as ``rows`` copies of one row (callers may regroup the rows, e.g. to apply `linear_cuts` row by row)
    separable: ClassVar[bool] = False
    #: the dual cone in words (for messages and documentation)
    dual_description: ClassVar[str] = ""
    _by_kind: ClassVar[dict[str, type[Cone]]] = {}

    dim: int
    count: int
    alpha: Any

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("kind"):
            Cone._by_kind[cls.kind] = cls

    def __new__(cls, kind=None, dim=None, count=1, alpha=None):
        if cls is not Cone:
            raise TypeError(f"{cls.__name__} defines its own constructor")
        if not isinstance(kind, str):
            raise InputError(f"Cone kind must be a string such as {tuple(Cone._by_kind)}; got {kind!r}")
        sub = Cone._by_kind.get(kind)
        if sub is None:
            raise InputError(f"unknown cone kind {kind!r}; kinds are {tuple(Cone._by_kind)}")
        return sub._create(dim, count, alpha)

    @classmethod
    def _create(cls: type[_C], dim, count, alpha) -> _C:
        """A checked, immutable instance of ``cls`` (every constructor ends here)."""
        for what, v in (("dim", dim), ("count", count)):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 0:
                raise InputError(f"Cone {what} must be a nonnegative integer; got {v!r}")
        alpha = cls._check(int(dim), alpha)
        self = object.__new__(cls)
        object.__setattr__(self, "dim", int(dim))
        object.__setattr__(self, "count", int(count))
        object.__setattr__(self, "alpha", alpha)
        return self

    @classmethod
    def _check(cls, dim: int, alpha):
        """Checks ``dim`` and ``alpha`` for this kind (InputError) and returns the alpha to store."""
        if alpha is not None:
            raise InputError(f"a {cls.kind} cone takes no alpha; got {alpha!r}")
        return None

    # ------------------------------------------------------------------------------------------ value object
    def __setattr__(self, name, value):
        raise AttributeError(f"cones are immutable: cannot assign {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"cones are immutable: cannot delete {name!r}")

    def _key(self) -> tuple:
        return (self.kind, self.dim, self.count, self.alpha)

    def __eq__(self, other):
        return isinstance(other, Cone) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"Cone(kind={self.kind!r}, dim={self.dim}, count={self.count}, alpha={self.alpha!r})"

    def __reduce__(self):  # copy / deepcopy (and pickle, which certiprog itself never writes)
        return (Cone, self._key())

    def to_json(self) -> dict:
        """A JSON-serialisable dict (kind, dim, count, alpha); ``Cone(**d)`` rebuilds the cone."""
        alpha = list(self.alpha) if isinstance(self.alpha, tuple) else self.alpha
        return {"kind": self.kind, "dim": self.dim, "count": self.count, "alpha": alpha}

    def with_count(self: _C, count: int) -> _C:
        """The same cone with ``count`` copies."""
        return type(self)._create(self.dim, count, self.alpha)

    @property
    def rows(self) -> int:
        """Number of rows the cones take: ``dim * count``."""
        return self.dim * self.count

    @property
    def side(self) -> int:
        """Matrix side n with n(n+1)/2 = dim (the PSD cone's matrix; defined for every cone, as before)."""
        return int(round((np.sqrt(8 * self.dim + 1) - 1) / 2))

    # ------------------------------------------------------------------------------------------ input
    def _parts(self, s, what: str = "s", finite: bool = True) -> np.ndarray:
        """s as a (count, dim) float array; a ShapeError for a wrong length, an InputError for NaN (or inf
        when ``finite``)."""
        try:
            v = np.asarray(s, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise InputError(f"{what} must be an array of numbers; got {type(s).__name__}") from None
        if v.size != self.rows:
            raise ShapeError(f"{what} has {v.size} entries; {self!r} has {self.rows} rows")
        bad = ~np.isfinite(v) if finite else np.isnan(v)
        if bad.any():
            raise InputError(f"{what} holds {'NaN or inf' if finite else 'NaN'} at entry {int(np.argmax(bad))}")
        return v.reshape(self.count, self.dim)

    def _ball_parts(self, s, rad, what: str):
        """(mid, rad) as (count, dim) arrays, or None when some end is not finite (nothing can be proved)."""
        mid, r = as_ball(s, rad, self.rows, what)
        if not (np.isfinite(mid).all() and np.isfinite(r).all()):
            return None
        return mid.reshape(self.count, self.dim), r.reshape(self.count, self.dim)

    # ------------------------------------------------------------------------------------------ projections
    def project(self, s, dual: bool = False) -> np.ndarray:
        """Euclidean projection of ``s`` (all ``rows`` entries) onto the cone, or onto its dual (``dual=True``)."""
        P = self._parts(s, finite=False)
        out = self._project_dual(P) if dual else self._project(P)
        return out.reshape(-1)

    def project_dual(self, s) -> np.ndarray:
        """Euclidean projection of ``s`` onto the dual cone K*."""
        return self.project(s, dual=True)

    def distance(self, s, dual: bool = False) -> float:
        """Euclidean distance from ``s`` to the cone (or to its dual)."""
        P = self._parts(s, finite=False)
        if P.size == 0:
            return 0.0
        proj = self._project_dual(P) if dual else self._project(P)
        return float(np.linalg.norm(P - proj))

    def _project(self, P: np.ndarray) -> np.ndarray:
        """Projection of each row of P (count x dim) onto the cone."""
        raise NotImplementedError

    def _project_dual(self, P: np.ndarray) -> np.ndarray:
        """Projection of each row onto K*: the cone's own when self-dual, else Moreau's v + Pi_K(-v)."""
        if self.self_dual:
            return self._project(P)
        return P + self._project(-P)

    # ------------------------------------------------------------------------------------------ interior points
    def interior(self) -> np.ndarray:
        """A point strictly inside the cone in every copy (``rows`` entries)."""
        return np.tile(self._unit(), self.count)

    def dual_interior(self) -> np.ndarray:
        """A point strictly inside the dual cone in every copy."""
        return np.tile(self._dual_unit() if not self.self_dual else self._unit(), self.count)

    def _unit(self) -> np.ndarray:
        raise NotImplementedError

    def own_shape(self, v) -> np.ndarray | None:
        """The block's values ``v`` (all rows) in the cone's own shape (a PSD cone: its symmetric matrices), or None
        when the cone has none (the constraint's shape applies)."""
        return None

    # ------------------------------------------------------------------------------------------ linear views
    def linear_cuts(self) -> np.ndarray:
        """A matrix C (r x dim) with ``C s <= 0`` for every s in one copy of the cone: the linear inequalities the
        certificates' bound tightening reads off a cone (all copies: ``kron(I_count, C)``)."""
        raise NotImplementedError

    def dual_as_primal(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(perm, scale) with ``w in K*  <=>  scale * w[perm] in K`` for one copy (a solver taking only K can then
        hold a dual variable); None for the zero cone, whose dual R^dim is no such image."""
        if self.self_dual:
            return np.arange(self.dim), np.ones(self.dim)
        raise NotImplementedError

    def _dual_unit(self) -> np.ndarray:
        raise NotImplementedError

    # ------------------------------------------------------------------------------------------ rigorous tests
    def contains(self, s, rad=None) -> bool:
        """Proves that every point of the ball vector ``s`` (a Ball-like object with ``mid``/``rad``, or an array
        with an optional radius ``rad``) lies in the cone. False means "not proved" (NaN or inf included)."""
        parts = self._ball_parts(s, rad, "s")
        return parts is not None and bool(self._contains(*parts))

    def dual_contains(self, w, rad=None) -> bool:
        """Proves that every point of the ball vector ``w`` lies in the dual cone K*; False means "not proved"."""
        parts = self._ball_parts(w, rad, "w")
        if parts is None:
            return False
        return bool(self._contains(*parts) if self.self_dual else self._dual_contains(*parts))

    def contains_exactly(self, v) -> bool:
        """Whether the float vector v lies in the cone, decided without rounding; False where that takes arithmetic
        (then `contains` decides)."""
        return False

    def plausibly_contains(self, M) -> bool:
        """A floating-point screen: False when some copy (row of M, count x dim) is clearly outside the cone, so a
        failing test skips the proofs. True proves nothing."""
        return True

    def _contains(self, M: np.ndarray, R: np.ndarray) -> bool:
        raise NotImplementedError

    def _dual_contains(self, M: np.ndarray, R: np.ndarray) -> bool:
        raise NotImplementedError

    def margin(self, S) -> np.ndarray:
        """How far inside the cone each row of S (k x dim, one copy per row) lies, in the slack's units: a function
        positively homogeneous of degree 1, > 0 inside, 0 on the boundary, < 0 outside where the formula reaches
        (0 where it does not: a non-smooth part of the boundary, outside the formula's domain). The zero cone's is
        never positive. Used to read active constraints off a slack (dual recovery, polish)."""
        S = np.asarray(S, dtype=float).reshape(-1, self.dim)
        return self._margin(S)

    def _margin(self, S: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    # ------------------------------------------------------------------------------------------ smooth boundary
    def boundary_smooth(self, S) -> np.ndarray:
        """For each row of S (k x dim, one copy per row): does the cone's boundary function (`boundary`) apply and is
        it smooth there? All False for a cone without one (zero and nonneg rows are plain equalities / inequalities;
        a PSD block is not polished)."""
        return np.zeros(np.asarray(S, dtype=float).reshape(-1, self.dim).shape[0], dtype=bool)

    def boundary_branch(self, S) -> np.ndarray:
        """The branch of the boundary function each row of S uses (power cones: the sign of z; else 0), kept fixed
        while Newton's method moves S."""
        return np.zeros(np.asarray(S, dtype=float).reshape(-1, self.dim).shape[0])

    def boundary(self, S, branch) -> tuple:
        """The boundary function of the copies S (k x dim) where `boundary_smooth` holds, for the dual polish:
        (f, G, D, c, V) with f (k,) positively homogeneous of degree 1, >= 0 exactly on the cone near S (`margin` on
        that branch); G = grad f (k x dim), whose ray lambda G (lambda >= 0) is the complementary dual on the
        boundary, a point of the boundary of K*; and the Hessian of f as diag(D_k) + c_k V_k V_k' (D, V: k x dim,
        c: k), so that callers form A'HA in O(nnz)."""
        raise NotImplementedError(f"the {self.kind} cone has no smooth boundary function")

    def into_dual(self, w) -> np.ndarray:
        """``w`` (all rows, floats) moved into K* by the cheapest move that leaves a point on or inside K*'s boundary
        unchanged up to rounding: one coordinate clipped (nonneg: the entries; SOC: the head; exp: w where u < 0;
        power cones: u at 0 and the magnitude of w at its bound), the projection where there is no such clip
        (PSD). Unlike `dual_nudge` nothing is proved, and no iterative projection moves a boundary point by ~1e-9."""
        V = np.asarray(w, dtype=float).reshape(-1, self.dim) if self.dim else np.zeros((0, 0))
        return self._into_dual(V).reshape(-1)

    def _into_dual(self, V: np.ndarray) -> np.ndarray:
        return self._project_dual(V)

    def dual_nudge(self, w) -> np.ndarray:
        """A point of K* near ``w`` whose membership `dual_contains` proves: the projection onto K*, moved inward
        where rounding leaves it on the boundary (SOC: the head raised above a bound of the body's norm; PSD: mu I
        added; power cones: the magnitude of z shrunk; exponential cone: w raised)."""
        return self._dual_nudge(self._project_dual(self._parts(w, "w"))).reshape(-1)

    def _dual_nudge(self, V: np.ndarray) -> np.ndarray:
        return V
