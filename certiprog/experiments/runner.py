"""One runner for every ``certiprog reproduce NAME``: a list of tasks, a store of their results, an aggregation.

A `Task` is a pure function of a JSON configuration ("module:function" plus a dict). Its result goes to a
`ResultStore`: one JSON file per task, named by a hash of (function, configuration, version), written atomically
and validated on load. So an interrupted run resumes (finished tasks are read back, not recomputed), a big run can
be split with ``--shard i/n`` on several machines and the stores combined with ``--merge``, and the aggregation
(tables, CSV, plots) always sees results that went through the same JSON round trip, whether fresh or reused.

Tasks run through joblib on loky (default), in this process (``serial``), on a Dask cluster (``--scheduler
ADDRESS`` or a local one) or on Ray (``--executor ray``). Results are written by this process as they arrive, so the
workers need no shared disk. A task that raises does not stop the others: the run ends with a `TaskError` naming
every failed task once the rest are stored.

An experiment module (see `reproduce`) exposes ``add_arguments(parser)``, ``config_from_args(args)``,
``tasks(config) -> [Task]``, ``aggregate(config, results, out, meta) -> {file name: path}`` (the first file is the
report the CLI shows) and optionally ``default_out(config)``. `certiprog.experiments.kit.PaperExperiment` gives all
of them from a configuration dataclass; each paper's experiment subclasses it.
"""
from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import importlib
import json
import os
import platform
import tempfile
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import BackendError, CertiprogError, InputError

STORE_FORMAT = "certiprog-task-result/1"
EXECUTORS = ("loky", "serial", "dask", "ray")
_ARRAY = "__ndarray__"  # {"__ndarray__": name} stands for an array of the task's .npz file
CONNECT_TIMEOUT = "20s"  # to reach a Dask scheduler given by address


class StoreError(CertiprogError):
    """A result file that is not what its name promises (corrupt, truncated, another task's, missing arrays)."""


class TaskError(CertiprogError, RuntimeError):
    """One or more tasks raised; every other result is stored, so a rerun computes only the failed ones."""


# ----------------------------------------------------------------------------------------------------------------
# Tasks
# ----------------------------------------------------------------------------------------------------------------
def function_ref(fn) -> str:
    """``"module:qualname"`` of a module-level function (what a worker imports), checked to resolve back to it."""
    if isinstance(fn, str):
        resolve(fn)
        return fn
    ref = f"{getattr(fn, '__module__', None)}:{getattr(fn, '__qualname__', None)}"
    if "<" in ref or not callable(fn) or _try_resolve(ref) is not fn:
        raise InputError(f"task function {fn!r} must be a module-level function (importable as module:name), "
                         "so that every worker can import it")
    return ref


def _try_resolve(ref):
    try:
        return resolve(ref)
    except InputError:
        return None


@functools.lru_cache(maxsize=256)
def resolve(ref: str):
    """The function named by ``"module:qualname"``; InputError if it cannot be imported."""
    module, _, name = str(ref).partition(":")
    if not module or not name:
        raise InputError(f"task function {ref!r} must be written 'module:function'")
    try:
        obj = importlib.import_module(module)
        for part in name.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise InputError(f"task function {ref!r} cannot be imported: {exc}") from None
    if not callable(obj):
        raise InputError(f"task function {ref!r} is not callable")
    return obj


def canonical(obj, where: str = "config"):
    """``obj`` as plain JSON values (tuples -> lists, numpy scalars -> Python); InputError for anything else
    (arrays, objects, NaN, non-string keys): a configuration must be what its key says."""
    if isinstance(obj, dict):
        bad = [k for k in obj if not isinstance(k, str)]
        if bad:
            raise InputError(f"{where}: keys must be strings, got {bad[0]!r}")
        return {k: canonical(v, f"{where}[{k!r}]") for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [canonical(v, f"{where}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, np.generic) and not isinstance(obj, np.ndarray):
        obj = obj.item()
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, float):
        if not np.isfinite(obj):
            raise InputError(f"{where}: {obj} is not allowed in a task configuration (JSON has no NaN/inf)")
        return obj
    raise InputError(f"{where}: {type(obj).__name__} is not a JSON value; a task configuration holds only "
                     "dicts, lists, strings, numbers, booleans and None")


def _dumps(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def task_key(function: str, config: dict, version: str = "") -> str:
    """Stable content key: the first 24 hex digits of sha256 over (function, configuration, version)."""
    text = _dumps(dict(function=function, config=config, version=version, format=STORE_FORMAT))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


@dataclass(frozen=True)
class Task:
    """One unit of work: ``function(config, **extra)``, a pure function of ``config``.

    ``config`` (JSON values) and ``version`` (bump it when the code changes what the task returns) make the key;
    ``extra`` holds arguments that do not change the result (where the data lives, inner progress bars) and is not
    part of the key. ``function`` is a module-level callable or ``"module:function"``."""

    name: str
    function: object
    config: dict
    version: str = ""
    extra: dict = field(default_factory=dict)
    key: str = field(init=False, default="")

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise InputError(f"a task needs a non-empty name, got {self.name!r}")
        if not isinstance(self.config, dict):
            raise InputError(f"task {self.name!r}: config must be a dict, got {type(self.config).__name__}")
        set_ = functools.partial(object.__setattr__, self)
        set_("function", function_ref(self.function))
        set_("config", canonical(self.config, f"task {self.name!r} config"))
        set_("version", str(self.version))
        set_("extra", dict(self.extra or {}))
        set_("key", task_key(self.function, self.config, self.version))


# ----------------------------------------------------------------------------------------------------------------
# Results: JSON with arrays in a .npz beside
# ----------------------------------------------------------------------------------------------------------------
def encode(obj, arrays: dict | None, where: str = "result"):
    """JSON values of ``obj``; numpy arrays are moved to ``arrays`` and replaced by ``{"__ndarray__": name}``.

    ``arrays=None`` is the plain-JSON reading every experiment's ``results.json`` goes through
    (`certiprog.experiments.kit.write_json`): arrays become nested lists, NaN becomes None and +-inf the strings
    ``"inf"`` / ``"-inf"`` (strict JSON has neither), and number keys become strings. Anything else that is not a
    JSON value is an InputError naming where it is."""
    plain = arrays is None
    if isinstance(obj, dict):
        if _ARRAY in obj:
            raise InputError(f"{where}: the key {_ARRAY!r} is reserved for arrays")
        if plain:
            obj = {(str(k) if isinstance(k, (int, float, np.generic)) else k): v for k, v in obj.items()}
        bad = [k for k in obj if not isinstance(k, str)]
        if bad:
            raise InputError(f"{where}: keys must be strings, got {bad[0]!r}")
        return {k: encode(v, arrays, f"{where}[{k!r}]") for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [encode(v, arrays, f"{where}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind not in "biufc":
            raise InputError(f"{where}: only numeric or boolean arrays can be stored (no pickle), got {obj.dtype}")
        if arrays is None:  # plain
            return encode(obj.tolist(), arrays, where)
        name = f"a{len(arrays)}"
        arrays[name] = obj
        return {_ARRAY: name}
    if isinstance(obj, np.generic):
        obj = obj.item()
    if plain and isinstance(obj, float) and not np.isfinite(obj):
        return None if np.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    raise InputError(f"{where}: a task returned {type(obj).__name__}; results must be JSON values or numpy arrays")


def decode(obj, arrays):
    """Inverse of `encode`: ``{"__ndarray__": name}`` -> ``arrays[name]``."""
    if isinstance(obj, dict):
        if set(obj) == {_ARRAY}:
            return arrays[obj[_ARRAY]]
        return {k: decode(v, arrays) for k, v in obj.items()}
    if isinstance(obj, list):
        return [decode(v, arrays) for v in obj]
    return obj


def normalise(result) -> Any:
    """``result`` as a store gives it back (tuples -> lists, numpy scalars -> Python, arrays kept)."""
    arrays: dict = {}
    return decode(json.loads(json.dumps(encode(result, arrays))), arrays)


def _atomic_write(path: Path, write) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class ResultStore:
    """One ``KEY.json`` per task in ``folder`` (and ``KEY.npz`` when the result holds arrays).

    Files are written through a temporary file and `os.replace`, so a run killed mid-write leaves either the old
    state or the whole file; every file is validated on load (format, key = hash of its own function, config and
    version, arrays present) and a bad one raises `StoreError`. The folder is created on the first write."""

    def __init__(self, folder):
        self.folder = Path(folder)

    def __repr__(self):
        return f"ResultStore({str(self.folder)!r})"

    def path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def keys(self) -> list[str]:
        """Keys of every result file present (not validated)."""
        return sorted(p.stem for p in self.folder.glob("*.json")) if self.folder.is_dir() else []

    def __contains__(self, task: Task) -> bool:
        return self.path(task.key).is_file()

    def __len__(self) -> int:
        return len(self.keys())

    def read(self, key: str) -> dict:
        """The validated record of ``key`` (format, key, name, function, config, version, result, seconds), with
        its arrays decoded; `StoreError` if the file is absent, corrupt or not this key's."""
        path = self.path(key)
        try:
            record = json.loads(path.read_text())
        except FileNotFoundError:
            raise StoreError(f"{path}: no such result file") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise StoreError(f"{path}: not a readable JSON file ({exc})") from None
        need = {"format", "key", "name", "function", "config", "version", "result", "arrays"}
        if not isinstance(record, dict) or not need <= set(record) or record["format"] != STORE_FORMAT:
            raise StoreError(f"{path}: not a certiprog task result ({STORE_FORMAT} with {sorted(need)})")
        try:
            expected = task_key(record["function"], canonical(record["config"]), str(record["version"]))
        except InputError as exc:
            raise StoreError(f"{path}: bad configuration ({exc})") from None
        if not (record["key"] == key == expected):
            raise StoreError(f"{path}: its content hashes to {expected}, not to its name {key}")
        names = record["arrays"]
        arrays = {}
        if names:
            npz = path.with_suffix(".npz")
            try:
                with np.load(npz, allow_pickle=False) as data:
                    arrays = {n: data[n] for n in data.files}
            except (OSError, ValueError) as exc:
                raise StoreError(f"{npz}: the arrays of {path.name} cannot be read ({exc})") from None
            if sorted(arrays) != sorted(names):
                raise StoreError(f"{npz}: holds {sorted(arrays)}, {path.name} expects {sorted(names)}")
        try:
            record["result"] = decode(record["result"], arrays)
        except (KeyError, TypeError) as exc:
            raise StoreError(f"{path}: refers to a missing array ({exc})") from None
        return record

    def get(self, task: Task):
        """The stored result of ``task``; KeyError if there is none, `StoreError` if its file is bad."""
        if task not in self:
            raise KeyError(task.key)
        record = self.read(task.key)
        if record["function"] != task.function or record["config"] != task.config:
            raise StoreError(f"{self.path(task.key)}: stored for another task")
        return record["result"]

    def put(self, task: Task, result, seconds: float | None = None):
        """Store ``result`` atomically; returns it as `get` will give it back."""
        arrays: dict = {}
        encoded = encode(result, arrays, f"result of task {task.name!r}")
        record = dict(format=STORE_FORMAT, key=task.key, name=task.name, function=task.function,
                      config=task.config, version=task.version, result=encoded, arrays=sorted(arrays),
                      seconds=seconds, host=platform.node(), written=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
        self._write(record, arrays)
        return decode(json.loads(json.dumps(encoded)), arrays)

    def _write(self, record: dict, arrays: dict) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.path(record["key"])
        if arrays:  # arrays first: the JSON file is what marks the task done
            _atomic_write(path.with_suffix(".npz"), lambda fh: np.savez(fh, **arrays))
        text = json.dumps(record, indent=1).encode()
        _atomic_write(path, lambda fh: fh.write(text))
        if not arrays:
            with contextlib.suppress(FileNotFoundError):
                path.with_suffix(".npz").unlink()

    def merge(self, *sources) -> dict:
        """Copy into this store every valid result of the ``sources`` (stores, or folders holding one, or an
        output folder with a ``tasks/`` store) that it lacks; a bad file is skipped with a warning.
        Returns counts: copied, present (already here), bad."""
        counts = dict(copied=0, present=0, bad=0)
        for src in sources:
            other = src if isinstance(src, ResultStore) else ResultStore(_store_folder(src))
            if not other.folder.is_dir():
                raise InputError(f"--merge: {other.folder} is not a folder of task results")
            if other.folder.resolve() == self.folder.resolve():
                continue
            for key in other.keys():
                if self.path(key).is_file():
                    try:
                        self.read(key)
                    except StoreError:  # a bad file here: take the source's
                        pass
                    else:
                        counts["present"] += 1
                        continue
                try:
                    record = other.read(key)
                except StoreError as exc:
                    warnings.warn(f"merge: skipped {exc}", RuntimeWarning, stacklevel=2)
                    counts["bad"] += 1
                    continue
                arrays: dict = {}
                record["result"] = encode(record["result"], arrays)
                record["arrays"] = sorted(arrays)
                self._write(record, arrays)
                counts["copied"] += 1
        return counts


def _store_folder(path) -> Path:
    path = Path(path)
    return path / "tasks" if (path / "tasks").is_dir() else path


# ----------------------------------------------------------------------------------------------------------------
# Running
# ----------------------------------------------------------------------------------------------------------------
@dataclass
class RunReport:
    """What `run_tasks` did. ``results`` in task order (None for the tasks of other shards); ``computed`` and
    ``reused`` are task indices; ``seconds`` the compute time of each result (None if unknown)."""

    results: list
    computed: list
    reused: list
    seconds: list
    wall_time_s: float
    executor: str
    jobs: int
    shard: tuple | None = None


def number_list(text) -> tuple:
    """A command-line list of numbers, ``"0.1,0.3 0.5"`` -> ``(0.1, 0.3, 0.5)``: the experiments' one parser."""
    try:
        return tuple(float(v) for v in str(text).replace(",", " ").split())
    except ValueError:
        raise InputError(f"expected numbers separated by commas, got {text!r}") from None


def parse_shard(text) -> tuple | None:
    """``"i/n"`` -> (i, n) with 0 <= i < n; None stays None."""
    if text is None:
        return None
    if isinstance(text, tuple):
        i, n = text
    else:
        try:
            i, n = (int(v) for v in str(text).split("/"))
        except ValueError:
            raise InputError(f"--shard must be i/n (e.g. 0/4), got {text!r}") from None
    if not (n >= 1 and 0 <= i < n):
        raise InputError(f"--shard i/n needs 0 <= i < n, got {i}/{n}")
    return int(i), int(n)


def _check_run_options(executor, jobs) -> None:
    if executor not in EXECUTORS:
        raise InputError(f"--executor must be one of {', '.join(EXECUTORS)}; got {executor!r}")
    if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)) or jobs == 0:
        raise InputError(f"--jobs must be a nonzero integer (-1 = all cores), got {jobs!r}")


def _workers(jobs: int) -> int:
    return max(1, (os.cpu_count() or 1) + 1 + jobs) if jobs < 0 else int(jobs)


def call(index: int, ref: str, config: dict, extra: dict) -> tuple:
    """Run one task in a worker: (index, "ok", result, None, seconds) or (index, "error", message, traceback,
    seconds). The function gets its own copy of the configuration."""
    t0 = time.perf_counter()
    try:
        result = resolve(ref)(copy.deepcopy(config), **extra)
    except Exception as exc:  # reported by the driver with the task's name, the other tasks go on
        return index, "error", f"{type(exc).__name__}: {exc}", traceback.format_exc(), time.perf_counter() - t0
    return index, "ok", result, None, time.perf_counter() - t0


def _serial(items, jobs, scheduler):
    for i, t in items:
        yield call(i, t.function, t.config, t.extra)


def _loky(items, jobs, scheduler):
    from joblib import Parallel, delayed

    yield from Parallel(n_jobs=jobs, backend="loky", return_as="generator_unordered")(
        delayed(call)(i, t.function, t.config, t.extra) for i, t in items)


def _dask(items, jobs, scheduler):
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError as exc:
        raise BackendError(f"the dask executor needs dask.distributed ({exc}): pip install 'certiprog[dask]'") \
            from None
    cluster = None
    if scheduler is not None and hasattr(scheduler, "submit"):  # a Client given by a Python caller
        client, own = scheduler, False
    else:
        own = True
        try:
            if scheduler:
                client = Client(scheduler, timeout=CONNECT_TIMEOUT)
            else:
                import logging

                cluster = LocalCluster(n_workers=_workers(jobs), threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None, silence_logs=logging.ERROR)
                client = Client(cluster)
        except Exception as exc:
            if cluster is not None:
                cluster.close()
            hint = "" if scheduler else (" (a script that starts a local cluster must run it under "
                                         "`if __name__ == '__main__':`)")
            raise BackendError(f"cannot reach the Dask scheduler {scheduler or '(local cluster)'}: "
                               f"{type(exc).__name__}: {exc}{hint}") from None
    try:
        futures = {client.submit(call, i, t.function, t.config, t.extra, pure=False,
                                 key=f"certiprog-{t.key}-{i}"): i for i, t in items}
        for future in as_completed(futures):
            try:
                yield future.result()
            except Exception as exc:  # the worker died (memory, segfault): this task failed, the others go on
                yield futures[future], "error", f"{type(exc).__name__}: {exc}", None, 0.0
    finally:
        if own:
            client.close()
        if cluster is not None:
            cluster.close()


@contextlib.contextmanager
def _ray_on_loopback():
    """A local Ray whose processes talk over 127.0.0.1 only (Ray's own switch for single-machine use; by default
    on Linux it binds to the machine's network address)."""
    name = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
    old_env = os.environ.get(name)
    os.environ[name] = "0"
    try:
        from ray._private import ray_constants
    except ImportError:  # another Ray layout: its defaults apply
        ray_constants = None
    old = getattr(ray_constants, "ENABLE_RAY_CLUSTER", None)
    if old is not None:
        ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        if old is not None:
            ray_constants.ENABLE_RAY_CLUSTER = old
        if old_env is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old_env


def _ray(items, jobs, scheduler):
    try:
        import ray
    except ImportError as exc:
        raise BackendError(f"the ray executor needs ray ({exc}): pip install 'certiprog[ray]'") from None
    started = not ray.is_initialized()
    local = contextlib.nullcontext() if scheduler or not started else _ray_on_loopback()
    with local:
        yield from _ray_run(ray, items, jobs, scheduler, started)


def _ray_run(ray, items, jobs, scheduler, started):
    if started:
        options = dict(include_dashboard=False, log_to_driver=False, configure_logging=False)
        try:
            if scheduler:
                ray.init(address=scheduler, **options)
            else:
                ray.init(num_cpus=_workers(jobs), **options)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise BackendError(f"cannot start or reach Ray {scheduler or '(local)'}: {exc}") from None
    try:
        remote = ray.remote(num_cpus=1)(call)
        index = {remote.remote(i, t.function, t.config, t.extra): i for i, t in items}
        pending = list(index)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            try:
                yield ray.get(done[0])
            except Exception as exc:  # the worker died: this task failed, the others go on
                yield index[done[0]], "error", f"{type(exc).__name__}: {exc}", None, 0.0
    finally:
        if started:
            ray.shutdown()


_EXECUTE = dict(serial=_serial, loky=_loky, dask=_dask, ray=_ray)


def run_tasks(tasks, store: ResultStore | None = None, executor: str = "loky", jobs: int = 1, scheduler=None,
              shard=None, progress: bool | None = None, desc: str = "tasks") -> RunReport:
    """Run the ``tasks`` not yet in ``store`` (None: keep nothing) and return every result in task order.

    ``executor``: "loky" (joblib processes, default), "serial" (this process), "dask" (``scheduler`` = an
    address such as ``tcp://host:8786`` or a ``Client``; None: a local cluster of ``jobs`` processes) or "ray"
    (``scheduler`` = a Ray address; None: a local Ray). ``shard=(i, n)`` or ``"i/n"``: only the tasks whose index
    is i mod n. ``progress``: None shows a bar only on a terminal. A stored file that is corrupt or not the task's
    is recomputed (and overwritten) with a warning. Results are stored as they arrive; a task that raises does not
    stop the others and the call ends with a `TaskError` listing every failure."""
    from tqdm.auto import tqdm

    tasks = list(tasks)
    _check_run_options(executor, jobs)
    shard = parse_shard(shard)
    seen: dict[str, int] = {}  # task key -> its index
    for i, t in enumerate(tasks):
        if not isinstance(t, Task):
            raise InputError(f"tasks[{i}] is a {type(t).__name__}, not a Task")
        if t.key in seen:
            raise InputError(f"tasks {seen[t.key]} ({tasks[seen[t.key]].name!r}) and {i} ({t.name!r}) have the "
                             "same function, config and version: they would share one result")
        seen[t.key] = i
    start = time.perf_counter()
    selected = [i for i in range(len(tasks)) if shard is None or i % shard[1] == shard[0]]
    results: list = [None] * len(tasks)  # each task's result (None until it is done)
    seconds: list[float | None] = [None] * len(tasks)
    reused: list[int] = []
    pending: list[int] = []
    for i in selected:
        if store is not None and tasks[i] in store:
            try:
                record = store.read(tasks[i].key)
                if record["function"] != tasks[i].function or record["config"] != tasks[i].config:
                    raise StoreError(f"{store.path(tasks[i].key)}: stored for another task")
            except StoreError as exc:
                warnings.warn(f"recomputing task {tasks[i].name!r}: {exc}", RuntimeWarning, stacklevel=2)
            else:
                results[i], seconds[i] = record["result"], record.get("seconds")
                reused.append(i)
                continue
        pending.append(i)
    failures = []
    if pending:
        bar = tqdm(total=len(pending), desc=desc, disable=None if progress is None else not progress, leave=False)
        items = [(i, tasks[i]) for i in pending]
        received = 0
        try:
            with contextlib.closing(_EXECUTE[executor](items, jobs, scheduler)) as outcomes, bar:
                for i, status, value, trace, dt in outcomes:
                    received += 1
                    if status == "ok":
                        try:
                            results[i] = store.put(tasks[i], value, dt) if store is not None else normalise(value)
                        except InputError as exc:
                            failures.append((i, str(exc), None))
                        seconds[i] = dt
                    else:
                        failures.append((i, value, trace))
                    bar.update()
        except (CertiprogError, KeyboardInterrupt, OSError):
            raise
        except Exception as exc:  # the executor itself broke (a loky worker killed, a lost cluster)
            kept = f"; the {received} result(s) received are in {store.folder}" if store is not None else ""
            raise TaskError(f"the {executor} executor failed after {received} of {len(items)} task(s): "
                            f"{type(exc).__name__}: {exc}{kept}, a rerun computes the rest") from exc
    if failures:
        failures.sort()
        lines = [f"  {tasks[i].name!r}: {message}" for i, message, _ in failures]
        first = next((trace for _, _, trace in failures if trace), "")
        kept = f"; the other results are in {store.folder}, a rerun computes only these" if store else ""
        raise TaskError(f"{len(failures)} of {len(tasks)} task(s) failed{kept}:\n" + "\n".join(lines)
                        + (f"\nfirst traceback:\n{first}" if first else ""))
    computed = sorted(set(pending))
    return RunReport(results, computed, reused, seconds, time.perf_counter() - start, executor, int(jobs), shard)


# ----------------------------------------------------------------------------------------------------------------
# ``certiprog reproduce NAME``
# ----------------------------------------------------------------------------------------------------------------
def add_arguments(parser) -> None:
    """The options every ``certiprog reproduce NAME`` shares (running, resuming, sharding, merging)."""
    g = parser.add_argument_group("running (every experiment)")
    g.add_argument("--out", default=None, help="output folder; task results are kept in OUT/tasks, so a rerun "
                   "resumes (default: results/NAME, or the experiment's own)")
    g.add_argument("--executor", choices=EXECUTORS, default=None,
                   help="where tasks run: loky (joblib processes, default), serial (this process), dask (a local "
                        "cluster, or --scheduler), ray (local, or --scheduler)")
    g.add_argument("--jobs", "--n-jobs", dest="jobs", type=int, default=1,
                   help="parallel workers (loky, local dask or ray; -1 = all cores; default 1)")
    g.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="a running Dask scheduler (tcp://host:8786; implies --executor dask) or, with --executor "
                        "ray, a Ray address (auto, ray://host:10001)")
    g.add_argument("--shard", default=None, metavar="I/N",
                   help="run only the tasks whose index is I mod N (0 <= I < N) and stop before the tables; "
                        "combine the shards with --merge")
    g.add_argument("--merge", nargs="+", default=None, metavar="DIR",
                   help="copy the task results of these output folders (of --shard runs) into OUT/tasks, then "
                        "aggregate (tasks still missing are computed)")
    g.add_argument("--no-progress", action="store_true", help="hide the progress bars (shown only on a terminal)")


@dataclass
class RunOptions:
    """The shared options, validated."""

    out: str | None = None
    executor: str = "loky"
    jobs: int = 1
    scheduler: str | None = None
    shard: tuple | None = None
    merge: tuple = ()
    progress: bool | None = None


def options_from_args(args) -> RunOptions:
    """`RunOptions` from parsed arguments; InputError naming the option for bad values."""
    executor = getattr(args, "executor", None)
    scheduler = getattr(args, "scheduler", None)
    if executor is None:
        executor = "dask" if scheduler else "loky"
    if scheduler and executor not in ("dask", "ray"):
        raise InputError(f"--scheduler is for --executor dask or ray, not {executor}")
    jobs = getattr(args, "jobs", 1)
    _check_run_options(executor, jobs)
    merge = tuple(getattr(args, "merge", None) or ())
    for folder in merge:
        if not Path(folder).is_dir():
            raise InputError(f"--merge: {folder} is not a folder")
    shard = parse_shard(getattr(args, "shard", None))
    if shard and merge:
        raise InputError("--shard and --merge do not go together: run the shards, then merge them in one call")
    return RunOptions(out=getattr(args, "out", None), executor=executor, jobs=jobs, scheduler=scheduler,
                      shard=shard, merge=merge, progress=False if getattr(args, "no_progress", False) else None)


@dataclass
class Reproduction:
    """What `reproduce` did: the written files (report first), the run and the store."""

    paths: dict
    report: RunReport
    store: ResultStore
    merged: dict | None = None


def is_task_experiment(module) -> bool:
    """True if ``module`` follows the task protocol (else it is a legacy module with its own ``run(args)``)."""
    return all(hasattr(module, n) for n in ("add_arguments", "config_from_args", "tasks", "aggregate"))


def default_folder(module, cfg, name: str) -> str:
    """Where a run writes when ``--out`` is not given: the experiment's ``default_out(cfg)`` or ``results/NAME``,
    with ``-quick`` appended for a quick run (one rule for every paper: ``results/hp-mpm`` and
    ``results/hp-mpm-quick``), so a quick run never resumes from, or overwrites, a full run's results."""
    default_out = getattr(module, "default_out", None)
    out = str(default_out(cfg) if default_out else f"results/{name}")
    quick = bool(getattr(cfg, "quick", False) if not isinstance(cfg, dict) else cfg.get("quick", False))
    return f"{out}-quick" if quick and not out.endswith("-quick") else out


def reproduce(module, args, name: str | None = None) -> Reproduction:
    """``certiprog reproduce NAME`` for an experiment ``module``: validate, merge, run the missing tasks,
    aggregate (or, with ``--shard``, write ``shard-I-of-N.md`` and stop). Bad input raises a CertiprogError before
    anything is written."""
    opts = options_from_args(args)
    cfg = module.config_from_args(args)
    tasks = module.tasks(cfg)
    name = name or getattr(args, "experiment", None) or getattr(module, "name", None) \
        or module.__name__.rsplit(".", 1)[-1]
    out = Path(opts.out or default_folder(module, cfg, name))
    store = ResultStore(out / "tasks")
    merged = store.merge(*opts.merge) if opts.merge else None
    report = run_tasks(tasks, store, opts.executor, opts.jobs, opts.scheduler, opts.shard, opts.progress, name)
    meta = dict(wall_time_s=report.wall_time_s, n_tasks=len(tasks), n_computed=len(report.computed),
                n_reused=len(report.reused), task_seconds=float(sum(s for s in report.seconds if s)),
                executor=opts.executor, jobs=opts.jobs, store=str(store.folder), python=platform.python_version(),
                machine=platform.machine())
    if merged is not None:
        meta["merged"] = dict(merged, sources=[str(m) for m in opts.merge])
    if opts.shard is not None:
        i, n = opts.shard
        path = out / f"shard-{i}-of-{n}.md"
        out.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"# certiprog reproduce {name}: shard {i}/{n}\n\n"
            f"{len(report.computed)} task(s) computed, {len(report.reused)} reused, of the {len(tasks)} of the "
            f"run ({len(report.computed) + len(report.reused)} in this shard); results in {store.folder}.\n\n"
            f"When every shard is done: `certiprog reproduce {name} <the same options> --out DIR --merge "
            f"<the shards' --out folders>` writes the tables.\n")
        return Reproduction({path.name: path}, report, store, merged)
    paths = module.aggregate(cfg, report.results, out, meta)
    return Reproduction(paths, report, store, merged)
