"""The folder remover's race branches, made to happen on demand: a folder that keeps being swapped for a link (and
back) while it is removed, and a moved subfolder that is gone before its turn. A real race reaches them only by
chance (tests/test_durable_nofollow.py races a thread against them), so the mutation bench saw them survive
(docs/mutation.md: `_remove_folder` 2, 11, 17-22, 35). Here the other party is a stand-in for `os` inside
durable.nofollow that does the swap between the remover's own calls, on the real file system."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

import durable.nofollow
from durable.nofollow import _REPLACE_TRIES, _remove_folder


class Swapper:
    """`os` for durable.nofollow, except that the entry `name` is a link to `target` whenever the remover opens it
    and a folder whenever it unlinks it, for `rounds` rounds (the remover's unlink then fails as on a folder)."""

    def __init__(self, name: str, target: Path, rounds: int) -> None:
        self.name, self.target, self.rounds = name, target, rounds

    def open(self, path, flags, mode=0o777, *, dir_fd=None):
        if path == self.name and self.rounds > 0:
            os.rmdir(path, dir_fd=dir_fd)  # the folder goes and a link takes its place
            os.symlink(self.target, path, dir_fd=dir_fd)
        return os.open(path, flags, mode, dir_fd=dir_fd)

    def unlink(self, path, *, dir_fd=None):
        if path == self.name and self.rounds > 0:
            self.rounds -= 1
            os.unlink(path, dir_fd=dir_fd)  # the link goes and a folder is back before the remover's own unlink
            os.mkdir(path, dir_fd=dir_fd)
        return os.unlink(path, dir_fd=dir_fd)


def _as_os(stand_in: object) -> SimpleNamespace:
    """The real os module's names with the stand-in's methods in place of its own."""
    names = {name: getattr(os, name) for name in dir(os) if not name.startswith("__")}
    names.update({name: getattr(stand_in, name) for name in ("open", "unlink", "rename") if hasattr(stand_in, name)})
    return SimpleNamespace(**names)


@pytest.fixture
def scene(tmp_path: Path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("host data")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    yield fd, root, outside
    os.close(fd)


def _untouched(outside: Path) -> bool:
    return os.listdir(outside) == ["secret.txt"] and (outside / "secret.txt").read_text() == "host data"


def test_a_folder_swapped_for_a_link_and_back_as_often_as_the_retries_allow_is_removed(scene, monkeypatch):
    fd, root, outside = scene
    (root / "x").mkdir()
    swapper = Swapper("x", outside, rounds=_REPLACE_TRIES)
    monkeypatch.setattr(durable.nofollow, "os", _as_os(swapper))
    _remove_folder(fd, "x")
    assert swapper.rounds == 0 and os.listdir(root) == [] and _untouched(outside)


def test_one_swap_more_than_the_retries_allow_lets_the_error_out(scene, monkeypatch):
    fd, root, outside = scene
    (root / "x").mkdir()
    swapper = Swapper("x", outside, rounds=_REPLACE_TRIES + 1)
    monkeypatch.setattr(durable.nofollow, "os", _as_os(swapper))
    with pytest.raises(IsADirectoryError):
        _remove_folder(fd, "x")
    assert swapper.rounds == 0 and _untouched(outside)


class Vanisher:
    """`os` for durable.nofollow, except that the second subfolder the remover moves up is removed by someone else
    right after the move, before its turn comes."""

    def __init__(self) -> None:
        self.moved: list[str] = []

    def rename(self, src, dst, *, src_dir_fd=None, dst_dir_fd=None):
        os.rename(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)
        self.moved.append(dst)
        if len(self.moved) == 2:
            os.rmdir(dst, dir_fd=dst_dir_fd)


def test_a_moved_subfolder_gone_before_its_turn_does_not_stop_the_others(scene, monkeypatch):
    fd, root, outside = scene
    for sub in ("a", "b", "c"):
        (root / "tree" / sub).mkdir(parents=True)
    (root / "tree" / "a" / "f").write_text("x")
    vanisher = Vanisher()
    monkeypatch.setattr(durable.nofollow, "os", _as_os(vanisher))
    monkeypatch.chdir(outside)  # a subfolder moved anywhere but beside the tree (here: the working folder) shows
    _remove_folder(fd, "tree")
    # The last one moved is the first one taken up again; it is gone, and the other two are removed all the same.
    assert len(vanisher.moved) == 3 and os.listdir(root) == [] and _untouched(outside)
