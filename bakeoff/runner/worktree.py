"""What of a run's workspace is committed: the regular files sandboxed code left, nothing else.

Sandboxed code writes the workspace, so its contents are the model's doing and must never
wedge the harness. `git add -A` fails on an empty nested `.git`, commits links (a `data`
link committed once comes back on every reset), and obeys a `.gitignore` the model can
empty. So the harness walks the tree itself, without following links, and hands git the
exact list of files: regular files outside the harness's own folders, minus what the
model's own `.gitignore` ignores. Links, nested repositories and special files are
skipped and reported. hostgit commits the list as the files' bytes (no attribute applies).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from bakeoff.runner import hostgit

# The harness's folders at the workspace root: never committed, whatever .gitignore says.
HARNESS_FOLDERS = frozenset({".git", "data", ".bakeoff"})
# Caches the harness never wants in a submission's history, wherever they are.
HARNESS_IGNORED_NAMES = frozenset({"__pycache__"})
SKIPPED_KEPT = 50  # a record names this many skipped paths at most (and counts the rest)


@dataclass(frozen=True)
class Skipped:
    path: str
    kind: str  # "link", "nested_repository", "special_file"

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "kind": self.kind}


@dataclass(frozen=True)
class TreeScan:
    files: tuple[str, ...]  # relative POSIX paths of regular files to commit
    skipped: tuple[Skipped, ...]


def scan_tree(root: Path) -> TreeScan:
    """The regular files under `root` the harness may commit, and what it skipped (links are never followed)."""
    files: list[str] = []
    skipped: list[Skipped] = []
    pending = [""]
    while pending:
        relative = pending.pop()
        folder = root / relative if relative else root
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            skipped.append(Skipped(relative, "special_file"))
            continue
        if relative and any(e.name == ".git" for e in entries):
            skipped.append(Skipped(relative, "nested_repository"))
            continue
        for entry in entries:
            path = f"{relative}/{entry.name}" if relative else entry.name
            if (not relative and entry.name in HARNESS_FOLDERS) or entry.name in HARNESS_IGNORED_NAMES:
                continue
            mode = entry.stat(follow_symlinks=False).st_mode
            if stat.S_ISLNK(mode):
                skipped.append(Skipped(path, "link"))
            elif stat.S_ISDIR(mode):
                pending.append(path)
            elif stat.S_ISREG(mode):
                files.append(path)
            else:
                skipped.append(Skipped(path, "special_file"))
    return TreeScan(tuple(sorted(files)), tuple(sorted(skipped, key=lambda s: s.path)))


def not_ignored(root: Path, files: tuple[str, ...]) -> list[str]:
    """`files` less those the model's own .gitignore ignores."""
    ignored = hostgit.ignored(root, files)
    return [f for f in files if f not in ignored]


def skipped_summary(skipped: tuple[Skipped, ...]) -> dict:
    """What a stage record keeps of the skipped paths: the first few, and how many there were."""
    return {"count": len(skipped), "paths": [s.to_dict() for s in skipped[:SKIPPED_KEPT]]}
