"""Transcript pages without Docker: repair diffs over several turns from a real git history, a hostile
repository's git configuration left unused, sparse records, folding that says what it holds.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from analysis_factory import FakeRun, change_stage, write_batch
from runner_support import fenced

from bakeoff.batchfolder.read import read_batch
from bakeoff.records import (
    CompletionRecord,
    FileWritten,
    LadderCheck,
    LadderStatus,
    Prompt,
    PromptCut,
    PromptMessage,
    RepairEffect,
    RepairGrant,
    RepairTurn,
    Rung,
)
from bakeoff.report.transcript import render_run_transcript
from bakeoff.report.transcript_git import repair_diffs, tree_at
from bakeoff.report.transcript_html import fold
from bakeoff.tasks.spam_classifier.plugin import TASK as SPAM

V1, V2, V3 = "import missing_module\nprint('v1')\n", "print('v2')\n", "print('v3')\nprint('done')\n"
ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=ENV).stdout.strip()


def _commit(repo: Path, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        (repo / name).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return _git(repo, "rev-parse", "HEAD")


def _turn(number: int, code: str, sha: str | None = None) -> RepairTurn:
    digest = sha or hashlib.sha256(code.encode()).hexdigest()
    answer = CompletionRecord(text="Fixed.\n\n" + fenced("train.py", code), finish_reason="stop", prompt_tokens=0,
                              completion_tokens=0, prompt_seconds=0.0, generation_seconds=0.0, backend="scripted")
    check = LadderCheck(rung=Rung.INSTALLED, status=LadderStatus.CRASHED, failed_step="train", headline=None)
    return RepairTurn(turn=number, granted_because=RepairGrant.VISIBLE_FAILURE, prompt=None, completion=answer,
                      capture=None, files_written=(FileWritten("train.py", len(code), digest),), before=check,
                      after=check, effect=RepairEffect.UNCHANGED)


def _repo(tmp_path: Path) -> tuple[Path, str, str]:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    implement = _commit(repo, {"train.py": V1}, "implement")
    repair = _commit(repo, {"train.py": V3}, "repair")
    return repo, implement, repair


def test_each_of_two_turns_gets_its_own_diff(tmp_path):
    repo, implement, repair = _repo(tmp_path)
    first, second = repair_diffs(repo, implement, repair, [_turn(1, V2), _turn(2, V3)])
    assert first.source == "the files this turn wrote (sha256 checked)"
    assert first.files[0].lines[1:] == ("-import missing_module", "-print('v1')", "+print('v2')")
    assert second.source == "rebuilt code after the previous turn to the repair commit"
    assert second.files[0].lines[1:] == ("-print('v2')", "+print('v3')", "+print('done')")


def test_a_turn_that_cannot_be_rebuilt_leaves_the_whole_stage_diff_to_the_last(tmp_path):
    repo, implement, repair = _repo(tmp_path)
    first, second = repair_diffs(repo, implement, repair, [_turn(1, V2, sha="0" * 64), _turn(2, V3)])
    assert not first.available and "cannot be rebuilt" in first.source
    assert second.source == "git: the implement commit to the repair commit (all turns together)"
    assert second.files[0].lines[1:] == ("-import missing_module", "-print('v1')", "+print('v3')", "+print('done')")


def test_no_history_is_said_not_guessed(tmp_path):
    (diff,) = repair_diffs(tmp_path / "nothing", "a" * 40, "b" * 40, [_turn(1, V2)])
    assert not diff.available and "cannot be read" in diff.source


def test_the_repositorys_own_git_configuration_runs_nothing(tmp_path):
    repo, implement, _ = _repo(tmp_path)
    marker = tmp_path / "ran"
    hook = tmp_path / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    os.symlink("/etc/passwd", repo / "passwd")
    link_commit = _commit(repo, {}, "link")
    for key in ("core.fsmonitor", "core.pager", "core.sshCommand", "diff.external"):  # what sandboxed code could plant
        _git(repo, "config", key, str(hook))
    _git(repo, "config", "core.hooksPath", str(tmp_path))
    tree = tree_at(repo, link_commit)
    assert tree == {"train.py": V3.encode()}  # the link is neither followed nor listed
    assert tree_at(repo, "HEAD") is None and tree_at(repo, "--output=/tmp/x") is None  # only commit ids from records
    assert not marker.exists()
    assert tree_at(repo, implement) == {"train.py": V1.encode()}


def test_a_run_with_sparse_records_still_renders_every_stage(tmp_path):
    batch = write_batch(tmp_path / "batch", [FakeRun("thin", 1, f1=None, rung=1, status="crashed",
                                                     crash_class="module_not_found",
                                                     turns=[(1, None, 1, None, "unchanged")])])
    page = render_run_transcript(read_batch(batch).runs[0], SPAM)
    for stage in ("explore", "decide", "implement", "repair", "evaluate"):
        assert f'id="stage-{stage}"' in page
    assert "no record: the stage did not finish" in page  # docs has no record in this batch
    assert "the run&#x27;s git history cannot be read" in page
    # the rung is named from its number, in the task's words (a record of the first schema had left it blank)
    assert "final outcome</th><td>rung 1 (requirements_installed), crashed, crash class module_not_found" in page


def test_long_text_is_folded_whole_and_says_how_long_it_is():
    text = "\n".join(f"line {i}" for i in range(500))
    html = fold("stdout tail", text, note="the sandbox kept the tail: 10 bytes before it were dropped when the command ran")
    assert html.startswith("<details><summary>stdout tail (500 lines, ")
    assert "line 0\n" in html and "line 499" in html  # nothing cut here
    assert "10 bytes before it were dropped" in html
    assert fold("short", "one line").startswith("<details open>")


def test_reasoning_is_folded_apart_and_the_budget_cut_is_said(tmp_path):
    from dataclasses import replace

    batch = write_batch(tmp_path / "batch", [FakeRun("thinker", 1)])
    prompt = Prompt("decide#1", (PromptMessage("user", "Design it."),), chars=10, shared_prefix_chars=0,
                    cut=(PromptCut("exploration_output", 90000, 6000),))
    completion = CompletionRecord(text="# file: DESIGN.md\n...", finish_reason="stop", prompt_tokens=0,
                                  completion_tokens=0, prompt_seconds=0.0, generation_seconds=0.0, backend="scripted",
                                  reasoning="First I <think> about the leak.", reasoning_tokens=7)
    change_stage(batch, "thinker-r01", "decide", lambda record: replace(record, prompt=prompt, completion=completion))
    page = render_run_transcript(read_batch(batch).runs[0], SPAM)
    decide = page[page.index('id="stage-decide"'):page.index('id="stage-implement"')]
    assert "<details><summary>reasoning (1 line, 31 characters)</summary>" in decide  # folded
    assert "First I &lt;think&gt; about the leak." in decide
    assert decide.index("reasoning (") < decide.index("answer (")
    assert "context budget cut exploration_output: 90000 characters to 6000" in decide
    assert "reasoning 7" in decide
