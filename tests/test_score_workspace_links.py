"""The scratch copy of a submission: no git of the submission runs, no link or hard link brings a host file in.

Every repository here is a real git repository made with the real git; the
attacks are the red team's (issue 11, points 1 and 2).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from bakeoff.submission.safe_copy import ProtectedFileInSubmission, RepositoryNotUsable
from bakeoff.submission.safe_copy import copy_submission as copy_working_tree

ROOT = Path(__file__).resolve().parents[1]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def _commit_all(repo: Path) -> None:
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")


def _repo(tmp_path: Path, name: str = "repo") -> Path:
    repo = tmp_path / name
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "predict.py").write_text("print('hi')\n")
    return repo


def test_a_shipped_reference_folder_is_copied_with_real_files(tmp_path):
    copy_working_tree(ROOT / "generators" / "spam_classifier" / "references" / "text_only", tmp_path / "ws")
    predict = tmp_path / "ws" / "predict.py"
    assert predict.is_file() and not predict.is_symlink()
    assert predict.read_text() == (ROOT / "generators" / "spam_classifier" / "references" / "source" / "predict.py").read_text()


def test_a_committed_link_to_an_outside_file_is_not_followed(tmp_path):
    secret = tmp_path / "holdout_answers.csv"
    secret.write_text("id,label\n1,1\n")
    repo = _repo(tmp_path)
    (repo / "answers.csv").symlink_to(secret)  # planted by sandboxed code, then committed by a stage
    _commit_all(repo)
    report = copy_working_tree(repo, tmp_path / "ws")
    copied = tmp_path / "ws" / "answers.csv"
    assert copied.is_symlink()
    assert (tmp_path / "ws" / "predict.py").read_text() == "print('hi')\n"
    assert report.kept_links == ("answers.csv",)


def test_links_are_followed_only_to_files_inside_the_submission_folder(tmp_path):
    repo = tmp_path / "repo"
    (repo / "shared").mkdir(parents=True)
    (repo / "sub" / "lib").mkdir(parents=True)
    _git(repo, "init", "-q")
    (repo / "shared" / "model.py").write_text("X = 1\n")
    (repo / "sub" / "lib" / "real.py").write_text("Y = 2\n")
    (repo / "sub" / "model.py").symlink_to("../shared/model.py")  # tracked, but outside the submission folder
    (repo / "sub" / "alias.py").symlink_to("lib/real.py")
    _commit_all(repo)
    report = copy_working_tree(repo / "sub", tmp_path / "ws")
    assert (tmp_path / "ws" / "model.py").is_symlink()  # copied as a link, never followed
    assert not (tmp_path / "ws" / "alias.py").is_symlink()
    assert (tmp_path / "ws" / "alias.py").read_text() == "Y = 2\n"
    assert (report.followed_links, report.kept_links) == (("alias.py",), ("model.py",))


def test_a_core_fsmonitor_in_the_submissions_git_config_never_runs(tmp_path):
    marker = tmp_path / "fsmonitor-ran"
    repo = _repo(tmp_path)
    (repo / "model.py").symlink_to("predict.py")  # a link: the old code asked git what it tracks
    _commit_all(repo)
    _git(repo, "config", "core.fsmonitor", f"echo ran >> {marker}; false")
    copy_working_tree(repo, tmp_path / "ws")
    assert not marker.exists()
    assert (tmp_path / "ws" / "model.py").read_text() == "print('hi')\n"
    assert not (tmp_path / "ws" / ".git").exists()


def test_a_git_file_pointing_at_a_hostile_config_never_runs(tmp_path):
    marker = tmp_path / "fsmonitor-ran"
    elsewhere = _repo(tmp_path, "elsewhere")
    _commit_all(elsewhere)
    _git(elsewhere, "config", "core.fsmonitor", f"echo ran >> {marker}; false")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".git").write_text(f"gitdir: {elsewhere / '.git'}\n")
    (repo / "predict.py").write_text("print('hi')\n")
    (repo / "model.py").symlink_to("predict.py")
    report = copy_working_tree(repo, tmp_path / "ws")
    assert not marker.exists()
    assert not (tmp_path / "ws" / ".git").exists()
    assert report.git_metadata == (".git",)


def test_core_worktree_and_an_index_entry_for_the_key_do_not_bring_it_in(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    key = corpus / "holdout_answers.csv"
    key.write_text("id,label\n7,1\n")
    repo = _repo(tmp_path)
    _commit_all(repo)
    git_dir = repo / ".git"
    # The red team's recipe: the work tree is "/", the key's absolute path is in the index, a link points at it.
    subprocess.run(["git", f"--git-dir={git_dir}", "--work-tree=/", "add", "-f", str(key)[1:]], check=True, cwd="/")
    _git(repo, "config", "core.worktree", "/")
    (repo / "answers.csv").symlink_to(key)
    copy_working_tree(repo, tmp_path / "ws", protected=[key])
    copied = tmp_path / "ws" / "answers.csv"
    assert copied.is_symlink()  # a link to nowhere inside the sandbox; the key's bytes were not copied
    assert not any("7,1" in path.read_text() for path in (tmp_path / "ws").rglob("*") if not path.is_symlink() and path.is_file())


def test_a_hard_link_to_the_answer_key_is_refused(tmp_path):
    key = tmp_path / "corpus" / "holdout_answers.csv"
    key.parent.mkdir()
    key.write_text("id,label\n7,1\n")
    repo = _repo(tmp_path)
    os.link(key, repo / "labels.csv")
    with pytest.raises(ProtectedFileInSubmission, match="labels.csv"):
        copy_working_tree(repo, tmp_path / "ws", protected=[key])


def test_a_link_to_a_hard_link_of_truth_is_refused(tmp_path):
    truth = tmp_path / "corpus" / "truth.csv"
    truth.parent.mkdir()
    truth.write_text("id,label\n7,1\n")
    repo = _repo(tmp_path)
    (repo / "hidden").mkdir()
    os.link(truth, repo / "hidden" / "t.csv")
    (repo / "t.csv").symlink_to("hidden/t.csv")
    with pytest.raises(ProtectedFileInSubmission):
        copy_working_tree(repo, tmp_path / "ws", protected=[truth])


def test_a_fifo_is_left_out_instead_of_blocking_the_copy(tmp_path):
    repo = _repo(tmp_path)
    os.mkfifo(repo / "pipe")
    report = copy_working_tree(repo, tmp_path / "ws")
    assert report.skipped == ("pipe",)
    assert not (tmp_path / "ws" / "pipe").exists()
    assert (tmp_path / "ws" / "predict.py").is_file()


def test_a_missing_submission_folder_is_refused(tmp_path):
    with pytest.raises(RepositoryNotUsable, match="does not exist"):
        copy_working_tree(tmp_path / "nothing", tmp_path / "ws")
