"""Readers of the file rather than the code: the order readers and the dead-code reader.

The order readers see only where an item stands: an item right after its twin
(the first banks put the sound twin first, its flawed twin next), whether its
twin came earlier, the parity of its position. The dead-code reader answers
PROBLEM when the code imports a name it never uses, binds a name it never
reads, or overwrites a value before reading it: debris a hurried edit leaves,
which the first banks left in flawed twins only.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from bakeoff.review.audit.view import Example, Visible

EXEMPT_NAMES = frozenset({"reported", "_"})  # `reported` is read by the harness; `_` is unused by convention


class AdjacentTwinReader:
    """PROBLEM for an item right after an item with the same claim, OK otherwise."""

    name = "order: right after its twin"
    contrastive = False

    def fit(self, examples: Sequence[Example]) -> None:
        pass

    def answer(self, items: Sequence[Visible], file: Sequence[Visible]) -> list[bool]:
        return [item.position > 0 and file[item.position - 1].claim == item.claim for item in items]


class FirstSeenReader:
    """OK for the first item of its claim in the file, PROBLEM for the later one (twins share a claim)."""

    name = "order: its twin came earlier"
    contrastive = True

    def fit(self, examples: Sequence[Example]) -> None:
        pass

    def answer(self, items: Sequence[Visible], file: Sequence[Visible]) -> list[bool]:
        first: dict[str, int] = {}
        for entry in file:
            first.setdefault(entry.claim, entry.position)
        return [first[item.claim] < item.position for item in items]


class ParityReader:
    """Learns whether even or odd positions hold more PROBLEM items, and answers by parity."""

    name = "order: parity of the position"
    contrastive = False

    def __init__(self) -> None:
        self._even_is_problem = True

    def fit(self, examples: Sequence[Example]) -> None:
        even = [e.problem for e in examples if e.visible.position % 2 == 0]
        odd = [e.problem for e in examples if e.visible.position % 2 == 1]
        self._even_is_problem = _share(even) >= _share(odd)

    def answer(self, items: Sequence[Visible], file: Sequence[Visible]) -> list[bool]:
        return [(item.position % 2 == 0) == self._even_is_problem for item in items]


def _share(flags: list[bool]) -> float:
    return sum(flags) / len(flags) if flags else 0.5


class DeadCodeReader:
    """PROBLEM when the code holds an unused import, a name never read, or a value overwritten unread."""

    name = "dead code"
    contrastive = False

    def fit(self, examples: Sequence[Example]) -> None:
        pass

    def answer(self, items: Sequence[Visible], file: Sequence[Visible]) -> list[bool]:
        return [bool(dead_code(item.code)) for item in items]


def _loads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _stores(node: ast.AST) -> set[str]:
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    names |= {n.name for n in ast.walk(node) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    for imported in (n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))):
        names |= {(alias.asname or alias.name).split(".")[0] for alias in imported.names}
    return names


def dead_code(code: str) -> list[str]:
    """What a dead-code reader finds: 'unread NAME' and 'overwritten NAME' notes, in order of the code."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    read_anywhere = _loads(tree)
    found = [f"unread {name}" for name in sorted(_stores(tree) - read_anywhere - EXEMPT_NAMES)]
    # Straight-line pass over the top-level statements: a value stored and stored again before any read.
    # Calling a function of the snippet reads whatever that function's body reads.
    bodies = {f.name: _loads(f) for f in tree.body if isinstance(f, ast.FunctionDef)}
    unread: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef):  # its body runs when called, on its own names
            loaded, stored = set(), {statement.name}
        else:
            loaded, stored = _loads(statement), _stores(statement)
        for called in loaded & set(bodies):
            loaded |= bodies[called]
        unread -= loaded
        found += [f"overwritten {name}" for name in sorted(unread & stored - EXEMPT_NAMES)]
        unread |= stored
    for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
        used = _loads(function)
        found += [f"unread argument {a.arg}" for a in function.args.args if a.arg not in used and a.arg != "_"]
    return found
