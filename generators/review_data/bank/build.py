"""Build task_specs/claim_review/items.jsonl from the pair templates.

    python -m generators.review_data.bank.build [--only PAIR_PREFIX[,PAIR_PREFIX...]] [--out FILE]

For each pair, every knob value is tried in order until both twins, run on
seed 0 data, report the same figure to the claim's precision inside a
believable range; the claim is then written with that figure. A pair for
which no knob value works is reported and left out.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import sys
import warnings
from pathlib import Path
from typing import Any

from generators.review_data import DOMAINS, build_fixture
from generators.review_data.bank import series, tabular, text
from generators.review_data.bank.spec import PairSpec

PLAUSIBLE = (0.55, 0.97)  # every claimed figure is a score on a 0-1 scale inside this range
ITEMS_PATH = Path(__file__).resolve().parents[3] / "task_specs" / "claim_review" / "items.jsonl"


def all_pairs() -> list[PairSpec]:
    return [*tabular.pairs(), *series.pairs(), *text.pairs()]


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
    tried = []
    for knob in spec.knobs:
        ok_code, bad_code = render(spec.ok_code, knob), render(spec.bad_code, knob)
        ok, bad = run(ok_code, spec.fixture), run(bad_code, spec.fixture)
        tried.append((round(ok, 3), round(bad, 3)))
        shown = f"{ok:.{spec.decimals}f}"
        if shown == f"{bad:.{spec.decimals}f}" and PLAUSIBLE[0] <= ok <= PLAUSIBLE[1]:
            return _records(spec, ok_code, bad_code, spec.claim.replace("@FIG@", shown))
    return f"{spec.pair_id}: no knob value gives equal figures; first tries {tried[:8]}"


def twin_suffixes(pair_id: str) -> tuple[str, str]:
    """(the sound twin's, the flawed twin's) id suffix.

    Pairs sorted by a hash of their id alternate between ("a", "b") and ("b", "a"), so half the sound
    twins are ".a" and an id never tells the label.
    """
    ranked = sorted((p.pair_id for p in all_pairs()), key=lambda name: hashlib.sha256(name.encode()).hexdigest())
    return ("a", "b") if ranked.index(pair_id) % 2 == 0 else ("b", "a")


def _records(spec: PairSpec, ok_code: str, bad_code: str, claim: str) -> tuple[dict, dict]:
    common = {"claim": claim, "pair_id": spec.pair_id, "fixture": spec.fixture, "domain": DOMAINS[spec.fixture]}
    ok_suffix, bad_suffix = twin_suffixes(spec.pair_id)
    ok: dict[str, object] = {"id": f"{spec.pair_id}.{ok_suffix}", "code": ok_code, "verdict": "OK", "family": None, "flaw_lines": [],
          "explanation": spec.explain_ok, "origin": "original", **common}
    bad = {"id": f"{spec.pair_id}.{bad_suffix}", "code": bad_code, "verdict": "PROBLEM", "family": spec.family,
           "flaw_lines": flaw_lines(bad_code, spec.flaw), "explanation": spec.explain_bad,
           "origin": "injected", "mechanism": spec.mechanism, **common}
    return ok, bad


def main(argv: list[str]) -> int:
    only = tuple(argv[argv.index("--only") + 1].split(",")) if "--only" in argv else ()
    out = Path(argv[argv.index("--out") + 1]) if "--out" in argv else ITEMS_PATH
    records, failures = [], []
    existing = {}
    if only and out.exists():
        existing = {json.loads(line)["id"]: line for line in out.read_text().splitlines() if line.strip()}
    for spec in all_pairs():
        if only and not spec.pair_id.startswith(only):
            kept = [existing.get(f"{spec.pair_id}.{twin}") for twin in twin_suffixes(spec.pair_id)]
            records += [json.loads(line) for line in kept if line]
            continue
        built = build_pair(spec)
        if isinstance(built, str):
            failures.append(built)
            print("FAILED", built, file=sys.stderr)
        else:
            records += list(built)
            print("built", spec.pair_id, built[0]["claim"][-30:], file=sys.stderr)
    # Twins are interleaved by sorting ids; order does not matter to the loader.
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    print(f"{len(records)} items written to {out}; {len(failures)} pairs failed", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
