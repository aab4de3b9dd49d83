"""Every notebook in notebooks/ executes top to bottom without error.

A notebook that reads the shared data lists the files in its metadata (``"certiprog": {"data": [...]}``,
paths relative to the data folder); it is skipped, naming the file, where that folder is absent.
"""
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from certiprog.datasets.loaders import data_root

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    missing = [f for f in nb.metadata.get("certiprog", {}).get("data", []) if not (data_root() / f).is_file()]
    if missing:
        pytest.skip(f"{path.name} needs {missing[0]} under {data_root()} (the shared data folder or $CERTIPROG_DATA)")
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors


def test_notebooks_reading_shared_data_declare_it():
    """A notebook that loads shared data (KEEL, MNIST, Letter) says so in its metadata, so the skip above works."""
    loaders = ("load_me2_dataset", "load_mnist", "mnist_", "load_letter", "read_keel", "data_path")
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        if any(name in code for name in loaders):
            assert nb.metadata.get("certiprog", {}).get("data"), f"{path.name} reads shared data but declares none"
