"""Convex atoms and their conic canonicalisation.

Each atom ``f(args)`` knows (i) its numeric value, (ii) how to express the
epigraph ``f(args) <= t`` with cone constraints on affine expressions
(`epigraph`), and (iii) for quadratic atoms, the quadratic form used directly
in a QP objective (`quadratic`). Arguments must be affine (DCP composition
with affine maps only); a violation raises `DCPError`.
"""
from __future__ import annotations

import abc

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..errors import DCPError, InputError, NonConvexError, ShapeError
from . import coef as cf
from .expression import (
    Expression,
    Parameter,
    as_constant_array,
    as_expression,
    hstack,
    numeric_array,
    real_scalar,
)


class Atom(abc.ABC):
    """Base class: ``shape`` of the output, affine ``args``, convex curvature."""

    curvature = "convex"
    name = "atom"

    def __init__(self, *args):
        self.args = [as_expression(a) for a in args]
        for a in self.args:
            if not a.is_affine:
                raise DCPError(
                    f"{self.name}: its argument must be affine, got a {a.curvature} expression; "
                    "introduce a Variable for the inner atom and constrain it instead"
                )

    shape: tuple = ()

    @property
    def size(self) -> int:
        return int(np.prod(self.shape)) if self.shape else 1

    def expr(self) -> Expression:
        return Expression(self.shape, nonlin=((sp.identity(self.size, format="csr"), self),))

    @abc.abstractmethod
    def numeric(self, vals) -> np.ndarray:
        """Value of the atom (flattened) given numeric values of its arguments."""

    @abc.abstractmethod
    def epigraph(self, t: Expression) -> list:
        """Cone constraints (from .constraints) that express ``self <= t``."""

    def quadratic(self):
        """For QP objectives: ``(F, Q)`` so that the atom is ``F(x)^T Q F(x)``; else None."""
        return None

    @abc.abstractmethod
    def sympy(self, args):
        """SymPy rendering given SymPy renderings (lists of entries) of the arguments."""


# ---------------------------------------------------------------- elementwise
class Pos(Atom):
    """max(e, 0) elementwise: the hinge."""

    name = "pos"

    def __init__(self, e):
        super().__init__(e)
        self.shape = self.args[0].shape

    def numeric(self, vals):
        return np.maximum(vals[0].reshape(-1), 0.0)

    def epigraph(self, t):
        from .constraints import Inequality

        return [Inequality(self.args[0], t), Inequality(0.0, t)]

    def sympy(self, args):
        import sympy

        return [sympy.Max(z, 0) for z in args[0]]


class Abs(Atom):
    name = "abs"

    def __init__(self, e):
        super().__init__(e)
        self.shape = self.args[0].shape

    def numeric(self, vals):
        return np.abs(vals[0].reshape(-1))

    def epigraph(self, t):
        from .constraints import Inequality

        return [Inequality(self.args[0], t), Inequality(-self.args[0], t)]

    def sympy(self, args):
        import sympy

        return [sympy.Abs(z) for z in args[0]]


class MaxEntries(Atom):
    """The largest entry of an affine expression."""

    name = "max"

    def __init__(self, e):
        super().__init__(e)
        if self.args[0].size == 0:
            raise ShapeError("max_entries of an empty expression is undefined")
        self.shape = ()

    def numeric(self, vals):
        return np.array([np.max(vals[0])])

    def epigraph(self, t):
        from .constraints import Inequality

        return [Inequality(self.args[0], t)]

    def sympy(self, args):
        import sympy

        return sympy.Max(*args[0])


# ---------------------------------------------------------------- norms
class PNorm(Atom):
    """||e||_p for p >= 1 (p = inf allowed): SOC for p=2, LP for 1 and inf, power cones otherwise."""

    name = "pnorm"

    def __init__(self, e, p=2):
        super().__init__(e)
        p = real_scalar(p, "pnorm's p")
        if not (p >= 1):
            raise DCPError(f"pnorm needs p >= 1 (or inf) to be convex; got p={p}")
        self.p = p
        self.shape = ()

    def numeric(self, vals):
        return np.array([np.linalg.norm(vals[0].reshape(-1), ord=self.p)])

    def epigraph(self, t):
        from .constraints import SOC, Inequality, PowerCone3D
        from .expression import Variable

        e = self.args[0].flatten()
        if self.p == 2:
            return [SOC(t, e)]
        if self.p == 1:
            u = Variable(e.shape, name="_abs")
            return [Inequality(e, u), Inequality(-e, u), Inequality(u.sum(), t)]
        if np.isinf(self.p):
            return [Inequality(e, t), Inequality(-e, t)]
        r = Variable(e.shape, name="_pow")
        tt = t.broadcast_to(e.shape) if t.size == 1 else t
        return [Inequality(r.sum(), t), PowerCone3D(r, tt, e, 1.0 / self.p)]

    def sympy(self, args):
        import sympy

        v = args[0]
        if self.p == 2:
            return sympy.sqrt(sum(z**2 for z in v))
        if np.isinf(self.p):
            return sympy.Max(*[sympy.Abs(z) for z in v])
        p = sympy.Rational(self.p).limit_denominator(1000)
        return sum(sympy.Abs(z) ** p for z in v) ** (1 / p)


class SumSquares(Atom):
    """sum_i e_i^2."""

    name = "sum_squares"

    def __init__(self, e):
        super().__init__(e)
        self.shape = ()

    def numeric(self, vals):
        return np.array([float(np.sum(vals[0] ** 2))])

    def epigraph(self, t):
        from .constraints import SOC

        e = self.args[0].flatten()
        return [SOC(t + 1.0, hstack([t - 1.0, 2.0 * e]))]

    def quadratic(self):
        return self.args[0].flatten(), None

    def sympy(self, args):
        return sum(z**2 for z in args[0])


class QuadOverLin(Atom):
    """||e||^2 / y for y > 0 (y affine scalar)."""

    name = "quad_over_lin"

    def __init__(self, e, y):
        super().__init__(e, y)
        y = self.args[1]
        if y.size != 1:
            raise ShapeError(f"quad_over_lin: the denominator must be a scalar; got shape {y.shape}")
        if y.is_constant:  # ||e||^2 / y is convex only for y > 0: refuse other numbers (Parameters when read)
            what = f"quad_over_lin's denominator{_param_label(y)}"
            if cf.is_lazy(y.const):
                self.args[1] = Expression(y.shape, const=cf.lmap(lambda c: _positive(c, what), y.const))
            else:
                _positive(y.const, what)
        self.shape = ()

    def numeric(self, vals):
        y = float(np.reshape(vals[1], -1)[0])
        return np.array([np.sum(vals[0] ** 2) / y if y > 0 else np.inf])

    def epigraph(self, t):
        from .constraints import SOC

        e, y = self.args[0].flatten(), self.args[1].reshape(())
        return [SOC(t + y, hstack([t - y, 2.0 * e]))]

    def quadratic(self):
        y = self.args[1]
        if not y.is_constant or cf.is_lazy(y.const):
            return None
        yv = float(np.reshape(y.const, -1)[0])
        if yv <= 0:
            raise DCPError("quad_over_lin: the constant denominator must be positive")
        return self.args[0].flatten() * (1.0 / np.sqrt(yv)), None

    def sympy(self, args):
        return sum(z**2 for z in args[0]) / args[1][0]


def _param_label(e) -> str:
    return f" (parameter {e.name!r})" if isinstance(e, Parameter) else ""


def _positive(c, what: str) -> np.ndarray:
    arr = np.asarray(c, float)
    if np.any(arr <= 0):
        raise NonConvexError(f"{what} is {arr.reshape(-1)[0]:.6g}; it must be positive (||x||^2 / y is not convex "
                             "for y <= 0)")
    return arr


def _symmetric_scale(Q, what: str, tol: float) -> float:
    """max |Q_ij| (at least 1), after checking Q is square and symmetric within tol times it."""
    if Q.ndim != 2 or Q.shape[0] != Q.shape[1]:
        raise InputError(f"{what} must be a square matrix; got shape {Q.shape}")
    if Q.shape[0] == 0:
        return 1.0
    scale = max(1.0, float(abs(Q).max()))
    if float(abs(Q - Q.T).max()) > tol * scale:
        raise InputError(f"{what} is not symmetric: pass (Q + Q.T) / 2 if that is what you mean")
    return scale


def check_psd(Q, what: str = "Q", tol: float = 1e-9) -> None:
    """Raise NonConvexError unless the symmetric Q (dense or sparse) is PSD within tol * max|Q_ij| * n.

    Cheap first: diagonal dominance (O(nnz)) settles most data matrices; otherwise a Cholesky (dense) or a
    sparse LDL^T without pivoting (SuperLU in symmetric mode) of Q + shift I, which runs through with
    positive pivots exactly when Q + shift I is positive definite.
    """
    if sp.issparse(Q):
        if np.iscomplexobj(Q.data):
            raise InputError(f"{what} is complex; certiprog works over the reals")
        Q = Q.tocsr().astype(float)
        if not np.all(np.isfinite(Q.data)):
            raise InputError(f"{what} contains NaN or inf")
    else:
        Q = as_constant_array(Q, what)
    scale = _symmetric_scale(Q, what, tol)
    n = Q.shape[0]
    if n == 0:
        return
    shift = tol * scale * n
    diag = Q.diagonal()
    off = np.asarray(abs(Q).sum(axis=1)).reshape(-1) - np.abs(diag)
    if np.all(diag + shift >= off):
        return  # Gershgorin: every eigenvalue >= min_i (Q_ii - sum_j |Q_ij|) >= -shift
    i = int(np.argmin(diag))
    if diag[i] < -shift:
        raise NonConvexError(f"{what} is indefinite (diagonal entry {i} is {diag[i]:.6g} < 0): "
                             "a convex quadratic needs a PSD matrix")
    if sp.issparse(Q):
        M = (Q + shift * sp.identity(n, format="csr")).tocsc()
        try:
            lu = spla.splu(M, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options={"SymmetricMode": True})
            ok = bool(np.array_equal(lu.perm_r, lu.perm_c) and np.all(lu.U.diagonal() > 0))
        except RuntimeError:  # Q + shift I exactly singular
            ok = False
    else:
        try:
            np.linalg.cholesky(Q + shift * np.eye(n))
            ok = True
        except np.linalg.LinAlgError:
            ok = False
    if not ok:
        detail = ""
        if n <= 2000:
            dense = Q.toarray() if sp.issparse(Q) else Q
            detail = f" (smallest eigenvalue {sla.eigvalsh((dense + dense.T) / 2, subset_by_index=[0, 0])[0]:.6g})"
        raise NonConvexError(f"{what} is indefinite{detail}: a convex quadratic needs a PSD matrix "
                             "(e.g. Q = L L^T); the model would not be convex")


def _checked_parameter_matrix(param: Parameter, n: int):
    """The n x n value of ``param``, checked PSD once per new value (when the model is assembled)."""
    seen = {"version": None}

    def value(q):
        Q = np.asarray(q, float).reshape(n, n)
        if seen["version"] != param.version:
            check_psd(Q, f"Q of quad_form (parameter {param.name!r})")
            seen["version"] = param.version
        return Q

    return value


def psd_factor(Q, what: str = "Q", tol: float = 1e-9) -> np.ndarray:
    """A matrix L with Q = L L^T, after checking Q is symmetric PSD (tolerance relative to ||Q||)."""
    Q = as_constant_array(Q, what)
    scale = _symmetric_scale(Q, what, tol)
    if Q.shape[0] == 0:
        return np.zeros((0, 0))
    w, V = sla.eigh((Q + Q.T) / 2)
    if w.size and w[0] < -tol * scale * Q.shape[0]:
        raise NonConvexError(
            f"{what} is indefinite (smallest eigenvalue {w[0]:.3g}); a convex quadratic needs a PSD matrix"
        )
    return V * np.sqrt(np.clip(w, 0.0, None))


SPARSE_FACTOR_DENSE_MAX = 4000  # a sparse non-diagonal Q up to this side gets a dense eigen-factor (128 MB)


def _sparse_factor(Q) -> sp.csr_matrix:
    """A sparse F with F'F = Q for a sparse PSD Q (checked when the atom was built), for quad_form's epigraph: the
    square roots of a diagonal Q (its nonzero rows only), else an eigen-factor of Q when its side is at most
    SPARSE_FACTOR_DENSE_MAX; larger non-diagonal sparse Q raise an InputError asking for the user's own factor (a
    dense one would need 8 n^2 bytes)."""
    Q = sp.csr_matrix(Q)
    n = Q.shape[0]
    d = Q.diagonal()
    if (Q - sp.diags(d)).count_nonzero() == 0:
        keep = np.flatnonzero(d > 0)
        return sp.csr_matrix((np.sqrt(d[keep]), (np.arange(keep.size), keep)), shape=(keep.size, n))
    if n > SPARSE_FACTOR_DENSE_MAX:
        raise InputError(f"quad_form with a sparse non-diagonal {n} x {n} Q outside a QP objective (in a "
                         f"constraint, or maximised) needs a factor Q = F'F, and a dense one would take "
                         f"{8 * n * n / 2**30:.1f} GiB: write sum_squares(F @ x) (or norm2(F @ x)) with a sparse "
                         "factor F of your own, or keep quad_form in a minimised objective")
    return sp.csr_matrix(psd_factor(Q.toarray(), "Q of quad_form").T)


class QuadForm(Atom):
    """x^T Q x with Q symmetric PSD (dense, sparse, or a Parameter).

    Q is checked PSD (`check_psd`) when the atom is built, and a Parameter Q at each new value when the
    model is assembled, before any backend runs. ``assume_psd`` is kept for compatibility only: the check
    (diagonal dominance, else one Cholesky / sparse LDL^T) is cheap enough to run always.
    """

    name = "quad_form"

    def __init__(self, x, Q, assume_psd: bool = False):
        super().__init__(x)
        if not isinstance(assume_psd, (bool, np.bool_)):
            raise InputError(f"quad_form's assume_psd must be True or False; got {assume_psd!r}")
        x = self.args[0]
        if x.ndim > 1:
            raise ShapeError(f"quad_form needs a vector, got shape {x.shape}")
        n = x.size
        if isinstance(Q, Parameter):
            if Q.shape != (n, n):
                raise ShapeError(f"quad_form: Q has shape {Q.shape}, expected {(n, n)}")
            self.Q = cf.lmap(_checked_parameter_matrix(Q, n), Q.const)
        elif isinstance(Q, Expression):
            raise InputError("quad_form's Q must be a constant matrix or a Parameter, not an expression")
        else:
            Qs = Q.tocsr() if sp.issparse(Q) else numeric_array(Q, "Q of quad_form")
            if Qs.shape != (n, n):
                raise ShapeError(f"quad_form: Q has shape {Qs.shape}, expected {(n, n)}")
            check_psd(Qs, "Q of quad_form")
            self.Q = Qs.astype(float) if sp.issparse(Qs) else Qs
        self.shape = ()

    def numeric(self, vals):
        x = vals[0].reshape(-1)
        Q = cf.evaluate(self.Q)
        return np.array([float(x @ (Q @ x))])

    def epigraph(self, t):
        from .constraints import SOC
        from .expression import matmul

        n = self.args[0].size
        if not cf.is_lazy(self.Q) and sp.issparse(self.Q):
            z = matmul(_sparse_factor(self.Q), self.args[0])  # F x with F'F = Q, F sparse
        else:
            Lt = cf.lmap(lambda q: psd_factor(q, "Q of quad_form").T.reshape(-1), self.Q)
            z = matmul(Expression((n, n), const=Lt), self.args[0])
        return [SOC(t + 1.0, hstack([t - 1.0, 2.0 * z]))]

    def quadratic(self):
        return self.args[0], self.Q

    def sympy(self, args):
        import sympy

        Q = cf.evaluate(self.Q)
        Q = Q.toarray() if sp.issparse(Q) else np.asarray(Q)
        x = sympy.Matrix(args[0])
        return (x.T * sympy.Matrix(Q) * x)[0, 0]


# ---------------------------------------------------------------- exponential-cone atoms
class _Elementwise(Atom):
    """An atom applied entry by entry to one affine argument (output of the argument's shape)."""

    def __init__(self, e):
        super().__init__(e)
        self.shape = self.args[0].shape


class Exp(_Elementwise):
    """exp(e) elementwise, convex: exp(e) <= t  <=>  (e, 1, t) in K_exp."""

    name = "exp"

    def numeric(self, vals):
        with np.errstate(over="ignore"):
            return np.exp(vals[0].reshape(-1))

    def epigraph(self, t):
        from .cone_constraints import ExpCone

        return [ExpCone(self.args[0].flatten(), 1.0, t.flatten())]

    def sympy(self, args):
        import sympy

        return [sympy.exp(z) for z in args[0]]


class Log(_Elementwise):
    """log(e) elementwise, concave (e > 0): t <= log(e)  <=>  (t, 1, e) in K_exp."""

    name = "log"
    curvature = "concave"

    def numeric(self, vals):
        v = vals[0].reshape(-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(v > 0, np.log(np.where(v > 0, v, 1.0)), -np.inf)

    def epigraph(self, t):  # a concave atom: its hypograph
        from .cone_constraints import ExpCone

        return [ExpCone(t.flatten(), 1.0, self.args[0].flatten())]

    def sympy(self, args):
        import sympy

        return [sympy.log(z) for z in args[0]]


class Entr(_Elementwise):
    """-e log(e) elementwise, concave (e >= 0, 0 at 0): t <= -e log e  <=>  (t, e, 1) in K_exp."""

    name = "entr"
    curvature = "concave"

    def numeric(self, vals):
        v = vals[0].reshape(-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = -v * np.log(np.where(v > 0, v, 1.0))
        return np.where(v > 0, out, np.where(v == 0, 0.0, -np.inf))

    def epigraph(self, t):
        from .cone_constraints import ExpCone

        return [ExpCone(t.flatten(), self.args[0].flatten(), 1.0)]

    def sympy(self, args):
        import sympy

        return [-z * sympy.log(z) for z in args[0]]


class RelEntr(Atom):
    """x log(x / y) elementwise, convex (x >= 0, y > 0; 0 at x = 0): rel_entr <= t  <=>  (-t, x, y) in K_exp."""

    name = "rel_entr"

    def __init__(self, x, y):
        super().__init__(x, y)
        x, y = self.args
        try:
            self.shape = np.broadcast_shapes(x.shape, y.shape)
        except ValueError as exc:
            raise ShapeError(f"{self.name}: shapes {x.shape} and {y.shape} do not broadcast") from exc
        self.args = [x.broadcast_to(self.shape), y.broadcast_to(self.shape)]

    def numeric(self, vals):
        x, y = (np.broadcast_to(v, self.shape).reshape(-1) for v in vals)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = x * (np.log(np.where(x > 0, x, 1.0)) - np.log(np.where(y > 0, y, 1.0)))
        return np.where((x > 0) & (y > 0), r, np.where((x == 0) & (y >= 0), 0.0, np.inf))

    def _slack(self, t):
        return t

    def epigraph(self, t):
        from .cone_constraints import ExpCone

        x, y = (a.flatten() for a in self.args)
        return [ExpCone(-self._slack(t.flatten()), x, y)]

    def sympy(self, args):
        import sympy

        return [a * sympy.log(a / b) for a, b in zip(args[0], args[1])]


class KlDiv(RelEntr):
    """x log(x / y) - x + y elementwise, convex: kl_div <= t  <=>  rel_entr(x, y) <= t + x - y."""

    name = "kl_div"

    def numeric(self, vals):
        x, y = (np.broadcast_to(v, self.shape).reshape(-1) for v in vals)
        return super().numeric(vals) - x + y

    def _slack(self, t):
        x, y = (a.flatten() for a in self.args)
        return t + x - y

    def sympy(self, args):
        import sympy

        return [a * sympy.log(a / b) - a + b for a, b in zip(args[0], args[1])]


class Logistic(_Elementwise):
    """log(1 + exp(e)) elementwise, convex: <= t  <=>  exp(-t) + exp(e - t) <= 1 (two exp cones per entry)."""

    name = "logistic"

    def numeric(self, vals):
        return np.logaddexp(0.0, vals[0].reshape(-1))

    def epigraph(self, t):
        from .cone_constraints import ExpCone
        from .constraints import Inequality
        from .expression import Variable

        e, t = self.args[0].flatten(), t.flatten()
        u = Variable((2, e.size), name="_logistic")
        return [ExpCone(-t, 1.0, u[0]), ExpCone(e - t, 1.0, u[1]), Inequality(u[0] + u[1], 1.0)]

    def sympy(self, args):
        import sympy

        return [sympy.log(1 + sympy.exp(z)) for z in args[0]]


class LogSumExp(Atom):
    """log(sum exp(e)) over all entries or along ``axis``, convex: <= t  <=>  sum_i exp(e_i - t) <= 1."""

    name = "log_sum_exp"

    def __init__(self, e, axis=None):
        super().__init__(e)
        e = self.args[0]
        if e.size == 0:
            raise ShapeError("log_sum_exp of an empty expression is undefined")
        if axis is not None:
            if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)) \
                    or not -e.ndim <= axis < e.ndim:
                raise ShapeError(f"log_sum_exp: axis must be None or an integer in [{-e.ndim}, {e.ndim}) for shape "
                                 f"{e.shape}; got {axis!r}")
            axis = int(axis) % e.ndim
        self.axis = axis
        self.shape = () if axis is None else tuple(s for k, s in enumerate(e.shape) if k != axis)

    def numeric(self, vals):
        from scipy.special import logsumexp

        v = np.asarray(vals[0]).reshape(self.args[0].shape)
        return np.atleast_1d(logsumexp(v, axis=self.axis)).reshape(-1)

    def epigraph(self, t):
        from .cone_constraints import ExpCone
        from .constraints import Inequality
        from .expression import Variable

        e = self.args[0]
        if self.axis is None:
            tt = t.reshape(()).broadcast_to(e.shape)
        else:  # t has the reduced shape: put the reduced axis back and broadcast along it
            keep = list(e.shape)
            keep[self.axis] = 1
            tt = t.reshape(tuple(keep)).broadcast_to(e.shape)
        u = Variable(e.shape, name="_lse")
        return [ExpCone((e - tt).flatten(), 1.0, u.flatten()), Inequality(u.sum(axis=self.axis), 1.0)]

    def sympy(self, args):
        import sympy

        if self.axis is not None:
            raise InputError("log_sum_exp with an axis has no SymPy rendering here; use axis=None")
        return sympy.log(sum(sympy.exp(z) for z in args[0]))


# ---------------------------------------------------------------- power-cone atoms
class GeoMean(Atom):
    """(prod_i e_i^w_i) with w = p / sum(p) (default equal weights), concave (e >= 0): t <= geo_mean  <=>
    (e_w, t) in the n-dimensional power cone of weights w (entries with p_i = 0 drop out), written as a chain of
    3-D power cones (`epigraph`)."""

    name = "geo_mean"
    curvature = "concave"

    def __init__(self, e, p=None):
        super().__init__(e)
        e = self.args[0]
        if e.ndim > 1 and min(e.shape) > 1:
            raise ShapeError(f"geo_mean needs a vector; got shape {e.shape}")
        n = e.size
        if n == 0:
            raise ShapeError("geo_mean of an empty expression is undefined")
        if p is None:
            w = np.ones(n)
        else:
            w = numeric_array(p, "geo_mean's weights p").reshape(-1)
            if w.size != n:
                raise ShapeError(f"geo_mean: {w.size} weights for {n} entries")
            if np.any(w < 0) or not w.sum() > 0:
                raise InputError(f"geo_mean's weights p must be nonnegative with a positive sum; got {p!r}")
        self.keep = np.flatnonzero(w > 0)
        self.w = w[self.keep] / w[self.keep].sum()
        self.shape = ()

    def numeric(self, vals):
        v = vals[0].reshape(-1)[self.keep]
        if np.any(v < 0):
            return np.array([-np.inf])
        with np.errstate(divide="ignore"):
            return np.array([float(np.exp(np.log(v) @ self.w))])

    def epigraph(self, t):
        """A chain of 3-D power cones, x_1^w_1 r_1^(1-w_1) >= |t|, x_2^v_2 r_2^(1-v_2) >= r_1, ..., (v_i the
        weights renormalised over the entries left): exact (each r_i may grow up to the product of the rest), and
        taken by every solver with the 3-D cone; Clarabel 0.11's n-dimensional cone (`PowConeND`) stalls or
        panics on some weights of 5 or more entries."""
        from .constraints import Inequality, PowerCone3D
        from .expression import Variable

        e = self.args[0].flatten()[self.keep]
        t = t.reshape(())
        n = self.keep.size
        if n == 1:  # geo_mean of one entry is the entry itself
            return [Inequality(t, e.reshape(())), Inequality(0.0, e.reshape(()))]
        if n == 2:
            return [PowerCone3D(e[0], e[1], t, float(self.w[0]))]
        r = Variable(n - 2, name="_gm")
        tail = np.cumsum(self.w[::-1])[::-1]  # tail[i] = w_i + ... + w_{n-1}
        out, z = [], t
        for i in range(n - 2):
            out.append(PowerCone3D(e[i], r[i], z, float(self.w[i] / tail[i])))
            z = r[i]
        out.append(PowerCone3D(e[n - 2], e[n - 1], z, float(self.w[n - 2] / tail[n - 2])))
        return out

    def sympy(self, args):
        import sympy

        out = sympy.Integer(1)
        for z, wi in zip([args[0][i] for i in self.keep], self.w):
            out *= z ** sympy.Rational(wi).limit_denominator(10**6)
        return out


class Power(_Elementwise):
    """|e|^p elementwise for p > 1 (x^p for x >= 0), convex: |e|^p <= t  <=>  (t, 1, e) in K_pow(1/p).
    p = 2 uses one rotated second-order cone per entry (every conic solver takes it)."""

    name = "power"

    def __init__(self, e, p):
        super().__init__(e)
        self.p = float(p)
        if self.p == 2:
            self.name = "square"
            self.elementwise_quadratic = True  # sum_i w_i e_i^2 in an objective goes to P (a QP), see conic.py

    def numeric(self, vals):
        with np.errstate(over="ignore"):
            return np.abs(vals[0].reshape(-1)) ** self.p

    def epigraph(self, t):
        from .constraints import SOC, PowerCone3D

        e, t = self.args[0].flatten(), t.flatten()
        if self.p == 2:  # e^2 <= t  <=>  ||(t - 1, 2 e)|| <= t + 1, one cone per entry
            return [SOC(t + 1.0, hstack([(t - 1.0).reshape((e.size, 1)), (2.0 * e).reshape((e.size, 1))]))]
        return [PowerCone3D(t, np.ones(e.size), e, 1.0 / self.p)]

    def quadratic(self):
        """(e, None): e^2 entry by entry (scalar e: the objective's P; vector e: with the row weights)."""
        return (self.args[0].flatten(), None) if self.p == 2 else None

    def sympy(self, args):
        import sympy

        p = 2 if self.p == 2 else sympy.Rational(self.p).limit_denominator(10**6)
        return [z**2 if p == 2 else sympy.Abs(z) ** p for z in args[0]]


class InvPos(_Elementwise):
    """1 / e elementwise for e > 0, convex: 1/e <= t  <=>  sqrt(e t) >= 1  <=>  (e, t, 1) in K_pow(1/2)."""

    name = "inv_pos"

    def numeric(self, vals):
        v = vals[0].reshape(-1)
        with np.errstate(divide="ignore"):
            return np.where(v > 0, 1.0 / np.where(v > 0, v, 1.0), np.inf)

    def epigraph(self, t):
        from .constraints import PowerCone3D

        e, t = self.args[0].flatten(), t.flatten()
        return [PowerCone3D(e, t, np.ones(e.size), 0.5)]

    def sympy(self, args):
        return [1 / z for z in args[0]]


def _power_exponent(p) -> float:
    """p of ``x ** p``: a real number >= 1, else a CertiprogError naming the fix."""
    if isinstance(p, Expression):
        raise DCPError("x ** y with an expression y is not convex; the exponent must be a number >= 1")
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise InputError(f"the exponent of x ** p must be a real number >= 1; got {p!r}")
    p = float(p)
    if not np.isfinite(p):
        raise InputError(f"the exponent of x ** p must be finite; got {p}")
    if p < 1:
        raise DCPError(f"x ** {p:g} is not convex (p < 1): x ** p is supported for p >= 1 only; for 0 < p < 1 use "
                       "geo_mean or a PowerCone3D hypograph, for p < 0 (e.g. 1/x) a PowerCone3D epigraph "
                       "(inv_pos(x) for 1/x, x > 0)")
    return p


# ---------------------------------------------------------------- functions
def pos(e) -> Expression:
    """Elementwise max(e, 0)."""
    return Pos(e).expr()


def hinge(e) -> Expression:
    """Elementwise hinge max(0, 1 - e)."""
    return Pos(1.0 - as_expression(e)).expr()


def abs_(e) -> Expression:
    """Elementwise absolute value ``|e|`` (convex; two linear inequalities per entry); ``abs`` is Python's name."""
    return Abs(e).expr()


def max_entries(e) -> Expression:
    """The largest entry of an affine expression (convex; one linear inequality per entry)."""
    return MaxEntries(e).expr()


def norm2(e) -> Expression:
    """Euclidean norm ``||e||_2`` of all entries (convex; one second-order cone)."""
    return PNorm(e, 2).expr()


def pnorm(e, p=2) -> Expression:
    """The p-norm ``||e||_p`` for p >= 1, ``p=np.inf`` allowed (convex; a second-order cone for p = 2, linear rows
    for p = 1 and inf, 3-D power cones otherwise)."""
    return PNorm(e, p).expr()


def norm1(e) -> Expression:
    """The 1-norm ``sum_i |e_i|`` (convex; linear rows)."""
    return PNorm(e, 1).expr()


def norm_inf(e) -> Expression:
    """The max-norm ``max_i |e_i|`` (convex; linear rows)."""
    return PNorm(e, np.inf).expr()


def sum_squares(e) -> Expression:
    """``sum_i e_i^2`` (convex): in the objective a quadratic term (1/2 x'Px), in a constraint a second-order cone."""
    return SumSquares(e).expr()


def quad_over_lin(e, y) -> Expression:
    """``||e||_2^2 / y`` for an affine scalar y > 0 (convex; one second-order cone), as CVXPY's quad_over_lin."""
    return QuadOverLin(e, y).expr()


def quad_form(x, Q, assume_psd: bool = False) -> Expression:
    """x^T Q x; Q is checked symmetric PSD unless ``assume_psd`` (for Q PSD by construction)."""
    return QuadForm(x, Q, assume_psd).expr()


def exp(e) -> Expression:
    """Elementwise exp(e) (convex; exponential cone)."""
    return Exp(e).expr()


def log(e) -> Expression:
    """Elementwise natural log(e) (concave, e > 0; exponential cone)."""
    return Log(e).expr()


def entr(e) -> Expression:
    """Elementwise entropy -e log(e) (concave, e >= 0; exponential cone)."""
    return Entr(e).expr()


def rel_entr(x, y) -> Expression:
    """Elementwise relative entropy x log(x / y) (convex; exponential cone)."""
    return RelEntr(x, y).expr()


def kl_div(x, y) -> Expression:
    """Elementwise x log(x / y) - x + y (convex; exponential cone), as CVXPY's kl_div."""
    return KlDiv(x, y).expr()


def logistic(e) -> Expression:
    """Elementwise log(1 + exp(e)) (convex; two exponential cones per entry)."""
    return Logistic(e).expr()


def log_sum_exp(e, axis=None) -> Expression:
    """log(sum(exp(e))) over all entries (axis=None) or along ``axis`` (convex; exponential cones)."""
    return LogSumExp(e, axis).expr()


def geo_mean(e, p=None) -> Expression:
    """Weighted geometric mean prod e_i^(p_i / sum p) of a vector (concave, e >= 0; n-dimensional power cone)."""
    return GeoMean(e, p).expr()


def square(e) -> Expression:
    """Elementwise e^2 (convex)."""
    return Power(e, 2).expr()


def power(e, p) -> Expression:
    """Elementwise ``|e|^p`` for a number p >= 1 (p = 1: e itself, affine; p = 2: square). For p that is not an
    even integer this is ``|e|^p``, the convex extension of x^p (CVXPY's power restricts x >= 0 instead: add the
    constraint e >= 0 to match it)."""
    p = _power_exponent(p)
    e = as_expression(e)
    if p == 1:
        return e
    return Power(e, p).expr()


def inv_pos(e) -> Expression:
    """Elementwise 1 / e for e > 0 (convex; 3-D power cone): write ``c * inv_pos(x)`` for ``c / x``, c >= 0."""
    return InvPos(e).expr()
