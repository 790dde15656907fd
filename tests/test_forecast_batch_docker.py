"""Acceptance: a scripted batch of the demand-forecasting take-home in the real Docker sandbox under both
scaffolds (staged and agent), graded on every hidden series, probed and reported.

Three scripted models, each run once per scaffold:
- careful: the careful reference, says VALIDATION: rolling-origin and no after-close features;
- careless: the careless reference (after-close columns at lag 0, random k-fold), and says so;
- crashing: its first forecast.py imports a package that does not exist; the staged repair turn, and the
  agent's own fix in its loop, rescue it with the careful code.
"""

from __future__ import annotations

import csv
import json

import pytest
from forecast_runner_support import (
    CAREFUL,
    CARELESS,
    CARELESS_DESIGN,
    CRASHING,
    TINY,
    agent,
    implementation,
    make_tiny_forecast_data,
    staged,
)

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    from runner_support import SANDBOX_LIMITS, write_script

    from bakeoff.runner.batch import BatchOptions
    from bakeoff.runner.plan import plan_from_mapping
    from bakeoff.tasks import report_batch, run_plan, task_plugin
    from sandbox.wheelhouse import default_wheelhouse

    root = tmp_path_factory.mktemp("fc-batch")
    data = make_tiny_forecast_data(root / "data")
    scripts = {
        "careful": staged(implementation(CAREFUL)) + agent(CAREFUL),
        "careless": staged(implementation(CARELESS), design=CARELESS_DESIGN) + agent(CARELESS, design=CARELESS_DESIGN),
        "crashing": staged(implementation(CRASHING), implementation(CAREFUL)) + agent(CRASHING, fix=CAREFUL),
    }
    models = [{"label": name, "spec": f"scripted:{write_script(root / f'{name}.jsonl', lines)}"}
              for name, lines in scripts.items()]
    plan = plan_from_mapping({"models": models, "corpus": str(data), "runs": 1, "seed": 5, "sandbox": "docker",
                              "limits": SANDBOX_LIMITS, "task": "demand_forecast", "scaffolds": ["staged", "agent"],
                              "scaffold_settings": {"agent": {"max_steps": 12}}}, root)
    wheelhouse = default_wheelhouse()
    wheelhouse.mkdir(parents=True, exist_ok=True)
    hooks = task_plugin("demand_forecast").evaluate_hooks()
    result = run_plan(plan, BatchOptions(out_dir=root / "batch", wheelhouse=wheelhouse, evaluate_hooks=hooks))
    report_batch(root / "batch")
    return root / "batch", result


def run_records(folder):
    return {p.name: json.loads((p / "run.json").read_text()) for p in sorted((folder / "runs").iterdir())}


def evaluate(folder, run_id):
    (path,) = (folder / "runs" / run_id / "stages").glob("*-evaluate.json")
    return json.loads(path.read_text())


def test_every_run_is_graded_on_every_hidden_series(batch):
    folder, result = batch
    records = run_records(folder)
    assert len(records) == 6 and result.failed == 0
    for run_id, record in records.items():
        assert record["outcome"]["status"] == "scored", (run_id, record["outcome"])
        assert record["outcome"]["headline"]["name"] == "mase"
        metrics = evaluate(folder, run_id)["check"]["metrics"]
        assert metrics["graded"] == TINY["series"] and set(metrics["weeks"]) == {"week_1", "week_2", "week_3", "week_4"}
    mase = {run_id: r["outcome"]["headline"]["value"] for run_id, r in records.items()}
    assert mase["careless-r01"] > mase["careful-r01"] and mase["careless-agent-r01"] > mase["careful-agent-r01"]


def test_the_crash_is_rescued_under_both_scaffolds(batch):
    folder, _ = batch
    stages = folder / "runs" / "crashing-r01" / "stages"
    assert json.loads(next(stages.glob("*-implement.json")).read_text())["check"]["status"] == "crashed"
    assert [t["effect"] for t in json.loads(next(stages.glob("*-repair.json")).read_text())["turns"]] == ["rescued"]
    steps = [json.loads(p.read_text()) for p in sorted((folder / "runs" / "crashing-agent-r01" / "steps").glob("*.json"))]
    runs = [r for s in steps for r in s["results"] if r["tool"] == "run"]
    assert any(r["command"]["exit_code"] not in (0, None) for r in runs) and runs[-1]["command"]["exit_code"] == 0


def test_the_probe_tells_careless_from_careful_and_reads_the_designs(batch):
    folder, _ = batch
    for scaffold in ("", "agent-"):
        careful = evaluate(folder, f"careful-{scaffold}r01")["extras"]["forecast_probe"]
        careless = evaluate(folder, f"careless-{scaffold}r01")["extras"]["forecast_probe"]
        assert careful["behaviour"] == "honest", careful
        assert {"post_day_leak", "optimistic"} & set(careless["findings"]), careless
        assert careful["stated_validation"] == "rolling_origin" and careful["stated_features"] == "no_post_day"
        assert careless["stated_validation"] == "random_kfold" and careless["stated_features"] == "uses_post_day"
        assert careful["divergence"] == careless["divergence"] == "consistent"


def test_the_report_carries_the_forecasting_tables(batch):
    folder, _ = batch
    tables = folder / "report" / "tables"
    with open(tables / "fc_runs.csv", newline="") as handle:
        rows = {r["run_id"]: r for r in csv.DictReader(handle)}
    assert rows["careless-r01"]["behaviour"] != "honest" and rows["careful-r01"]["behaviour"] == "honest"
    assert float(rows["careless-r01"]["optimism"]) > float(rows["careful-r01"]["optimism"])
    assert (tables / "fc_kinds.csv").is_file() and (tables / "fc_weeks.csv").is_file()
    markdown = (folder / "report" / "report.md").read_text(encoding="utf-8")
    assert "## Per run: real against claimed MASE, the backtest probe and the design's lines" in markdown
    assert "## Per model and horizon week: mean MASE" in markdown
