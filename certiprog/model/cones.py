"""Moved to `certiprog.conic.cones` (the conic layer under the model); this name keeps working."""
from ..conic.cones import KINDS, Cone, _nd_alpha, distance_to_cone, project, smat, svec  # noqa: F401

__all__ = ["KINDS", "Cone", "distance_to_cone", "project", "smat", "svec"]
