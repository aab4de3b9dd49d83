"""Symbolic checks with SymPy: identities by simplification plus exact random spot checks."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import sympy

from ..errors import ModelError
from ..model import Model, Variable, maximize, minimize, quad_form
from ..model import coef as cf
from ..model.constraints import PSD, SOC, Equality, Inequality
from ..model.expression import Expression


@dataclass
class IdentityCheck:
    """Outcome of `verify_identity`: ``holds``; ``method``; a counterexample (symbol -> value) when it fails."""

    holds: bool
    method: str
    counterexample: dict | None = None
    lhs_value: object = None
    rhs_value: object = None
    spot_checks: int = 0
    notes: list = field(default_factory=list)

    def __bool__(self):
        return self.holds


def _sample(sym, rng: random.Random):
    """A random rational respecting the symbol's assumptions (positive, nonnegative, integer)."""
    if sym.is_integer:
        lo = 1 if sym.is_positive else (0 if sym.is_nonnegative else -9)
        return sympy.Integer(rng.randint(lo, 9))
    v = sympy.Rational(rng.randint(1, 97), rng.randint(1, 31))
    if sym.is_positive or sym.is_nonnegative:
        return v
    return v if rng.random() < 0.5 else -v


def verify_identity(lhs, rhs, *, assumptions: dict | None = None, domain=None, spot_checks: int = 20,
                    seed: int = 0) -> IdentityCheck:
    """Check ``lhs == rhs`` symbolically; fall back to exact evaluation at random rational points.

    ``domain(subs) -> bool`` may restrict the spot checks (e.g. to 0 < delta < 1).
    Matrices are compared entrywise. A failed spot check returns the counterexample.
    """
    lhs, rhs = sympy.sympify(lhs), sympy.sympify(rhs)
    diff = sympy.Matrix(lhs) - sympy.Matrix(rhs) if isinstance(lhs, sympy.MatrixBase) else lhs - rhs
    if assumptions:
        diff = diff.subs(assumptions)
    try:
        simp = sympy.simplify(diff)
        zero = simp.is_zero_matrix if isinstance(simp, sympy.MatrixBase) else simp == 0
    except Exception as exc:  # simplify can fail on piecewise or special functions: rely on spot checks
        zero, simp = False, None
        note: str | None = f"simplify failed: {type(exc).__name__}"
    else:
        note = None
    free = sorted(diff.free_symbols, key=lambda s: s.name)
    rng = random.Random(seed)
    done = 0
    for _ in range(spot_checks * 20):
        if done >= spot_checks:
            break
        subs = {s: _sample(s, rng) for s in free}
        if domain is not None and not domain(subs):
            continue
        try:
            val = diff.subs(subs)
            val = sympy.nsimplify(val) if not isinstance(val, sympy.MatrixBase) else val
        except (ZeroDivisionError, ValueError):
            continue
        if val.has(sympy.zoo, sympy.nan):
            continue
        done += 1
        entries = val if isinstance(val, sympy.MatrixBase) else [val]
        nonzero = any(sympy.N(v, 30) != 0 and abs(sympy.N(v, 30)) > 1e-25 for v in entries)
        if nonzero:
            return IdentityCheck(False, "spot check", counterexample=subs, lhs_value=lhs.subs(subs),
                                 rhs_value=rhs.subs(subs), spot_checks=done, notes=[note] if note else [])
    if zero:
        return IdentityCheck(True, "simplify", spot_checks=done)
    return IdentityCheck(done > 0, "spot checks" if done else "none possible", spot_checks=done,
                         notes=[n for n in (note, "simplify did not reach 0; holds at every random rational point")
                                if n])


# ====================================================================== models as SymPy expressions
# `to_sympy`, `lagrangian`, `kkt_conditions` and `lagrange_dual` render a certiprog Model exactly (numbers become
# rationals) so that optimality conditions and duals can be derived by SymPy on small explicit instances.
# Sign convention (certiprog's, see certiprog.model.constraints): every constraint is a cone block s(x) in K with
# multipliers z in K*, and the Lagrangian of the minimisation form is L = f - <z, s(x)>, where
#   lhs <= rhs : s = rhs - lhs >= 0, z >= 0;     lhs == rhs : s = lhs - rhs = 0, z free;
#   SOC(t, x)  : s = (t, x),  z in the SOC;      PSD(X)     : s = svec(X), z = svec(Z), Z PSD;
# and for `maximize f` the minimisation form is `minimize -f` (so the duals are those of -f, as in Solution.dual).
_SMOOTH_ATOMS = ("sum_squares", "quad_form", "quad_over_lin")


def _to_number(x):
    """An exact SymPy number for a float: a short rational when it round-trips exactly, else its decimal."""
    from fractions import Fraction

    x = float(x)
    if x == int(x) and abs(x) < 2 ** 53:
        return sympy.Integer(int(x))
    fr = Fraction(x).limit_denominator(10 ** 6)
    if float(fr) == x:
        return sympy.Rational(fr.numerator, fr.denominator)
    return sympy.Rational(repr(x))


@dataclass
class SymConstraint:
    """One constraint of a `SymModel`: the cone rows ``s`` (``s in cone``) and readable ``relations``."""

    name: str
    cone: str  # 'nonneg', 'zero', 'soc', 'psd'
    s: list  # sympy expressions, one per cone row
    relations: list  # sympy relationals (nonneg / zero / soc); PSD: [] (see `matrix`)
    shape: tuple = ()
    cone_dim: int = 0  # soc: rows per cone; psd: side n
    matrix: object = None  # psd: the symmetric sympy Matrix X with X >> 0


@dataclass
class SymModel:
    """A certiprog Model rendered in SymPy (see `to_sympy`)."""

    name: str
    sense: str
    objective: Any  # sympy expression of the model's objective (as written, not sign-flipped); sympy is untyped
    variables: dict  # name -> sympy Symbol (scalar) or Matrix (vector as column, matrix as matrix)
    symbols: list  # every free scalar symbol, in variable order (symmetric matrices: upper triangle only)
    constraints: dict  # name -> SymConstraint
    _var_objs: dict = field(default_factory=dict, repr=False)

    @property
    def sign(self) -> int:
        return 1 if self.sense == "minimize" else -1

    def point(self, values: dict) -> dict:
        """``{symbol: value}`` from ``{variable name: numeric value}`` (e.g. ``sol.values``)."""
        out = {}
        for name, v in self._var_objs.items():
            flat = v.flat(values[name])
            for sym, val in zip(self._free[name], flat):
                out[sym] = float(val)
        return out

    _free: dict = field(default_factory=dict, repr=False)


def _render(expr, free: dict) -> list:
    """Flat list of sympy entries of a certiprog Expression; ``free[var]`` = the variable's free symbols."""
    import numpy as np
    import scipy.sparse as sp

    size = expr.size
    const = np.broadcast_to(np.asarray(cf.evaluate(expr.const), dtype=float).reshape(-1), (size,))
    out = [_to_number(c) for c in const]
    for v, C in expr.terms.items():
        Cd = cf.evaluate(C)
        Cd = sp.csr_matrix(Cd) if not sp.issparse(Cd) else Cd.tocsr()
        syms = free[v]
        for r in range(size):
            row = Cd.getrow(r)
            for j, a in zip(row.indices, row.data):
                if a != 0:
                    out[r] += _to_number(a) * syms[j]
    for S, atom in expr.nonlin:
        args = [_render(a, free) for a in atom.args]
        val = atom.sympy(args)
        vals = list(val) if isinstance(val, (list, tuple)) else [val]
        Sd = sp.csr_matrix(S)
        for r in range(size):
            row = Sd.getrow(r)
            for j, a in zip(row.indices, row.data):
                if a != 0:
                    out[r] += _to_number(a) * vals[j]
    return out


def _free_symbols(v) -> list:
    """One real symbol per free entry of a Variable (``name``, ``name_i`` or ``name_i_j``; symmetric: i <= j)."""
    import numpy as np

    lift = v.lift.tocsc()
    syms = []
    for k in range(v.n_free):
        r = int(lift.indices[lift.indptr[k]])  # first vec_C entry that this free column fills
        if not v.shape:
            nm = v.name
        elif len(v.shape) == 1:
            nm = f"{v.name}_{r}"
        else:
            i, j = np.unravel_index(r, v.shape)
            nm = f"{v.name}_{i}_{j}"
        syms.append(sympy.Symbol(nm, real=True, nonnegative=True) if v.nonneg else sympy.Symbol(nm, real=True))
    return syms


def to_sympy(model) -> SymModel:
    """Render ``model`` in SymPy: one symbol per free variable entry, the objective, each constraint's cone rows.

    Meant for small explicit instances (every coefficient becomes an exact rational). Variables declared
    ``nonneg=True`` get a constraint ``'<name>>=0'``, bounded ones ``'<name>>=lb'`` / ``'<name><=ub'`` /
    ``'<name>==bound'`` (the names certiprog gives their domain blocks, `Variable.domain`). ForAll
    constraints are not supported (`certiprog.errors.ModelError`).
    """
    if model.objective is None:
        raise ModelError(f"model {model.name!r} has no objective")
    vars_ = model.variables
    free = {}
    variables, symbols, frees = {}, [], {}
    for name, v in vars_.items():
        syms = _free_symbols(v)
        free[v] = syms
        frees[name] = syms
        symbols += syms
        entries = _render(_variable_expression(v), free)
        if not v.shape:
            variables[name] = entries[0]
        elif len(v.shape) == 1:
            variables[name] = sympy.Matrix(entries)
        else:
            variables[name] = sympy.Matrix(v.shape[0], v.shape[1], entries)
    objective = _render(model.objective.expr, free)[0]
    cons = {}
    for cname, c in model.constraints.items():
        blocks = c.blocks()
        if not isinstance(c, (Inequality, Equality, SOC, PSD)) or len(blocks) != 1:
            raise ModelError(f"to_sympy: constraint {cname!r} ({type(c).__name__}) is not supported; use <=, ==, "
                             "SOC or PSD constraints (ForAll and power cones are not rendered)")
        cone, s_expr = blocks[0]
        s = _render(s_expr, free)
        if cone.kind == "nonneg":
            assert isinstance(c, Inequality)  # the one block of a <= constraint
            cons[cname] = SymConstraint(cname, "nonneg", s, [sympy.Ge(e, 0, evaluate=False) for e in s], tuple(c.shape))
        elif cone.kind == "zero":
            assert isinstance(c, Equality)
            cons[cname] = SymConstraint(cname, "zero", s, [sympy.Eq(e, 0, evaluate=False) for e in s], tuple(c.shape))
        elif cone.kind == "soc":
            assert isinstance(c, SOC)
            m = c.n + 1
            rel = [sympy.Ge(s[i * m], sympy.sqrt(sum(z ** 2 for z in s[i * m + 1:(i + 1) * m])), evaluate=False)
                   for i in range(c.k)]
            cons[cname] = SymConstraint(cname, "soc", s, rel, c.dual_shape(), m)
        else:  # psd
            assert isinstance(c, PSD)
            X = _render(c.X, free)
            n = c.n
            cons[cname] = SymConstraint(cname, "psd", s, [], (n, n), n, sympy.Matrix(n, n, X))
    for name, v in vars_.items():
        for cname, cone, s_expr in v.domain():  # sign domain and bounds, the blocks the compiler adds
            if cname in cons:
                raise ModelError(f"to_sympy: a constraint is named {cname!r}, the name of {name!r}'s domain block")
            ent = _render(s_expr, free)
            rel = sympy.Ge if cone.kind == "nonneg" else sympy.Eq
            shape = tuple(v.shape) if cname == f"{name}>=0" else (len(ent),)
            cons[cname] = SymConstraint(cname, cone.kind, ent, [rel(e, 0, evaluate=False) for e in ent], shape)
    sm = SymModel(model.name, model.objective.sense, objective, variables, symbols, cons)
    sm._var_objs = dict(vars_)
    sm._free = frees
    return sm


def _variable_expression(v):
    """The variable as a plain affine Expression (so its entries render through the lift)."""
    return Expression(v.shape, {v: v.lift}, None)


def _nonsmooth(model) -> list:
    names = []
    for e in model._all_expressions():
        for _, atom in e.nonlin:
            if atom.name not in _SMOOTH_ATOMS:
                names.append(atom.name)
    return sorted(set(names))


@dataclass
class SymLagrangian:
    """``L = sign * f - sum_constraints <z_c, s_c>`` with one multiplier symbol per cone row."""

    expr: Any  # a sympy expression
    multipliers: dict  # constraint name -> list of sympy symbols (in cone-row order)
    model: SymModel

    @property
    def symbols(self) -> list:
        return [z for zs in self.multipliers.values() for z in zs]

    def duals_from(self, sol) -> dict:
        """``{multiplier symbol: value}`` from a certiprog Solution's ``sol.dual(name)`` (PSD duals re-vectorised)."""
        import numpy as np

        out = {}
        for name, zs in self.multipliers.items():
            con = self.model.constraints[name]
            try:
                z = np.asarray(sol.dual(name), dtype=float)
            except Exception:  # a variable's sign domain is a non-primary block: read its rows directly
                blocks = sol.problem.rows_of(name, primary_only=False)
                z = np.concatenate([sol.z[b.start:b.stop] for b in blocks])
            if con.cone == "psd":
                n = con.cone_dim
                iu = [(i, j) for j in range(n) for i in range(j + 1)]  # column-major upper triangle
                z = np.array([z[i, j] * (1.0 if i == j else np.sqrt(2.0)) for i, j in iu])
            for sym, val in zip(zs, z.reshape(-1)):
                out[sym] = float(val)
        return out


def lagrangian(model) -> SymLagrangian:
    """The Lagrangian of ``model`` in certiprog's convention: ``L = f - <z, s(x)>`` (f sign-flipped for maximize).

    Multipliers are named ``z_<constraint>_<row>`` (nonnegative for ``<=`` rows). See the module comment for s.
    """
    sm = model if isinstance(model, SymModel) else to_sympy(model)
    L = sm.sign * sm.objective
    mult = {}
    for name, con in sm.constraints.items():
        tag = name.replace(">=", "_ge_").replace("<=", "_le_").replace("==", "_eq_")
        tag = "".join(ch if ch.isalnum() else "_" for ch in tag).strip("_")
        kw = dict(real=True, nonnegative=True) if con.cone == "nonneg" else dict(real=True)
        zs = [sympy.Symbol(f"z_{tag}_{i}", **kw) for i in range(len(con.s))]
        mult[name] = zs
        L = L - sum(z * s for z, s in zip(zs, con.s))
    return SymLagrangian(L, mult, sm)


@dataclass
class KKTConditions:
    """KKT system of a model as SymPy relations (see `kkt_conditions`)."""

    lagrangian: SymLagrangian
    stationarity: list  # Eq(dL/dx_j, 0) per free primal symbol
    primal_feasibility: list  # relationals (PSD constraints: in `psd_primal`)
    dual_feasibility: list  # relationals (PSD multipliers: in `psd_dual`)
    complementarity: list  # Eq(z_r * s_r, 0) for nonneg rows; Eq(<z, s>, 0) per SOC / PSD cone
    psd_primal: list = field(default_factory=list)  # sympy matrices that must be PSD
    psd_dual: list = field(default_factory=list)

    def residuals(self, point: dict) -> dict:
        """Largest violation of each group at ``point`` ({symbol: number}, primal and multipliers together)."""
        import numpy as np

        def viol(rel):
            if isinstance(rel, sympy.Equality):
                return abs(float(sympy.N((rel.lhs - rel.rhs).subs(point))))
            if isinstance(rel, (sympy.GreaterThan, sympy.StrictGreaterThan)):
                return max(0.0, float(sympy.N((rel.rhs - rel.lhs).subs(point))))
            if isinstance(rel, (sympy.LessThan, sympy.StrictLessThan)):
                return max(0.0, float(sympy.N((rel.lhs - rel.rhs).subs(point))))
            if rel is sympy.true:
                return 0.0
            raise ValueError(f"cannot evaluate {rel!r}")

        def psd_viol(mats):
            worst = 0.0
            for Mx in mats:
                A = np.array(Mx.subs(point).evalf(), dtype=float)
                worst = max(worst, max(0.0, -float(np.linalg.eigvalsh((A + A.T) / 2).min())))
            return worst

        return {"stationarity": max([viol(r) for r in self.stationarity] or [0.0]),
                "primal_feasibility": max([viol(r) for r in self.primal_feasibility] + [psd_viol(self.psd_primal)]),
                "dual_feasibility": max([viol(r) for r in self.dual_feasibility] + [psd_viol(self.psd_dual)]),
                "complementarity": max([viol(r) for r in self.complementarity] or [0.0])}

    @property
    def all(self) -> list:
        return self.stationarity + self.primal_feasibility + self.dual_feasibility + self.complementarity


def kkt_conditions(model) -> KKTConditions:
    """Stationarity, primal and dual feasibility and complementarity of ``model`` as SymPy relations.

    Needs a differentiable objective and constraints (sum_squares, quad_form, quad_over_lin and affine terms);
    nonsmooth atoms (pos, abs, norms, max) raise `certiprog.errors.ModelError`: write them with an epigraph variable.
    """
    if not isinstance(model, SymModel):
        bad = _nonsmooth(model)
        if bad:
            raise ModelError(f"kkt_conditions needs smooth functions; the model uses {bad}: introduce an epigraph "
                             "variable t with the atom <= t (a cone constraint) and rebuild")
    L = lagrangian(model)
    sm = L.model
    stat = [sympy.Eq(sympy.expand(sympy.diff(L.expr, x)), 0, evaluate=False) for x in sm.symbols]
    primal, dual, comp, psd_p, psd_d = [], [], [], [], []
    for name, con in sm.constraints.items():
        zs = L.multipliers[name]
        if con.cone == "nonneg":
            primal += [sympy.Ge(s, 0, evaluate=False) for s in con.s]
            dual += [sympy.Ge(z, 0, evaluate=False) for z in zs]
            comp += [sympy.Eq(z * s, 0, evaluate=False) for z, s in zip(zs, con.s)]
        elif con.cone == "zero":
            primal += [sympy.Eq(s, 0, evaluate=False) for s in con.s]
        elif con.cone == "soc":
            m = con.cone_dim
            primal += con.relations
            for i in range(len(con.s) // m):
                zz, ss = zs[i * m:(i + 1) * m], con.s[i * m:(i + 1) * m]
                dual.append(sympy.Ge(zz[0], sympy.sqrt(sum(z ** 2 for z in zz[1:])), evaluate=False))
                comp.append(sympy.Eq(sum(a * b for a, b in zip(zz, ss)), 0, evaluate=False))
        else:
            n = con.cone_dim
            psd_p.append(con.matrix)
            Z = sympy.zeros(n, n)
            k = 0
            for j in range(n):
                for i in range(j + 1):
                    Z[i, j] = Z[j, i] = zs[k] if i == j else zs[k] / sympy.sqrt(2)
                    k += 1
            psd_d.append(Z)
            comp.append(sympy.Eq(sum(a * b for a, b in zip(zs, con.s)), 0, evaluate=False))
    return KKTConditions(L, stat, primal, dual, comp, psd_p, psd_d)


@dataclass
class LagrangeDual:
    """The Lagrange dual of an LP/QP derived by `lagrange_dual`: maximise ``objective`` over the multipliers.

    ``max objective`` equals ``sign * (model's optimal value)`` where sign = +1 (minimize) or -1 (maximize);
    `to_model` builds a certiprog Model whose optimal value equals the original model's optimal value.
    """

    objective: object  # concave quadratic in the multipliers
    multipliers: list  # every multiplier symbol (order of `lagrangian`)
    constraints: list  # sympy relations: z >= 0 for <= rows and the equalities from purely linear variables
    primal: dict  # closed form x_j(z) for the variables minimised in closed form
    linear_variables: list  # the variables entering L linearly (their coefficient must vanish)
    sign: int
    lagrangian: SymLagrangian

    def to_model(self):
        """A certiprog Model of this dual (its optimal value is the original model's optimal value)."""
        import numpy as np

        zs = self.multipliers
        z = Variable(len(zs), "z")
        H = -sympy.hessian(self.objective, zs) if zs else sympy.zeros(0, 0)
        at0 = {s: 0 for s in zs}
        h = [sympy.diff(self.objective, s).subs(at0) for s in zs]
        c0 = float(self.objective.subs(at0))
        Hn = np.array(H.evalf(), dtype=float) if zs else np.zeros((0, 0))
        hn = np.array([float(v) for v in h])
        g = hn @ z + c0
        if np.any(Hn != 0):
            g = g - 0.5 * quad_form(z, (Hn + Hn.T) / 2)
        m = Model(maximize(g) if self.sign > 0 else minimize(-g), name="lagrange_dual")
        nonneg = [i for i, s in enumerate(zs) if s.is_nonnegative]
        if nonneg:
            m.add(z[np.array(nonneg)] >= 0, name="z>=0")
        for k, rel in enumerate(self.constraints):
            if isinstance(rel, sympy.Equality):
                e = sympy.expand(rel.lhs - rel.rhs)
                a = np.array([float(e.coeff(s)) for s in zs])
                b = float(e.subs(at0))
                m.add(a @ z + b == 0, name=f"eq{k}")
        return m


def lagrange_dual(model) -> LagrangeDual:
    """Minimise the Lagrangian over x in closed form for an LP/QP; returns the dual as a `LagrangeDual`.

    Requirements (otherwise `certiprog.errors.ModelError` saying which one failed): linear constraints only
    (``<=``, ``==``); the objective is a polynomial of degree <= 2; splitting the variables into those that appear
    in the quadratic part (K) and those that appear only linearly (J), the quadratic part must be positive definite
    on K. Then ``x_K(z) = P_KK^{-1} (grad terms)`` and the coefficients of x_J in L become equality constraints of
    the dual (an LP has K empty; a strictly convex QP has J empty; ME^2's Problem 2 has J = xi).
    """
    sm = to_sympy(model)
    for name, con in sm.constraints.items():
        if con.cone not in ("nonneg", "zero"):
            raise ModelError(f"lagrange_dual handles LPs and QPs (linear constraints); constraint {name!r} is a "
                             f"{con.cone} cone")
        for s in con.s:
            if sympy.Poly(s, *sm.symbols).total_degree() > 1:
                raise ModelError(f"lagrange_dual: constraint {name!r} is not linear in the variables")
    f = sympy.expand(sm.sign * sm.objective)
    if f.has(sympy.Max, sympy.Abs, sympy.sqrt) or not f.is_polynomial(*sm.symbols) or \
            (sm.symbols and sympy.Poly(f, *sm.symbols).total_degree() > 2):
        raise ModelError("lagrange_dual: the objective is not a quadratic polynomial on this instance (nonsmooth or "
                         "higher-order atoms); rewrite it as an LP/QP")
    L = lagrangian(sm)
    xs = sm.symbols
    Pm = sympy.hessian(f, xs) if xs else sympy.zeros(0, 0)
    K = [i for i in range(len(xs)) if any(Pm[i, j] != 0 for j in range(len(xs)))]
    J = [i for i in range(len(xs)) if i not in K]
    PKK = Pm.extract(K, K) if K else sympy.zeros(0, 0)
    if K and not PKK.is_positive_definite:
        raise ModelError("lagrange_dual: the quadratic part of the objective is not positive definite on the variables "
                         f"{[str(xs[i]) for i in K]} (eigenvalues {[sympy.nsimplify(e) for e in PKK.eigenvals()]}); "
                         "the minimum over x has no closed form here")
    grad = [sympy.diff(L.expr, xs[i]) for i in K]
    sol = sympy.solve(grad, [xs[i] for i in K], dict=True) if K else [{}]
    if len(sol) != 1:
        raise ModelError("lagrange_dual: stationarity in x has no unique solution")
    sub = sol[0]
    eqs = []
    for j in J:
        coeff = sympy.expand(sympy.diff(L.expr, xs[j]))
        if coeff.has(*xs):
            raise ModelError(f"lagrange_dual: variable {xs[j]} is not purely linear in the Lagrangian")
        if coeff != 0:
            eqs.append(sympy.Eq(coeff, 0, evaluate=False))
    Lz = sympy.expand(L.expr.subs(sub))
    # the remaining x_J terms vanish on the equality constraints: drop them
    Lz = sympy.expand(Lz.subs({xs[j]: 0 for j in J}))
    cons = [sympy.Ge(z, 0, evaluate=False) for z in L.symbols if z.is_nonnegative] + eqs
    return LagrangeDual(Lz, L.symbols, cons, {xs[i]: sympy.simplify(sub[xs[i]]) for i in K}, [xs[j] for j in J],
                        sm.sign, L)
