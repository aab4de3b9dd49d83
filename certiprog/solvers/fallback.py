"""Never trust a solver's status where certiprog chose the solver: confirm each answer, else try the next one.

`confirmed(problem, sol)` asks the certificate layer whether an answer is backed by evidence: a primal point
whose KKT check does not fail, or an infeasibility / unboundedness ray that verifies. `first_confirmed` runs
candidate solves in order and returns the first answer the check calls certified or accurate, recording every
attempt in ``sol.info['fallback']``. An `inaccurate` answer is evidence, but weak: the next candidate is tried,
and the inaccurate one is returned only if no candidate does better. When no candidate is confirmed at all it
returns the first answer it got, saying so.
The check is the cheap one (`certiprog.certificates.check` with ``interval=False``) on the conic problem the
solver was given: for a cutting-plane master, the master itself, not the semi-infinite program.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Iterable

from ..errors import BackendError

CONFIRMING = ("certified", "accurate", "inaccurate")  # verdict prefixes that count as evidence
STRONG = ("certified", "accurate")  # evidence that stops the search (an inaccurate answer makes it go on)
MAX_ANSWERS = 3  # solves tried before giving up (refusals do not count): each extra one costs a full solve


def verdict(problem, sol) -> str:
    """The certificate's verdict on ``sol`` for ``problem`` (KKT or ray check, no optimality interval)."""
    from ..certificates import check

    if getattr(problem, "structure", None) is not None:  # masters: skip the ForAll oracles (see module doc)
        problem = dataclasses.replace(problem, structure=None)
    return check(problem, sol, interval=False).verdict


def assess(problem, sol) -> tuple[bool, str, str]:
    """(whether the certificate backs ``sol``, the verdict, the verdict or the reason it does not back it)."""
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
        if ok and v.startswith(STRONG):
            sol.info["fallback"] = {"chosen": label, "attempts": attempts}
            sol.info["verdict"] = v
            return sol
        if ok and weak is None:
            weak = (sol, v, label)
    if first is None:
        if len(errors) == 1:  # one candidate: its own error, as if it had been named
            raise errors[0]
        raise BackendError("no solver could take the problem: "
                           + "; ".join(f"{a['solver']}: {a['error']}" for a in attempts))
    if weak is not None:  # the best evidence there is: the first inaccurate-but-confirmed answer
        sol, v, label = weak
        sol.info["fallback"] = {"chosen": label, "attempts": attempts,
                                "note": "no solver's answer was certified or accurate; this one is inaccurate"}
        sol.info["verdict"] = v
        return sol
    sol, v, label = first
    sol.info["fallback"] = {"chosen": label, "attempts": attempts,
                            "note": "no solver's answer could be confirmed by the certificate; "
                                    "this is the first one, unconfirmed"}
    sol.info["verdict"] = v
    return sol
