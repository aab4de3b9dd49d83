"""`certiprog demo`: every core program solves on every backend, backends agree, certificates pass."""
import numpy as np

from certiprog.cli import main
from certiprog.demo import demo_instances, format_table, run_demo


def test_demo_rows_agree_across_backends_and_certify():
    rows = run_demo(["clarabel", "cvxpy"])
    assert len(rows) == 2 * len(demo_instances())
    assert {r["status"] for r in rows} == {"optimal"}
    by_program = {}
    for r in rows:
        by_program.setdefault(r["program"], []).append(r["objective"])
        assert r["verdict"] == "certified", r
        lo, hi = r["interval"]
        assert lo <= r["objective"] * (1 + 1e-6) + 1e-9 and hi >= r["objective"] * (1 - 1e-6) - 1e-9
    for prog, objs in by_program.items():
        assert abs(objs[0] - objs[1]) <= 1e-6 * (1 + abs(objs[0])), prog
    table = format_table(rows)
    assert "certified" in table and "hinge_minimax" in table


def test_demo_instances_are_not_trivial():
    models = dict(demo_instances())
    model = models["000 hinge_minimax (Pima)"]
    sol = model.solve()
    d = model.derived(sol)
    assert not d["trivial"] and np.isclose(d["worst_case_fp"], 0.3, atol=1e-5)


def test_cli_demo_exit_code(capsys):
    assert main(["demo", "--backends", "clarabel"]) == 0
    assert "mpm" in capsys.readouterr().out


def test_cli_audit_writes_reports(tmp_path, capsys):
    import json

    assert main(["audit", "004", "--out", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "paper 004:" in out and "refuted" in out
    data = json.loads((tmp_path / "audit.json").read_text())
    assert data["format"] == "certiprog.audit/1" and all(c["paper"] == "004" for c in data["claims"])
    assert {c["status"] for c in data["claims"]} <= {"verified", "refuted", "not checkable"}
    assert "## Paper 004" in (tmp_path / "audit.md").read_text()
