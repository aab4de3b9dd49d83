"""Moved to `certiprog.conic.cones` (the conic layer under the model); this name keeps working."""
from ..conic.cones import (  # noqa: F401
    KINDS,
    Cone,
    ExponentialCone,
    NonnegCone,
    PowerCone,
    PowerConeND,
    PsdCone,
    SecondOrderCone,
    ZeroCone,
    _nd_alpha,
    distance_to_cone,
    project,
    smat,
    svec,
)

__all__ = ["KINDS", "Cone", "ExponentialCone", "NonnegCone", "PowerCone", "PowerConeND", "PsdCone", "SecondOrderCone",
           "ZeroCone", "distance_to_cone", "project", "smat", "svec"]
