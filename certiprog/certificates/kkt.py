"""Deprecated alias: this module is `certiprog.certify.kkt` (the same module object)."""
import importlib
import sys

from . import warn_moved

warn_moved(__name__, "certiprog.certify.kkt")
sys.modules[__name__] = importlib.import_module("certiprog.certify.kkt")
