"""The executable ground truth: run an item's code on the data its fixture generates.

Item code is our own (never a model's), so it runs in process, in a fresh
namespace holding the fixture's variables (what earlier notebook cells would
have loaded). It must leave the figure its claim states in `reported`.
"""

from __future__ import annotations

import contextlib
import io
import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

from bakeoff.review.errors import ItemCodeFailed
from bakeoff.review.items import ReviewItem


@dataclass(frozen=True)
class ItemRun:
    """What one execution of an item's code left behind."""

    item_id: str
    reported: float
    namespace: Mapping[str, object]  # every variable the code defined, for mechanism checks
    output: str  # what the code printed


def fixture_variables(item: ReviewItem, seed: int) -> dict[str, object]:
    """The variables an item's code starts from, generated for `seed`."""
    from generators.review_data import build_fixture

    if item.fixture is None:
        raise ItemCodeFailed(f"item {item.id} names no fixture, so its code has no data to run on")
    return build_fixture(item.fixture, seed)


def run_code(item: ReviewItem, variables: Mapping[str, object]) -> ItemRun:
    """Execute the item's code in a namespace starting from `variables` (copied, never mutated)."""
    namespace: dict[str, object] = {"__name__": f"review_item_{item.id}"}
    namespace.update(_copied(variables))
    printed = io.StringIO()
    from threadpoolctl import threadpool_limits  # ships with scikit-learn

    try:
        compiled = compile(item.code, f"<review item {item.id}>", "exec")
        # One thread: on shared cores, BLAS and OpenMP pools oversubscribe and crawl.
        # Library warnings (convergence, future changes) are noise for a ground-truth run.
        with threadpool_limits(limits=1), warnings.catch_warnings(), contextlib.redirect_stdout(printed):
            warnings.simplefilter("ignore")
            exec(compiled, namespace)  # noqa: S102 - our own item code, not a model's
    except Exception as exc:
        raise ItemCodeFailed(f"item {item.id}: its code raised {type(exc).__name__}: {exc}") from exc
    if "reported" not in namespace:
        raise ItemCodeFailed(f"item {item.id}: its code did not set `reported`")
    try:
        reported = float(namespace["reported"])  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ItemCodeFailed(f"item {item.id}: `reported` is not a number: {namespace['reported']!r}") from None
    if not math.isfinite(reported):
        raise ItemCodeFailed(f"item {item.id}: `reported` is {reported}")
    return ItemRun(item.id, reported, namespace, printed.getvalue())


def run_item(item: ReviewItem, seed: int = 0) -> ItemRun:
    """Execute the item's code on its fixture generated with `seed`."""
    return run_code(item, fixture_variables(item, seed))


def _copied(variables: Mapping[str, object]) -> dict[str, object]:
    """Shallow copies of data frames and arrays, so item code that edits `df` edits its own copy."""
    copies = {}
    for name, value in variables.items():
        copy = getattr(value, "copy", None)
        copies[name] = copy() if callable(copy) else value
    return copies
