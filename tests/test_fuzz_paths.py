"""durable.TrustedRoot fuzzed: a plain tree of folders and files and an operation on a path it suits, then one
change: an entry planted as a pipe or a link (to the outside, to each other, dangling), another path, an extra
entry. Property: the operation succeeds or raises a named UnsafePath (or FileNotFoundError for what is not there),
and nothing outside the root is ever read, written or removed; the test asserts its reach (fuzz_support.Reach)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from fuzz_support import FUZZ, Reach
from hypothesis import given
from hypothesis import strategies as st

from durable import TrustedRoot, UnsafePath, UntrustedJSON

NAMES = ("a", "b", ".bakeoff", "r.json")
paths = st.lists(st.sampled_from(NAMES), min_size=1, max_size=3).map("/".join)
kinds = st.sampled_from(["folder", "file", "pipe", "link_out", "link_in", "link_dangling"])
operations = st.sampled_from(["read", "read_json", "write", "open_rw", "remove_file", "remove_tree", "ensure_folder",
                              "lstat", "copy_out"])


def _plant(root: Path, outside: Path, relative: str, kind: str) -> None:
    path = root / relative
    prefixes = [root.joinpath(*Path(relative).parts[:n]) for n in range(1, len(Path(relative).parts))]
    if any(prefix.is_symlink() for prefix in prefixes) or os.path.lexists(path):
        return  # planting through a link would write outside, into a pipe would block: the test must do neither
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "folder":
            path.mkdir()
        elif kind == "file":
            path.write_text('"inside"')
        elif kind == "pipe":
            os.mkfifo(path)
        elif kind == "link_out":
            path.symlink_to(outside)
        elif kind == "link_in":
            path.symlink_to(root / "a")
        else:
            path.symlink_to(root / "nowhere")
    except OSError:
        pass  # something else is already there, or a parent is not a folder: the tree is what it is


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


INSIDE = b'"inside"'  # every file planted inside the root: valid JSON, so that read_json has something to read
# A plain tree, and for each operation the paths in it that the operation suits.
PLAIN_TREE = [("a", "folder"), ("a/r.json", "file"), ("b", "folder"), ("b/a", "folder"), ("r.json", "file")]
SUITED = {"read": ["a/r.json", "r.json"], "read_json": ["a/r.json", "r.json"], "write": ["a/r.json", "b/r.json", "b/b"],
          "open_rw": ["r.json", "b/r.json"], "remove_file": ["a/r.json", "r.json"], "remove_tree": ["a", "b", "b/a"],
          "ensure_folder": ["b/a", "a/b", ".bakeoff"], "lstat": ["a", "a/r.json", "b/a"], "copy_out": ["a/r.json", "r.json"]}
TREE_CHANGES = ("none", "none", "kind", "kind", "path", "extra")


@st.composite
def operations_on_trees(draw: st.DrawFn) -> tuple[list[tuple[str, str]], str, str, str]:
    """(a tree, an operation, its path, the change): PLAIN_TREE and a path the operation suits, then one change."""
    tree, operation = list(PLAIN_TREE), draw(operations)
    relative, change = draw(st.sampled_from(SUITED[operation])), draw(st.sampled_from(TREE_CHANGES))
    if change == "kind":  # one entry (the path's own or another's) a pipe or a link
        which = draw(st.integers(0, len(tree) - 1))
        tree[which] = (tree[which][0], draw(st.sampled_from(["pipe", "link_out", "link_in", "link_dangling"])))
    elif change == "path":
        relative = draw(paths)
    elif change == "extra":
        tree.insert(draw(st.integers(0, len(tree))), (draw(paths), draw(kinds)))
    return tree, operation, relative, change


@FUZZ
@given(case=operations_on_trees())
def _fuzz_trusted_root(reach: Reach, case) -> None:
    tree, operation, relative, change = case
    base = Path(tempfile.mkdtemp(prefix="fuzz-paths-"))
    try:
        root, outside = base / "root", base / "outside"
        root.mkdir()
        outside.mkdir()
        (outside / "a").mkdir()
        (outside / "r.json").write_text('{"secret": true}')
        (outside / "a" / "r.json").write_text("[1]")
        before = _snapshot(outside)
        for planted, kind in tree:
            _plant(root, outside, planted, kind)
        trusted = TrustedRoot(root)
        try:
            _run(trusted, operation, relative, base / "copied")
        except (UnsafePath, FileNotFoundError, UntrustedJSON) as exc:  # UntrustedJSON: read_json of what is not JSON
            reach.saw(False, type(exc).__name__)
        else:
            reach.saw(True, change)
        assert _snapshot(outside) == before and sorted(os.listdir(outside)) == ["a", "r.json"]
        copied = base / "copied"
        assert not copied.exists() or copied.read_bytes() in (INSIDE, b"x")
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_any_tree_any_operation_is_done_or_refused_by_name_and_the_outside_is_untouched():
    reach = Reach("trusted root")
    _fuzz_trusted_root(reach)
    reach.check()


def _run(trusted: TrustedRoot, operation: str, relative: str, copied: Path) -> None:
    if operation == "read":
        assert trusted.read_bytes(relative) in (INSIDE, b"x")
    elif operation == "read_json":
        trusted.read_json(relative)
    elif operation == "write":
        trusted.write_bytes(relative, b"x")
    elif operation == "open_rw":
        os.close(trusted.open_file(relative, os.O_RDWR | os.O_CREAT))
    elif operation == "remove_file":
        trusted.remove_file(relative)
    elif operation == "remove_tree":
        trusted.remove_tree(relative)
    elif operation == "ensure_folder":
        trusted.ensure_folder(relative)
    elif operation == "lstat":
        trusted.lstat(relative)
    else:
        trusted.copy_out(relative, copied)
