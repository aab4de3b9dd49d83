"""The type-checking habit (issue 22 item 6): mypy is configured in pyproject.toml at default strictness, run by
.ci/run on certiprog/ (zero findings), and no certiprog module is silenced.

CI runs mypy itself (a cold run takes ~25 s); these tests pin the configuration so that it cannot be loosened
quietly: no ``ignore_errors`` for certiprog modules, no blanket ``# type: ignore`` (each names its error code and
says why on the line), third-party libraries without types listed by name."""
import re
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "certiprog"
IGNORE = re.compile(r"#\s*type:\s*ignore(\[[a-z-, ]+\])?")


def _mypy_config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]


def test_ci_type_checks_the_package_with_mypy():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    cfg = meta["tool"]["mypy"]
    assert cfg["packages"] == ["certiprog"]
    assert cfg["warn_unused_ignores"] is True
    assert any(d.startswith("mypy") for d in meta["project"]["optional-dependencies"]["dev"])
    ci = (ROOT / ".ci" / "run").read_text()
    lines = [ln.strip() for ln in ci.splitlines()]
    assert any(ln.startswith("mypy") for ln in lines), "the CI script must run mypy"
    assert ci.index("ruff check certiprog") < ci.index("\nmypy"), "mypy runs after ruff"


def test_no_certiprog_module_is_silenced():
    cfg = _mypy_config()
    for key in ("ignore_errors", "follow_imports", "disable_error_code", "ignore_missing_imports"):
        assert key not in cfg, f"a global {key} would silence certiprog itself"
    for override in cfg.get("overrides", []):
        modules = override["module"] if isinstance(override["module"], list) else [override["module"]]
        assert not any(m == "certiprog" or m.startswith("certiprog.") for m in modules), \
            f"an override silences certiprog modules: {modules}"
        assert "ignore_errors" not in override, "ignore_errors on a module hides its findings"
        assert set(override) <= {"module", "ignore_missing_imports", "follow_imports"}, \
            f"overrides only say which third-party libraries have no types or are read as Any: {override}"


def test_every_type_ignore_names_its_code_and_reason():
    bare, unexplained = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            m = IGNORE.search(line)
            if m is None:
                continue
            where = f"{path.relative_to(ROOT)}:{i + 1}"
            if m.group(1) is None:
                bare.append(where)
            # the reason: a comment after the ignore, or a comment line just above (the run of ignored lines)
            above = i - 1
            while above >= 0 and IGNORE.search(lines[above]):
                above -= 1
            if "#" not in line[m.end():] and not (above >= 0 and lines[above].strip().startswith("#")):
                unexplained.append(where)
    assert not bare, f"blanket '# type: ignore' (name the error code): {bare}"
    assert not unexplained, f"'# type: ignore[code]' without a reason beside it or just above: {unexplained}"
