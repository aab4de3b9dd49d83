"""Bounds as objects: each paper's concentration / generalisation bound as a SymPy expression.

A `Bound` holds the right-hand side of one inequality of a paper (usually a deviation radius)
as a SymPy expression in named symbols (``m``, ``delta``, ``R``, ``C``, ``alpha``, ``kappa``...),
the probability with which the inequality may fail (also a SymPy expression, e.g. ``delta`` or
``3*delta``), the assumptions under which it is stated, and - where the paper prints something
else - the printed form, so a test can show that the two differ.

* ``bound.evaluate(**values) -> float`` checks the assumptions (raises `InputError`) and evaluates.
* ``bound.coverage(sampler, true_value, estimate, n_trials, delta, seed, values=...)`` runs a
  Monte Carlo coverage experiment: it draws ``n_trials`` samples from a law whose true quantity is
  known, counts how often the inequality fails and applies a one-sided exact binomial test
  (H0: failure probability <= nominal; reject when P(Bin(n, nominal) >= failures) < ``level``).
  A correct bound passes with probability >= 1 - level; a bound whose true failure rate is well
  above nominal fails. The Clopper-Pearson interval of the failure rate is reported too.
* ``BOUNDS`` (id -> Bound) and ``get_bound(id)``.

Bounded laws with known moments (`uniform_sphere`, `uniform_ball`, `scaled_rademacher`,
`two_point`, `finite_law`) draw the empirical moments of many samples at once (finite laws draw
multinomial counts, so any sample size m costs the same).

Ids: ``"<paper>.<where>[.<variant>]"``, e.g. ``"004.eq6.mean"``, ``"000.lemma3"``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np
import sympy as sp
from scipy import stats

from ..errors import InputError

__all__ = ["Assumption", "Bound", "BoundedLaw", "BOUNDS", "CoverageResult", "binomial_coverage",
           "finite_law", "get_bound", "list_bounds", "scaled_rademacher", "two_point", "uniform_ball",
           "uniform_sphere", "empirical_moments", "SYMBOLS"]


# ----------------------------------------------------------------------------------------------
# Symbols (one shared table, so bounds of different papers speak the same language)
# ----------------------------------------------------------------------------------------------
SYMBOLS: dict[str, sp.Symbol] = {
    "m": sp.Symbol("m", positive=True, integer=True),          # sample size
    "n": sp.Symbol("n", positive=True, integer=True),          # sample size (paper 002)
    "d": sp.Symbol("d", positive=True, integer=True),          # dimension
    "delta": sp.Symbol("delta", positive=True),                # confidence parameter, 0 < delta < 1
    "R": sp.Symbol("R", positive=True),                        # support radius (004)
    "C": sp.Symbol("C", positive=True),                        # support radius (000)
    "alpha": sp.Symbol("alpha", positive=True),                # lambda_min(Sigma) (000)
    "alpha_hat": sp.Symbol(r"\hat{\alpha}", positive=True),    # lambda_min(Sigma_hat) (000)
    "dmu": sp.Symbol(r"\|\hat{\mu}-\mu\|", nonnegative=True),  # mean deviation (000 Lemma 4)
    "kappa": sp.Symbol("kappa", nonnegative=True),             # kappa(alpha) of the MPM (004)
    "B": sp.Symbol("B", positive=True),                        # data radius (002)
    "k": sp.Symbol("k", positive=True),                        # Lipschitz constant max(1, 4B^2) (002)
    "mu": sp.Symbol("mu", positive=True),                      # regulariser (002)
    "lam": sp.Symbol("lambda", positive=True),                 # regulariser (002)
    "K": sp.Symbol("K", positive=True),                        # loss bound (002)
}


def _S(*names):
    return {n: SYMBOLS[n] for n in names}


@dataclass(frozen=True)
class Assumption:
    """One hypothesis of a bound: ``text`` always, ``check(values) -> bool | bool array`` when checkable.

    ``check`` is called with the dict of (numpy) values handed to `Bound.evaluate`; it is only
    run when all the names in ``needs`` are present.
    """

    text: str
    check: Callable[[dict], Any] | None = None
    needs: tuple = ()

    def __str__(self):
        return self.text


def _delta_in_01():
    return Assumption("0 < delta < 1", lambda v: (v["delta"] > 0) & (v["delta"] < 1), ("delta",))


# ----------------------------------------------------------------------------------------------
# Binomial test / Clopper-Pearson
# ----------------------------------------------------------------------------------------------
@dataclass
class CoverageResult:
    """Outcome of a Monte Carlo coverage experiment.

    ``failures`` of ``n_trials`` trials violated the bound; ``nominal`` is the failure probability
    the bound allows; ``p_value`` = P(Bin(n_trials, nominal) >= failures) (one-sided exact test of
    H0: true failure probability <= nominal); ``passes`` = p_value >= level, equivalently the
    one-sided Clopper-Pearson lower limit at confidence 1 - level is <= nominal.
    ``ci`` is the two-sided Clopper-Pearson interval at confidence 1 - level; ``upper`` the
    one-sided upper limit at confidence 1 - level. ``max_ratio`` = max deviation / radius
    (how close the bound came to being violated; < 1 means no violation at all).
    """

    bound_id: str
    n_trials: int
    failures: int
    rate: float
    nominal: float
    p_value: float
    ci: tuple
    upper: float
    lower: float
    level: float
    passes: bool
    max_ratio: float = float("nan")
    seconds: float = 0.0

    def __str__(self):
        return (f"{self.bound_id}: {self.failures}/{self.n_trials} failures (rate {self.rate:.4g}, nominal "
                f"<= {self.nominal:.4g}, CP {100 * (1 - self.level):g}% [{self.ci[0]:.4g}, {self.ci[1]:.4g}], "
                f"p = {self.p_value:.3g}, max dev/radius {self.max_ratio:.3g}) -> "
                f"{'PASS' if self.passes else 'FAIL'}")


def binomial_coverage(holds, nominal: float, level: float = 1e-3, bound_id: str = "",
                      ratios=None, seconds: float = 0.0) -> CoverageResult:
    """Exact binomial test of 'failure probability <= nominal' from per-trial outcomes ``holds``."""
    holds = np.asarray(holds, dtype=bool).ravel()
    n = int(holds.size)
    if n == 0:
        raise InputError("binomial_coverage needs at least one trial")
    if not (0 < level < 1):
        raise InputError(f"level must be in (0, 1); got {level}")
    p0 = float(min(max(nominal, 0.0), 1.0))
    k = int(n - holds.sum())
    p_value = 1.0 if k == 0 else float(stats.binom.sf(k - 1, n, p0))
    lower = 0.0 if k == 0 else float(stats.beta.ppf(level, k, n - k + 1))
    upper = 1.0 if k == n else float(stats.beta.ppf(1 - level, k + 1, n - k))
    lo2 = 0.0 if k == 0 else float(stats.beta.ppf(level / 2, k, n - k + 1))
    hi2 = 1.0 if k == n else float(stats.beta.ppf(1 - level / 2, k + 1, n - k))
    max_ratio = float(np.max(ratios)) if ratios is not None and np.size(ratios) else float("nan")
    return CoverageResult(bound_id, n, k, k / n, p0, p_value, (lo2, hi2), upper, lower, level,
                          bool(p_value >= level), max_ratio, seconds)


# ----------------------------------------------------------------------------------------------
# Bound
# ----------------------------------------------------------------------------------------------
@dataclass
class Bound:
    """One inequality ``quantity <= expr`` that holds with probability >= 1 - failure_prob.

    ``symbols``: name -> SymPy symbol (the names `evaluate` takes). ``expr``: the right-hand side.
    ``quantity``: what is bounded (text). ``assumptions``: `Assumption`s or plain strings
    (documentation only). ``printed``: the right-hand side exactly as the paper prints it, when
    that differs from ``expr`` (``None`` otherwise); ``printed_failure_prob`` likewise.
    ``status``: "as printed", "corrected", "re-derived" or "external (not re-derived)".
    """

    id: str
    name: str
    paper: str
    where: str
    quantity: str
    symbols: dict
    expr: sp.Expr
    failure_prob: sp.Expr = SYMBOLS["delta"]
    assumptions: list = field(default_factory=list)
    printed: sp.Expr | None = None
    printed_failure_prob: sp.Expr | None = None
    status: str = "as printed"
    notes: str = ""

    def __post_init__(self):
        self.expr = sp.sympify(self.expr)
        self.failure_prob = sp.sympify(self.failure_prob)
        known = set(self.symbols.values())
        for e in (self.expr, self.failure_prob, self.printed, self.printed_failure_prob):
            if e is not None:
                extra = sp.sympify(e).free_symbols - known
                if extra:
                    raise ValueError(f"bound {self.id}: symbols {extra} are not declared in `symbols`")
        self._fns: dict = {}

    # ---- evaluation ---------------------------------------------------------------------------
    @property
    def names(self) -> tuple:
        """The names `evaluate` needs (those of expr and failure_prob)."""
        used = self.expr.free_symbols | self.failure_prob.free_symbols
        return tuple(n for n, s in self.symbols.items() if s in used)

    def _fn(self, key, expr):
        if key not in self._fns:
            names = list(self.symbols)
            self._fns[key] = (names, sp.lambdify([self.symbols[n] for n in names], expr, "numpy", dummify=True))
        return self._fns[key]

    def check_values(self, values: dict, required=None) -> dict:
        """Validate ``values`` (numbers or numpy arrays) against symbols and assumptions; return numpy values.

        ``required``: the names that must be present (default: all those of expr and failure_prob).
        """
        unknown = set(values) - set(self.symbols)
        if unknown:
            raise InputError(f"bound {self.id}: unknown symbol(s) {sorted(unknown)}; "
                             f"it takes {sorted(self.symbols)}")
        required = self.names if required is None else required
        missing = [n for n in required if n not in values]
        if missing:
            raise InputError(f"bound {self.id}: missing value(s) for {missing}; pass them as keywords, "
                             f"e.g. evaluate({', '.join(f'{n}=...' for n in missing)})")
        out = {}
        for name, v in values.items():
            try:
                a = np.asarray(v, dtype=float)
            except (TypeError, ValueError):
                raise InputError(f"bound {self.id}: {name} must be a real number; got {v!r}") from None
            if not np.all(np.isfinite(a)):
                raise InputError(f"bound {self.id}: {name} must be finite; got {v!r}")
            s = self.symbols[name]
            if s.is_positive and not np.all(a > 0):
                raise InputError(f"bound {self.id}: {name} must be > 0; got {v!r}")
            if s.is_nonnegative and not np.all(a >= 0):
                raise InputError(f"bound {self.id}: {name} must be >= 0; got {v!r}")
            if s.is_integer and not np.all(a == np.round(a)):
                raise InputError(f"bound {self.id}: {name} must be an integer; got {v!r}")
            out[name] = a
        for asm in self.assumptions:
            if isinstance(asm, Assumption) and asm.check is not None and all(n in out for n in asm.needs):
                ok = asm.check(out)
                if not np.all(ok):
                    shown = {n: (out[n].item() if out[n].size == 1 else f"array{out[n].shape}") for n in asm.needs}
                    raise InputError(f"bound {self.id} ({self.paper}, {self.where}): assumption violated: "
                                     f"{asm.text} (values {shown})")
        return out

    def _eval(self, key, expr, values):
        req = [nm for nm, sy in self.symbols.items() if sy in expr.free_symbols]
        vals = self.check_values(values, required=req)
        names, f = self._fn(key, expr)
        args = [vals.get(n, np.nan) for n in names]
        return np.asarray(f(*args), dtype=float)

    def evaluate(self, **values) -> float:
        """The bound's right-hand side at scalar ``values`` (assumptions checked; `InputError` if violated)."""
        r = self._eval("expr", self.expr, values)
        if r.size != 1:
            raise InputError(f"bound {self.id}: evaluate takes scalars; use evaluate_array for arrays")
        return float(r)

    def evaluate_array(self, **values) -> np.ndarray:
        """Vectorised `evaluate` (values broadcast as numpy arrays; assumptions checked elementwise)."""
        return self._eval("expr", self.expr, values)

    def failure_probability(self, **values) -> float:
        """The probability (at most) with which the inequality may fail, e.g. delta or 3*delta (<= 1)."""
        r = self._eval("fp", self.failure_prob, values)
        return float(min(1.0, float(np.max(r))))

    def evaluate_printed(self, **values) -> float:
        """The printed right-hand side (``printed`` if the paper's form differs, else ``expr``)."""
        e = self.expr if self.printed is None else self.printed
        return float(self._eval("printed", e, values))

    def latex(self) -> str:
        return sp.latex(self.expr)

    def latex_statement(self) -> str:
        return (f"\\Pr\\left[{self.quantity} \\le {sp.latex(self.expr)}\\right] \\ge 1 - "
                f"{sp.latex(self.failure_prob)}")

    def __str__(self):
        return f"{self.id} [{self.paper} {self.where}]: {self.quantity} <= {self.expr}  (w.p. >= 1 - {self.failure_prob})"

    # ---- variants -----------------------------------------------------------------------------
    def printed_bound(self) -> "Bound":
        """The bound exactly as printed in the paper (a new `Bound`; same object data otherwise)."""
        return replace(self, id=self.id + ".printed", expr=self.expr if self.printed is None else self.printed,
                       failure_prob=self.failure_prob if self.printed_failure_prob is None
                       else self.printed_failure_prob, printed=None, printed_failure_prob=None,
                       status="as printed")

    def scaled(self, factor) -> "Bound":
        """``factor * expr`` (e.g. a deliberately shrunk bound to show a coverage test detects it)."""
        return replace(self, id=f"{self.id}*{factor}", expr=sp.nsimplify(factor) * self.expr, printed=None,
                       status=f"scaled by {factor}")

    # ---- Monte Carlo coverage -----------------------------------------------------------------
    def coverage(self, sampler: Callable, true_value, estimate: Callable, n_trials: int, delta: float | None = None,
                 seed: int = 0, *, values: dict | None = None, deviation: Callable | None = None,
                 level: float = 1e-3, batch_size: int | None = None) -> CoverageResult:
        """Monte Carlo coverage of this bound.

        ``sampler(rng, n) -> batch`` draws n independent samples (any object; e.g. the dict of
        empirical moments a `BoundedLaw.moment_sampler(m)` returns). ``estimate(batch) -> est``
        (first axis = trials). ``deviation(est, true_value) -> (n,)`` is the bounded quantity per
        trial (default: Euclidean / Frobenius norm of ``est - true_value`` over the trailing axes).
        ``values``: the bound's symbol values; an entry may be a callable ``f(batch) -> (n,)`` for
        a data-dependent symbol (e.g. alpha_hat); ``delta`` (if given) sets ``values['delta']``.
        Trials where ``deviation > radius`` are failures; the exact one-sided binomial test of
        `binomial_coverage` decides at ``level``.
        """
        t0 = time.perf_counter()
        if n_trials < 1:
            raise InputError(f"n_trials must be >= 1; got {n_trials}")
        vals = dict(values or {})
        if delta is not None:
            if "delta" not in self.symbols:
                raise InputError(f"bound {self.id} has no delta")
            vals["delta"] = delta
        static = {k: v for k, v in vals.items() if not callable(v)}
        dynamic = {k: v for k, v in vals.items() if callable(v)}
        nominal = self.failure_probability(**static)
        if not dynamic:
            radius_static = self.evaluate(**static)
        rng = np.random.default_rng(seed)
        if true_value is not None and not isinstance(true_value, (tuple, dict)):
            true_value = np.asarray(true_value, dtype=float)
        bs = int(batch_size or n_trials)
        holds, ratios, done = [], [], 0
        while done < n_trials:
            nb = min(bs, n_trials - done)
            batch = sampler(rng, nb)
            est = estimate(batch)
            if deviation is None:
                diff = np.asarray(est, float) - true_value
                dev = np.sqrt(np.sum(diff.reshape(nb, -1) ** 2, axis=1))
            else:
                dev = np.asarray(deviation(est, true_value), dtype=float).reshape(nb)
            if dynamic:
                v = dict(static)
                v.update({k: np.asarray(f(batch), float).reshape(nb) for k, f in dynamic.items()})
                radius = self.evaluate_array(**v) * np.ones(nb)
            else:
                radius = np.full(nb, radius_static)
            holds.append(dev <= radius)
            with np.errstate(divide="ignore", invalid="ignore"):
                ratios.append(dev / radius)
            done += nb
        return binomial_coverage(np.concatenate(holds), nominal, level, self.id, np.concatenate(ratios),
                                 time.perf_counter() - t0)


# ----------------------------------------------------------------------------------------------
# Bounded laws with known moments
# ----------------------------------------------------------------------------------------------
def empirical_moments(X) -> dict:
    """Biased (1/m) empirical moments of samples X of shape (n, m, d): mean (n,d), second, cov (n,d,d)."""
    X = np.asarray(X, dtype=float)
    m = X.shape[1]
    mean = X.mean(axis=1)
    second = np.einsum("nki,nkj->nij", X, X) / m
    cov = second - np.einsum("ni,nj->nij", mean, mean)
    return {"mean": mean, "second": second, "cov": cov, "m": m}


@dataclass
class BoundedLaw:
    """A law on R^d with ||x|| <= radius a.s. and known mean / covariance.

    ``draw(rng, shape) -> array shape + (d,)`` draws points (continuous laws); finite laws keep
    ``atoms``/``probs`` and draw multinomial counts instead, so the moment sampler is exact for any m.
    """

    name: str
    d: int
    radius: float
    mean: np.ndarray
    cov: np.ndarray
    draw: Callable | None = None
    atoms: np.ndarray | None = None
    probs: np.ndarray | None = None

    @property
    def second(self) -> np.ndarray:
        return self.cov + np.outer(self.mean, self.mean)

    @property
    def alpha(self) -> float:
        """lambda_min of the covariance."""
        return float(np.linalg.eigvalsh(self.cov)[0])

    def moment_sampler(self, m: int, chunk: int = 2_000_000) -> Callable:
        """``sampler(rng, n)`` -> dict of the biased empirical moments of n independent samples of size m."""
        m = int(m)
        if m < 1:
            raise InputError(f"sample size m must be >= 1; got {m}")
        if self.atoms is not None:
            atoms, probs = self.atoms, self.probs
            outer = np.einsum("ai,aj->aij", atoms, atoms)

            def sample(rng, n):
                counts = rng.multinomial(m, probs, size=n) / m  # (n, atoms)
                mean = counts @ atoms
                second = np.einsum("na,aij->nij", counts, outer)
                return {"mean": mean, "second": second,
                        "cov": second - np.einsum("ni,nj->nij", mean, mean), "m": m}
            return sample

        def sample(rng, n):
            per = max(1, chunk // max(1, m * self.d))
            parts = [empirical_moments(self.draw(rng, (min(per, n - i), m))) for i in range(0, n, per)]
            return {k: (np.concatenate([p[k] for p in parts]) if k != "m" else m) for k in parts[0]}
        return sample


def uniform_sphere(d: int, R: float = 1.0, center=None) -> BoundedLaw:
    """Uniform on the sphere {||x - c|| = R}: mean c, covariance (R^2/d) I; radius ||c|| + R."""
    c = np.zeros(d) if center is None else np.asarray(center, float)

    def draw(rng, shape):
        g = rng.standard_normal(shape + (d,))
        return c + R * g / np.linalg.norm(g, axis=-1, keepdims=True)
    return BoundedLaw(f"uniform sphere (d={d}, R={R})", d, float(np.linalg.norm(c) + R), c, (R**2 / d) * np.eye(d), draw)


def uniform_ball(d: int, R: float = 1.0, center=None) -> BoundedLaw:
    """Uniform in the ball {||x - c|| <= R}: mean c, covariance R^2/(d+2) I; radius ||c|| + R."""
    c = np.zeros(d) if center is None else np.asarray(center, float)

    def draw(rng, shape):
        g = rng.standard_normal(shape + (d,))
        u = g / np.linalg.norm(g, axis=-1, keepdims=True)
        r = R * rng.random(shape + (1,)) ** (1.0 / d)
        return c + r * u
    return BoundedLaw(f"uniform ball (d={d}, R={R})", d, float(np.linalg.norm(c) + R), c, (R**2 / (d + 2)) * np.eye(d),
                      draw)


def finite_law(atoms, probs, name: str = "finite law") -> BoundedLaw:
    """A law on finitely many atoms (rows of ``atoms``) with probabilities ``probs``."""
    atoms = np.atleast_2d(np.asarray(atoms, float))
    probs = np.asarray(probs, float)
    if probs.shape != (atoms.shape[0],) or np.any(probs < 0) or not np.isclose(probs.sum(), 1.0):
        raise InputError("probs must be a probability vector with one entry per atom")
    probs = probs / probs.sum()
    mean = probs @ atoms
    cov = np.einsum("a,ai,aj->ij", probs, atoms - mean, atoms - mean)
    return BoundedLaw(name, atoms.shape[1], float(np.max(np.linalg.norm(atoms, axis=1))), mean, cov,
                      atoms=atoms, probs=probs)


def two_point(a, b, p: float = 0.5) -> BoundedLaw:
    """x = a w.p. p, b w.p. 1-p: mean pa+(1-p)b, covariance p(1-p)(a-b)(a-b)^T."""
    return finite_law(np.vstack([np.asarray(a, float), np.asarray(b, float)]), [p, 1 - p], "two-point law")


def scaled_rademacher(d: int, R: float = 1.0, p: float = 0.5, center=None) -> BoundedLaw:
    """x = c + R s/sqrt(d), s in {-1,+1}^d with independent P(s_i = +1) = p (all 2^d atoms, d <= 12)."""
    if d > 12:
        raise InputError("scaled_rademacher enumerates 2^d atoms; use d <= 12")
    c = np.zeros(d) if center is None else np.asarray(center, float)
    s = np.array(np.meshgrid(*[[-1.0, 1.0]] * d, indexing="ij")).reshape(d, -1).T
    probs = np.prod(np.where(s > 0, p, 1 - p), axis=1)
    law = finite_law(c + R * s / np.sqrt(d), probs, f"scaled Rademacher (d={d}, R={R}, p={p})")
    return law


# ----------------------------------------------------------------------------------------------
# The registry
# ----------------------------------------------------------------------------------------------
BOUNDS: dict[str, Bound] = {}


def _register(b: Bound) -> Bound:
    if b.id in BOUNDS:
        raise ValueError(f"duplicate bound id {b.id!r}")
    BOUNDS[b.id] = b
    return b


def get_bound(id: str) -> Bound:
    """The registered bound ``id`` (see `list_bounds`)."""
    try:
        return BOUNDS[id]
    except KeyError:
        raise InputError(f"no bound {id!r}; known: {sorted(BOUNDS)}") from None


def list_bounds(paper: str | None = None) -> list:
    return [b for k, b in sorted(BOUNDS.items()) if paper is None or b.paper == paper]


m, n, d, delta = SYMBOLS["m"], SYMBOLS["n"], SYMBOLS["d"], SYMBOLS["delta"]
R, C, alpha, alpha_hat, dmu, kappa = (SYMBOLS[k] for k in ("R", "C", "alpha", "alpha_hat", "dmu", "kappa"))
log = sp.log


def _r_mean(dl):  # Shawe-Taylor & Cristianini mean radius, unit R/sqrt(m)
    return R / sp.sqrt(m) * (2 + sp.sqrt(2 * log(1 / dl)))


def _r_cov(dl):
    return 2 * R**2 / sp.sqrt(m) * (2 + sp.sqrt(2 * log(2 / dl)))


_SUPPORT_R = "x_1..x_m i.i.d. with ||x|| <= R almost surely"
_BIASED = "Sigma_hat = (1/m) sum (x_k - x_hat)(x_k - x_hat)^T (biased, 1/m)"

# ---- 004: Cousins & Shawe-Taylor, HP-MPM -------------------------------------------------------
_register(Bound(
    "004.eq6.mean", "mean deviation (Shawe-Taylor & Cristianini 2003)", "004", "Sec. 3, eq. (6), first",
    r"\|\bar{x} - \hat{x}\|_2", _S("R", "m", "delta"), _r_mean(delta), delta,
    [_SUPPORT_R, _delta_in_01()], status="as printed (re-derived)",
    notes="Printed with ln(1/delta) (not ln(2/delta); ln(2/delta) appears in Prop. 1 after delta -> delta/2). "
          "Implied by the sharper McDiarmid bound 004.eq6.mean.mcdiarmid."))
_register(Bound(
    "004.eq6.mean.mcdiarmid", "mean deviation, McDiarmid (re-derived, sharper)", "004", "Sec. 3, eq. (6) (re-derived)",
    r"\|\bar{x} - \hat{x}\|_2", _S("R", "m", "delta"), R / sp.sqrt(m) * (1 + sp.sqrt(2 * log(1 / delta))), delta,
    [_SUPPORT_R, _delta_in_01()], status="re-derived",
    notes="E||x_hat - x_bar|| <= sqrt(E||x - x_bar||^2 / m) <= R/sqrt(m); McDiarmid with c_i = 2R/m."))
_register(Bound(
    "004.eq6.cov", "covariance deviation (Shawe-Taylor & Cristianini 2003)", "004", "Sec. 3, eq. (6), second",
    r"\|\Sigma - \hat{\Sigma}\|_F", _S("R", "m", "delta"), _r_cov(delta), delta,
    [_SUPPORT_R, _BIASED, _delta_in_01()], status="external (not re-derived)",
    notes="The constant 2R^2 (2 + sqrt(2 ln(2/delta))) is cited from Shawe-Taylor & Cristianini (2003) and "
          "could not be re-derived; the elementary argument gives 004.eq6.cov.rederived (3R^2, 1 + ...), which is "
          "LARGER for every delta < 1.2. This is the form eq. (8) uses; Monte Carlo never came near violating it."))
_register(Bound(
    "004.eq6.cov.rederived", "covariance deviation (elementary re-derivation)", "004", "Sec. 3, eq. (6) (re-derived)",
    r"\|\Sigma - \hat{\Sigma}\|_F", _S("R", "m", "delta"),
    3 * R**2 / sp.sqrt(m) * (1 + sp.sqrt(2 * log(2 / delta))), delta,
    [_SUPPORT_R, _BIASED, _delta_in_01()], status="re-derived",
    notes="Sigma_hat - Sigma = (C_hat - C) - (x_hat x_hat^T - x_bar x_bar^T); McDiarmid on ||C_hat - C||_F "
          "(c_i = 2R^2/m, E <= R^2/sqrt(m)) and on ||x_hat - x_bar|| (times 2R), each at delta/2."))
# Prop. 1's joint use of (6) at delta/2: mean radius with ln(2/delta), covariance radius with ln(4/delta).
_register(Bound(
    "004.eq6.mean.half", "mean deviation at delta/2 (Prop. 1's union)", "004", "Prop. 1 proof, (6) with delta/2",
    r"\|\bar{x} - \hat{x}\|_2", _S("R", "m", "delta"), _r_mean(delta / 2), delta / 2,
    [_SUPPORT_R, _delta_in_01()], status="as printed"))
_register(Bound(
    "004.eq6.cov.half", "covariance deviation at delta/2 (Prop. 1's union)", "004", "Prop. 1 proof, (6) with delta/2",
    r"\|\Sigma - \hat{\Sigma}\|_F", _S("R", "m", "delta"), _r_cov(delta / 2), delta / 2,
    [_SUPPORT_R, _BIASED, _delta_in_01()], printed=_r_cov(delta), status="corrected",
    notes="(6) with delta -> delta/2 turns the covariance ln(2/delta) into ln(4/delta); the paper keeps ln(2/delta)."))
_T_corr = 4 * R * _r_mean(delta / 2) + kappa**2 * _r_cov(delta / 2)
_T_print = 4 * R**2 / sp.sqrt(m) * (2 + sp.sqrt(2 * log(2 / delta))) \
    + kappa**2 * 2 * R**2 / sp.sqrt(m) * (2 + sp.sqrt(2 * log(2 / delta)))
_register(Bound(
    "004.eq7.T", "Prop. 1 uncertainty term T", "004", "Prop. 1, eq. (7)",
    r"\sup_{\|w\|\le 1, |b| \le R} |(b-w^T\hat{x})^2 - \kappa^2 w^T\hat{\Sigma}w - (b-w^T\bar{x})^2 + \kappa^2 w^T\Sigma w|",
    _S("R", "m", "delta", "kappa"), _T_corr, delta,
    [_SUPPORT_R, _BIASED, "||w|| <= 1", "|b| <= R (missing in the paper; needed for 2|b| + ||x_hat + x_bar|| <= 4R)",
     _delta_in_01()],
    printed=_T_print, status="corrected",
    notes="Corrected: covariance part at ln(4/delta) (union of (6) at delta/2 each); printed keeps ln(2/delta)."))
_A_print = 2 * R**2 / sp.sqrt(m) * (2 + sp.sqrt(2 * log(2 / delta)))
_register(Bound(
    "004.eq8.A", "HP-MPM uncertainty A_j (per class, m = m_j)", "004", "Sec. 3, eq. (8)",
    r"A_j \text{ with } T_j = 2A_j + \kappa^2 A_j \ge \text{Prop. 1 deviation}",
    _S("R", "m", "delta"), 2 * R**2 / sp.sqrt(m) * (2 + sp.sqrt(2 * log(4 / delta))), delta,
    [_SUPPORT_R, _BIASED, "||w|| <= 1, |b| <= R", _delta_in_01(),
     "per class; Cor. 1 combines the two classes: overall confidence 1 - 2 delta (use 004.cor1.A for 1 - delta)"],
    printed=_A_print, status="corrected",
    notes="Printed A_j = (2R^2/sqrt(m_j))(2 + sqrt(2 ln(2/delta))). Corrected (conservative single A): "
          "ln(4/delta), so that 2A + kappa^2 A >= 004.eq7.T (the mean part of T needs only ln(2/delta))."))
_register(Bound(
    "004.cor1.A", "HP-MPM A_j for an overall 1 - delta over both classes", "004", "Cor. 1 (corrected)",
    r"A_j", _S("R", "m", "delta"), 2 * R**2 / sp.sqrt(m) * (2 + sp.sqrt(2 * log(8 / delta))), delta,
    [_SUPPORT_R, _BIASED, "||w|| <= 1, |b| <= R", _delta_in_01(), "both classes, union bound (delta/2 per class)"],
    printed=_A_print, status="corrected",
    notes="Cor. 1 applies Prop. 1 to both classes at level delta each, i.e. 1 - 2 delta overall; with delta/2 per "
          "class, A_j needs ln(8/delta)."))
# The worst-case misclassification bounds 1 - alpha* = 1/(1 + kappa*^2): eq. (5) (MPM, deterministic given the
# moments it uses) and Cor. 1 (HP-MPM, for the TRUE moments, with the confidence of the A_j used).
_WCE = 1 / (1 + kappa**2)
_WCE_Q = (r"\max_{j} \sup_{x \sim (\bar{x}_j, \Sigma_j)} P(\text{x misclassified}) = "
          r"\max_j 1/(1 + d_j^2),\ d_j = \text{margin}_j / \sqrt{w^T \Sigma_j w}")
_register(Bound(
    "004.eq5", "MPM worst-case misclassification (Marshall-Olkin / Cantelli)", "004", "Sec. 2, eqs. (2), (5)",
    _WCE_Q, _S("kappa"), _WCE, sp.Integer(0),
    ["(w, b) satisfy w^T x_1 - b >= kappa sqrt(w^T S_1 w) and b - w^T x_0 >= kappa sqrt(w^T S_0 w) for the moments "
     "(x_j, S_j) the bound speaks about (eq. 2); for the MPM's empirical moments it says nothing about the true law",
     "kappa >= 0 (kappa = inf: bound 0)"], status="as printed (re-derived)",
    notes="Deterministic: 1/(1 + d^2) with d >= kappa per class (004-T1, E1, E2 of the claims audit)."))
_COR1 = ("(w*, b*, kappa*) from the HP-MPM program with the stated A_j and nu >= 1; m_j samples per class, "
         "||x|| <= R a.s. for both classes")
_register(Bound(
    "004.cor1", "HP-MPM worst-case error for the true moments (A_j with ln(4/delta))", "004", "Cor. 1 (corrected)",
    _WCE_Q, _S("kappa", "delta"), _WCE, 2 * delta,
    [_COR1 + " (A_j = 004.eq8.A, i.e. ln(4/delta): Prop. 1 per class at 1 - delta)", _delta_in_01(),
     "|b*| <= R (holds at the optimum: b* lies between w*^T x_hat_0 and w*^T x_hat_1)"],
    printed_failure_prob=delta, status="corrected",
    notes="Cor. 1 applies Prop. 1 to each class at level delta: the union bound gives 1 - 2 delta, not 1 - delta "
          "(docs/derivations/004.md, error 9). form='prop1' in certiprog.formulations.hp_mpm_paper.hp_mpm."))
_register(Bound(
    "004.cor1.joint", "HP-MPM worst-case error, both classes at 1 - delta (A_j with ln(8/delta))", "004",
    "Cor. 1 (corrected, delta/2 per class)", _WCE_Q, _S("kappa", "delta"), _WCE, delta,
    [_COR1 + " (A_j = 004.cor1.A, i.e. ln(8/delta))", _delta_in_01(), "|b*| <= R (holds at the optimum)"],
    status="corrected", notes="form='cor1' in certiprog.formulations.hp_mpm_paper.hp_mpm."))
_register(Bound(
    "004.cor1.eq8", "HP-MPM worst-case error with A_j as printed in eq. (8) (ln(2/delta))", "004",
    "Cor. 1 with eq. (8) as printed", _WCE_Q, _S("kappa", "delta"), _WCE, 3 * delta,
    [_COR1 + " (A_j = eq. (8) as printed, ln(2/delta))", _delta_in_01(), "|b*| <= R (holds at the optimum)"],
    printed_failure_prob=delta, status="corrected",
    notes="With ln(2/delta) the covariance half of T is eq. (6) at level delta (not delta/2), the mean half at delta/2: "
          "1.5 delta per class, 3 delta for both (the paper prints 1 - delta). form='eq8' (the paper's experiments)."))


# ---- 000: Osadchy, Hazan, Keren, hinge-minimax ----------------------------------------------------
_L1 = log(1 / delta) + sp.Rational(1, 4)
_SUPPORT_C = "x ~ D_neg i.i.d., ||x|| <= C almost surely"
_M_RANGE = Assumption("m >= 8 (ln(1/delta) + 1/4) (Bernstein range t <= 2C, missing in the paper)",
                      lambda v: v["m"] >= 8 * (np.log(1 / v["delta"]) + 0.25), ("m", "delta"))
_t_mean = sp.sqrt(32 * C**2 * _L1 / m)
_t_second = sp.sqrt(32 * C**4 * _L1 / m)
_ALPHA_LE = Assumption("alpha = lambda_min(Sigma) <= C^2 (always true when ||x|| <= C)",
                       lambda v: v["alpha"] <= v["C"] ** 2 * (1 + 1e-12), ("alpha", "C"))
_register(Bound(
    "000.lemma3.mean", "mean concentration (vector Bernstein, Lemma 3 proof)", "000", "Sec. 2.3.1, Lemma 3 proof",
    r"\|\hat{\mu} - \mu\|_2", _S("C", "m", "delta"), _t_mean, delta,
    [_SUPPORT_C, _delta_in_01(), _M_RANGE], status="as printed",
    notes="P[||mu_hat - mu|| >= t] <= exp(-m t^2/(32 C^2) + 1/4) for t <= 2C (Candes & Plan Thm 2.6)."))
_register(Bound(
    "000.lemma3", "Delta_1 (first part of the background-risk discrepancy)", "000", "Sec. 2.3.1, Lemma 3",
    r"\sup_W \Delta_1(W) = \mu^T A(\hat{\mu}-\mu) + (\hat{\mu}-\mu)^T A\hat{\mu},\ A = U(U^T\Sigma U)^{-1}U^T",
    _S("C", "alpha", "m", "delta"), 2 * C / alpha * _t_mean, delta,
    [_SUPPORT_C, "alpha = lambda_min(Sigma) > 0", "U: linearly independent columns", _delta_in_01(), _M_RANGE,
     _ALPHA_LE],
    printed=2 * C / alpha * sp.sqrt(32 * C**4 * _L1 / m), status="corrected",
    notes="Printed sqrt(32 C^4 (...)/m); the proof gives 32 C^2. Delta_1 is scale invariant (x -> s x, alpha -> s^2 "
          "alpha), the corrected bound is too, the printed one scales like s."))
_register(Bound(
    "000.lemma4.second_moment", "second-moment concentration (Lemma 4 proof)", "000", "Sec. 2.3.1, Lemma 4 proof",
    r"\|\tfrac{1}{m}\sum x_k x_k^T - E xx^T\|_F", _S("C", "m", "delta"), _t_second, delta,
    [_SUPPORT_C, _delta_in_01(), _M_RANGE], status="as printed"))
_register(Bound(
    "000.lemma4.cov", "covariance concentration (Lemma 4 proof + Lemma 3)", "000", "Sec. 2.3.1, Lemma 4 proof",
    r"\|\hat{\Sigma} - \Sigma\|_F", _S("C", "m", "delta"), 2 * C * _t_mean + _t_second, 2 * delta,
    [_SUPPORT_C, _BIASED, _delta_in_01(), _M_RANGE], status="re-derived",
    notes="||Sigma_hat - Sigma||_F <= ||C_hat - C||_F + 2C ||mu_hat - mu|| = 3 C^2 sqrt(32(ln(1/delta)+1/4)/m); "
          "two events, failure 2 delta."))
_register(Bound(
    "000.lemma4", "Delta_2 (second part of the discrepancy)", "000", "Sec. 2.3.1, Lemma 4",
    r"\sup_W \Delta_2(W) = \hat{\mu}^T(\hat{A} - A)\hat{\mu}",
    _S("C", "alpha", "alpha_hat", "dmu", "m", "delta"),
    C**2 / (alpha * alpha_hat) * (2 * C * dmu + _t_second), delta,
    [_SUPPORT_C, "alpha = lambda_min(Sigma) > 0, alpha_hat = lambda_min(Sigma_hat) > 0 (data dependent)",
     "dmu = ||mu_hat - mu|| (data dependent)", _delta_in_01(), _M_RANGE, _ALPHA_LE], status="as printed",
    notes="As stated (with the random ||mu_hat - mu||); Thm 6 substitutes Lemma 3's radius: 3C^4/(alpha alpha_hat) "
          "sqrt(32(...)/m) at failure 2 delta."))
_register(Bound(
    "000.lemma5", "lambda_min of the sample covariance", "000", "Sec. 2.3.1, Lemma 5",
    r"\alpha - \hat{\alpha}\ (\text{i.e. } \hat{\alpha} \ge \alpha/2)", _S("C", "alpha", "m"), alpha / 2,
    2 * sp.exp(-m * alpha**2 / (1152 * C**4) + sp.Rational(1, 4)),
    [_SUPPORT_C, "alpha = lambda_min(Sigma) > 0", _ALPHA_LE], status="corrected (proof)",
    notes="Statement as printed; the proof bounds the largest eigenvalue - the conclusion holds by Weyl: "
          "lambda_min(Sigma_hat) >= alpha - ||Sigma_hat - Sigma||_2. The second-moment tail needs C^4 (dropped)."))
_L2 = log(2 / delta) + sp.Rational(1, 4)
_register(Bound(
    "000.thm6", "background (worst-case) risk generalisation", "000", "Sec. 2.3.1, Theorem 6",
    r"\sup_W L^B_{\mu,\Sigma}(W) - L^B_{\hat{\mu},\hat{\Sigma}}(W)",
    _S("C", "alpha", "m", "delta"), (2 * C**2 / alpha + 6 * C**4 / alpha**2) * sp.sqrt(32 * _L1 / m), 3 * delta,
    [_SUPPORT_C, "K linearly independent hyperplanes; the active set U of the true moments is used for both "
     "(gap: the active set depends on the moments; exact for K = 1)", _delta_in_01(), _M_RANGE, _ALPHA_LE,
     Assumption("alpha >= C^2 sqrt(1152 (ln(2/delta) + 1/4)/m) (paper drops C^2)",
                lambda v: v["alpha"] >= v["C"] ** 2 * np.sqrt(1152 * (np.log(2 / v["delta"]) + 0.25) / v["m"]),
                ("alpha", "C", "m", "delta"))],
    status="corrected (condition)",
    notes="Printed condition alpha >= sqrt(1152(ln(2/delta)+1/4)/m) is not scale invariant; with C^2 it makes "
          "Lemma 5's failure <= delta. Bound expression as printed."))
_register(Bound(
    "000.thm8", "hinge risk of the positive class (Rademacher)", "000", "Sec. 2.3.2, Theorem 8",
    r"\sup_W L^H_D(W) - L^H_S(W)", {"K": SYMBOLS["K"], "m": m, "delta": delta},
    2 * SYMBOLS["K"] / sp.sqrt(m) + 8 * SYMBOLS["K"] * sp.sqrt(2 * log(2 / delta) / m), delta,
    ["||w_j|| <= 1, ||x|| <= 1", _delta_in_01()], status="as printed",
    notes="Valid but loose (the loss is <= 2, not 2K). Formula only; no Monte Carlo here."))


# ---- 002: uniform-stability bound, Thm 2 (formula; k^2 corrected) ------------------------------------
def _thm2(kk):
    B, k, mu_, lam, K = (SYMBOLS[s] for s in ("B", "k", "mu", "lam", "K"))
    mn = sp.Min(mu_, lam)
    kap = sp.Rational(1, 2)
    return 4 * kk / (n * kap * mn) + (8 * kk / (kap * mn) + K) * sp.sqrt(log(1 / delta) / (2 * n))


_k = SYMBOLS["k"]
_register(Bound(
    "002.thm2", "uniform-stability generalisation bound", "002", "Sec. 4.2, Theorem 2 (kappa = 1/2)",
    r"L(\theta_S) - \hat{L}_S(\theta_S)", _S("k", "n", "mu", "lam", "K", "delta"), _thm2(_k**2), delta,
    ["||x|| <= B; k = max(1, 4B^2) (Lemma 1)", "0 <= loss <= K (K = B suffices, Lemma 4)",
     Assumption("k >= 1", lambda v: v["k"] >= 1, ("k",)), _delta_in_01()],
    printed=_thm2(_k), status="corrected",
    notes="beta_stab = 2k^2/(kappa min(mu, lambda)) = 4k^2/min with kappa = 1/2; the paper writes k for k^2. "
          "Formula only (no Monte Carlo: needs the learner)."))
