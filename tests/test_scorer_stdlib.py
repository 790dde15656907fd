"""The scorer runs in a bare interpreter and loads nothing outside the standard library (and durable, the
standard-library package whose JSON reader and writer it uses)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Runs the scorer's command line under -I -S (no site-packages, no environment),
# then lists every module the interpreter loaded.
PROBE = """
import json, sys
sys.path.insert(0, {repo!r})
from scorer.cli import main
status = main(["--predictions", {predictions!r}, "--answers", {answers!r}, "--json"])
print(json.dumps({{"status": status, "modules": sorted(sys.modules)}}))
"""


def test_scorer_loads_only_standard_library_modules(tmp_path):
    answers = tmp_path / "answers.csv"
    answers.write_text("id,label\na,1\nb,0\n", encoding="utf-8")
    predictions = tmp_path / "predictions.csv"
    predictions.write_text("id,label\na,1\nb,1\n", encoding="utf-8")
    code = PROBE.format(repo=str(REPO), predictions=str(predictions), answers=str(answers))
    completed = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, check=False, cwd=tmp_path
    )
    assert completed.returncode == 0, completed.stderr
    last_line = completed.stdout.strip().splitlines()[-1]
    report = json.loads(last_line)
    assert report["status"] == 0
    assert "site" not in report["modules"]  # -S really kept site-packages out
    own = {name for name in report["modules"] if name.split(".")[0] in ("scorer", "durable")}
    assert "scorer.score" in own
    foreign = [
        name
        for name in report["modules"]
        if name not in own and name != "__main__" and name.split(".")[0] not in sys.stdlib_module_names
    ]
    assert foreign == []


# The interval grader of the A/B-test take-home, run the same way.
INTERVAL_PROBE = """
import json, sys
sys.path.insert(0, {repo!r})
from scorer.intervals import main
status = main(["--results", {results!r}, "--truth", {truth!r}, "--json"])
print(json.dumps({{"status": status, "modules": sorted(sys.modules)}}))
"""


def test_interval_grader_loads_only_standard_library_modules(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    (results / "e1.json").write_text('{"effect": 0.01, "ci_low": 0.0, "ci_high": 0.02}', encoding="utf-8")
    truth = tmp_path / "truth.csv"
    truth.write_text("experiment,effect\ne1,0.01\n", encoding="utf-8")
    code = INTERVAL_PROBE.format(repo=str(REPO), results=str(results), truth=str(truth))
    completed = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, check=False, cwd=tmp_path
    )
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    assert report["status"] == 0
    assert "site" not in report["modules"]
    assert "scorer.intervals" in report["modules"] and "scorer.interval_reading" in report["modules"]
    foreign = [
        name
        for name in report["modules"]
        if name.split(".")[0] not in ("scorer", "durable", "__main__") and name.split(".")[0] not in sys.stdlib_module_names
    ]
    assert foreign == []
