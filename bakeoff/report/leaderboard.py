"""The scores first: the leaderboard table (what `bakeoff run` prints at the end, what report.md and report.html
open with, what `bakeoff leaderboard` writes), and the glossary of the words its columns use."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bakeoff.analysis.leaderboard import LeaderRow
from bakeoff.analysis.margins import RUNS_NEEDED_RULE, Margin
from bakeoff.analysis.stats import MIN_INTERVAL_N
from bakeoff.report.tables import Table, cols
from bakeoff.taskapi.headline import HeadlineSpec

MIB = 1024**2

GLOSSARY = (
    ("graded", "a run that says something about the model: it ended, and an answer came back for the code "
               "(harness failures and uncaptured runs are counted apart, never as the model's failure)"),
    ("scored", "a graded run whose submission was graded to the end: it has a headline value"),
    ("captured", "an answer that came back and could be used"),
    ("unusable", "an answer that came back but could not be used (cut off, no code block): the model's failure"),
    ("uncaptured", "no answer came back (empty, timeout, transport error): never graded"),
    ("crash rate", "the share of graded runs that were not scored"),
    ("model time", "seconds spent waiting for the model's answers in a run; tok/s is generated tokens "
                   "(answer and reasoning) per second of generation"),
)


def interval_text(row: LeaderRow, spec: HeadlineSpec) -> str:
    e = row.headline
    if e is None:
        return "no graded run" if not row.graded else "no scored run"
    if not e.has_interval:
        return f"too few runs ({e.n} of {MIN_INTERVAL_N})"
    return f"[{spec.show(e.low)}, {spec.show(e.high)}]"


def over_text(row: LeaderRow, spec: HeadlineSpec) -> str:
    """What the mean is over: 'scored 4 of 5 runs'."""
    return f"{row.scored}/{row.runs}"


def _mib(value: int | None) -> float | None:
    return None if value is None else value / MIB


def margin_text(margin: Margin | None, spec: HeadlineSpec) -> str | None:
    """A row's advantage over the next row: '+0.050 [0.010, 0.090]', or why there is no interval."""
    a = margin.advantage if margin is not None else None
    if a is None:
        return None
    sign = "+" if a.mean >= 0 else "-"
    value = f"{sign}{spec.show(abs(a.mean))}"
    if not a.has_interval:
        return f"{value} (too few shared seeds: {a.n})"
    return f"{value} [{spec.show(a.low)}, {spec.show(a.high)}]"


def margin_cells(margin: Margin | None) -> tuple[float | int | None, ...]:
    """The CSV's figures of a margin: difference, low, high, shared seeds, spread."""
    a = margin.advantage if margin is not None else None
    if margin is None or a is None:
        return (None, None, None, None, None)
    low, high = a.bounds
    return (a.mean, low, high, a.n, margin.spread)


def margin_note(spec: HeadlineSpec) -> str:
    """What the margin columns mean, said under the table."""
    return (f"vs_next: the row's paired advantage in {spec.label} over the row ranked next, on the seeds both ran "
            f"(95% bootstrap interval); runs_needed, where that interval holds zero: {RUNS_NEEDED_RULE}.")


def leaderboard_table(rows: Sequence[LeaderRow], spec: HeadlineSpec, name: str = "leaderboard",
                      title: str | None = None, margins: Mapping[str, Margin] | None = None) -> Table:
    """Rank, model, the headline's mean and interval, scored over runs, crash rate and cost per run; the short
    view keeps those, the CSV (and the fold) the rest: tokens apart, memory, sandbox CPU, the model's file.
    With `margins` (the report's first screen), each row's advantage over the next row and the runs that would
    separate them too."""
    kind = "f4" if "4f" in spec.fmt else "f3"
    counted = "graded runs, crashes counted" if spec.counts_failures else "scored runs"
    margin_columns = ("vs_next runs_needed:int ", f"vs_next_difference:{kind} vs_next_low:{kind} "
                      f"vs_next_high:{kind} vs_next_seeds:int vs_next_spread:{kind} ") if margins is not None else ("", "")
    columns = cols(
        f"rank:int model {spec.name}:{kind} interval {margin_columns[0]}scored_of_runs crash_rate:pct median_wall_s:n1 "
        "tokens_in_per_run:int tokens_out_per_run:int tokens_per_s:n1 "
        f"{spec.name}_low:{kind} {spec.name}_high:{kind} n:int graded:int runs:int scored:int "
        "answer_tokens_per_run:int reasoning_tokens_per_run:int median_model_s:n1 engine_peak_mib:int "
        "gpu_peak_mib:int sandbox_cpu_s_per_run:n1 quantization parameters_m:n1 file_mib:int reasoning scaffold "
        f"identity batches marks {margin_columns[1]}"
    )
    body = []
    for place, row in enumerate(rows, 1):
        e, c = row.headline, row.cost
        low, high = e.bounds if e is not None else (None, None)
        facts = c.facts
        margin = (margins or {}).get(row.model)
        shown = (margin_text(margin, spec), margin.runs_needed if margin is not None else None) if margins is not None \
            else ()
        body.append((
            place, row.model, e.mean if e is not None else None, interval_text(row, spec), *shown, over_text(row, spec),
            row.crash_rate, c.median_wall_s, c.prompt_tokens_per_run, c.output_tokens_per_run, c.tokens_per_s,
            low, high, e.n if e is not None else 0, row.graded, row.runs, row.scored,
            c.answer_tokens_per_run, c.reasoning_tokens_per_run, c.median_model_s, _mib(c.engine_peak_rss_bytes),
            _mib(c.gpu_peak_used_bytes), c.sandbox_cpu_s_per_run, facts.quantization,
            facts.parameters / 1e6 if facts.parameters else None, _mib(facts.file_bytes), row.reasoning,
            row.scaffold, row.identity, " ".join(row.batches), "; ".join(row.marks) or None,
            *(margin_cells(margin) if margins is not None else ()),
        ))
    short: tuple[str, ...] = ("rank", "model", spec.name, "interval", "scored_of_runs", "crash_rate", "median_wall_s",
             "tokens_in_per_run", "tokens_out_per_run", "tokens_per_s")
    if margins is not None:
        short = (*short[:4], "vs_next", "runs_needed", *short[4:])
    if any(row.marks for row in rows):
        short = (*short, "marks")
    order = "higher" if spec.higher_is_better else "lower"
    heading = title or f"Leaderboard ({spec.label}, {order} is better; mean over {counted}; 95% bootstrap interval)"
    return Table(name, heading, columns, tuple(body), short=short)


def leader_lines(rows: Sequence[LeaderRow], spec: HeadlineSpec) -> list[str]:
    """One sentence per row, best first (the terminal's plain form and the report's first findings)."""
    lines = []
    for place, row in enumerate(rows, 1):
        e = row.headline
        value = spec.show(e.mean) if e is not None else "–"
        lines.append(f"{place}. {row.model}: {spec.label} {value} {interval_text(row, spec)}, "
                     f"scored {row.scored} of {row.runs} runs")
    return lines


def glossary_lines() -> list[str]:
    return [f"{word}: {meaning}" for word, meaning in GLOSSARY]
