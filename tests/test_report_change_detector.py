"""A change detector: the report of a batch folder written before the typed records (commit 3f06060) is the snapshot.

This proves that the report has not changed, not that it is right: the snapshot in
tests/data/batch_before_records/expected was the old code's report of tests/data/batch_before_records/batch, made
again by the new code when the report changed on purpose (issue 27: the scores first, cost beside quality, no
interval from too few runs; issue 32: the leaderboard's scaffold column), each time after its diff against the one
before was read. When a test here fails, read the diff (make_fixture.py's `--expected-only` step remakes the
snapshot), and remake it only for a change meant. What the report says about those records is checked against the
raw records themselves, recomputed without bakeoff's code, in tests/test_old_batch_report.py.

The batch: 3 models x 2 runs (scripted answers, Docker sandbox): a crash rescued by its repair turn, an uncaptured
design (timeout), an answer cut off (unusable), a repair answer lost in transport, a kept leak with a broken output,
an unfinished run, a run never analysed, analysis.json with a model judge, a claim review and the corpus's
calibration.

One normalization: the claim review's transcript page is left out of the comparison. It shows the review
items read from the absolute path review.json names (a file of the old worktree, /tmp/before), so its
content depends on whether that path exists where the test runs. Nothing else is normalized: the report
carries no generation time, its title is the folder's name, and the absolute paths it shows (the corpus,
the scripted answer files) are text from the records, the same whoever reads them. Nothing is written
into the fixture (the report goes to tmp_path).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from bakeoff.tasks import report_batch as write_report

FIXTURE = Path(__file__).parent / "data" / "batch_before_records"
EXPECTED = FIXTURE / "expected"
OLD_COMMIT = "3f06060"


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("snapshot") / "report"
    write_report(FIXTURE / "batch", out)
    return out


def test_the_fixture_was_written_by_the_old_code():
    batch = json.loads((FIXTURE / "batch" / "batch.json").read_text(encoding="utf-8"))
    assert batch["code_version"]["git_commit"].startswith(OLD_COMMIT)
    assert batch["schema"] == "bakeoff.batch/1"


def test_the_markdown_report_is_unchanged_since_the_snapshot(report):
    assert (report / "report.md").read_text(encoding="utf-8") == (EXPECTED / "report.md").read_text(encoding="utf-8")


def test_the_summary_tables_and_plots_are_unchanged_since_the_snapshot(report):
    assert json.loads((report / "summary.json").read_text()) == json.loads((EXPECTED / "summary.json").read_text())
    for folder in ("tables", "plots"):
        expected = sorted(p.name for p in (EXPECTED / folder).iterdir())
        assert sorted(p.name for p in (report / folder).iterdir()) == expected, folder
        for name in expected:
            got = (report / folder / name).read_text(encoding="utf-8")
            assert got == (EXPECTED / folder / name).read_text(encoding="utf-8"), f"{folder}/{name}"


def test_the_html_report_and_transcript_pages_are_unchanged_since_the_snapshot(report):
    # Kept as digests (the pages are about 500 kB): a mismatch is seen by building the old report
    # with make_fixture.py's `expected` step and diffing the two folders.
    expected = json.loads((EXPECTED / "html_sha256.json").read_text(encoding="utf-8"))
    pages = [report / "report.html", *sorted((report / "transcripts").glob("*.html"))]
    pages = [p for p in pages if not p.name.startswith("review-")]  # the one normalization (module docstring)
    got = {p.relative_to(report).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in pages}
    assert got == expected
