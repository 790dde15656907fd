"""The one budget every fuzz test runs under, the hostile values they share, and how each proves its reach.

Each reader of untrusted bytes is fuzzed with the same property: a valid result or the reader's named error,
never another exception. `FUZZ` is the example budget CI runs (the examples are the same on every run of one tree;
hypothesis also draws from the literal constants of the local code it has imported, so a change to the code can
change them: hence a reach asserted with room, not an example list pinned);
`deadline=None` because a busy 2-core machine must not turn a slow example into a failure: the bounds on
time are properties of the readers themselves (linear parsing, caps), tested apart without a clock.

A property is only checked on the inputs that get past the reader's first syntax check, so the strategies
start from valid inputs (records a real batch wrote, a minimal plan, a valid header) and mutate one part at a
time, with the hostile names and values below. `Reach` counts, over a run's examples, how many the reader
accepted (each also a hypothesis `event`): a fuzz test asserts at least `MIN_REACH` of them, so a strategy
that stops reaching the property fails instead of passing on refusals alone.
"""

from __future__ import annotations

import copy
import os
from typing import Any

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st

# CI runs the fixed budget; BAKEOFF_FUZZ_EXAMPLES=N runs a deeper search by hand (still derandomized).
FUZZ_EXAMPLES = int(os.environ.get("BAKEOFF_FUZZ_EXAMPLES", "300"))
FUZZ = settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
# For readers whose every example starts a process or copies a model (chat templates, GGUF headers via the CLI).
FUZZ_SLOW = settings(FUZZ, max_examples=max(1, FUZZ_EXAMPLES // 8))
MIN_REACH = 0.2  # the share of a run's examples that must reach the property (issue 35)

# Names a hostile author writes where a plain relative file or experiment name belongs.
HOSTILE_NAME_LIST = ["", " ", ".", "..", "../x.py", "../../etc/passwd", "/etc/passwd", "/abs.py", "a/../b.py",
                     "./a.py", ".hidden.py", "a b.py", "a\\b.py", "C:\\x.py", "x.py\n", "x.py\x00", "\x00", "~/x.py",
                     "a//b.py", "a/", "\u202etxt.py", "\u00e9.py", "x" * 300 + ".py", "nan", "-1", "`x.py`", "\udc80.py",
                     "train.py:", "*train.py*", "\r", "\u2028"]
hostile_names = st.sampled_from(HOSTILE_NAME_LIST) | st.text(max_size=10)
# Numbers as text (CSV cells, TOML and JSON literals): the ones float() takes that no finite reader should.
NON_FINITE_TEXTS = ["nan", "NaN", "-nan", "+nan", "inf", "-inf", "+inf", "Infinity", "-Infinity", "infinity", "INF",
                    "1e999", "-1e999", "1e309"]
HOSTILE_NUMBER_LIST = [*NON_FINITE_TEXTS,
                       "1.7e308", "-1.7e308", "1e100", "1e101", "-0.0", "0x10", "1_000", "9" * 400, "", " ", "1,5",
                       "True", "null", "0.5.1", "1e", "+.5", " 2 ", "\u0661", "\x00"]
hostile_number_texts = (st.sampled_from(NON_FINITE_TEXTS) | st.sampled_from(HOSTILE_NUMBER_LIST)
                        | st.text(alphabet="0123456789.-+eE_x ", max_size=8))
# Values a JSON or TOML document can hold where a reader expects another kind (or the same kind, out of range).
HOSTILE_VALUE_LIST: list[Any] = [None, True, False, 0, -1, 1, 2**31, 2**63, 2**64, -(2**63) - 1, 10**30, 10**400, -0.0,
                                 0.5, 1e100, 1e101, 1.7e308, -1.7e308, 1e-320, float("nan"), float("inf"), "", "x" * 2000, [], {}, [None],
                                 {"": None}, [[[[]]]], {"schema": None}, ["a", 1], {"a": {"b": {"c": []}}}]
hostile_values = (st.sampled_from(HOSTILE_VALUE_LIST) | hostile_names | hostile_number_texts | st.integers()
                  | st.floats(allow_nan=False) | st.lists(st.integers(), max_size=3))

MUTATIONS = ("none", "reorder", "replace", "retype", "delete", "add", "wrap")
# A value of another kind than the one a reader expects: what its type-slip guard is for.
OTHER_KIND: list[tuple[type | tuple[type, ...], list[Any]]] = [
    (dict, [[1, 2], 5, "x", [None]]), (list, [5, {"a": 1}, "x", True]), (str, [[], {}, 7, [1]]),
    (bool, ["true", 1, [], None]), ((int, float), ["1", [], {}, None]), (type(None), [[], {}, 5, "x"])]


class Reach:
    """How many of one fuzz run's examples the reader accepted; `saw` also records each as a hypothesis event.

    Hypothesis calls a @given function once per example, so a test wraps its @given function in a plain test
    that makes a Reach, runs the search with it, then calls `check`.
    """

    def __init__(self, what: str) -> None:
        self.what = what
        self.examples = 0
        self.valid = 0

    def saw(self, valid: bool, detail: str = "") -> None:
        self.examples += 1
        self.valid += valid
        event(f"{self.what}: {'valid' if valid else 'refused'}", detail)

    def check(self, minimum: float = MIN_REACH) -> None:
        """At least `minimum` of the examples valid, and at least one refused (the mutations do bite)."""
        assert self.examples > 0, f"{self.what}: no example ran"
        share = self.valid / self.examples
        assert share >= minimum, (f"{self.what}: {self.valid} of {self.examples} examples valid ({share:.0%}); "
                                  f"the strategy must reach the property in at least {minimum:.0%}")
        assert self.valid < self.examples, f"{self.what}: no example was refused: the mutations never bite"


def json_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place inside a JSON value (keys and list positions from its root), the root itself excluded."""
    found: list[tuple[Any, ...]] = []
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        found.append((*prefix, key))
        found.extend(json_paths(child, (*prefix, key)))
    return found


def _name(path: tuple[Any, ...]) -> str:
    return path[-1] if isinstance(path[-1], str) else "[]"


def _parent(document: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        document = document[key]
    return document


@st.composite
def mutated_json(draw: st.DrawFn, valid: Any) -> tuple[Any, str]:
    """(a copy of the `valid` JSON value with at most one part changed, what was changed).

    One of: nothing; an object's keys reordered; a value replaced by a hostile one, or by one of another kind;
    a key or item deleted; a key added (a hostile name, or one the document uses elsewhere); a value wrapped in
    a list. The place is any key or item, at any depth, each key name as likely as any other.
    """
    document = copy.deepcopy(valid)
    mutation = draw(st.sampled_from(MUTATIONS))
    paths = json_paths(document)
    if mutation == "none" or not paths:
        return document, "none"
    if mutation == "reorder":  # the keys of one object in another order: a reader must not care
        objects = [()] + [p for p in paths if isinstance(_parent(document, (*p, None)), dict)]
        where = draw(st.sampled_from(objects))
        table = _parent(document, (*where, None))
        for key in draw(st.permutations(sorted(table))):
            table[key] = table.pop(key)
        return document, f"reorder {'/'.join(str(p) for p in where)[-60:]}"
    # A key name first, then one place that holds it: every field is as likely as any other, however many
    # times a record repeats some (forty requirement lines) and however deep it sits.
    names = sorted({_name(p) for p in paths})
    name = draw(st.sampled_from(names))
    path = draw(st.sampled_from([p for p in paths if _name(p) == name]))
    parent, key = _parent(document, path), path[-1]
    if mutation == "replace":
        parent[key] = draw(hostile_values)
    elif mutation == "retype":
        others = next(values for kind, values in OTHER_KIND if isinstance(parent[key], kind))
        parent[key] = copy.deepcopy(draw(st.sampled_from(others)))
    elif mutation == "delete":
        del parent[key]
    elif mutation == "wrap":
        parent[key] = [parent[key]]
    elif isinstance(parent, dict):  # add: a key beside this one
        parent[draw(st.sampled_from([n for n in names if n != "[]"] or ["x"]) | hostile_names)] = draw(hostile_values)
    else:
        parent.insert(key, draw(hostile_values))
    return document, f"{mutation} {'/'.join(str(p) for p in path)[-60:]}"


# Byte-level changes of a valid file: none, spaces and trailing keep it valid (a reader must not care), the rest break
# it; the two that draw are listed twice, so that about a third of the examples stay valid whatever the code's
# constants make of hypothesis's choices. Hypothesis never runs one example twice, so the valid-keeping ones draw
# where and what, like the others.
BYTE_MUTATIONS = ("none", "spaces", "trailing", "truncate", "insert", "replace", "spaces", "trailing", "flip", "repeat",
                  "utf16")
blanks = st.text(alphabet=" \t\n", min_size=1, max_size=12)


@st.composite
def mutated_bytes(draw: st.DrawFn, valid: bytes) -> tuple[bytes, str]:
    """(`valid` with one change, what it was): spaces where a line ends, a cut, a hostile insertion, ..."""
    mutation = draw(st.sampled_from(BYTE_MUTATIONS))
    if mutation == "none":
        return valid, mutation
    if mutation == "utf16":
        return valid.decode("utf-8").encode("utf-16"), mutation
    if mutation == "trailing":  # blank lines and spaces after the end
        return valid + draw(blanks).encode(), mutation
    if mutation == "spaces":  # spaces before a line's end: insignificant in JSON and TOML alike
        ends = [i for i, byte in enumerate(valid) if byte == ord("\n")] or [len(valid)]
        at = draw(st.sampled_from(ends))
        return valid[:at] + b" " * draw(st.integers(1, 40)) + valid[at:], f"{mutation} at {at}"
    at = draw(st.integers(0, len(valid)))
    if mutation == "truncate":
        return valid[:at], f"{mutation} at {at}"
    if mutation == "insert":
        piece = draw(st.sampled_from([name.encode("utf-8", "surrogatepass") for name in HOSTILE_NAME_LIST])
                     | st.binary(min_size=1, max_size=8))
        return valid[:at] + piece + valid[at:], f"{mutation} at {at}"
    if mutation == "repeat":
        return valid[:at] + valid[at // 2:], f"{mutation} from {at // 2}"
    if at == len(valid):
        at -= 1
    if mutation == "flip":
        return valid[:at] + bytes([valid[at] ^ (1 << draw(st.integers(0, 7)))]) + valid[at + 1:], f"{mutation} at {at}"
    return valid[:at] + bytes([draw(st.integers(0, 255))]) + valid[at + 1:], f"{mutation} at {at}"
