"""The code before and after each repair turn, read from the run's own git history.

The runner commits once per stage, so the history holds the code after implement and
after repair. With one repair turn (the default) that pair is the turn's before and
after. With several turns, the code between two turns is rebuilt from the turn's
answer: the files it wrote are taken from its fenced blocks and kept only when their
sha256 matches what the harness recorded writing, so a rebuilt file is the one written.

The repository is written by sandboxed code, and a batch folder may come from anyone, so it is read as
hostile: only its objects are read, through a clean repository of the host's own that borrows them
(hostgit.borrowed_objects): its config (a promisor remote's command, fsmonitor, hooks) is never read,
nothing missing is fetched, and only commit ids the records name are read.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bakeoff.answers import extract_files
from bakeoff.records import RepairTurn
from bakeoff.runner import hostgit
from bakeoff.runner.hostgit import HostGitError

_SHA = re.compile(r"^[0-9a-f]{40}$")
MAX_FILE_BYTES = 2_000_000  # a larger file is named in the diff as too large, not read


@dataclass(frozen=True)
class FileDiff:
    path: str
    lines: tuple[str, ...]  # unified diff lines (without the --- / +++ header)
    note: str | None = None  # why there is no line diff (binary, too large)


@dataclass(frozen=True)
class TurnDiff:
    turn: int
    files: tuple[FileDiff, ...]
    source: str  # where before/after came from, in words
    available: bool = True


def tree_at(repo: Path, sha: str | None) -> dict[str, bytes] | None:
    """Every tracked file's bytes at commit `sha`, or None when the history cannot be read."""
    if not sha or not _SHA.match(sha):
        return None
    try:
        with hostgit.borrowed_objects(Path(repo)) as git_dir:
            if git_dir is None:
                return None
            return _files(git_dir, sha)
    except HostGitError:
        return None


def _files(git_dir: Path, sha: str) -> dict[str, bytes]:
    """The blobs of commit `sha` by path (links and submodules are not code the model wrote); a missing blob is
    left out (never fetched), a larger one than MAX_FILE_BYTES named as too large."""
    files: dict[str, bytes] = {}
    wanted: list[tuple[str, str]] = []
    for name, blob, mode, size in hostgit.tree_listing(git_dir, sha):
        if mode == "120000":
            continue
        path = os.fsencode(name).decode("utf-8", errors="replace")  # a name for the page, not for the disk
        if size is not None and size > MAX_FILE_BYTES:
            files[path] = b"\0too large"
        else:
            wanted.append((path, blob))

    def take(index: int, data: bytes) -> None:
        files[wanted[index][0]] = data

    hostgit.read_blobs(git_dir, [blob for _, blob in wanted], take)
    return files


def _text(content: bytes) -> str | None:
    if b"\0" in content[:8192]:
        return None
    return content.decode("utf-8", errors="replace")


def diff_trees(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> tuple[FileDiff, ...]:
    diffs = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        old_text, new_text = _text(old or b""), _text(new or b"")
        if old_text is None or new_text is None:
            diffs.append(FileDiff(path, (), "binary or too large: changed, not shown line by line"))
            continue
        lines = difflib.unified_diff(old_text.splitlines(), new_text.splitlines(),
                                     "a/" + path if old is not None else "/dev/null",
                                     "b/" + path if new is not None else "/dev/null", lineterm="", n=3)
        diffs.append(FileDiff(path, tuple(list(lines)[2:])))
    return tuple(diffs)


def _apply_answer(tree: dict[str, bytes], turn: RepairTurn) -> bool:
    """Apply the files a turn wrote (from its answer, checked by sha256); False if one cannot be rebuilt."""
    written = [f for f in turn.files_written if f.sha256]
    answer = turn.completion.text if turn.completion is not None else ""
    blocks = extract_files(answer)
    for entry in written:
        content = blocks.get(entry.path)
        data = content.encode("utf-8") if content is not None else None
        if data is None or hashlib.sha256(data).hexdigest() != entry.sha256:
            return False
        tree[entry.path] = data
    return True


def repair_diffs(repo: Path, implement_sha: str | None, repair_sha: str | None,
                 turns: Sequence[RepairTurn]) -> tuple[TurnDiff, ...]:
    """One diff per recorded repair turn (see the module's docstring for where each side comes from)."""
    if not turns:
        return ()
    start, end = tree_at(repo, implement_sha), tree_at(repo, repair_sha)
    if start is None or end is None:
        why = "the run's git history cannot be read (no repo/.git, or the stage commits are missing)"
        return tuple(TurnDiff(t.turn or i, (), why, available=False) for i, t in enumerate(turns, 1))
    results, current, rebuilt = [], dict(start), True
    for index, turn in enumerate(turns, 1):
        number = turn.turn or index
        last = index == len(turns)
        if last and rebuilt:
            source = "git: the implement commit to the repair commit" if index == 1 else \
                "rebuilt code after the previous turn to the repair commit"
            results.append(TurnDiff(number, diff_trees(current, end), source))
            break
        nxt = dict(current)
        if rebuilt and _apply_answer(nxt, turn):
            results.append(TurnDiff(number, diff_trees(current, nxt), "the files this turn wrote (sha256 checked)"))
            current = nxt
        else:
            rebuilt = False
            results.append(TurnDiff(number, (), "this turn's files cannot be rebuilt with matching sha256; "
                                                "the stage diff (implement to repair commit) is shown with the last turn",
                                    available=False))
            if last:
                break
    if not rebuilt:
        results[-1] = TurnDiff(results[-1].turn, diff_trees(start, end),
                               "git: the implement commit to the repair commit (all turns together)")
    return tuple(results)
