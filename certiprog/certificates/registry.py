"""Deprecated alias: this module is `certiprog.audit.registry` (the same module object)."""
import importlib
import sys

from . import warn_moved

warn_moved(__name__, "certiprog.audit.registry")
sys.modules[__name__] = importlib.import_module("certiprog.audit.registry")
