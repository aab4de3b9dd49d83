"""Never trust a solver's status where certiprog chose the solver: confirm each answer, else try the next one.

`confirmed(problem, sol)` asks the certificate layer whether an answer is backed by evidence: a primal point
whose KKT check does not fail, or an infeasibility / unboundedness ray that verifies. `first_confirmed` runs
candidate solves in order and returns the first confirmed answer, recording every attempt in
``sol.info['fallback']``; when no candidate is confirmed it returns the first answer it got, saying so.
"""
from __future__ import annotations

from typing import Callable, Iterable

from ..errors import BackendError

CONFIRMING = ("certified", "inaccurate")  # verdict prefixes that count as evidence


def confirmed(problem, sol) -> tuple[bool, str]:
    """(whether the certificate backs ``sol``, the verdict or the reason it does not)."""
    from ..certificates import check

    term = sol.status.termination
    if not sol.status.ok and sol.certificate is None:
        return False, f"{term} without a certificate (no verified ray)"
    if term == "infeasible_or_unbounded":
        return False, term
    verdict = check(problem, sol, interval=False).verdict
    return verdict.startswith(CONFIRMING), verdict


def first_confirmed(problem, candidates: Iterable[tuple[str, Callable]], *,
                    skip: Callable[[BackendError], bool] = lambda exc: False):
    """Run ``candidates`` (label, zero-argument solve) in order; return the first confirmed Solution.

    ``skip(exc)`` says which BackendErrors (a licence or size limit) move on to the next candidate; any other
    error propagates. ``sol.info['fallback']`` lists every attempt as {label, status, verdict or error}.
    """
    attempts, first = [], None
    for label, solve in candidates:
        try:
            sol = solve()
        except BackendError as exc:
            if not skip(exc):
                raise
            attempts.append({"solver": label, "error": str(exc)})
            continue
        ok, why = confirmed(problem, sol)
        attempts.append({"solver": label, "status": str(sol.status), "verdict": why})
        first = first or sol
        if ok:
            sol.info["fallback"] = {"chosen": label, "attempts": attempts}
            return sol
    if first is None:
        raise BackendError("no solver could take the problem: "
                           + "; ".join(f"{a['solver']}: {a['error']}" for a in attempts))
    first.info["fallback"] = {"chosen": first.solver, "attempts": attempts,
                              "note": "no solver's answer could be confirmed by the certificate; "
                                      "this is the first one, unconfirmed"}
    return first
