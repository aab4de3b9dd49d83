"""`certiprog.solvers.first_order.progress_bar`: a tqdm bar only when asked for (a disabled tqdm still builds tqdm's
multiprocessing lock on its first use in a process, ~2 ms of a Letter-sized solve), and the solvers that take
``progress`` honour it both ways."""
import numpy as np
import pytest
import tqdm.auto

from certiprog.formulations.hinge_minimax_paper.solver import solve_hinge_minimax
from certiprog.solvers.first_order import progress_bar


class _Recorder:
    made: list = []

    def __init__(self, *args, **kwargs):
        _Recorder.made.append(kwargs)
        self.n = 0

    def update(self, n=1):
        self.n += n

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.fixture
def recorder(monkeypatch):
    _Recorder.made = []
    monkeypatch.setattr(tqdm.auto, "tqdm", _Recorder)
    return _Recorder


def test_a_disabled_bar_builds_no_tqdm(recorder):
    with progress_bar(10, False, "x") as bar:
        bar.update(1)
        bar.set_postfix(a=1)
    bar.close()
    assert recorder.made == []
    with progress_bar(10, True, "steps") as bar:
        bar.update(2)
    assert recorder.made == [dict(total=10, desc="steps", leave=False)] and bar.n == 2


@pytest.mark.parametrize("method", ["newton", "gradient"])
def test_hinge_minimax_solvers_make_a_bar_only_when_asked(recorder, method):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 4)) + 1.0
    Z = rng.normal(size=(400, 4)) - 1.0
    args = (X, Z.mean(axis=0), np.cov(Z.T), 1.0, 0.3)
    fit = solve_hinge_minimax(*args, bias=True, method=method, max_iter=300)
    assert recorder.made == [] and np.isfinite(fit.upper)
    fit2 = solve_hinge_minimax(*args, bias=True, method=method, max_iter=300, progress=True)
    assert len(recorder.made) >= 1 and fit2.upper == fit.upper and fit2.lower == fit.lower
