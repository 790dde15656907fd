"""durable.TrustedRoot's no-follow paths at the edges the mutation bench found untested (docs/mutation.md): where a
refusal deep in a path says it stopped, the mode of a folder it makes whatever the umask, and the folder remover's
own guard for a link or a file standing where it expected a folder (reached through remove_tree only when the
folder is swapped mid-removal, so it is checked here on its own, as every layer of a guard is)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from durable import LinkInTheWay, NotAFolder, TrustedRoot
from durable.nofollow import FOLDER_MODE, _remove_folder


@pytest.fixture
def scene(tmp_path: Path) -> tuple[TrustedRoot, Path, Path]:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("host data")
    return TrustedRoot(root), root, outside


def untouched(outside: Path) -> bool:
    return sorted(os.listdir(outside)) == ["secret.txt"] and (outside / "secret.txt").read_text() == "host data"


def test_a_refusal_deep_in_a_path_names_the_path_up_to_the_part_that_is_wrong(scene):
    trusted, root, outside = scene
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "link").symlink_to(outside)
    (root / "a" / "file").write_text("x")
    with pytest.raises(LinkInTheWay) as link:
        trusted.read_bytes("a/b/link/secret.txt")
    assert (link.value.path, str(link.value)) == (
        "a/b/link", f"{root}/a/b/link is a symbolic link, not a folder: not followed")
    with pytest.raises(NotAFolder) as file:
        trusted.read_bytes("a/file/x/y")
    assert (file.value.path, str(file.value)) == ("a/file", f"{root}/a/file is not a folder")
    assert untouched(outside)


def test_a_folder_made_on_the_way_has_the_folder_mode_whatever_the_umask(scene):
    trusted, root, _ = scene
    old = os.umask(0)
    try:
        trusted.ensure_folder("made/here")
        trusted.write_bytes("also/made/f.txt", b"x")
    finally:
        os.umask(old)
    for folder in (root / "made", root / "made" / "here", root / "also", root / "also" / "made"):
        assert stat.S_IMODE(folder.stat().st_mode) == FOLDER_MODE, folder


def _root_fd(root: Path) -> int:
    return os.open(root, os.O_RDONLY | os.O_DIRECTORY)


def test_the_folder_remover_takes_away_a_link_or_file_in_a_folder_s_place_and_nothing_behind_it(scene):
    _, root, outside = scene
    (root / "link").symlink_to(outside)
    (root / "file").write_text("x")
    (root / "tree" / "sub" / "deeper").mkdir(parents=True)
    (root / "tree" / "sub" / "deeper" / "f").write_text("x")
    (root / "tree" / "g").write_text("y")
    fd = _root_fd(root)
    try:
        for name in ("link", "file", "tree", "never-there"):
            _remove_folder(fd, name)
    finally:
        os.close(fd)
    assert os.listdir(root) == [] and untouched(outside)


def test_the_folder_remover_lets_any_other_error_out(scene):
    _, root, _ = scene
    fd = _root_fd(root)
    try:
        with pytest.raises(OSError) as raised:
            _remove_folder(fd, "n" * 300)  # a name no file system takes: ENAMETOOLONG, not a link or a file
    finally:
        os.close(fd)
    assert raised.value.errno == errno.ENAMETOOLONG


def test_a_file_is_handed_out_blocking_though_it_was_opened_without_blocking(scene):
    trusted, root, _ = scene
    (root / "f").write_text("x")
    # O_NONBLOCK is there so that opening a FIFO cannot hang; the descriptor handed out is an ordinary one again.
    for flags in (os.O_RDONLY, os.O_RDWR):
        opened = trusted.open_file("f", flags)
        try:
            assert os.get_blocking(opened)
        finally:
            os.close(opened)
