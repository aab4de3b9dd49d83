"""Paper 000, Alg. 1: the K-hyperplane hinge-minimax learner (KHHM), every sub-problem a certified certiprog Model.

The classifier is the intersection ``Q = {x : w_k^T x + b_k >= 0, k = 1..K}`` (Def. 1, with biases: the 2-D
example of Sec. 5.1.1 needs them; ``bias=False`` gives the paper's homogeneous planes). The fit follows Alg. 1:

* **greedy initialisation**: hyperplane t is eq. (8) (`programs.hinge_minimax`) for all positives against the biased
  moments of the negatives still inside the intersection of the first t-1 hyperplanes;
* **refinement rounds**: in each round every hyperplane k in turn is re-trained by eq. (8) against the moments of the
  negatives inside the intersection of the other K-1 ("t" of the printed loop read as a round over k = 1..K,
  erratum 15). How many rounds (``eps``, ``max_rounds``; docs/derivations/000.md item 15b):

  - ``eps=None`` (default): exactly ``max_rounds`` rounds. Fig. 5 shows "the final classifier after 25 iterations":
    the paper ran a fixed count.
  - ``eps >= 0``: the printed rule "continue while P_{t-1} - P_t > eps", with P_t the probability that Alg. 1 and
    Lemma 2 speak of, Def. 3's ``sup_Z Pr(W^T z >= 0)`` -- Thm 1's worst-case background risk of the round's model
    (P_0: after the greedy phase) -- or ``max_rounds``. The former reading (P = the fraction of *training*
    negatives inside Q) could not fire usefully: after the greedy phase it is already 0.0004-0.003 on Letter (1-8 of
    2,500 negatives), so it never fell by eps and every fit stopped after one round (issue 24).

* **which round is returned** (``keep``): ``"best"`` (default) the round with the smallest tracked risk R (below;
  ties: the later round), ``"last"`` the printed algorithm's output. ``KHHMFit.best_round`` says which.
* **start** (``start``): ``"greedy"`` is the printed initialisation. It cannot begin when eq. (8)'s optimum against
  ALL negatives is ``w = 0`` -- e.g. positives around the background mean mu: every half-space that holds mu has
  worst-case false-positive rate 1 (Marshall-Olkin, d^2 = 0) and, by Jensen, every half-space that excludes mu by
  gamma sd has mean hinge > 1, the value of w = 0. Then all K greedy planes are trivial and ``"greedy"`` refuses
  (InputError saying so). ``"enclosing"`` starts from `enclosing_polytope` (the smallest box holding every
  positive along the generalised eigenvectors of (Sigma_pos, Sigma_neg), most concentrated first) and lets the
  refinement refit each face against the negatives inside the other faces (a half-open slab); a refit whose
  optimum is again w = 0 keeps the face. No region holding mu meets ANY delta < 1 (its worst-case risk is 1), so
  the box is a meaningful classifier (tests: AUC 0.85 where the Bayes score reaches 0.86) but not a certified-delta
  one; the warning says so. ``"auto"`` (default) is ``"greedy"``, falling back to ``"enclosing"`` with an
  `InfeasiblePlaneWarning` when the greedy start cannot begin.
* **infeasible planes**: every eq. (8) whose optimum at the given delta is ``w = 0`` (no useful half-space meets the
  worst-case level) is recorded in ``KHHMFit.events`` (stage, hyperplane, round, negatives); greedy ones also raise an
  `InfeasiblePlaneWarning`. A fit never returns the accept-everything model (no active plane) silently: it warns
  (or, with ``start="greedy"``, refuses).

Where Alg. 1 / Lemma 2 is wrong, this module does what is right (``docs/derivations/000.md`` items 15-16, claims
000-L2a/000-L2b):

* **Lemma 2's hinge part is false** (000-L2b: a refit can increase ``sum_i max_k hinge_ik``, and neither that nor P is
  monotone under the printed loop). A refit is therefore a *candidate*, kept according to ``accept``:
  ``"risk"`` keeps it only if the tracked risk ``R(W) = L^H_S(W) + L^B(W)`` does not increase, so R is
  non-increasing over the fit by construction. R is eq. (7), the empirical mixed risk of Def. 4: the MEAN over the
  positives of ``max_k max{0, 1 - w_k^T x - b_k}`` (Def. 2's expectation, as Thm 8 estimates it) plus Thm 1's
  worst-case background risk under the moments of all negatives. (With eq. (22)'s SUM of hinges instead, the hinge
  term outweighs any background probability and a refit that accepts everything would be preferred.)
  ``"background"`` keeps it only if P does not increase (what the printed stopping rule tracks); ``"always"`` (default) is
  the printed algorithm (tests show where R and P then increase; ``keep="best"`` returns its best round).
* **Lemma 2's probability part needs a nontrivial refit** (000-L2a): eq. (8) always admits ``w = 0``, which accepts
  everything. A refit returning the trivial solution is rejected (the old hyperplane stays); in the greedy phase the
  hyperplane becomes *inactive*.
* **Undefined steps**: a conditioning set with no negative (the other hyperplanes already reject every training
  negative) gives eq. (8) without constraint, whose optimum is the constant half-space ``w = 0, b = 1`` (zero hinge,
  zero regulariser): the hyperplane is *inactive*. One negative gives ``Sigma = 0`` (eq. (8) then rejects that
  point); ``cov_ridge`` adds ``ridge * I`` to every covariance.

An inactive hyperplane is stored as ``w = 0, b = 1`` (the whole space, also with ``bias=False``): rows of ``W, b``
keep the shape (K, d) for consumers such as the network mapping of Sec. 4, and the scores (`KHHMFit.decision`) take
the minimum over the *active* hyperplanes only (an inactive plane would cap every score at 1).

Certification: every eq. (8) and Thm 1 solve carries a verdict, kept in ``KHHMFit.subproblems`` with the solver
that produced the kept answer (``SubProblem.solver``). Eq. (8) is answered by its structured solver
(`solver.solve_hinge_minimax`: an interior point whose Newton systems are (d+1) x (d+1)) when certiprog chooses
(no backend, no solver) and the solver covers the settings, or with ``solver="structured"`` (`uses_structured`);
that solver's rigorous interval IS the certificate (the lower end from its dual point, the upper end from a primal
point proved feasible, both in ball arithmetic: `solve_eq8`), so no generic check runs again on it, with
``certify`` True or False. Where it does not certify (or does not cover the settings, or a backend is named) the
compiled model is solved by the generic backend and checked by `certiprog.certificates.check` (``certify=True``:
KKT residuals and the rigorous optimality interval; ``False``: the KKT verdict the solve path computes anyway), and
``SubProblem.fallback`` says why. Thm 1's QP is skipped when ``mu`` lies in the region (then d^2 = 0 and the risk
is exactly 1: verdict ``exact``); otherwise it runs on the generic backends. The compiled models
are reused: eq. (8)'s moments and Thm 1's (W, b) are Parameters (`programs.set_moments`, `programs.set_halfspaces`);
no backend takes a warm start (all declare ``warm_start=False``).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from certiprog import validation as validate
from certiprog.errors import BackendError, CertiprogError, InputError
from certiprog.model import Model
from certiprog.solvers.structured import STRUCTURED

from .programs import background_risk, hinge_minimax, positive_definite_factor, set_halfspaces, set_moments
from .solver import covers

__all__ = ["ACCEPT", "BackgroundRiskEvaluator", "InfeasiblePlaneWarning", "KEEP", "KHHMFit", "RoundRecord", "STARTS",
           "SubProblem", "background_moments", "enclosing_polytope", "fit_khhm", "hinge_losses", "inside",
           "region_scores", "verdict_counts"]

ACCEPT = ("risk", "background", "always")
KEEP = ("best", "last")
STARTS = ("auto", "greedy", "enclosing")


class InfeasiblePlaneWarning(UserWarning):
    """An eq. (8) of Alg. 1 had only the trivial optimum ``w = 0`` at the given delta (no half-space meets the
    worst-case false-positive level against its conditioning set), or the fit fell back to another start."""
MARGIN = 1.0  # the hinge margin of eq. (8) (Sec. 3.1's alpha)
#: when certiprog chooses the solver (no backend, no solver), eq. (8) goes to its structured solver
#: (`solver.solve_hinge_minimax`: the interior point of `newton`, or the dual gradient where it is cheaper) whenever it
#: covers the settings and m * d is at least this (`uses_structured`), and that solver's rigorous interval is the
#: certificate (`solve_eq8`). Why 0 (issue 23; it was 80,000 while the structured solver was the dual gradient alone,
#: which did not certify the refits against the few negatives near the positives): the interior point takes 10-25
#: steps on every Alg. 1 sub-problem, and answering directly skips the compiled program, its generic solve and the
#: generic check (benchmarks/learners_000.py: LHM C = 2, K = 2 on Letter 16,000 x 16, certified).
STRUCTURED_MIN_SIZE = 0
#: iterations of each structured method on one eq. (8) (the interior point stops at `solver.NEWTON_MAX_ITER`): when the
#: interior point stalls short of `STRUCTURED_TOL`, the gradient it hands over to stops here instead of at 20,000
#: (measured on Letter: 12 of 132 LHM sub-problems stalled at a relative width of 1-3e-7 against 1e-7 and the gradient
#: then ran 20,000 iterations, 13-23 s each, without closing the gap)
STRUCTURED_MAX_ITER = 500
#: relative width at which the structured interval certifies an eq. (8) answer: certiprog's own check calls a point
#: certified at this width (`certiprog.certify.kkt.DEFAULT_TOL`)
STRUCTURED_TOL = 1e-6


# ----------------------------------------------------------------------------------------------------------------
# Typed results
# ----------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class SubProblem:
    """One certified sub-problem: ``program`` "eq8" or "thm1"; ``stage`` "greedy", "refit", "round" (the Thm 1 risk
    of the round's model), "accept" (a refit candidate's risk) or "assign" (eq. (25)); ``hyperplane`` k (-1 for
    Thm 1), ``round``, ``n_background`` (negatives in the conditioning set), ``status`` (the solver's),
    ``verdict`` (the certificate's), ``objective``, ``interval`` (the rigorous optimality interval, or None),
    ``seconds`` (solve and check, every attempt), ``solver`` (what produced the kept answer: "structured" for
    `solver.solve_hinge_minimax`, else the backend's name; "" when nothing was solved) and ``fallback`` (None, or
    why a structured answer was not kept and the generic backend solved it: its verdict or refusal)."""

    program: str
    stage: str
    hyperplane: int
    round: int
    n_background: int
    status: str
    verdict: str
    objective: float
    interval: tuple | None
    seconds: float
    solver: str = ""
    fallback: str | None = None

    def to_dict(self) -> dict:
        return dict(program=self.program, stage=self.stage, hyperplane=self.hyperplane, round=self.round,
                    n_background=self.n_background, status=self.status, verdict=self.verdict,
                    objective=self.objective, interval=None if self.interval is None else list(self.interval),
                    seconds=self.seconds, solver=self.solver, fallback=self.fallback)


@dataclass(frozen=True, eq=False)
class RoundRecord:
    """The state after round ``round`` (0: after the greedy phase): ``hinge`` = sum_i max_k max{0, 1 - w_k^T x_i -
    b_k} (eq. (22)'s sum), ``hinge_mean`` (the same over the m positives: L^H_S of Def. 2 / Thm 8),
    ``regulariser`` = lam sum_k ||w_k||^2, ``background_rate`` = P (training negatives
    inside Q), ``worst_case_background`` = Thm 1's sup_Z P(z in Q) under the moments of all negatives and
    ``worst_case_interval`` its certified interval, ``risk`` = hinge_mean + worst_case_background (the tracked risk),
    ``accepted`` (per hyperplane refit of the round: kept or not), ``n_active``."""

    round: int
    hinge: float
    hinge_mean: float
    regulariser: float
    background_rate: float
    worst_case_background: float
    worst_case_interval: tuple
    risk: float
    accepted: tuple
    n_active: int

    def to_dict(self) -> dict:
        return dict(round=self.round, hinge=self.hinge, hinge_mean=self.hinge_mean, regulariser=self.regulariser,
                    background_rate=self.background_rate, worst_case_background=self.worst_case_background,
                    worst_case_interval=list(self.worst_case_interval), risk=self.risk,
                    accepted=[bool(a) for a in self.accepted], n_active=self.n_active)


@dataclass(frozen=True, eq=False)
class KHHMFit:
    """A fitted K-hyperplane model: ``W`` (K, d) rows w_k, ``b`` (K,), ``active`` (K,) (False: the constant half-space
    w = 0, b = 1), ``history`` (a `RoundRecord` per round), ``subproblems`` (every certified solve), ``mu``, ``Sigma``
    (the background moments of Thm 1), ``stop_reason``, ``settings`` (the arguments), ``best_round`` (the round whose
    model W, b, active are: ``keep="best"`` the smallest tracked risk, ``"last"`` the last round), ``start`` (the
    start used: "greedy" or "enclosing") and ``events`` (every eq. (8) with only the trivial optimum at delta: dicts
    with stage, hyperplane, round, n_background)."""

    W: np.ndarray
    b: np.ndarray
    active: np.ndarray
    history: list
    subproblems: list
    mu: np.ndarray
    Sigma: np.ndarray
    stop_reason: str
    settings: dict = field(default_factory=dict)
    best_round: int = 0
    start: str = "greedy"
    events: list = field(default_factory=list)

    @property
    def worst_case_background(self) -> float:
        """Thm 1's worst-case background risk of the returned model (round ``best_round``)."""
        return self.history[self.best_round].worst_case_background

    @property
    def risk(self) -> float:
        """The tracked risk of the returned model (round ``best_round``)."""
        return self.history[self.best_round].risk

    @property
    def rounds(self) -> int:
        """Refinement rounds run (the returned model may be an earlier one: ``best_round``)."""
        return self.history[-1].round

    @property
    def verdicts(self) -> dict:
        """How many sub-problems got each verdict."""
        return verdict_counts(self.subproblems)

    @property
    def certified(self) -> bool:
        """Every sub-problem certified (rigorous interval), exact, or certified infeasible."""
        return all(s.verdict.startswith(("certified", "exact")) for s in self.subproblems)

    def decision(self, X) -> np.ndarray:
        """``min_k (w_k^T x + b_k)`` over the active hyperplanes (>= 0: inside Q, Def. 1); 1 where none is active."""
        return region_scores(np.asarray(X, float), self.W, self.b, self.active)

    def components(self) -> list:
        """``[(W (K, d), b (K,))]``: the model as one component of the network mapping (inactive rows w = 0, b = 1)."""
        return [(self.W.copy(), self.b.copy())]


# ----------------------------------------------------------------------------------------------------------------
# Small pieces (one definition each)
# ----------------------------------------------------------------------------------------------------------------
def verdict_counts(subproblems) -> dict:
    """``{verdict: how many}`` of the sub-problems (a `KHHMFit`'s or an `lhm.LHMFit`'s), in first-seen order."""
    out: dict = {}
    for s in subproblems:
        out[s.verdict] = out.get(s.verdict, 0) + 1
    return out


def region_scores(X: np.ndarray, W: np.ndarray, b: np.ndarray, active: np.ndarray | None = None) -> np.ndarray:
    """``min_k (w_k^T x + b_k)`` over the rows where ``active`` (all if None); 1.0 where no row is active."""
    if active is not None:
        W, b = W[active], b[active]
    if W.shape[0] == 0:
        return np.ones(X.shape[0])
    return np.min(X @ W.T + b, axis=1)


def inside(X: np.ndarray, W: np.ndarray, b: np.ndarray, rows=None) -> np.ndarray:
    """Boolean mask of the points with ``w_k^T x + b_k >= 0`` for every k in ``rows`` (all if None; none: all True)."""
    if rows is not None:
        W, b = W[rows], b[rows]
    if W.shape[0] == 0:
        return np.ones(X.shape[0], dtype=bool)
    return np.all(X @ W.T + b >= 0, axis=1)


def hinge_losses(X: np.ndarray, W: np.ndarray, b: np.ndarray, margin: float = MARGIN) -> np.ndarray:
    """Per-point K-hyperplane hinge ``max_k max{0, margin - w_k^T x - b_k}`` (eq. (2) / Sec. 3.1's l_alpha)."""
    return np.max(np.maximum(0.0, margin - (X @ W.T + b)), axis=1)


def background_moments(Z: np.ndarray, ridge: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Biased (1/n) mean and covariance of the rows of Z (Lemma 3's estimator), plus ``ridge * I``."""
    mu = Z.mean(axis=0)
    R = Z - mu
    S = R.T @ R / Z.shape[0]
    S = (S + S.T) / 2
    if ridge:
        S = S + ridge * np.eye(Z.shape[1])
    return mu, S


def check_background_covariance(Sigma: np.ndarray, what: str = "the negatives' covariance") -> None:
    """InputError when Sigma is (numerically) singular: Thm 1 needs Sigma^{-1} (`programs.positive_definite_factor`,
    the one definition of the test)."""
    positive_definite_factor(Sigma, what, "a constant feature, duplicated features or fewer negatives than "
                                          "features? Drop the degenerate features or pass cov_ridge > 0 (adds "
                                          "ridge * I)")


def _certify(model, sol, certify: bool):
    """(verdict, interval) of ``sol``: the rigorous check with ``certify``, else the solve path's KKT verdict."""
    if certify:
        from certiprog.certify import check

        cert = check(model, sol)
        return cert.verdict, (None if cert.interval is None else (float(cert.interval[0]), float(cert.interval[1])))
    return str(sol.verdict or "unchecked"), None


def thm1_solver(solver):
    """The solver Thm 1's QPs run on: ``solver="structured"`` names eq. (8)'s own solver, so Thm 1 gets certiprog's
    choice (None); any other name as given."""
    return None if solver == STRUCTURED else solver


def uses_structured(backend, solver, squared_reg: bool, lam: float, m: int, d: int) -> bool:
    """Whether Alg. 1 answers eq. (8) with m positives x d features by its structured solver
    (`solver.solve_hinge_minimax`, certified by its own rigorous interval): always with ``solver="structured"``
    (InputError when it does not cover the settings); when certiprog chooses (backend and solver None), if it covers
    them (``squared_reg=True``, ``lam > 0``) and ``m * d >= STRUCTURED_MIN_SIZE``."""
    what = covers(True, squared_reg, lam)
    if solver == STRUCTURED:
        if backend is not None:
            raise InputError(f"solver='structured' is eq. (8)'s own solver; it takes no backend (got {backend!r})")
        if what is not None:
            raise InputError(f"solver='structured' covers eq. (8) with squared_reg=True, lam > 0; got {what}: "
                             "use a backend, e.g. backend='clarabel'")
        return True
    return backend is None and solver is None and what is None and m * d >= STRUCTURED_MIN_SIZE


class StructuredEq8Answer:
    """An eq. (8) answer of `solver.solve_hinge_minimax` called directly (no compiled program, no generic solve):
    what Alg. 1 reads of a certiprog Solution (``ok``, ``status``, ``backend``, ``x``, ``value(name)``), so that
    ``model.derived(answer)`` gives the same `programs.HingeMinimaxSolution`; ``fit`` is the solver's result (its
    rigorous interval, dual point, iterations)."""

    ok = True
    backend = STRUCTURED

    def __init__(self, fit, bias: bool):
        self.fit = fit
        self.status = str(fit.status)
        self._values = {"w": np.asarray(fit.w, float), "b": np.asarray(float(fit.b))} if bias else \
            {"w": np.asarray(fit.w, float)}
        self.x = np.concatenate([self._values["w"], np.atleast_1d(self._values.get("b", []))])

    def value(self, name: str):
        return self._values[name]


def solve_eq8(model, structured: bool, certify: bool, backend=None, solver=None, options=None):
    """One eq. (8) sub-problem (``model`` from `programs.hinge_minimax`, moments set): ``(answer, verdict, interval,
    fallback)``.

    With ``structured`` the structured solver answers it directly (`StructuredEq8Answer`; `STRUCTURED_TOL`,
    `STRUCTURED_MAX_ITER`), and its interval is the certificate, whatever ``certify`` says: the lower end is the
    dual function at the solver's dual point (alpha clipped into the box, the cone multiplier made to satisfy the
    cone and the bias equality exactly) and the upper end the objective at a primal point proved feasible, both
    evaluated in ball arithmetic on the float data the model compiles (`solver` module docstring). It is kept when
    the interval is finite, at most `STRUCTURED_TOL` wide (relative) and holds the answer's recomputed objective
    (`programs.HingeMinimaxData.derive`); otherwise (or when the solver refuses) the generic ``backend`` /
    ``solver`` solves the compiled model, checked by `certiprog.certificates.check` with ``certify`` (else the solve
    path's KKT verdict), and ``fallback`` says why. Tested against the generic check and Clarabel's optimum."""
    fallback = None
    if structured:
        from .solver import solve_hinge_minimax

        data = model.data
        try:
            fit = solve_hinge_minimax(data.X, data.mu, data.Sigma, data.lam, data.delta, bias=data.bias,
                                      tol=STRUCTURED_TOL, max_iter=STRUCTURED_MAX_ITER)
        except CertiprogError as exc:
            fallback = f"structured refused: {exc}"
        else:
            answer = StructuredEq8Answer(fit, data.bias)
            lo, up = float(fit.lower), float(fit.upper)
            objective = float(data.derive(answer).objective)
            if fit.certified and math.isfinite(lo) and math.isfinite(up) and lo <= objective <= up:
                return answer, "certified", (lo, up), None
            fallback = (f"structured interval [{lo:.9g}, {up:.9g}] (relative width {fit.rel_gap:.2g}, "
                        f"{fit.status}) does not certify the answer (objective {objective:.9g})")
    sol = model.solve(backend=backend, solver=thm1_solver(solver), **dict(options or {}))
    verdict, interval = _certify(model, sol, certify)
    return sol, verdict, interval, fallback


class BackgroundRiskEvaluator:
    """Thm 1's worst-case background risk ``sup_Z P(W z + b >= 0) = 1/(1 + d^2)`` for regions of K half-spaces under
    fixed moments, one compiled `programs.background_risk` model reused for every region (`programs.set_halfspaces`).

    ``risk(W, b, ...)`` returns ``(risk, (lo, hi), SubProblem)``: (lo, hi) bounds the risk from the certified
    interval on d^2 (the point value twice when no interval is available). ``mu`` inside the region: risk 1 exactly,
    no solve (verdict ``exact``); an empty region (infeasible QP): risk 0.
    """

    def __init__(self, mu, Sigma, K: int, backend=None, solver=None, certify: bool = True, options=None):
        self.mu, self.Sigma, self.K = mu, Sigma, K
        self.backend, self.solver = backend, thm1_solver(solver)
        self.certify, self.options = certify, dict(options or {})
        self._model: Model | None = None  # Thm 1's QP, built on first use, its half-spaces reset after

    def risk(self, W, b, stage: str = "round", round: int = 0):
        t0 = time.perf_counter()
        if np.all(W @ self.mu + b >= 0):
            sp = SubProblem("thm1", stage, -1, round, 0, "skipped", "exact (mu in the region: d^2 = 0)", 0.0,
                            (0.0, 0.0), time.perf_counter() - t0)
            return 1.0, (1.0, 1.0), sp
        if self._model is None:
            self._model = background_risk(W, self.mu, self.Sigma, b)
        else:
            set_halfspaces(self._model, W, b)
        sol = self._model.solve(backend=self.backend, solver=self.solver, **self.options)
        term = sol.status.termination
        verdict, interval = _certify(self._model, sol, self.certify)
        if term == "infeasible":
            sp = SubProblem("thm1", stage, -1, round, 0, str(sol.status), verdict, math.inf, None,
                            time.perf_counter() - t0, sol.backend)
            return 0.0, (0.0, 0.0), sp
        if not sol.ok:
            raise BackendError(f"Thm 1's QP (worst-case background risk) returned {sol.status} with verdict "
                               f"{verdict!r}; try another backend")
        d2 = float(self._model.derived(sol).d2)
        r = 1.0 / (1.0 + d2)
        if interval is not None:
            lo_d2, hi_d2 = max(interval[0], 0.0), max(interval[1], 0.0)
            bounds = (1.0 / (1.0 + hi_d2), 1.0 / (1.0 + lo_d2))
        else:
            bounds = (r, r)
        sp = SubProblem("thm1", stage, -1, round, 0, str(sol.status), verdict, d2, interval, time.perf_counter() - t0,
                        sol.backend)
        return r, bounds, sp


# ----------------------------------------------------------------------------------------------------------------
# Alg. 1
# ----------------------------------------------------------------------------------------------------------------
def _int(value, name: str, low: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InputError(f"{name} must be an integer >= {low}; got {value!r}")
    if value < low:
        raise InputError(f"{name} must be an integer >= {low}; got {value}")
    return int(value)


def check_settings(K, delta, lam, eps, max_rounds, accept, cov_ridge):
    """The validated (K, delta, lam, eps, max_rounds, accept, cov_ridge) of Alg. 1 (InputError naming the bad one);
    ``eps`` None (a fixed number of rounds) or >= 0."""
    K = _int(K, "K (number of hyperplanes)", 1)
    delta = validate.scalar(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
    lam = validate.scalar(lam, "lam", low=0.0)
    eps = None if eps is None else validate.scalar(eps, "eps (None: run max_rounds rounds)", low=0.0)
    max_rounds = _int(max_rounds, "max_rounds", 0)
    if accept not in ACCEPT:
        raise InputError(f"accept must be one of {ACCEPT}; got {accept!r}")
    cov_ridge = validate.scalar(cov_ridge, "cov_ridge", low=0.0)
    return K, delta, lam, eps, max_rounds, accept, cov_ridge


def enclosing_polytope(X: np.ndarray, Sigma: np.ndarray, K: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``"enclosing"`` start of Alg. 1: ``(W (K, d), b (K,), active (K,))``, the smallest box holding every
    positive along the directions ``+v_1, -v_1, +v_2, -v_2, ...`` where ``v_j`` are the generalised eigenvectors of
    ``(Sigma_pos, Sigma)`` in increasing order of eigenvalue (the positives' variance over the background's along v:
    the directions where a face cuts the most background per positive lost). Face k's score is 1 (the hinge margin:
    no positive has a hinge loss) at the outermost positive and 2 at the positives' median along it, so the face
    lies one (median - outermost) further out (one background sd when that is below 1e-6 sd, e.g. a single
    positive: the box never
    degenerates to a point, where Thm 1's QP has no interior). With K > 2d the last K - 2d planes start
    inactive (w = 0, b = 1). Why this start: a region holding positives that surround the background mean mu has
    worst-case risk 1 whatever its shape, so no eq. (8) plane against all negatives exists; the box is the simplest
    polytope that keeps every positive and cuts the background along the directions where the positives are
    narrowest relative to it, and the refinement can still refit a face against the negatives inside the others
    where eq. (8) has a useful optimum there."""
    m, d = X.shape
    Sp = np.cov(X, rowvar=False, bias=True).reshape(d, d) if m > 1 else np.zeros((d, d))
    from scipy.linalg import eigh

    _, V = eigh((Sp + Sp.T) / 2, Sigma)          # Sigma is positive definite (checked by the caller)
    W, b = np.zeros((K, d)), np.ones(K)
    active = np.zeros(K, dtype=bool)
    for k in range(min(K, 2 * d)):
        u = V[:, k // 2] * (1.0 if k % 2 == 0 else -1.0)
        p = X @ u
        lo, med = float(p.min()), float(np.median(p))
        sd = float(np.sqrt(u @ Sigma @ u))
        scale = med - lo if med - lo > 1e-6 * sd else sd  # (numerically) one positive along u: the background's sd
        W[k], b[k], active[k] = u / scale, 1.0 - lo / scale, True
    return W, b, active


def fit_khhm(X_pos, X_neg, K: int = 2, delta: float = 0.1, lam: float = 0.1, *, bias: bool = True,
             squared_reg: bool = True, eps: float | None = None, max_rounds: int = 10, accept: str = "always",
             keep: str = "best", start: str = "auto", backend: str | None = None, solver: str | None = None,
             certify: bool = True, cov_ridge: float = 0.0, progress: bool = False, **options) -> KHHMFit:
    """Alg. 1 (see the module docstring): K hyperplanes for positives ``X_pos`` (m, d) against negatives ``X_neg``.

    ``delta``: the per-hyperplane worst-case false-positive level of eq. (8); ``lam``: its regularisation weight;
    ``eps``, ``max_rounds``: the refinement's rounds (None: exactly ``max_rounds``; a number: the printed rule on
    Thm 1's P_t); ``accept``: "risk" | "background" | "always" (which refits are kept; "always" is the printed
    algorithm); ``keep``: "best" | "last" (which round is returned); ``start``: "auto" | "greedy" | "enclosing";
    ``backend``, ``solver``, ``options``: where every sub-problem is solved (None: certiprog chooses);
    ``certify``: rigorous interval check of every solve (else the KKT verdict); ``cov_ridge``: ridge added to every
    covariance. Raises InputError for bad input (NaN, no positive, fewer than 2 negatives, singular background
    covariance, a greedy start that cannot begin with ``start="greedy"``, ...).
    """
    import warnings

    K, delta, lam, eps, max_rounds, accept, cov_ridge = check_settings(K, delta, lam, eps, max_rounds, accept,
                                                                       cov_ridge)
    if keep not in KEEP:
        raise InputError(f"keep must be one of {KEEP}; got {keep!r}")
    if start not in STARTS:
        raise InputError(f"start must be one of {STARTS}; got {start!r}")
    X = validate.matrix(X_pos, "X_pos (positives)", min_rows=1)
    d = X.shape[1]
    if d < 1:
        raise InputError("X_pos has 0 columns; at least one feature is needed")
    Z = validate.matrix(X_neg, "X_neg (negatives)", min_rows=2, cols=d)
    if start == "enclosing" and not bias:
        raise InputError("start='enclosing' needs hyperplanes with biases (bias=True): a box around the positives "
                         "is not an intersection of half-spaces through the origin")
    mu, Sigma = background_moments(Z, cov_ridge)
    check_background_covariance(Sigma)
    settings = dict(K=K, delta=delta, lam=lam, bias=bool(bias), squared_reg=bool(squared_reg), eps=eps,
                    max_rounds=max_rounds, accept=accept, keep=keep, start=start, backend=backend, solver=solver,
                    certify=bool(certify), cov_ridge=cov_ridge)

    eq8 = hinge_minimax(X, mu, Sigma, lam, delta, bias=bias, squared_reg=squared_reg)
    structured = uses_structured(backend, solver, squared_reg, lam, X.shape[0], d)  # refuses a bad 'structured'
    evaluator = BackgroundRiskEvaluator(mu, Sigma, K, backend, solver, certify, options)
    subproblems: list = []
    events: list = []

    def refit(rows, stage: str, k: int, rnd: int):
        """eq. (8) against the negatives inside the planes ``rows``: (kind, (w, b) or None); kind "ok", "empty" (no
        negative) or "trivial" (the optimum is w = 0 at this delta: recorded in ``events``)."""
        S = inside(Z, W, b, rows)
        n = int(S.sum())
        if n == 0:
            return "empty", None
        t0 = time.perf_counter()
        set_moments(eq8, *background_moments(Z[S], cov_ridge))
        sol, verdict, interval, fallback = solve_eq8(eq8, structured, certify, backend, solver, options)
        if not sol.ok:
            subproblems.append(SubProblem("eq8", stage, k, rnd, n, str(sol.status), verdict, math.nan, interval,
                                          time.perf_counter() - t0, sol.backend, fallback))
            raise BackendError(f"eq. (8) (hyperplane {k}, {stage}) returned {sol.status} with verdict {verdict!r}; "
                               "it is always feasible (w = 0), so the solver failed: try another backend")
        der = eq8.derived(sol)
        subproblems.append(SubProblem("eq8", stage, k, rnd, n, str(sol.status), verdict, float(der.objective),
                                      interval, time.perf_counter() - t0, sol.backend, fallback))
        if der.trivial:
            events.append(dict(stage=stage, hyperplane=int(k), round=int(rnd), n_background=n))
            return "trivial", None
        return "ok", (np.asarray(der.w, float), float(der.b))

    def state(rnd: int, accepted: tuple, wc=None) -> RoundRecord:
        Wa, ba = W[active], b[active]
        hinge = float(hinge_losses(X, Wa, ba).sum()) if Wa.shape[0] else 0.0
        reg = float(lam * np.sum(Wa * Wa)) if squared_reg else float(lam * np.linalg.norm(Wa, axis=1).sum())
        rate = float(inside(Z, W, b, active).mean())
        if wc is None:
            r, bounds, sp = evaluator.risk(W, b, "round", rnd)
            subproblems.append(sp)
        else:
            r, bounds = wc
        m = X.shape[0]
        return RoundRecord(rnd, hinge, hinge / m, reg, rate, r, bounds, hinge / m + r, accepted, int(active.sum()))

    W = np.zeros((K, d))
    b = np.ones(K)
    active = np.zeros(K, dtype=bool)
    from tqdm.auto import tqdm

    bar = tqdm(total=K + K * max_rounds, desc=f"KHHM K={K}", disable=not progress, leave=False)
    used = "greedy"
    if start != "enclosing":
        for t in range(K):  # greedy phase
            kind, plane = refit(np.flatnonzero(active), "greedy", t, 0)
            if plane is not None:
                W[t], b[t] = plane
                active[t] = True
            bar.update()
        greedy_events = [e for e in events if e["stage"] == "greedy"]
        if not active.any():
            why = (f"Alg. 1's greedy start cannot begin at delta = {delta:g}: eq. (8) against all {len(Z)} negatives "
                   "has only the trivial optimum w = 0 (no half-space keeps the worst-case false-positive rate <= "
                   "delta with a mean hinge below 1; e.g. positives around the background mean, where any region "
                   "holding the mean has worst-case rate 1)")
            if start == "greedy" or not bias:
                raise InputError(why + ("; use start='enclosing' or 'auto', or a larger delta" if bias else
                                        "; with bias=False no other start exists: use bias=True or a larger delta"))
            warnings.warn(why + "; starting from the enclosing box of the positives (start='enclosing'): a "
                          "meaningful classifier, but no region holding the background mean meets any delta < 1",
                          InfeasiblePlaneWarning, stacklevel=2)
            used = "enclosing"
        elif greedy_events:
            warnings.warn(f"Alg. 1: {len(greedy_events)} of {K} greedy hyperplane(s) had only the trivial eq. (8) "
                          f"optimum w = 0 at delta = {delta:g} (no useful half-space against the negatives left "
                          "inside the others); they stay inactive (KHHMFit.events)", InfeasiblePlaneWarning,
                          stacklevel=2)
    else:
        used = "enclosing"
    if used == "enclosing":
        W, b, active = enclosing_polytope(X, Sigma, K)
        bar.update(K - bar.n)
    history = [state(0, ())]
    snapshots = [(W.copy(), b.copy(), active.copy())]
    stop = "max_rounds" if max_rounds else "max_rounds (0: the start only)"
    if K == 1 and used == "greedy" and max_rounds:
        # the one plane's refit is eq. (8) against all negatives again: the greedy plane (no round can change it)
        stop, max_rounds = "K = 1: a refit is the greedy eq. (8) again (no round run)", 0
    for rnd in range(1, max_rounds + 1):
        cur = (history[-1].worst_case_background, history[-1].worst_case_interval)
        cur_risk = history[-1].risk
        accepted = []
        for k in range(K):
            others = np.flatnonzero(active & (np.arange(K) != k))
            kind, plane = refit(others, "refit", k, rnd)
            bar.update()
            if kind == "trivial":  # Lemma 2 correction: never replace a plane by w = 0
                accepted.append(False)
                continue
            old = (W[k].copy(), b[k], active[k])
            rate_before = inside(Z, W, b, active).mean() if accept == "background" else None
            if kind == "empty":  # no negative left: the unconstrained optimum, the constant half-space
                W[k], b[k], active[k] = 0.0, 1.0, False
            else:
                W[k], b[k], active[k] = plane[0], plane[1], True
            keep_it = True
            if accept == "background":
                keep_it = inside(Z, W, b, active).mean() <= rate_before
            elif accept == "risk":
                r, bounds, sp = evaluator.risk(W, b, "accept", rnd)
                subproblems.append(sp)
                Wa, ba = W[active], b[active]
                cand_risk = (float(hinge_losses(X, Wa, ba).mean()) if Wa.shape[0] else 0.0) + r
                keep_it = cand_risk <= cur_risk
                if keep_it:
                    cur, cur_risk = (r, bounds), cand_risk
            if not keep_it:
                W[k], b[k], active[k] = old
            accepted.append(bool(keep_it))
        history.append(state(rnd, tuple(accepted), cur if accept == "risk" else None))
        snapshots.append((W.copy(), b.copy(), active.copy()))
        if eps is not None:
            fall = history[-2].worst_case_background - history[-1].worst_case_background
            if fall <= eps:
                stop = (f"worst-case background risk P fell by {fall:.3g} <= eps = {eps:g} in round {rnd} "
                        "(Alg. 1's rule on Thm 1's P)")
                break
    bar.close()
    if keep == "best":
        risks = np.array([h.risk for h in history])
        best = int(np.flatnonzero(risks <= risks.min())[-1])
    else:
        best = len(history) - 1
    W, b, active = snapshots[best]
    if not active.any():
        warnings.warn("Alg. 1 returns no active hyperplane: the model accepts everything (worst-case background "
                      "risk 1); every refit was trivial or found no negative (KHHMFit.events)", InfeasiblePlaneWarning,
                      stacklevel=2)
    return KHHMFit(W=W, b=b, active=active, history=history, subproblems=subproblems, mu=mu, Sigma=Sigma,
                   stop_reason=stop, settings=settings, best_round=best, start=used, events=events)
