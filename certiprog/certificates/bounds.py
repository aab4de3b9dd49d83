"""Deprecated alias: this module is `certiprog.audit.bounds` (the same module object)."""
import importlib
import sys

from . import warn_moved

warn_moved(__name__, "certiprog.audit.bounds")
sys.modules[__name__] = importlib.import_module("certiprog.audit.bounds")
