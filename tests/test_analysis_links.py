"""The probe and the retrains run on the host over a workspace that sandboxed code wrote: links there are never followed."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

from bakeoff.runner.seeding import install_seed_hook
from bakeoff.taskapi.hidden_inputs import GatedFolder
from bakeoff.tasks.spam_classifier.probes import probe_submission
from bakeoff.tasks.spam_classifier.retrain import retrain_submission
from sandbox.base import ExecResult


def _corpus(folder: Path) -> Path:
    folder.mkdir()
    (folder / "holdout.csv").write_text("id,subject,moderator_flagged\n1,a,0\n2,b,0\n", encoding="utf-8")
    (folder / "train.csv").write_text("id,subject,moderator_flagged,label\n1,a,1,1\n2,b,0,0\n", encoding="utf-8")
    (folder / "holdout_answers.csv").write_text("id,label\n1,1\n2,0\n", encoding="utf-8")
    return folder


class FakeSandbox:
    """Runs nothing; `act(argv)` plays the submission's part on the workspace, as sandboxed code could."""

    kind = "none"

    def __init__(self, workspace: Path, act) -> None:
        self.spec = SimpleNamespace(workspace=workspace, mounts=())
        self.act = act

    def writable_folders(self) -> list[Path]:
        return [self.spec.workspace]

    def exec(self, argv, timeout_s=None, env=None) -> ExecResult:
        self.act(list(argv))
        return ExecResult(tuple(argv), 0, "", "", False, False, 0.0)


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    for name in ("probe", "retrain", "seed"):
        (outside / name).mkdir(parents=True)
        (outside / name / "keep.txt").write_text("host file", encoding="utf-8")
    return outside


def _gate(tmp_path: Path, corpus: Path) -> GatedFolder:
    """The holdout's gate, as a run's sandbox mounts it at /holdout."""
    gate = GatedFolder(tmp_path / "gate", ((corpus / "holdout.csv", "holdout.csv"),))
    gate.prepare()
    return gate


def _untouched(outside: Path) -> bool:
    return sorted(p.relative_to(outside).as_posix() for p in outside.rglob("*")) == [
        "probe", "probe/keep.txt", "retrain", "retrain/keep.txt", "seed", "seed/keep.txt"
    ]


def test_the_probe_neither_writes_nor_deletes_through_a_planted_scratch_link(tmp_path):
    corpus, outside, workspace = _corpus(tmp_path / "corpus"), _outside(tmp_path), tmp_path / "workspace"
    workspace.mkdir()
    (workspace / ".bakeoff").symlink_to(outside)  # left by an earlier execution

    def swap_scratch_for_a_link(argv):
        if not (workspace / ".bakeoff").is_symlink():
            os.rename(workspace / ".bakeoff", workspace / "moved")
            (workspace / ".bakeoff").symlink_to(outside)

    gate = _gate(tmp_path, corpus)
    result = probe_submission(FakeSandbox(workspace, swap_scratch_for_a_link), corpus, gate, rows=2)
    assert _untouched(outside)
    assert (workspace / ".bakeoff").is_symlink() and not (workspace / "moved").exists()  # as before the gate opened
    assert result.verdict == "inconclusive"
    assert list(gate.folder.iterdir()) == []


def test_a_probe_prediction_that_is_a_link_is_refused(tmp_path):
    corpus, workspace = _corpus(tmp_path / "corpus"), tmp_path / "workspace"
    workspace.mkdir()

    def link_the_output(argv):
        (workspace / argv[argv.index("--output") + 1]).symlink_to(corpus / "holdout_answers.csv")

    result = probe_submission(FakeSandbox(workspace, link_the_output), corpus, _gate(tmp_path, corpus), rows=2)
    assert result.verdict == "inconclusive"
    assert "not a regular file" in result.variants[0].detail


def test_a_retrain_prediction_that_links_to_the_answer_key_is_not_scored(tmp_path):
    corpus, workspace = _corpus(tmp_path / "corpus"), tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "predict.py").write_text("", encoding="utf-8")

    def link_the_answer_key(argv):
        if "predict.py" in argv[-1]:
            folder = workspace / argv[-1].split()[1]
            (folder / "retrain_predictions.csv").symlink_to(corpus / "holdout_answers.csv")

    result = retrain_submission(FakeSandbox(workspace, link_the_answer_key), corpus, seed=1, original_f1=0.5,
                                env_for_seed=lambda seed: {}, count=2)
    assert [r.status for r in result.retrains] == ["bad_output", "bad_output"]
    assert all(r.f1 is None for r in result.retrains)


def test_retrains_never_write_or_delete_through_a_swapped_scratch_folder(tmp_path):
    corpus, outside, workspace = _corpus(tmp_path / "corpus"), _outside(tmp_path), tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "predict.py").write_text("", encoding="utf-8")

    def swap_scratch_for_a_link(argv):
        if (workspace / ".bakeoff").is_symlink():
            return
        os.rename(workspace / ".bakeoff", workspace / f"moved-{len(list(workspace.glob('moved-*')))}")
        (workspace / ".bakeoff").symlink_to(outside)

    retrain_submission(FakeSandbox(workspace, swap_scratch_for_a_link), corpus, seed=1, original_f1=0.5,
                       env_for_seed=lambda seed: {}, count=2)
    assert _untouched(outside)


def test_the_seed_hook_replaces_planted_links_instead_of_writing_through_them(tmp_path):
    outside, workspace = _outside(tmp_path), tmp_path / "workspace"
    (workspace / ".bakeoff").mkdir(parents=True)
    (workspace / ".bakeoff" / "seed").symlink_to(outside / "seed")
    install_seed_hook(workspace)
    assert _untouched(outside)
    hook = workspace / ".bakeoff" / "seed" / "sitecustomize.py"
    target = outside / "seed" / "keep.txt"
    hook.unlink()
    hook.symlink_to(target)
    install_seed_hook(workspace)
    assert target.read_text(encoding="utf-8") == "host file"
    assert not hook.is_symlink() and "BAKEOFF_SEED" in hook.read_text(encoding="utf-8")
