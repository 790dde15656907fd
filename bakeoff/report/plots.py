"""The plots every task's report has (how graded runs ended, what repair turns did) and the drawing
helpers a task's own plots share: one fixed size, one colour per model (bakeoff.report.svg)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bakeoff.analysis.core import REPAIR_EFFECTS, CoreSummary
from bakeoff.report.svg import MUTED, Canvas, Scale, colour, empty_note, legend, x_axis

WIDTH, HEIGHT = 600, 380
LEFT, RIGHT, TOP, BOTTOM = 150, 20, 40, 50
# Colour means the model, in every plot (model_colours); outcomes are shades of grey, so a hue never
# means "regressed" in one plot and "the second model" in the next.
EFFECT_COLOURS = {"rescued": "#2b2b2b", "unchanged": "#dedede", "regressed": "#8a8a8a"}
SCORED_SHADE = "#2b2b2b"
CRASH_SHADES = ("#5e5e5e", "#9a9a9a", "#c4c4c4", "#767676", "#b0b0b0", "#e6e6e6", "#868686", "#d2d2d2", "#4a4a4a")
SWATCH = 10


def model_colours(models: Sequence[str]) -> dict[str, str]:
    """One colour per model, by its place in the batch's order (the same in every plot of a report, and the
    one place a plot gets a model's colour from)."""
    return {model: colour(i) for i, model in enumerate(models)}


def rows_of(count: int) -> tuple[float, float]:
    """The first row's centre and the pitch between rows, filling the plot's height."""
    pitch = (HEIGHT - TOP - BOTTOM) / max(count, 1)
    return TOP + pitch / 2, pitch


def stacked_bars(canvas: Canvas, rows: Sequence[tuple[str, Mapping[str, int]]], keys: Sequence[str],
                  colours: Mapping[str, str], axis_label: str, swatches: Sequence[str] | None = None) -> None:
    """One horizontal bar per row, split by key, as a share of the row's total; `swatches` the colour of each
    row's model, drawn beside its name."""
    scale = Scale(0.0, 1.0, LEFT, WIDTH - RIGHT - 110)
    x_axis(canvas, scale, HEIGHT - BOTTOM, axis_label, fmt="{:.0%}")
    first, pitch = rows_of(len(rows))
    height = min(24.0, pitch * 0.7)
    for i, (name, counts) in enumerate(rows):
        y = first + i * pitch
        canvas.text(LEFT - 8 - (SWATCH + 4 if swatches else 0), y + 4, name, anchor="end")
        if swatches:
            canvas.rect(LEFT - 8 - SWATCH, y - SWATCH / 2, SWATCH, SWATCH, swatches[i])
        total = sum(counts.values())
        start = 0.0
        for key in keys:
            share = counts.get(key, 0) / total if total else 0.0
            if share > 0:
                tip = f"{name}: {key} {counts[key]} of {total}"
                canvas.rect(scale(start), y - height / 2, scale(start + share) - scale(start), height, colours[key], tip=tip)
            start += share
        if not total:
            canvas.text(LEFT + 8, y + 4, "none", fill=MUTED, size=11)
    legend(canvas, WIDTH - RIGHT - 100, TOP + 10, [(k, colours[k]) for k in keys])


def crash_taxonomy(summary: CoreSummary) -> str:
    """How graded runs ended: scored, or which crash class stopped them."""
    canvas = Canvas(WIDTH, HEIGHT, "How graded runs ended (crash taxonomy)")
    classes = sorted({c for m in summary.models for c in m.crash_taxonomy})
    keys = ["scored", *classes]
    colours = {"scored": SCORED_SHADE, **{c: CRASH_SHADES[i % len(CRASH_SHADES)] for i, c in enumerate(classes)}}
    rows = [(m.model, {"scored": m.scored, **m.crash_taxonomy}) for m in summary.models]
    if not rows:
        empty_note(canvas, "no runs")
        return canvas.to_svg()
    by_model = model_colours([m.model for m in summary.models])
    stacked_bars(canvas, rows, keys, colours, "share of graded runs", [by_model[m.model] for m in summary.models])
    return canvas.to_svg()


def repair_transitions(summary: CoreSummary) -> str:
    """Each repair turn's effect per model: rescued, unchanged, regressed."""
    canvas = Canvas(WIDTH, HEIGHT, "What each repair turn did")
    rows = [
        (f"{m.model} turn {t.turn}", {"rescued": t.rescued, "unchanged": t.unchanged, "regressed": t.regressed})
        for m in summary.models
        for t in m.turns
    ]
    if not rows:
        empty_note(canvas, "no repair turn was granted")
        return canvas.to_svg()
    by_model = model_colours([m.model for m in summary.models])
    swatches = [by_model[m.model] for m in summary.models for _ in m.turns]
    stacked_bars(canvas, rows, REPAIR_EFFECTS, EFFECT_COLOURS, "share of granted turns", swatches)
    return canvas.to_svg()


