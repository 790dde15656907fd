"""durable.TrustedRoot: harness-owned paths reached without following links, against links, folders where files
should be, pipes, a tree too deep to recurse into, and a folder swapped for a link while it is being used."""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

import pytest

import durable
from durable import LinkInTheWay, NotAFolder, NotARegularFile, OutsideTheRoot, TrustedRoot, UnsafePath


@pytest.fixture
def scene(tmp_path):
    """A root, and an outside folder holding a file that nothing done under the root may touch."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("host data")
    return TrustedRoot(root), root, outside


def untouched(outside: Path) -> bool:
    return sorted(os.listdir(outside)) == ["secret.txt"] and (outside / "secret.txt").read_text() == "host data"


def test_plain_files_and_folders_work_as_usual(scene):
    trusted, root, _ = scene
    trusted.write_bytes("a/b/c.txt", b"one")
    assert (root / "a" / "b" / "c.txt").read_bytes() == b"one" and trusted.read_bytes("a/b/c.txt") == b"one"
    trusted.write_json("a/r.json", {"x": [1, 2]})
    assert trusted.read_json("a/r.json") == {"x": [1, 2]}
    assert trusted.read_bytes("a/b/c.txt", limit=1) == b"on"  # limit + 1 bytes, so "over the limit" shows
    assert trusted.remove_file("a/b/c.txt") and not trusted.remove_file("a/b/c.txt")
    assert not trusted.remove_file("nowhere/x")
    assert trusted.remove_tree("a") and not (root / "a").exists() and not trusted.remove_tree("a")
    assert trusted.lstat("a") is None


@pytest.mark.parametrize("where", ["parent", "last"])
def test_a_link_is_never_followed_to_read_write_or_remove(scene, where):
    trusted, root, outside = scene
    if where == "parent":
        (root / "out").symlink_to(outside)
        relative = "out/secret.txt"
    else:
        (root / "out").mkdir()
        (root / "out" / "secret.txt").symlink_to(outside / "secret.txt")
        relative = "out/secret.txt"
    with pytest.raises(LinkInTheWay):
        trusted.read_bytes(relative)
    with pytest.raises(LinkInTheWay):
        trusted.open_file(relative, os.O_RDWR | os.O_CREAT | os.O_TRUNC)
    with pytest.raises(LinkInTheWay):
        trusted.copy_out(relative, root.parent / "copied")
    if where == "parent":
        with pytest.raises(LinkInTheWay):
            trusted.write_bytes(relative, b"overwritten")
        with pytest.raises(LinkInTheWay):
            trusted.remove_file(relative)
        assert trusted.remove_tree(relative)  # the link stands in for the folder: it goes, nothing behind it
        assert not (root / "out").is_symlink()
    else:
        trusted.write_bytes(relative, b"ours")  # the link itself is replaced by our file
        assert (root / "out" / "secret.txt").read_bytes() == b"ours" and not (root / "out" / "secret.txt").is_symlink()
        (root / "out" / "secret.txt").unlink()
        (root / "out" / "secret.txt").symlink_to(outside / "secret.txt")
        assert trusted.remove_file(relative) and not os.path.lexists(root / "out" / "secret.txt")
    assert untouched(outside) and not (root.parent / "copied").exists()


def test_folders_where_files_should_be_and_files_where_folders_should_be(scene):
    trusted, root, _ = scene
    (root / "dir.json").mkdir()
    (root / "file").write_text("x")
    for attempt in (lambda: trusted.read_bytes("dir.json"), lambda: trusted.write_bytes("dir.json", b"{}"),
                    lambda: trusted.remove_file("dir.json"), lambda: trusted.open_file("dir.json", os.O_RDWR)):
        with pytest.raises(NotARegularFile):
            attempt()
    with pytest.raises(NotAFolder):
        trusted.read_bytes("file/x")
    with pytest.raises(NotAFolder):
        trusted.write_bytes("file/x", b"")
    assert (root / "dir.json").is_dir() and (root / "file").read_text() == "x"


def test_a_planted_pipe_neither_blocks_nor_is_read(scene):
    trusted, root, _ = scene
    os.mkfifo(root / "result.json")
    with pytest.raises(NotARegularFile):
        trusted.read_bytes("result.json")
    with pytest.raises(NotARegularFile):
        trusted.open_file("result.json", os.O_WRONLY)
    assert trusted.remove_file("result.json") and not os.path.lexists(root / "result.json")


def test_ensure_folder_replaces_links_and_files_in_the_way(scene):
    trusted, root, outside = scene
    (root / "work").symlink_to(outside)
    (root / "other").write_text("in the way")
    trusted.ensure_folder("work/.bakeoff")
    trusted.ensure_folder("other/deeper")
    assert (root / "work" / ".bakeoff").is_dir() and not (root / "work").is_symlink()
    assert (root / "other" / "deeper").is_dir() and untouched(outside)


def test_paths_outside_the_root_are_refused(scene):
    trusted, _, _ = scene
    for relative in ("../outside/secret.txt", "/etc/passwd", "a/../../x", "."):
        with pytest.raises(OutsideTheRoot):
            trusted.read_bytes(relative)
    with pytest.raises(OutsideTheRoot):
        trusted.remove_tree(".")


def test_a_tree_nested_past_any_recursion_limit_is_removed(scene):
    trusted, root, outside = scene
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    os.mkdir("deep", dir_fd=fd)
    for _ in range(3000):  # as sandboxed code can, one level at a time (no path is ever this long)
        child = os.open("deep" if _ == 0 else "d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = child
        os.mkdir("d", dir_fd=fd)
        os.symlink(str(outside), "link", dir_fd=fd)
    os.close(fd)
    assert trusted.remove_tree("deep") and os.listdir(root) == [] and untouched(outside)


def test_copy_out_copies_the_file_that_was_checked(scene, tmp_path):
    trusted, root, _ = scene
    (root / "p.csv").write_text("id,label\n1,0\n")
    trusted.copy_out("p.csv", tmp_path / "kept" / "p.csv")
    assert (tmp_path / "kept" / "p.csv").read_text() == "id,label\n1,0\n"


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_folder_swapped_for_a_link_while_in_use_is_never_followed(scene):
    """Race: a thread keeps exchanging `root/work` with a link to the outside folder (one atomic renameat2 each
    time), as a process left running in the sandbox could, while the harness reads, writes and removes through it.
    It found that remove_tree let IsADirectoryError out when a link it was removing had just become a folder again:
    every step now looks again, a bounded number of times, and ends in UnsafePath."""
    import durable.folder

    trusted, root, outside = scene
    (root / "work").mkdir()
    (root / "work" / "secret.txt").write_text("decoy")
    (root / "swap").symlink_to(outside)
    stop = threading.Event()
    swaps = [0]

    def swap() -> None:
        while not stop.is_set():
            try:
                durable.folder._exchange(root / "swap", root / "work")
                swaps[0] += 1
            except FileNotFoundError:  # remove_tree took away the link standing in for work/: put one back
                for name in ("swap", "work"):
                    try:
                        os.symlink(outside, root / name)
                    except FileExistsError:  # there already, or made meanwhile by a write through work/
                        pass

    thread = threading.Thread(target=swap, daemon=True)
    thread.start()
    outcomes = {"ok": 0, "refused": 0, "missing": 0}
    try:
        for index in range(3000):
            try:
                operation = index % 6
                if operation == 0:
                    trusted.read_bytes("work/secret.txt")
                elif operation == 1:
                    trusted.write_bytes("work/secret.txt", b"overwritten")
                elif operation == 2:
                    trusted.remove_file("work/secret.txt")
                elif operation == 3:
                    os.close(trusted.open_file("work/secret.txt", os.O_RDWR | os.O_CREAT | os.O_TRUNC))
                elif operation == 4:
                    trusted.remove_tree("work/secret.txt")
                else:
                    trusted.ensure_folder("work/sub")  # replaces a link at work/ by a real folder
                outcomes["ok"] += 1
            except UnsafePath:
                outcomes["refused"] += 1
            except FileNotFoundError:
                outcomes["missing"] += 1
            assert untouched(outside), (index, outcomes)
    finally:
        stop.set()
        thread.join()
    assert swaps[0] > 10 and outcomes["ok"] > 0 and outcomes["refused"] > 0, (swaps, outcomes)


def test_errors_are_durable_errors_and_survive_pickling():
    import pickle

    error = LinkInTheWay("x is a link", path="x")
    again = pickle.loads(pickle.dumps(error))
    assert isinstance(again, durable.DurableError) and again.path == "x" and str(again) == "x is a link"


# --- pinned by mutation testing (bench/mutation.py): the readers' caps and the writer's bytes, exactly -----------


def test_read_head_holds_at_most_the_limit_and_reports_the_claimed_size(scene):
    trusted, root, outside = scene
    (root / "log.txt").write_bytes(b"abcdef")
    assert trusted.read_head("log.txt", 4) == durable.FileHead(b"abcd", 6) and trusted.read_head("log.txt", 4).cut
    assert trusted.read_head("log.txt", 6) == durable.FileHead(b"abcdef", 6) and not trusted.read_head("log.txt", 6).cut
    assert trusted.read_head("log.txt", -3) == durable.FileHead(b"", 6)
    with open(root / "sparse.bin", "wb") as handle:  # a sparse file claims every byte of its size
        handle.truncate(1 << 30)
    assert trusted.read_head("sparse.bin", 2) == durable.FileHead(b"\0\0", 1 << 30)


def test_read_text_replaces_bad_bytes_and_notes_a_cut(scene):
    trusted, root, outside = scene
    (root / "out.txt").write_bytes(b"ok \xff done")
    assert trusted.read_text("out.txt", 100) == "ok \ufffd done"
    assert trusted.read_text("out.txt", 2) == "ok\n[... cut: the file holds 9 bytes in all ...]\n"


def test_write_json_writes_indented_json_with_a_newline_and_the_mode(scene):
    trusted, root, outside = scene
    trusted.write_json("a/r.json", {"b": 1, "a": [2]}, mode=0o640)
    assert (root / "a" / "r.json").read_text() == '{\n  "b": 1,\n  "a": [\n    2\n  ]\n}\n'
    assert (root / "a" / "r.json").stat().st_mode & 0o777 == 0o640
    trusted.write_json("r.json", {"b": 1, "a": 2}, indent=None, sort_keys=True)
    assert (root / "r.json").read_text() == '{"a": 2, "b": 1}\n' and (root / "r.json").stat().st_mode & 0o777 == 0o644
    assert repr(trusted) == f"TrustedRoot({str(root)!r})"


def test_copy_out_takes_a_file_of_exactly_the_limit_and_refuses_one_byte_more(scene, tmp_path):
    trusted, root, outside = scene
    (root / "sub").mkdir()
    (root / "sub" / "model.bin").write_bytes(b"12345")
    trusted.copy_out("sub/model.bin", tmp_path / "copy.bin", limit=5)
    assert (tmp_path / "copy.bin").read_bytes() == b"12345"
    with pytest.raises(durable.FileTooLarge) as raised:
        trusted.copy_out("sub/model.bin", tmp_path / "again.bin", limit=4)
    assert str(raised.value) == f"{root}/sub/model.bin holds 5 bytes, over the 4 a reader takes"
    assert raised.value.path == "sub/model.bin" and not (tmp_path / "again.bin").exists()


def test_read_json_applies_the_callers_limits_and_names_the_file_and_lstat_looks_in_the_folder(scene, tmp_path):
    trusted, root, outside = scene
    (root / "sub").mkdir()
    (root / "sub" / "deep.json").write_text("[[[1]]]")
    assert trusted.read_json("sub/deep.json") == [[[1]]]
    with pytest.raises(durable.JSONTooDeep, match=f"^{re.escape(str(root))}/sub/deep.json nests 3 levels deep"):
        trusted.read_json("sub/deep.json", limits=durable.JsonLimits(max_depth=2))
    assert trusted.lstat("sub/deep.json").st_size == 7 and trusted.lstat("sub/none.json") is None
    trusted.copy_out("sub/deep.json", tmp_path / "copy.json", mode=0o600)
    assert (tmp_path / "copy.json").stat().st_mode & 0o777 == 0o600


def test_each_refusal_names_the_path_and_what_was_found_there(scene):
    trusted, root, outside = scene
    (root / "a").mkdir()
    (root / "file.txt").write_text("x")
    (root / "link").symlink_to(outside)
    cases = [
        (lambda: trusted.read_bytes("link"), LinkInTheWay, "link", "link is a symbolic link, not a file: not followed"),
        (lambda: trusted.read_bytes("link/secret.txt"), LinkInTheWay, "link",
         "link is a symbolic link, not a folder: not followed"),
        (lambda: trusted.read_bytes("file.txt/x"), NotAFolder, "file.txt", "file.txt is not a folder"),
        (lambda: trusted.read_bytes("a"), NotARegularFile, "a", "a is not a regular file"),
        (lambda: trusted.remove_file("a"), NotARegularFile, "a", "a is a folder, not a file"),
    ]
    for action, error, path, message in cases:
        with pytest.raises(error) as raised:
            action()
        assert (raised.value.path, str(raised.value)) == (path, f"{root}/{message}")
    assert untouched(outside)


def test_a_file_with_the_longest_name_is_written_through_its_temporary_name(scene):
    trusted, root, outside = scene
    trusted.write_bytes("n" * 250 + ".txt", b"data")
    assert (root / ("n" * 250 + ".txt")).read_bytes() == b"data" and len(os.listdir(root)) == 1


def test_a_write_over_a_folder_is_refused_by_name_and_leaves_no_temporary_file(scene):
    trusted, root, outside = scene
    (root / "out").mkdir()
    with pytest.raises(NotARegularFile) as raised:
        trusted.write_bytes("out", b"data")
    assert (raised.value.path, str(raised.value)) == ("out", f"{root}/out is not a regular file")
    assert os.listdir(root) == ["out"] and os.listdir(root / "out") == []


def test_open_file_makes_missing_parents_only_when_asked(scene):
    trusted, root, outside = scene
    with pytest.raises(FileNotFoundError):
        trusted.open_file("new/f.txt", os.O_WRONLY | os.O_CREAT)
    assert not (root / "new").exists()
    os.close(trusted.open_file("new/f.txt", os.O_WRONLY | os.O_CREAT, 0o600, create_parents=True))
    assert (root / "new" / "f.txt").is_file() and (root / "new" / "f.txt").stat().st_mode & 0o777 == 0o600
