"""A run repository someone else made, or sandboxed code wrote into, never makes the host run its commands or wedge.

Issue 32, row 1: `bakeoff report` on a batch folder someone else made, and `bakeoff run` resuming it, ran commands
from a run repository's own .git/config on the host (a partial clone whose promisor remote is an `ext::` command
with one blob missing; core.fsmonitor). Row 8: a `.gitattributes` with working-tree-encoding=UTF-16, or a folder
where the harness writes the model's train.py, ended the run harness_failed on every start.

The hostile repositories are real ones, made hostile with real git; each planted command writes a marker file to
prove that it ran. The batches run under real bwrap.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from runner_support import DESIGN, PREDICT_ZERO, README, bakeoff_cli, fenced, make_tiny_corpus, write_plan, write_script

# --- hostile repositories ---------------------------------------------------------------------------------------


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout.strip()


def _config(repo: Path, key: str, value: str) -> None:
    subprocess.run(["git", "config", "--file", str(repo / ".git" / "config"), key, value], check=True)


def _drop_blob(repo: Path, spec: str) -> None:
    """Remove one loose object (a file of a commit), as a partial clone that never fetched it lacks it."""
    blob = _git(repo, "rev-parse", spec)
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()


def _command(marker: Path) -> str:
    """A shell command that leaves `marker` (whatever arguments git appends, they are a comment)."""
    return f"touch {marker} #"


def _ext_promisor(repo: Path, marker: Path, missing: str) -> None:
    _config(repo, "extensions.partialClone", "origin")
    _config(repo, "remote.origin.url", f"ext::sh -c touch% {marker}")
    _config(repo, "remote.origin.promisor", "true")
    _config(repo, "protocol.ext.allow", "always")
    _drop_blob(repo, missing)


def _ssh_promisor(repo: Path, marker: Path, missing: str) -> None:
    _config(repo, "extensions.partialClone", "origin")
    _config(repo, "remote.origin.url", "ssh://bakeoff.invalid/repo")
    _config(repo, "remote.origin.promisor", "true")
    _config(repo, "core.sshCommand", _command(marker))
    _drop_blob(repo, missing)


def _fsmonitor(repo: Path, marker: Path, missing: str) -> None:
    _config(repo, "core.fsmonitor", _command(marker))


def _diff_external(repo: Path, marker: Path, missing: str) -> None:
    _config(repo, "diff.external", _command(marker))


def _filter_driver(repo: Path, marker: Path, missing: str) -> None:
    _config(repo, "filter.x.smudge", f"touch {marker}; cat")
    _config(repo, "filter.x.clean", f"touch {marker}; cat")
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "attributes").write_text("* filter=x\n", encoding="utf-8")


def _hooks(repo: Path, marker: Path, missing: str) -> None:
    hooks = repo.parent / "planted-hooks"
    hooks.mkdir(exist_ok=True)
    for name in ("pre-commit", "post-commit", "post-checkout", "reference-transaction", "post-index-change"):
        (hooks / name).write_text(f"#!/bin/sh\ntouch {marker}\n", encoding="utf-8")
        (hooks / name).chmod(0o755)
    _config(repo, "core.hooksPath", str(hooks))


HOSTILE = {"ext_promisor": _ext_promisor, "ssh_promisor": _ssh_promisor, "fsmonitor": _fsmonitor,
           "diff_external": _diff_external, "filter_driver": _filter_driver, "hooks": _hooks}


def _run_repo(tmp_path: Path):
    from bakeoff.runner.workspace import RunRepo
    from bakeoff.taskapi.spec import load_task

    excerpt = tmp_path / "excerpt.txt"
    excerpt.write_text("id,subject\n1,hello\n", encoding="utf-8")
    return RunRepo.create(tmp_path / "repo", load_task("spam_classifier").template_dir, excerpt)


# --- reading a foreign repository's objects ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["ext_promisor", "ssh_promisor"])
def test_reading_a_partial_clone_never_runs_its_promisor_command(tmp_path, name):
    from bakeoff.report.transcript_git import tree_at

    repo = _run_repo(tmp_path)
    (repo.path / "train.py").write_text("print('trained')\n", encoding="utf-8")
    (repo.path / "notes.md").write_text("kept\n", encoding="utf-8")
    sha = repo.commit("implement").sha
    marker = tmp_path / "marker"
    HOSTILE[name](repo.path, marker, f"{sha}:train.py")
    tree = tree_at(repo.path, sha)
    assert not marker.exists()
    assert tree is not None and tree["notes.md"] == b"kept\n" and "train.py" not in tree  # missing, never fetched


# --- resuming: a repository whose git folder is not bakeoff's is refused by name -------------------------------------


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_run_repository_with_a_foreign_git_folder_is_refused_and_nothing_runs(tmp_path, name):
    from bakeoff.runner.hostgit import ForeignRepository
    from bakeoff.runner.workspace import RunRepo

    repo = _run_repo(tmp_path)
    (repo.path / "train.py").write_text("print('trained')\n", encoding="utf-8")
    sha = repo.commit("implement").sha
    RunRepo(repo.path).reset_to(sha)  # what bakeoff wrote is reopened, as a resumed run does
    marker = tmp_path / "marker"
    HOSTILE[name](repo.path, marker, f"{sha}:train.py")
    with pytest.raises(ForeignRepository, match="not a repository as bakeoff writes one"):
        reopened = RunRepo(repo.path)  # a resumed run: its repository at the last finished stage, then a commit
        reopened.reset_to(sha)
        reopened.commit("decide")
    assert not marker.exists()


def test_a_git_file_pointing_elsewhere_is_refused(tmp_path):
    from bakeoff.runner.hostgit import ForeignRepository, check_own_repository
    from bakeoff.runner.workspace import RunRepo

    repo = _run_repo(tmp_path)
    elsewhere = tmp_path / "elsewhere.git"
    shutil.move(repo.path / ".git", elsewhere)
    (repo.path / ".git").write_text(f"gitdir: {elsewhere}\n", encoding="utf-8")
    with pytest.raises(ForeignRepository):
        check_own_repository(repo.path)
    with pytest.raises(ForeignRepository):
        RunRepo(repo.path)


# --- what sandboxed code writes into the work tree never wedges a commit or a reset --------------------------------


def test_working_tree_encoding_neither_wedges_a_commit_nor_converts_a_reset(tmp_path):
    repo = _run_repo(tmp_path)
    (repo.path / ".gitattributes").write_text("* working-tree-encoding=UTF-16\n*.py text eol=crlf ident\n",
                                              encoding="utf-8")
    code = b"print('$Id$')\n"
    (repo.path / "train.py").write_bytes(code)
    first = repo.commit("explore")
    assert _git(repo.path, "cat-file", "-p", f"{first.sha}:train.py").encode() + b"\n" == code  # stored as written
    (repo.path / "train.py").write_bytes(b"changed\n")
    repo.commit("decide")
    repo.reset_to(first.sha)
    assert (repo.path / "train.py").read_bytes() == code  # written back as stored, no conversion
    assert repo.commit_messages() == ["template", "explore"]  # main moved back with the work tree


def test_the_model_s_file_where_a_folder_stands_is_refused_not_raised(tmp_path):
    from types import SimpleNamespace

    from bakeoff.runner.modelcall import write_files

    repo = _run_repo(tmp_path)
    (repo.path / "train.py").mkdir()
    (repo.path / "train.py" / "keep.txt").write_text("x\n", encoding="utf-8")
    (repo.path / "lib").write_text("a file where the answer wants a folder\n", encoding="utf-8")
    written = write_files(SimpleNamespace(repo=repo), {"train.py": "print(1)\n", "lib/util.py": "x = 1\n",
                                                       "predict.py": "print(2)\n"}, lambda _: True)
    refused = {entry.path: entry.refused for entry in written}
    assert refused["train.py"] and refused["lib/util.py"] and refused["predict.py"] is None
    repo.commit("implement")  # the folder's file is committed like any other


# --- end to end under bwrap -------------------------------------------------------------------------------------------

TRAIN_TINY = """
open("model.txt", "w").write("0")
print("EXPECTED_F1: 0.5")
"""


def _implementation(train: str) -> str:
    return "Code:\n\n" + fenced("train.py", train) + "\n" + fenced("predict.py", PREDICT_ZERO)


def _script_lines(explore: str, train: str = TRAIN_TINY) -> list[dict]:
    return [{"key": "explore#1", "text": fenced("explore.py", explore)}, {"key": "decide#1", "text": DESIGN},
            {"key": "implement#1", "text": _implementation(train)},
            {"key": "implement#2", "text": _implementation(train + "print('repaired')\n")},
            {"key": "docs#1", "text": README}]


RUNS = ("scripted-r01", "scripted-r02")


@pytest.fixture(scope="module")
def finished_batch(tmp_path_factory):
    """A finished two-run batch (every stage, a repair turn included) and the plan that made it."""
    root = tmp_path_factory.mktemp("hostile-git")
    corpus = make_tiny_corpus(root / "corpus")
    script = write_script(root / "answers.jsonl", _script_lines("print('exploring')\n"), copies=2)
    plan = write_plan(root / "plan.toml", corpus, script, runs=2, sandbox="bwrap", extra="always_repair = true\n")
    batch = root / "batch"
    done = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(batch))
    assert done.returncode == 0, done.stderr
    return batch, plan


def _stage_sha(run_dir: Path, stage: str) -> str:
    [path] = (run_dir / "stages").glob(f"*-{stage}.json")
    return json.loads(path.read_text(encoding="utf-8"))["commit"]["sha"]


def _markers(root: Path) -> list[str]:
    return sorted(p.name for p in root.glob("marker-*"))


@pytest.mark.bwrap
@pytest.mark.slow
def test_report_on_a_handed_over_batch_runs_nothing_from_its_repositories(finished_batch, tmp_path):
    batch, _ = finished_batch
    copy = tmp_path / "batch"
    shutil.copytree(batch, copy, symlinks=True)
    run_dir = copy / "runs" / RUNS[1]
    repair = _stage_sha(run_dir, "repair")
    for name, poison in HOSTILE.items():  # every planted command at once, in the repository report reads
        if "promisor" not in name:
            poison(run_dir / "repo", tmp_path / f"marker-{name}", f"{repair}:train.py")
    _ext_promisor(run_dir / "repo", tmp_path / "marker-ext_promisor", f"{repair}:train.py")
    done = bakeoff_cli("report", str(copy))
    assert done.returncode == 0, done.stderr
    assert _markers(tmp_path) == []
    assert "Traceback" not in done.stderr


def _unfinish(run_dir: Path) -> None:
    """The run as a batch cut short left it: no run record, its last stage not done."""
    (run_dir / "run.json").unlink()
    for path in (run_dir / "stages").glob("*-docs.json"):
        path.unlink()


@pytest.mark.bwrap
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_resuming_a_handed_over_batch_refuses_the_foreign_repository_by_name(finished_batch, tmp_path, name):
    batch, plan = finished_batch
    copy = tmp_path / "batch"
    shutil.copytree(batch, copy, symlinks=True)
    clean, hostile = (copy / "runs" / run for run in RUNS)
    _unfinish(clean)
    _unfinish(hostile)
    marker = tmp_path / f"marker-{name}"
    HOSTILE[name](hostile / "repo", marker, f"{_stage_sha(hostile, 'evaluate')}:train.py")
    done = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(copy))
    assert _markers(tmp_path) == [], done.stderr
    assert "Traceback" not in done.stderr
    refused = json.loads((hostile / "run.json").read_text(encoding="utf-8"))
    assert refused["status"] == "harness_failed" and "ForeignRepository" in refused["error"], refused.get("error")
    assert json.loads((clean / "run.json").read_text(encoding="utf-8"))["status"] == "finished"  # the rest goes on


# --- row 8: workspace content the model controls is the model's failure, never the harness's -------------------------

ATTRIBUTES = """
open(".gitattributes", "w").write("* working-tree-encoding=UTF-16\\n")
print("planted")
"""

TRAIN_FOLDER = """
import os
os.makedirs("train.py", exist_ok=True)
open(os.path.join("train.py", "keep.txt"), "w").write("mine\\n")
print("planted")
"""


@pytest.mark.bwrap
@pytest.mark.slow
def test_workspace_content_that_wedged_git_or_a_write_is_the_model_s_failure(tmp_path):
    from bakeoff.runner.batch import BatchOptions
    from bakeoff.runner.plan import plan_from_mapping
    from bakeoff.tasks import run_plan
    from sandbox.wheelhouse import default_wheelhouse

    corpus = make_tiny_corpus(tmp_path / "corpus")
    models = [{"spec": f"scripted:{write_script(tmp_path / f'{label}.jsonl', _script_lines(explore))}",
               "label": label} for label, explore in (("encoding", ATTRIBUTES), ("folder", TRAIN_FOLDER))]
    plan = plan_from_mapping({"models": models, "corpus": str(corpus), "runs": 1, "sandbox": "bwrap",
                              "task_settings": {"smoke_rows": 20}}, tmp_path)
    wheelhouse = default_wheelhouse()
    wheelhouse.mkdir(parents=True, exist_ok=True)
    result = run_plan(plan, BatchOptions(out_dir=tmp_path / "batch", wheelhouse=wheelhouse))
    by_label = {record.run_id: record.to_json() for record in result.records}
    for run_id, record in by_label.items():
        assert record["status"] == "finished", (run_id, record.get("error"))
        stages = [json.loads(p.read_text()) for p in sorted((tmp_path / "batch" / "runs" / run_id / "stages").glob("*.json"))]
        assert all(stage["attribution"] != "harness_error" for stage in stages), run_id
    encoding = tmp_path / "batch" / "runs" / "encoding-r01" / "repo"
    assert b"working-tree-encoding" in (encoding / ".gitattributes").read_bytes()
    assert "model.txt" in _git(encoding, "cat-file", "-p", "HEAD:train.py")  # committed as the bytes written
    implement = next(p for p in (tmp_path / "batch" / "runs" / "folder-r01" / "stages").glob("*-implement.json"))
    written = {f["path"]: f for f in json.loads(implement.read_text())["files_written"]}
    assert written["train.py"]["refused"], written
    assert os.path.isdir(tmp_path / "batch" / "runs" / "folder-r01" / "repo" / "train.py")


def test_a_history_handed_back_in_bundles_arrives_whole_and_refuses_a_foreign_receiver(tmp_path):
    """The Ray executor's handback (bundles both ways) goes through the same host git: no transport, bakeoff's
    own config on the receiving side, the files written back as committed."""
    from bakeoff.runner.executors.handback import bundle_since, fetch_bundle, move_repo_to
    from bakeoff.runner.hostgit import ForeignRepository

    repo = _run_repo(tmp_path)
    (repo.path / ".gitattributes").write_text("* working-tree-encoding=UTF-16\n", encoding="utf-8")
    (repo.path / "train.py").write_bytes(b"x = 1\n")
    first = repo.commit("explore")
    early = bundle_since(repo.path, None)
    (repo.path / "train.py").write_bytes(b"x = 2\n")
    second = repo.commit("decide")
    late = bundle_since(repo.path, first.sha)
    receiver = tmp_path / "receiver"
    for bundle, commit in ((early, first), (late, second)):
        fetch_bundle(receiver, bundle)
        move_repo_to(receiver, commit.sha, None)
    assert (receiver / "train.py").read_bytes() == b"x = 2\n"
    marker = tmp_path / "marker"
    _fsmonitor(receiver, marker, "")
    with pytest.raises(ForeignRepository):
        fetch_bundle(receiver, late)
    assert not marker.exists()
