"""The hidden inputs are in a run's sandbox only while the harness grades (issue 22): explore's code, whose output
goes back to the model, finds /holdout empty; the check grades on the full holdout all the same."""

from __future__ import annotations

import json
import os
from types import SimpleNamespace

import pytest
from runner_support import DESIGN, README, answers, fenced, implementation, make_tiny_corpus, run_scripted_batch

from bakeoff.taskapi.corpus import CorpusFiles
from bakeoff.taskapi.hidden_inputs import GatedFolder, hidden_parts
from bakeoff.tasks.registry import task_plugin
from sandbox.paths import HOLDOUT_DIR


def _tree(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


class _Kept:
    """What the gate asks of a sandbox: the host folders whose content outlives a command."""

    def __init__(self, *folders):
        self.folders = list(folders)

    spec = SimpleNamespace(mounts=())

    def writable_folders(self):
        return self.folders


def test_a_gate_holds_copies_only_while_open(tmp_path):
    source = tmp_path / "corpus"
    (source / "experiments").mkdir(parents=True)
    (source / "experiments" / "exp_000.csv").write_text("a,b\n1,2\n")
    (source / "holdout.csv").write_text("id\n1\n")
    gate = GatedFolder(tmp_path / "gate", ((source / "experiments", ""), (source / "holdout.csv", "inner/h.csv")))
    gate.prepare()
    assert _tree(gate.folder) == []
    with gate.opened(_Kept()):
        assert _tree(gate.folder) == ["exp_000.csv", "inner", "inner/h.csv"]
        assert (gate.folder / "inner" / "h.csv").read_text() == "id\n1\n"
        assert os.stat(gate.folder / "exp_000.csv").st_ino != os.stat(source / "experiments" / "exp_000.csv").st_ino
    assert _tree(gate.folder) == []
    assert _tree(source) == ["experiments", "experiments/exp_000.csv", "holdout.csv"], "the corpus is untouched"


def test_a_gate_empties_even_when_the_grading_fails_and_follows_no_planted_link(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    source = tmp_path / "holdout.csv"
    source.write_text("id\n1\n")
    gate = GatedFolder(tmp_path / "gate", ((source, "holdout.csv"),))
    gate.prepare()
    (gate.folder / "planted").symlink_to(outside, target_is_directory=True)
    with pytest.raises(RuntimeError), gate.opened(_Kept()):
        raise RuntimeError("the grader broke")
    assert _tree(gate.folder) == []
    assert (outside / "keep.txt").read_text() == "mine", "the link went, not what it points at"


def test_a_hidden_part_outside_the_hidden_folder_is_refused(tmp_path):
    with pytest.raises(ValueError, match="outside"):
        hidden_parts((("holdout.csv", "data/holdout.csv"),), ("holdout.csv",), tmp_path)


@pytest.mark.parametrize("task", ["spam_classifier", "ab_test", "simulation"])
def test_every_task_gates_its_hidden_inputs_and_only_them(tmp_path, task):
    layout = task_plugin(task).corpus_layout()
    assert layout.hidden, f"{task} declares no hidden inputs"
    files = CorpusFiles(tmp_path, layout)
    visible = {mount.sandbox_path for mount in files.visible_mounts()}
    assert not any(path == HOLDOUT_DIR or path.startswith(HOLDOUT_DIR + "/") for path in visible)
    gate = files.hidden_gate(tmp_path / "gate")
    assert gate.mount().sandbox_path == HOLDOUT_DIR and gate.parts


PEEK = fenced("explore.py", """
import os
print("HIDDEN:", sorted(os.listdir("/holdout")) if os.path.isdir("/holdout") else "absent")
""")


@pytest.mark.docker
@pytest.mark.slow
def test_explore_sees_no_hidden_input_while_the_check_grades_on_all_of_it(tmp_path):
    corpus = make_tiny_corpus(tmp_path / "corpus")
    lines = answers(implementation())
    lines[0] = {"key": "explore#1", "text": PEEK}
    assert lines[1]["text"] == DESIGN and lines[-1]["text"] == README
    result = run_scripted_batch(tmp_path, {"peeker": lines},
                                {"corpus": str(corpus), "seed": 5, "task_settings": {"smoke_rows": 50}})
    record = result.records[0].to_json()
    run = tmp_path / "batch" / "runs" / "peeker-r01"
    explore = json.loads((run / "stages" / "1-explore.json").read_text())
    assert "HIDDEN: []" in explore["shown_to_model"], explore["shown_to_model"]
    assert record["outcome"]["status"] == "scored" and record["outcome"]["rung"] == 5
    assert 0.5 < record["outcome"]["headline"]["value"] <= 1.0, "graded on the holdout the gate let in"
    assert _tree(run / "hidden_inputs") == [], "emptied after the check"
