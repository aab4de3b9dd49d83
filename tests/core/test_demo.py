"""`certiprog demo`: every core program solves on every backend, backends agree, certificates pass; the backends
it leaves out are named with the reason, and a failing row is explained (exit code 1)."""
import numpy as np
import pytest

import certiprog
from certiprog import demo as D
from certiprog.cli import main
from certiprog.demo import demo_instances, format_table, run_demo
from certiprog.solvers import registered_backends


def test_demo_rows_agree_across_backends_and_certify():
    rows = run_demo(["clarabel", "cvxpy"])
    assert len(rows) == 2 * len(demo_instances())
    assert {r["status"] for r in rows} == {"optimal"}
    by_program, certified = {}, {}
    for r in rows:
        by_program.setdefault(r["program"], []).append(r["objective"])
        # 'accurate' (KKT residuals pass, the rigorous interval is wider than tol) is honest for Clarabel's
        # and CVXPY's me2_primal answers, 1.5e-6 off; every other program is certified on both backends
        assert r["verdict"] in ("certified", "accurate"), r
        certified.setdefault(r["program"], []).append(r["verdict"] == "certified")
        assert not D.failing(r) and r["reason"] == ""
        lo, hi = r["interval"]
        assert lo <= r["objective"] * (1 + 1e-6) + 1e-9 and hi >= r["objective"] * (1 - 1e-6) - 1e-9
    for prog, objs in by_program.items():
        assert abs(objs[0] - objs[1]) <= 1e-6 * (1 + abs(objs[0])), prog
    assert sum(map(all, certified.values())) >= len(certified) - 1, certified
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
    out = capsys.readouterr().out
    assert "mpm" in out and "skipped: none" in out and "failing" not in out


# --------------------------------------------------------------------------- skipped backends and why
def test_piqp_is_skipped_for_cone_programs_with_the_cone_named():
    """PIQP takes LP/QP only: the SOCP programs list it as skipped, 'cone not supported', naming the cone."""
    skipped = D.skipped_backends(["clarabel", "piqp"])
    assert [s["backend"] for s in skipped] == ["piqp"]
    (s,) = skipped
    assert s["reason"].startswith("cone not supported") and "soc" in s["reason"]
    socp = {label for label, m in demo_instances() if "soc" in {c.kind for c in m.compile().assemble().cones}}
    assert set(s["programs"]) == socp and socp
    ran = {r["program"] for r in run_demo(["piqp"])}
    assert ran and not ran & socp  # what it skipped it did not run, and the rest it ran


def test_missing_package_is_named_with_the_extra(monkeypatch):
    monkeypatch.setattr(registered_backends()["pyomo"], "requires", ("no_such_package_certiprog_test",))
    (s,) = D.skipped_backends(["pyomo"])
    assert s["reason"].startswith("package missing") and "certiprog[pyomo]" in s["reason"]
    assert len(s["programs"]) == len(demo_instances())
    assert run_demo(["pyomo"]) == []
    text = D.format_skipped(D.skipped_backends(["pyomo"]), len(demo_instances()))
    assert "pyomo" in text and "every program" in text


def test_missing_licence_is_named(monkeypatch):
    monkeypatch.setattr(registered_backends()["clarabel"], "licence_check", lambda: "no licence file in ~/nowhere")
    (s,) = D.skipped_backends(["clarabel"])
    assert s["reason"] == "licence missing: no licence file in ~/nowhere"


def test_default_backends_skip_what_cannot_run_and_say_why(capsys):
    """With no --backends, every registered backend is either run or listed as skipped with a reason."""
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    ran = {r["backend"] for r in run_demo()}
    skipped = {s["backend"] for s in D.skipped_backends()}
    assert ran | skipped == set(registered_backends())
    for s in D.skipped_backends():
        assert s["reason"].split(":")[0] in ("package missing", "licence missing", "cone not supported")
        assert f"  {s['backend']}" in out


# --------------------------------------------------------------------------- failing rows, explained
def _infeasible_instance():
    x = certiprog.Variable(2, "x")
    model = certiprog.Model(certiprog.minimize(certiprog.sum_squares(x)), name="infeasible")
    model.add(x >= 1.0, name="low")
    model.add(x <= 0.0, name="high")
    return [("test infeasible", model)]


def test_a_failing_row_is_explained_and_exits_1(monkeypatch, capsys):
    monkeypatch.setattr(D, "demo_instances", _infeasible_instance)
    assert main(["demo", "--backends", "clarabel"]) == 1
    out = capsys.readouterr().out
    assert "1 failing row(s):" in out
    line = next(t for t in out.splitlines() if t.strip().startswith("test infeasible on clarabel"))
    assert "status infeasible" in line and "certificate certified_infeasible" in line
    assert "solver status" in line  # the solver's own word is the reason


def test_a_wrong_answer_is_failing_with_the_certificates_reason(monkeypatch, capsys):
    """An 'optimal' answer the certificate rejects is a failing row: verdict failed and its largest residual."""
    b = registered_backends()["clarabel"]
    solve = b.solve

    def off_by_one(problem, solver, options):
        sol = solve(problem, solver, options)
        sol.x = np.asarray(sol.x) + 1.0
        return sol

    monkeypatch.setattr(b, "solve", off_by_one)
    rows = run_demo(["clarabel"])
    bad = [r for r in rows if D.failing(r)]
    assert bad and all(r["verdict"] == "failed" for r in bad)
    assert all("largest relative residual" in r["reason"] for r in bad)
    assert main(["demo", "--backends", "clarabel"]) == 1
    out = capsys.readouterr().out
    assert f"{len(bad)} failing row(s):" in out and "certificate failed" in out


def test_a_refusing_backend_is_a_failing_row_with_its_message(monkeypatch):
    from certiprog.errors import BackendError

    def refuse(problem, solver, options):
        raise BackendError("size-limited licence: too many variables")

    monkeypatch.setattr(registered_backends()["clarabel"], "solve", refuse)
    monkeypatch.setattr(D, "demo_instances", lambda: _infeasible_instance()[:1])
    (row,) = run_demo(["clarabel"])
    assert D.failing(row) and row["status"] == "error" and "size-limited" in row["reason"]
    assert "size-limited" in D.explain_failures([row])


@pytest.mark.parametrize("status,verdict,fails", [("optimal", "certified", False), ("inaccurate", "accurate", False),
                                                  ("optimal", "failed", True), ("iteration_limit", "failed", True),
                                                  ("infeasible", "certified_infeasible", True)])
def test_failing_rule(status, verdict, fails):
    assert D.failing({"status": status, "verdict": verdict}) is fails
