"""Plain-sentence findings for the top of the report: what a careful reader should see first."""

from __future__ import annotations

from bakeoff.analysis.aggregate import BatchSummary
from bakeoff.analysis.signals import EXCLUDES_BUT_USES, KEEPS_BUT_IGNORES


def count(n: int, noun: str) -> str:
    """'1 run', '3 runs'."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def findings(summary: BatchSummary) -> list[str]:
    lines: list[str] = []
    for m in summary.models:
        if m.all_uncaptured:
            lines.append(f"{m.model}: every answer was uncaptured ({m.uncaptured_runs} runs); it is not scored, not scored as zero.")
            continue
        if m.f1_with_crashes is not None:
            e = m.f1_with_crashes
            lines.append(
                f"{m.model}: mean holdout F1 {e.mean:.3f} [{e.low:.3f}, {e.high:.3f}] over {count(e.n, 'graded run')} "
                f"(crashes as zero); {m.scored} scored."
            )
        if m.uncaptured_runs or m.harness_failed_runs:
            lines.append(
                f"{m.model}: {m.uncaptured_runs} uncaptured and {m.harness_failed_runs} harness-failed runs left out of the scores."
            )
        if m.uses_leak:
            lines.append(f"{m.model}: {m.uses_leak} of {m.probed} probed pipelines use the moderator_flagged leak.")
        if m.divergences.get(KEEPS_BUT_IGNORES):
            lines.append(
                f"{m.model}: {m.divergences[KEEPS_BUT_IGNORES]} design(s) keep moderator_flagged while the code ignores it."
            )
        if m.divergences.get(EXCLUDES_BUT_USES):
            lines.append(
                f"{m.model}: {m.divergences[EXCLUDES_BUT_USES]} design(s) drop moderator_flagged while the code uses it."
            )
        for turn in m.turns:
            if turn.regressed:
                lines.append(f"{m.model}: repair turn {turn.turn} broke {turn.regressed} of {turn.granted} pipelines.")
    lines += pair_findings(summary)
    return lines


def pair_findings(summary: BatchSummary) -> list[str]:
    """A pair is called only when its interval excludes zero; otherwise the data cannot tell them apart."""
    lines = []
    for pair in summary.pairs:
        d = pair.difference
        if d is None or d.n < 2:
            continue
        if d.low > 0 or d.high < 0:
            better, worse = (pair.model_a, pair.model_b) if d.mean > 0 else (pair.model_b, pair.model_a)
            lines.append(
                f"{better} beats {worse} by {abs(d.mean):.3f} F1 on {d.n} shared seeds "
                f"(95% interval of a - b: [{d.low:.3f}, {d.high:.3f}])."
            )
        else:
            lines.append(
                f"{pair.model_a} and {pair.model_b} cannot be told apart on {d.n} shared seeds "
                f"(a - b: {d.mean:+.3f}, interval [{d.low:.3f}, {d.high:.3f}])."
            )
    return lines
