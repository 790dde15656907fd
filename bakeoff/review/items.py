"""Review items: the JSONL format, loading, and validation.

One item a line. The fields (docs/review.md):
  id, claim, code, verdict (OK|PROBLEM), family (null for OK), flaw_lines
  (1-based lines of `code`, empty for OK), explanation, pair_id (shared by
  two twins, else null), origin (original|injected|real), and the optional
  fixture (the generators.review_data fixture the code runs on), domain
  (tabular|time_series|text), mechanism (how the tests show a flawed twin's
  flaw at work) and source (where a real item's code came from; required
  for origin "real", whose label comes from that source, not from execution).
Any subset of the shipped file is itself a valid items file: a twin whose
partner is absent is simply left out of the pair metrics.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bakeoff.review.errors import ItemsInvalid

OK = "OK"
PROBLEM = "PROBLEM"
VERDICTS = (OK, PROBLEM)
FAMILIES = (
    "data_leakage",  # something fitted (scaler, vocabulary, selector, encoding) sees the evaluation rows
    "train_test_contamination",  # the same entity or row on both sides of the split
    "target_leakage",  # a feature that exists only once the outcome is known
    "temporal_leakage",  # later observations inform the model of earlier ones
    "test_set_tuning",  # a choice (threshold, setting, model) made by the test score it then reports
    "metric_mismatch",  # the reported figure is not the quantity the claim names
)
ORIGINS = ("original", "injected", "real")
REAL = "real"
DOMAINS = ("tabular", "time_series", "text")
REQUIRED_FIELDS = ("id", "claim", "code", "verdict", "family", "flaw_lines", "explanation", "pair_id", "origin")
OPTIONAL_FIELDS = ("fixture", "domain", "mechanism", "source")
SOURCE_FIELDS = ("repository", "url", "path", "lines", "licence")
_ITEM_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")  # it becomes part of a conversation key and a file's records


@dataclass(frozen=True)
class Source:
    """Where a real item's code came from: a repository or a URL, a path in it, a line range, a licence."""

    path: str
    lines: str  # "A-B", 1-based and inclusive, in the original file
    licence: str
    repository: str | None = None
    url: str | None = None

    def to_dict(self) -> dict:
        return {"repository": self.repository, "url": self.url, "path": self.path, "lines": self.lines,
                "licence": self.licence}


_LINE_RANGE = re.compile(r"[1-9][0-9]*-[1-9][0-9]*")


def source_from_record(record: object, where: str) -> Source:
    if not isinstance(record, dict):
        raise ItemsInvalid(f"{where}: source must be an object")
    unknown = sorted(set(record) - set(SOURCE_FIELDS))
    _require(not unknown, where, f"unknown source field(s): {', '.join(unknown)}")
    texts: dict[str, Any] = {}  # each a non-empty string or None, checked as it is read
    for name in SOURCE_FIELDS:
        value = record.get(name)
        _require(value is None or (isinstance(value, str) and value.strip() != ""), where,
                 f"source {name} must be a non-empty string")
        texts[name] = value
    _require(bool(texts["repository"] or texts["url"]), where, "source needs a repository or a url")
    for name in ("path", "lines", "licence"):
        _require(texts[name] is not None, where, f"source needs {name}")
    _require(bool(_LINE_RANGE.fullmatch(texts["lines"])), where, f"source lines must read A-B, not {texts['lines']!r}")
    first, last = (int(n) for n in texts["lines"].split("-"))
    _require(first <= last, where, f"source lines {texts['lines']} run backwards")
    return Source(path=texts["path"], lines=texts["lines"], licence=texts["licence"],
                  repository=texts["repository"], url=texts["url"])


@dataclass(frozen=True)
class ReviewItem:
    id: str
    claim: str
    code: str
    verdict: str
    family: str | None
    flaw_lines: tuple[int, ...]
    explanation: str
    pair_id: str | None
    origin: str
    fixture: str | None = None
    domain: str | None = None
    mechanism: dict | None = None
    source: Source | None = None

    @property
    def is_real(self) -> bool:
        return self.origin == REAL

    @property
    def is_problem(self) -> bool:
        return self.verdict == PROBLEM

    @property
    def code_lines(self) -> tuple[str, ...]:
        return tuple(self.code.splitlines())

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "claim": self.claim,
            "code": self.code,
            "verdict": self.verdict,
            "family": self.family,
            "flaw_lines": list(self.flaw_lines),
            "explanation": self.explanation,
            "pair_id": self.pair_id,
            "origin": self.origin,
            "fixture": self.fixture,
            "domain": self.domain,
            "mechanism": self.mechanism,
            "source": self.source.to_dict() if self.source else None,
        }


def default_items_path() -> Path:
    """The shipped benchmark: task_specs/claim_review/items.jsonl."""
    import task_specs

    return Path(task_specs.__file__).parent / "claim_review" / "items.jsonl"


def _require(condition: bool, where: str, message: str) -> None:
    if not condition:
        raise ItemsInvalid(f"{where}: {message}")


def _nonempty_text(record: dict, name: str, where: str) -> str:
    value = record[name]
    _require(isinstance(value, str) and value.strip() != "", where, f"{name} must be a non-empty string")
    return value


def _flaw_lines(record: dict, verdict: str, n_lines: int, where: str) -> tuple[int, ...]:
    lines = record["flaw_lines"]
    _require(isinstance(lines, list), where, "flaw_lines must be a list of line numbers")
    _require(all(isinstance(n, int) and not isinstance(n, bool) for n in lines), where, "flaw_lines must hold integers")
    if verdict == PROBLEM:
        _require(len(lines) > 0, where, "a PROBLEM item needs at least one flaw line")
    else:
        _require(len(lines) == 0, where, "an OK item has no flaw lines")
    outside = [n for n in lines if not 1 <= n <= n_lines]
    _require(not outside, where, f"flaw_lines {outside} fall outside the code's {n_lines} lines")
    return tuple(lines)


def item_from_record(record: object, where: str) -> ReviewItem:
    """One validated item from a parsed JSON object; `where` locates it in error messages."""
    if not isinstance(record, dict):
        raise ItemsInvalid(f"{where}: an item must be a JSON object")
    missing = [name for name in REQUIRED_FIELDS if name not in record]
    _require(not missing, where, f"missing field(s): {', '.join(missing)}")
    unknown = sorted(set(record) - set(REQUIRED_FIELDS) - set(OPTIONAL_FIELDS))
    _require(not unknown, where, f"unknown field(s): {', '.join(unknown)}")
    item_id = _nonempty_text(record, "id", where)
    _require(bool(_ITEM_ID.fullmatch(item_id)), where, f"id {item_id!r} may hold only letters, digits, '_', '.' and '-'")
    where = f"{where} (item {item_id})"
    code = _nonempty_text(record, "code", where)
    verdict = record["verdict"]
    _require(verdict in VERDICTS, where, f"verdict must be OK or PROBLEM, not {verdict!r}")
    family = record["family"]
    if verdict == PROBLEM:
        _require(family in FAMILIES, where, f"family must be one of {', '.join(FAMILIES)}, not {family!r}")
    else:
        _require(family is None, where, "an OK item has family null")
    _require(record["origin"] in ORIGINS, where, f"origin must be original, injected or real, not {record['origin']!r}")
    pair_id = record["pair_id"]
    _require(pair_id is None or (isinstance(pair_id, str) and pair_id != ""), where, "pair_id must be a string or null")
    fixture = record.get("fixture")
    _require(fixture is None or (isinstance(fixture, str) and fixture != ""), where, "fixture must be a string or null")
    domain = record.get("domain")
    _require(domain is None or domain in DOMAINS, where, f"domain must be one of {', '.join(DOMAINS)} or null")
    mechanism = record.get("mechanism")
    _require(mechanism is None or isinstance(mechanism, dict), where, "mechanism must be an object or null")
    source = None
    if record.get("source") is not None:
        source = source_from_record(record["source"], where)
    # A real item's label comes from where it was found; our own items' labels from running them.
    _require(record["origin"] != REAL or source is not None, where, "a real item needs a source record")
    _require(record["origin"] == REAL or source is None, where, "only a real item has a source")
    return ReviewItem(
        id=item_id,
        claim=_nonempty_text(record, "claim", where),
        code=code,
        verdict=verdict,
        family=family,
        flaw_lines=_flaw_lines(record, verdict, len(code.splitlines()), where),
        explanation=_nonempty_text(record, "explanation", where),
        pair_id=pair_id,
        origin=record["origin"],
        fixture=fixture,
        domain=domain,
        mechanism=mechanism,
        source=source,
    )


def check_collection(items: Sequence[ReviewItem], source: str) -> None:
    """Rules across items: unique ids; a pair has at most two twins, one OK and one PROBLEM."""
    duplicated = sorted(name for name, count in Counter(item.id for item in items).items() if count > 1)
    _require(not duplicated, source, f"duplicate item id(s): {', '.join(duplicated)}")
    for pair_id, twins in group_pairs(items, complete_only=False).items():
        _require(len(twins) <= 2, source, f"pair {pair_id!r} has {len(twins)} items; a pair has two")
        if len(twins) == 2:
            verdicts = sorted(item.verdict for item in twins)
            _require(verdicts == [OK, PROBLEM], source, f"pair {pair_id!r} needs one OK and one PROBLEM twin")


def group_pairs(items: Iterable[ReviewItem], complete_only: bool = True) -> dict[str, tuple[ReviewItem, ...]]:
    """pair_id -> its twins (OK first). With complete_only, pairs missing a twin are left out."""
    groups: dict[str, list[ReviewItem]] = {}
    for item in items:
        if item.pair_id is not None:
            groups.setdefault(item.pair_id, []).append(item)
    return {
        pair_id: tuple(sorted(twins, key=lambda item: item.verdict != OK))
        for pair_id, twins in groups.items()
        if not complete_only or len(twins) == 2
    }


def parse_items(text: str, source: str) -> tuple[ReviewItem, ...]:
    items = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{source}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ItemsInvalid(f"{where}: not valid JSON ({exc.msg})") from None
        items.append(item_from_record(record, where))
    _require(bool(items), source, "no items")
    check_collection(items, source)
    return tuple(items)


def load_items(path: Path | None = None) -> tuple[ReviewItem, ...]:
    """The items of a JSONL file (the shipped benchmark when `path` is None), validated."""
    path = Path(path) if path is not None else default_items_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ItemsInvalid(f"no items file at {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ItemsInvalid(f"cannot read items file {path}: {exc}") from None
    return parse_items(text, str(path))


@dataclass(frozen=True)
class Coverage:
    """What an item set covers: the numbers the benchmark's own rules are checked against."""

    n_items: int
    n_problem: int
    n_ok: int
    problems_per_family: dict[str, int]
    complete_pairs: int
    code_line_counts: tuple[int, ...]
    per_domain: dict[str, int]


def coverage(items: Sequence[ReviewItem]) -> Coverage:
    families = Counter(item.family for item in items if item.is_problem)
    return Coverage(
        n_items=len(items),
        n_problem=sum(item.is_problem for item in items),
        n_ok=sum(not item.is_problem for item in items),
        problems_per_family={family: families.get(family, 0) for family in FAMILIES},
        complete_pairs=len(group_pairs(items)),
        code_line_counts=tuple(len(item.code_lines) for item in items),
        per_domain={domain: sum(item.domain == domain for item in items) for domain in DOMAINS},
    )
