"""What the core hands a task's parts and gets back from them, beside the task value (bakeoff.taskapi.task):

- `bakeoff generate`: GenerateRequest (the folder, the seed, the task's own options that were given);
- the report: CoreSection, where the part every task has goes among a task's own sections;
- `bakeoff analyze`: AnalyzeSettings in, a RunAnalysis per run out (AnalysisNotAvailable where the task has no
  re-analysis).

The options a task declares are in bakeoff.taskapi.options, its parts in bakeoff.taskapi.parts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bakeoff.errors import BakeoffError
from bakeoff.taskapi.options import GenerateOption, OptionNotForTask, OptionValues

__all__ = ["AnalysisNotAvailable", "AnalyzeSettings", "CoreSection", "GenerateOption",
           "GenerateRequest", "OptionNotForTask", "RunAnalysis"]


@dataclass(frozen=True)
class GenerateRequest:
    """`bakeoff generate --task NAME`: the folder, the seed and the task's own options that were given."""

    out_dir: Path
    seed: int
    options: OptionValues  # only those given on the command line, by option name
    force: bool = False
    secret_file: Path | None = None  # the hidden part's secret (generators.secret); None: a fresh one
    control: bool = False  # a negative control: the hidden answers permuted after generation (bakeoff.taskapi.control)


@dataclass(frozen=True)
class CoreSection:
    """Where the report puts what every task has (bakeoff.report.core: headline per model, crash taxonomy,
    repair turns, paired comparisons) among a task's own sections. `findings=False` when the task writes those
    sentences within its own findings."""

    findings: bool = True


class AnalysisNotAvailable(BakeoffError):
    """The batch's task has no probes that `bakeoff analyze` can recompute."""


@dataclass(frozen=True)
class AnalyzeSettings:
    """`bakeoff analyze`: the isolation and wheelhouse the probes run with, and the task's own options."""

    sandbox: str | None = None  # None: the isolation the batch ran with
    sandbox_options: Mapping[str, object] = field(default_factory=dict)
    wheelhouse: Path | None = None
    force: bool = False  # recompute runs that already have an analysis record
    options: OptionValues = field(default_factory=dict)  # the task's own (its probes' settings)


@dataclass(frozen=True)
class RunAnalysis:
    """What `bakeoff analyze` did with one run."""

    run_id: str
    status: str  # analysed, skipped_existing, skipped_unfinished
    probe_verdict: str | None = None
    retrain_spread: float | None = None
