"""The result contract: ``model.data`` (typed, with ``derive``), ``Model.derived`` and `Record` (issue 11 item 4)."""
import dataclasses
from dataclasses import dataclass

import numpy as np
import pytest

from certiprog.model import Model, Record, Variable, minimize, sum_squares


@dataclass(frozen=True, eq=False)
class _Point(Record):
    x: np.ndarray
    norm: float
    _hidden: int = 0


@dataclass(frozen=True, eq=False)
class _Data:
    target: np.ndarray

    def derive(self, sol):
        x = np.asarray(sol.value("x"), float)
        return _Point(x, float(np.linalg.norm(x - self.target)))


def _model(target=(1.0, 2.0)):
    x = Variable(2, "x")
    model = Model(minimize(sum_squares(x - np.asarray(target))), [x >= 0], name="projection")
    model.data = _Data(np.asarray(target, float))
    return model


def test_record_is_a_typed_read_only_mapping():
    p = _Point(np.array([3.0, 4.0]), 5.0, 7)
    assert p.norm == p["norm"] == 5.0 and list(p) == ["x", "norm"] and len(p) == 2  # private fields hidden
    assert dict(p).keys() == {"x", "norm"} and p.as_dict()["x"] is p.x and p.get("missing") is None
    assert "norm" in p and "_hidden" not in p
    with pytest.raises(KeyError, match="no field 'w'.*fields: \\['x', 'norm'\\]"):
        p["w"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.norm = 1.0
    with pytest.raises(TypeError):
        p["norm"] = 1.0  # read-only: no item assignment
    q = _Point(p.x, 5.0)
    assert p == p and p != q and len({p, q}) == 2  # identity, never an element-wise array comparison


def test_model_derived_uses_the_typed_data():
    model = _model()
    sol = model.solve()
    d = model.derived(sol)
    assert isinstance(d, _Point) and d.norm == pytest.approx(0.0, abs=1e-7)
    assert not hasattr(model, "info")  # no untyped results channel
    plain = Model(minimize(sum_squares(Variable(2, "y") - 1.0)))
    assert plain.data is None and plain.derived(plain.solve()) is None


def test_model_derived_is_none_without_a_primal_point():
    model = _model()
    x = model.variable("x")
    model.add(x[0] <= -1.0, name="impossible")  # x >= 0 and x_0 <= -1
    sol = model.solve()
    assert sol.status == "infeasible" and sol.x is None and model.derived(sol) is None
    assert model.derived(None) is None


# ------------------------------------------------------------------ the Formulation contract (issue 22 item 4)
def test_data_is_passed_to_the_model_and_checked():
    from certiprog.errors import ModelError
    from certiprog.model import Formulation, StructuredFormulation

    x = Variable(2, "x")
    data = _Data(np.array([1.0, 2.0]))
    model = Model(minimize(sum_squares(x - data.target)), [x >= 0], name="projection", data=data)
    assert model.data is data and isinstance(data, Formulation) and not isinstance(data, StructuredFormulation)
    d = model.derived(model.solve())
    assert isinstance(d, _Point) and d.norm == pytest.approx(0.0, abs=1e-7)
    with pytest.raises(ModelError, match="model.data should be a Formulation"):
        Model(minimize(sum_squares(x)), data={"derive": lambda sol: None})  # a dict is never a formulation
    with pytest.raises(ModelError, match="Formulation"):
        model.data = {}
    assert model.data is data  # a refused value leaves the data as it was
    for other in ("data", 3.0, object()):  # anything else stored there before issue 22: kept, with a warning
        with pytest.warns(DeprecationWarning, match="should be a Formulation.*derive"):
            assert Model(minimize(sum_squares(x)), data=other).data is other
    model.data = None
    assert model.derived(model.solve()) is None


def test_the_papers_structured_data_are_structured_formulations():
    from certiprog.formulations.error_clumping_paper.programs import error_clumping
    from certiprog.formulations.hinge_minimax_paper.programs import hinge_minimax
    from certiprog.model import StructuredFormulation

    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    for model in (hinge_minimax(X + 1.0, -np.ones(2), np.eye(2), 0.1, 0.3), error_clumping(X, y, 1.0, 0.5, 0.1)):
        data = model.data
        assert isinstance(data, StructuredFormulation), type(data).__name__
        assert isinstance(data.structured_auto(model.compile().assemble()), bool)
