"""The order in which the suite's test files reach pytest-xdist's two workers: the costliest first.

The suite runs with `--dist loadfile` (each file whole on one worker, so module fixtures are paid once). xdist
hands out files in queue order, and by default sorts that queue by the number of tests in a file. That puts the
files of one or two tests that run for minutes (a full batch on the real model, the offline image bootstrap)
at the very end, where one worker runs them while the other has nothing left: the suite waits on its tail.
Handing out the costliest files first (longest processing time first) leaves only short files for the end.

A file's cost is estimated from its tests' markers, which say what a test starts: no timing file to keep up.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol, TypeVar

# Rough seconds a test costs for each marker it carries (summed), and for a test with none. Measured orders of
# magnitude on the 2-core machine: an end-to-end batch or a real llama.cpp run takes tens of seconds, a
# container a few, a unit test a fraction of one.
MARKER_SECONDS = {"slow": 30.0, "llama": 10.0, "ray": 10.0, "docker": 3.0, "bwrap": 1.0}
UNMARKED_SECONDS = 0.2


class Marked(Protocol):
    @property
    def nodeid(self) -> str: ...


    def iter_markers(self, name: str | None = None) -> Iterator[Any]: ...


Item = TypeVar("Item", bound=Marked)


def file_of(item: Marked) -> str:
    return item.nodeid.split("::", 1)[0]


def estimated_seconds(item: Marked) -> float:
    names = {mark.name for mark in item.iter_markers()}
    return sum(seconds for name, seconds in MARKER_SECONDS.items() if name in names) or UNMARKED_SECONDS


def costliest_files_first(items: Sequence[Item]) -> list[Item]:
    """The items regrouped by file, files in falling order of estimated cost (ties: as collected), each file's
    tests in their own order."""
    cost: dict[str, float] = {}
    first_seen: dict[str, int] = {}
    for index, item in enumerate(items):
        name = file_of(item)
        cost[name] = cost.get(name, 0.0) + estimated_seconds(item)
        first_seen.setdefault(name, index)
    order = sorted(enumerate(items), key=lambda pair: (-cost[file_of(pair[1])], first_seen[file_of(pair[1])],
                                                        pair[0]))
    return [item for _, item in order]
