"""What sandboxed code writes while the hidden-input gate is open is undone when it closes (issue 32, row 14):
new files go, changed and removed ones come back, links are never followed, holes stay holes."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

from bakeoff.taskapi.hidden_inputs import GatedFolder
from bakeoff.taskapi.rollback import rolled_back


def _state(folder: Path) -> dict[str, tuple]:
    """Every entry's kind, mode, owner and content (a link's target), by path."""
    found = {}
    for path in sorted(folder.rglob("*")):
        info = os.lstat(path)
        if path.is_symlink():
            what = ("link", os.readlink(path))
        elif path.is_dir():
            what = ("folder",)
        else:
            what = ("file", path.read_bytes())
        found[path.relative_to(folder).as_posix()] = (*what, oct(info.st_mode), info.st_uid, info.st_gid)
    return found


def _workspace(tmp_path: Path, outside: Path) -> Path:
    workspace = tmp_path / "workspace"
    (workspace / "pkg").mkdir(parents=True)
    (workspace / "train.py").write_text("print('train')\n")
    (workspace / "pkg" / "model.bin").write_bytes(b"weights")
    os.chmod(workspace / "pkg" / "model.bin", 0o640)
    os.chown(workspace / "train.py", 65534, 65534)  # the sandbox's user owns what it wrote: it must again
    (workspace / "up").symlink_to(outside)
    return workspace


def test_everything_written_while_open_is_undone(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "host.txt").write_text("host")
    workspace = _workspace(tmp_path, outside)
    deps = tmp_path / "deps"
    deps.mkdir()
    before, deps_before = _state(workspace), _state(deps)
    with rolled_back([workspace, deps]):
        (workspace / "stash.txt").write_text("hidden rows")
        with open(workspace / "train.py", "a") as source:
            source.write("# hidden rows\n")
        (workspace / "pkg" / "model.bin").unlink()
        os.rename(workspace / "pkg", workspace / "moved")
        (workspace / "up" / "written_through.txt").write_text("x")  # through the link: outside, not ours to undo
        (deps / "stash.txt").write_text("hidden rows")
    assert _state(workspace) == before
    assert _state(deps) == deps_before
    assert (outside / "host.txt").read_text() == "host", "nothing behind a link is followed or removed"
    assert [p.name for p in tmp_path.iterdir() if ".gate-" in p.name] == [], "the copies aside are gone"


def test_a_sparse_file_is_copied_aside_as_holes(tmp_path):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    with open(workspace / "sparse.bin", "wb") as handle:
        handle.truncate(1 << 30)  # 1 GiB that holds no block
        handle.write(b"head")
    copies_seen = []
    with rolled_back([workspace]):
        copies_seen = [p for p in tmp_path.iterdir() if ".gate-" in p.name]
        copy = copies_seen[0] / "sparse.bin"
        assert copy.stat().st_size == 1 << 30 and copy.stat().st_blocks * 512 < 1 << 20
    assert (workspace / "sparse.bin").stat().st_size == 1 << 30
    assert (workspace / "sparse.bin").read_bytes()[:4] == b"head"


def test_a_special_file_is_left_out_and_a_fifo_never_blocks(tmp_path):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    os.mkfifo(workspace / "pipe")
    (workspace / "kept.txt").write_text("kept")
    with rolled_back([workspace]):
        pass
    assert sorted(p.name for p in workspace.iterdir()) == ["kept.txt"]


class _Kept:
    def __init__(self, *folders: Path) -> None:
        self.folders = list(folders)

    spec = SimpleNamespace(mounts=())

    def writable_folders(self) -> list[Path]:
        return self.folders


def test_a_gate_shows_a_probe_input_at_the_grading_path_and_undoes_what_was_written(tmp_path):
    holdout, variant = tmp_path / "holdout.csv", tmp_path / "flag_one.csv"
    holdout.write_text("id,moderator_flagged\n1,0\n")
    variant.write_text("id,moderator_flagged\n1,1\n")
    gate = GatedFolder(tmp_path / "gate", ((holdout, "holdout.csv"),))
    gate.prepare()
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    with gate.opened(_Kept(workspace), {"holdout.csv": variant}):
        assert sorted(p.name for p in gate.folder.iterdir()) == ["holdout.csv"]
        assert (gate.folder / "holdout.csv").read_text() == variant.read_text()
        (workspace / "copied.csv").write_text((gate.folder / "holdout.csv").read_text())
    assert list(gate.folder.iterdir()) == [] and list(workspace.iterdir()) == []


def test_what_did_not_change_keeps_its_inode_so_a_mount_on_it_stays(tmp_path):
    """A sandbox mounts the visible data onto files in the workspace (data/train.csv): replacing one, even by an
    equal copy, would detach the mount from every later command."""
    workspace = tmp_path / "workspace"
    (workspace / "data").mkdir(parents=True)
    (workspace / "data" / "train.csv").write_text("")  # the mount point, as the host sees it
    (workspace / "model.bin").write_bytes(b"weights")
    inodes = {name: os.stat(workspace / name).st_ino for name in ("data", "data/train.csv", "model.bin")}
    with rolled_back([workspace]):
        (workspace / "data" / "notes.txt").write_text("hidden rows")
        (workspace / "model.bin").write_bytes(b"changed")
    assert {name: os.stat(workspace / name).st_ino for name in ("data", "data/train.csv")} == {
        name: inodes[name] for name in ("data", "data/train.csv")}
    assert sorted(p.name for p in (workspace / "data").iterdir()) == ["train.csv"]
    assert (workspace / "model.bin").read_bytes() == b"weights"


def test_a_mount_point_made_while_open_stays(tmp_path):
    """A driver may make the point it mounts the visible data on only at its first command, while the gate is
    open: that point is never removed, or the mount would be gone from every later command."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    with rolled_back([workspace], mount_points=["data/train.csv"]):
        (workspace / "data").mkdir()
        (workspace / "data" / "train.csv").write_text("")
        (workspace / "data" / "stash.txt").write_text("hidden rows")
    assert sorted(p.relative_to(workspace).as_posix() for p in workspace.rglob("*")) == ["data", "data/train.csv"]


def test_a_mount_point_folder_made_where_sandboxed_code_left_a_link_stays(tmp_path):
    """train.py replaced data/ with a link; a driver makes the mount point's folder again while the gate is open:
    putting back must not read the link as the folder's copy (it was FileNotFoundError, the run harness_failed)."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    os.symlink("/nonexistent", workspace / "data")
    with rolled_back([workspace], mount_points=["data/train.csv"]):
        os.unlink(workspace / "data")
        (workspace / "data").mkdir()
        (workspace / "data" / "train.csv").write_text("")
        (workspace / "data" / "stash.txt").write_text("hidden rows")
    assert sorted(p.relative_to(workspace).as_posix() for p in workspace.rglob("*")) == ["data", "data/train.csv"]
