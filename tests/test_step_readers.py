"""Step records are their scaffold's own: bakeoff.records declares only the neutral shape a reader uses (LoopStep),
and the readers of a batch get each scaffold's decoder handed down by name (bakeoff.scaffolds.registry.step_readers),
as they get its stages. A run with step records read without a decoder is an error that names it, never a run
whose loop silently counts nothing."""

from __future__ import annotations

import dataclasses

import pytest
from analysis_factory import FakeRun, run_record, write_batch, write_json

import bakeoff.records
from bakeoff.batchfolder.read import BatchFolderError, read_batch
from bakeoff.records import Capture, CaptureReason, CaptureStatus, Commit, LoopStep, LoopUsage, Prompt, Timings
from bakeoff.scaffolds.agent.records import StepRecord
from bakeoff.scaffolds.registry import scaffold_plugin, step_readers


def _agent_batch(tmp_path, steps: int = 2):
    folder = write_batch(tmp_path / "b", [FakeRun("m", 1, f1=0.5)])
    run_id = "m-agent-r01"
    staged = run_record(FakeRun("m", 1, f1=0.4))
    write_json(folder / "runs" / run_id / "run.json", dataclasses.replace(staged, run_id=run_id, scaffold="agent").to_json())
    for number in range(1, steps + 1):
        step = StepRecord(run_id=run_id, step=number, prompt=Prompt(f"agent#{number}", (), 0, 0), completion=None,
                          capture=Capture(CaptureStatus.CAPTURED, CaptureReason.OK), results=(), files_changed=(),
                          commit=Commit("0" * 40, "step", ""), timings=Timings("", ""), usage=LoopUsage(number))
        write_json(folder / "runs" / run_id / "steps" / f"{number:03d}.json", step.to_json())
    return folder, run_id


def test_the_records_package_declares_no_scaffolds_step_class():
    assert not hasattr(bakeoff.records, "StepRecord") and not hasattr(bakeoff.records, "AgentLoop")
    assert scaffold_plugin("staged").step_reader() is None and step_readers("staged") is None
    assert step_readers("no_such_scaffold") is None


def test_the_steps_are_read_through_the_decoder_handed_down(tmp_path):
    folder, run_id = _agent_batch(tmp_path)
    (run,) = [r for r in read_batch(folder, step_readers=step_readers).runs if r.run_id == run_id]
    assert [step.step for step in run.steps] == [1, 2] and all(isinstance(s, StepRecord) for s in run.steps)
    step: LoopStep = run.steps[0]  # what a reader below the scaffolds sees
    assert step.usage.steps == 1


def test_steps_without_their_decoder_are_an_error_naming_the_scaffold(tmp_path):
    folder, run_id = _agent_batch(tmp_path)
    with pytest.raises(BatchFolderError, match="no reader of scaffold 'agent'"):
        read_batch(folder)
    refused = read_batch(folder, refuse_damaged_runs=True)  # what is published leaves that run out, by name
    assert [r.run_id for r in refused.refused] == [run_id] and run_id not in [r.run_id for r in refused.runs]
