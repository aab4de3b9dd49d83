"""Never trust a solver's status where certiprog chose the solver: confirm each answer, else try the next one.

Each answer is judged by the full certificate (`certiprog.certificates.check`, rigorous interval included) on the
conic problem the solver was given, and the `Certificate` is kept on the Solution (``sol.certification``), so
``sol.info['verdict']``, ``sol.certification`` and a later ``check(model, sol)`` are one verdict, computed once.
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
  (``sol.info['fallback']['note']``).

Every attempt is recorded in ``sol.info['fallback']``. A candidate that refuses the caller's options
(`certiprog.errors.OptionError`) is skipped; when every candidate refuses them the OptionError is raised before
anything is solved.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Iterable

from ..errors import BackendError, OptionError

CONFIRMING = ("certified", "accurate", "inaccurate")  # verdict prefixes that count as evidence
#: evidence that stops the search: a proof, or a ray whose scale-free measure is within tolerance
STRONG = ("certified", "accurate_infeasible", "accurate_unbounded")
MAX_ANSWERS = 3  # solves tried before giving up (refusals do not count): each extra one costs a full solve


def _is_master(problem) -> bool:
    structure = getattr(problem, "structure", None)
    return bool(getattr(structure, "cutting_plane", None))


def certify(problem, sol):
    """The `Certificate` of ``sol`` for ``problem`` (full check with interval; cheap check for cutting-plane
    masters, see the module doc), remembered on ``sol.certification``."""
    from ..certificates import check

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
    return v.startswith(CONFIRMING), v, v


def confirmed(problem, sol) -> tuple[bool, str]:
    """(whether the certificate backs ``sol``, the verdict or the reason it does not)."""
    ok, _, why = assess(problem, sol)
    return ok, why


def is_strong(v: str) -> bool:
    return v.startswith(STRONG)


def honest_status(sol) -> None:
    """Make the status say no more than the certificate (module doc): 'optimal' only when certified, 'unconfirmed'
    for a returned point it does not prove; the solver's own termination is kept in ``info['solver_termination']``."""
    from .backends.common import STATUS

    cert = getattr(sol, "certification", None)
    if cert is None or cert.kind != "optimality" or sol.x is None:
        return
    term = sol.status.termination
    target = "optimal" if cert.verdict.startswith("certified") else "unconfirmed"
    if term != target and term in ("optimal", "inaccurate", "unconfirmed"):
        sol.info["solver_termination"] = term
        sol.status = STATUS[target]


def first_confirmed(problem, candidates: Iterable[tuple[str, Callable]], *,
                    skip: Callable[[BackendError], bool] = lambda exc: False, max_answers: int | None = None):
    """Run ``candidates`` (label, zero-argument solve) in order; return the first confirmed Solution.

    ``skip(exc)`` says which BackendErrors (a licence or size limit) move on to the next candidate; any other
    error propagates; when every candidate refused, one candidate's error is raised as it is, several are listed
    in one BackendError. At most ``max_answers`` solves that return an answer are tried (None: all).
    ``sol.info['fallback']`` lists every attempt as {solver, status, verdict} or {solver, error};
    ``sol.info['verdict']`` is the returned answer's verdict (`certiprog.certificates.check`'s word).
    """
    attempts, first, weak, answers, errors = [], None, None, 0, []
    for label, solve in candidates:
        if max_answers is not None and answers >= max_answers:
            break
        try:
            sol = solve()
        except BackendError as exc:
            if not skip(exc):
                raise
            attempts.append({"solver": label, "error": str(exc)})
            errors.append(exc)
            continue
        answers += 1
        ok, v, why = assess(problem, sol)
        attempts.append({"solver": label, "status": str(sol.status), "verdict": why})
        if first is None:
            first = (sol, v, label)
        if ok and (is_strong(v) or _is_master(problem) and v.startswith("accurate")):
            return _chosen(sol, v, label, attempts, master=_is_master(problem))
        if ok and v == "accurate" and _unprovable(sol):  # another solver's answer cannot be proved either
            return _chosen(sol, v, label, attempts, "this answer is accurate but not certified: the certificate "
                                                    "cannot prove this program's optimum (an infinite interval end; "
                                                    "see sol.certification.interval_notes), so no other solver "
                                                    "was tried; status 'unconfirmed'")
        if ok and (weak is None or _rank(v) < _rank(weak[1])):
            weak = (sol, v, label)
    if first is None:
        if errors and all(isinstance(e, OptionError) for e in errors):  # bad input: no candidate takes the options
            if len(errors) == 1:
                raise errors[0]
            raise OptionError("no solver certiprog would use accepts these options: "
                              + "; ".join(f"{a['solver']}: {a['error']}" for a in attempts))
        if len(errors) == 1:  # one candidate: its own error, as if it had been named
            raise errors[0]
        raise BackendError("no solver could take the problem: "
                           + "; ".join(f"{a['solver']}: {a['error']}" for a in attempts))
    if weak is not None:  # the best evidence there is: an answer the certificate backs but does not prove
        sol, v, label = weak
        return _chosen(sol, v, label, attempts, f"no solver's answer was certified; this one is {v}: "
                                                f"status 'unconfirmed' (see sol.certification)",
                       master=_is_master(problem))
    sol, v, label = first
    return _chosen(sol, v, label, attempts, "no solver's answer could be confirmed by the certificate; "
                                            "this is the first one, unconfirmed", master=_is_master(problem))


def _unprovable(sol) -> bool:
    """Whether an end of the answer's interval is infinite: the certificate found no finite bound for this program
    (unbounded columns, rank-deficient equalities, no feasible point), which no other solver's point changes."""
    cert = getattr(sol, "certification", None)
    interval = getattr(cert, "interval", None)
    return interval is not None and not all(abs(float(e)) < float("inf") for e in interval)


def _rank(v: str) -> int:
    """Weak answers by strength: accurate before inaccurate."""
    return 0 if v.startswith("accurate") else 1


def _chosen(sol, v: str, label: str, attempts: list, note: str | None = None, master: bool = False):
    sol.info["fallback"] = {"chosen": label, "attempts": attempts, **({"note": note} if note else {})}
    sol.info["verdict"] = v
    if not master:  # a cutting-plane master's status is the driver's to judge (module doc)
        honest_status(sol)
    return sol


def refined(problem, sol, options: dict, run: Callable):
    """A weak answer whose interval is finite but too wide: the same solver once more with its declared tighter
    tolerances (`SolverCapabilities.refine`), through ``run(backend, solver, problem, options)``; kept when the
    certificate then certifies it, else ``sol`` as it was, with the extra attempt recorded."""
    from .registry import get_backend

    v = str(sol.info.get("verdict", ""))
    if sol.x is None or is_strong(v) or _is_master(problem) or _unprovable(sol) or sol.certification is None:
        return sol
    try:
        caps = get_backend(sol.backend).capabilities_of(sol.solver)
    except BackendError:  # the structured solver: no backend of that name
        return sol
    extra = caps.refine if caps is not None else None
    if not extra or any(k in options for k in extra):  # the caller set these tolerances: respect them
        return sol
    attempts = list(sol.info.get("fallback", {}).get("attempts", []))
    label = f"{sol.backend}/{sol.solver} (tighter: {extra})"
    try:
        sol2 = run(sol.backend, sol.solver, problem, {**options, **extra})
    except BackendError as exc:
        sol.info["fallback"]["attempts"] = attempts + [{"solver": label, "error": str(exc)}]
        return sol
    ok, v2, why = assess(problem, sol2)
    attempts.append({"solver": label, "status": str(sol2.status), "verdict": why})
    if ok and is_strong(v2):
        return _chosen(sol2, v2, label, attempts)
    sol.info["fallback"]["attempts"] = attempts
    return sol
