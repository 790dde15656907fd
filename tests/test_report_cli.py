"""`bakeoff report` at the command line: outputs, named errors, and an atomic report folder."""

import pytest
from analysis_factory import FakeRun, write_batch
from click.testing import CliRunner

from bakeoff.cli import main
from bakeoff.report import build
from bakeoff.tasks import report_batch


@pytest.fixture
def batch(tmp_path):
    return write_batch(tmp_path / "batch", [FakeRun("a", 1), FakeRun("a", 2, f1=0.5), FakeRun("b", 1, f1=0.6)])


def test_report_writes_every_file_and_says_where(batch):
    result = CliRunner().invoke(main, ["report", str(batch)])
    assert result.exit_code == 0, result.output
    folder = batch / "report"
    assert str(folder / "report.md") in result.output
    assert folder.stat().st_mode & 0o777 == 0o755  # not the private mode of a temp folder
    for name in ("report.md", "report.html", "summary.json", "plots/f1_per_model.svg", "tables/models.csv",
                 "tables/runs.csv", "tables/paired_comparisons.csv"):
        assert (folder / name).is_file(), name


def test_report_to_another_folder_with_a_bootstrap_seed(batch, tmp_path):
    out = tmp_path / "elsewhere"
    first = CliRunner().invoke(main, ["report", str(batch), "--out", str(out), "--bootstrap-seed", "4"])
    assert first.exit_code == 0
    kept = (out / "tables" / "models.csv").read_text()
    again = CliRunner().invoke(main, ["report", str(batch), "--out", str(out), "--bootstrap-seed", "4"])
    assert again.exit_code == 0
    assert (out / "tables" / "models.csv").read_text() == kept  # same seed, same intervals
    assert not (batch / "report").exists()


def test_not_a_batch_folder_is_a_one_line_error(tmp_path):
    result = CliRunner().invoke(main, ["report", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.startswith("error: BatchFolderError:")
    assert "Traceback" not in result.output


def test_a_failed_render_leaves_the_previous_report_whole(batch, monkeypatch):
    report_batch(batch)
    before = (batch / "report" / "report.html").read_text()

    def broken(*args, **kwargs):
        raise RuntimeError("renderer broke")

    monkeypatch.setattr(build, "render_html", broken)
    with pytest.raises(RuntimeError):
        report_batch(batch)
    assert (batch / "report" / "report.html").read_text() == before
    assert [p.name for p in batch.iterdir() if p.name.startswith(".report")] == []  # no partial folder left


def test_help_of_both_commands():
    for command in ("report", "analyze"):
        result = CliRunner().invoke(main, [command, "--help"])
        assert result.exit_code == 0 and "BATCH_DIR" in result.output


def test_the_true_rate_comes_from_the_corpus_manifest_when_no_run_was_scored(tmp_path):
    import json

    crashed = FakeRun("a", 1, f1=None, rung=2, status="crashed", crash_class="type_error")
    folder = write_batch(tmp_path / "batch", [crashed])
    (folder / "corpus").mkdir()
    (folder / "corpus" / "manifest.json").write_text(json.dumps({"measured": {"holdout_spam_rate": 0.25}}))
    files = report_batch(folder)
    assert "true rate 25.0%" in (files.folder / "plots" / "predicted_rate.svg").read_text()
    bare = report_batch(write_batch(tmp_path / "bare", [crashed]))
    assert "true rate unknown" in (bare.folder / "plots" / "predicted_rate.svg").read_text()
