"""Data set loaders (KEEL .dat, UCI files in ``shared/data`` or ``$CERTIPROG_DATA``, the embedded Pima file)."""
from .loaders import *  # noqa: F401,F403
from .loaders import __getattr__  # noqa: F401  (DATA_ROOT follows the environment at access time)
