"""The claims registry: one entry per formula, step, constant, lemma or theorem a paper states.

Each entry's ``check()`` re-derives or tests the statement independently and returns a
`Result`: ``verified``, ``refuted`` (with a concrete counterexample or the corrected form)
or ``not checkable`` (with the reason). Paper modules register entries with `@claim`.
"""
from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from typing import Callable

STATUSES = ("verified", "refuted", "not checkable")
KINDS = ("formula", "closed_form", "dual", "step", "constant", "lemma", "theorem", "corollary",
         "proposition", "algorithm", "bound", "claim")


@dataclass
class Result:
    status: str
    detail: str
    counterexample: dict | None = None
    corrected: str | None = None
    seconds: float = 0.0

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}; got {self.status!r}")

    def to_json(self) -> dict:
        ce = None if self.counterexample is None else {str(k): str(v) for k, v in self.counterexample.items()}
        return {"status": self.status, "detail": self.detail, "counterexample": ce, "corrected": self.corrected,
                "seconds": round(self.seconds, 4)}


@dataclass
class Claim:
    id: str  # e.g. "004-eq5"
    paper: str  # "000" .. "004"
    where: str  # section / equation in the paper
    statement: str  # the statement as the paper makes it, in clean math
    kind: str
    fn: Callable[[], Result]
    relied_on: bool = False  # whether certiprog's code uses this statement
    tags: tuple = field(default_factory=tuple)

    def check(self) -> Result:
        t0 = time.perf_counter()
        try:
            res = self.fn()
        except Exception as exc:  # a crashing check is reported, never hidden
            res = Result("not checkable", f"the check raised {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}")
        res.seconds = time.perf_counter() - t0
        return res


REGISTRY: dict[str, Claim] = {}


def claim(id: str, paper: str, where: str, statement: str, kind: str = "formula", relied_on: bool = False,
          tags: tuple = ()):
    """Decorator registering ``fn() -> Result`` as the check of one claim."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {kind!r}")

    def deco(fn):
        if id in REGISTRY:
            raise ValueError(f"duplicate claim id {id!r}")
        REGISTRY[id] = Claim(id, paper, where, statement, kind, fn, relied_on, tuple(tags))
        return fn

    return deco


def verified(detail: str, **kw) -> Result:
    return Result("verified", detail, **kw)


def refuted(detail: str, counterexample: dict | None = None, corrected: str | None = None) -> Result:
    return Result("refuted", detail, counterexample=counterexample, corrected=corrected)


def not_checkable(reason: str) -> Result:
    return Result("not checkable", reason)
