"""The code before and after each repair turn, read from the run's own git history.

The runner commits once per stage, so the history holds the code after implement and
after repair. With one repair turn (the default) that pair is the turn's before and
after. With several turns, the code between two turns is rebuilt from the turn's
answer: the files it wrote are taken from its fenced blocks and kept only when their
sha256 matches what the harness recorded writing, so a rebuilt file is the one written.

The repository is written by sandboxed code, so it is read as hostile: git is run on
the object store alone (--git-dir, no work tree, no index), with no user or system
configuration, no hooks and no fsmonitor, and only for commit ids the records name.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bakeoff.answers import extract_files
from bakeoff.records import RepairTurn

_SHA = re.compile(r"^[0-9a-f]{40}$")
_GIT_TIMEOUT_S = 60
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


def _git(git_dir: Path, *args: str, stdin: bytes | None = None) -> bytes | None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0", "HOME": os.devnull}
    command = ["git", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false",
               f"--git-dir={git_dir}", *args]
    try:
        done = subprocess.run(command, capture_output=True, env=env, timeout=_GIT_TIMEOUT_S, check=False, input=stdin)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def tree_at(repo: Path, sha: str | None) -> dict[str, bytes] | None:
    """Every tracked file's bytes at commit `sha`, or None when the history cannot be read."""
    git_dir = Path(repo) / ".git"
    if not sha or not _SHA.match(sha) or not git_dir.is_dir() or git_dir.is_symlink():
        return None
    listing = _git(git_dir, "ls-tree", "-r", "-z", "--long", sha)
    if listing is None:
        return None
    files: dict[str, bytes] = {}
    wanted: list[tuple[str, str]] = []
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, _, name = entry.partition(b"\t")
        mode, kind, blob, size = meta.split()[:4]
        if kind != b"blob" or mode == b"120000":
            continue  # links and submodules are not code the model wrote
        path = name.decode("utf-8", errors="replace")
        if size.isdigit() and int(size) > MAX_FILE_BYTES:
            files[path] = b"\0too large"
        else:
            wanted.append((path, blob.decode("ascii")))
    files.update(_blobs(git_dir, wanted))
    return files


def _blobs(git_dir: Path, wanted: list[tuple[str, str]]) -> dict[str, bytes]:
    """The blobs' bytes by path, read by one `git cat-file --batch` (one process per tree, not per file)."""
    if not wanted:
        return {}
    out = _git(git_dir, "cat-file", "--batch", stdin="".join(f"{blob}\n" for _, blob in wanted).encode())
    found: dict[str, bytes] = {}
    if out is None:
        return found
    position = 0
    for path, _ in wanted:
        end = out.find(b"\n", position)
        if end < 0:
            break
        header = out[position:end].split()
        if len(header) != 3 or not header[2].isdigit():
            position = end + 1  # "<id> missing": no content follows
            continue
        size = int(header[2])
        found[path] = out[end + 1:end + 1 + size]
        position = end + 1 + size + 1  # the content, then a newline
    return found


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
