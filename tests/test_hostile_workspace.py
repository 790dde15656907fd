"""What sandboxed code leaves in the workspace cannot wedge a run (real git, real links, real bwrap).

An empty nested `sub/.git` used to make `git add -A` fail (the run harness_failed on every restart),
an emptied `.gitignore` committed data/excerpt.txt and the seed hook, and a `data` link was committed
and came back on every reset, failing every later execution under bwrap.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from runner_support import DESIGN, PREDICT_ZERO, README, fenced, make_tiny_corpus, stage_records, write_script


def _repo(tmp_path: Path):
    from bakeoff.runner.workspace import RunRepo
    from bakeoff.taskapi.spec import load_task

    excerpt = tmp_path / "excerpt.txt"
    excerpt.write_text("id,subject\n1,hello\n")
    return RunRepo.create(tmp_path / "repo", load_task("spam_classifier").template_dir, excerpt), excerpt


def _tracked(repo) -> list[str]:
    out = subprocess.run(["git", "-C", str(repo.path), "ls-files"], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_an_empty_nested_git_folder_is_skipped_and_reported(tmp_path):
    repo, _ = _repo(tmp_path)
    (repo.path / "sub" / ".git").mkdir(parents=True)
    (repo.path / "sub" / "notes.py").write_text("x = 1\n")
    (repo.path / "explore.py").write_text("print(1)\n")
    commit = repo.commit("explore")
    assert _tracked(repo) == [".gitignore", "explore.py"]
    assert commit.skipped == {"count": 1, "paths": [{"path": "sub", "kind": "nested_repository"}]}
    repo.reset_to(commit.sha)  # and a restart's reset gets past it too
    assert not (repo.path / "sub").exists() and (repo.path / "explore.py").is_file()


def test_an_emptied_gitignore_commits_no_data_and_no_harness_file(tmp_path):
    from bakeoff.runner.seeding import install_seed_hook

    repo, _ = _repo(tmp_path)
    install_seed_hook(repo.path)
    (repo.path / ".gitignore").write_text("")
    (repo.path / "model.py").write_text("pass\n")
    repo.commit("explore")
    assert _tracked(repo) == [".gitignore", "model.py"]
    (repo.path / ".gitignore").write_text("!data/\n!data/excerpt.txt\n!.bakeoff/\nmodel.pkl\n")
    (repo.path / "model.pkl").write_bytes(b"weights")  # the model's own ignores still apply to its files
    repo.commit("decide")
    assert _tracked(repo) == [".gitignore", "model.py"]


def test_links_are_never_committed_and_data_comes_back_real(tmp_path):
    repo, excerpt = _repo(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    first = repo.commit("explore")
    (repo.path / "data" / "excerpt.txt").unlink()
    (repo.path / "data").rmdir()
    (repo.path / "data").symlink_to(outside)
    (repo.path / "key.csv").symlink_to(tmp_path / "excerpt.txt")
    (repo.path / "fifo").mkdir()
    import os

    os.mkfifo(repo.path / "fifo" / "pipe")
    commit = repo.commit("decide")
    assert _tracked(repo) == [".gitignore"]
    kinds = {entry["path"]: entry["kind"] for entry in commit.skipped["paths"]}
    assert kinds == {"key.csv": "link", "fifo/pipe": "special_file"}  # data/ is the harness's: not even listed
    repo.reset_to(first.sha)
    repo.restore_data(excerpt)
    data = repo.path / "data"
    assert data.is_dir() and not data.is_symlink() and (data / "excerpt.txt").read_text() == excerpt.read_text()
    assert list(outside.iterdir()) == []


# --- the attack end to end under bwrap: the run finishes, nothing of the harness is committed -----------------

ATTACK = fenced("explore.py", """
import os, shutil
os.makedirs("sub/.git", exist_ok=True)
open(".gitignore", "w").close()
os.symlink("/etc/passwd", "passwd_link")
try:
    os.rename("data", "data_moved")
except OSError as exc:
    print("rename data:", exc)
    shutil.rmtree("data", ignore_errors=True)
if not os.path.lexists("data"):
    os.symlink("/tmp", "data")
print("planted", sorted(os.listdir(".")))
""")

TRAIN_ATTACK = """
import os, shutil
# The same attack between the executions of grading: the next one must still start.
if os.path.isdir("data") and not os.path.islink("data"):
    try:
        os.rename("data", "data_gone")
    except OSError:
        shutil.rmtree("data", ignore_errors=True)
if not os.path.lexists("data"):
    os.symlink("/nonexistent", "data")
open("model.txt", "w").write("0")
print("EXPECTED_F1: 0.5")
"""



@pytest.mark.bwrap
@pytest.mark.slow
def test_a_workspace_attack_under_bwrap_does_not_wedge_the_run(tmp_path):
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.runner.plan import plan_from_mapping
    from bakeoff.tasks import run_plan
    from sandbox.wheelhouse import default_wheelhouse

    corpus = make_tiny_corpus(tmp_path / "corpus")
    implement = "Code:\n\n" + fenced("train.py", TRAIN_ATTACK) + "\n" + fenced("predict.py", PREDICT_ZERO)
    script = write_script(tmp_path / "attack.jsonl", [
        {"key": "explore#1", "text": ATTACK}, {"key": "decide#1", "text": DESIGN},
        {"key": "implement#1", "text": implement}, {"key": "docs#1", "text": README},
    ])
    plan = plan_from_mapping({"models": [{"spec": f"scripted:{script}", "label": "attack"}], "corpus": str(corpus),
                              "runs": 1, "sandbox": "bwrap", "task_settings": {"smoke_rows": 20}}, tmp_path)
    wheelhouse = default_wheelhouse()
    wheelhouse.mkdir(parents=True, exist_ok=True)
    result = run_plan(plan, BatchOptions(out_dir=tmp_path / "batch", wheelhouse=wheelhouse))
    record = result.records[0].to_json()
    assert record["status"] == "finished", record.get("error")
    assert record["outcome"]["status"] == "scored"
    stages = stage_records(tmp_path / "batch" / "runs" / "attack-r01")
    assert all(stage["attribution"] != "harness_error" for stage in stages)
    skipped = {entry["path"]: entry["kind"] for entry in stages[0]["commit"]["skipped"]["paths"]}
    assert skipped.get("sub") == "nested_repository" and skipped.get("passwd_link") == "link"
    repo = tmp_path / "batch" / "runs" / "attack-r01" / "repo"
    tracked = subprocess.run(["git", "-C", str(repo), "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    assert not [path for path in tracked if path.startswith(("data/", ".bakeoff/"))
                or path in ("data", "passwd_link")]
    assert (repo / "data").is_dir() and not (repo / "data").is_symlink()
