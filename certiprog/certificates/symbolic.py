"""Deprecated alias: this module is `certiprog.audit.symbolic` (the same module object)."""
import importlib
import sys

from . import warn_moved

warn_moved(__name__, "certiprog.audit.symbolic")
sys.modules[__name__] = importlib.import_module("certiprog.audit.symbolic")
