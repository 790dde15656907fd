"""The spam take-home's plots (F1 per model, claimed against real F1, predicted spam rate), each a function
from its batch summary to an SVG string of the report's fixed size."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bakeoff.report.plots import BOTTOM, HEIGHT, LEFT, RIGHT, TOP, WIDTH, model_colours, rows_of
from bakeoff.report.svg import MUTED, Canvas, Scale, empty_note, legend, x_axis, y_axis
from bakeoff.tasks.spam_classifier.aggregate import BatchSummary
from bakeoff.tasks.spam_classifier.corpus_records import references


def f1_per_model(summary: BatchSummary) -> str:
    """Mean holdout F1 per model with its 95% interval: filled = crashes as zero, hollow = scored runs only."""
    canvas = Canvas(WIDTH, HEIGHT, "Holdout F1 per model (95% bootstrap interval)")
    if not summary.models:
        empty_note(canvas, "no runs")
        return canvas.to_svg()
    scale = Scale(0.0, 1.0, LEFT, WIDTH - RIGHT)
    x_axis(canvas, scale, HEIGHT - BOTTOM, "F1 of the spam class on the hidden holdout", grid_to=TOP)
    first, pitch = rows_of(len(summary.models))
    colours = model_colours([m.model for m in summary.models])
    for i, model in enumerate(summary.models):
        y = first + i * pitch
        canvas.text(LEFT - 8, y + 4, model.model, anchor="end")
        if model.graded == 0:
            why = "every answer uncaptured: not scored" if model.all_uncaptured else "no graded run"
            canvas.text(LEFT + 8, y + 4, why, fill=MUTED, size=11)
            continue
        for estimate, offset, hollow in ((model.f1_with_crashes, -6, False), (model.f1_scored, 6, True)):
            if estimate is None:
                continue
            if estimate.has_interval:  # from too few runs the dot stands alone
                canvas.line(scale(estimate.low), y + offset, scale(estimate.high), y + offset, stroke=colours[model.model],
                            width=2)
            shown = f"[{estimate.low:.3f}, {estimate.high:.3f}]" if estimate.has_interval else "too few runs for an interval"
            tip = f"{model.model}: {estimate.mean:.3f} {shown}, n={estimate.n}"
            fill = "#ffffff" if hollow else colours[model.model]
            canvas.circle(scale(estimate.mean), y + offset, 5, fill, stroke=colours[model.model], tip=tip)
    canvas.circle(LEFT + 4, HEIGHT - 8, 4, MUTED)
    canvas.text(LEFT + 12, HEIGHT - 4, "crashes count as 0", size=10)
    canvas.circle(LEFT + 144, HEIGHT - 8, 4, "#ffffff", stroke=MUTED)
    canvas.text(LEFT + 152, HEIGHT - 4, "scored runs only", size=10)
    return canvas.to_svg()


def reference_points(calibration: Mapping[str, Any] | None) -> list[tuple[str, float, float, float | None]]:
    """(variant, local F1, holdout F1, predicted rate) of each calibration reference."""
    return [(ref.variant, ref.local_f1, ref.holdout_f1, ref.predicted_positive_rate) for ref in references(calibration)
            if ref.local_f1 is not None and ref.holdout_f1 is not None]


def claimed_vs_real(summary: BatchSummary, calibration: Mapping[str, Any] | None) -> str:
    """Each scored run's claimed F1 against its real one; the references' local against holdout F1."""
    canvas = Canvas(WIDTH, HEIGHT, "Claimed F1 against real holdout F1")
    left = 70
    xs = Scale(0.0, 1.0, left, WIDTH - RIGHT - 110)
    ys = Scale(0.0, 1.0, HEIGHT - BOTTOM, TOP)
    x_axis(canvas, xs, HEIGHT - BOTTOM, "real F1 (hidden holdout)", grid_to=TOP)
    y_axis(canvas, ys, left, "claimed F1", grid_to=xs.px_hi)
    canvas.line(xs(0), ys(0), xs(1), ys(1), stroke=MUTED, dash="4 3")
    canvas.text(xs(0.97), ys(0.97) + 14, "honest", size=10, anchor="end", fill=MUTED)
    colours = model_colours([m.model for m in summary.models])
    for run in summary.runs:
        if run.calibration_error is not None and run.f1 is not None and run.claimed_f1 is not None:
            tip = f"{run.run_id}: claimed {run.claimed_f1:.3f}, real {run.f1:.3f}"
            canvas.circle(xs(run.f1), ys(run.claimed_f1), 5, colours.get(run.model, MUTED), tip=tip)
    for variant, local, holdout, _ in reference_points(calibration):
        canvas.marker(xs(holdout), ys(local), 7, "#ffd700", tip=f"reference {variant}: local {local:.3f}, holdout {holdout:.3f}")
        canvas.text(xs(holdout) + 9, ys(local) + 4, variant, size=10)
    entries = [(m.model, colours[m.model]) for m in summary.models]
    if reference_points(calibration):
        entries.append(("references", "#ffd700"))
    legend(canvas, WIDTH - RIGHT - 100, TOP + 10, entries)
    if not any(r.calibration_error is not None for r in summary.runs) and not reference_points(calibration):
        empty_note(canvas, "no scored run made a claim")
    return canvas.to_svg()


def predicted_rate(summary: BatchSummary, calibration: Mapping[str, Any] | None, corpus_rate: float | None = None) -> str:
    """Each scored run's predicted spam rate, per model, against the holdout's true rate."""
    canvas = Canvas(WIDTH, HEIGHT, "Predicted spam rate against the true rate")
    truths = [m.true_rate for m in summary.models if m.true_rate is not None]
    truth = sum(truths) / len(truths) if truths else corpus_rate  # scored runs' answer key, else the manifest
    rates = [r.predicted_rate for r in summary.runs if r.predicted_rate is not None]
    top = max([(truth or 0.0) * 2, *rates, 0.05])
    scale = Scale(0.0, min(1.0, top * 1.1), LEFT, WIDTH - RIGHT)
    x_axis(canvas, scale, HEIGHT - BOTTOM, "share of holdout messages predicted spam", fmt="{:.0%}", grid_to=TOP)
    if truth is not None:
        canvas.line(scale(truth), TOP, scale(truth), HEIGHT - BOTTOM, stroke="#000000", width=2, dash="6 3")
        canvas.text(scale(truth) + 4, TOP + 10, f"true rate {truth:.1%}", size=10)
    else:
        canvas.text(WIDTH - RIGHT, TOP + 10, "true rate unknown (no scored run, no manifest)", size=10, anchor="end", fill=MUTED)
    rows = [m.model for m in summary.models] + (["references"] if reference_points(calibration) else [])
    first, pitch = rows_of(len(rows))
    colours = model_colours([m.model for m in summary.models])
    for i, name in enumerate(rows):
        y = first + i * pitch
        canvas.text(LEFT - 8, y + 4, name, anchor="end")
        values = [(r.run_id, r.predicted_rate) for r in summary.runs if r.model == name and r.predicted_rate is not None]
        for j, (run_id, predicted) in enumerate(values):
            jitter = ((j % 5) - 2) * 3.0  # spread coincident runs so each stays visible
            canvas.circle(scale(predicted), y + jitter, 4, colours[name], tip=f"{run_id}: {predicted:.1%}")
        if name == "references":
            for variant, _, _, ref_rate in reference_points(calibration):
                if ref_rate is not None:
                    canvas.marker(scale(ref_rate), y, 6, "#ffd700", tip=f"{variant}: {ref_rate:.1%}")
        elif not values:
            canvas.text(LEFT + 8, y + 4, "no scored run", fill=MUTED, size=11)
    return canvas.to_svg()


def head_plots(summary: BatchSummary) -> dict[str, tuple[str, str]]:
    """name -> (caption, svg) of the plots ahead of every task's (bakeoff.report.core)."""
    return {"f1_per_model": ("Mean holdout F1 per model with its 95% bootstrap interval.", f1_per_model(summary))}


def tail_plots(summary: BatchSummary, calibration: Mapping[str, Any] | None,
               corpus_rate: float | None = None) -> dict[str, tuple[str, str]]:
    """name -> (caption, svg) of the plots after every task's."""
    return {
        "claimed_vs_real": (
            "Claimed against real F1; points above the diagonal promised more than they delivered. "
            "Diamonds are the calibration references (local split against holdout): the careless one's leak "
            "gives the best local number and the worst real one.",
            claimed_vs_real(summary, calibration),
        ),
        "predicted_rate": ("Predicted spam rate of each scored run against the true rate.", predicted_rate(summary, calibration, corpus_rate)),
    }
