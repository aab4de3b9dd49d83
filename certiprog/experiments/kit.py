"""The paper kit: what every ``certiprog reproduce NAME`` shares, so a paper's experiment holds only its science.

An experiment is a `PaperExperiment` subclass (the base of the experiment's code; `certiprog.papers.Experiment` is
the registry entry that names it for ``certiprog reproduce``) with

* ``config_class``: a dataclass (``Config``) whose fields define a run (stored in ``results.json``); a field made
  with `option` is also a command-line option (``--field-name`` unless ``flag`` says otherwise), so the options and
  the configuration cannot drift apart. Every experiment gets ``--quick``: the class's ``quick`` dict fills whatever
  was not given.
* ``check(cfg)``: the experiment's own validation (InputError naming the option and the fix);
* ``tasks(cfg)`` and ``aggregate(cfg, results, out, meta)`` of the runner's protocol
  (`certiprog.experiments.runner`).

The base gives the rest: ``add_arguments`` / ``config_from_args`` generated from ``Config``, ``default_out``
(``results/NAME``; the runner appends ``-quick`` for a quick run), `output_folder`, and the writers every
experiment uses: `write_json` (through the runner's `encode`, the one JSON encoder), `write_csv`, and `row` /
`markdown_table` for the Markdown tables printed beside the paper's numbers.

The experiment module keeps its module-level names (``add_arguments = EXPERIMENT.add_arguments`` ...) so existing
callers and ``certiprog reproduce`` (which also accepts the ``EXPERIMENT`` object) work unchanged.
"""
from __future__ import annotations

import csv
import dataclasses
import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

from ..errors import InputError
from .runner import encode

__all__ = ["Option", "PaperExperiment", "markdown_table", "option", "output_folder", "row", "rule", "write_csv",
           "write_json"]

_KEY = "certiprog.kit"  # the metadata key of an option on a dataclass field


@dataclasses.dataclass(frozen=True)
class Option:
    """How one ``Config`` field reads from the command line.

    Parameters
    ----------
    help : the option's help text.
    flag : the option string (default ``--`` + the field name with ``-`` for ``_``).
    type : converts one command-line word (``int``, ``float``, ``str``; default: the type of the field's default
        when it is a number or a string).
    nargs : argparse's ``nargs`` (``"+"`` for a list of words, stored as a tuple).
    choices : the allowed words.
    parse : converts the whole given value (e.g. `certiprog.experiments.runner.number_list` for ``"0.1,0.3"``).
    metavar : argparse's metavar.
    negate : a ``--no-X`` switch that sets the field to False.
    switch : a ``--X`` switch that sets the field to True.
    """

    help: str
    flag: str | None = None
    type: Callable | None = None
    nargs: str | int | None = None
    choices: tuple | None = None
    parse: Callable | None = None
    metavar: str | None = None
    negate: bool = False
    switch: bool = False

    def convert(self, value):
        """The field's value from what argparse gave (``nargs`` lists become tuples)."""
        if self.parse is not None:
            return self.parse(value)
        if isinstance(value, list):
            return tuple(value)
        return value


def option(default: Any = dataclasses.MISSING, *, help: str, flag: str | None = None, type: Callable | None = None,
           nargs: str | int | None = None, choices: Iterable | None = None, parse: Callable | None = None,
           metavar: str | None = None, negate: bool = False, switch: bool = False) -> Any:
    """A dataclass field that is also a command-line option (see `Option`); ``default`` as in `dataclasses.field`
    (a list default is stored as a tuple, so the field stays hashable and JSON-ready)."""
    if isinstance(default, list):
        default = tuple(default)
    opt = Option(help=help, flag=flag, type=type, nargs=nargs, choices=None if choices is None else tuple(choices),
                 parse=parse, metavar=metavar, negate=negate, switch=switch)
    return dataclasses.field(default=default, metadata={_KEY: opt})


def options(config_class) -> list[tuple[dataclasses.Field, Option]]:
    """The (field, `Option`) pairs of a ``Config`` dataclass, in field order."""
    return [(f, f.metadata[_KEY]) for f in dataclasses.fields(config_class) if _KEY in f.metadata]


def _flag(f: dataclasses.Field, opt: Option) -> str:
    if opt.flag:
        return opt.flag
    name = f.name.replace("_", "-")
    return f"--no-{name}" if opt.negate else f"--{name}"


class PaperExperiment:
    """Base of every paper's experiment (see the module docstring).

    Attributes
    ----------
    name : the ``certiprog reproduce`` name (e.g. ``"me2"``).
    config_class : the configuration dataclass (``Config``); it must have a ``quick: bool`` field.
    quick : field values of a ``--quick`` run (options given on the command line win).
    quick_help : the help text of ``--quick``.
    """

    name: ClassVar[str] = ""
    config_class: ClassVar[type]
    quick: ClassVar[dict] = {}
    quick_help: ClassVar[str] = "a small run with the same regimes"

    # -- the command line -------------------------------------------------------------------------------------
    def add_arguments(self, parser) -> None:
        """The experiment's options, generated from ``Config`` (the runner adds the shared ones)."""
        for f, opt in options(self.config_class):
            if f.name == "quick":
                continue
            kwargs: dict = dict(dest=f.name, default=None, help=opt.help)
            if opt.negate or opt.switch:
                kwargs.update(action="store_const", const=not opt.negate)
            else:
                kind = opt.type
                if kind is None and opt.parse is None and isinstance(f.default, (int, float, str)) \
                        and not isinstance(f.default, bool):
                    kind = type(f.default)
                metavar = opt.metavar or (opt.flag.lstrip("-").replace("-", "_").upper() if opt.flag else None)
                for key, value in (("type", kind), ("nargs", opt.nargs), ("choices", opt.choices),
                                   ("metavar", metavar)):
                    if value is not None:
                        kwargs[key] = value
            parser.add_argument(_flag(f, opt), **kwargs)
        parser.add_argument("--quick", action="store_true", help=self.quick_help)

    def given(self, args) -> dict:
        """The ``Config`` fields given on the command line (converted), without the quick or default values."""
        out = {}
        for f, opt in options(self.config_class):
            value = getattr(args, f.name, None)
            if value is not None and f.name != "quick":
                out[f.name] = opt.convert(value)
        return out

    def config_from_args(self, args):
        """A validated ``Config``: the options given, else (with ``--quick``) the ``quick`` values, else the
        defaults; then `complete` (values that depend on others) and `validate`."""
        quick = bool(getattr(args, "quick", False))
        values = dict(self.quick) if quick else {}
        values.update(self.given(args))
        cfg = self.complete(self.config_class(**values, quick=quick), args)
        self.validate(cfg)
        return cfg

    def complete(self, cfg, args):
        """Hook: fill what depends on other values or on the runner's options (default: ``cfg`` unchanged)."""
        return cfg

    # -- validation and output ----------------------------------------------------------------------------------
    def validate(self, cfg) -> None:
        """InputError for anything a run cannot use: the ``Config`` type, then the experiment's `check`."""
        if not isinstance(cfg, self.config_class):
            raise InputError(f"{self.name}: expected a {self.config_class.__qualname__}, got {type(cfg).__name__}")
        self.check(cfg)

    def check(self, cfg) -> None:
        """Hook: the experiment's own validation (InputError naming the option)."""

    def default_out(self, cfg) -> str:
        """``results/NAME`` (the runner appends ``-quick`` for a quick run)."""
        return f"results/{self.name}"

    def tasks(self, cfg) -> list:  # pragma: no cover - every experiment defines it
        raise NotImplementedError

    def aggregate(self, cfg, results: list, out, meta: dict, /) -> dict:  # pragma: no cover - idem
        raise NotImplementedError

    def run(self, args) -> dict:
        """``certiprog reproduce NAME`` through the shared runner; ``{name: path}``, the report first."""
        from .runner import reproduce

        return reproduce(self, args, self.name).paths

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"


# ----------------------------------------------------------------------------------------------------------------
# Writers
# ----------------------------------------------------------------------------------------------------------------
def output_folder(out) -> Path:
    """``out`` as a Path, created if needed."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    return out


def write_json(path, obj, indent: int = 1) -> Path:
    """``obj`` as JSON at ``path`` through the runner's `encode` (numpy values and arrays as plain JSON; NaN as
    null, +-inf as "inf" / "-inf"; any other object is an InputError, never a silent ``str``)."""
    path = Path(path)
    path.write_text(json.dumps(encode(obj, None, f"{path.name}"), indent=indent, allow_nan=False))
    return path


def write_csv(path, rows: Iterable[dict], fields: Sequence[str], extrasaction: Literal["raise", "ignore"] = "raise",
              blank_none: bool = False) -> Path:
    """``rows`` (dicts) as CSV with the header ``fields``; ``blank_none`` writes None as an empty cell."""
    path = Path(path)
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(fields), extrasaction=extrasaction)
        writer.writeheader()
        for r in rows:
            writer.writerow({k: ("" if v is None else v) for k, v in r.items()} if blank_none else r)
    return path


def row(*cells) -> str:
    """One Markdown table row: ``row("a", 1.5)`` -> ``"| a | 1.5 |"`` (cells as given, through ``str``)."""
    return "| " + " | ".join(str(c) for c in cells) + " |"


def rule(columns: int) -> str:
    """The Markdown line under a table's header: ``rule(3)`` -> ``"|---|---|---|"``."""
    return "|" + "---|" * columns


def markdown_table(header: Sequence, rows: Iterable[Sequence]) -> list[str]:
    """The lines of a Markdown table: the header, the `rule`, one `row` per entry of ``rows``."""
    return [row(*header), rule(len(header))] + [row(*r) for r in rows]
