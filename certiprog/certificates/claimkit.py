"""Deprecated alias: this module is `certiprog.audit.claimkit` (the same module object)."""
import importlib
import sys

from . import warn_moved

warn_moved(__name__, "certiprog.audit.claimkit")
sys.modules[__name__] = importlib.import_module("certiprog.audit.claimkit")
