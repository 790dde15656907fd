"""HTML pieces of the transcript pages: escaping, folded text, key-value lists, diffs.

Everything shown comes from records that hold model output and sandbox output, so
every value passes through `esc` (text and attribute alike). Long text is never cut
here: it is folded in a <details> element whose summary says how long it is, and what
the harness itself dropped (a sandbox's output cap, a context budget's cut) is said
next to it. The pages have no script and fetch nothing, like report.html.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from bakeoff.report.transcript_git import FileDiff

CSS = """
body { margin: 0 auto; max-width: 1100px; padding: 12px 20px; font-family: Helvetica, Arial, sans-serif;
       color: #222; background: #fafafa; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #ccc; }
h3 { font-size: 15px; margin: 14px 0 4px; }
section.stage, section.item { background: #fff; border: 1px solid #ddd; padding: 4px 14px 10px; margin: 12px 0; }
pre { background: #f4f4f4; padding: 6px 8px; overflow-x: auto; font-size: 12px; white-space: pre-wrap;
      word-break: break-word; margin: 4px 0; }
details { margin: 4px 0; } summary { cursor: pointer; font-size: 13px; color: #333; }
table.kv { border-collapse: collapse; font-size: 13px; }
table.kv th { text-align: left; padding: 1px 10px 1px 0; color: #555; font-weight: normal; vertical-align: top; }
table.kv td { padding: 1px 0; }
table.grid { border-collapse: collapse; font-size: 12px; }
table.grid th, table.grid td { border: 1px solid #ccc; padding: 2px 6px; text-align: left; vertical-align: top; }
.diff .add { background: #e6ffec; } .diff .del { background: #ffebe9; } .diff .hunk { color: #6a4bb3; }
.diff span { display: block; white-space: pre-wrap; }
.bad { color: #b00020; font-weight: bold; } .good { color: #0a7a2f; font-weight: bold; }
.note { font-size: 12px; color: #666; }
"""

FOLD_LINES = 12  # text longer than this many lines, or FOLD_CHARS characters, starts folded
FOLD_CHARS = 1500


def esc(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def page(title: str, body: str, back: str | None = None) -> str:
    link = f'<p class="note"><a href="{esc(back)}">back to the report</a></p>' if back else ""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{esc(title)}</title><style>{CSS}</style></head><body>"
            f"{link}<h1>{esc(title)}</h1>{body}</body></html>\n")


def size_words(text: str) -> str:
    lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    return f"{lines} line{'s' if lines != 1 else ''}, {len(text)} characters"


def fold(label: str, text: str | None, *, open_: bool | None = None, note: str | None = None,
         css_id: str | None = None) -> str:
    """`text` in full inside a <details>; folded when long (or when open_ is False)."""
    if text is None:
        return f'<p class="note">{esc(label)}: none recorded</p>'
    long = text.count("\n") > FOLD_LINES or len(text) > FOLD_CHARS
    opened = (not long) if open_ is None else open_
    ident = f' id="{esc(css_id)}"' if css_id else ""
    extra = f'<p class="note">{esc(note)}</p>' if note else ""
    return (f"<details{ident}{' open' if opened else ''}><summary>{esc(label)} ({esc(size_words(text))})</summary>"
            f"{extra}<pre>{esc(text)}</pre></details>")


def kv(rows: Iterable[tuple[str, Any]]) -> str:
    body = "".join(f"<tr><th>{esc(k)}</th><td>{v if isinstance(v, Raw) else esc(v)}</td></tr>"
                   for k, v in rows if v is not None and v != "")
    return f'<table class="kv">{body}</table>' if body else ""


class Raw(str):
    """HTML already built (and escaped) by this module: `kv` inserts it as it is."""


def grid(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c if isinstance(c, Raw) else esc(c)}</td>" for c in row) + "</tr>"
                   for row in rows)
    return f'<table class="grid"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>' if body else ""


def number(value: Any, digits: int = 3) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None if value is None else str(value)
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def diff_html(diffs: Sequence[FileDiff]) -> str:
    if not diffs:
        return '<p class="note">no file changed</p>'
    parts = []
    for d in diffs:
        if d.note:
            parts.append(f'<h3>{esc(d.path)}</h3><p class="note">{esc(d.note)}</p>')
            continue
        spans = []
        for line in d.lines:
            kind = "add" if line.startswith("+") else "del" if line.startswith("-") else \
                "hunk" if line.startswith("@@") else "ctx"
            spans.append(f'<span class="{kind}">{esc(line)}</span>')
        added = sum(line.startswith("+") for line in d.lines)
        removed = sum(line.startswith("-") for line in d.lines)
        parts.append(f'<details open class="diff"><summary>{esc(d.path)}: +{added} -{removed}</summary>'
                     f'<pre class="diff">{"".join(spans)}</pre></details>')
    return "".join(parts)


def dropped_note(dropped: int) -> str | None:
    """What the sandbox dropped from the head of a command's output (its `*_dropped_bytes`), in words."""
    if dropped > 0:
        return f"the sandbox kept the tail: {dropped} bytes before it were dropped when the command ran"
    return None
