"""The README's example runs as printed, and its set-up commands are the ones CI runs."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_example_runs(capsys):
    text = (ROOT / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    assert len(code.strip().splitlines()) <= 22
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert out.count("optimal") == 2 and out.count("certified") == 2  # as the README says
    assert "worst-case FP rate 0.1\n" in out  # the Chebyshev constraint is active: exactly the rate asked for
    w = [float(v) for v in re.search(r"\[([^\]]*)\] worst-case", out).group(1).split()]
    assert min(w) > 0.5  # a real classifier, not the trivial w = 0


def test_ci_runs_the_readme_test_command():
    text = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    cmd = 'pip install -e ".[dev]" && python -m pytest -q -m "not slow"'
    assert cmd in text
    assert 'pip install -q -e ".[dev]" && python -m pytest -q -m "not slow"' in ci
