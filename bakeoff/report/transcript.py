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
from typing import Any, Mapping, Sequence

from bakeoff.analysis.batch_records import RunRecords, run_model_label
from bakeoff.report.transcript_git import repair_diffs
from bakeoff.report.transcript_html import Raw, diff_html, dropped_note, esc, fold, grid, kv, number, page
from bakeoff.runner.stages import STAGE_NAMES

TRANSCRIPT_DIR = "transcripts"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def transcript_name(run_id: str) -> str:
    """The page's file name: the run id where it is a plain name (run ids are slugs), else a safe spelling."""
    name = _UNSAFE.sub("_", run_id).lstrip(".") or "run"
    return f"{name}.html"


def transcript_path(run_id: str) -> str:
    """Where the run's page sits, relative to report.html (the runs table's `transcript` column)."""
    return f"{TRANSCRIPT_DIR}/{transcript_name(run_id)}"


def ladder_words(check: Mapping[str, Any] | None) -> str | None:
    if not check:
        return None
    words = [f"rung {check.get('rung')} ({check.get('rung_name') or '?'})", str(check.get("status") or "?")]
    if check.get("f1") is not None:
        words.append(f"F1 {number(check.get('f1'))}")
    if check.get("crash_class"):
        words.append(f"crash class {check['crash_class']}" + (f": {check['detail']}" if check.get("detail") else ""))
    if check.get("failed_step"):
        words.append(f"failed at {check['failed_step']}")
    return ", ".join(words)


def _prompt(prompt: Mapping[str, Any] | None, label: str = "prompt") -> str:
    if not prompt:
        return '<p class="note">no model call in this stage</p>'
    messages = prompt.get("messages") or []
    text = "\n\n".join(f"=== {m.get('role')} ===\n{m.get('content') or ''}" for m in messages)
    cuts = prompt.get("cut") or []
    note = "; ".join(f"context budget cut {c.get('part')}: {c.get('original_chars')} characters to {c.get('kept_chars')}"
                     for c in cuts) or "nothing was cut to fit the context budget"
    return fold(f"{label}: {len(messages)} messages, key {prompt.get('key')}", text, open_=False, note=note)


def _completion(completion: Mapping[str, Any] | None, capture: Mapping[str, Any] | None) -> str:
    if not completion:
        return ""
    parts = []
    if completion.get("reasoning"):
        parts.append(fold("reasoning", completion["reasoning"], open_=False,
                          note="unfinished: the budget ran out while reasoning" if completion.get("reasoning_unfinished") else None))
    parts.append(fold("answer", completion.get("text") or ""))
    capture = capture or {}
    parts.append(kv([
        ("capture", " ".join(str(v) for v in (capture.get("status"), capture.get("reason")) if v)),
        ("finish reason", completion.get("finish_reason")),
        ("tokens", ", ".join(f"{name} {completion[key]}" for name, key in
                             (("prompt", "prompt_tokens"), ("completion", "completion_tokens"),
                              ("reasoning", "reasoning_tokens")) if completion.get(key) is not None) or None),
        ("error", completion.get("error")),
    ]))
    return "".join(parts)


def _files(files: Sequence[Mapping[str, Any]] | None) -> str:
    if not files:
        return ""
    rows = [(f.get("path"), f.get("bytes"), f.get("sha256") or "", f.get("refused") or "") for f in files]
    return "<h3>Files written</h3>" + grid(("path", "bytes", "sha256", "refused"), rows)


def _command(index: int, c: Mapping[str, Any]) -> str:
    crash = c.get("crash") or {}
    status = "timed out" if c.get("timed_out") else "killed: out of memory" if c.get("oom_killed") else \
        f"exit {c.get('exit_code')}"
    head = kv([
        ("argv", " ".join(str(a) for a in c.get("argv") or [])),
        ("status", Raw(f'<span class="{"good" if c.get("exit_code") == 0 else "bad"}">{esc(status)}</span>')),
        ("duration", f"{number(c.get('duration_s'), 2)} s" if c.get("duration_s") is not None else None),
        ("isolation", c.get("isolation")),
        ("crash class", Raw(f'<span class="bad crash-class">{esc(crash.get("crash_class"))}</span>')
         if crash.get("crash_class") else None),
        ("crash detail", crash.get("detail")),
    ])
    outputs = "".join(fold(f"{stream} tail", c.get(stream), note=dropped_note(c, stream))
                      for stream in ("stdout", "stderr") if c.get(stream))
    trace = fold("traceback tail", crash.get("traceback_tail")) if crash.get("traceback_tail") else ""
    return f'<div class="command"><h3>Command {index}: {esc(c.get("purpose"))}</h3>{head}{outputs}{trace}</div>'


def _check(check: Mapping[str, Any] | None, label: str = "Ladder check") -> str:
    if not check:
        return ""
    parts = [f"<h3>{esc(label)}</h3>", kv([("result", ladder_words(check)),
                                            ("visible steps passed", check.get("visible_ok"))])]
    if check.get("visible_failure"):
        parts.append(fold("what the model was told", check["visible_failure"]))
    if check.get("traceback_tail"):
        parts.append(fold("traceback tail", check["traceback_tail"]))
    if check.get("train_output"):
        parts.append(fold("training output (head and tail)", check["train_output"]))
    return "".join(parts)


def _turns(run: RunRecords, stages: Mapping[str, Mapping[str, Any]]) -> str:
    repair = stages.get("repair") or {}
    turns = repair.get("turns") or []
    if not turns:
        return '<p class="note">no repair turn was granted</p>'
    implement_sha = ((stages.get("implement") or {}).get("commit") or {}).get("sha")
    diffs = repair_diffs(run.folder / "repo", implement_sha, (repair.get("commit") or {}).get("sha"), turns)
    parts = []
    for turn, diff in zip(turns, diffs, strict=True):  # repair_diffs gives one diff per turn
        effect = turn.get("effect")
        css = "good" if effect == "rescued" else "bad" if effect == "regressed" else ""
        parts.append(
            f'<section class="turn" id="turn-{esc(turn.get("turn"))}"><h3>Repair turn {esc(turn.get("turn"))}: '
            f'<span class="{css}">{esc(effect)}</span></h3>'
            + kv([("granted because", turn.get("granted_because")), ("ladder before", ladder_words(turn.get("before"))),
                  ("ladder after", ladder_words(turn.get("after"))), ("effect", effect)])
            + _prompt(turn.get("prompt"), "prompt (continues the implement conversation)")
            + _completion(turn.get("completion"), turn.get("capture")) + _files(turn.get("files_written"))
            + f"<h3>Code before and after</h3><p class=\"note\">{esc(diff.source)}</p>"
            + (diff_html(diff.files) if diff.available else "") + "</section>")
    return "".join(parts)


def _stage(run: RunRecords, index: int, name: str, record: Mapping[str, Any]) -> str:
    parts = [kv([("attribution", record.get("attribution")), ("why", record.get("attribution_reason")),
                 ("commit", ((record.get("commit") or {}).get("sha") or "")[:12]),
                 ("wall time", f"{number((record.get('timings') or {}).get('wall_s'), 1)} s"
                  if (record.get("timings") or {}).get("wall_s") is not None else None)])]
    if name != "repair":
        parts += [_prompt(record.get("prompt")), _completion(record.get("completion"), record.get("capture")),
                  _files(record.get("files_written"))]
    for i, command in enumerate(record.get("commands") or [], 1):
        parts.append(_command(i, command))
    if record.get("shown_to_model"):
        parts.append(fold("exploration output as shown to the model", record["shown_to_model"]))
    parts.append(_check(record.get("check")))
    if name == "repair":
        parts.append(_turns(run, run.stages))
    if record.get("claim"):
        claim = record["claim"]
        parts.append(kv([("claimed F1", number(claim.get("claimed_f1"))), ("claim source", claim.get("source")),
                         ("real F1", number(claim.get("real_f1")))]))
    return (f'<section class="stage" id="stage-{esc(name)}"><h2>{index}. {esc(name)}</h2>'
            + "".join(parts) + "</section>")


def _header(run: RunRecords) -> str:
    record = run.run or {}
    outcome = record.get("outcome") or {}
    verdict = ladder_words(outcome) if outcome else None
    return kv([
        ("model", run_model_label(run)), ("spec", (record.get("model") or {}).get("spec")),
        ("seed", record.get("seed")),
        ("run status", record.get("status") or "unfinished: no run.json yet (the run has not ended)"),
        ("harness error", record.get("error")),
        ("final outcome", verdict),
        ("claimed F1", (f"{number(outcome.get('claimed_f1'))} (from {outcome.get('claim_source')})"
                        if outcome.get("claimed_f1") is not None else "no claim")),
        ("real F1", number(outcome.get("f1")) if outcome.get("f1") is not None else "not scored"),
        ("repair effects", " ".join(record.get("repair_effects") or []) or None),
        ("model calls", ", ".join(f"{v} {k}" for k, v in (record.get("capture") or {}).items()) or None),
    ])


def render_run_transcript(run: RunRecords, back: str | None = "../report.html") -> str:
    sections = [f'<section id="outcome"><h2>Outcome beside the claim</h2>{_header(run)}</section>']
    for index, name in enumerate(STAGE_NAMES, 1):
        record = run.stages.get(name)
        if record is None:
            sections.append(f'<section class="stage" id="stage-{esc(name)}"><h2>{index}. {esc(name)}</h2>'
                            '<p class="note">no record: the stage did not finish</p></section>')
        else:
            sections.append(_stage(run, index, name, record))
    return page(f"transcript: {run.run_id}", "".join(sections), back)
