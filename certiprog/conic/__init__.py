"""The conic layer: cones (`Cone`, projections, distances) and the `ConicProblem` every backend and certificate
reads. It imports nothing of certiprog's but its errors; the model compiles into it (`certiprog.model.compile`)."""
from .cones import KINDS, Cone, distance_to_cone, project, smat, svec
from .problem import Block, ConicProblem, QuadTerm, merge_cones

__all__ = ["Block", "Cone", "ConicProblem", "KINDS", "QuadTerm", "distance_to_cone", "merge_cones", "project", "smat",
           "svec"]
