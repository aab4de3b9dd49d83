"""Bounds as objects: a paper's concentration / generalisation bound as a SymPy expression (machinery only).

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
* ``bound.audit()`` is what `certiprog audit` runs: the expression and the failure probability
  evaluate at the bound's example values, the assumptions are stated (and hold there), and the
  bound's own Monte Carlo test (``monte_carlo``, e.g. `moment_coverage`) passes on a small seeded sample.

Bounded laws with known moments (`uniform_sphere`, `uniform_ball`, `scaled_rademacher`,
`two_point`, `finite_law`) draw the empirical moments of many samples at once (finite laws draw
multinomial counts, so any sample size m costs the same).

The bounds themselves live in the paper packages (``certiprog/formulations/<paper>/bounds.py``), which
`register` them in the one audit registry (`certiprog.audit.registry`, whose docstring gives the
id scheme, e.g. ``"004-E6a"``); `get_bound` and `list_bounds` load them through `certiprog.papers`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np
import sympy as sp
from scipy import stats

from ..errors import InputError
from ..papers import load_bounds, papers
from .registry import ID_PATTERN, REGISTRY, Claim, refuted, verified
from .registry import register as add_entry

__all__ = ["Assumption", "Bound", "BoundedLaw", "CoverageResult", "EXAMPLE_VALUES", "SYMBOLS", "binomial_coverage",
           "delta_in_01", "empirical_moments", "finite_law", "get_bound", "list_bounds", "moment_coverage",
           "register", "scaled_rademacher", "two_point", "uniform_ball", "uniform_sphere"]


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


# Where a bound has no ``example`` of its own, the audit evaluates it at these values (they satisfy every
# assumption of the registered bounds: delta in (0, 1), m large enough for Bernstein's range, alpha <= C^2).
EXAMPLE_VALUES = {"m": 100_000, "n": 100_000, "d": 3, "delta": 0.05, "R": 1.0, "C": 1.0, "alpha": 0.5,
                  "alpha_hat": 0.5, "dmu": 0.01, "kappa": 1.0, "B": 1.0, "k": 4.0, "mu": 0.1, "lam": 0.1, "K": 1.0}


def symbols(*names) -> dict:
    """The shared symbols of these names (name -> SymPy symbol), for `Bound.symbols`."""
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


def delta_in_01() -> Assumption:
    """The assumption 0 < delta < 1, checked."""
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
    ``example``: values at which the audit evaluates the bound (default `EXAMPLE_VALUES`).
    ``monte_carlo``: ``f(bound, n_trials, seed) -> CoverageResult``, the bound's coverage test that the audit
    runs on a small seeded sample (e.g. `moment_coverage`); None for a formula-only bound.
    ``relied_on``: whether certiprog's code uses this bound (e.g. an estimator's reported guarantee).
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
    example: dict | None = None
    monte_carlo: Callable | None = None
    relied_on: bool = False

    def __post_init__(self) -> None:
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
        return (f"{self.id} [{self.paper} {self.where}]: {self.quantity} <= {self.expr}  "
                f"(w.p. >= 1 - {self.failure_prob})")

    def statement(self) -> str:
        """The inequality in plain text (the audit table's statement for a bound without an inventory row)."""
        return f"w.p. >= 1 - {self.failure_prob}: {self.quantity} <= {self.expr}"

    # ---- audit ----------------------------------------------------------------------------------
    def example_values(self) -> dict:
        """The values the audit evaluates at: ``example`` over `EXAMPLE_VALUES`, for every symbol."""
        ex = dict(self.example or {})
        missing = [n for n in self.symbols if n not in ex and n not in EXAMPLE_VALUES]
        if missing:
            raise InputError(f"bound {self.id}: no example value for {missing}; pass example={{...}}")
        return {n: ex.get(n, EXAMPLE_VALUES.get(n)) for n in self.symbols}

    def audit(self, n_trials: int = 400, seed: int = 0):
        """Check the bound object itself and return a registry `Result` (what `certiprog audit` shows).

        Refuted when the right-hand side or the failure probability does not evaluate to a finite number >= 0
        at the example values (an assumption failing there counts), when no assumption is stated, or when the
        Monte Carlo coverage test (``monte_carlo``, ``n_trials`` seeded trials) rejects the bound.
        """
        vals = self.example_values()
        if not self.assumptions or any(not str(a).strip() for a in self.assumptions):
            return refuted(f"bound {self.id} states no assumptions (every bound must say when it holds)",
                           counterexample={"assumptions": list(map(str, self.assumptions))},
                           corrected="state the hypotheses (support, sample size, range of delta, ...)")
        try:
            with np.errstate(invalid="ignore", divide="ignore"):  # a nan / inf result is reported below
                radius = self.evaluate(**vals)
                fp = float(np.max(self._eval("fp", self.failure_prob, vals)))
                printed = self.evaluate_printed(**vals)
        except InputError as exc:
            return refuted(f"does not evaluate at the example values: {exc}", counterexample=vals,
                           corrected="fix the expression or the example values")
        if not (np.isfinite(radius) and radius >= 0 and np.isfinite(fp) and fp >= 0 and np.isfinite(printed)):
            return refuted(f"right-hand side {radius!r} / failure probability {fp!r} / printed form {printed!r} at "
                           f"the example values is not a finite number >= 0", counterexample=vals,
                           corrected="a bound's radius and failure probability are finite and >= 0")
        checked = sum(isinstance(a, Assumption) and a.check is not None for a in self.assumptions)
        shown = ", ".join(f"{k}={v:g}" for k, v in vals.items())
        detail = (f"{self.id} ({self.status}) evaluates to {radius:.4g} at {shown}, failure probability "
                  f"{min(fp, 1.0):.3g}; {len(self.assumptions)} assumptions stated, {checked} of them checkable and "
                  "holding there")
        if self.printed is not None or self.printed_failure_prob is not None:
            pfp = self.printed_bound().failure_probability(**vals)
            detail += f"; the paper prints radius {printed:.4g}, failure probability {pfp:.3g}"
        if self.monte_carlo is None:
            return verified(detail + "; formula only (no Monte Carlo test).")
        cov = self.monte_carlo(self, n_trials, seed)
        if not cov.passes:
            return refuted(f"Monte Carlo coverage rejects the bound: {cov}",
                           counterexample={"failures": cov.failures, "trials": cov.n_trials, "rate": cov.rate,
                                           "nominal": cov.nominal, "p_value": cov.p_value},
                           corrected=f"a radius at least {cov.max_ratio:.3g} times larger "
                                     "(max observed deviation/radius)")
        return verified(detail + f"; Monte Carlo: {cov.failures}/{cov.n_trials} failures (nominal "
                        f"{cov.nominal:.3g}, p = {cov.p_value:.3g}, max deviation/radius {cov.max_ratio:.3g}).")

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

            def sample_atoms(rng, n):
                counts = rng.multinomial(m, probs, size=n) / m  # (n, atoms)
                mean = counts @ atoms
                second = np.einsum("na,aij->nij", counts, outer)
                return {"mean": mean, "second": second,
                        "cov": second - np.einsum("ni,nj->nij", mean, mean), "m": m}
            return sample_atoms

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
    return BoundedLaw(f"uniform sphere (d={d}, R={R})", d, float(np.linalg.norm(c) + R), c, (R**2 / d) * np.eye(d),
                      draw)


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




def moment_coverage(law, m: int, what, delta: float = 0.05, values=None, deviation: Callable | None = None,
                    level: float = 1e-3) -> Callable:
    """A ``monte_carlo`` test for `Bound`: coverage of the empirical moments of ``m`` draws from ``law``.

    ``law``: a `BoundedLaw` (or a function returning one). ``what``: "mean", "cov" or "second" (the deviation
    is the Euclidean / Frobenius distance to the law's true moment), or a tuple of them with a ``deviation(est,
    None) -> (n,)``. ``values``: the bound's other symbol values, a dict or ``f(law) -> dict``; ``R`` and ``C``
    default to the law's radius, ``alpha`` to its lambda_min, ``m`` to ``m``.
    """
    def run(bound: Bound, n_trials: int, seed: int) -> CoverageResult:
        L = law() if callable(law) else law
        moments = {"mean": L.mean, "cov": L.cov, "second": L.second}
        vals = {k: v for k, v in {"R": L.radius, "C": L.radius, "alpha": L.alpha, "m": m}.items()
                if k in bound.symbols}
        vals.update(values(L) if callable(values) else (values or {}))
        if isinstance(what, str):
            true, estimate = moments[what], (lambda s: s[what])
        else:
            true, estimate = None, (lambda s: tuple(s[w] for w in what))
        return bound.coverage(L.moment_sampler(m), true, estimate, n_trials, delta, seed, values=vals,
                              deviation=deviation, level=level)
    return run


# ----------------------------------------------------------------------------------------------
# Registration (the bounds live in the paper packages; one registry with the claims)
# ----------------------------------------------------------------------------------------------
def register(bound: Bound) -> Bound:
    """Register ``bound`` as an entry of the audit registry (id scheme: `certiprog.audit.registry`).

    A claim of the same formula then names it (``@claim(bound.id, ..., bound=bound)``) and becomes that entry.
    """
    old = REGISTRY.get(bound.id)
    if old is not None and old.bound is bound:  # already registered (with or without its claim)
        return bound
    add_entry(Claim(bound.id, bound.paper, bound.where, bound.statement(), "bound", None, bound.relied_on, (), bound))
    return bound


def _load(paper_ids) -> None:
    load_bounds(paper_ids)


def get_bound(id: str) -> Bound:
    """The registered bound ``id`` (e.g. ``"004-E6a"``), loading its paper's bounds (see `list_bounds`)."""
    m = ID_PATTERN.match(str(id))
    _load((m.group(1),) if m and m.group(1) in papers() else None)
    entry = REGISTRY.get(id)
    if entry is None or entry.bound is None:
        raise InputError(f"no bound {id!r}; known: {[b.id for b in list_bounds()]}")
    return entry.bound


def list_bounds(paper: str | None = None) -> list:
    """Every registered bound (of ``paper``, or of every installed paper), in id order."""
    _load(None if paper is None else (paper,))
    return [c.bound for k, c in sorted(REGISTRY.items()) if c.bound is not None and paper in (None, c.paper)]
