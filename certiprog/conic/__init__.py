"""The conic layer: cones (one class per cone under `Cone`, package `cones`) and the `ConicProblem` every backend
and certificate reads. It imports nothing of certiprog's but its errors; the model compiles into it
(`certiprog.model.compile`)."""
from .cones import (
    KINDS,
    Cone,
    ExponentialCone,
    NonnegCone,
    PowerCone,
    PowerConeND,
    PsdCone,
    SecondOrderCone,
    ZeroCone,
    distance_to_cone,
    project,
    smat,
    svec,
)
from .problem import Block, ConicProblem, QuadTerm, merge_cones

__all__ = ["Block", "Cone", "ConicProblem", "ExponentialCone", "KINDS", "NonnegCone", "PowerCone", "PowerConeND",
           "PsdCone", "QuadTerm", "SecondOrderCone", "ZeroCone", "distance_to_cone", "merge_cones", "project", "smat",
           "svec"]
