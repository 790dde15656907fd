"""The transcript page of one run: every stage in order, as the records and the run's git history hold it.

Per stage: the prompt (folded, with what the context budget cut), the answer (and the
reasoning, folded, when the completion carries one), the files written with their
sha256, every sandbox command with its exit status, duration, crash class and output
tail, the ladder check; per repair turn the diff of the code before and after, the
ladder before and after and the turn's effect; at the top the final outcome beside the
claim. Pages are written by `bakeoff report` under report/transcripts/.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from bakeoff.batchfolder.read import RunRecords, run_model_label
from bakeoff.records import (
    DEFAULT_SCAFFOLD,
    Capture,
    Command,
    CompletionRecord,
    FileWritten,
    LadderCheck,
    Outcome,
    Prompt,
    Stage,
    StageRecord,
)
from bakeoff.report.transcript_git import repair_diffs
from bakeoff.report.transcript_html import Raw, diff_html, dropped_note, esc, fold, grid, kv, number, page
from bakeoff.report.transcript_steps import loop_steps_html
from bakeoff.scaffolds.registry import scaffold_plugin
from bakeoff.taskapi.task import Task

TRANSCRIPT_DIR = "transcripts"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def transcript_name(run_id: str) -> str:
    """The page's file name: the run id where it is a plain name (run ids are slugs), else a safe spelling."""
    name = _UNSAFE.sub("_", run_id).lstrip(".") or "run"
    return f"{name}.html"


def transcript_path(run_id: str) -> str:
    """Where the run's page sits, relative to report.html (the runs table's `transcript` column)."""
    return f"{TRANSCRIPT_DIR}/{transcript_name(run_id)}"


def ladder_words(check: LadderCheck | Outcome | None, plugin: Task) -> str | None:
    """A ladder check, or a run's outcome (the final check), in words (the task's names for its rungs)."""
    if check is None:
        return None
    words = [f"rung {int(check.rung)} ({plugin.words.rung(check.rung) or '?'})", check.status.value]
    if check.headline_value is not None:
        words.append(f"{plugin.headline.label} {number(check.headline_value)}")
    if check.crash_class:
        words.append(f"crash class {check.crash_class.value}" + (f": {check.detail}" if check.detail else ""))
    if check.failed_step:
        words.append(f"failed at {check.failed_step}")
    return ", ".join(words)


def _prompt(prompt: Prompt | None, label: str = "prompt") -> str:
    if prompt is None:
        return '<p class="note">no model call in this stage</p>'
    text = "\n\n".join(f"=== {m.role} ===\n{m.content or ''}" for m in prompt.messages)
    note = "; ".join(f"context budget cut {c.part}: {c.original_chars} characters to {c.kept_chars}"
                     for c in prompt.cut) or "nothing was cut to fit the context budget"
    return fold(f"{label}: {len(prompt.messages)} messages, key {prompt.key}", text, open_=False, note=note)


def _completion(completion: CompletionRecord | None, capture: Capture | None) -> str:
    if completion is None:
        return ""
    parts = []
    if completion.reasoning:
        parts.append(fold("reasoning", completion.reasoning, open_=False,
                          note="unfinished: the budget ran out while reasoning" if completion.reasoning_unfinished else None))
    parts.append(fold("answer", completion.text or ""))
    tokens = (("prompt", completion.prompt_tokens), ("completion", completion.completion_tokens),
              ("reasoning", completion.reasoning_tokens))
    parts.append(kv([
        ("capture", f"{capture.status.value} {capture.reason.value}" if capture is not None else ""),
        ("finish reason", completion.finish_reason),
        ("tokens", ", ".join(f"{name} {count}" for name, count in tokens)),
        ("error", completion.error),
    ]))
    return "".join(parts)


def _files(files: Sequence[FileWritten]) -> str:
    if not files:
        return ""
    rows = [(f.path, f.bytes, f.sha256 or "", f.refused or "") for f in files]
    return "<h3>Files written</h3>" + grid(("path", "bytes", "sha256", "refused"), rows)


def _command(index: int, c: Command) -> str:
    crash = c.crash
    status = "timed out" if c.timed_out else "killed: out of memory" if c.oom_killed else f"exit {c.exit_code}"
    head = kv([
        ("argv", " ".join(c.argv)),
        ("status", Raw(f'<span class="{"good" if c.exit_code == 0 else "bad"}">{esc(status)}</span>')),
        ("duration", f"{number(c.duration_s, 2)} s"),
        ("isolation", c.isolation),
        ("crash class", Raw(f'<span class="bad crash-class">{esc(crash.crash_class.value)}</span>')
         if crash is not None else None),
        ("crash detail", crash.detail if crash is not None else None),
    ])
    outputs = "".join(fold(f"{name} tail", text, note=dropped_note(dropped))
                      for name, text, dropped in (("stdout", c.stdout, c.stdout_dropped_bytes),
                                                  ("stderr", c.stderr, c.stderr_dropped_bytes)) if text)
    trace = fold("traceback tail", crash.traceback_tail) if crash is not None and crash.traceback_tail else ""
    return f'<div class="command"><h3>Command {index}: {esc(c.purpose)}</h3>{head}{outputs}{trace}</div>'


def _check(check: LadderCheck | None, plugin: Task, label: str = "Ladder check") -> str:
    if check is None:
        return ""
    parts = [f"<h3>{esc(label)}</h3>", kv([("result", ladder_words(check, plugin)),
                                            ("visible steps passed", check.visible_ok)])]
    if check.visible_failure:
        parts.append(fold("what the model was told", check.visible_failure))
    if check.traceback_tail:
        parts.append(fold("traceback tail", check.traceback_tail))
    if check.visible_output:
        parts.append(fold(f"{plugin.words.visible_output} (head and tail)", check.visible_output))
    return "".join(parts)


def _turns(run: RunRecords, stages: Mapping[str, StageRecord], plugin: Task) -> str:
    repair = stages.get(Stage.REPAIR)
    turns = repair.turns if repair is not None else ()
    if repair is None or not turns:
        return '<p class="note">no repair turn was granted</p>'
    implement = stages.get(Stage.IMPLEMENT)
    implement_sha = implement.commit.sha if implement is not None else None
    diffs = repair_diffs(run.folder / "repo", implement_sha, repair.commit.sha, turns)
    parts = []
    for turn, diff in zip(turns, diffs, strict=True):  # repair_diffs gives one diff per turn
        effect = turn.effect.value
        css = "good" if effect == "rescued" else "bad" if effect == "regressed" else ""
        parts.append(
            f'<section class="turn" id="turn-{esc(turn.turn)}"><h3>Repair turn {esc(turn.turn)}: '
            f'<span class="{css}">{esc(effect)}</span></h3>'
            + kv([("granted because", turn.granted_because.value), ("ladder before", ladder_words(turn.before, plugin)),
                  ("ladder after", ladder_words(turn.after, plugin)), ("effect", effect)])
            + _prompt(turn.prompt, "prompt (continues the implement conversation)")
            + _completion(turn.completion, turn.capture) + _files(turn.files_written)
            + f"<h3>Code before and after</h3><p class=\"note\">{esc(diff.source)}</p>"
            + (diff_html(diff.files) if diff.available else "") + "</section>")
    return "".join(parts)


def _stage(run: RunRecords, index: int, name: str, record: StageRecord, plugin: Task) -> str:
    parts = [kv([("attribution", record.attribution.value), ("why", record.attribution_reason),
                 ("commit", record.commit.sha[:12]),
                 ("wall time", f"{number(record.timings.wall_s, 1)} s")])]
    if name == _step_stage(run):
        parts.append(loop_steps_html(record, run.steps, _command))
        parts.append("<h3>The final check</h3>")
    elif name != Stage.REPAIR:
        parts += [_prompt(record.prompt), _completion(record.completion, record.capture), _files(record.files_written)]
    for i, command in enumerate(record.commands, 1):
        parts.append(_command(i, command))
    if record.shown_to_model:
        parts.append(fold("exploration output as shown to the model", record.shown_to_model))
    parts.append(_check(record.check, plugin))
    if name == Stage.REPAIR:
        parts.append(_turns(run, run.stages, plugin))
    if record.claim is not None:
        claim, what = record.claim, plugin.words.claim
        parts.append(kv([(f"claimed {what}", number(claim.claimed)), ("claim source", plugin.words.source(claim.source)),
                         (f"real {what}", number(claim.real))]))
    return (f'<section class="stage" id="stage-{esc(name)}"><h2>{index}. {esc(name)}</h2>'
            + "".join(parts) + "</section>")


def _header(run: RunRecords, plugin: Task) -> str:
    record, what = run.run, plugin.words.claim
    if record is None:
        return kv([("model", run_model_label(run)),
                   ("run status", "unfinished: no run.json yet (the run has not ended)"),
                   (f"claimed {what}", "no claim"), (f"real {what}", "not scored")])
    outcome, claim = record.outcome, record.outcome.claim
    return kv([
        ("model", run_model_label(run)), ("spec", record.model.spec), ("scaffold", record.scaffold if record.scaffold != DEFAULT_SCAFFOLD else None),
        ("seed", record.seed),
        ("run status", record.status.value),
        ("harness error", record.error),
        ("final outcome", ladder_words(outcome, plugin)),
        (f"claimed {what}", (f"{number(claim.claimed)} (from {plugin.words.source(claim.source)})"
                             if claim.claimed is not None else "no claim")),
        (f"real {what}", number(claim.real) if claim.real is not None else "not scored"),
        ("repair effects", " ".join(effect.value for effect in record.repair_effects)),
        ("model calls", ", ".join(f"{v} {k}" for k, v in record.capture.to_json().items())),
    ])


def _step_stage(run: RunRecords) -> str | None:
    """The stage of the run's scaffold that writes step records, if it has one (Scaffold.step_stage)."""
    return scaffold_plugin(run.scaffold).step_stage


def render_run_transcript(run: RunRecords, plugin: Task, back: str | None = "../report.html",
                          check_first: Sequence[str] = ()) -> str:
    """The run's page; `check_first`, what the report found to check before trusting it, opens it."""
    sections = [_check_first(check_first)] if check_first else []
    sections.append(f'<section id="outcome"><h2>Outcome beside the claim</h2>{_header(run, plugin)}</section>')
    for index, name in enumerate(scaffold_plugin(run.scaffold).stages, 1):
        record = run.stages.get(name)
        if record is None and name == _step_stage(run) and run.steps:  # the loop has not ended: its steps so far
            sections.append(f'<section class="stage" id="stage-{esc(name)}"><h2>{index}. {esc(name)}</h2>'
                            f'<p class="note">the loop has not ended</p>'
                            f'{loop_steps_html(_unfinished_loop(run, name), run.steps, _command)}</section>')
        elif record is None:
            sections.append(f'<section class="stage" id="stage-{esc(name)}"><h2>{index}. {esc(name)}</h2>'
                            '<p class="note">no record: the stage did not finish</p></section>')
        else:
            sections.append(_stage(run, index, name, record, plugin))
    return page(f"transcript: {run.run_id}", "".join(sections), back)


def _check_first(lines: Sequence[str]) -> str:
    items = "".join(f"<li>{esc(line)}</li>" for line in lines)
    return f'<section id="check-before-trusting"><h2>Check before trusting</h2><ul>{items}</ul></section>'


def _unfinished_loop(run: RunRecords, stage: str) -> StageRecord:
    """A stand-in record for a loop that has not ended (no summary yet: its steps alone are shown)."""
    from bakeoff.records import Attribution, Commit, Timings

    return StageRecord(run.run_id, stage, 1, Attribution.OK, Commit("", "", ""), Timings("", ""))
