"""A tiny SVG writer: shapes, text, linear scales and axes. Everything the plots draw goes through here.

Hand-written on purpose: the report must open from disk with nothing fetched, and
an SVG string embedded in the page is the simplest thing that does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape

FONT = "font-family:Helvetica,Arial,sans-serif"
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22")
INK, GRID, MUTED = "#222222", "#dddddd", "#777777"


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


@dataclass(frozen=True)
class Scale:
    """Maps a data interval onto a pixel interval (reversed pixel ranges flip the axis)."""

    lo: float
    hi: float
    px_lo: float
    px_hi: float

    def __call__(self, value: float) -> float:
        span = self.hi - self.lo or 1.0
        return self.px_lo + (value - self.lo) / span * (self.px_hi - self.px_lo)

    def ticks(self, count: int = 5) -> list[float]:
        step = (self.hi - self.lo) / count
        return [self.lo + i * step for i in range(count + 1)]


@dataclass
class Canvas:
    width: int
    height: int
    title: str
    parts: list[str] = field(default_factory=list)

    def line(self, x1, y1, x2, y2, stroke=INK, width=1.0, dash: str | None = None) -> None:
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}" stroke-width="{width}"{dashed}/>'
        )

    def rect(self, x, y, w, h, fill, stroke: str | None = None, tip: str | None = None) -> None:
        edge = f' stroke="{stroke}"' if stroke else ""
        body = f"<title>{escape(tip)}</title>" if tip else ""
        self.parts.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 0):.1f}" height="{max(h, 0):.1f}" fill="{fill}"{edge}>{body}</rect>'
        )

    def circle(self, x, y, r, fill, stroke: str | None = None, tip: str | None = None) -> None:
        edge = f' stroke="{stroke}" stroke-width="1.5"' if stroke else ""
        body = f"<title>{escape(tip)}</title>" if tip else ""
        self.parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{fill}"{edge}>{body}</circle>')

    def marker(self, x, y, size, fill, tip: str | None = None) -> None:
        """A diamond: the reference pipelines' mark, distinct from the models' dots."""
        body = f"<title>{escape(tip)}</title>" if tip else ""
        points = f"{x:.1f},{y - size:.1f} {x + size:.1f},{y:.1f} {x:.1f},{y + size:.1f} {x - size:.1f},{y:.1f}"
        self.parts.append(f'<polygon points="{points}" fill="{fill}" stroke="{INK}">{body}</polygon>')

    def text(self, x, y, content: str, size=12, anchor="start", fill=INK, weight="normal", rotate: float | None = None) -> None:
        turn = f' transform="rotate({rotate} {x:.1f} {y:.1f})"' if rotate is not None else ""
        self.parts.append(
            f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{fill}" '
            f'font-weight="{weight}" style="{FONT}"{turn}>{escape(content)}</text>'
        )

    def to_svg(self) -> str:
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
            f'viewBox="0 0 {self.width} {self.height}" role="img" aria-label="{escape(self.title)}">'
        )
        background = f'<rect x="0" y="0" width="{self.width}" height="{self.height}" fill="#ffffff"/>'
        heading = (
            f'<text x="{self.width / 2:.1f}" y="20" font-size="14" text-anchor="middle" font-weight="bold" '
            f'style="{FONT}">{escape(self.title)}</text>'
        )
        return "\n".join([head, background, heading, *self.parts, "</svg>"])


def round_ticks(lo: float, hi: float, most: int = 6) -> list[float]:
    """Round values (1, 2 or 5 times a power of ten apart) from the last one at or below `lo` to the first at or
    above `hi`, at most `most` + 1 of them: an axis a reader can read, whatever the data's range."""
    span = hi - lo if hi > lo else max(abs(hi), 1.0)
    power = 10.0 ** math.floor(math.log10(span / most))
    step = next(power * k for k in (1, 2, 5, 10) if span / (power * k) <= most)
    first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
    last = max(last, first + 1)
    return [round(i * step, 12) for i in range(first, last + 1)]


def tick_format(ticks: Sequence[float]) -> str:
    """The fewest decimals that print every tick differently from its neighbour (never every tick `0`)."""
    step = min((b - a for a, b in zip(ticks, ticks[1:], strict=False)), default=1.0)
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) if step > 0 else 0
    return f"{{:.{decimals}f}}"


def x_axis(canvas: Canvas, scale: Scale, y: float, label: str, fmt="{:.1f}", grid_to: float | None = None,
           ticks: Sequence[float] | None = None) -> None:
    canvas.line(scale.px_lo, y, scale.px_hi, y)
    for tick in scale.ticks() if ticks is None else ticks:
        x = scale(tick)
        if grid_to is not None:
            canvas.line(x, grid_to, x, y, stroke=GRID)
        canvas.line(x, y, x, y + 4)
        canvas.text(x, y + 16, fmt.format(tick), size=10, anchor="middle")
    canvas.text((scale.px_lo + scale.px_hi) / 2, y + 32, label, size=11, anchor="middle")


def y_axis(canvas: Canvas, scale: Scale, x: float, label: str, fmt="{:.1f}", grid_to: float | None = None,
           ticks: Sequence[float] | None = None) -> None:
    canvas.line(x, scale.px_lo, x, scale.px_hi)
    for tick in scale.ticks() if ticks is None else ticks:
        y = scale(tick)
        if grid_to is not None:
            canvas.line(x, y, grid_to, y, stroke=GRID)
        canvas.line(x - 4, y, x, y)
        canvas.text(x - 7, y + 3, fmt.format(tick), size=10, anchor="end")
    middle = (scale.px_lo + scale.px_hi) / 2
    canvas.text(x - 36, middle, label, size=11, anchor="middle", rotate=-90)


def legend(canvas: Canvas, x: float, y: float, entries: list[tuple[str, str]]) -> None:
    """Colour swatches with names, one per line."""
    for i, (name, fill) in enumerate(entries):
        canvas.rect(x, y + i * 16 - 9, 10, 10, fill)
        canvas.text(x + 15, y + i * 16, name, size=10)


def empty_note(canvas: Canvas, message: str) -> None:
    canvas.text(canvas.width / 2, canvas.height / 2, message, size=12, anchor="middle", fill=MUTED)
