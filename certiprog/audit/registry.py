"""The audit registry: one entry per formula, step, constant, lemma, theorem or bound a paper states.

Each entry's ``check()`` re-derives or tests the statement independently and returns a `Result`:
``verified``, ``refuted`` (with a concrete counterexample or the corrected form) or ``not checkable``
(with the reason). Paper modules register entries with `@claim`, bounds with
`certiprog.audit.bounds.register`, and data-like rows (a fixed reason, no computation) with
`not_checkable_rows`.

**One id scheme for claims and bounds**: ``"<paper>-<label>[.<variant>]"``

* ``<paper>`` is the paper's three-digit id ("000" .. "004");
* ``<label>`` is the row of the paper's claims inventory (``docs/derivations/<paper>.md``), named after
  where the paper states it: ``"004-E6a"`` (eq. (6), mean), ``"000-L3"`` (Lemma 3), ``"002-C46"``;
* ``.<variant>`` names a bound that is a re-derived or corrected variant of a row and has no row of its
  own: ``"004-E6a.mcdiarmid"``, ``"004-C1d.joint"``.

A bound that states the same formula as an inventory row IS that row's entry: the entry carries the
`Bound` object (``entry.bound``) next to the claim's own check (``entry.fn``), and `Claim.check` runs
both (the bound's audit: its expression evaluates, its assumptions are stated and hold at its example
values, and its Monte Carlo coverage test, if any, passes). A bound variant without a row is an entry
with ``fn=None``. So ``REGISTRY`` holds every claim and every bound under one id, and
`certiprog audit` checks all of them.
"""
from __future__ import annotations

import re
import time
import traceback
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable

from ..errors import InputError

STATUSES = ("verified", "refuted", "not checkable")
KINDS = ("formula", "closed_form", "dual", "step", "constant", "lemma", "theorem", "corollary",
         "proposition", "algorithm", "bound", "claim")
ID_PATTERN = re.compile(r"^(\d{3})-\S+$")


@dataclass
class Result:
    """The outcome of one entry's check: ``status`` (one of `STATUSES`), a one-paragraph ``detail``, a concrete
    ``counterexample`` or the ``corrected`` form when refuted, and the wall time in ``seconds``."""

    status: str
    detail: str
    counterexample: dict | None = None
    corrected: str | None = None
    seconds: float = 0.0

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}; got {self.status!r}")

    def to_json(self) -> dict:
        """The result as JSON-ready values (the counterexample's keys and values as strings)."""
        ce = None if self.counterexample is None else {str(k): str(v) for k, v in self.counterexample.items()}
        return {"status": self.status, "detail": self.detail, "counterexample": ce, "corrected": self.corrected,
                "seconds": round(self.seconds, 4)}


def _run(fn) -> Result:
    try:
        return fn()
    except Exception as exc:  # a crashing check is reported, never hidden
        return Result("not checkable", f"the check raised {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}")


def _combine(own: Result, bound: Result) -> Result:
    """The claim's own verdict, unless the bound object's audit failed (then that failure decides)."""
    if bound.status == "verified":
        return Result(own.status, f"{own.detail} Bound object: {bound.detail}", own.counterexample, own.corrected)
    return Result(bound.status, f"bound object: {bound.detail} (the claim's own check: {own.status}: {own.detail})",
                  bound.counterexample or own.counterexample, bound.corrected or own.corrected)


@dataclass
class Claim:
    """One registry entry. ``fn``: the claim's own check (None for a bound variant without an inventory row);
    ``bound``: the `Bound` object stating the same formula (None for a claim that is not a bound)."""

    id: str  # "<paper>-<label>[.<variant>]", see the module docstring
    paper: str  # "000" .. "004"
    where: str  # section / equation in the paper
    statement: str  # the statement as the paper makes it, in clean math
    kind: str
    fn: Callable[[], Result] | None
    relied_on: bool = False  # whether certiprog's code uses this statement
    tags: tuple = field(default_factory=tuple)
    bound: Any = None

    def check(self) -> Result:
        """Run the entry: its own check and its bound's audit (the bound's failure decides), timed; a check that
        raises is reported as such, never hidden."""
        t0 = time.perf_counter()
        own = None if self.fn is None else _run(self.fn)
        audited = None if self.bound is None else _run(self.bound.audit)
        res = _combine(own, audited) if own is not None and audited is not None else (own or audited)
        if res is None:  # an entry with neither a check nor a bound object (was an AttributeError here)
            res = not_checkable("nothing to run: the entry has neither its own check nor a bound object")
        res.seconds = time.perf_counter() - t0
        return res


REGISTRY: dict[str, Claim] = {}


def _check_id(id: str, paper: str) -> None:
    m = ID_PATTERN.match(id)
    if m is None or m.group(1) != paper:
        raise ValueError(f"id {id!r} must read '{paper}-<label>[.<variant>]' (see certiprog.audit.registry)")


def register(entry: Claim) -> Claim:
    """Add one entry; a bound-only entry (``fn=None``) is merged into by a later `@claim` with the same id."""
    _check_id(entry.id, entry.paper)
    if entry.kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {entry.kind!r}")
    old = REGISTRY.get(entry.id)
    if old is not None and not (old.fn is None and entry.fn is not None and entry.bound is old.bound):
        raise ValueError(f"duplicate registry id {entry.id!r}")
    REGISTRY[entry.id] = entry
    return entry


def unregister(id: str) -> Claim:
    """Remove an entry (for temporary registrations in tests); returns it."""
    try:
        return REGISTRY.pop(id)
    except KeyError:
        raise InputError(f"no registry entry {id!r}") from None


def claim(id: str, paper: str, where: str, statement: str, kind: str = "formula", relied_on: bool = False,
          tags: tuple = (), bound=None):
    """Decorator registering ``fn() -> Result`` as the check of one claim.

    ``bound``: the registered `Bound` stating the same formula (its id must be ``id``); the entry then runs
    both the claim's check and the bound's audit.
    """
    if bound is not None and bound.id != id:
        raise ValueError(f"claim {id!r} names bound {bound.id!r}: a claim and its bound share one id")

    def deco(fn):
        register(Claim(id, paper, where, statement, kind, fn, relied_on, tuple(tags), bound))
        return fn

    return deco


def not_checkable_rows(paper: str, rows) -> None:
    """Register data-like rows ``(id, where, kind, statement, reason)`` whose check is a fixed reason.

    For statements with nothing to compute (design choices, citations, empirical results on data that is not
    available): a table, not one function per row.
    """
    for id, where, kind, statement, reason in rows:
        register(Claim(id, paper, where, statement, kind, partial(not_checkable, reason)))


def verified(detail: str, **kw) -> Result:
    return Result("verified", detail, **kw)


def refuted(detail: str, counterexample: dict | None = None, corrected: str | None = None) -> Result:
    return Result("refuted", detail, counterexample=counterexample, corrected=corrected)


def not_checkable(reason: str) -> Result:
    return Result("not checkable", reason)
