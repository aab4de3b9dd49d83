"""Never trust a solver's status where certiprog chose the solver: confirm each answer, else try the next one.

Each answer is judged by the full certificate (`certiprog.certify.check`, rigorous interval included) on the
conic problem the solver was given, and the `Certificate` is kept on the Solution (``sol.certification``), so
``sol.verdict``, ``sol.certification`` and a later ``check(model, sol)`` are one verdict, computed once.
For a cutting-plane master (a problem whose ForAll constraints are left to cuts) the cheap check (no interval) is
used: the master is a relaxation, and the driver judges the semi-infinite program itself.

`first_confirmed` runs candidate solves in order and stops at the first *strong* answer: ``certified`` (the
interval proves the optimum, or the ray proves infeasibility / unboundedness) or ``accurate_infeasible`` /
``accurate_unbounded``. A weak answer (``accurate``: KKT residuals small but nothing proved; ``inaccurate``) is
kept while the next candidates are tried, and returned only when none does better; except an ``accurate``
answer whose interval has an infinite end (the certificate finds no finite bound for this program at all:
unbounded columns it cannot bound, rank-deficient equalities, no feasible point), where another solver's point
cannot be proved either: the search stops there. What the default path then
returns (`honest_status`):

* ``status.termination == 'optimal'`` only for a certified answer;
* ``'unconfirmed'`` when a point is returned that the certificate does not prove optimal (whatever the solver
  said; its own word is kept in ``sol.info['solver_termination']``); ``sol.certification.interval_notes`` and
  ``notes`` say why (an infinite end: no feasible point proved; the objective below the proved lower bound: the
  point is infeasible; an interval too wide);
* infeasible / unbounded as the solver said when a verified ray backs it, else the first answer, unconfirmed
  (``sol.fallback_note``).

Every attempt is recorded, typed, in ``sol.attempts`` (`certiprog.solvers.solution.Attempt`: backend, solver,
options, termination, verdict, time, why rejected, the one chosen). A candidate that refuses the caller's options
(`certiprog.errors.OptionError`) is skipped; when every candidate refuses them the OptionError is raised before
anything is solved.
"""
from __future__ import annotations

import dataclasses
import time
from typing import Callable, Iterable, NamedTuple

from ..errors import BackendError, OptionError
from .solution import Attempt, Verdict

CONFIRMING = ("certified", "accurate", "inaccurate")  # verdict strengths that count as evidence
MAX_ANSWERS = 3  # solves tried before giving up (refusals do not count): each extra one costs a full solve


def _is_master(problem) -> bool:
    structure = getattr(problem, "structure", None)
    return bool(getattr(structure, "cutting_plane", None))


def certify(problem, sol):
    """The `Certificate` of ``sol`` for ``problem`` (full check with interval; cheap check for cutting-plane
    masters, see the module doc), remembered on ``sol.certification``."""
    from ..certify import check

    if _is_master(problem):  # masters: skip the ForAll oracles and the interval (see module doc)
        return check(dataclasses.replace(problem, structure=None), sol, interval=False)
    return check(problem, sol)


def verdict(problem, sol) -> str:
    """The certificate's verdict on ``sol`` for ``problem`` (`certify`)."""
    return certify(problem, sol).verdict


def assess(problem, sol) -> tuple[bool, str, str]:
    """(whether the certificate backs ``sol`` at all, the verdict, the verdict or the reason it does not back it)."""
    term = sol.status.termination
    if not sol.status.ok and sol.certificate is None:  # check() would say 'failed' without looking further
        if term in ("infeasible", "unbounded"):
            return False, "failed", f"{term} without a certificate (no verified ray)"
        return False, "failed", f"{term}: no point and no ray"
    if term == "infeasible_or_unbounded":
        return False, "failed", term
    v = verdict(problem, sol)
    return Verdict(v).strength in CONFIRMING, v, v


def confirmed(problem, sol) -> tuple[bool, str]:
    """(whether the certificate backs ``sol``, the verdict or the reason it does not)."""
    ok, _, why = assess(problem, sol)
    return ok, why


def is_strong(v: str) -> bool:
    """A proof (strength 'certified'), or a ray within tolerance ('accurate' infeasibility / unboundedness)."""
    verdict = Verdict(v)
    return verdict.proved or verdict.strength == "accurate" and verdict.kind != "optimality"


def honest_status(sol) -> None:
    """Make the status say no more than the certificate (module doc): 'optimal' only when certified, 'unconfirmed'
    for a returned point it does not prove; the solver's own termination is kept in ``info['solver_termination']``."""
    from .backends.common import STATUS

    cert = getattr(sol, "certification", None)
    if cert is None or cert.kind != "optimality" or sol.x is None:
        return
    term = sol.status.termination
    target = "optimal" if Verdict(cert.verdict).proved else "unconfirmed"
    if term != target and term in ("optimal", "inaccurate", "unconfirmed"):
        sol.info["solver_termination"] = term
        sol.status = STATUS[target]


class Candidate(NamedTuple):
    """One solve `first_confirmed` may try: ``label`` (how the record names it), a zero-argument ``solve``, and
    for the record the ``backend``, ``solver`` and ``options`` it runs with (read from the label when not given)."""

    label: str
    solve: Callable
    backend: str = ""
    solver: str = ""
    options: dict = {}


def _candidate(c) -> Candidate:
    c = c if isinstance(c, Candidate) else Candidate(*c)
    if not c.backend:
        backend, _, solver = c.label.partition(" ")[0].partition("/")
        c = c._replace(backend=backend, solver=solver or backend)
    return c


def _attempt(c: Candidate, seconds: float, sol=None, v=None, why: str = "", error: str = "") -> Attempt:
    if sol is None:
        return Attempt(c.label, c.backend, c.solver, dict(c.options), time=seconds, rejected=error, error=error)
    return Attempt(c.label, str(sol.backend), str(sol.solver), dict(c.options), sol.status.termination, v,
                   time=seconds, rejected="" if why == v else why)


def first_confirmed(problem, candidates: Iterable, *,
                    skip: Callable[[BackendError], bool] = lambda exc: False, max_answers: int | None = None):
    """Run ``candidates`` (`Candidate`s, or (label, zero-argument solve) pairs) in order; return the first
    confirmed Solution.

    ``skip(exc)`` says which BackendErrors (a licence or size limit) move on to the next candidate; any other
    error propagates; when every candidate refused, one candidate's error is raised as it is, several are listed
    in one BackendError. At most ``max_answers`` solves that return an answer are tried (None: all).
    ``sol.attempts`` lists every candidate tried (`Attempt`: backend, solver, options, termination, verdict, time,
    why it was rejected, the one chosen); ``sol.verdict`` is the returned answer's verdict
    (`certiprog.certify.check`'s word); ``sol.fallback_note`` says why it is unconfirmed, when it is.
    """
    attempts, first, weak, answers, errors = [], None, None, 0, []
    for cand in map(_candidate, candidates):
        if max_answers is not None and answers >= max_answers:
            break
        t0 = time.perf_counter()
        try:
            sol = cand.solve()
        except BackendError as exc:
            if not skip(exc):
                raise
            attempts.append(_attempt(cand, time.perf_counter() - t0, error=str(exc)))
            errors.append(exc)
            continue
        answers += 1
        ok, v, why = assess(problem, sol)
        attempts.append(_attempt(cand, time.perf_counter() - t0, sol, v, why))
        index = len(attempts) - 1
        if first is None:
            first = (sol, v, index)
        if ok and (is_strong(v) or _is_master(problem) and Verdict(v).strength == "accurate"):
            return _chosen(sol, v, index, attempts, master=_is_master(problem))
        if ok and v == "accurate" and _unprovable(sol):  # another solver's answer cannot be proved either
            return _chosen(sol, v, index, attempts, "this answer is accurate but not certified: the certificate "
                                                    "cannot prove this program's optimum (an infinite interval end; "
                                                    "see sol.certification.interval_notes), so no other solver "
                                                    "was tried; status 'unconfirmed'")
        if ok and (weak is None or _rank(v) < _rank(weak[1])):
            weak = (sol, v, index)
    if first is None:
        listed = "; ".join(f"{a.label}: {a.error}" for a in attempts)
        if errors and all(isinstance(e, OptionError) for e in errors):  # bad input: no candidate takes the options
            if len(errors) == 1:
                raise errors[0]
            raise OptionError("no solver certiprog would use accepts these options: " + listed)
        if len(errors) == 1:  # one candidate: its own error, as if it had been named
            raise errors[0]
        raise BackendError("no solver could take the problem: " + listed)
    if weak is not None:  # the best evidence there is: an answer the certificate backs but does not prove
        sol, v, index = weak
        return _chosen(sol, v, index, attempts, f"no solver's answer was certified; this one is {v}: "
                                                f"status 'unconfirmed' (see sol.certification)",
                       master=_is_master(problem))
    sol, v, index = first
    return _chosen(sol, v, index, attempts, "no solver's answer could be confirmed by the certificate; "
                                            "this is the first one, unconfirmed", master=_is_master(problem))


def _unprovable(sol) -> bool:
    """Whether an end of the answer's interval is infinite: the certificate found no finite bound for this program
    (unbounded columns, rank-deficient equalities, no feasible point), which no other solver's point changes."""
    cert = getattr(sol, "certification", None)
    interval = getattr(cert, "interval", None)
    return interval is not None and not all(abs(float(e)) < float("inf") for e in interval)


def _rank(v: str) -> int:
    """Weak answers by strength: accurate before inaccurate."""
    return 0 if Verdict(v).strength == "accurate" else 1


def _chosen(sol, v: str, index: int, attempts: list, note: str | None = None, master: bool = False):
    """``sol`` with its typed record: the attempts (``attempts[index]`` chosen, the others rejected and why), its
    verdict and the note on why it is unconfirmed (``sol.fallback_note``); its status made honest
    (`honest_status`)."""
    record = []
    for i, a in enumerate(attempts):
        if i == index:
            a = dataclasses.replace(a, chosen=True)
        elif not a.rejected:
            a = dataclasses.replace(a, rejected=_why_not(a, attempts[index]))
        record.append(a)
    sol.attempts = record
    sol.fallback_note = note or ""
    sol.verdict = v
    if not master:  # a cutting-plane master's status is the driver's to judge (module doc)
        honest_status(sol)
    return sol


def _why_not(a: Attempt, chosen: Attempt) -> str:
    """Why a candidate that answered was not the one returned."""
    if a.verdict is not None and Verdict(a.verdict).strength not in CONFIRMING:
        return f"{a.verdict}: the certificate does not back this answer"
    return f"{a.verdict}, weaker than {chosen.label}'s {chosen.verdict}" if a.verdict != chosen.verdict else \
        f"{chosen.label}'s answer, as strong, was tried by rank"


def refined(problem, sol, options: dict, run: Callable):
    """A weak answer whose interval is finite but too wide: the same solver once more with its declared tighter
    tolerances (`SolverCapabilities.refine`), through ``run(backend, solver, problem, options)``; kept when the
    certificate then certifies it, else ``sol`` as it was, with the extra attempt recorded."""
    from .registry import get_backend

    v = str(sol.verdict or "")
    if sol.x is None or is_strong(v) or _is_master(problem) or _unprovable(sol) or sol.certification is None:
        return sol
    try:
        caps = get_backend(sol.backend).capabilities_of(sol.solver)
    except BackendError:  # the structured solver: no backend of that name
        return sol
    extra = caps.refine if caps is not None else None
    if not extra or any(k in options for k in extra):  # the caller set these tolerances: respect them
        return sol
    attempts = list(sol.attempts)
    cand = Candidate(f"{sol.backend}/{sol.solver} (tighter: {extra})",
                     lambda: run(sol.backend, sol.solver, problem, {**options, **extra}), sol.backend, sol.solver,
                     {**options, **extra})
    t0 = time.perf_counter()
    try:
        sol2 = cand.solve()
    except BackendError as exc:
        sol.attempts = attempts + [_attempt(cand, time.perf_counter() - t0, error=str(exc))]
        return sol
    ok, v2, why = assess(problem, sol2)
    attempts.append(_attempt(cand, time.perf_counter() - t0, sol2, v2, why))
    if ok and is_strong(v2):
        for i, a in enumerate(attempts[:-1]):
            if a.chosen:
                attempts[i] = dataclasses.replace(a, chosen=False, rejected=f"{a.verdict}; the tighter re-solve "
                                                                            f"is {v2}")
        return _chosen(sol2, v2, len(attempts) - 1, attempts)
    attempts[-1] = dataclasses.replace(attempts[-1], rejected=attempts[-1].rejected
                                       or f"{v2}: no better than the answer kept")
    sol.attempts = attempts
    return sol
