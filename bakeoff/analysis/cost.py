"""What a run cost, beside what it scored: time (the run's and the model calls'), tokens in and out (the answer
and the reasoning apart), generation speed, memory peaks (the engine's, the GPU's), the sandbox's CPU seconds,
and what the model is (quantization, parameters, file size), from its stage records (a loop's calls from its
step records); and, for a model its plan entry prices (an API control), the dollars its tokens cost. Per model the
same summed up. Every task has the same cost: nothing here is a task's.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bakeoff.analysis.loops import base_model
from bakeoff.batchfolder.read import BatchRecords, RunRecords, run_model_label
from bakeoff.records import CompletionRecord, ModelFacts
from bakeoff.records.plan import Price


@dataclass(frozen=True)
class RunCost:
    run_id: str
    model: str
    wall_s: float
    model_s: float  # waiting for the model's answers
    sandbox_s: float
    prompt_tokens: int
    cached_prompt_tokens: int
    answer_tokens: int
    reasoning_tokens: int
    generation_s: float  # the engine's own generation time (prompt processing apart)
    calls: int
    engine_peak_rss_bytes: int | None
    gpu_peak_used_bytes: int | None
    sandbox_cpu_s: float | None
    facts: ModelFacts
    usd: float | None = None  # what its tokens cost at its plan entry's price; None: not priced

    @property
    def output_tokens(self) -> int:
        return self.answer_tokens + self.reasoning_tokens

    @property
    def tokens_per_s(self) -> float | None:
        """Generated tokens per second of generation (None where the backend reports no generation time)."""
        return self.output_tokens / self.generation_s if self.generation_s > 0 else None


def _completions(run: RunRecords) -> list[CompletionRecord]:
    """Every answer the run's model gave: its stages' calls, and a loop's, one a step."""
    staged = [completion for record in run.stages.values() for _, completion, _ in record.model_calls()
              if completion is not None]
    return staged + [step.completion for step in run.steps if step.completion is not None]


def _peak(values: Iterable[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return max(known) if known else None


def _sum(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def run_price(records: BatchRecords, run: RunRecords) -> Price | None:
    """The price the plan gave the run's model (None: not priced)."""
    entry = records.plan.model(base_model(run, run_model_label(run)))
    return entry.price if entry is not None else None


def run_costs(records: BatchRecords) -> list[RunCost]:
    """Every run's cost, priced where the plan prices its model."""
    return [run_cost(run, run_price(records, run)) for run in records.runs]


def run_cost(run: RunRecords, price: Price | None = None) -> RunCost:
    """The run's cost from its stage records (an unfinished run's so far), in dollars too at `price`."""
    stages = list(run.stages.values())
    completions = _completions(run)
    resources = [record.resources for record in stages if record.resources is not None]
    facts = next((ModelFacts.from_info(c.model_info) for c in reversed(completions) if c.model_info), ModelFacts())
    if run.run is not None and run.run.model.info:
        facts = run.run.model.facts
    prompt = sum(int(c.prompt_tokens or 0) for c in completions)
    cached = sum(int(c.cached_prompt_tokens or 0) for c in completions)
    output = sum(c.answer_tokens + int(c.reasoning_tokens or 0) for c in completions)
    return RunCost(
        run_id=run.run_id,
        model=run_model_label(run),
        wall_s=sum(float(r.timings.wall_s) for r in stages),
        model_s=sum(float(r.timings.model_s) for r in stages),
        sandbox_s=sum(float(r.timings.sandbox_s) for r in stages),
        prompt_tokens=prompt,
        cached_prompt_tokens=cached,
        answer_tokens=sum(c.answer_tokens for c in completions),
        reasoning_tokens=sum(int(c.reasoning_tokens or 0) for c in completions),
        generation_s=sum(float(c.generation_seconds or 0.0) for c in completions),
        calls=len(completions),
        engine_peak_rss_bytes=_peak(r.engine_peak_rss_bytes for r in resources),
        gpu_peak_used_bytes=_peak(r.gpu_peak_used_bytes for r in resources),
        sandbox_cpu_s=_sum(r.sandbox_cpu_s for r in resources),
        facts=facts,
        usd=price.dollars(prompt, cached, output) if price is not None else None,
    )


@dataclass(frozen=True)
class ModelCost:
    """A model's cost over its runs: medians of time, means of tokens per run, speed over all its generation."""

    model: str
    runs: int
    median_wall_s: float | None
    median_model_s: float | None
    prompt_tokens_per_run: float | None
    answer_tokens_per_run: float | None
    reasoning_tokens_per_run: float | None
    tokens_per_s: float | None
    engine_peak_rss_bytes: int | None
    gpu_peak_used_bytes: int | None
    sandbox_cpu_s_per_run: float | None
    facts: ModelFacts
    usd_per_run: float | None = None  # mean dollars per run; None: not priced

    @property
    def output_tokens_per_run(self) -> float | None:
        if self.answer_tokens_per_run is None or self.reasoning_tokens_per_run is None:
            return None
        return self.answer_tokens_per_run + self.reasoning_tokens_per_run


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def model_cost(model: str, costs: Sequence[RunCost]) -> ModelCost:
    """Over the runs that asked the model anything (a run that never started costs nothing to learn from)."""
    used = [c for c in costs if c.calls]
    generated = sum(c.output_tokens for c in used)
    generation = sum(c.generation_s for c in used)
    cpu = [c.sandbox_cpu_s for c in used if c.sandbox_cpu_s is not None]
    facts = next((c.facts for c in reversed(used) if c.facts != ModelFacts()), ModelFacts())
    return ModelCost(
        model=model,
        runs=len(used),
        median_wall_s=_median([c.wall_s for c in used]),
        median_model_s=_median([c.model_s for c in used]),
        prompt_tokens_per_run=_mean([float(c.prompt_tokens) for c in used]),
        answer_tokens_per_run=_mean([float(c.answer_tokens) for c in used]),
        reasoning_tokens_per_run=_mean([float(c.reasoning_tokens) for c in used]),
        tokens_per_s=generated / generation if generation > 0 else None,
        engine_peak_rss_bytes=_peak(c.engine_peak_rss_bytes for c in used),
        gpu_peak_used_bytes=_peak(c.gpu_peak_used_bytes for c in used),
        sandbox_cpu_s_per_run=_mean(cpu),
        facts=facts,
        usd_per_run=_mean([c.usd for c in used if c.usd is not None]),
    )


def model_costs(runs: Sequence[RunCost], models: Sequence[str]) -> dict[str, ModelCost]:
    return {model: model_cost(model, [c for c in runs if c.model == model]) for model in models}
