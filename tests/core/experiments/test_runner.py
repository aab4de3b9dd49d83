"""The experiment runner: task keys, the result store (atomic, validated, .npz arrays), resume, shard + merge,
failures, and the executors (serial, loky, a local Dask cluster, a local Ray) giving identical results."""
import argparse
import json
import sys
import warnings

import numpy as np
import pytest

from certiprog.errors import BackendError, CertiprogError, InputError
from certiprog.experiments import example
from certiprog.experiments import runner as R
from certiprog.experiments.runner import ResultStore, StoreError, Task, TaskError, run_tasks

CALLS = []  # what `counted` saw (serial executor: same process)


def counted(config, fail_on=None):
    """A task that records its calls and fails on request."""
    CALLS.append(config["i"])
    if fail_on is not None and config["i"] in fail_on:
        raise ValueError(f"boom {config['i']}")
    return dict(i=config["i"], square=config["i"] ** 2, vec=np.arange(config["i"] + 1, dtype=float))


def counting_tasks(n, fail_on=None, version="1"):
    return [Task(f"t{i}", counted, dict(i=i), version, extra=dict(fail_on=fail_on)) for i in range(n)]


@pytest.fixture(autouse=True)
def _reset_calls():
    CALLS.clear()


def tiny(reps=5, keep_samples=True):
    return example.tasks(example.Config(reps=reps, n=20, mu=1.0, seed=3, keep_samples=keep_samples))


def same_results(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.keys() == y.keys()
        for k in x:
            if isinstance(x[k], np.ndarray):
                np.testing.assert_array_equal(x[k], y[k])
            else:
                assert x[k] == y[k], k


# ------------------------------------------------------------------ tasks and keys
def test_task_key_is_a_stable_function_of_function_config_and_version():
    a = Task("a", counted, dict(i=1, grid=(0.1, 1.0), opt=dict(x=None, y=True)))
    b = Task("another name", f"{__name__}:counted", dict(opt=dict(y=True, x=None), grid=[0.1, 1.0], i=np.int64(1)))
    assert a.key == b.key and len(a.key) == 24 and a.function == f"{__name__}:counted"
    assert a.config == {"i": 1, "grid": [0.1, 1.0], "opt": {"x": None, "y": True}}
    assert Task("a", counted, dict(i=2)).key != Task("a", counted, dict(i=1)).key
    assert Task("a", counted, dict(i=1), "2").key != Task("a", counted, dict(i=1)).key
    assert Task("a", example.sample_mean, dict(i=1)).key != Task("a", counted, dict(i=1)).key
    # extra is not part of the key: where the data lives does not change the result
    assert Task("a", counted, dict(i=1), extra=dict(fail_on=[3])).key == Task("a", counted, dict(i=1)).key
    # the key hashes (function, config, version, format) as canonical JSON (pinned: stores must stay readable)
    assert R.task_key("m:f", {"b": 1, "a": [1.5]}, "v") == R.task_key("m:f", {"a": [1.5], "b": 1}, "v")
    assert R.task_key("m:f", {"a": [1.5], "b": 1}, "v") == "d160e52c874f7c9d1fd010bb"


@pytest.mark.parametrize("config, message", [
    (dict(x=np.ones(2)), "not a JSON value"),
    (dict(x=float("nan")), "NaN"),
    (dict(x=object()), "not a JSON value"),
    ({1: 2}, "keys must be strings"),
])
def test_task_config_must_be_plain_json(config, message):
    with pytest.raises(InputError, match=message):
        Task("t", counted, config)


def test_task_function_must_be_importable():
    def local(config):
        return config

    with pytest.raises(InputError, match="module-level"):
        Task("t", local, {})
    with pytest.raises(InputError, match="module-level"):
        Task("t", lambda c: c, {})
    with pytest.raises(InputError, match="cannot be imported"):
        Task("t", "certiprog.experiments.example:nope", {})
    with pytest.raises(InputError, match="module:function"):
        Task("t", "no_colon", {})
    with pytest.raises(InputError, match="name"):
        Task("", counted, {})


# ------------------------------------------------------------------ the store
def test_store_round_trip_with_arrays_in_npz(tmp_path):
    store = ResultStore(tmp_path / "s")
    t = Task("t", counted, dict(i=3))
    result = dict(a=np.arange(6.0).reshape(2, 3), nested=[dict(b=np.array([True, False])), (1, 2)],
                  x=np.float64(0.5), n=np.int32(4), nan=float("nan"))
    back = store.put(t, result, seconds=0.25)
    assert (tmp_path / "s" / f"{t.key}.json").is_file() and (tmp_path / "s" / f"{t.key}.npz").is_file()
    with np.load(tmp_path / "s" / f"{t.key}.npz", allow_pickle=False) as z:  # no pickle anywhere
        assert sorted(z.files) == ["a0", "a1"]
    got = store.get(t)
    for r in (back, got):
        np.testing.assert_array_equal(r["a"], result["a"])
        np.testing.assert_array_equal(r["nested"][0]["b"], [True, False])
        assert r["nested"][1] == [1, 2] and r["x"] == 0.5 and type(r["n"]) is int and np.isnan(r["nan"])
    assert store.read(t.key)["seconds"] == 0.25 and store.keys() == [t.key] and t in store and len(store) == 1
    # a result without arrays removes a stale .npz
    store.put(t, dict(a=1))
    assert not (tmp_path / "s" / f"{t.key}.npz").exists() and store.get(t) == dict(a=1)
    assert not list((tmp_path / "s").glob("*.tmp"))


def test_store_refuses_what_json_cannot_hold(tmp_path):
    store = ResultStore(tmp_path)
    t = Task("t", counted, dict(i=0))
    for bad, message in ((dict(a=object()), "JSON values"), (dict(a=np.array(["x", None], dtype=object)), "pickle"),
                         ({"__ndarray__": "a0"}, "reserved"), ({2: 1}, "keys")):
        with pytest.raises(InputError, match=message):
            store.put(t, bad)
    assert store.keys() == []


def test_store_write_is_atomic(tmp_path, monkeypatch):
    """A failure while writing leaves no result file and no temporary file (the task is simply not done)."""
    store = ResultStore(tmp_path)
    t = Task("t", counted, dict(i=0))

    def crash(fh, **arrays):
        fh.write(b"half")
        raise OSError("disk full (test)")

    monkeypatch.setattr(np, "savez", crash)
    with pytest.raises(OSError, match="disk full"):
        store.put(t, dict(a=np.ones(3)))
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(KeyError):
        store.get(t)


def _corrupt(path, how):
    if how == "truncated":
        path.write_text(path.read_text()[:40])
    elif how == "other config":
        data = json.loads(path.read_text())
        data["config"]["i"] = 99
        path.write_text(json.dumps(data))
    elif how == "not ours":
        path.write_text(json.dumps({"hello": 1}))
    elif how == "missing npz":
        path.with_suffix(".npz").unlink()
    elif how == "binary":
        path.write_bytes(b"\xff\xfe\x00garbage")


@pytest.mark.parametrize("how", ["truncated", "other config", "not ours", "missing npz", "binary"])
def test_corrupt_store_file_is_an_error_on_read_and_recomputed_with_a_warning_by_run(tmp_path, how):
    store = ResultStore(tmp_path)
    tasks = counting_tasks(3)
    first = run_tasks(tasks, store, "serial").results
    path = store.path(tasks[1].key)
    _corrupt(path, how)
    with pytest.raises(StoreError):
        store.read(tasks[1].key)
    CALLS.clear()
    with pytest.warns(RuntimeWarning, match="recomputing task 't1'"):
        report = run_tasks(tasks, store, "serial")
    assert CALLS == [1] and report.computed == [1] and report.reused == [0, 2]
    same_results(report.results, first)
    store.read(tasks[1].key)  # repaired


# ------------------------------------------------------------------ resume, failures, shards
def test_second_run_computes_nothing(tmp_path):
    store = ResultStore(tmp_path)
    tasks = counting_tasks(4)
    one = run_tasks(tasks, store, "serial")
    assert CALLS == [0, 1, 2, 3] and one.computed == [0, 1, 2, 3] and one.reused == []
    CALLS.clear()
    two = run_tasks(tasks, store, "serial")
    assert CALLS == [] and two.computed == [] and two.reused == [0, 1, 2, 3]
    same_results(one.results, two.results)  # fresh results went through the same JSON round trip
    assert all(s is not None and s >= 0 for s in two.seconds)
    CALLS.clear()
    run_tasks(counting_tasks(5), store, "serial")  # a bigger run reuses the common tasks
    assert CALLS == [4]
    CALLS.clear()
    run_tasks(counting_tasks(2, version="2"), store, "serial")  # a new version recomputes
    assert CALLS == [0, 1]


def test_failed_tasks_are_reported_and_the_rest_kept(tmp_path):
    store = ResultStore(tmp_path)
    with pytest.raises(TaskError) as err:
        run_tasks(counting_tasks(5, fail_on=[1, 3]), store, "serial")
    text = str(err.value)
    assert "2 of 5 task(s) failed" in text and "'t1': ValueError: boom 1" in text and "'t3'" in text
    assert "Traceback" in text and str(store.folder) in text
    assert isinstance(err.value, CertiprogError) and len(store) == 3
    CALLS.clear()
    report = run_tasks(counting_tasks(5), store, "serial")  # resumes: only the failed ones
    assert CALLS == [1, 3] and report.reused == [0, 2, 4]


def test_a_broken_executor_is_a_task_error_and_keeps_what_arrived(tmp_path, monkeypatch):
    def breaks(items, jobs, scheduler):
        first = items[0]
        yield R.call(first[0], first[1].function, first[1].config, first[1].extra)
        raise RuntimeError("worker killed (test)")

    monkeypatch.setitem(R._EXECUTE, "serial", breaks)
    store = ResultStore(tmp_path)
    with pytest.raises(TaskError, match="serial executor failed after 1 of 3 task.*worker killed"):
        run_tasks(counting_tasks(3), store, "serial")
    assert len(store) == 1


def test_shards_then_merge_equal_a_full_run(tmp_path):
    tasks = tiny(7)
    full = run_tasks(tasks, ResultStore(tmp_path / "full"), "serial").results
    shards = [ResultStore(tmp_path / f"shard{i}") for i in range(3)]
    for i, s in enumerate(shards):
        rep = run_tasks(tasks, s, "serial", shard=f"{i}/3")
        assert rep.computed == list(range(i, 7, 3)) and rep.shard == (i, 3)
        assert all((r is None) == (k % 3 != i) for k, r in enumerate(rep.results))
    merged = ResultStore(tmp_path / "merged")
    assert merged.merge(*shards) == dict(copied=7, present=0, bad=0)
    assert merged.merge(*shards)["present"] == 7  # merging again copies nothing
    report = run_tasks(tasks, merged, "serial")
    assert report.computed == [] and len(report.reused) == 7
    same_results(report.results, full)


def test_merge_skips_corrupt_files_with_a_warning(tmp_path):
    tasks = counting_tasks(3)
    src = ResultStore(tmp_path / "src")
    run_tasks(tasks, src, "serial")
    _corrupt(src.path(tasks[0].key), "truncated")
    dst = ResultStore(tmp_path / "dst")
    with pytest.warns(RuntimeWarning, match="merge: skipped"):
        counts = dst.merge(tmp_path / "src")
    assert counts == dict(copied=2, present=0, bad=1) and tasks[0] not in dst
    _corrupt(dst.path(tasks[1].key), "other config")  # a bad file in the target is replaced by a good one
    other = ResultStore(tmp_path / "other")
    run_tasks(tasks, other, "serial")
    assert dst.merge(other) == dict(copied=2, present=1, bad=0)
    assert dst.get(tasks[1]) is not None and dst.get(tasks[0]) is not None
    with pytest.raises(InputError, match="not a folder"):
        dst.merge(tmp_path / "nowhere")


@pytest.mark.parametrize("kwargs, message", [
    (dict(executor="spark"), "--executor"), (dict(jobs=0), "--jobs"), (dict(jobs=1.5), "--jobs"),
    (dict(shard="3/3"), "0 <= i < n"), (dict(shard="a/b"), "i/n"), (dict(shard="1"), "i/n"),
])
def test_bad_run_options(kwargs, message):
    with pytest.raises(InputError, match=message):
        run_tasks(counting_tasks(2), None, **{"executor": "serial", **kwargs})


def test_duplicate_tasks_and_non_tasks_are_refused():
    with pytest.raises(InputError, match="same function, config and version"):
        run_tasks([Task("a", counted, dict(i=1)), Task("b", counted, dict(i=1))], None, "serial")
    with pytest.raises(InputError, match="not a Task"):
        run_tasks([(counted, 1)], None, "serial")


def test_progress_bar_is_quiet_off_a_terminal(capsys):
    run_tasks(counting_tasks(3), None, "serial")  # progress=None, and pytest's stderr is no terminal
    assert capsys.readouterr().err == ""
    run_tasks(counting_tasks(3), None, "serial", progress=True, desc="shown")
    assert "shown" in capsys.readouterr().err


# ------------------------------------------------------------------ executors
def test_loky_gives_the_serial_results():
    tasks = tiny(6)
    serial = run_tasks(tasks, None, "serial").results
    loky = run_tasks(tasks, None, "loky", jobs=2)
    same_results(loky.results, serial)
    assert loky.executor == "loky" and loky.jobs == 2


def test_dask_local_cluster_gives_the_serial_results(tmp_path):
    pytest.importorskip("dask.distributed")
    tasks = tiny(4)
    serial = run_tasks(tasks, None, "serial").results
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # distributed's own deprecation / port notices
        report = run_tasks(tasks, ResultStore(tmp_path), "dask", jobs=2)
    same_results(report.results, serial)
    assert report.computed == [0, 1, 2, 3]


def test_dask_given_a_client_uses_it_and_leaves_it_open():
    distributed = pytest.importorskip("dask.distributed")
    tasks = tiny(3, keep_samples=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with distributed.Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as client:
            report = run_tasks(tasks, None, "dask", scheduler=client)
            assert client.status == "running"
    same_results(report.results, run_tasks(tasks, None, "serial").results)


def test_ray_local_gives_the_serial_results(tmp_path):
    pytest.importorskip("ray")
    tasks = tiny(3)
    serial = run_tasks(tasks, None, "serial").results
    where = Task("node address", "ray.util:get_node_ip_address", {})  # run in a Ray worker
    report = run_tasks([*tasks, where], ResultStore(tmp_path), "ray", jobs=2)
    same_results(report.results[:3], serial)
    assert report.results[3] == "127.0.0.1"  # a local Ray stays on the loopback address
    import ray

    assert not ray.is_initialized()  # the runner shut down the Ray it started
    assert ray._private.ray_constants.ENABLE_RAY_CLUSTER == (sys.platform not in ("darwin", "win32"))


@pytest.mark.parametrize("executor, module, extra", [("dask", "dask.distributed", "certiprog[dask]"),
                                                     ("ray", "ray", "certiprog[ray]")])
def test_missing_cluster_package_names_the_extra(executor, module, extra, monkeypatch):
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    with pytest.raises(BackendError, match=extra.replace("[", r"\[").replace("]", r"\]")):
        run_tasks(tiny(2), None, executor)


def test_unreachable_dask_scheduler_is_a_backend_error(monkeypatch):
    pytest.importorskip("dask.distributed")
    monkeypatch.setattr(R, "CONNECT_TIMEOUT", "1s")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(BackendError, match="cannot reach the Dask scheduler tcp://127.0.0.1:9"):
            R._dask([], 1, "tcp://127.0.0.1:9").__next__()


# ------------------------------------------------------------------ reproduce (the CLI's path)
def parse(argv):
    parser = argparse.ArgumentParser()
    R.add_arguments(parser)
    example.add_arguments(parser)
    return parser.parse_args(argv)


def test_reproduce_resumes_shards_and_merges(tmp_path):
    full = R.reproduce(example, parse(["--reps", "5", "--out", str(tmp_path / "full"), "--executor", "serial"]))
    assert list(full.paths) == ["summary.md", "means.csv"] and full.report.computed == [0, 1, 2, 3, 4]
    again = R.reproduce(example, parse(["--reps", "5", "--out", str(tmp_path / "full")]))
    assert again.report.computed == [] and "0 computed, 5 reused" in again.paths["summary.md"].read_text()
    for i in range(2):
        part = R.reproduce(example, parse(["--reps", "5", "--out", str(tmp_path / f"s{i}"), "--shard", f"{i}/2",
                                           "--executor", "serial"]))
        assert list(part.paths) == [f"shard-{i}-of-2.md"] and not (tmp_path / f"s{i}" / "means.csv").exists()
    merged = R.reproduce(example, parse(["--reps", "5", "--out", str(tmp_path / "m"), "--merge", str(tmp_path / "s0"),
                                         str(tmp_path / "s1")]))
    assert merged.merged["copied"] == 5 and merged.report.computed == []
    assert (tmp_path / "m" / "means.csv").read_text() == (tmp_path / "full" / "means.csv").read_text()


@pytest.mark.parametrize("argv, message", [
    (["--scheduler", "tcp://x:1", "--executor", "serial"], "--scheduler is for"),
    (["--shard", "0/2", "--merge", "."], "do not go together"),
    (["--merge", "/nonexistent/dir"], "not a folder"),
    (["--jobs", "0"], "--jobs"),
    (["--reps", "0"], "--reps"),
])
def test_reproduce_bad_options_write_nothing(argv, message, tmp_path):
    with pytest.raises(InputError, match=message):
        R.reproduce(example, parse(["--out", str(tmp_path / "o"), *argv]))
    assert not (tmp_path / "o").exists()


def test_scheduler_implies_dask():
    assert R.options_from_args(parse(["--scheduler", "tcp://h:8786"])).executor == "dask"
    assert R.options_from_args(parse(["--scheduler", "auto", "--executor", "ray"])).executor == "ray"
    assert R.options_from_args(parse([])).executor == "loky" and R.options_from_args(parse([])).progress is None
    assert R.options_from_args(parse(["--no-progress", "--n-jobs", "3"])).progress is False


def test_number_list_parses_commas_and_spaces_and_names_bad_text():
    from certiprog.errors import InputError
    from certiprog.experiments.runner import number_list

    assert number_list("0.1,0.3 0.5") == (0.1, 0.3, 0.5)
    assert number_list(" 1e-3 , 2 ") == (1e-3, 2.0)
    assert number_list("") == ()
    with pytest.raises(InputError, match="numbers separated by commas"):
        number_list("0.1,abc")
