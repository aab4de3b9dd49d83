"""Deprecated alias: this module is `certiprog.certify.duality` (the same module object)."""
import importlib
import sys

from . import warn_moved

warn_moved(__name__, "certiprog.certify.duality")
sys.modules[__name__] = importlib.import_module("certiprog.certify.duality")
