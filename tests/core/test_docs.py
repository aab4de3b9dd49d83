"""The documentation site's sources: executable pages run, every public name and notebook has its page.

The strict Sphinx build itself runs in .ci/run (``certiprog docs``); the built site is looked at in a browser by
``test_docs_browser.py``.
"""
from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PUBLIC = ("certiprog", "certiprog.audit", "certiprog.certify", "certiprog.estimators", "certiprog.formulations",
          "certiprog.solvers")
EXECUTED_PAGES = ("getting-started.md", "guide/duals.md", "guide/from-cvxpy.md")


def code_cells(page: Path) -> list[str]:
    """The ``{code-cell}`` blocks of a MyST notebook page, in order."""
    return re.findall(r"^```\{code-cell\} python\n(.*?)^```", page.read_text(), re.S | re.M)


def run_page(page: Path, capsys) -> str:
    namespace: dict = {}
    for i, cell in enumerate(code_cells(page)):
        exec(compile(cell, f"{page.name}[cell {i}]", "exec"), namespace)
    return capsys.readouterr().out


def test_getting_started_runs_top_to_bottom(capsys):
    """Two backends agree and are certified; values, duals, the Parameter change and saving work as the page says."""
    out = run_page(DOCS / "getting-started.md", capsys)
    assert len(code_cells(DOCS / "getting-started.md")) >= 6
    lines = [ln for ln in out.splitlines() if ln.startswith(("clarabel ", "cvxpy "))]
    assert len(lines) == 3  # two backends, then certiprog's own choice after the Parameter changed
    assert all("optimal" in ln and ln.endswith("certified") for ln in lines[:2])
    objectives = {float(re.search(r"objective (\S+)", ln).group(1)) for ln in lines[:2]}
    assert len(objectives) == 1  # the same optimum to 9 decimals
    assert "worst-case false-positive rate: 0.1\n" in out  # the Chebyshev constraint is active
    assert "verdict: certified" in out
    lo, hi = map(float, re.search(r"optimum in \[(\S+), (\S+)\]", out).groups())
    assert lo <= objectives.pop() + 1e-8 and hi - lo < 1e-6 * abs(hi)
    assert "['hinge_minimax.json', 'hinge_minimax.npz']" in out and "optimal True True" in out


def test_duals_page_matches_the_hand_derivation(capsys):
    """The page derives budget = 3, pin = 1 by hand; every backend returns them, and Equality flips the sign."""
    out = run_page(DOCS / "guide" / "duals.md", capsys)
    rows = [ln for ln in out.splitlines() if "budget" in ln]
    assert len(rows) >= 2
    for ln in rows:
        assert "budget +3.000000" in ln and "pin +1.000000" in ln, ln
    assert re.search(r"1 == x\[0\]\s+dual \+1\.000000", out)
    assert re.search(r"Equality\(1, x\[0\]\)\s+dual -1\.000000", out)


def test_from_cvxpy_page_agrees_with_cvxpy(capsys):
    out = run_page(DOCS / "guide" / "from-cvxpy.md", capsys)
    cv, ours = map(float, re.search(r"objective\s+cvxpy (\S+)\s+certiprog (\S+)", out).groups())
    assert abs(cv - ours) <= 1e-6 * abs(ours)
    assert float(re.search(r"max \|w difference\| (\S+)", out).group(1)) < 1e-5
    assert "certiprog's verdict: certified" in out


def site_extension():
    import importlib.util

    spec = importlib.util.spec_from_file_location("certiprog_site", DOCS / "_ext" / "certiprog_site.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_public_name_has_an_api_page():
    """Each name in the public modules' __all__ has exactly one page: an autosummary entry on its home module's page
    (the longest public prefix of where it is defined), and a link from every other module that re-exports it."""
    ext = site_extension()
    assert set(ext.API_MODULES) == set(PUBLIC)
    documented, links = {}, []
    for module in PUBLIC:
        mod = importlib.import_module(module)
        page = ext.api_page(module)
        groups, elsewhere = ext.api_groups(module)
        entries = set(re.findall(r"^   (\w+)$", page, re.M))
        assert entries == {n for _, names in groups for n in names} and entries <= set(mod.__all__)
        for name in entries:
            assert id(getattr(mod, name)) not in documented, f"{module}.{name} documented twice"
            documented[id(getattr(mod, name))] = f"{module}.{name}"
        assert {n for n, _ in elsewhere} == set(mod.__all__) - entries
        links += [(getattr(mod, n), target, page) for n, target in elsewhere]
    for obj, target, page in links:
        assert documented[id(obj)] == target and f"<{target}>" in page
    assert len(documented) >= 100
    check = importlib.import_module("certiprog.certify").check
    assert documented[id(check)] == "certiprog.certify.check"  # defined there, re-exported by certiprog


def test_every_notebook_is_a_tutorial():
    index = (DOCS / "tutorials" / "index.md").read_text()
    assert ":glob:" in index and "notebooks/*" in index
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert f"(notebooks/{nb.name})" in index, f"{nb.name} is not described on the tutorials page"


def test_every_paper_has_a_page_with_its_derivations_reproduction_and_figures():
    from certiprog.papers import papers

    for pid, paper in papers().items():
        page = (DOCS / "papers" / f"{pid}.md").read_text()
        assert f"{{include}} ../derivations/{pid}.md" in page
        assert f"{{include}} ../experiments/{pid}.md" in page
        assert f"{{include}} generated/{pid}.md" in page
        assert f"]({pid}.md)" in (DOCS / "papers" / "index.md").read_text()
        for exp in paper.experiments:
            folder = DOCS / "papers" / "figures" / exp.name
            prov = json.loads((folder / "provenance.json").read_text())
            assert prov["command"] == f"certiprog reproduce {exp.name} --quick"
            assert prov["files"], f"{exp.name}: no figure"
            for f in prov["files"]:
                data = (folder / f).read_bytes()
                assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, f


def test_readme_links_into_the_site_resolve():
    text = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(([^)#]+)\)", text)
    assert sum(link.startswith("docs/") for link in links) >= 10
    for link in links:
        if not link.startswith("http"):
            assert (ROOT / link).is_file(), link
    assert 'pip install -e ".[docs]" && certiprog docs' in text


def test_ci_builds_the_site_strictly():
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'pip install -q -e ".[docs]"' in ci and "certiprog docs" in ci
    build = (DOCS / "build.py").read_text()
    assert '"-W", "--keep-going", "-n"' in build  # warnings are errors, nitpicky cross-references
    conf = (DOCS / "conf.py").read_text()
    assert "nb_execution_raise_on_error = True" in conf
    assert '"autodoc-process-docstring", _require_docstring' in (DOCS / "_ext" / "certiprog_site.py").read_text()


def test_docs_command_reports_a_missing_extra(monkeypatch, capsys):
    """Without Sphinx, ``certiprog docs`` says which extra to install instead of a traceback."""
    import builtins

    real_import = builtins.__import__

    def no_sphinx(name, *args, **kwargs):
        if name.split(".")[0] in ("sphinx", "myst_nb"):
            raise ImportError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_sphinx)
    from certiprog.cli import main

    assert main(["docs"]) == 2
    assert 'pip install -e ".[docs]"' in capsys.readouterr().err


@pytest.mark.parametrize("page", EXECUTED_PAGES)
def test_executed_pages_are_notebooks_for_the_build(page):
    """The pages run above are MyST notebooks, so the site build executes them too (and fails if they fail)."""
    text = (DOCS / page).read_text()
    assert text.startswith("---\nfile_format: mystnb\n")


def test_an_empty_docstring_fails_the_build(monkeypatch):
    """The build's docstring rule: a public method autodoc would render empty is reported (an error under -W);
    private names, documented ones and dataclass fields are not."""
    ext = site_extension()
    seen = []
    monkeypatch.setattr(ext.logger, "warning", lambda msg, **kw: seen.append(msg))
    ext._require_docstring(None, "method", "certiprog.Model.solve", None, {}, [])
    ext._require_docstring(None, "method", "certiprog.Model._private", None, {}, [])
    ext._require_docstring(None, "method", "certiprog.Model.add", None, {}, ["Add a constraint."])
    ext._require_docstring(None, "attribute", "certiprog.solvers.Solution.x", None, {}, [])
    assert seen == ["certiprog.Model.solve has no docstring: the API reference would show it empty"]
