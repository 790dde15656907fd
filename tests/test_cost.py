"""Cost beside quality (issue 27): the peaks a stage samples (the model engine's memory, the GPU's through NVML,
here simulated through the models package's GpuMemoryProbe seam), what a run and a model cost from their records
(time, tokens with reasoning apart, tokens per second, sandbox CPU seconds), the Pareto frontier, and a real
scripted batch whose records and report carry the simulated GPU readings."""

from __future__ import annotations

import csv
import subprocess
import sys
import time

import pytest
from analysis_factory import FakeRun, write_batch
from deadline import Deadline
from runner_support import TRAIN_CRASHING, answers, implementation, make_tiny_corpus, run_scripted_batch

from bakeoff.analysis.cost import model_cost, run_cost
from bakeoff.batchfolder.read import read_run
from bakeoff.models.memory import GIB, MIB, GpuMemory
from bakeoff.records import Capture, CaptureReason, CaptureStatus, CompletionRecord, Resources, Timings
from bakeoff.report.cost import pareto_front
from bakeoff.runner.resources import PeakSampler


class SimulatedGpu:
    """A GPU whose used memory follows the readings given (the last one stays): what NVML would report."""

    def __init__(self, used_gib: list[float], total_gib: float = 12.0) -> None:
        self.readings = [GpuMemory("Simulated RTX 4070", int((total_gib - u) * GIB), int(total_gib * GIB)) for u in used_gib]
        self.reads = 0

    def read(self) -> GpuMemory | None:
        self.reads += 1
        return self.readings[min(self.reads - 1, len(self.readings) - 1)]


def test_a_stage_samples_the_engine_process_and_the_gpu():
    engine = subprocess.Popen([sys.executable, "-c", "import time; block = b'x' * (96 * 1024 * 1024); time.sleep(60)"])
    try:
        time.sleep(2.0)  # the child holds its block
        gpu = SimulatedGpu([3.0, 7.5, 5.0])
        sampler = PeakSampler(every_s=0.05, engine_pid=lambda: engine.pid, gpu=gpu)
        with sampler:
            deadline = Deadline()
            while gpu.reads < 4 and deadline.pending("four GPU readings"):
                time.sleep(0.05)
        peaks = sampler.peaks()
    finally:
        engine.kill()
        engine.wait()
    assert peaks.engine_peak_rss_bytes is not None and peaks.engine_peak_rss_bytes > 90 * MIB
    assert peaks.gpu_peak_used_bytes == int(7.5 * GIB)  # the highest of the readings: total minus free
    none = PeakSampler(every_s=0.05, engine_pid=lambda: None, gpu=None)
    with none:
        pass
    assert none.peaks().engine_peak_rss_bytes is None  # an endpoint has no engine process: no figure, not zero
    assert none.peaks().gpu_peak_used_bytes is None  # no GPU: no figure


def completion(prompt: int, out: int, reasoning: int, seconds: float, **info) -> CompletionRecord:
    return CompletionRecord(text="x", finish_reason="stop", prompt_tokens=prompt, completion_tokens=out,
                            prompt_seconds=0.1, generation_seconds=seconds, backend="gguf:/m.gguf",
                            reasoning_tokens=reasoning, cached_prompt_tokens=prompt // 2, model_info=info)


def test_a_runs_cost_from_its_records(tmp_path):
    from dataclasses import replace

    from analysis_factory import change_stage

    folder = write_batch(tmp_path / "batch", [FakeRun("m", 1)])
    info = {"quantization": "Q4_K_M", "parameters": 7_615_616_512, "file_bytes": 4_683_073_504, "sha256": "ab"}
    explore = completion(1000, 300, 100, 10.0, **info)
    decide = completion(1500, 500, 0, 10.0, **info)
    change_stage(folder, "m-r01", "explore", lambda r: replace(
        r, completion=explore, prompt=_prompt(), timings=Timings("", "", wall_s=40.0, model_s=12.0, sandbox_s=20.0),
        resources=Resources(1, 2, None, 900 * MIB, 6 * GIB, 3.5)))
    change_stage(folder, "m-r01", "decide", lambda r: replace(
        r, completion=decide, prompt=_prompt(), capture=Capture(CaptureStatus.CAPTURED, CaptureReason.OK),
        timings=Timings("", "", wall_s=20.0, model_s=11.0),
        resources=Resources(1, 2, None, 950 * MIB, 5 * GIB, None)))
    cost = run_cost(read_run(folder / "runs" / "m-r01"))
    assert (cost.prompt_tokens, cost.cached_prompt_tokens) == (2500, 1250)
    assert (cost.answer_tokens, cost.reasoning_tokens, cost.output_tokens) == (700, 100, 800)  # reasoning apart
    assert cost.tokens_per_s == pytest.approx(800 / 20.0)
    assert (cost.wall_s, cost.model_s) == (60.0, 23.0)
    assert cost.engine_peak_rss_bytes == 950 * MIB and cost.gpu_peak_used_bytes == 6 * GIB
    assert cost.sandbox_cpu_s == 3.5  # a stage that reported none adds nothing
    assert (cost.facts.quantization, cost.facts.parameters) == ("Q4_K_M", 7_615_616_512)
    model = model_cost("m", [cost, replace(cost, run_id="m-r02", wall_s=100.0)])
    assert model.median_wall_s == 80.0 and model.tokens_per_s == pytest.approx(40.0)
    assert model.answer_tokens_per_run == 700 and model.reasoning_tokens_per_run == 100


def _prompt():
    from bakeoff.records import Prompt, PromptMessage

    return Prompt("k#1", (PromptMessage("user", "q"),), 1, 0)


def test_the_pareto_front_is_the_models_no_other_beats_on_both():
    points = {"fast-good": (10.0, 0.8), "slow-better": (50.0, 0.9), "slow-worse": (60.0, 0.7), "fast-bad": (5.0, 0.2)}
    assert pareto_front(points, higher_is_better=True) == ["fast-bad", "fast-good", "slow-better"]
    lower = {"a": (10.0, 0.02), "b": (20.0, 0.01), "c": (30.0, 0.05)}  # a Winkler score: lower is better
    assert pareto_front(lower, higher_is_better=False) == ["a", "b"]


@pytest.mark.docker
@pytest.mark.slow
def test_a_batch_records_and_reports_the_gpu_readings(tmp_path):
    from bakeoff.batchfolder.read import read_batch
    from bakeoff.tasks import report_batch

    corpus = make_tiny_corpus(tmp_path / "corpus")
    gpu = SimulatedGpu([4.0, 4.5, 4.25])  # NVML's readings through the seam, as a workstation would give them
    result = run_scripted_batch(tmp_path, {"crashy": answers(implementation(TRAIN_CRASHING))},
                                {"corpus": str(corpus), "task_settings": {"smoke_rows": 50}}, gpu_probe=gpu)
    assert result.failed == 0
    (run,) = read_batch(tmp_path / "batch").runs
    peaks = [record.resources.gpu_peak_used_bytes for record in run.stages.values() if record.resources is not None]
    assert peaks and all(peak is not None and 4 * GIB <= peak <= int(4.5 * GIB) for peak in peaks)
    files = report_batch(tmp_path / "batch")
    with open(files.folder / "tables" / "cost_models.csv", newline="") as handle:
        (row,) = list(csv.DictReader(handle))
    assert 4 * 1024 <= float(row["gpu_peak_mib"]) <= 4.5 * 1024
    assert float(row["sandbox_cpu_s_per_run"]) > 0  # the install and the crashing train.py ran in Docker
