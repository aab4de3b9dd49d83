"""`certiprog reproduce error-clumping` (paper 003, Table 1, Figs. 1-2): the paper's numbers, the plumbing on a tiny
MNIST subsample (seconds), resume, and bad arguments."""
import csv
import json
import re
from pathlib import Path

import numpy as np
import pytest

from certiprog.cli import main
from certiprog.errors import CertiprogError, InputError
from certiprog.formulations.error_clumping_paper import experiment as E
from certiprog.formulations.error_clumping_paper import tables as T

PAPER = Path(__file__).resolve().parents[3] / ".." / "shared" / "papers" / "003_d4e9459505f9fbcc.txt"


def need_mnist():
    from certiprog.datasets.loaders import data_root

    if not (data_root() / "mnist" / "train-images.idx3-ubyte.gz").is_file():
        pytest.skip("MNIST not in the shared data folder")


# ---------------------------------------------------------------------------------------------------- the paper
def test_transcribed_table1_matches_the_paper_text():
    if not PAPER.is_file():
        pytest.skip("paper text not available")
    text = PAPER.read_text()
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^\s*\$?\\mathbf\{w\}_\{?([0-9.]+)\}?\$?\s+((?:[0-9.]+\s+){9}[0-9.]+)\s*$", line)
        if m:
            rows[float(m.group(1))] = tuple(float(v) for v in m.group(2).split())
    assert rows == T.TABLE1
    assert "digit\t0\t1\t2\t3\t4\t5\t6\t7\t8\t9" in text


def test_table1_agrees_with_the_text_statements_and_a_wrong_table_does_not():
    checks = T.check_text_statements()
    assert len(checks) == 4 and all(ok for _, _, ok in checks)
    bad = {k: list(v) for k, v in T.TABLE1.items()}
    bad[0.5][1] = 0.2  # the 1's error of w_0.5 no longer "10 times" that of w_0
    assert not T.check_text_statements({k: tuple(v) for k, v in bad.items()})[1][2]


def test_paper_lookup():
    assert T.paper_error(0.3, 4) == 0.750 and T.paper_error(0.7, 0) is None
    assert T.paper_overall(0.0) == pytest.approx(np.mean(T.TABLE1[0.0]))
    w = np.arange(1, 11)
    assert T.paper_overall(0.5, w) == pytest.approx(np.dot(T.TABLE1[0.5], w) / w.sum())


# ---------------------------------------------------------------------------------------------------- pieces
def test_digit_splits_are_distinct_groups_of_five():
    s = E.digit_splits(6, seed=0)
    assert s[0] == (5, 6, 7, 8, 9) and len(set(s)) == 6
    assert all(len(g) == 5 and 0 not in g and list(g) == sorted(g) for g in s)
    assert s == E.digit_splits(6, seed=0) and s[1:] != E.digit_splits(6, seed=1)[1:]
    assert E.split_label((5, 6, 7, 8, 9)) == "0-4 vs 5-9" and E.split_label((1, 3, 5, 7, 9)) == "02468 vs 13579"


def test_per_digit_error_arithmetic():
    digits = np.array([0, 0, 1, 1, 1, 9])
    y = np.array([-1, -1, -1, -1, -1, 1.0])
    pred = np.array([-1, 1, 1, 1, -1, 1.0])
    err, count = E._per_digit(pred, y, digits)
    assert err[0] == 0.5 and err[1] == pytest.approx(2 / 3) and err[9] == 0.0 and np.isnan(err[5])
    assert count.tolist() == [2, 3, 0, 0, 0, 0, 0, 0, 0, 1]


def test_fig1_counts_quadrants_and_refuses_bad_input():
    import matplotlib.pyplot as plt

    from certiprog.formulations.error_clumping_paper.plots import plot_fig1

    fig = plot_fig1([-1, 1, 1, -1, 2.0], [1, 1, -1, -1, 0.5], [1, 0, 0, 0, 7])
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["0's (n = 3; A 0, B 1, C 1, D 1)", "1's (n = 1; A 1, B 0, C 0, D 0)"]
    plt.close(fig)
    with pytest.raises(InputError):
        plot_fig1([0.0, np.nan], [0.0, 1.0], [0, 1])
    with pytest.raises(InputError):
        plot_fig1([0.0], [0.0, 1.0], [0, 1])


# ---------------------------------------------------------------------------------------------------- arguments
@pytest.mark.parametrize("argv, message", [
    (["--etas", "0,1.5"], "--etas must be in [0.0, 1.0]"),
    (["--etas", "a"], "expected numbers"),
    (["--etas", "0,0"], "repeats"),
    (["--n-train", "5"], "--n-train must be an integer in [10, 35000]"),
    (["--n-test", "40000"], "--n-test must be an integer"),
    (["--lam", "0"], "--lam must be in (0.0"),
    (["--lam-grid", "0.1,-1"], "--lam-grid must be in (0.0"),
    (["--neighbourhood", "0"], "--neighbourhood must be in (0.0, 1.0]"),
    (["--hp-eta", "0"], "--hp-eta must be in (0.0, 1.0]"),
    (["--splits", "0"], "--splits must be an integer"),
    (["--validation", "0.9"], "--validation must be in"),
    (["--data", "/nonexistent/folder"], "not found"),
    (["--study-neighbourhoods", "0,0.1"], "--study-neighbourhoods must be in (0.0, 1.0]"),
    (["--study-lams", "1,-1"], "--study-lams must be in (0.0"),
    (["--study-etas", "1.5"], "--study-etas must be in (0.0, 1.0]"),
    (["--study-train", "5"], "--study-train must be an integer"),
    (["--hp-normalisations", "printed,row"], "--hp-normalisations must be"),
    (["--hp-normalisations", "Printed"], "--hp-normalisations must be"),
])
def test_bad_arguments_exit_2_with_a_message(argv, message, capsys, tmp_path):
    assert main(["reproduce", "error-clumping", "--quick", "--no-progress", "--out", str(tmp_path), *argv]) == 2
    assert message in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_bad_config_raises_certiprog_error():
    need_mnist()
    with pytest.raises(CertiprogError):
        E.validate_config(E.Config(etas=(float("nan"),)))
    with pytest.raises(CertiprogError):
        E.validate_config(E.Config(n_holes=True))
    with pytest.raises(CertiprogError):
        E.tasks(E.Config(lam_grid=()))


def test_quick_defaults_and_task_keys():
    need_mnist()
    import argparse

    parser = argparse.ArgumentParser()
    E.add_arguments(parser)
    cfg = E.config_from_args(parser.parse_args(["--quick"]))
    assert (cfg.n_train, cfg.n_test, cfg.n_holes, cfg.quick, cfg.splits) == (3000, 3000, 10, True, 1)
    full = E.config_from_args(parser.parse_args(["--n-holes", "3"]))
    assert (full.n_train, full.n_test, full.fig2_train, full.etas) == (35000, 35000, 10000, (0.0, 0.3, 0.5))
    assert full.hp_rules[0] == (0.5, 1) and full.hp_normalisations == ("printed", "dmax") and full.splits == 5
    assert len(E.tasks(full)) == 3 + 5 + 4  # Table 1, one Fig. 2 task per split, one study task per neighbourhood
    ts = E.tasks(cfg)
    assert len(ts) == 3 + 1 + 2 and len({t.key for t in ts}) == len(ts)
    # Fig. 2's size and rounds do not change Table 1's tasks (a rerun with other Fig. 2 options reuses them)
    other = E.tasks(E.Config(**dict(E.asdict(cfg), n_holes=3, fig2_train=500)))
    assert [t.key for t in ts[:3]] == [t.key for t in other[:3]] and ts[3].key != other[3].key


# ---------------------------------------------------------------------------------------------------- end to end
# Fig. 2 on Table 1's split and sizes: one MNIST load for every task (the random splits are tested above)
TINY = ["--n-train", "300", "--n-test", "400", "--n-holes", "2", "--splits", "1", "--lam-grid", "0.01,0.1",
        "--neighbourhood", "0.05", "--no-progress", "--study-train", "300", "--study-neighbourhoods", "0.05",
        "--study-lams", "0.1", "--study-etas", "0.5"]


def test_tiny_run_writes_every_output_and_resumes(tmp_path, capsys):
    need_mnist()
    out = tmp_path / "run"
    assert main(["reproduce", "error-clumping", *TINY, "--out", str(out), "--executor", "serial"]) == 0
    printed = capsys.readouterr().out
    assert "5 computed, 0 reused" in printed and "SUBSAMPLE" in printed
    assert {p.name for p in out.iterdir()} == {"table.md", "table.csv", "fig1.png", "fig2.png", "fig2.csv",
                                              "study.csv", "results.json", "tasks"}
    for png in ("fig1.png", "fig2.png"):
        assert (out / png).read_bytes()[:4] == b"\x89PNG"
    md = (out / "table.md").read_text()
    assert "| classifier | 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | all |" in md
    assert "| w_0.5 paper | 0.056 | 0.615 | 0.044 | 0.305 | 0.673 | 0.243 | 0.613 | 0.166 | 0.187 | 0.127 |" in md
    assert "rho = " in md and "lambda = " in md and "validation error" in md
    assert "edge of the grid" in md  # a two-value grid: whichever wins is at an edge, and the report says so
    rows = list(csv.DictReader(open(out / "table.csv")))
    assert list(rows[0]) == ["eta", "digit", "n_test", "ours", "paper", "diff", "rho", "lam"]
    assert len(rows) == 3 * 11
    digit_rows = [r for r in rows if r["digit"] != "all"]
    assert sum(int(r["n_test"]) for r in digit_rows if float(r["eta"]) == 0.0) == 400
    for r in digit_rows:
        assert float(r["paper"]) == T.paper_error(float(r["eta"]), int(r["digit"]))
        assert 0.0 <= float(r["ours"]) <= 1.0
        assert float(r["diff"]) == pytest.approx(float(r["ours"]) - float(r["paper"]))
        assert float(r["lam"]) in (0.01, 0.1)
    data = json.loads((out / "results.json").read_text())
    table = [r for r in data["records"] if "certificate" in r]
    assert len(table) == 3 and all(r["certificate"]["verdict"] == "certified" for r in table)
    by_eta = {r["eta"]: r for r in table}  # serial: the eta = 0.3 task's graph serves eta = 0.5 and Fig. 2
    assert by_eta[0.5]["graph_reused"] and by_eta[0.5]["nnz"] == by_eta[0.3]["nnz"] > 0
    fig2_runs = [r for r in data["records"] if "test_error" in r]
    assert [(r["eta"], r["normalisation"]) for r in fig2_runs] == [(0.0, "none"), (0.5, "printed"), (0.5, "dmax")]
    for r in fig2_runs:  # the chosen rule has the fewest validation errors after the last round
        finals = [q["validation_error"][-1] for q in r["rules"]]
        assert r["chosen_rule"] == int(np.argmin(finals)) and r["test_error"] == r["rules"][r["chosen_rule"]]["test_error"]
        assert r["m"] + r["n_validation"] == 300
    assert "**Goal (issue 24)" in md and "Theta-normalisation study" in md and "Table 1's trade is reproduced by" in md
    study = list(csv.DictReader(open(out / "study.csv")))
    assert {r["reading"] for r in study} == {"none", *E.STUDY_READINGS} and len(study) == 1 + 5
    for r in study:
        assert r["refused"] or (0.0 <= float(r["digit1"]) <= 1.0 and r["verdict"] == "certified")
    rec = next(r for r in data["records"] if "study_rows" in r)
    for g in rec["readings"]:  # the proved bound lies above ARPACK's eigenvalue
        assert g["rho_hi"] >= g["lam_max"] - 1e-9
    for r in table:  # the certified interval holds the objective
        c = r["certificate"]
        assert c["lower"] <= c["objective"] <= c["upper"] and c["rel_gap"] <= 1e-6
    fig2 = list(csv.DictReader(open(out / "fig2.csv")))
    assert {(r["split"], float(r["eta"])) for r in fig2} == {("0-4 vs 5-9", 0.0), ("0-4 vs 5-9", 0.5)}
    for rec in (r for r in data["records"] if "test_error" in r):
        for q in rec["rules"]:
            assert len(q["test_error"]) == q["n_holes"] + 1 == len(q["train_error"]) == len(q["validation_error"])
            if q["error_fraction"] == 0.5:  # the paper's rule: every hole lowers the training error (003-boost)
                assert np.all(np.diff(q["train_error"]) < 0)
    table_csv = (out / "table.csv").read_text()
    assert main(["reproduce", "error-clumping", *TINY, "--out", str(out)]) == 0
    assert "0 computed, 5 reused" in capsys.readouterr().out
    assert (out / "table.csv").read_text() == table_csv
