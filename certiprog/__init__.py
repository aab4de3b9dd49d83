"""certiprog: write a paper's convex program once, solve it on any backend, certify the answer."""
from .certify import Certificate, check  # the headline feature, one import away: certiprog.check(model, sol)
from .errors import (
    BackendError,
    CertiprogError,
    DCPError,
    InputError,
    ModelError,
    NonConvexError,
    OptionError,
    SavedFileError,
    ShapeError,
)
from .model import *  # noqa: F401,F403
from .model import __all__ as _model_all
from .solvers import Solution, Status, available_backends

__version__ = "0.1.0"

__all__ = list(_model_all) + [
    "BackendError", "CertiprogError", "DCPError", "InputError", "ModelError", "NonConvexError", "OptionError",
    "SavedFileError", "ShapeError",
    "Certificate", "Solution", "Status", "available_backends", "check",
]
