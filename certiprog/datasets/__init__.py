"""Data set loaders (KEEL .dat, UCI files in ``shared/data`` or ``$CERTIPROG_DATA``, the embedded Pima file)."""
from .keel import DATASETS_002, MISSING_002, available_me2_datasets, load_me2_dataset, read_keel  # noqa: F401
from .loaders import *  # noqa: F401,F403
from .loaders import __getattr__  # noqa: F401  (DATA_ROOT follows the environment at access time)
