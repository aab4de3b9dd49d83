"""Cones as objects: one class per cone, one module each (as Clarabel.rs keeps one file per cone), on the common
base `Cone` (`base`).

=================  ========  ===========================================================  ==============
class              kind      cone (each copy; ``count`` copies of ``dim`` rows)            dual
=================  ========  ===========================================================  ==============
`ZeroCone`         zero      {0}                                                            R^dim
`NonnegCone`       nonneg    s >= 0                                                         itself
`SecondOrderCone`  soc       s_0 >= ||s_1:||                                                itself
`PsdCone`          psd       svec of an n x n PSD matrix (upper triangle, column-major,     itself
                             off-diagonals times sqrt 2, as Clarabel and SCS)
`ExponentialCone`  exp       closure{(x, y, z): y > 0, y exp(x / y) <= z}                    `exp` module
`PowerCone`        pow       x^a y^(1-a) >= |z|, x, y >= 0                                  `_power` module
`PowerConeND`      pownd     prod x_i^a_i >= |z|, x >= 0, sum a_i = 1                       `_power` module
=================  ========  ===========================================================  ==============

``Cone(kind, dim, count=1, alpha=None)`` builds the class of that kind (``Cone("soc", 3)`` is a
`SecondOrderCone`); `project` and `distance_to_cone` are the functions the code used before the classes, kept
(NaN in, NaN out, where the methods raise). Adding a cone is one module here (a `Cone` subclass with its ``kind``)
plus one line in each backend's table.
"""
from __future__ import annotations

import numpy as np

from ...errors import ShapeError
from ._power import power_project as _pownd_project  # noqa: F401  (the name before the classes)
from .base import Cone
from .exp import ExponentialCone
from .exp import _exp_project as _exp_project
from .nonneg import NonnegCone
from .power import PowerCone
from .power_nd import PowerConeND
from .power_nd import nd_alpha as _nd_alpha  # noqa: F401  (imported by model.cone_constraints)
from .psd import PsdCone, smat, smat_batch, svec, svec_batch
from .soc import SecondOrderCone
from .zero import ZeroCone

#: every cone kind, in the order of the classes above (each class registers its kind on definition)
KINDS = ("zero", "nonneg", "soc", "psd", "pow", "exp", "pownd")
assert set(KINDS) == set(Cone._by_kind), "a cone class is missing from KINDS"
#: every cone class
CLASSES = tuple(Cone._by_kind[k] for k in KINDS)


def project(cone: Cone, s: np.ndarray, dual: bool = False) -> np.ndarray:
    """Euclidean projection of s (all rows of the block) onto the cone, or onto its dual (`Cone.project`, except
    that NaN entries give NaN instead of an error: the certificates read missing duals as NaN)."""
    v = np.asarray(s, dtype=float).reshape(-1)
    if v.size != cone.rows:
        raise ShapeError(f"s has {v.size} entries; {cone!r} has {cone.rows} rows")
    P = v.reshape(cone.count, cone.dim)
    return (cone._project_dual(P) if dual else cone._project(P)).reshape(-1)


def distance_to_cone(cone: Cone, s: np.ndarray, dual: bool = False) -> float:
    """Euclidean distance from the block ``s`` to the cone (or its dual); NaN entries give NaN."""
    s = np.asarray(s, dtype=float).reshape(-1)
    if s.size == 0:
        return 0.0
    return float(np.linalg.norm(s - project(cone, s, dual=dual)))


__all__ = ["CLASSES", "KINDS", "Cone", "ExponentialCone", "NonnegCone", "PowerCone", "PowerConeND", "PsdCone",
           "SecondOrderCone", "ZeroCone", "distance_to_cone", "project", "smat", "smat_batch", "svec", "svec_batch"]
