"""The spam take-home's sentences for the top of the report: F1 per model, the leak, the design against the
code, and (in the same per-model order) the sentences every task has (bakeoff.report.core)."""

from __future__ import annotations

from bakeoff.analysis.core import CoreSummary
from bakeoff.report.core import count, left_out_line, regression_lines, uncaptured_line
from bakeoff.report.core import pair_findings as core_pair_findings
from bakeoff.tasks.spam_classifier.aggregate import BatchSummary
from bakeoff.tasks.spam_classifier.signals import EXCLUDES_BUT_USES, KEEPS_BUT_IGNORES
from bakeoff.tasks.spam_classifier.words import HEADLINE


def findings(summary: BatchSummary, core: CoreSummary) -> list[str]:
    lines: list[str] = []
    for m, common in zip(summary.models, core.models, strict=True):
        if common.all_uncaptured:
            lines.append(uncaptured_line(common))
            continue
        if m.f1_with_crashes is not None:
            e = m.f1_with_crashes
            interval = f"[{e.low:.3f}, {e.high:.3f}]" if e.has_interval else "(too few runs for an interval)"
            lines.append(
                f"{m.model}: mean holdout F1 {e.mean:.3f} {interval} over {count(e.n, 'graded run')} "
                f"(crashes as zero); {m.scored} scored."
            )
        left_out = left_out_line(common)
        if left_out:
            lines.append(left_out)
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
        lines += regression_lines(common)
    return lines + pair_findings(summary)


def pair_findings(summary: BatchSummary) -> list[str]:
    """Every task's sentences on the paired comparisons, in F1."""
    return core_pair_findings(summary.pairs, HEADLINE)
