"""Reasoning per model and stage: how many tokens went to thinking, and how often thinking ran away.

A reasoning model spends tokens before its answer; a run whose budget ran out
while it was still reasoning is `runaway_reasoning` (unusable), told apart from
an answer that was itself cut off. This table gives both, per stage, so a
model that never got to answer shows as such and not as a model that wrote bad code.
"""

from __future__ import annotations

from collections import defaultdict

from bakeoff.analysis.stats import rate
from bakeoff.batchfolder.read import BatchRecords, run_model_label, stage_calls
from bakeoff.records import Capture, CaptureReason, CompletionRecord, StageRecord
from bakeoff.report.tables import Table, cols
from bakeoff.scaffolds.registry import scaffold_plugin

RUNAWAY = "runaway_reasoning"
COLUMNS = cols(
    "model stage calls:int reasoning_calls:int reasoning_tokens:int reasoning_tokens_per_call:int "
    "completion_tokens:int reasoning_share:pct runaway:int runaway_rate:pct cut_off:int budget_cuts:int"
)


def _calls(record: StageRecord) -> list[tuple[CompletionRecord, Capture | None]]:
    """(completion, capture) of every model call of a stage that got an answer record, its repair turns included."""
    return [(call.completion, call.capture) for call in stage_calls(record) if call.completion is not None]


def reasoning_table(records: BatchRecords) -> Table:
    """One row per model and stage that made model calls; empty when no model reasoned at all."""
    totals: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for run in records.runs:
        label = run_model_label(run)
        calls = [(stage, call) for stage, record in run.stages.items() for call in _calls(record)]
        loop = scaffold_plugin(run.scaffold).step_stage or "steps"  # a loop's steps count under its stage
        calls += [(loop, (step.completion, step.capture)) for step in run.steps if step.completion is not None]
        for stage, (completion, capture) in calls:
                row = totals[(label, stage)]
                row["calls"] += 1
                row["reasoning_calls"] += bool(completion.reasoning)
                row["reasoning_tokens"] += completion.reasoning_tokens
                row["completion_tokens"] += completion.completion_tokens
                row["runaway"] += capture is not None and capture.reason == CaptureReason.RUNAWAY_REASONING
                row["cut_off"] += capture is not None and capture.reason == CaptureReason.CUT_OFF
                row["budget_cuts"] += capture is not None and capture.budget_cut is True
    if not any(row["reasoning_calls"] for row in totals.values()):
        return Table("reasoning", "Reasoning per model and stage (no model reasoned)", COLUMNS, ())
    rows = tuple(
        (label, stage, row["calls"], row["reasoning_calls"], row["reasoning_tokens"],
         round(row["reasoning_tokens"] / row["calls"]), row["completion_tokens"],
         rate(row["reasoning_tokens"], row["completion_tokens"]), row["runaway"], rate(row["runaway"], row["calls"]),
         row["cut_off"], row["budget_cuts"])
        for (label, stage), row in totals.items()
    )
    return Table("reasoning", "Reasoning per model and stage (tokens spent thinking; runaway = budget ran out "
                 "while still reasoning)", COLUMNS, rows)


def reasoning_findings(table: Table) -> list[str]:
    """A sentence per model that reasoned: its thinking tokens, and how often thinking used up the budget."""
    names = [c.name for c in table.columns]
    per_model: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in table.rows:
        values = dict(zip(names, row, strict=True))
        model = per_model[values["model"]]
        for key in ("calls", "reasoning_tokens", "completion_tokens", "runaway"):
            model[key] += values[key]
    lines = []
    for label, model in per_model.items():
        if not model["reasoning_tokens"]:
            continue
        share = rate(model["reasoning_tokens"], model["completion_tokens"])
        line = (f"{label}: {model['reasoning_tokens']} reasoning tokens over {model['calls']} model calls"
                + (f" ({share:.0%} of what it generated)" if share is not None else ""))
        if model["runaway"]:
            line += (f"; {model['runaway']} call(s) ran out of tokens while still reasoning (runaway_reasoning, "
                     f"unusable, {model['runaway'] / model['calls']:.0%} runaway rate)")
        lines.append(line + ".")
    return lines
