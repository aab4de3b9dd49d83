"""Saved solutions: `Solution.save` / `Solution.load` round-trip, and every kind of tampering is refused."""
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog import (
    ForAll, InputError, LqEllipsoid, Model, ModelError, OracleSet, Parameter, Solution, Status, Variable, minimize,
    norm2, sum_squares,
)
from certiprog.certify import check
from certiprog.errors import CertiprogError, SavedFileError
from certiprog.solvers.backends.common import STATUS
from certiprog.solvers.solution import load_solution_data


def _model(offset=1.0):
    x = Variable(3, "x")
    S = Variable((2, 2), "S", symmetric=True)
    p = Parameter(3, "p", value=offset * np.arange(1.0, 4.0))
    m = Model(minimize(sum_squares(x - p) + norm2(x) + S.trace()),
              {"cap": x <= 0.5, "sum": x.sum() == 1.0, "psd": S >> np.eye(2)}, name="io")
    return m, p


def _same(a: Solution, b: Solution):
    assert a.status == b.status and a.status.primal == b.status.primal and a.status.dual == b.status.dual
    assert (np.isnan(a.objective) and np.isnan(b.objective)) or a.objective == b.objective
    for k in ("x", "z", "s", "certificate"):
        u, v = getattr(a, k), getattr(b, k)
        assert (u is None) == (v is None), k
        if u is not None:
            np.testing.assert_array_equal(np.asarray(u, float).reshape(-1), v)
    for k in ("backend", "solver", "solver_version", "iterations", "compile_time", "solve_time", "duals_recovered",
              "history"):
        assert getattr(a, k) == getattr(b, k), k
    assert set(a.cuts) == set(b.cuts)
    for k in a.cuts:
        np.testing.assert_array_equal(a.cuts[k], b.cuts[k])


# ------------------------------------------------------------------ round trips
def test_solved_model_round_trips_and_certifies(tmp_path):
    m, _ = _model()
    sol = m.solve()
    assert sol.status == "optimal"
    sol.save(tmp_path / "run")
    back = Solution.load(tmp_path / "run", problem=m)
    _same(sol, back)
    np.testing.assert_allclose(back.value("x"), sol.value("x"))
    np.testing.assert_allclose(back.value("S"), sol.value("S"))
    np.testing.assert_allclose(back.dual("psd"), sol.dual("psd"))
    assert check(m, back).verdict == "certified"
    assert Solution.load(str(tmp_path / "run.json"), problem=sol.problem).objective == sol.objective
    bare = Solution.load(tmp_path / "run.npz")  # the stem or either file
    assert bare.problem is None and np.array_equal(bare.x, sol.x)
    with pytest.raises(ModelError, match="without its problem"):
        bare.value("x")
    assert check(sol.problem, bare).verdict == "certified"  # vectors alone certify against the problem
    assert load_solution_data(tmp_path / "run")["x"].shape == sol.x.shape


def test_reattaching_another_problem_is_refused(tmp_path):
    m, p = _model()
    m.solve().save(tmp_path / "run")
    p.value = p.value + 1.0  # same layout, other data
    with pytest.raises(InputError, match="other data"):
        Solution.load(tmp_path / "run", problem=m)
    other, _ = _model()
    other.add(other.variable("x") >= -3, name="floor")
    with pytest.raises(InputError, match="does not match"):
        Solution.load(tmp_path / "run", problem=other)
    with pytest.raises(InputError, match="Model or the ConicProblem"):
        Solution.load(tmp_path / "run", problem="io")


def test_infeasible_solution_keeps_its_certificate(tmp_path):
    x = Variable(2, "x")
    m = Model(minimize(x.sum()), [x >= 1, x.sum() <= 1])
    sol = m.solve()
    assert sol.status == "infeasible" and sol.certificate is not None and sol.x is None
    sol.save(tmp_path / "inf")
    back = Solution.load(tmp_path / "inf", problem=m)
    _same(sol, back)
    assert back.objective == np.inf
    assert check(m, back).verdict == "certified_infeasible"


def test_cutting_plane_solution_with_cuts(tmp_path):
    w = Variable(2, "w")
    U = OracleSet(lambda a: -np.sign(a) + np.array([2.0, 2.0]), np.array([[2.0, 2.0]]))
    m = Model(minimize(sum_squares(w)), {"robust": ForAll(U, lambda u: w @ u >= 1)})
    sol = m.solve()
    assert sol.cuts and sol.history
    sol.save(tmp_path / "cp")
    back = Solution.load(tmp_path / "cp", problem=sol.problem)
    _same(sol, back)
    with pytest.raises(InputError, match="cutting-plane"):
        Solution.load(tmp_path / "cp", problem=m)
    exact = Model(minimize(sum_squares(w)), {"robust": ForAll(LqEllipsoid([2.0, 2.0], np.eye(2), [1.0, 1.0], q=np.inf),
                                                              lambda u: w @ u >= 1)})
    exact.solve().save(tmp_path / "exact")
    assert Solution.load(tmp_path / "exact", problem=exact).status == "optimal"


def test_non_finite_duals_are_left_out_and_recovered(tmp_path):
    m, _ = _model()
    sol = m.solve()
    sol.z = np.full_like(sol.z, np.nan)
    sol.save(tmp_path / "nan")
    back = Solution.load(tmp_path / "nan", problem=m)
    assert back.z is None
    assert json.loads((tmp_path / "nan.json").read_text())["not_saved"] == ["z"]
    assert back.dual("cap").shape == (3,) and back.duals_recovered


_STATUSES = sorted(set(STATUS.values()), key=str)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.sampled_from(range(len(_STATUSES))), st.integers(0, 2**32 - 1), st.booleans(), st.booleans(),
       st.text(max_size=8), st.one_of(st.none(), st.integers(0, 10**6)),
       st.floats(allow_nan=True, allow_infinity=True), st.dictionaries(st.text(max_size=4), st.integers(), max_size=3))
def test_round_trip_property(tmp_path_factory, k, seed, with_z, with_attach, backend, iterations, objective, info):
    """Any solution the library can hold (random statuses, vectors, metadata) comes back unchanged."""
    m, _ = _model()
    problem = m.compile().assemble()
    rng = np.random.default_rng(seed)
    status = _STATUSES[k]
    has_x = status.ok or rng.random() < 0.3
    cert = None
    if status.termination in ("infeasible", "unbounded"):
        cert = rng.standard_normal(problem.m if status.termination == "infeasible" else problem.n)
    sol = Solution(status=status, objective=objective, x=rng.standard_normal(problem.n) if has_x else None,
                   z=rng.standard_normal(problem.m) if with_z and has_x else None,
                   s=rng.standard_normal(problem.m) if has_x else None, problem=problem, backend=backend,
                   solver="s", solver_version="1.0", iterations=iterations, compile_time=float(rng.random()),
                   solve_time=float(rng.random()), duals_recovered=bool(rng.random() < 0.5),
                   history=[{"iteration": 1, "objective": float(rng.random())}],
                   cuts={"f": rng.standard_normal((2, 3))} if rng.random() < 0.5 else {}, certificate=cert,
                   info=info)
    stem = tmp_path_factory.mktemp("prop") / "sol"
    sol.save(stem)
    back = Solution.load(stem, problem=problem if with_attach else None)
    _same(sol, back)
    assert back.info == info
    assert (back.problem is problem) == with_attach


# ------------------------------------------------------------------ tampering: one test per kind
@pytest.fixture()
def saved(tmp_path):
    m, _ = _model()
    sol = m.solve()
    stem = tmp_path / "run"
    sol.save(stem)
    return stem, sol


def _rewrite_npz(stem, change):
    with np.load(f"{stem}.npz", allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    change(arrays)
    np.savez(f"{stem}.npz", **arrays)


def _rewrite_json(stem, change):
    meta = json.loads(open(f"{stem}.json").read())
    change(meta)
    open(f"{stem}.json", "w").write(json.dumps(meta))


def _set(d, k, v):
    d[k] = v


TAMPER = {
    "NaN in x": (lambda s: _rewrite_npz(s, lambda a: a["x"].__setitem__(0, np.nan)), "NaN"),
    "inf in z": (lambda s: _rewrite_npz(s, lambda a: a["z"].__setitem__(0, np.inf)), "NaN or inf"),
    "string x": (lambda s: _rewrite_npz(s, lambda a: _set(a, "x", np.array(["1"] * a["x"].size))), "float64"),
    "float32 x": (lambda s: _rewrite_npz(s, lambda a: _set(a, "x", a["x"].astype(np.float32))), "float64"),
    "wrong shape": (lambda s: _rewrite_npz(s, lambda a: _set(a, "x", a["x"][:-1])), "shape"),
    "2-d x": (lambda s: _rewrite_npz(s, lambda a: _set(a, "x", a["x"].reshape(1, -1))), "shape"),
    "missing x": (lambda s: _rewrite_npz(s, lambda a: a.pop("x")), "keys"),
    "extra npz key": (lambda s: _rewrite_npz(s, lambda a: _set(a, "y", np.zeros(2))), "keys"),
    "npz 'status' key": (lambda s: _rewrite_npz(s, lambda a: _set(a, "status", np.array("infeasible"))), "keys"),
    "object array": (lambda s: np.savez(f"{s}.npz", x=np.array([{}], dtype=object)), "readable|keys|cannot be read"),
    "truncated npz": (lambda s: open(f"{s}.npz", "r+b").truncate(100), "not a readable .npz"),
    "npz is a .npy": (lambda s: np.save(open(f"{s}.npz", "wb"), np.zeros(3)), "single array"),
    "npz missing": (lambda s: __import__("os").remove(f"{s}.npz"), "missing"),
    "json missing": (lambda s: __import__("os").remove(f"{s}.json"), "no saved solution"),
    "truncated json": (lambda s: open(f"{s}.json", "r+").truncate(50), "not a readable JSON"),
    "not JSON": (lambda s: open(f"{s}.json", "wb").write(b"\x80\x81 binary"), "not a readable JSON"),
    "JSON list": (lambda s: open(f"{s}.json", "w").write("[1, 2]"), "not an object"),
    "wrong format version": (lambda s: _rewrite_json(s, lambda m: _set(m, "format", "certiprog.solution/1")),
                             "not a certiprog solution"),
    "no format": (lambda s: _rewrite_json(s, lambda m: m.pop("format")), "not a certiprog solution"),
    "missing JSON key": (lambda s: _rewrite_json(s, lambda m: m.pop("backend")), "missing keys"),
    "extra JSON key": (lambda s: _rewrite_json(s, lambda m: _set(m, "x", [1, 2])), "unexpected keys"),
    "objective a string": (lambda s: _rewrite_json(s, lambda m: _set(m, "objective", "0.5")), "objective"),
    "iterations a bool": (lambda s: _rewrite_json(s, lambda m: _set(m, "iterations", True)), "iterations"),
    "unknown status": (lambda s: _rewrite_json(s, lambda m: m["status"].update(termination="great")), "status"),
    "status a string": (lambda s: _rewrite_json(s, lambda m: _set(m, "status", "optimal")), "status"),
    "negative time": (lambda s: _rewrite_json(s, lambda m: _set(m, "solve_time", -1.0)), "solve_time"),
    "x not listed for an optimal status": (lambda s: (_rewrite_json(s, lambda m: (m["arrays"].pop("x"),
                                                                                   m["sha256"].pop("x"))),
                                                      _rewrite_npz(s, lambda a: a.pop("x"))), "primal point"),
    "array shape disagrees with n": (lambda s: _rewrite_json(s, lambda m: _set(m["arrays"], "x", [2])), "sizes"),
    "bad variable layout": (lambda s: _rewrite_json(s, lambda m: m["problem"]["variables"]["x"].update(
        columns=[0, 99])), "layout"),
    "cones disagree with m": (lambda s: _rewrite_json(s, lambda m: _set(m["problem"], "m", m["problem"]["m"] + 1)),
                              "rows"),
    "bad cone": (lambda s: _rewrite_json(s, lambda m: m["problem"]["cones"].append("soc")), "cone"),
    "bad block": (lambda s: _rewrite_json(s, lambda m: m["problem"]["blocks"].append(["c", 5, 2, True])), "block"),
    "bad fingerprint": (lambda s: _rewrite_json(s, lambda m: _set(m["problem"]["fingerprint"], "A", "big")),
                        "fingerprint"),
    # the typed record of the solve (issue 22 item 4)
    "unknown verdict": (lambda s: _rewrite_json(s, lambda m: _set(m, "verdict", "proved")), "unknown verdict"),
    "verdict a number": (lambda s: _rewrite_json(s, lambda m: _set(m, "verdict", 1)), "'verdict'"),
    "attempts missing": (lambda s: _rewrite_json(s, lambda m: m.pop("attempts")), "missing keys"),
    "attempt without a key": (lambda s: _rewrite_json(s, lambda m: m["attempts"][0].pop("time")), "attempt 0"),
    "attempt with a bad verdict": (lambda s: _rewrite_json(s, lambda m: m["attempts"][0].update(verdict="great")),
                                   "attempt 0: unknown verdict"),
    "attempt with a bad termination": (lambda s: _rewrite_json(s, lambda m: m["attempts"][0].update(
        termination="done")), "attempt 0: unknown termination"),
    "attempt verdict without termination": (lambda s: _rewrite_json(s, lambda m: m["attempts"][0].update(
        termination=None)), "neither"),
    "attempt negative time": (lambda s: _rewrite_json(s, lambda m: m["attempts"][0].update(time=-1.0)), "time"),
    "attempt huge time": (lambda s: _rewrite_json(s, lambda m: m["attempts"][0].update(time=10**400)), "time"),
    "attempt chosen a string": (lambda s: _rewrite_json(s, lambda m: m["attempts"][0].update(chosen="yes")),
                                "'chosen'"),
    "two attempts chosen": (lambda s: _rewrite_json(s, lambda m: m["attempts"].append(dict(m["attempts"][0]))),
                            "more than one"),
    "attempt a list": (lambda s: _rewrite_json(s, lambda m: m["attempts"].append([1, 2])), "attempt 1"),
    "interval reversed": (lambda s: _rewrite_json(s, lambda m: _set(m, "solver_interval", [2.0, 1.0])),
                          "solver_interval"),
    "interval NaN": (lambda s: _rewrite_json(s, lambda m: _set(m, "solver_interval", [float("nan"), 1.0])),
                     "solver_interval"),
    "interval of three": (lambda s: _rewrite_json(s, lambda m: _set(m, "solver_interval", [0, 1, 2])),
                          "solver_interval"),
    "interval of strings": (lambda s: _rewrite_json(s, lambda m: _set(m, "solver_interval", ["0", "1"])),
                            "solver_interval"),
    "note a list": (lambda s: _rewrite_json(s, lambda m: _set(m, "fallback_note", ["x"])), "fallback_note"),
}


@pytest.mark.parametrize("kind", sorted(TAMPER))
def test_tampered_files_are_refused(saved, kind):
    stem, _ = saved
    tamper, match = TAMPER[kind]
    tamper(stem)
    with pytest.raises(SavedFileError, match=match):
        Solution.load(stem)
    with pytest.raises(CertiprogError):
        load_solution_data(stem)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, 10**9), st.sampled_from(["json", "npz"]), st.integers(1, 8))
def test_random_byte_corruption_never_raises_raw_errors(tmp_path_factory, seed, which, flips):
    """Flipping random bytes of either file gives a valid load or a SavedFileError, nothing else."""
    m, _ = _model()
    stem = tmp_path_factory.mktemp("flip") / "run"
    m.solve().save(stem)
    path = f"{stem}.{which}"
    data = bytearray(open(path, "rb").read())
    rng = np.random.default_rng(seed)
    for i in rng.integers(0, len(data), flips):
        data[i] = int(rng.integers(0, 256))
    open(path, "wb").write(bytes(data))
    try:
        back = Solution.load(stem)
    except SavedFileError:
        return
    assert back.x is None or np.all(np.isfinite(back.x))


def test_saving_a_non_finite_optimal_point_is_refused(tmp_path):
    m, _ = _model()
    sol = m.solve()
    sol.x = sol.x.copy()
    sol.x[0] = np.nan
    with pytest.raises(InputError, match="NaN"):
        sol.save(tmp_path / "bad")
    assert Status("optimal", "feasible", "feasible").ok


def test_changed_numbers_are_caught_by_the_digest(saved):
    stem, _ = saved
    _rewrite_npz(stem, lambda a: a["x"].__setitem__(0, a["x"][0] + 1e-9))
    with pytest.raises(SavedFileError, match="SHA-256"):
        Solution.load(stem)


# ------------------------------------------------------------------ the typed record of the solve (issue 22 item 4)
def test_the_fallback_record_verdict_and_interval_round_trip(tmp_path):
    from certiprog.certify import Interval, Verdict
    from certiprog.solvers import Attempt

    m, _ = _model()
    sol = m.solve()
    sol.fallback_note = "a note"
    sol.solver_interval = (1.0, np.inf)
    sol.solver_interval = Interval(1.0, np.inf)
    sol.save(tmp_path / "run")
    meta = json.loads((tmp_path / "run.json").read_text())
    assert meta["verdict"] == "certified" and meta["attempts"][-1]["chosen"] is True
    assert not {"verdict", "fallback", "interval"} & set(meta["info"])  # typed fields, not info keys
    back = Solution.load(tmp_path / "run")
    assert back.verdict is Verdict.CERTIFIED and back.certification is None  # the verdict itself was saved
    assert all(isinstance(a, Attempt) for a in back.attempts) and len(back.attempts) == len(sol.attempts)
    assert [a.to_json() for a in back.attempts] == [a.to_json() for a in sol.attempts]
    assert back.chosen.label == sol.chosen.label and isinstance(back.chosen.verdict, Verdict)
    assert back.fallback_note == "a note"
    assert isinstance(back.solver_interval, Interval) and back.solver_interval == (1.0, np.inf)
    with pytest.warns(DeprecationWarning):
        assert back.info["fallback"]["chosen"] == sol.chosen.label  # the old key answers for a loaded one too


def test_a_structured_answer_keeps_its_interval_through_a_file(tmp_path):
    from certiprog.formulations.hinge_minimax_paper.programs import hinge_minimax

    rng = np.random.default_rng(3)
    model = hinge_minimax(rng.normal(size=(40, 3)) + 1.0, -np.ones(3), np.eye(3), 0.1, 0.3)
    sol = model.solve(solver="structured")
    assert sol.solver_interval is not None and sol.attempts == []
    sol.save(tmp_path / "s")
    back = Solution.load(tmp_path / "s", problem=model)
    assert back.solver_interval == sol.solver_interval and back.verdict == sol.verdict
    assert check(model, back).verdict == sol.verdict


def test_a_format_2_file_is_read_into_the_typed_fields(saved):
    """Files written before issue 22 kept the verdict, the fallback record and an interval in 'info'."""
    stem, sol = saved

    def to_v2(meta):
        meta["format"] = "certiprog.solution/2"
        for key in ("verdict", "attempts", "fallback_note", "solver_interval"):
            meta.pop(key)
        meta["info"].update(verdict="certified", interval=[0.5, 0.75], fallback={
            "chosen": "clarabel/clarabel", "note": "old note", "attempts": [
                {"solver": "_liar/lie", "status": "unbounded", "verdict": "unbounded without a certificate"},
                {"solver": "piqp/piqp", "error": "no licence"},
                {"solver": "clarabel/clarabel", "status": "optimal", "verdict": "certified"}]})

    _rewrite_json(stem, to_v2)
    back = Solution.load(stem)
    assert back.verdict == "certified" and back.solver_interval == (0.5, 0.75) and back.fallback_note == "old note"
    liar, piqp, clarabel = back.attempts
    assert (liar.backend, liar.solver, liar.verdict, liar.rejected) == ("_liar", "lie", "failed",
                                                                       "unbounded without a certificate")
    assert piqp.refused and piqp.error == "no licence" and piqp.termination is None
    assert clarabel.chosen and not liar.chosen and clarabel.verdict == "certified" and back.chosen is clarabel
    assert not {"verdict", "fallback", "interval"} & set(dict(back.info))
