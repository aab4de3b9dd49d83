"""vstack / hstack / stack / concatenate follow numpy's semantics, checked against numpy itself with hypothesis.

Pieces are constants or Variables (whose values are the same arrays), so the check covers the coefficient
placement as well as the shapes. Where numpy refuses the shapes, certiprog raises a ShapeError; where numpy's
answer has more than 2 dimensions (certiprog's limit), a ShapeError too.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog.errors import ShapeError
from certiprog.model import Model, Variable, concatenate, hstack, minimize, norm2, stack, vstack

PROPERTY = settings(derandomize=True, deadline=None, max_examples=150, database=None)

OPS = {
    "vstack": (lambda xs: vstack(xs), np.vstack),
    "hstack": (lambda xs: hstack(xs), np.hstack),
    "concatenate0": (lambda xs: concatenate(xs), np.concatenate),
    "concatenate1": (lambda xs: concatenate(xs, axis=1), lambda xs: np.concatenate(xs, axis=1)),
    "concatenate-1": (lambda xs: concatenate(xs, axis=-1), lambda xs: np.concatenate(xs, axis=-1)),
    "concatenateNone": (lambda xs: concatenate(xs, axis=None), lambda xs: np.concatenate(xs, axis=None)),
    "stack0": (lambda xs: stack(xs), np.stack),
    "stack1": (lambda xs: stack(xs, axis=1), lambda xs: np.stack(xs, axis=1)),
    "stack-1": (lambda xs: stack(xs, axis=-1), lambda xs: np.stack(xs, axis=-1)),
}


@st.composite
def pieces(draw):
    """1..4 arrays of 0..2 dimensions; shapes often equal (so most draws are valid), sometimes not."""
    k = draw(st.integers(1, 4))
    base = draw(st.lists(st.integers(0, 3), min_size=0, max_size=2))
    out = []
    for i in range(k):
        shape = base if draw(st.booleans()) else draw(st.lists(st.integers(0, 3), min_size=0, max_size=2))
        size = int(np.prod(shape)) if shape else 1
        out.append(np.arange(size, dtype=float).reshape(shape) + 10.0 * i)
    return out


def _compare(op: str, arrays: list, as_variable: list):
    ours, theirs = OPS[op]
    vals, exprs = {}, []
    for a, use_var in zip(arrays, as_variable):
        if use_var:
            v = Variable(a.shape)
            vals[v] = a
            exprs.append(v)
        else:
            exprs.append(a)
    try:
        ref = theirs(arrays)
    except ValueError:  # numpy refuses these shapes (AxisError is a ValueError)
        with pytest.raises(ShapeError):
            ours(exprs)
        return
    if ref.ndim > 2:
        with pytest.raises(ShapeError):
            ours(exprs)
        return
    got = ours(exprs)
    assert got.shape == ref.shape, (op, [a.shape for a in arrays])
    np.testing.assert_array_equal(got.value_at(vals), ref)


@PROPERTY
@given(arrays=pieces(), op=st.sampled_from(sorted(OPS)))
def test_constant_pieces_match_numpy(arrays, op):
    _compare(op, arrays, [False] * len(arrays))


@PROPERTY
@given(arrays=pieces(), op=st.sampled_from(sorted(OPS)), data=st.data())
def test_variable_pieces_match_numpy(arrays, op, data):
    as_variable = data.draw(st.lists(st.booleans(), min_size=len(arrays), max_size=len(arrays)))
    _compare(op, arrays, as_variable)


def test_vstack_of_vectors_stacks_rows():
    """The trap this replaces: vstack([x, y]) of two vectors used to concatenate them."""
    x, y = Variable(3), Variable(3)
    assert vstack([x, y]).shape == (2, 3)
    assert hstack([x, y]).shape == (6,)
    assert concatenate([x, y]).shape == (6,)
    assert stack([x, y], axis=1).shape == (3, 2)
    with pytest.raises(ShapeError, match="same number of dimensions"):
        hstack([x, Variable((3, 1))])


def test_atoms_and_parameters_keep_their_place():
    """An atom inside a piece and a Parameter coefficient land in the right rows after stacking."""
    from certiprog.model import Parameter

    x = Variable(2, "x")
    p = Parameter(2, "p", value=np.array([2.0, 3.0]))
    e = stack([hstack([norm2(x), x[0]]), hstack([x[1], 1.0]), p * x], axis=1)  # (2, 3)
    xv = np.array([3.0, 4.0])
    ref = np.stack([[5.0, 3.0], [4.0, 1.0], [6.0, 12.0]], axis=1)
    np.testing.assert_allclose(e.value_at({x: xv}), ref)
    p.value = np.array([-1.0, 0.5])
    ref[:, 2] = [-3.0, 2.0]
    np.testing.assert_allclose(e.value_at({x: xv}), ref)


def test_stacked_model_solves():
    """vstack rows in a model: minimise the sum of a (2, 2) stack subject to entrywise bounds."""
    x, y = Variable(2, "x"), Variable(2, "y")
    M = vstack([x, 2.0 * y])
    sol = Model(minimize(M.sum()), [M >= np.array([[1.0, 2.0], [3.0, 4.0]])]).solve(backend="clarabel")
    np.testing.assert_allclose(sol.value("x"), [1.0, 2.0], atol=1e-7)
    np.testing.assert_allclose(sol.value("y"), [1.5, 2.0], atol=1e-7)


@pytest.mark.parametrize("bad", [3, "ab", None, [], [[1.0, 2.0]] * 0])
def test_bad_lists_raise_shape_errors(bad):
    for fn in (vstack, hstack, stack, concatenate):
        with pytest.raises(ShapeError):
            fn(bad)


@pytest.mark.parametrize("axis", [2, -3, 1.0, True, "0"])
def test_bad_axis_raises(axis):
    x = Variable((2, 2))
    with pytest.raises(ShapeError, match="axis"):
        concatenate([x, x], axis=axis)
    with pytest.raises(ShapeError, match="axis"):
        stack([x[0], x[1]], axis=axis)


def test_parameter_pieces_follow_their_value():
    """A Parameter stacked as a piece is read at each evaluation (its constant stays lazy)."""
    from certiprog.model import Parameter

    x = Variable(2, "x")
    p = Parameter(2, "p", value=np.array([5.0, 6.0]))
    e = hstack([p.reshape((2, 1)), vstack([x, np.ones(2)]).T])
    xv = np.array([1.0, 2.0])
    np.testing.assert_array_equal(e.value_at({x: xv}), [[5.0, 1.0, 1.0], [6.0, 2.0, 1.0]])
    p.value = np.array([7.0, 8.0])
    np.testing.assert_array_equal(e.value_at({x: xv}), [[7.0, 1.0, 1.0], [8.0, 2.0, 1.0]])
