"""Terminal and report safety: escape sequences and markup from records are shown as text, never obeyed.

A crash message can carry `\\x1b[2J` (clear the screen) or `\\x1b]0;...\\x07` (retitle the window);
a record can carry `<script>`. Every CLI output escapes control characters (bakeoff.textsafe.printable)
and report.md escapes markup as well.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from analysis_factory import FakeRun, write_batch
from runner_support import bakeoff_cli, make_tiny_corpus

HOSTILE = "\x1b[2J\x1b]0;pwned\x07\u202eevil\x9b31m"
ESCAPED = "\\x1b[2J\\x1b]0;pwned\\x07\\u202eevil\\x9b31m"


def _raw_controls(text: str) -> list[str]:
    return [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0 or c == "\u202e"]


def test_printable_escapes_controls_and_keeps_lines():
    from bakeoff.textsafe import markdown_text, printable

    assert printable(f"a{HOSTILE}\nb\tc") == f"a{ESCAPED}\nb\tc"
    assert printable("line\r\n", keep_newlines=False) == "line\\x0d\\n"
    assert markdown_text("<script>alert(1)</script> & \x1b") == "&lt;script&gt;alert(1)&lt;/script&gt; &amp; \\x1b"


@pytest.mark.bwrap
@pytest.mark.slow
def test_bakeoff_score_shows_a_hostile_crash_message_escaped(tmp_path):
    corpus = make_tiny_corpus(tmp_path / "corpus")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "predict.py").write_text(f"raise RuntimeError({HOSTILE!r})\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "add", "predict.py"], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"], check=True)
    done = bakeoff_cli("score", str(repo), "--corpus", str(corpus), "--sandbox", "bwrap")
    assert done.returncode == 0, done.stderr
    assert "crash" in done.stdout and ESCAPED in done.stdout
    assert _raw_controls(done.stdout) == []


def test_status_and_errors_show_record_text_escaped(tmp_path):
    batch = write_batch(tmp_path / "batch", [FakeRun("a", 1, run_status="harness_failed")])
    run_json = batch / "runs" / "a-r01" / "run.json"
    record = json.loads(run_json.read_text())
    record["error"] = f"SandboxError: {HOSTILE}[red]markup[/red]"
    record["timings"] = {}
    run_json.write_text(json.dumps(record))
    done = bakeoff_cli("status", str(batch), env_extra={"COLUMNS": "400"})  # wide enough not to cut the cell
    assert done.returncode == 0, done.stderr
    assert _raw_controls(done.stdout) == [] and "\\x1b[2J" in done.stdout and "[red]markup[/red]" in done.stdout
    missing = bakeoff_cli("status", str(tmp_path / f"no{HOSTILE}"))
    assert missing.returncode != 0 and missing.stderr.startswith("error: NotABatch:")
    assert _raw_controls(missing.stderr) == [] and ESCAPED in missing.stderr


def test_report_markdown_keeps_markup_and_escapes_inert(tmp_path):
    crash = f"<script>alert(1)</script>{HOSTILE}"
    # the crash class is one of CrashClass now (a record with another is refused): the hostile text rides in the detail
    batch = write_batch(tmp_path / "batch", [FakeRun("a", 1), FakeRun("a", 2, f1=None, rung=2, status="crashed",
                                                                       crash_class="other", detail=crash)])
    done = bakeoff_cli("report", str(batch))
    assert done.returncode == 0, done.stderr
    markdown = (batch / "report" / "report.md").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in markdown
    assert "<script" not in markdown and _raw_controls(markdown) == []
    assert "<script" not in (batch / "report" / "report.html").read_text(encoding="utf-8")


def test_a_lone_surrogate_is_printable_and_encodable():
    from bakeoff.textsafe import markdown_text, printable

    assert printable("a\ud800b") == "a\\ud800b"
    markdown_text("x\udfff").encode("utf-8")  # report.md is written as UTF-8
