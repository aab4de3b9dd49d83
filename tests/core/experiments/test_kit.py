"""The paper kit (`certiprog.experiments.kit`): options generated from a Config dataclass, --quick, validation,
the JSON writer through the runner's encoder, the table helpers; and lazy paper imports."""
import argparse
import json
import subprocess
import sys
from dataclasses import dataclass

import numpy as np
import pytest

from certiprog.errors import InputError
from certiprog.experiments.kit import PaperExperiment, markdown_table, option, options, row, write_csv, write_json
from certiprog.experiments.runner import encode, number_list


@dataclass
class Config:
    reps: int = option(10, help="repetitions")
    rate: float = option(0.5, help="a rate", flag="--the-rate")
    names: tuple = option(("a", "b"), help="names", nargs="+")
    grid: tuple = option((1.0, 2.0), help="grid", parse=number_list)
    mode: str = option("x", help="mode", choices=("x", "y"))
    fig: bool = option(True, help="skip the figure", negate=True)
    verbose: bool = option(False, help="talk", switch=True)
    hidden: int = 3  # not an option
    quick: bool = False


class Toy(PaperExperiment):
    name = "toy"
    config_class = Config
    quick = dict(reps=2, grid=(1.0,))

    def check(self, cfg):
        if cfg.reps < 1:
            raise InputError(f"--reps must be >= 1, got {cfg.reps}")


def parse(*argv):
    p = argparse.ArgumentParser()
    Toy().add_arguments(p)
    return Toy().config_from_args(p.parse_args(list(argv)))


def test_options_follow_the_dataclass_and_quick_fills_what_was_not_given():
    assert [f.name for f, _ in options(Config)] == ["reps", "rate", "names", "grid", "mode", "fig", "verbose"]
    assert parse() == Config()
    cfg = parse("--quick")
    assert cfg.quick and cfg.reps == 2 and cfg.grid == (1.0,) and cfg.rate == 0.5
    cfg = parse("--quick", "--reps", "5", "--the-rate", "0.25", "--names", "p", "q", "--grid", "0.1,0.3 0.5",
                "--mode", "y", "--no-fig", "--verbose")
    assert cfg == Config(reps=5, rate=0.25, names=("p", "q"), grid=(0.1, 0.3, 0.5), mode="y", fig=False,
                         verbose=True, quick=True)
    with pytest.raises(SystemExit):  # argparse refuses a word outside choices and an unknown option
        parse("--mode", "z")
    with pytest.raises(SystemExit):
        parse("--hidden", "4")


def test_validation_runs_on_every_config():
    with pytest.raises(InputError, match="--reps"):
        parse("--reps", "0")
    with pytest.raises(InputError, match="expected a Config"):
        Toy().validate(dict(reps=1))
    with pytest.raises(InputError, match="expected numbers"):
        parse("--grid", "0.1,x")
    assert Toy().default_out(Config()) == "results/toy"


def test_write_json_goes_through_the_runners_encoder(tmp_path):
    obj = dict(a=np.arange(3), b=np.float32(1.5), c=[np.nan, np.inf, -np.inf], d={1: np.bool_(True)},
               e=(np.int64(2),))
    path = write_json(tmp_path / "r.json", obj)
    assert json.loads(path.read_text()) == dict(a=[0, 1, 2], b=1.5, c=[None, "inf", "-inf"], d={"1": True}, e=[2])
    with pytest.raises(InputError, match=r"r.json\['x'\].*object"):
        write_json(tmp_path / "r.json", dict(x=object()))
    arrays = {}  # the store's reading is unchanged: arrays go to the .npz side, NaN stays a float
    assert encode(dict(a=np.ones(2), n=float("nan")), arrays)["a"] == {"__ndarray__": "a0"} and "a0" in arrays
    with pytest.raises(InputError, match="keys must be strings"):
        encode({1: 2}, {})


def test_table_helpers(tmp_path):
    assert row("a", 1.5, None) == "| a | 1.5 | None |"
    assert markdown_table(["x", "y"], [(1, 2), ("p", "q")]) == ["| x | y |", "|---|---|", "| 1 | 2 |", "| p | q |"]
    path = write_csv(tmp_path / "t.csv", [dict(x=1, y=None)], ["x", "y"], blank_none=True)
    assert path.read_text().splitlines() == ["x,y", "1,"]


def test_importing_one_paper_imports_no_other():
    code = ("import sys, certiprog.formulations.hp_mpm_paper.estimator, certiprog.estimators; "
            "print(sorted({m.split('.')[2] for m in sys.modules if m.startswith('certiprog.formulations.')}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['hp_mpm_paper']"
