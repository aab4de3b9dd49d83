"""Paper 004 — the high-probability MPM (Cousins & Shawe-Taylor), Prop. 1, eqs. (8)-(10), Cor. 1, Alg. 1.

Derivation, and the paper's errors corrected here: ``docs/derivations/004.md`` (Sec. 1.2, errors 1, 2, 8, 9, 12).

Uncertainty terms (eq. 8, scaled by the fraction ``nu`` of Sec. 6)::

    A_j = nu * (2 R^2 / sqrt(m_j)) * (2 + sqrt(2 ln(c / delta)))

with ``c = 2`` as printed (``form='eq8'``), ``c = 4`` (``'prop1'``: Prop. 1 per class at 1 - delta once the
covariance bound is taken at delta/2, error 8) or ``c = 8`` (``'cor1'``: both classes at 1 - delta by the union
bound, error 9). With ``nu >= 1`` the worst-case error bound ``1/(1+kappa*^2)`` of Cor. 1 holds for the TRUE moments
with probability at least ``1 - k delta``, k = 3, 2, 1 for the three forms (the paper prints 1 - delta for 'eq8').

For a fixed kappa (eq. 10; ``c_j(kappa) = sqrt((2 + kappa^2) A_j)``)::

    g(kappa) = max_{||w|| <= 1}  h(w, kappa),
    h(w, kappa) = w^T (x̂1 - x̂0) - ||(c_1, kappa Σ̂1^{1/2} w)|| - ||(c_0, kappa Σ̂0^{1/2} w)||

is an SOCP (`hp_mpm`: a certiprog Model with kappa a Parameter), g is non-increasing, and Cor. 1 / eq. (9) is
``kappa* = max {kappa : g(kappa) >= 0}``; ``kappa* = 0`` ("no meaningful solution") iff
``g(0) = ||x̂1 - x̂0|| - sqrt(2A_1) - sqrt(2A_0) <= 0``.
Then ``b* = w*^T x̂1 - sqrt(2A_1 + kappa*^2 (w*^T Σ̂1 w* + A_1))``.

Two solvers (`HPMPMProblem.solve`):

* ``'bisection'`` — the global optimum with a PROVEN bracket ``[lo, hi]`` for kappa*: each probe solves g(kappa) and,
  from the solver's primal point alone, computes (i) the kappa at which ``h(w, .)`` vanishes (attained by that w,
  so a lower bound) and (ii) a Lagrangian dual bound ``g(kappa') <= ||dmu - kappa' r|| - beta sqrt(2 + kappa'^2)``
  valid for every kappa' (see `HPMPMProblem.kappa_upper`), whose first sign change is an upper bound.
* ``'alternating'`` — Alg. 1 with the inverted guard and the misplaced parenthesis corrected: the kappa-step is the
  closed-form root of a quadratic in ``t = kappa^2`` (or brentq, the paper's "line search"), the w-step the SOCP.
  Its fixed point is the global optimum (h is strictly decreasing in kappa, so g(kappa) = 0 only at kappa*); the
  result carries the dual upper bound of its last iterate, i.e. a certified gap.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from certiprog import validation as validate
from certiprog.certify import Certificate
from certiprog.errors import BackendError, CertiprogError, InputError
from certiprog.formulations.hp_mpm_paper.mpm import ClassMoments, class_moments
from certiprog.model import Model, Parameter, Record, Variable, hstack, maximize, norm2
from certiprog.solvers.structured import StructuredAnswer

__all__ = ["HPMPMProblem", "HPMPMResult", "HPMPMStep", "MethodComparison", "UNCERTAINTY_FORMS", "algorithm1",
           "hp_mpm", "hp_mpm_problem", "nu_max", "solve_hp_mpm", "uncertainty_terms"]

# form -> (c in ln(c/delta), k in the corrected confidence 1 - k delta of Cor. 1, bound id of A_j)
UNCERTAINTY_FORMS = {"eq8": (2.0, 3, "004-E8 (printed)"), "prop1": (4.0, 2, "004-E8"),
                     "cor1": (8.0, 1, "004-E8.joint")}
METHODS = ("bisection", "alternating")


def uncertainty_terms(n1: int, n0: int, R: float, delta: float, nu: float = 1.0, form: str = "eq8"):
    """``(A_1, A_0)`` of eq. (8) for class sizes ``n1``, ``n0``, support radius ``R``, confidence ``delta``.

    ``nu > 0`` scales both (Sec. 6); ``form`` picks the logarithm (see the module docstring).
    """
    validate.choice(form, "form (the uncertainty terms' form)", sorted(UNCERTAINTY_FORMS))
    delta = validate.scalar(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
    nu = validate.scalar(nu, "nu", low=0.0, low_open=True)
    R = validate.scalar(R, "R", low=0.0, low_open=True)
    c = UNCERTAINTY_FORMS[form][0]
    unit = 2.0 * R * R * (2.0 + math.sqrt(2.0 * math.log(c / delta)))
    for name, n in (("n1", n1), ("n0", n0)):
        if int(n) != n or n < 1:
            raise InputError(f"{name} must be a positive integer (a class size); got {n!r}")
    return nu * unit / math.sqrt(n1), nu * unit / math.sqrt(n0)


def nu_max(mean_gap: float, R: float, n1: int, n0: int, delta: float, form: str = "eq8") -> float:
    """The largest fraction nu of the uncertainty terms with a meaningful HP-MPM solution (Cor. 1 with A_j -> nu A_j):
    ``||x̂1 - x̂0|| > sqrt(nu) (sqrt(2 A_1) + sqrt(2 A_0))`` with A_j the nu = 1 terms of `uncertainty_terms` (``form``
    honoured); ``mean_gap`` = ||x̂1 - x̂0|| (in feature space for kernels)."""
    gap = validate.scalar(mean_gap, "mean_gap", low=0.0)
    a1, a0 = uncertainty_terms(n1, n0, R, delta, 1.0, form)
    return float(gap ** 2 / (math.sqrt(2 * a1) + math.sqrt(2 * a0)) ** 2)


@dataclass(frozen=True, eq=False)
class HPMPMStep(Record):
    """The w-step SOCP at one kappa (``model.derived(sol)`` of `hp_mpm` / `HPMPMProblem.model`): ``v`` (the
    coordinates), ``weights`` (= basis @ v: feature weights w, or the kernel gamma), ``kappa`` (the Parameter's value),
    ``h`` (eq. 10 at v put in the ball), ``kappa_root`` (the kappa-step from this v), both forms of b and ``A1``,
    ``A0``."""

    v: np.ndarray
    weights: np.ndarray
    kappa: float
    h: float
    kappa_root: float
    b: float
    b_from_class0: float
    A1: float
    A0: float


@dataclass(eq=False)
class HPMPMResult(Record):
    """The HP-MPM solution: ``kappa`` attained by the returned w; ``kappa_bracket`` = (lo, hi), lo <= kappa* <= hi.

    ``kappa <= lo`` (the best attained value found; equal unless bisection's final polishing w-step traded at most
    ``tol`` of kappa for a w accurate at kappa*), and ``b``, ``worst_case_error`` are those of the returned classifier.

    ``status``: 'optimal' (bracket within tolerance, or Alg. 1 converged), 'inaccurate' (stopped early: see
    ``notes``) or 'no_meaningful_solution' (Cor. 1: kappa* = 0, alpha* = 0). ``v`` coordinates and ``weights`` (feature
    weights or kernel gamma) of ``w*``; predict class 1 iff ``features @ weights - b >= 0``. For
    'no_meaningful_solution', ``weights``/``b`` are the FALLBACK hyperplane: the limit of the HP-MPM hyperplane as
    kappa* decreases to 0 (``w = dmu/||dmu||``, ``b`` splitting the mean gap in the ratio sqrt(A_1) : sqrt(A_0)), or
    when the means coincide ``w = 0`` and the majority class (``b = -1`` predicts class 1).
    ``failure_probability``: the corrected Cor. 1 level (None when nu < 1: the scaled terms void the guarantee).
    ``history``: one dict per iteration (kappa probe/iterate, bracket, h, timings; Alg. 1 also ``v``, the point its
    kappa-step was taken for). ``certificate``: `certiprog.certificates.check` of the last SOCP (None when not asked
    for); ``solution``: that SOCP's `Solution` (None when no SOCP was solved).
    """

    status: str
    method: str
    kappa: float
    kappa_bracket: tuple
    v: np.ndarray
    weights: np.ndarray
    b: float
    b_from_class0: float
    A1: float
    A0: float
    R: float
    delta: float
    nu: float
    form: str
    iterations: int = 0
    n_solves: int = 0
    history: list = field(default_factory=list)
    certificate: Certificate | None = None
    backend: str = ""
    solver: str = ""
    seconds: float = 0.0
    notes: list = field(default_factory=list)
    solution: object = field(default=None, repr=False)

    @property
    def alpha(self) -> float:
        """alpha* = kappa*^2 / (1 + kappa*^2) (0 without a meaningful solution)."""
        return 1.0 - self.worst_case_error

    @property
    def worst_case_error(self) -> float:
        """The bound 1 - alpha* = 1 / (1 + kappa*^2) of Cor. 1 (eq. 5)."""
        k = self.kappa
        return 0.0 if math.isinf(k) else 1.0 / (1.0 + k * k)

    @property
    def failure_probability(self) -> float | None:
        if self.nu < 1.0:
            return None
        return min(1.0, UNCERTAINTY_FORMS[self.form][1] * self.delta)

    @property
    def gap(self) -> float:
        """hi - lo of the proven bracket."""
        return float(self.kappa_bracket[1] - self.kappa_bracket[0])

    def decision_function(self, features) -> np.ndarray:
        """``features @ weights - b``: X for the linear HP-MPM, K(X, X_train) for the kernel one."""
        return np.asarray(features, float) @ self.weights - self.b

    def summary(self) -> dict:
        """A JSON-serialisable summary (no arrays, no solver objects)."""
        lo, hi = self.kappa_bracket
        out = dict(status=self.status, method=self.method, kappa=_num(self.kappa), kappa_bracket=[_num(lo), _num(hi)],
                   gap=_num(self.gap), alpha=self.alpha, worst_case_error=self.worst_case_error, b=self.b,
                   b_from_class0=self.b_from_class0, A1=self.A1, A0=self.A0, R=self.R, delta=self.delta, nu=self.nu,
                   form=self.form, failure_probability=self.failure_probability, iterations=self.iterations,
                   n_solves=self.n_solves, backend=self.backend, solver=self.solver, seconds=self.seconds,
                   notes=list(self.notes),
                   history=[{k: _num(v) for k, v in h.items() if not isinstance(v, np.ndarray)} for h in self.history])
        if self.certificate is not None:
            out["certificate"] = self.certificate.to_json()
        return out


def _num(x):
    """Non-finite floats as strings, so summaries are plain JSON."""
    if isinstance(x, (float, np.floating)):
        return float(x) if np.isfinite(x) else str(float(x))
    return x


class HPMPMProblem:
    """HP-MPM data (`ClassMoments` + A_1, A_0) with the pieces both solvers need; the typed ``model.data`` of the
    w-step SOCP.

    ``h`` (eq. 10), ``kappa_root`` (the kappa-step), ``kappa_upper`` (the dual bound), ``model`` (the w-step SOCP
    as a certiprog Model, compiled once; kappa, c_1, c_0 are Parameters, ``model.data`` is this object and
    ``model.derived(sol)`` an `HPMPMStep`) and ``solve`` (bisection or `algorithm1`).
    """

    def __init__(self, moments: ClassMoments, delta: float = 0.1, nu: float = 1.0, R: float | None = None,
                 form: str = "eq8", var_name: str = "v"):
        if not isinstance(moments, ClassMoments):
            raise InputError(f"HPMPMProblem takes a ClassMoments; got {type(moments).__name__}")
        if moments.p == 0:
            raise InputError("the training data are constant (no direction with any spread): nothing to separate")
        if R is None:
            R = moments.radius
            if R <= 0:
                raise InputError("every training point is 0, so the data radius R is 0; pass R > 0")
        else:
            R = validate.scalar(R, "R", low=0.0, low_open=True)
            if R < moments.radius * (1 - 1e-12):
                raise InputError(f"R = {R:.6g} is smaller than the largest training norm {moments.radius:.6g}; "
                                 "Prop. 1 needs ||x|| <= R on the whole support (leave R=None to use the data radius)")
        self.moments = moments
        self.delta = validate.scalar(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
        self.nu = validate.scalar(nu, "nu", low=0.0, low_open=True)
        self.R, self.form, self.var_name = float(R), form, var_name
        self.A1, self.A0 = uncertainty_terms(moments.n1, moments.n0, self.R, self.delta, self.nu, form)
        self._model: Model | None = None
        self._params: tuple[Parameter, Parameter, Parameter] | None = None  # (kappa, c1, c0) of the w-step model
        # (F1^T F1, F0^T F0) for the structured w-step (`solver.grams`), computed once
        self._grams: tuple[np.ndarray, np.ndarray] | None = None
        self._warm: np.ndarray | None = None  # the last structured w-step's v: the next kappa's start

    @property
    def nu_max(self) -> float:
        """The largest nu with kappa* > 0 for these moments, R, delta and form (`nu_max`)."""
        mom = self.moments
        return nu_max(float(np.linalg.norm(mom.dmu)), self.R, mom.n1, mom.n0, self.delta, self.form)

    # ---- closed-form pieces ---------------------------------------------------------------------------------------
    @property
    def g0(self) -> float:
        """g(0) = ||dmu|| - sqrt(2A_1) - sqrt(2A_0); kappa* > 0 iff g0 > 0 (Cor. 1)."""
        return float(np.linalg.norm(self.moments.dmu) - math.sqrt(2 * self.A1) - math.sqrt(2 * self.A0))

    def h(self, v, kappa: float) -> float:
        """eq. (10) at coordinates ``v`` (any norm) and ``kappa``."""
        v = np.asarray(v, float).reshape(-1)
        q1, q0 = self.moments.variances(v)
        k2 = kappa * kappa
        return float(v @ self.moments.dmu - math.sqrt(2 * self.A1 + k2 * (q1 + self.A1))
                     - math.sqrt(2 * self.A0 + k2 * (q0 + self.A0)))

    def kappa_root(self, v, method: str = "closed_form") -> float:
        """The kappa-step: the kappa >= 0 with ``h(v, kappa) = 0`` (0 if h(v, 0) <= 0; ``v`` is first put in the ball).

        h(v, .) is strictly decreasing, so the root is unique. ``c = sqrt(a1 + t p1) + sqrt(a0 + t p0)`` with
        ``t = kappa^2``, ``a_j = 2A_j``, ``p_j = v^T Σ̂_j v + A_j`` squares (twice) to the quadratic
        ``(p0-p1)^2 t^2 + (2e(p0-p1) - 4c^2 p0) t + e^2 - 4c^2 a0 = 0``, ``e = c^2 + a0 - a1`` (004.md item 12);
        the root that solves the unsquared equation is kept and polished by two Newton steps.
        ``method='brentq'``: the paper's line search on [0, kappa_u] instead (for checking).
        """
        v = _in_ball(v)
        c = float(v @ self.moments.dmu)
        q1, q0 = self.moments.variances(v)
        a1, a0, p1, p0 = 2 * self.A1, 2 * self.A0, q1 + self.A1, q0 + self.A0

        def phi(t):
            return math.sqrt(a1 + t * p1) + math.sqrt(a0 + t * p0)

        if c <= phi(0.0):
            return 0.0
        if p1 + p0 <= 0.0:
            return math.inf
        if method == "brentq":
            from scipy.optimize import brentq

            s = math.sqrt(q1) + math.sqrt(q0)
            hi = np.linalg.norm(self.moments.dmu) / s if s > 0 else c / math.sqrt(self.A1 + self.A0)  # kappa_u
            return float(brentq(lambda k: c - phi(k * k), 0.0, hi * (1 + 1e-12), xtol=1e-15, rtol=1e-15))
        if method != "closed_form":
            raise InputError(f"method must be 'closed_form' or 'brentq'; got {method!r}")
        e, dp = c * c + a0 - a1, p0 - p1
        roots = _quadratic_roots(dp * dp, 2 * e * dp - 4 * c * c * p0, e * e - 4 * c * c * a0)
        cands = [t for t in roots if t >= 0] or [0.0]
        t = min(cands, key=lambda t: abs(phi(t) - c))
        for _ in range(2):  # Newton on phi(t) = c (phi increasing, concave)
            s1, s0 = math.sqrt(a1 + t * p1), math.sqrt(a0 + t * p0)
            t = max(t - (s1 + s0 - c) / (0.5 * p1 / s1 + 0.5 * p0 / s0), 0.0)
        return math.sqrt(t)

    def kappa_upper(self, v, kappa: float) -> tuple[float, float]:
        """A dual certificate from the primal point ``v`` of the SOCP at ``kappa``: ``(U, kappa_bar)``.

        With u_j = (c_j, kappa F_j v) / ||(c_j, kappa F_j v)|| (any unit-ball vectors would do), weak duality gives for
        EVERY kappa' >= 0::

            g(kappa') <= U(kappa') = ||dmu - kappa' r|| - beta sqrt(2 + kappa'^2),
            r = F_1^T u_1' + F_0^T u_0',  beta = u_10 sqrt(A_1) + u_00 sqrt(A_0)   (u_j = (u_j0, u_j'))

        (write -||a|| = min_{||u|| <= 1} -u^T a and maximise over ||w|| <= 1 first). ``U = U(kappa) >= g(kappa)``;
        ``kappa_bar`` = inf {kappa' : U(kappa') < 0} >= kappa* (g is non-increasing), found in closed form: U < 0 iff
        ``(||r||^2 - beta^2) k^2 - 2 (dmu.r) k + ||dmu||^2 - 2 beta^2 < 0``. Tight at the exact optimum.
        """
        v = _in_ball(v)
        mom = self.moments
        r = np.zeros(mom.p)
        beta = 0.0
        for F, A in ((mom.F1, self.A1), (mom.F0, self.A0)):
            c = math.sqrt((2 + kappa * kappa) * A)
            y = kappa * (F @ v)
            nrm = math.sqrt(c * c + float(y @ y))
            if nrm > 0:
                r += F.T @ (y / nrm)
                beta += (c / nrm) * math.sqrt(A)
        dmu = mom.dmu
        U = float(np.linalg.norm(dmu - kappa * r) - beta * math.sqrt(2 + kappa * kappa))
        qa, qb, qc = float(r @ r) - beta * beta, -2.0 * float(dmu @ r), float(dmu @ dmu) - 2 * beta * beta
        return U, _first_negative(qa, qb, qc)

    def kappa_bound(self) -> float:
        """A priori kappa* <= ||dmu|| / (sqrt(A_1) + sqrt(A_0)) (h <= ||dmu|| - kappa (sqrt A_1 + sqrt A_0))."""
        return float(np.linalg.norm(self.moments.dmu) / (math.sqrt(self.A1) + math.sqrt(self.A0)))

    def b_pair(self, v, kappa: float) -> tuple[float, float]:
        """Cor. 1's two forms of b* (equal when h(v, kappa) = 0): the class-1 and the class-0 form."""
        q1, q0 = self.moments.variances(v)
        k2 = kappa * kappa
        return (float(v @ self.moments.mu1 - math.sqrt(2 * self.A1 + k2 * (q1 + self.A1))),
                float(v @ self.moments.mu0 + math.sqrt(2 * self.A0 + k2 * (q0 + self.A0))))

    # ---- the w-step SOCP --------------------------------------------------------------------------------------------
    @property
    def model(self) -> Model:
        """``max h(v, kappa) s.t. ||v|| <= 1`` (constraint 'unit_ball'); ``model.parameters['kappa']`` is kappa (move it
        with `set_kappa`, which also refills c_1, c_0); ``model.data`` is this problem."""
        if self._model is None:
            mom = self.moments
            v = Variable(mom.p, self.var_name)
            kappa = Parameter((), "kappa", value=0.0, nonneg=True)
            c1 = Parameter((), "c1", value=math.sqrt(2 * self.A1), nonneg=True)
            c0 = Parameter((), "c0", value=math.sqrt(2 * self.A0), nonneg=True)
            h = (mom.dmu @ v - norm2(hstack([c1, kappa * (mom.F1 @ v)]))
                 - norm2(hstack([c0, kappa * (mom.F0 @ v)])))
            model = Model(maximize(h), name=f"hp_mpm w-step ({mom.kind})")
            model.add(norm2(v) <= 1.0, name="unit_ball")
            model.data = self
            self._model, self._params = model, (kappa, c1, c0)
        return self._model

    @property
    def _w_params(self) -> tuple[Parameter, Parameter, Parameter]:
        """The Parameters (kappa, c1, c0) of the w-step model (built on first use)."""
        self.model
        assert self._params is not None  # set with the model
        return self._params

    @property
    def kappa(self) -> float:
        """The kappa the w-step model is set to."""
        return float(self._w_params[0].value)

    def derive(self, sol) -> HPMPMStep:
        """What the w-step SOCP's solution ``sol`` gives (``model.derived(sol)``)."""
        vv = np.asarray(sol.value(self.var_name), float).reshape(-1)
        k = self.kappa
        b1, b0 = self.b_pair(_in_ball(vv), k)
        return HPMPMStep(v=vv, weights=self.moments.basis @ vv, kappa=k, h=self.h(_in_ball(vv), k),
                         kappa_root=self.kappa_root(vv), b=b1, b_from_class0=b0, A1=self.A1, A0=self.A0)

    def structured_solve(self, **options) -> StructuredAnswer:
        """The certified Newton w-step (`solver.solve_w_step`) at the model's kappa, c_1, c_0 for
        ``model.solve(solver="structured")``: ``v``, the duals in certiprog's convention of the minimisation form
        ``min -h`` (``unit_ball``: lam; ``unit_ball/pnorm``: ``lam (1, -v/||v||)``; ``_objective/pnorm``: ``(1, -u1)``,
        ``(1, -u0)``) and its rigorous interval of g(kappa) (``StructuredAnswer.interval``). Warm started from the
        previous call's v. ``options`` go to `solve_w_step` (tol, max_iter)."""
        kappa, c1, c0 = (float(p.value) for p in self._w_params)
        fit = self.newton_w_step(kappa, c1, c0, **options)
        nv = float(np.linalg.norm(fit.v))
        ball = np.concatenate([[1.0], -fit.v / nv]) if nv > 0 else np.concatenate([[1.0], np.zeros(fit.v.size)])
        duals = {"unit_ball": np.array([fit.lam]), "unit_ball/pnorm": fit.lam * ball,
                 "_objective/pnorm": np.concatenate([[1.0], -fit.u1, [1.0], -fit.u0])}
        return StructuredAnswer({self.var_name: fit.v}, duals, fit.status, fit.interval, fit.iterations,
                                info=dict(rel_gap=fit.rel_gap, certified=fit.certified, structured_status=fit.status,
                                          kappa=kappa))

    def newton_w_step(self, kappa: float, c1: float | None = None, c0: float | None = None, **options):
        """The certified Newton w-step (`solver.solve_w_step`) at ``kappa`` (c_j default to sqrt((2 + kappa^2) A_j)),
        warm started from the previous call's v; its fit carries the rigorous interval of g(kappa). A numerical
        breakdown is a BackendError (the chooser, or the bisection, then moves on to a generic backend)."""
        from .solver import grams, solve_w_step

        if c1 is None:
            c1, c0 = self.c_terms(kappa)
        if self._grams is None:
            self._grams = grams(self.moments)
        try:
            fit = solve_w_step(self.moments, kappa, c1, c0, v0=self._warm, grams_=self._grams, **options)
        except (np.linalg.LinAlgError, ArithmeticError) as exc:
            raise BackendError(f"the structured w-step broke down: {exc}") from exc
        self._warm = fit.v
        return fit

    def structured_auto(self, problem) -> bool:
        """certiprog's automatic choice tries `structured_solve` first when c_1, c_0 > 0 (its smooth case)."""
        return all(float(p.value) > 0 for p in self._w_params[1:])

    def set_kappa(self, kappa: float) -> Model:
        """Set the Parameters of the w-step SOCP for ``kappa`` and return the model."""
        kappa = validate.scalar(kappa, "kappa", low=0.0)
        m = self.model
        k, c1, c0 = self._w_params
        k.value = kappa
        c1.value, c0.value = self.c_terms(kappa)
        return m

    def c_terms(self, kappa: float) -> tuple[float, float]:
        """``(c_1, c_0)`` of the w-step at ``kappa``: ``c_j = sqrt((2 + kappa^2) A_j)`` (module docstring)."""
        return math.sqrt((2 + kappa * kappa) * self.A1), math.sqrt((2 + kappa * kappa) * self.A0)

    def w_step(self, kappa: float, backend: str | None = None, solver: str | None = None, **options):
        """Solve g(kappa): ``(v, solution)`` (``v`` None when the solver returns no primal point)."""
        sol = self.set_kappa(kappa).solve(backend=backend, solver=solver, **options)
        v = np.asarray(sol.value(self.var_name), float).reshape(-1) if sol.ok else None
        return v, sol

    # ---- solving ------------------------------------------------------------------------------------------------
    def solve(self, method: str = "bisection", backend: str | None = None, solver: str | None = None, *,
              tol: float = 1e-8, max_iter: int = 100, eps_kappa: float = 1e-9, eps_w: float = 1e-9,
              kappa_step: str = "closed_form", certify: bool | str = True, progress: bool = False,
              **options) -> HPMPMResult:
        """Solve Cor. 1 / eq. (9) by ``method`` ('bisection' or 'alternating' = `algorithm1`, see the module
        docstring).

        ``tol``: relative bracket width at which bisection stops; ``eps_kappa``, ``eps_w``: Alg. 1's tolerances;
        ``kappa_step``: 'closed_form' or 'brentq'; ``certify``: `certiprog.certificates.check` of the last SOCP (True or
        'full': KKT residuals and the rigorous optimality interval; 'kkt': residuals only; False: none);
        ``progress``: a tqdm bar over the iterations. Extra ``options`` go to the backend.
        """
        validate.choice(method, "method", METHODS)
        validate.solver(solver, validate.backend(backend))
        validate.scalar(tol, "tol (relative kappa bracket width)", low=0.0, high=1.0, low_open=True, high_open=True)
        validate.integer(max_iter, "max_iter", low=1)
        validate.scalar(eps_kappa, "eps_kappa", low=0.0, low_open=True)
        validate.scalar(eps_w, "eps_w", low=0.0, low_open=True)
        validate.flag(progress, "progress")
        if method == "alternating":
            return algorithm1(self, backend, solver, max_iter=max_iter, eps_kappa=eps_kappa, eps_w=eps_w,
                              kappa_step=kappa_step, certify=certify, progress=progress, **options)
        t0 = time.perf_counter()
        if self.g0 <= 0:
            res = self._no_meaningful_solution(method)
        else:
            res = _bisection(self, backend, solver, tol, max_iter, certify, progress, options)
        res.seconds = time.perf_counter() - t0
        return res

    def compare_methods(self, backend: str | None = None, solver: str | None = None,
                        **solve_options) -> "MethodComparison":
        """(b) certifies (a): run Alg. 1 and bisection on the same data (a `MethodComparison`)."""
        bis = self.solve("bisection", backend, solver, **solve_options)
        alt = self.solve("alternating", backend, solver, **solve_options)
        return MethodComparison(bisection=bis, alternating=alt, gap=abs(alt.kappa - bis.kappa),
                                certified_gap=max(bis.kappa_bracket[1] - alt.kappa, 0.0), iterations=alt.iterations,
                                kappa_history=[h["kappa"] for h in alt.history])

    def _result(self, status, method, kappa, bracket, v, **kw) -> HPMPMResult:
        """The result for the classifier ``v`` at ``kappa`` (b from Cor. 1; the fallback's b passed in)."""
        b1, b0 = self.b_pair(v, kappa) if status != "no_meaningful_solution" else (kw.pop("b"), kw.pop("b0"))
        return HPMPMResult(status, method, float(kappa), (float(bracket[0]), float(bracket[1])), v,
                           self.moments.basis @ v, b1, b0, self.A1, self.A0, self.R, self.delta, self.nu, self.form,
                           **kw)

    def _no_meaningful_solution(self, method: str) -> HPMPMResult:
        """Cor. 1's first case (kappa* = 0, proven by g(0) <= 0) with the documented fallback hyperplane."""
        mom = self.moments
        dmu = mom.dmu
        nd = float(np.linalg.norm(dmu))
        note = (f"||dmu|| = {nd:.6g} <= sqrt(2A_1) + sqrt(2A_0) = {nd - self.g0:.6g}: no meaningful solution "
                "(Cor. 1), kappa* = 0, worst-case error 1")
        if nd > 1e-12 * max(1.0, float(np.abs(mom.mu1).max()), float(np.abs(mom.mu0).max())):
            v = dmu / nd
            share = math.sqrt(self.A1) / (math.sqrt(self.A1) + math.sqrt(self.A0))
            b = float(v @ mom.mu1 - nd * share)
            notes = [note, "fallback hyperplane: w = dmu/||dmu||, b splitting the projected mean gap in the ratio "
                           "sqrt(A_1) : sqrt(A_0) (the limit of the HP-MPM hyperplane as kappa* -> 0)"]
        else:
            v = np.zeros(mom.p)
            b = -1.0 if mom.n1 >= mom.n0 else 1.0
            notes = [note, "the class means coincide: fallback predicts the majority class"]
        return self._result("no_meaningful_solution", method, 0.0, (0.0, 0.0), v, b=b, b0=b, notes=notes)


@dataclass(frozen=True, eq=False)
class MethodComparison(Record):
    """`HPMPMProblem.compare_methods`: both results, ``gap`` = |kappa_alternating - kappa_bisection|,
    ``certified_gap`` = hi - kappa_alt (a rigorous bound on Alg. 1's suboptimality, hi from bisection's dual
    certificate), Alg. 1's ``iterations`` and its ``kappa_history``."""

    bisection: HPMPMResult
    alternating: HPMPMResult
    gap: float
    certified_gap: float
    iterations: int
    kappa_history: list


def _in_ball(v) -> np.ndarray:
    v = np.asarray(v, float).reshape(-1)
    n = float(np.linalg.norm(v))
    return v / n if n > 1.0 else v


def _quadratic_roots(a: float, b: float, c: float) -> list:
    """Real roots of a x^2 + b x + c (numerically stable form; linear when a = 0)."""
    if a == 0.0:
        return [] if b == 0.0 else [-c / b]
    disc = b * b - 4 * a * c
    if disc < 0:
        return []
    q = -0.5 * (b + math.copysign(math.sqrt(disc), b))
    return sorted([q / a] + ([c / q] if q != 0.0 else [-b / (2 * a)]))


def _first_negative(a: float, b: float, c: float) -> float:
    """inf {k >= 0 : a k^2 + b k + c < 0} (inf when the quadratic is never negative on k >= 0)."""
    if c < 0:
        return 0.0
    roots = _quadratic_roots(a, b, c)
    if a == 0.0:
        return roots[0] if (b < 0 and roots and roots[0] >= 0) else math.inf
    if len(roots) < 2 or roots[0] == roots[1]:
        return math.inf
    lo, hi = roots
    if a > 0:  # negative strictly between the roots
        return max(lo, 0.0) if hi > 0 else math.inf
    return max(hi, 0.0)  # a < 0: negative beyond the larger root


def _certify(sol, certify) -> Certificate | None:
    """`certiprog.certificates.check` of a solved SOCP: True/'full' with the rigorous optimality interval (interval
    arithmetic, O(nnz) per product: seconds for ~1000 coordinates), 'kkt' the residuals only, False none."""
    if not certify or sol is None or not sol.ok:
        return None
    if certify not in (True, "full", "kkt"):
        raise InputError(f"certify must be True, 'full', 'kkt' or False; got {certify!r}")
    from certiprog.certify.kkt import check

    return check(sol.problem, sol, interval=certify != "kkt")


def _bar(progress: bool, total: int, desc: str):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, disable=not progress, leave=False)


def _bisection(prob: HPMPMProblem, backend, solver, tol, max_iter, certify, progress, options) -> HPMPMResult:
    """Bisection on kappa with primal (attained) and dual (certified) jumps; the bracket at least halves per probe."""
    mom = prob.moments
    v_lo = mom.dmu / np.linalg.norm(mom.dmu)  # Alg. 1's initial point: argmax h(., 0)
    lo = prob.kappa_root(v_lo)
    hi = min(prob.kappa_bound(), prob.kappa_upper(v_lo, lo)[1])
    history: list[dict] = []
    notes: list[str] = []
    sol = None
    bar = _bar(progress, max_iter, "HP-MPM bisection")
    # The probes' bounds come from their points alone (kappa_root, kappa_upper), never from a solver's status, so
    # when certiprog picks the solver the probes call the Newton w-step directly (no compile, no confirmation: each
    # costs its p^3 steps only); the final polish goes through the Model and its certificate as before.
    direct = backend is None and solver is None and not options and prob.structured_auto(None)
    while len(history) < max_iter and hi - lo > tol * max(hi, 1e-300):
        mid = 0.5 * (lo + hi)
        v = None
        if direct:
            try:
                t_probe = time.perf_counter()
                fit = prob.newton_w_step(mid)
                v, objective, seconds = fit.v, float(fit.lower), time.perf_counter() - t_probe
            except CertiprogError as exc:
                notes.append(f"the Newton w-step at kappa = {mid:.10g} failed ({exc}); generic solvers from here")
                direct = False
        if v is None:
            v, sol = prob.w_step(mid, backend, solver, **options)
            if v is None:
                notes.append(f"the SOCP at kappa = {mid:.10g} returned no primal point ({sol.status}); stopped")
                break
            objective, seconds = float(sol.objective), sol.solve_time
        k_root = prob.kappa_root(v)  # attained by v: a lower bound
        U, k_bar = prob.kappa_upper(v, mid)  # weak duality: an upper bound
        moved = k_root > lo or k_bar < hi
        if k_root > lo:
            lo, v_lo = k_root, _in_ball(v)
        hi = max(min(hi, k_bar), lo)
        history.append(dict(iteration=len(history) + 1, kappa=mid, lo=lo, hi=hi, h_lower=prob.h(_in_ball(v), mid),
                            g_upper=U, solver_objective=objective, solve_time=seconds))
        bar.update(1)
        if not moved:
            notes.append(f"solver accuracy reached at kappa = {mid:.10g} (neither bound improved)")
            break
    bar.close()
    # Polish: the w of the probe that set lo maximises h(., probe), not h(., kappa*); one more w-step at lo gives
    # the maximiser at (numerically) kappa*, so w* and b* are as accurate as the solver (kappa is second-order).
    # The returned kappa is the one attained by the returned w: it may sit below lo by at most tol (relative).
    kappa = lo
    probes = len(history)
    v_f, sol_f = prob.w_step(lo, backend, solver, **options)
    if v_f is not None:
        sol = sol_f
        k_f = prob.kappa_root(v_f)
        if k_f >= lo * (1 - max(tol, 1e-9)):
            v_lo, kappa = _in_ball(v_f), k_f
            lo = max(lo, k_f)
            hi = max(min(hi, prob.kappa_upper(v_f, k_f)[1]), lo)  # the dual of the (near) optimal point
        history.append(dict(iteration=len(history) + 1, kappa=prob.kappa, lo=lo, hi=hi,
                            h_lower=prob.h(_in_ball(v_f), kappa), g_upper=prob.kappa_upper(v_f, kappa)[0],
                            solver_objective=float(sol_f.objective), solve_time=sol_f.solve_time))
    width_ok = hi - lo <= max(tol, 1e-6) * max(hi, 1e-300)
    status = "optimal" if width_ok else "inaccurate"
    if not width_ok:
        notes.append(f"bracket [{lo:.10g}, {hi:.10g}] wider than requested")
    cert = _certify(sol, certify)
    return prob._result(status, "bisection", kappa, (lo, hi), v_lo, iterations=probes, n_solves=probes + 1,
                        history=history, certificate=cert, backend=sol.backend if sol is not None else backend or "",
                        solver=sol.solver if sol is not None else "", notes=notes, solution=sol)


GUARDS = ("corrected", "printed")


def algorithm1(prob: HPMPMProblem, backend: str | None = None, solver: str | None = None, *, guard: str = "corrected",
               max_iter: int = 100, eps_kappa: float = 1e-9, eps_w: float = 1e-9, kappa_step: str = "closed_form",
               certify: bool | str = True, progress: bool = False, **options) -> HPMPMResult:
    """004 Alg. 1: alternate the kappa-step (the root of ``h(v, .)``, `HPMPMProblem.kappa_root`) and the w-step (the
    SOCP at that kappa) until kappa moves by at most ``eps_kappa`` and the w-step gains at most ``eps_w``.

    ``guard='corrected'`` runs the loop iff ``||dmu|| > sqrt(2A_1) + sqrt(2A_0)`` (else Cor. 1's no meaningful
    solution, as `HPMPMProblem.solve`), the misplaced parenthesis of b* corrected (004.md items 1-2); ``'printed'``
    keeps the paper's inverted guard (runs the loop iff the data are NOT separable: for checking the erratum; it then
    returns kappa = 0 on separable data, status 'inaccurate'). ``history`` has one dict per iteration: ``iteration``,
    ``kappa`` (the kappa-step), ``v`` (the point it was taken for: ``h(v, kappa) = 0``), ``h`` (the w-step's gain),
    ``solver_objective``, ``solve_time``. The result carries the dual upper bound of its last iterate (a certified
    gap). Options as `HPMPMProblem.solve`.
    """
    if guard not in GUARDS:
        raise InputError(f"guard must be one of {GUARDS}; got {guard!r}")
    t0 = time.perf_counter()
    meaningful = prob.g0 > 0
    if guard == "corrected" and not meaningful:
        res = prob._no_meaningful_solution("alternating")
        res.seconds = time.perf_counter() - t0
        return res
    mom = prob.moments
    nd = float(np.linalg.norm(mom.dmu))
    v = mom.dmu / nd if nd > 0 else np.zeros(mom.p)
    kappa = 0.0
    history, notes, sol, converged = [], [], None, False
    it = 0
    if guard == "printed" and meaningful:
        notes.append("the printed guard skips the loop on separable data (004.md item 1): kappa = 0 returned")
    else:
        bar = _bar(progress, max_iter, "HP-MPM Alg. 1")
        for it in range(1, max_iter + 1):
            k_new = prob.kappa_root(v, kappa_step)  # kappa-step: h(v, k_new) = 0, k_new >= kappa
            v_new, sol = prob.w_step(k_new, backend, solver, **options)  # w-step
            if v_new is None:
                notes.append(f"the w-step SOCP at kappa = {k_new:.10g} returned no primal point ({sol.status}); "
                             "stopped")
                kappa = max(kappa, k_new)
                break
            v_new = _in_ball(v_new)
            h_new = prob.h(v_new, k_new)
            if h_new < 0:  # the solver's point is (slightly) worse than v: keep v (h(v, k_new) = 0)
                v_new, h_new = v, 0.0
            history.append(dict(iteration=it, kappa=k_new, v=np.array(v, float), h=h_new,
                                solver_objective=float(sol.objective), solve_time=sol.solve_time))
            bar.update(1)
            converged = abs(k_new - kappa) <= eps_kappa and h_new <= eps_w
            v, kappa = v_new, k_new
            if converged:
                break
        bar.close()
        kappa = max(kappa, prob.kappa_root(v))  # final kappa-step: h(w*, kappa*) = 0, so both forms of b* agree
        if not converged:
            notes.append(f"Alg. 1 stopped after {it} iterations without meeting eps_kappa/eps_w")
    hi = min(prob.kappa_bound(), prob.kappa_upper(v, kappa)[1]) if meaningful else kappa
    cert = _certify(sol, certify)
    res = prob._result("optimal" if converged else "inaccurate", "alternating", kappa, (kappa, max(hi, kappa)), v,
                       iterations=it, n_solves=it, history=history, certificate=cert,
                       backend=sol.backend if sol is not None else backend or "",
                       solver=sol.solver if sol is not None else "", notes=notes, solution=sol)
    res.seconds = time.perf_counter() - t0
    return res


# ----------------------------------------------------------------------------------------------
# Entry points on samples
# ----------------------------------------------------------------------------------------------
def hp_mpm_problem(X1, X0, delta: float = 0.1, nu: float = 1.0, R: float | None = None, form: str = "eq8",
                   reduce: bool = True) -> HPMPMProblem:
    """The linear HP-MPM for samples ``X1`` (class 1) and ``X0`` (class 0); ``R=None``: the data radius
    max_i ||x_i|| (uncentred: Prop. 1 needs ||x|| <= R about the origin of the coordinates in which w, b act)."""
    return HPMPMProblem(class_moments(X1, X0, reduce=reduce), delta, nu, R, form, var_name="v" if reduce else "w")


def hp_mpm(X1, X0, delta: float = 0.1, nu: float = 1.0, R: float | None = None, kappa: float = 0.0,
           form: str = "eq8") -> Model:
    """004 eq. (10) for a fixed ``kappa``: ``max_{||w|| <= 1} h(w, kappa)`` as a certiprog Model in ``w`` (d).

    The optimal value is g(kappa); kappa* = max {kappa : g(kappa) >= 0} (Cor. 1). ``model.data`` is the
    `HPMPMProblem` (both solvers; ``model.data.set_kappa(k)`` moves kappa and refills c_1, c_0);
    ``model.derived(sol)`` an `HPMPMStep` (``weights`` = w, ``h``, ``kappa_root``, both forms of b, A_1, A_0).
    """
    return hp_mpm_problem(X1, X0, delta, nu, R, form, reduce=False).set_kappa(kappa)


def solve_hp_mpm(X1, X0, delta: float = 0.1, nu: float = 1.0, R: float | None = None, method: str = "bisection",
                 form: str = "eq8", backend: str | None = None, solver: str | None = None, **options) -> HPMPMResult:
    """Fit the linear HP-MPM (Cor. 1) by ``method``; ``weights`` are the feature weights w*, predict 1 iff
    ``X @ weights - b >= 0``. See `HPMPMProblem.solve` for the options."""
    return hp_mpm_problem(X1, X0, delta, nu, R, form).solve(method, backend, solver, **options)
