"""`certiprog reproduce me2` (me2_paper/experiment.py) on a small synthetic KEEL folder: the runner's protocol, the
chunked ME2 tasks equal one ME2Classifier fit, resuming, the outputs, the paper's Table 3 transcription, bad input."""
import argparse
import json

import numpy as np
import pytest

from certiprog.errors import InputError
from certiprog.experiments.runner import add_arguments as runner_arguments
from certiprog.experiments.runner import reproduce
from certiprog.formulations.me2_paper import experiment as E
from certiprog.formulations.me2_paper.tables import TABLE3


@pytest.fixture
def data_root(tmp_path):
    """A 'yeast6.dat' of 150 rows (15 positives in a corner) and an 'abalone19.dat' with a categorical column."""
    rng = np.random.default_rng(0)
    keel = tmp_path / "keel"
    keel.mkdir()
    X = np.vstack([0.25 + 0.08 * rng.normal(size=(15, 3)), rng.uniform(0, 1, size=(135, 3))])
    lab = ["positive"] * 15 + ["negative"] * 135
    (keel / "yeast6.dat").write_text("".join(", ".join(f"{v:.4f}" for v in x) + f", {c}\n" for x, c in zip(X, lab)))
    sex = rng.choice(["M", "F", "I"], size=150)
    (keel / "abalone19.dat").write_text("".join(f"{s}, " + ", ".join(f"{v:.4f}" for v in x) + f", {c}\n"
                                                for s, x, c in zip(sex, X, lab)))
    return tmp_path


def parse(*argv):
    p = argparse.ArgumentParser()
    runner_arguments(p)
    E.add_arguments(p)
    return p.parse_args(list(argv))


def small(data_root, *extra):
    return parse("--datasets", "abalone19", "--reps", "2", "--quick", "--fig3-runs", "1",
                 "--fig3-rates", "0.08", "--chunk", "5", "--executor", "serial", "--no-progress",
                 "--data", str(data_root), *extra)


def test_run_resume_and_outputs(data_root, tmp_path):
    out = tmp_path / "out"
    args = small(data_root, "--out", str(out))
    done = reproduce(E, args, "me2")
    assert set(done.paths) == {"table.md", "table.csv", "fig3.csv", "fig3.png", "results.json"}
    text = done.paths["table.md"].read_text()
    assert "## Abalone19" in text and "| ME2 |" in text and "Fig. 3" in text and "Abalone (UCI" in text
    res = json.loads(done.paths["results.json"].read_text())
    recs = res["records"]
    assert {r["method"] for r in recs} == set(E.METHODS)
    assert len([r for r in recs if r["part"] == "table3"]) == 2 * 8 and len(recs) == 2 * 8 + 8
    assert all(0 <= r["f1"] <= 1 for r in recs)
    assert max(r["max_rel_gap"] for r in recs if r["method"] == "ME2") <= 1e-9
    again = reproduce(E, args, "me2")  # every task is read back from OUT/tasks
    assert not again.report.computed and len(again.report.reused) == len(done.report.results)
    assert json.loads(again.paths["results.json"].read_text())["records"] == recs


def test_chunked_me2_tasks_equal_one_estimator_fit(data_root):
    from certiprog.estimators import ME2Classifier

    cfg = E.config_from_args(small(data_root))
    sc = dict(part="table3", dataset="yeast6", rate=None, rep=1)
    data = E._scenario_data(sc, dict(seed=cfg.seed, test_size=cfg.test_size, data_root=cfg.data_root))
    n_pos = int(data["ys"].sum())
    fields = {k: getattr(cfg, k) for k in E._ME2_FIELDS}
    chunks = [E.me2_task(dict(fields, scenario=sc, start=s, stop=min(n_pos, s + 5)), data_root=cfg.data_root)
              for s in range(0, n_pos, 5)]
    est = ME2Classifier(tuning="local", mu_grid=cfg.mu_grid, lam_grid=cfg.lam_grid, random_state=data["fold_seed"],
                        pos_label=True).fit(data["Xs"], data["ys"])
    assert np.array_equal(np.concatenate([c["mu"] for c in chunks]), est.mu_)
    assert np.array_equal(np.concatenate([c["lam"] for c in chunks]), est.lam_)
    assert np.allclose(np.concatenate([c["M"] for c in chunks]), est.M_, rtol=1e-9, atol=1e-9)
    rec = E.me2_scores(sc, chunks, cfg)
    pred = est.predict(data["Xt"])
    assert rec["n_pred_pos"] == int(np.sum(pred))


def test_split_and_rate_reduction(data_root):
    base = dict(seed=0, test_size=0.2, data_root=str(data_root))
    full = E._scenario_data(dict(part="table3", dataset="yeast6", rate=None, rep=0), base)
    assert len(full["train"]) == 120 and full["ys"].sum() == 12 and full["yt"].sum() == 3
    assert full["Xs"].min() == 0 and full["Xs"].max() == 1  # min-max scaled on S
    low = E._scenario_data(dict(part="fig3", dataset="yeast6", rate=0.05, rep=0), base)
    assert low["ys"].sum() + low["yt"].sum() == round(0.05 * 135 / 0.95)
    with pytest.raises(InputError, match="too few"):
        E._scenario_data(dict(part="fig3", dataset="yeast6", rate=0.01, rep=0), base)


@pytest.mark.parametrize("argv, match", [
    (("--datasets", "abalone"), "not in the shared data"), (("--datasets", "yeast9"), "unknown data set"),
    (("--reps", "0"), "reps"), (("--methods", "KNN"), "unknown method"), (("--fig3-rates", "0.7"), "rates"),
    (("--chunk", "0"), "chunk")])
def test_bad_config(argv, match, data_root):
    with pytest.raises(InputError, match=match):
        E.config_from_args(parse("--data", str(data_root), *argv))


def test_paper_table3_transcription():
    assert TABLE3["ME2"]["yeast6"] == ((0.19, 0.04), (0.43, 0.06), (0.26, 0.05))
    assert TABLE3["LSVM"]["abalone19"][1] == (0.68, 0.12) and TABLE3["DT"]["yeast3"][1] == (0.88, 0.0)
    for method, row in TABLE3.items():  # the paper's F is ~ 2PR/(P+R) (means of ratios, so only roughly)
        for ds, ((p, _), (r, _), (f, _)) in row.items():
            if p + r > 0 and not (method == "RBFSVM" and ds == "wine"):
                assert abs(2 * p * r / (p + r) - f) <= 0.04, (method, ds)
