"""Input checks shared by the formulations and estimators: each failure is an `InputError` that names the argument,
what was given and the fix.

Arrays must be real and finite: complex input is refused (numpy's ``astype(float)`` would silently drop the
imaginary part), as are strings, None and ragged lists. Scalars must be real finite numbers (bools and numeric
strings are refused too: ``"1e-3"`` is almost always a configuration slip).
"""
from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from .errors import InputError, InputTypeError


def _given(x) -> str:
    """A short description of a given value for an error message."""
    if isinstance(x, np.ndarray):
        return f"an array of shape {x.shape} and dtype {x.dtype}"
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


def real_array(X, name: str) -> np.ndarray:
    """``X`` as a float ndarray (any shape); refuses complex, non-numeric and ragged input."""
    if sp.issparse(X):
        X = X.toarray()
    if X is None or isinstance(X, (str, bytes)):
        raise InputError(f"{name} must be a numeric array; got {_given(X)}")
    try:
        raw = np.asarray(X)
    except (TypeError, ValueError) as exc:  # ragged nested lists
        raise InputError(f"{name} must be a numeric array (a rectangular list or ndarray); got {_given(X)}") from exc
    if np.iscomplexobj(raw):
        raise InputError(f"{name} is complex ({_given(raw)}); certiprog works on real data: pass X.real if the "
                         "imaginary part is meant to be dropped")
    if raw.dtype.kind not in "biuf":
        try:
            raw = raw.astype(float)
        except (TypeError, ValueError) as exc:
            raise InputError(f"{name} must be numeric; got {_given(raw)} (strings, None or objects inside?)") from exc
    return np.asarray(raw, dtype=float)


def matrix(X, name: str, *, min_rows: int = 1, cols: int | None = None, min_cols: int = 0) -> np.ndarray:
    """A finite real 2-D float array with at least ``min_rows`` rows (and ``cols`` columns if given, at least
    ``min_cols`` otherwise)."""
    A = real_array(X, name)
    if A.ndim != 2:
        raise InputError(f"{name} must be 2-D (samples x features); got shape {A.shape}. "
                         "Use X.reshape(-1, 1) for one feature")
    if A.shape[0] < min_rows:
        raise InputError(f"{name} has {A.shape[0]} rows; at least {min_rows} needed (is a class empty?)")
    if cols is not None and A.shape[1] != cols:
        raise InputError(f"{name} has {A.shape[1]} columns; expected {cols} to match the other inputs")
    if A.shape[1] < min_cols:
        raise InputError(f"{name} has {A.shape[1]} columns; at least {min_cols} needed (one feature per column)")
    if not np.all(np.isfinite(A)):
        raise InputError(f"{name} contains NaN or inf: drop or impute those entries first")
    return A


def squares_representable(A: np.ndarray, name: str) -> np.ndarray:
    """``A`` (finite) if its sums of squared entries (covariances, squared distances) cannot overflow, else an
    InputError saying to rescale. A sum of n squares of entries up to a overflows when n a^2 > 1.8e308."""
    big = float(np.max(np.abs(A))) if A.size else 0.0
    if big > 0 and not np.isfinite(big * big * max(A.shape[0], 1) * max(A.shape[-1], 1)):
        raise InputError(f"{name} has entries up to {big:.3g}: its squared distances / covariances overflow float64. "
                         f"Rescale {name} (e.g. divide by its largest entry, or standardise the features)")
    return A


def vector(v, name: str, *, size: int | None = None) -> np.ndarray:
    """A finite real 1-D float array (any input shape is flattened), of ``size`` entries if given."""
    a = real_array(v, name).reshape(-1)
    if size is not None and a.size != size:
        raise InputError(f"{name} has {a.size} entries; expected {size}")
    if not np.all(np.isfinite(a)):
        raise InputError(f"{name} contains NaN or inf")
    return a


def scalar(x, name: str, *, low: float | None = None, high: float | None = None,
           low_open: bool = False, high_open: bool = False) -> float:
    """A finite real float in the stated interval (open ends where asked)."""
    if isinstance(x, (bool, np.bool_, str, bytes)) or not isinstance(x, (numbers.Real, np.ndarray, np.generic)):
        raise InputError(f"{name} must be a real number; got {_given(x)}")
    if np.iscomplexobj(np.asarray(x)):
        raise InputError(f"{name} must be a real number; got the complex {_given(x)}")
    try:
        v = float(x)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} must be a real number; got {_given(x)}") from exc
    if not np.isfinite(v) and low is None and high is None:
        raise InputError(f"{name} must be a finite real number; got {v}")
    bad = not np.isfinite(v)
    if low is not None:
        bad |= v <= low if low_open else v < low
    if high is not None:
        bad |= v >= high if high_open else v > high
    if bad:
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        raise InputError(f"{name} must lie in {lo}{low if low is not None else '-inf'}, "
                         f"{high if high is not None else 'inf'}{hi}; got {v}")
    return v


def positive(x, name: str) -> float:
    """A finite real number > 0."""
    return scalar(x, name, low=0.0, low_open=True)


def integer(x, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """An integer (a Python or numpy int, or a float with an integral value) in [low, high]."""
    if (isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Real, np.generic))
            or np.iscomplexobj(np.asarray(x))):
        raise InputError(f"{name} must be an integer; got {_given(x)}")
    v = float(x)
    if not np.isfinite(v) or v != int(v):
        raise InputError(f"{name} must be an integer; got {_given(x)}")
    n = int(v)
    if (low is not None and n < low) or (high is not None and n > high):
        raise InputError(f"{name} must be an integer in [{low if low is not None else '-inf'}, "
                         f"{high if high is not None else 'inf'}]; got {n}")
    return n


def choice(x, name: str, options) -> object:
    """``x`` if it is one of ``options`` (compared with ==, hashable values only), else an InputError listing them."""
    options = tuple(options)
    try:
        ok = any(x is o or (isinstance(x, type(o)) and bool(x == o)) for o in options)
    except Exception:  # noqa: BLE001 - arrays and odd objects compare badly: not a choice
        ok = False
    if not ok:
        raise InputError(f"{name} must be one of {list(options)}; got {_given(x)}")
    return x


def backend(name, argument: str = "backend") -> str | None:
    """None (automatic choice) or the name of a registered, installed backend; checked before any work is done."""
    if name is None:
        return None
    from .solvers.registry import available_backends, registered_backends

    if not isinstance(name, str) or name not in registered_backends():
        raise InputError(f"{argument} must be None (automatic) or one of {sorted(registered_backends())}; got "
                         f"{_given(name)}. Installed here: {available_backends()}")
    return name


def seed(x, name: str = "random_state"):
    """``x`` if it is None, an integer >= 0, a numpy Generator, RandomState or SeedSequence (checked, not used)."""
    if x is None or isinstance(x, (np.random.Generator, np.random.RandomState, np.random.SeedSequence)):
        return x
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral) or not 0 <= int(x) < 2**32:
        raise InputError(f"{name} must be None, an integer in [0, 2**32) or a numpy Generator / RandomState; got "
                         f"{_given(x)}")
    return int(x)


def rng(x, name: str = "rng") -> np.random.Generator:
    """A numpy Generator from a `seed` (a Generator is returned as is; a RandomState gives one draw)."""
    x = seed(x, name)
    if isinstance(x, np.random.Generator):
        return x
    if isinstance(x, np.random.RandomState):
        return np.random.default_rng(x.randint(0, 2**31 - 1))
    return np.random.default_rng(x)


def flag(x, name: str) -> bool:
    """A bool (numpy bools included); 0/1 and strings are refused, as they usually mean a slip."""
    if not isinstance(x, (bool, np.bool_)):
        raise InputError(f"{name} must be True or False; got {_given(x)}")
    return bool(x)


def solver(x, backend_name: str | None = None, argument: str = "solver") -> str | None:
    """None (the backend's choice) or the name of a solver installed here (on ``backend_name`` if given), compared
    case-insensitively; checked before any work is done."""
    if x is None:
        return None
    from .solvers.registry import available_solvers

    names = sorted({s for _, s in available_solvers(licensed=False, backend=backend_name)}, key=str.upper)
    if not isinstance(x, str) or x.upper() not in {n.upper() for n in names}:
        where = f" on backend {backend_name!r}" if backend_name else ""
        raise InputError(f"{argument} must be None (automatic) or a solver installed here{where}: {names}; got "
                         f"{_given(x)}")
    return x


def optional_name(x, name: str) -> str | None:
    """None or a non-empty string (a solver name, a label)."""
    if x is None:
        return None
    if not isinstance(x, str) or not x:
        raise InputError(f"{name} must be None or a non-empty string; got {_given(x)}")
    return x


def covariance(S, name: str, d: int, *, tol: float = 1e-9, factor: bool = False):
    """A symmetric PSD d x d matrix (symmetry and PSD checked relative to its scale).

    With ``factor=True`` returns ``(S, L)`` with ``S = L L^T`` from the same eigendecomposition
    (so a formulation that needs both decomposes S once).
    """
    S = matrix(S, name, cols=d)
    if S.shape[0] != d:
        raise InputError(f"{name} must be {d} x {d}; got {S.shape}")
    scale = max(1.0, float(np.max(np.abs(S)))) if S.size else 1.0
    if not np.allclose(S, S.T, atol=tol * scale, rtol=0):
        raise InputError(f"{name} is not symmetric: pass (S + S.T) / 2")
    S = (S + S.T) / 2
    try:
        w, V = np.linalg.eigh(S)
    except np.linalg.LinAlgError as exc:  # pragma: no cover - finite symmetric input converges
        raise InputError(f"{name}: the eigendecomposition failed ({exc}); check its scale") from exc
    if d and w[0] < -1e-8 * scale * d:
        raise InputError(f"{name} is indefinite (smallest eigenvalue {w[0]:.3g}); a covariance must be PSD")
    return (S, V * np.sqrt(np.clip(w, 0.0, None))) if factor else S


def labels(y, name: str = "labels", *, size: int | None = None) -> np.ndarray:
    """Labels in {+1, -1}, with both classes present."""
    a = vector(y, name, size=size)
    if not np.all(np.isin(a, (-1.0, 1.0))):
        raise InputError(f"{name} must be +1 or -1; got values {np.unique(a)[:5]}")
    if np.unique(a).size < 2:
        raise InputError(f"{name} contain one class only; both +1 and -1 are needed")
    return a


def binary_target(y, estimator: str, pos_label=None, *, minority: bool = False):
    """``(classes, is_positive)`` of a binary classification target, for every paper's estimator.

    Exactly two classes are needed (scikit-learn's wording for more than two; one class says there is nothing to
    separate). The positive class is ``pos_label`` when given, else the minority class when ``minority`` (ties: the
    second class), else ``classes[1]`` (scikit-learn's convention).
    """
    from sklearn.utils.multiclass import check_classification_targets

    try:
        check_classification_targets(y)
    except ValueError as exc:
        raise InputError(f"{exc}: y must hold class labels (two distinct values)") from exc
    classes, idx, counts = np.unique(y, return_inverse=True, return_counts=True)
    if classes.size > 2:
        raise InputError(f"Only binary classification is supported. {estimator} got {classes.size} classes; fit one "
                         "classifier per pair or one-vs-rest (e.g. sklearn's OneVsRestClassifier) for more")
    if classes.size < 2:
        raise InputError(f"{estimator} needs examples of two classes; got 1 class ({classes.tolist()}): there is "
                         "nothing to separate")
    if pos_label is not None:
        if pos_label not in classes.tolist():
            raise InputError(f"pos_label {pos_label!r} is not one of the classes {classes.tolist()}")
        pos = classes.tolist().index(pos_label)
    else:
        pos = 0 if (minority and counts[0] < counts[1]) else 1
    return classes, idx == pos


def _is_complex(value) -> bool:
    if value is None or isinstance(value, (str, bytes)):
        return False
    if sp.issparse(value):
        return np.issubdtype(value.dtype, np.complexfloating)
    try:
        a = np.asarray(value)
    except (TypeError, ValueError):
        return False
    if a.dtype == object:
        return any(isinstance(e, (complex, np.complexfloating)) for e in a.ravel())
    return np.iscomplexobj(a)


def sklearn_data(estimator, X, y="no_validation", **kwargs):
    """scikit-learn's ``validate_data`` with certiprog's rules: complex X or y refused, and every ValueError it
    raises (NaN, 0 samples, wrong n_features, ...) re-raised as an `InputError` (still a ValueError, with sklearn's
    own wording kept, which scikit-learn's estimator checks match)."""
    from sklearn.utils.validation import validate_data

    for arg, value in (("X", X), ("y", None if isinstance(y, str) else y)):
        if _is_complex(value):
            raise InputError(f"Complex data not supported: {arg} is complex; pass its real part (.real) if the "
                             "imaginary part is meant to be dropped")
    try:
        return validate_data(estimator, X, y, **kwargs)
    except InputError:
        raise
    except (TypeError, ValueError, IndexError) as exc:
        kind = InputTypeError if isinstance(exc, TypeError) else InputError
        what = "X" if isinstance(y, str) else "X, y"
        raise kind(f"{exc} (fix the {what} passed to {type(estimator).__name__})") from exc
