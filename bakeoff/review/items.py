"""Review items: the two item files, loading, and validation (docs/review.md).

A bank is two JSONL files. The items file holds only what a reviewer sees: per
line an `id`, a `claim` and the `code`. The key file beside it (items.jsonl ->
items.key.jsonl) holds, per id, everything a reviewer must not see: verdict
(OK|PROBLEM), family (null for OK), flaw_lines (1-based lines of `code`, empty
for OK), explanation, pair_id (shared by two twins, else null), origin
(original|injected|real) and the optional fixture (the generators.review_data
fixture the code runs on), domain (tabular|time_series|text), mechanism (how
the tests show a flawed twin's flaw at work), template (the pair template a
shipped twin was built from) and source (where a real item's code came from;
required for origin "real", whose label comes from that source, not from
execution). Each file may open with a header line holding the bank's canary
string. The review runner reads both files; a model is only ever shown the
claim and the code.

A file with no key beside it is self-contained: each line carries the key
fields too (the first banks' format, and the handiest for a few items of
one's own). Any subset of a bank is itself a valid bank: a twin whose partner
is absent is simply left out of the pair metrics.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import durable
from bakeoff.review.errors import ItemsInvalid
from bakeoff.review.sources import Source, source_from_record

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
VISIBLE_FIELDS = ("id", "claim", "code")  # all an items file holds, and all a reviewer is shown
KEY_REQUIRED = ("verdict", "family", "flaw_lines", "explanation", "pair_id", "origin")
KEY_OPTIONAL = ("fixture", "domain", "mechanism", "source", "template")
REQUIRED_FIELDS = (*VISIBLE_FIELDS, *KEY_REQUIRED)  # a self-contained line
OPTIONAL_FIELDS = KEY_OPTIONAL
HEADER_FIELDS = ("canary", "part")
ITEMS_PART, KEY_PART = "items", "key"
_ITEM_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")  # it becomes part of a conversation key and a file's records


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
    template: str | None = None  # the pair template a shipped twin was built from (the audit holds templates out)

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
            "template": self.template,
        }

    def visible_record(self) -> dict:
        """The items file's line: what a reviewer sees."""
        return {"id": self.id, "claim": self.claim, "code": self.code}

    def key_record(self) -> dict:
        """The key file's line: everything else."""
        record = self.to_dict()
        return {"id": self.id, **{name: record[name] for name in (*KEY_REQUIRED, *KEY_OPTIONAL)}}


def _spec_dir() -> Path:
    import task_specs

    return Path(task_specs.__file__).parent / "claim_review"


def default_items_path() -> Path:
    """The shipped benchmark: task_specs/claim_review/items.jsonl (its key: items.key.jsonl)."""
    return _spec_dir() / "items.jsonl"


def default_real_items_path() -> Path:
    """The shipped real items: task_specs/claim_review/real/items.jsonl (their notebooks beside them)."""
    return _spec_dir() / "real" / "items.jsonl"


def canary() -> str:
    """The bank's canary string (task_specs/claim_review/canary.txt), written at the head of both files."""
    return (_spec_dir() / "canary.txt").read_text(encoding="utf-8").strip()


def key_path(items_path: Path) -> Path:
    """items.jsonl -> items.key.jsonl, beside it."""
    items_path = Path(items_path)
    return items_path.with_name(f"{items_path.stem}.key{items_path.suffix or '.jsonl'}")


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
    template = record.get("template")
    _require(template is None or (isinstance(template, str) and template != ""), where, "template must be a string or null")
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
        template=template,
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


def _records(text: str, source: str, part: str) -> list[tuple[str, dict]]:
    """(where, record) for every line of one file; a leading header line (the canary) is checked and left out."""
    records: list[tuple[str, dict]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{source}:{number}"
        try:
            record = durable.loads(line, what="the line")
        except durable.UntrustedJSON as exc:
            raise ItemsInvalid(f"{where}: not valid JSON ({exc})") from None
        if isinstance(record, dict) and "canary" in record and "id" not in record:
            _require(not records, where, "a header line (the canary) comes first")
            _require(set(record) <= set(HEADER_FIELDS), where, f"a header holds only {', '.join(HEADER_FIELDS)}")
            _require(record.get("part", part) == part, where, f"this header is for a {record.get('part')} file, not {part}")
            continue
        records.append((where, record))
    return records


def _merge(visible: list[tuple[str, dict]], key: list[tuple[str, dict]], source: str, key_source: str) -> list[tuple[str, dict]]:
    """Each items line joined with its key line; a verdict-bearing field in the items file is refused."""
    by_id: dict[object, tuple[str, dict]] = {}
    for where, record in key:
        _require(isinstance(record, dict) and isinstance(record.get("id"), str), where,
                 "a key line must be a JSON object with a string id")
        unknown = sorted(set(record) - {"id", *KEY_REQUIRED, *KEY_OPTIONAL})
        _require(not unknown, where, f"unknown key field(s): {', '.join(unknown)}")
        _require(record.get("id") not in by_id, where, f"duplicate item id {record.get('id')!r} in the key")
        by_id[record.get("id")] = (where, record)
    merged, seen = [], set()
    for where, record in visible:
        _require(isinstance(record, dict) and isinstance(record.get("id"), str), where,
                 "an item must be a JSON object with a string id")
        _require(record.get("id") not in seen, where, f"duplicate item id {record.get('id')!r}")
        seen.add(record.get("id"))
        extra = sorted(set(record) - set(VISIBLE_FIELDS))
        _require(not extra, where, f"an items file with a key holds only {', '.join(VISIBLE_FIELDS)}; "
                                   f"move {', '.join(extra)} to {key_source}")
        _require(record.get("id") in by_id, where, f"item {record.get('id')!r} has no line in {key_source}")
        merged.append((where, {**by_id.pop(record.get("id"))[1], **record}))
    _require(not by_id, key_source, f"key lines for items not in {source}: {', '.join(map(str, by_id))}")
    return merged


def parse_items(text: str, source: str, key_text: str | None = None, key_source: str = "the key file") -> tuple[ReviewItem, ...]:
    """The items of a self-contained file (`key_text` None), or of an items file and its key."""
    records = _records(text, source, ITEMS_PART)
    if key_text is not None:
        records = _merge(records, _records(key_text, key_source, KEY_PART), source, key_source)
    items = tuple(item_from_record(record, where) for where, record in records)
    _require(bool(items), source, "no items")
    check_collection(items, source)
    return items


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ItemsInvalid(f"no {what} at {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ItemsInvalid(f"cannot read {what} {path}: {exc}") from None


def read_bank(path: Path) -> tuple[str, str | None]:
    """(items text, key text or None when the file is self-contained)."""
    path = Path(path)
    text = _read(path, "items file")
    key = key_path(path)
    return text, (_read(key, "key file") if key.exists() else None)


def load_items(path: Path | None = None) -> tuple[ReviewItem, ...]:
    """The items of a bank (the shipped benchmark when `path` is None), joined with its key, validated."""
    path = Path(path) if path is not None else default_items_path()
    text, key = read_bank(path)
    return parse_items(text, str(path), key, str(key_path(path)))


def bank_digest(path: Path) -> str:
    """sha256 of what a review was asked about: the items file, and its key when there is one.

    A self-contained file's digest is its text's alone, as the first banks recorded it.
    """
    text, key = read_bank(path)
    data = text.encode("utf-8") if key is None else text.encode("utf-8") + b"\0" + key.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def bank_texts(items: Sequence[ReviewItem], canary_text: str) -> tuple[str, str]:
    """(items file, key file) for `items`, in their order, each headed by the canary."""
    def lines(part: str, records: Iterable[dict]) -> str:
        head = durable.dumps({"canary": canary_text, "part": part}, ensure_ascii=False) + "\n"
        return head + "".join(durable.dumps(record, ensure_ascii=False) + "\n" for record in records)

    return lines(ITEMS_PART, (i.visible_record() for i in items)), lines(KEY_PART, (i.key_record() for i in items))


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
