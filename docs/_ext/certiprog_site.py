"""Sphinx extension of certiprog's site: what the pages need that is made at build time, not committed.

* ``api/<module>.rst``: one page per public module (``certiprog``, ``.certify``, ``.audit``, ``.solvers``,
  ``.formulations``, ``.estimators``) listing every name of its ``__all__``, each with a page autosummary generates
  from the docstring (a public name, method or property whose page would be empty fails the build).
* ``tutorials/notebooks/``: a copy of every notebook of ``notebooks/`` (myst-nb executes them when it reads them).
  A notebook that declares shared data it cannot find fails the build with the file's name.
* ``papers/generated/NNN-modules.md``: the paper package's modules, each with its docstring's first paragraph.
* ``papers/generated/NNN.md``: the figures of the paper's quick reproductions, committed under
  ``papers/figures/NAME/`` by ``docs/make_figures.py`` with their provenance (command, commit, date, wall time);
  a figure that is missing fails the build.
"""
from __future__ import annotations

import filecmp
import json
import re
import shutil
from pathlib import Path

from sphinx.errors import ExtensionError
from sphinx.util import logging

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
logger = logging.getLogger(__name__)


def copy_notebooks() -> list[Path]:
    """Copy ``notebooks/*.ipynb`` into ``docs/tutorials/notebooks`` (unchanged files are left alone)."""
    import nbformat

    from certiprog.datasets.loaders import data_root

    target = DOCS / "tutorials" / "notebooks"
    target.mkdir(parents=True, exist_ok=True)
    sources = sorted((ROOT / "notebooks").glob("*.ipynb"))
    for stale in set(p.name for p in target.glob("*.ipynb")) - set(p.name for p in sources):
        (target / stale).unlink()
    for src in sources:
        missing = [f for f in nbformat.read(src, as_version=4).metadata.get("certiprog", {}).get("data", [])
                   if not (data_root() / f).is_file()]
        if missing:
            raise ExtensionError(f"notebooks/{src.name} needs {missing[0]} under {data_root()} (the shared data "
                                 f"folder or $CERTIPROG_DATA); the tutorials are executed when the site is built")
        dst = target / src.name
        if not dst.exists() or not filecmp.cmp(src, dst, shallow=False):
            shutil.copyfile(src, dst)
    return sources


def _fragment(paper_id: str, names: list[str]) -> str:
    """The paper page's figures: every PNG that ``docs/make_figures.py`` committed for the paper's experiments."""
    lines = []
    for name in names:
        folder = DOCS / "papers" / "figures" / name
        record = folder / "provenance.json"
        if not record.is_file():
            raise ExtensionError(f"docs/papers/figures/{name}/provenance.json is missing: run "
                                 f"python docs/make_figures.py {name}")
        prov = json.loads(record.read_text())
        missing = [f for f in prov["files"] if not (folder / f).is_file()]
        if missing:
            raise ExtensionError(f"docs/papers/figures/{name}/{missing[0]} is missing: run "
                                 f"python docs/make_figures.py {name}")
        lines += [f"### `{prov['command']}`", "",
                  f"Made by `python docs/make_figures.py {name}` on {prov['date']} at commit {prov['commit']} "
                  f"({prov['wall_s']:.0f} s wall, 2-core machine shared with other work).", ""]
        for image in prov["files"]:
            lines += [f"```{{figure}} /papers/figures/{name}/{image}", ":width: 90%", "",
                      f"`{image}` (quick run)", "```", ""]
    return "\n".join(lines)


def write_figure_fragments() -> None:
    """``papers/generated/NNN.md`` for every paper (rewritten only when changed)."""
    from certiprog.papers import papers

    for paper_id, paper in papers().items():
        text = _fragment(paper_id, [e.name for e in paper.experiments])
        fragment = DOCS / "papers" / "generated" / f"{paper_id}.md"
        fragment.parent.mkdir(parents=True, exist_ok=True)
        if not fragment.exists() or fragment.read_text() != text:
            fragment.write_text(text)


def module_table(paper_id: str) -> str:
    """A Markdown table of the paper package's modules, each with the first line of its docstring."""
    import ast

    from certiprog.papers import paper

    package = paper(paper_id).package
    folder = ROOT / Path(*package.split("."))
    rows = ["| module | what it holds |", "|---|---|"]
    for path in sorted(folder.glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        first = " ".join(doc.strip().split("\n\n")[0].split()).replace("|", "\\|")
        rows.append(f"| `{package}.{path.stem}` | {first} |")
    return "\n".join(rows) + "\n"


def write_module_tables() -> None:
    """``papers/generated/NNN-modules.md`` for every paper (rewritten only when changed)."""
    from certiprog.papers import papers

    for paper_id in papers():
        target = DOCS / "papers" / "generated" / f"{paper_id}-modules.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        text = module_table(paper_id)
        if not target.exists() or target.read_text() != text:
            target.write_text(text)


# --------------------------------------------------------------------------- API reference pages
#: the public modules, their page's title and introduction; every name in each ``__all__`` gets a generated page
API_MODULES = {
    "certiprog": ("certiprog: modelling, solutions, errors",
                  "The modelling layer (variables, parameters, expressions, atoms, cones, constraints, ``ForAll``, "
                  "``Model``), the solution and its status, and the errors every public function raises."),
    "certiprog.certify": ("certiprog.certify: proofs about an answer",
                          "Judging a solver's answer from certiprog's own data: the KKT measures, a rigorous "
                          "optimality interval, dual recovery and the verdict (the user guide's page on "
                          "certificates says what each verdict promises; the derivation of the interval is its own "
                          "page). ``certiprog.certificates``, its old name, still imports with a deprecation "
                          "warning."),
    "certiprog.audit": ("certiprog.audit: the paper audit",
                        "The claims registry of every paper's formulas, steps and bounds, each checked "
                        "independently (``certiprog audit NNN``); the bounds (``certiprog.audit.bounds``) and the "
                        "symbolic checks (``certiprog.audit.symbolic``) are its modules."),
    "certiprog.solvers": ("certiprog.solvers: backends and the solver choice",
                          "Compiling a Model to conic form, the backends' declared capabilities, and the one place "
                          "where certiprog chooses a solver."),
    "certiprog.formulations": ("certiprog.formulations: the papers' programs",
                               "Each paper's programs as certiprog Models, and the solvers and cutting-plane "
                               "algorithms that go with them (each paper's page lists its package's modules)."),
    "certiprog.estimators": ("certiprog.estimators: scikit-learn classifiers",
                             "Every paper's scikit-learn estimators, re-exported from the paper packages. "
                             "``LHMNetClassifier`` needs the ``nn`` extra (JAX and optax) to fit."),
}


def home_module(obj, exporters: list[str]) -> str:
    """Where an object exported by several public modules is documented: the one whose name is the longest prefix
    of the module that defines it (``check``, defined in certiprog.certify.kkt, lives in
    certiprog.certify even though ``certiprog`` re-exports it), else the first that exports it."""
    defined = getattr(obj, "__module__", None) or ""
    prefixes = [m for m in exporters if defined == m or defined.startswith(m + ".")]
    return max(prefixes, key=len) if prefixes else exporters[0]


def api_groups(module: str) -> tuple[list[tuple[str, list[str]]], list[tuple[str, str]]]:
    """The names of the module's ``__all__`` documented on its page, in groups (classes, functions, exceptions,
    constants), and those documented on another module's page (the same object: listed, not documented twice)."""
    import importlib
    import inspect

    exporters: dict[int, list[str]] = {}
    for other in API_MODULES:
        mod = importlib.import_module(other)
        for n in mod.__all__:
            obj = getattr(mod, n)
            if not isinstance(obj, (int, float, str)):
                exporters.setdefault(id(obj), []).append(other)
    mod = importlib.import_module(module)
    groups = {"Classes": [], "Functions": [], "Exceptions": [], "Constants": []}
    elsewhere = []
    for name in sorted(mod.__all__, key=lambda n: (n.lower(), n)):
        obj = getattr(mod, name)
        home = home_module(obj, exporters.get(id(obj), [module]))
        if home != module:
            elsewhere.append((name, f"{home}.{name}"))
        elif inspect.isclass(obj):
            groups["Exceptions" if issubclass(obj, BaseException) else "Classes"].append(name)
        elif callable(obj):
            groups["Functions"].append(name)
        else:
            groups["Constants"].append(name)
    return [(k, v) for k, v in groups.items() if v], elsewhere


def api_page(module: str) -> str:
    """The reST of one module's API page: an autosummary table per group, each name with its generated page."""
    title, intro = API_MODULES[module]
    groups, elsewhere = api_groups(module)
    lines = [title, "=" * len(title), "", f".. module:: {module}", "", intro, ""]
    if elsewhere:
        refs = ", ".join(f":obj:`{name} <{target}>`" for name, target in elsewhere)
        lines += [f"``{module}`` also exports {refs}: the same objects, documented there.", ""]
    for head, names in groups:
        lines += [head, "-" * len(head), "", ".. autosummary::", "   :toctree: generated", ""]
        lines += [f"   {n}" for n in names] + [""]
    return "\n".join(lines)


def write_api_pages() -> None:
    """``api/<module>.rst`` for the public modules (rewritten only when changed)."""
    listed = set()
    for module in API_MODULES:
        target = DOCS / "api" / ((module.split(".", 1)[1] if "." in module else module) + ".rst")
        text = api_page(module)
        listed |= {f"{module}.{n}.rst" for n in re.findall(r"^   (\w+)$", text, re.M)}
        if not target.exists() or target.read_text() != text:
            target.write_text(text)
    for stub in (DOCS / "api" / "generated").glob("*.rst"):  # pages of names no longer exported (or moved)
        if stub.name not in listed:
            stub.unlink()


def _builder_inited(app) -> None:
    write_api_pages()
    copy_notebooks()
    write_module_tables()
    write_figure_fragments()


def _require_docstring(app, what, name, obj, options, lines) -> None:
    """A public class, function, method or property that the reference would show empty fails the build.

    ``lines`` is the docstring autodoc renders, so a method that overrides a documented one of its base class
    (``autodoc_inherit_docstrings``) passes; dataclass fields and constants are described by their class.
    """
    if what not in ("class", "exception", "function", "method", "property"):
        return
    if any(part.startswith("_") for part in name.split(".")):
        return
    if not any(line.strip() for line in lines):
        logger.warning(f"{name} has no docstring: the API reference would show it empty",
                       type="certiprog", subtype="docstring")


def _skip_member(app, what, name, obj, skip, options):
    """scikit-learn's generated ``set_*_request`` methods (metadata routing) are not certiprog's API."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


#: abbreviations the papers' docstrings use, which end no sentence ("004 eq. (3): the MPM ..."): autosummary's
#: one-line summaries otherwise stop at them
PAPER_ABBREVIATIONS = ("eq.", "eqs.", "Eq.", "Sec.", "Secs.", "Alg.", "Algs.", "Cor.", "Thm.", "Fig.", "Figs.",
                       "Prop.", "Lem.", "App.", "resp.", "approx.", "cf.", "no.")


def setup(app):
    from sphinx.ext import autosummary

    autosummary.WELL_KNOWN_ABBREVIATIONS = tuple(autosummary.WELL_KNOWN_ABBREVIATIONS) + PAPER_ABBREVIATIONS
    app.connect("builder-inited", _builder_inited, priority=100)  # before autosummary writes its stubs
    app.connect("autodoc-skip-member", _skip_member)
    app.connect("autodoc-process-docstring", _require_docstring)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
