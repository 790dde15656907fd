"""Records of the first schema (bakeoff.stage/1, bakeoff.run/1) read as the current one.

The first schema was written when the spam take-home was the only task: a ladder check held the holdout
F1 as its own `f1` field and what training printed as `train_output`, a claim held `claimed_f1`/`real_f1`
(or ab_test's `claimed_effect`/`claimed_ci`), an outcome held them beside its common keys, and the statuses
of a missing script and of a run never checked were named after that task's scripts. Version 2 says the
same in words every task shares (docs/records.md, "Version 2"); this module is the one place that knows
the old words. It maps a JSON object to a JSON object and nothing else: no value is recomputed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec

from bakeoff.records import Rung

STAGE_V1, STAGE_V2 = "bakeoff.stage/1", "bakeoff.stage/2"
RUN_V1, RUN_V2 = "bakeoff.run/1", "bakeoff.run/2"
# The first schema's one headline: the check's own `f1` field, higher is better, 0.01 of it noise.
V1_HEADLINE = {"name": "f1", "higher_is_better": True, "tolerance": 0.01}
V1_STATUSES = {"no_predict_script": "no_script", "no_train_script": "not_checked"}
V1_SOURCES = {"train_output": "visible_output"}
V1_OUTCOME_TASK_KEYS = ("f1", "claimed_f1", "claim_source", "headline", "claimed_effect", "claimed_ci")

Json = dict[str, Any]
V = TypeVar("V")


# The first schema's words, read by the record library. Every value is Any on purpose: this module renames and
# never judges; the current schema's reader (bakeoff.records) names a value of the wrong type.
@dataclass(frozen=True)
class V1Tag:
    schema: Any = None


@dataclass(frozen=True)
class V1Check:
    status: Any = None
    rung: Any = None
    f1: Any = None
    train_output: Any = None


@dataclass(frozen=True)
class V1Claim:
    source: Any = None
    claimed_f1: Any = None
    claimed_effect: Any = None
    claimed_ci: Any = None
    real_f1: Any = None


@dataclass(frozen=True)
class V1Outcome:
    status: Any = None
    rung: Any = None
    f1: Any = None
    headline: Any = None  # ab_test wrote its own headline among its keys
    claim_source: Any = None
    claimed_f1: Any = None
    claimed_effect: Any = None
    claimed_ci: Any = None


@dataclass(frozen=True)
class V1Headline:
    name: Any = None
    value: Any = None


@dataclass(frozen=True)
class V1Crash:
    crash_class: Any = None


@dataclass(frozen=True)
class V1Command:
    crash: Any = None


@dataclass(frozen=True)
class V1Turn:
    before: Any = None
    after: Any = None


def _read(kind: type[V], data: Mapping[str, Any]) -> V:
    return msgspec.convert(data, kind)


def upgrade(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """A stage or run record of schema /1 in the shape of /2; any other object unchanged."""
    schema = _read(V1Tag, data).schema
    if schema == STAGE_V1:
        return _stage(data)
    if schema == RUN_V1:
        return _run(data)
    return data


def _rung_name(rung: Any) -> Any:
    """The rung's name in the second schema's words (what a record of it writes beside the number)."""
    if isinstance(rung, int) and not isinstance(rung, bool) and 0 <= rung <= Rung.SCORED:
        return Rung(rung).label
    return None


def _status(value: Any) -> Any:
    return V1_STATUSES.get(value, value) if isinstance(value, str) else value


def _headline(value: Any) -> Json | None:
    """The v1 `f1` number as a headline; None for no number (v1 wrote null until a check was scored)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return {**V1_HEADLINE, "value": float(value)}
    return None


def _check(data: Any) -> Any:
    if not isinstance(data, Mapping):
        return data
    old = _read(V1Check, data)
    check: Json = {key: value for key, value in data.items() if key not in ("f1", "train_output", "rung_name")}
    check.update(status=_status(old.status), rung_name=_rung_name(old.rung), headline=_headline(old.f1),
                 visible_output=old.train_output or "")
    return check


def _claim(data: Any) -> Any:
    """{claimed_f1, real_f1, source} or {claimed_effect, claimed_ci, source} as {source, claimed, real, extra}."""
    if not isinstance(data, Mapping):
        return data
    old = _read(V1Claim, data)
    claimed = old.claimed_f1 if old.claimed_f1 is not None else old.claimed_effect
    extra = {"claimed_ci": old.claimed_ci} if old.claimed_ci is not None else {}
    source = V1_SOURCES.get(old.source, old.source) if isinstance(old.source, str) else old.source
    return {"source": source, "claimed": claimed, "real": old.real_f1, "extra": extra}


def _command(data: Any) -> Any:
    if not isinstance(data, Mapping) or not isinstance(_read(V1Command, data).crash, Mapping):
        return data
    crash = dict(data["crash"])
    crash["crash_class"] = _status(_read(V1Crash, crash).crash_class)
    return {**data, "crash": crash}


def _commands(value: Any) -> Any:
    return [_command(c) for c in value] if isinstance(value, list) else value


def _turn(data: Any) -> Any:
    if not isinstance(data, Mapping):
        return data
    old = _read(V1Turn, data)
    return {**data, "before": _check(old.before), "after": _check(old.after)}


def _stage(data: Mapping[str, Any]) -> Json:
    stage: Json = dict(data)
    stage["schema"] = STAGE_V2
    if "check" in data:
        stage["check"] = _check(data["check"]) if data["check"] is not None else None
    if "claim" in data:
        stage["claim"] = _claim(data["claim"]) if data["claim"] is not None else None
    if "turns" in data and isinstance(data["turns"], list):
        stage["turns"] = [_turn(t) for t in data["turns"]]
    if "commands" in data:
        stage["commands"] = _commands(data["commands"])
    return stage


def _outcome(data: Any) -> Any:
    if not isinstance(data, Mapping):
        return data
    outcome: Json = {key: value for key, value in data.items() if key not in (*V1_OUTCOME_TASK_KEYS, "rung_name")}
    old = _read(V1Outcome, data)
    outcome["status"] = _status(old.status)
    outcome["rung_name"] = _rung_name(old.rung)
    if isinstance(old.headline, Mapping) and "name" in old.headline:  # ab_test wrote its headline among its own keys
        value = _read(V1Headline, old.headline).value
        outcome["headline"] = {"tolerance": 0.0, **old.headline} if value is not None else None
    else:
        outcome["headline"] = _headline(old.f1)
    outcome["claim"] = _claim({"source": old.claim_source, "claimed_f1": old.claimed_f1,
                               "claimed_effect": old.claimed_effect, "claimed_ci": old.claimed_ci, "real_f1": old.f1})
    return outcome


def _run(data: Mapping[str, Any]) -> Json:
    run: Json = dict(data)
    run["schema"] = RUN_V2
    if "outcome" in data:
        run["outcome"] = _outcome(data["outcome"])
    return run
