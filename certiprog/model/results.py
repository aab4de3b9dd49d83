"""`Record`: the base of certiprog's typed results (what ``Model.derived`` and the papers' algorithms return).

The contract: a builder returns a `Model` whose ``model.data`` is a typed, documented object holding the
formulation's inputs and derived matrices and offering ``derive(solution)``; ``model.derived(solution)`` returns
that method's typed result. An algorithm returns a typed result with its solution(s), history and certificate.
Results are dataclasses deriving from `Record`: their attributes are the interface; their fields can also be read
as ``r["name"]``, ``dict(r)`` or ``r.as_dict()`` (a read-only mapping view, for tables and for code written
against plain dicts). Nothing carries results in an untyped ``info`` dict.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

__all__ = ["Record"]


class Record(Mapping):
    """Base of typed results (subclasses are dataclasses): the public fields, readable by name and as a mapping."""

    __slots__ = ()
    __dataclass_fields__: ClassVar[dict[str, Any]]  # set on every subclass by @dataclass (for type checkers)

    def _names(self) -> tuple:
        return tuple(f.name for f in dataclasses.fields(self) if not f.name.startswith("_"))

    def __getitem__(self, key):
        if isinstance(key, str) and key in self._names():
            return getattr(self, key)
        raise KeyError(f"{type(self).__name__} has no field {key!r}; fields: {list(self._names())}")

    def __iter__(self):
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def as_dict(self) -> dict:
        """The public fields as a plain dict (values as they are: arrays stay arrays)."""
        return {k: getattr(self, k) for k in self._names()}

    # identity, not field-wise comparison (fields hold numpy arrays)
    __eq__ = object.__eq__
    __hash__ = object.__hash__
