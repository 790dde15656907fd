"""`bakeoff analyze` then `bakeoff report` on a batch whose submissions are the reference pipelines,
in the real Docker sandbox: the probe's records reach the report, and a design that keeps the
column over code that fits on text only is reported as a divergence."""

import csv
import json
import shutil
from pathlib import Path

import pytest
from analysis_factory import KEEPS_DESIGN, FakeRun, write_batch
from click.testing import CliRunner

from bakeoff.cli import main
from generators.secret import Secret
from generators.spam_classifier import generate_corpus
from generators.spam_classifier.params import CorpusParams

REFERENCES = Path(__file__).resolve().parents[1] / "generators" / "spam_classifier" / "references"

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("analyze")
    corpus = root / "corpus"
    generate_corpus(CorpusParams(seed=21, rows=3000, holdout_rows=800), corpus, secret=Secret.public())
    folder = root / "batch"
    runs = [
        FakeRun("textonly", 1, design=KEEPS_DESIGN, probe=None, corpus=str(corpus)),  # says keep, code ignores
        FakeRun("careless", 1, probe=None, corpus=str(corpus)),  # says drop (default design), code uses
    ]
    write_batch(folder, runs)
    for run_id, reference in (("textonly-r01", "text_only"), ("careless-r01", "careless")):
        repo = folder / "runs" / run_id / "repo"
        design = (repo / "DESIGN.md").read_text()
        shutil.rmtree(repo)
        shutil.copytree(REFERENCES / reference, repo)  # untrained: analyze trains it with the run's seed
        (repo / "data").mkdir()
        (repo / "DESIGN.md").write_text(design)
    return folder


def test_analyze_writes_probe_records_and_the_report_shows_the_divergence(batch):
    runner = CliRunner()
    analysed = runner.invoke(main, ["analyze", str(batch), "--sandbox", "docker", "--retrain-seeds", "1",
                                    "--probe-rows", "500"])
    assert analysed.exit_code == 0, analysed.output
    records = {r: json.loads((batch / "runs" / r / "analysis.json").read_text()) for r in ("textonly-r01", "careless-r01")}
    assert records["textonly-r01"]["probe"]["verdict"] == "does_not_use"
    assert records["careless-r01"]["probe"]["verdict"] == "uses_leak"
    assert records["textonly-r01"]["design"]["stance"] == "kept"
    assert len(records["textonly-r01"]["retrain"]["retrains"]) == 1

    again = runner.invoke(main, ["analyze", str(batch), "--sandbox", "docker"])
    assert again.exit_code == 0 and again.output.count("skipped_existing") == 2  # resumable: nothing recomputed

    reported = runner.invoke(main, ["report", str(batch)])
    assert reported.exit_code == 0, reported.output
    with open(batch / "report" / "tables" / "runs.csv", newline="") as handle:
        rows = {row["run_id"]: row for row in csv.DictReader(handle)}
    assert rows["textonly-r01"]["divergence"] == "design_keeps_code_ignores"
    assert rows["careless-r01"]["divergence"] == "design_excludes_code_uses"
    text = (batch / "report" / "report.md").read_text()
    assert "keep moderator_flagged while the code ignores it" in text
    assert "drop moderator_flagged while the code uses it" in text


def test_analyze_refuses_no_isolation_without_the_flag(batch):
    result = CliRunner().invoke(main, ["analyze", str(batch), "--sandbox", "none"])
    assert result.exit_code != 0
    assert "UnsafeAnalysisRefused" in result.output
