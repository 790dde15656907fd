"""The no-follow paths' race branches, made to happen on demand: a folder that keeps being swapped for a link (and
back) while it is removed, a moved subfolder gone before its turn, a file written into a folder being emptied, an
entry gone between the look and the removal, a link put back as often as ensure_folder removes it. A real race
reaches them only by chance (tests/test_durable_nofollow.py races a thread against them), so the mutation bench saw
them survive (docs/mutation.md: `_remove_folder` 2, 11, 17-22, 35, 45; `_step` 32-41; `_remove_step` 23, 26, 27,
29-38; `remove_tree` 4, 5, 8-11, 23, 30-32; `_parts` 7, 8, 11). Here the other party is a stand-in for `os` inside
durable.nofollow that acts between the code's own calls, on the real file system."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from types import SimpleNamespace

import pytest

import durable.nofollow
from durable import LinkInTheWay, OutsideTheRoot, TrustedRoot
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
    names.update({name: getattr(stand_in, name) for name in ("open", "unlink", "rename", "lstat")
                  if hasattr(stand_in, name)})
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


class Filler:
    """`os` for durable.nofollow, except that someone writes one more file into the folder being emptied right after
    the remover's first unlink there."""

    def __init__(self) -> None:
        self.filled = False

    def unlink(self, path, *, dir_fd=None):
        os.unlink(path, dir_fd=dir_fd)
        if not self.filled:
            self.filled = True
            os.close(os.open("late", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=dir_fd))


def test_a_file_written_into_a_folder_while_it_is_emptied_is_removed_too(scene, monkeypatch):
    fd, root, outside = scene
    (root / "tree").mkdir()
    (root / "tree" / "f").write_text("x")
    filler = Filler()
    monkeypatch.setattr(durable.nofollow, "os", _as_os(filler))
    _remove_folder(fd, "tree")  # the folder is looked at again until a look finds it empty
    assert filler.filled and os.listdir(root) == [] and _untouched(outside)


def test_remove_tree_goes_down_through_real_folders_and_removes_only_the_last(scene, monkeypatch):
    _, root, outside = scene
    (root / "a" / "b" / "c").mkdir(parents=True)
    (root / "a" / "b" / "c" / "f").write_text("x")
    (root / "a" / "keep").write_text("y")
    monkeypatch.chdir(outside)  # a step that opened its folder anywhere but in the one above would not find it
    trusted = TrustedRoot(root)
    assert trusted.remove_tree("a/b") is True
    assert os.listdir(root / "a") == ["keep"] and _untouched(outside)
    assert trusted.remove_tree("a/b/c") is False and trusted.remove_tree("a/missing/x") is False


class Remover:
    """`os` for durable.nofollow, except that someone else removes `name` between the remover's look and its unlink."""

    def __init__(self, name: str) -> None:
        self.name = name

    def unlink(self, path, *, dir_fd=None):
        if path == self.name:
            os.unlink(path, dir_fd=dir_fd)
        return os.unlink(path, dir_fd=dir_fd)


def test_an_entry_gone_between_the_look_and_the_removal_was_not_removed_by_remove_tree(scene, monkeypatch):
    _, root, outside = scene
    (root / "f").write_text("x")
    monkeypatch.setattr(durable.nofollow, "os", _as_os(Remover("f")))
    assert TrustedRoot(root).remove_tree("f") is False
    assert os.listdir(root) == [] and _untouched(outside)


class FolderThenLink:
    """`os` for durable.nofollow, except that `name` is a folder whenever the remover looks at it and a link to
    `target` whenever it opens it, for `rounds` opens; after those it stays a link."""

    def __init__(self, name: str, target: Path, rounds: int) -> None:
        self.name, self.target, self.rounds = name, target, rounds

    def lstat(self, path, *, dir_fd=None, follow_symlinks=False):
        if path == self.name and self.rounds > 0 and stat.S_ISLNK(os.lstat(path, dir_fd=dir_fd).st_mode):
            os.unlink(path, dir_fd=dir_fd)
            os.mkdir(path, dir_fd=dir_fd)
        return os.lstat(path, dir_fd=dir_fd)

    def open(self, path, flags, mode=0o777, *, dir_fd=None):
        if path == self.name and self.rounds > 0:
            self.rounds -= 1
            os.rmdir(path, dir_fd=dir_fd)
            os.symlink(self.target, path, dir_fd=dir_fd)
        return os.open(path, flags, mode, dir_fd=dir_fd)


@pytest.mark.parametrize("above", ["", "d/e/"])
def test_a_folder_on_the_way_that_keeps_turning_into_a_link_is_given_up_on_by_name(scene, monkeypatch, above):
    _, root, outside = scene
    (root / above).mkdir(parents=True, exist_ok=True)
    (root / above / "a").symlink_to(outside)
    monkeypatch.setattr(durable.nofollow, "os", _as_os(FolderThenLink("a", outside, rounds=_REPLACE_TRIES)))
    monkeypatch.chdir(outside)  # the look that names the error must be in the root, not in the working folder
    with pytest.raises(LinkInTheWay) as refused:
        TrustedRoot(root).remove_tree(f"{above}a/secret.txt")
    assert (refused.value.path, str(refused.value)) == (
        f"{above}a", f"{root}/{above}a is a symbolic link, not a folder: not followed")
    assert _untouched(outside)


def test_remove_tree_refuses_the_root_itself_and_a_path_outside_it_by_name(scene):
    _, root, _ = scene
    (root / "f").write_text("x")
    for relative in ("", ".", "./"):
        with pytest.raises(OutsideTheRoot) as refused:
            TrustedRoot(root).remove_tree(relative)
        assert (refused.value.path, str(refused.value)) == (".", "the root itself is not removed through TrustedRoot")
    for relative in ("../outside", "/etc", "a/../../x"):  # and a path that leaves it, as every method refuses it
        with pytest.raises(OutsideTheRoot) as refused:
            TrustedRoot(root).remove_tree(relative)
        assert (refused.value.path, str(refused.value)) == (relative, f"{relative} is not a plain path under the root")
    assert os.listdir(root) == ["f"]


class Relinker:
    """`os` for durable.nofollow, except that a link `name` to `target` is put back right after each of the first
    `rounds` unlinks of it."""

    def __init__(self, name: str, target: Path, rounds: int) -> None:
        self.name, self.target, self.rounds = name, target, rounds

    def unlink(self, path, *, dir_fd=None):
        os.unlink(path, dir_fd=dir_fd)
        if path == self.name and self.rounds > 0:
            self.rounds -= 1
            os.symlink(self.target, path, dir_fd=dir_fd)


@pytest.mark.parametrize("above", ["", "d/e/"])
def test_a_link_put_back_as_often_as_ensure_folder_removes_it_is_given_up_on_by_name(scene, monkeypatch, above):
    _, root, outside = scene
    (root / above).mkdir(parents=True, exist_ok=True)
    (root / above / "a").symlink_to(outside)
    relinker = Relinker("a", outside, rounds=_REPLACE_TRIES)
    monkeypatch.setattr(durable.nofollow, "os", _as_os(relinker))
    monkeypatch.chdir(outside)  # the look that names the error must be in the folder above, not the working folder
    with pytest.raises(LinkInTheWay) as refused:
        TrustedRoot(root).ensure_folder(f"{above}a/b")
    assert relinker.rounds == 0 and (refused.value.path, str(refused.value)) == (
        f"{above}a", f"{root}/{above}a is a symbolic link, not a folder: not followed")
    assert _untouched(outside)
