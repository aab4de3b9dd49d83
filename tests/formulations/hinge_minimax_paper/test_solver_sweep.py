"""benchmarks/scale.py --sweep --quick as a correctness run (issue 23's conditioning sweep at small sizes): every row
is certified by certiprog's check at a relative width <= 1e-5 and CVXPY + Clarabel's value lies inside the interval.
No timing assertions."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _scale_module():
    spec = importlib.util.spec_from_file_location("scale_bench_sweep", ROOT / "benchmarks" / "scale.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_quick_conditioning_sweep_is_certified_and_holds_clarabels_value(capsys):
    mod = _scale_module()
    rows = mod.main(["--sweep", "--quick"])["sweep"]
    names = [r["row"] for r in rows]
    assert names[:4] == ["kappa=1", "kappa=100", "kappa=10000", "kappa=1e+06"]
    for r in rows:
        ours, ref = r["ours"], r["ref"]
        assert ours["verdict"] == "certified", r
        assert mod.rel_width(ours["lower"], ours["upper"]) <= 1e-5
        assert r["inside"], r
        assert math.isfinite(r["ratio"]) and ref["status"] == "optimal"
    for r in rows[1:4]:  # ill-conditioned synthetic rows go to the interior point first
        assert ours is not None and r["ours"]["method"] == "interior point (Newton)"
    out = capsys.readouterr().out
    table = out[out.index("## 000 eq. (8): conditioning sweep"):]
    ratios = [float(line.split("|")[8].strip().lstrip(">").rstrip("x")) for line in table.splitlines()
              if line.startswith("| ") and "x" in line.split("|")[8] and not line.startswith("| row")]
    assert ratios == sorted(ratios)  # the worst row first
