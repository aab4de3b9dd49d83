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

from ..errors import DCPError, InputError, ShapeError
from . import coef as cf
from .expression import Expression, Parameter, as_constant_array, as_expression, vstack


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
        p = float(p)
        if not (p >= 1):
            raise DCPError(f"pnorm needs p >= 1 to be convex; got p={p}")
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
        return [SOC(t + 1.0, vstack([t - 1.0, 2.0 * e]))]

    def quadratic(self):
        return self.args[0].flatten(), None

    def sympy(self, args):
        return sum(z**2 for z in args[0])


class QuadOverLin(Atom):
    """||e||^2 / y for y > 0 (y affine scalar)."""

    name = "quad_over_lin"

    def __init__(self, e, y):
        super().__init__(e, y)
        if self.args[1].size != 1:
            raise ShapeError("quad_over_lin: the denominator must be a scalar")
        self.shape = ()

    def numeric(self, vals):
        y = float(np.reshape(vals[1], -1)[0])
        return np.array([np.sum(vals[0] ** 2) / y if y > 0 else np.inf])

    def epigraph(self, t):
        from .constraints import SOC

        e, y = self.args[0].flatten(), self.args[1].reshape(())
        return [SOC(t + y, vstack([t - y, 2.0 * e]))]

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


def psd_factor(Q, what: str = "Q", tol: float = 1e-9) -> np.ndarray:
    """A matrix L with Q = L L^T, after checking Q is symmetric PSD (tolerance relative to ||Q||)."""
    Q = as_constant_array(Q, what)
    if Q.ndim != 2 or Q.shape[0] != Q.shape[1]:
        raise InputError(f"{what} must be a square matrix; got shape {Q.shape}")
    scale = max(1.0, float(np.max(np.abs(Q)))) if Q.size else 1.0
    if not np.allclose(Q, Q.T, atol=tol * scale, rtol=0):
        raise InputError(f"{what} is not symmetric: pass (Q + Q.T) / 2 if that is what you mean")
    w, V = sla.eigh((Q + Q.T) / 2)
    if w.size and w[0] < -tol * scale * Q.shape[0]:
        raise InputError(
            f"{what} is indefinite (smallest eigenvalue {w[0]:.3g}); a convex quadratic needs a PSD matrix"
        )
    return V * np.sqrt(np.clip(w, 0.0, None))


class QuadForm(Atom):
    """x^T Q x with Q symmetric PSD (dense, sparse, or a Parameter)."""

    name = "quad_form"

    def __init__(self, x, Q, assume_psd: bool = False):
        super().__init__(x)
        x = self.args[0]
        if x.ndim > 1:
            raise ShapeError(f"quad_form needs a vector, got shape {x.shape}")
        n = x.size
        if isinstance(Q, Parameter):
            if Q.shape != (n, n):
                raise ShapeError(f"quad_form: Q has shape {Q.shape}, expected {(n, n)}")
            self.Q = cf.lmap(lambda q: q.reshape(n, n), Q.const)
        else:
            Qs = Q.tocsr().astype(float) if sp.issparse(Q) else as_constant_array(Q, "Q")
            if Qs.shape != (n, n):
                raise ShapeError(f"quad_form: Q has shape {Qs.shape}, expected {(n, n)}")
            vals = Qs.data if sp.issparse(Qs) else Qs
            if not np.all(np.isfinite(vals)):
                raise InputError("quad_form: Q contains NaN or inf")
            dense = Qs if assume_psd else (Qs.toarray() if sp.issparse(Qs) else Qs)
            asym = (abs(Qs - Qs.T) > 1e-9 * max(1.0, abs(Qs).max())).nnz if sp.issparse(Qs) else not np.allclose(Qs, Qs.T)
            if asym:
                raise InputError("Q of quad_form is not symmetric: pass (Q + Q.T) / 2 if that is what you mean")
            if not assume_psd:
                if n > 3000:
                    raise InputError(
                        f"quad_form: checking a {n} x {n} Q for PSD needs a dense eigendecomposition; "
                        "pass assume_psd=True if Q is PSD by construction"
                    )
                psd_factor(dense, "Q of quad_form")
            self.Q = Qs
        self.shape = ()

    def numeric(self, vals):
        x = vals[0].reshape(-1)
        Q = cf.evaluate(self.Q)
        return np.array([float(x @ (Q @ x))])

    def epigraph(self, t):
        from .constraints import SOC

        L = cf.lmap(lambda q: psd_factor(q.toarray() if sp.issparse(q) else q, "Q of quad_form"), self.Q)
        from .expression import matmul

        z = matmul(cf.Lazy(lambda m: m.T, L) if cf.is_lazy(L) else L.T, self.args[0])
        return [SOC(t + 1.0, vstack([t - 1.0, 2.0 * z]))]

    def quadratic(self):
        return self.args[0], self.Q

    def sympy(self, args):
        import sympy

        Q = cf.evaluate(self.Q)
        Q = Q.toarray() if sp.issparse(Q) else np.asarray(Q)
        x = sympy.Matrix(args[0])
        return (x.T * sympy.Matrix(Q) * x)[0, 0]


# ---------------------------------------------------------------- functions
def pos(e) -> Expression:
    """Elementwise max(e, 0)."""
    return Pos(e).expr()


def hinge(e) -> Expression:
    """Elementwise hinge max(0, 1 - e)."""
    return Pos(1.0 - as_expression(e)).expr()


def abs_(e) -> Expression:
    return Abs(e).expr()


def max_entries(e) -> Expression:
    return MaxEntries(e).expr()


def norm2(e) -> Expression:
    return PNorm(e, 2).expr()


def pnorm(e, p=2) -> Expression:
    return PNorm(e, p).expr()


def norm1(e) -> Expression:
    return PNorm(e, 1).expr()


def norm_inf(e) -> Expression:
    return PNorm(e, np.inf).expr()


def sum_squares(e) -> Expression:
    return SumSquares(e).expr()


def quad_over_lin(e, y) -> Expression:
    return QuadOverLin(e, y).expr()


def quad_form(x, Q, assume_psd: bool = False) -> Expression:
    """x^T Q x; Q is checked symmetric PSD unless ``assume_psd`` (for Q PSD by construction)."""
    return QuadForm(x, Q, assume_psd).expr()
