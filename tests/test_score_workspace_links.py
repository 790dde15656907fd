"""Which symbolic links a submission's scratch copy follows: only those to files git tracks."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bakeoff.submission_workspace import copy_working_tree

ROOT = Path(__file__).resolve().parents[1]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def _commit_all(repo: Path) -> None:
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")


def test_a_shipped_reference_folder_is_copied_with_real_files(tmp_path):
    copy_working_tree(ROOT / "generators" / "references" / "text_only", tmp_path / "ws")
    predict = tmp_path / "ws" / "predict.py"
    assert predict.is_file() and not predict.is_symlink()
    assert predict.read_text() == (ROOT / "generators" / "references" / "source" / "predict.py").read_text()


def test_a_committed_link_to_an_outside_file_is_not_followed(tmp_path):
    secret = tmp_path / "holdout_answers.csv"
    secret.write_text("id,label\n1,1\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "predict.py").write_text("print('hi')\n")
    (repo / "answers.csv").symlink_to(secret)  # planted by sandboxed code, then committed by a stage
    _commit_all(repo)
    copy_working_tree(repo, tmp_path / "ws")
    copied = tmp_path / "ws" / "answers.csv"
    assert copied.is_symlink()
    assert (tmp_path / "ws" / "predict.py").read_text() == "print('hi')\n"


def test_a_link_to_a_tracked_file_of_the_same_repository_is_copied(tmp_path):
    repo = tmp_path / "repo"
    (repo / "shared").mkdir(parents=True)
    (repo / "sub").mkdir()
    _git(repo, "init", "-q")
    (repo / "shared" / "model.py").write_text("X = 1\n")
    (repo / "sub" / "model.py").symlink_to("../shared/model.py")
    (repo / "sub" / "untracked.py").symlink_to("../shared/notes.py")
    _commit_all(repo)
    (repo / "shared" / "notes.py").write_text("untracked\n")  # exists, but git does not track it
    copy_working_tree(repo / "sub", tmp_path / "ws")
    assert not (tmp_path / "ws" / "model.py").is_symlink()
    assert (tmp_path / "ws" / "model.py").read_text() == "X = 1\n"
    assert (tmp_path / "ws" / "untracked.py").is_symlink()
