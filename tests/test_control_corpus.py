"""`bakeoff generate --control` (bakeoff.taskapi.control): the task's data with its declared truth column permuted
across the hidden units by a derangement keyed by the corpus's secret, everything else byte for byte the same,
and the manifest marked."""

from __future__ import annotations

import csv
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from bakeoff.cli import main
from bakeoff.taskapi.control import (
    CONTROL_KEY,
    ControlNotAvailable,
    ControlTruth,
    derangement,
    is_control,
    make_control,
    permute_column,
)
from bakeoff.taskapi.plugin import GenerateRequest
from bakeoff.tasks.registry import task_names, task_plugin
from generators.secret import Secret


def test_a_derangement_moves_every_unit_and_is_fixed_by_its_seed():
    for units in (2, 3, 8, 50):
        order = derangement(units, 7)
        assert sorted(order) == list(range(units)) and all(i != j for i, j in enumerate(order))
        assert derangement(units, 7) == order
    assert derangement(1, 7) == [0] and derangement(0, 7) == []
    assert len({tuple(derangement(8, seed)) for seed in range(20)}) > 10


def test_permuting_a_column_moves_its_values_and_keeps_every_other_column():
    text = "name,value,other\na,1,x\nb,2,y\nc,3,z\n"
    out = list(csv.reader(permute_column(text, "value", [2, 0, 1]).splitlines()))
    assert out == [["name", "value", "other"], ["a", "3", "x"], ["b", "1", "y"], ["c", "2", "z"]]
    with pytest.raises(ControlNotAvailable):
        permute_column(text, "missing", [2, 0, 1])
    with pytest.raises(ControlNotAvailable):
        permute_column(text, "value", [0, 1])


def _generate(tmp_path: Path, name: str, control: bool, secret: Path) -> Path:
    folder = tmp_path / name
    task = task_plugin("ab_test")
    task.generate(GenerateRequest(folder, 3, dict(task.options.demo), secret_file=secret, control=control))
    return folder


def _column(path: Path, column: str) -> list[str]:
    with path.open(newline="", encoding="utf-8") as handle:
        return [row[column] for row in csv.DictReader(handle)]


def test_the_control_differs_from_its_corpus_only_in_the_permuted_truth_and_the_mark(tmp_path):
    secret = tmp_path / "secret.hex"
    secret.write_text(Secret.fresh().hex(), encoding="ascii")
    plain, control = _generate(tmp_path, "plain", False, secret), _generate(tmp_path, "control", True, secret)
    effects, permuted = _column(plain / "holdout_truth.csv", "effect"), _column(control / "holdout_truth.csv", "effect")
    assert Counter(effects) == Counter(permuted) and effects != permuted
    assert _column(plain / "holdout_truth.csv", "experiment") == _column(control / "holdout_truth.csv", "experiment")
    for path in sorted(p for p in plain.rglob("*") if p.is_file()):
        if path.name not in ("holdout_truth.csv", "manifest.json"):
            assert path.read_bytes() == (control / path.relative_to(plain)).read_bytes(), path
    manifest = json.loads((control / "manifest.json").read_text())
    assert is_control(manifest) and not is_control(json.loads((plain / "manifest.json").read_text()))
    assert manifest[CONTROL_KEY] == {"permuted": "holdout_truth.csv:effect", "units": len(effects),
                                     "keyed_by": Secret.read(secret).identity}
    again = _generate(tmp_path, "again", True, secret)  # the same secret: the same permutation
    assert _column(again / "holdout_truth.csv", "effect") == permuted


def test_the_command_line_makes_a_control_and_refuses_a_task_that_declares_none(tmp_path, monkeypatch):
    result = CliRunner().invoke(main, ["generate", "--task", "ab_test", "--out", str(tmp_path / "c"), "--control",
                                       "--users", "2000", "--experiments", "4", "--holdout-users", "2000"])
    assert result.exit_code == 0, result.output
    assert "NEGATIVE CONTROL" in result.output and is_control(json.loads((tmp_path / "c" / "manifest.json").read_text()))
    bare = replace(task_plugin("ab_test"), control=None)
    with pytest.raises(ControlNotAvailable):
        bare.generate(GenerateRequest(tmp_path / "d", 0, {}, control=True))
    assert not (tmp_path / "d").exists()  # refused before anything was written


def test_a_truth_file_that_is_not_there_is_a_named_error(tmp_path):
    (tmp_path / "manifest.json").write_text("{}")
    with pytest.raises(ControlNotAvailable):
        make_control(tmp_path, ControlTruth("absent.csv", "x"), "manifest.json")


@pytest.mark.parametrize("name", task_names())
def test_every_task_makes_its_control_at_demo_size(name, tmp_path):
    """Each task's declaration still names a column its generator writes (a renamed truth column fails here)."""
    task = task_plugin(name)
    assert task.control is not None
    secret = tmp_path / "secret.hex"
    secret.write_text(Secret.fresh().hex(), encoding="ascii")
    folders = {}
    for control in (False, True):
        folders[control] = tmp_path / str(control)
        task.generate(GenerateRequest(folders[control], 1, dict(task.options.demo), secret_file=secret, control=control))
    before = _column(folders[False] / task.control.file, task.control.column)
    after = _column(folders[True] / task.control.file, task.control.column)
    assert Counter(before) == Counter(after) and before != after and len(before) >= 2
    assert is_control(json.loads((folders[True] / task.corpus_layout().manifest).read_text()))
