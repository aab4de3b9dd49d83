"""The paper audit: every formula, step, constant, lemma, theorem or bound a paper states, checked one by one.

Beside `certiprog.certify` (which judges a solver's answer), not part of the solve loop. The modules:

* `registry` - the one registry of entries and its id scheme ``"<paper>-<label>[.<variant>]"``: `claim`
  registers a check, which returns `verified`, `refuted` (with a counterexample or the corrected form) or
  `not_checkable` (with the reason);
* `bounds` - a paper's concentration / generalisation bound as a SymPy expression with its assumptions and a
  Monte Carlo coverage test (`certiprog.audit.bounds.Bound`, registered by `certiprog.audit.bounds.register`);
* `symbolic` - identities by SymPy simplification plus exact spot checks, and the Lagrange dual of a small Model;
* `claimkit` - small helpers the papers' claim checks share;
* `report` - `audit` runs the entries of a paper (``certiprog audit NNN``), `table` and `write_reports` report them.

The papers' entries live in their packages (``certiprog/formulations/<paper>/claims.py`` and ``bounds.py``),
found through `certiprog.papers`.
"""
from .registry import REGISTRY, STATUSES, Claim, Result, claim, not_checkable, not_checkable_rows, refuted, verified
from .report import audit, load, table, write_reports

__all__ = ["Claim", "REGISTRY", "Result", "STATUSES", "audit", "claim", "load", "not_checkable",
           "not_checkable_rows", "refuted", "table", "verified", "write_reports"]
