"""Build the claim-review bank: task_specs/claim_review/items.jsonl and its key, items.key.jsonl.

    python -m generators.review_data.bank.build [--only PAIR_PREFIX[,PAIR_PREFIX...]] [--out FILE]

Each pair's code first gets its own surface (`vary`: names, import order, notes, seeded by the pair id, the
same for both twins). For each pair, every knob value is tried in order until both twins, run on
seed 0 data, report the same figure to the claim's precision inside a
believable range; the claim is then written with that figure. A pair for
which no knob value works is reported and left out.

The items file holds what a reviewer sees (id, claim, code); the key file the
rest. Items are written in a seeded shuffled order (`arrange`): no twin next to
its twin, the sound twin first in exactly half the pairs, and PROBLEM items
spread evenly over even and odd positions; ids number the positions
(`cr-001`...), so neither an id nor a place says anything. `--only` rebuilds
some pairs and keeps the others' records from the existing files.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import sys
import warnings
from pathlib import Path
from typing import Any

from generators.review_data import DOMAINS, build_fixture
from generators.review_data.bank import (
    contamination,
    contamination_more,
    leakage,
    leakage_more,
    metric,
    metric_more,
    target,
    target_more,
    temporal,
    temporal_more,
    tuning,
    tuning_more,
)
from generators.review_data.bank.spec import PairSpec
from generators.review_data.bank.vary import rename_words, vary, vary_mechanism

PLAUSIBLE = (0.55, 0.97)  # every claimed figure is a score on a 0-1 scale inside this range
SPEC_DIR = Path(__file__).resolve().parents[3] / "task_specs" / "claim_review"
ITEMS_PATH = SPEC_DIR / "items.jsonl"
ORDER_SEED = 3  # the published order's seed
KEY_FIELDS = ("verdict", "family", "flaw_lines", "explanation", "pair_id", "origin", "fixture", "domain", "mechanism",
              "source", "template")


def all_pairs() -> list[PairSpec]:
    return [*leakage.pairs(), *leakage_more.pairs(), *contamination.pairs(), *contamination_more.pairs(),
            *target.pairs(), *target_more.pairs(), *temporal.pairs(),
            *temporal_more.pairs(), *tuning.pairs(), *tuning_more.pairs(), *metric.pairs(), *metric_more.pairs()]


def render(code: str, knob: object) -> str:
    values = knob if isinstance(knob, tuple) else (knob,)
    code = code.replace("@KNOB@", str(values[0]))
    for position, value in enumerate(values):
        code = code.replace(f"@K{position}@", str(value))
    return code


def run(code: str, fixture: str, seed: int = 0) -> float:
    from threadpoolctl import threadpool_limits

    namespace: dict[str, Any] = {"__name__": "review_item"}  # what the item's code defined
    namespace.update(build_fixture(fixture, seed))
    with threadpool_limits(limits=1), warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        exec(compile(code, "<item>", "exec"), namespace)  # noqa: S102 - our own template code
    return float(namespace["reported"])


def flaw_lines(code: str, markers: tuple[str, ...]) -> list[int]:
    lines = code.splitlines()
    found = []
    for marker in markers:
        hits = [n for n, line in enumerate(lines, start=1) if marker in line]
        if len(hits) != 1:
            raise ValueError(f"flaw marker {marker!r} matches lines {hits}")
        found.append(hits[0])
    return sorted(found)


def build_pair(spec: PairSpec) -> tuple[dict, dict] | str:
    """(sound record, flawed record) without ids, or why no knob value worked."""
    tried = []
    for knob in spec.knobs:
        ok_code, bad_code, renames = vary(spec.pair_id, render(spec.ok_code, knob), render(spec.bad_code, knob))
        ok, bad = run(ok_code, spec.fixture), run(bad_code, spec.fixture)
        tried.append((round(ok, 3), round(bad, 3)))
        shown = f"{ok:.{spec.decimals}f}"
        if shown == f"{bad:.{spec.decimals}f}" and PLAUSIBLE[0] <= ok <= PLAUSIBLE[1]:
            return _records(spec, ok_code, bad_code, spec.claim.replace("@FIG@", shown), renames)
    return f"{spec.pair_id}: no knob value gives equal figures; first tries {tried[:8]}"


def _records(spec: PairSpec, ok_code: str, bad_code: str, claim: str, renames: dict[str, str]) -> tuple[dict, dict]:
    """The twins' records; the flaw markers and the mechanism's expressions name the pair's own variables."""
    markers = tuple(rename_words(marker, renames) for marker in spec.flaw)
    common = {"claim": claim, "pair_id": spec.pair_id, "fixture": spec.fixture, "domain": DOMAINS[spec.fixture],
              "template": spec.template_name, "source": None}
    ok: dict[str, object] = {"code": ok_code, "verdict": "OK", "family": None, "flaw_lines": [], "explanation": spec.explain_ok,
          "origin": "original", "mechanism": None, **common}
    bad = {"code": bad_code, "verdict": "PROBLEM", "family": spec.family, "flaw_lines": flaw_lines(bad_code, markers),
           "explanation": spec.explain_bad, "origin": "injected", "mechanism": vary_mechanism(spec.mechanism, renames),
           **common}
    return ok, bad


def arrange(pairs: list[tuple[dict, dict]], seed: int = ORDER_SEED, prefix: str = "cr") -> list[dict]:
    """The records in the published order, with ids `<prefix>-NNN` by position.

    Seeded shuffles are drawn until the order gives nothing away: no twin stands next to its twin, the
    sound twin comes first in exactly half the pairs, exactly half the PROBLEM items stand at even places,
    and neither "flawed twin even, sound twin odd" nor the reverse holds for more than a quarter of the pairs
    (a parity reader then gets 0.5, and at most a quarter of the pairs both right).
    """
    rng = random.Random(seed)
    n = len(pairs)
    while True:
        slots = list(range(2 * n))
        rng.shuffle(slots)
        places = [sorted(slots[2 * k: 2 * k + 2]) for k in range(n)]
        sound_first = _balanced(n, rng)
        chosen = [(first, second) if flag else (second, first)
                  for (first, second), flag in zip(places, sound_first, strict=True)]
        if all(abs(a - b) > 1 for a, b in chosen) and _parity_balanced(chosen):
            break
    order: list[dict] = [{}] * (2 * n)
    for (ok_place, bad_place), (ok, bad) in zip(chosen, pairs, strict=True):
        order[ok_place], order[bad_place] = ok, bad
    records = [dict(r) for r in order]
    for position, record in enumerate(records, start=1):
        record["id"] = f"{prefix}-{position:03d}"
    return records


def _balanced(n: int, rng: random.Random) -> list[bool]:
    flags = [k < n // 2 for k in range(n)]
    rng.shuffle(flags)
    return flags


def _parity_balanced(places: list[tuple[int, int]]) -> bool:
    """(sound place, flawed place) per pair: PROBLEM half at even places, each mixed-parity kind <= a quarter."""
    n = len(places)
    flawed_even = sum(bad % 2 == 0 for _, bad in places)
    sound_odd_flawed_even = sum(ok % 2 == 1 and bad % 2 == 0 for ok, bad in places)
    sound_even_flawed_odd = sum(ok % 2 == 0 and bad % 2 == 1 for ok, bad in places)
    return flawed_even == n // 2 and max(sound_odd_flawed_even, sound_even_flawed_odd) <= n // 4


def write_bank(records: list[dict], out: Path) -> None:
    canary = (SPEC_DIR / "canary.txt").read_text(encoding="utf-8").strip()
    key = out.with_name(f"{out.stem}.key{out.suffix}")

    def lines(part: str, rows: list[dict]) -> str:
        head = json.dumps({"canary": canary, "part": part}, ensure_ascii=False) + "\n"
        return head + "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)

    out.write_text(lines("items", [{"id": r["id"], "claim": r["claim"], "code": r["code"]} for r in records]),
                   encoding="utf-8")
    key.write_text(lines("key", [{"id": r["id"], **{k: r[k] for k in KEY_FIELDS}} for r in records]), encoding="utf-8")


def _existing(out: Path) -> dict[str, list[dict]]:
    """pair_id -> its two records (sound first) in the bank at `out`, for a partial rebuild."""
    key = out.with_name(f"{out.stem}.key{out.suffix}")
    if not out.exists() or not key.exists():
        return {}
    rows: dict[str, dict] = {}
    for path in (out, key):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line) if line.strip() else {}
            if "id" in record:
                rows.setdefault(record["id"], {}).update(record)
    pairs: dict[str, list[dict]] = {}
    for record in rows.values():
        pairs.setdefault(record["pair_id"], []).append({k: v for k, v in record.items() if k != "id"})
    return {pid: sorted(twins, key=lambda r: r["verdict"] != "OK") for pid, twins in pairs.items()}


def main(argv: list[str]) -> int:
    only = tuple(argv[argv.index("--only") + 1].split(",")) if "--only" in argv else ()
    out = Path(argv[argv.index("--out") + 1]) if "--out" in argv else ITEMS_PATH
    existing = _existing(out) if only else {}
    built, failures = [], []
    for spec in all_pairs():
        if only and not spec.pair_id.startswith(only) and spec.pair_id in existing:
            ok, bad = existing[spec.pair_id]
            built.append((ok, bad))
            continue
        result = build_pair(spec)
        if isinstance(result, str):
            failures.append(result)
            print("FAILED", result, file=sys.stderr)
        else:
            built.append(result)
            print("built", spec.pair_id, result[0]["claim"][-30:], file=sys.stderr)
    write_bank(arrange(built), out)
    print(f"{2 * len(built)} items written to {out} and its key; {len(failures)} pairs failed", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
