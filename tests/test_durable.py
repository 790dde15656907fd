"""durable: real writers killed with SIGKILL, real cut and damaged journal lines, real folder swaps."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import durable
import durable.folder
from durable import IfExists, Journal, JournalDamaged

REPO_ROOT = Path(__file__).resolve().parents[1]
BIG = 32 << 20  # large enough that a kill often lands inside the write or its fsync

WRITER = """
import sys
from pathlib import Path
import durable
path, size = Path(sys.argv[1]), int(sys.argv[2])
version = 0
while True:
    version += 1
    durable.write_bytes(path, bytes([version % 200 + 1]) * size)
    print(version, flush=True)
"""

PUBLISHER = """
import sys
from pathlib import Path
import durable
target, files = Path(sys.argv[1]), int(sys.argv[2])
version = 0
while True:
    version += 1
    with durable.staged_folder(target) as staging:
        for index in range(files):
            (staging / f"part-{index}.txt").write_text(str(version))
    print(version, flush=True)
"""

APPENDER = """
import sys
from pathlib import Path
import durable
journal, size = durable.Journal(Path(sys.argv[1])), int(sys.argv[2])
number = 0
while True:
    number += 1
    journal.append({"n": number, "pad": "x" * size})
    print(number, flush=True)
"""


def _start(script: str, *args: object) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(script), *map(str, args)], cwd=REPO_ROOT,
                            stdout=subprocess.PIPE, text=True)


def _kill_after(process: subprocess.Popen, finished: int, delay_s: float) -> None:
    """SIGKILL the child `delay_s` after it reported its `finished`th complete write."""
    assert process.stdout is not None
    for _ in range(finished):
        assert process.stdout.readline(), "the writer died on its own"
    time.sleep(delay_s)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL


def _leftovers(folder: Path, keep: str) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name != keep)


def test_a_writer_killed_mid_write_leaves_the_old_file_or_the_new_one_whole(tmp_path):
    path = tmp_path / "record.bin"
    durable.write_bytes(path, b"\x00" * BIG)
    caught_mid_write = 0
    for trial in range(24):
        process = _start(WRITER, path, BIG)
        _kill_after(process, 1 + trial % 2, (trial % 6) * 0.01)
        data = path.read_bytes()
        assert len(data) == BIG and data.count(data[:1]) == BIG, f"trial {trial}: a half-written file"
        stray = _leftovers(tmp_path, path.name)
        if stray:  # the kill came between the temporary file and the rename: the reader still saw a whole file
            caught_mid_write += 1
            assert all(name.startswith(f".{path.name}.") and name.endswith(".tmp") for name in stray), stray
            for name in stray:
                (tmp_path / name).unlink()
        if caught_mid_write >= 3:
            break
    assert caught_mid_write >= 1, "no kill landed inside a write: the test proved nothing"


def test_an_atomic_write_gets_exactly_its_mode_and_a_failed_one_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "deep" / "record.json"
    old_umask = os.umask(0o077)
    try:
        durable.write_json(path, {"a": 1})
        durable.write_text(tmp_path / "private.txt", "x", mode=durable.PRIVATE)
    finally:
        os.umask(old_umask)
    assert path.stat().st_mode & 0o777 == 0o644 and path.read_text() == '{\n  "a": 1\n}\n'
    assert (tmp_path / "private.txt").stat().st_mode & 0o777 == 0o600

    def refuse(*_args):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(durable.atomic.os, "replace", refuse)
    with pytest.raises(OSError, match="No space"):
        durable.write_json(path, {"a": 2})
    assert path.read_text() == '{\n  "a": 1\n}\n' and os.listdir(path.parent) == ["record.json"]


def test_a_lone_surrogate_is_written_as_its_escape_and_reads_back_the_same(tmp_path):
    path = tmp_path / "answer.json"
    durable.write_json(path, {"text": "a\udc80b"}, ensure_ascii=False)
    import json

    assert json.loads(path.read_bytes().decode("utf-8")) == {"text": "a\udc80b"}
    journal = Journal(tmp_path / "answers.jsonl")
    journal.append({"text": "c\ud800"}, ensure_ascii=False)
    assert journal.entries() == [{"text": "c\ud800"}]


def test_a_cut_last_line_is_dropped_on_read_and_the_next_append_is_clean(tmp_path):
    journal = Journal(tmp_path / "events.jsonl")
    journal.append({"event": "first"})
    journal.append({"event": "second"})
    with open(journal.path, "ab") as handle:
        handle.write(b'{"event": "thi')  # the kill came mid-write
    assert journal.entries() == [{"event": "first"}, {"event": "second"}]
    assert journal.path.read_bytes().endswith(b'"thi')  # reading never writes
    journal.append({"event": "third"})
    assert journal.path.read_bytes() == b'{"event": "first"}\n{"event": "second"}\n{"event": "third"}\n'
    assert journal.entries() == [{"event": "first"}, {"event": "second"}, {"event": "third"}]


def test_a_cut_first_line_is_dropped_and_a_whole_line_without_its_newline_counts_as_cut(tmp_path):
    path = tmp_path / "j.jsonl"
    path.write_bytes(b'{"complete": true}')  # whole JSON, but its newline never reached the disk
    journal = Journal(path)
    assert journal.entries() == []
    journal.append({"n": 1})
    assert path.read_bytes() == b'{"n": 1}\n'


def test_a_damaged_line_that_is_not_the_last_is_a_named_error(tmp_path):
    journal = Journal(tmp_path / "events.jsonl")
    journal.append({"event": "first"})
    with open(journal.path, "ab") as handle:
        handle.write(b'{"event": "sec\n')
    journal.append({"event": "third"})  # an append looks only at the tail: the damage stays where it is
    with pytest.raises(JournalDamaged, match=r"events.jsonl is damaged at line 2"):
        journal.entries()
    journal.path.write_bytes(b'{"event": "first"}\n\xff\xfe\n{"event": "third"}\n')
    with pytest.raises(JournalDamaged, match="line 2"):
        journal.entries()
    assert issubclass(JournalDamaged, durable.DurableError)


def test_a_follower_reads_each_whole_line_once_and_a_cut_one_when_it_is_whole(tmp_path):
    """entries_from: what a reader following the journal as it grows (the live display) sees at each look."""
    journal = Journal(tmp_path / "events.jsonl")
    assert journal.entries_from(0) == ([], 0)  # no file yet
    journal.append({"n": 1})
    first, offset = journal.entries_from(0)
    assert first == [{"n": 1}] and offset == journal.path.stat().st_size
    with open(journal.path, "ab") as handle:
        handle.write(b'{"n": 2')  # being written
    assert journal.entries_from(offset) == ([], offset)  # the cut line waits
    with open(journal.path, "ab") as handle:
        handle.write(b'}\n{"n": 3}\n')
    values, end = journal.entries_from(offset)
    assert values == [{"n": 2}, {"n": 3}] and end == journal.path.stat().st_size
    with open(journal.path, "ab") as handle:
        handle.write(b'{"n": \n{"n": 5}\n')
    with pytest.raises(JournalDamaged, match=rf"line 1 after byte {end}"):
        journal.entries_from(end)
    assert journal.entries_from(end, pass_over_damage=True) == ([{"n": 5}], journal.path.stat().st_size)


def test_a_json_value_at_the_start_of_a_longer_text_is_read_within_the_caps():
    """loads_prefix: a model's reply holds a call and then more text; the caps and rules of loads hold."""
    assert durable.loads_prefix('  {"a": [1, 2]} and then words', 2) == ({"a": [1, 2]}, 15)
    with pytest.raises(durable.JSONMalformed, match="the call is not valid JSON"):
        durable.loads_prefix('{"a": NaN}', what="the call")
    with pytest.raises(durable.JSONTooDeep):
        durable.loads_prefix("[" * 50 + "]" * 50, limits=durable.JsonLimits(max_depth=10))
    with pytest.raises(durable.JSONTooDeep):
        durable.loads_prefix("[" * 100_000)
    with pytest.raises(durable.JSONTooLarge):
        durable.loads_prefix("x" * 20 + "[1]", 20, limits=durable.JsonLimits(max_bytes=2))
    with pytest.raises(durable.JSONNumberTooLong):
        durable.loads_prefix("9" * 200)


def test_an_appender_killed_mid_line_leaves_whole_lines_and_the_next_append_is_clean(tmp_path):
    path = tmp_path / "events.jsonl"
    journal = Journal(path)
    for trial in range(6):
        before = len(journal.entries())
        process = _start(APPENDER, path, 4 << 20)
        _kill_after(process, 1, trial * 0.004)
        entries = journal.entries()
        assert [entry["n"] for entry in entries[before:]][:1] == [1]  # at least the reported line, whole
        assert all(entry["pad"] in ("", "x" * (4 << 20)) for entry in entries)
        journal.append({"n": 0, "pad": ""})
        after = journal.entries()
        assert after == [*entries, {"n": 0, "pad": ""}]
        assert path.read_bytes().count(b"\n") == len(after)  # no cut bytes left between the lines


def _folder(path: Path, files: dict[str, str]) -> None:
    path.mkdir(parents=True)
    for name, text in files.items():
        (path / name).write_text(text)


def _contents(path: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(path.iterdir())}


def test_publish_replaces_the_folder_whole_and_the_old_one_is_gone(tmp_path):
    target = tmp_path / "report"
    _folder(target, {"old.md": "old", "stale.csv": "1"})
    with durable.staged_folder(target) as staging:
        assert staging.parent == tmp_path and staging.name.startswith(".report.partial-")
        assert staging.stat().st_mode & 0o777 == 0o755
        (staging / "new.md").write_text("new")
    assert _contents(target) == {"new.md": "new"}
    assert os.listdir(tmp_path) == ["report"]  # neither the staging folder nor the old one is left
    assert target.stat().st_mode & 0o777 == 0o755


def test_a_failure_while_building_leaves_the_old_folder_and_no_staging(tmp_path):
    target = tmp_path / "corpus"
    _folder(target, {"train.csv": "old"})
    with pytest.raises(RuntimeError, match="generator failed"):
        with durable.staged_folder(target) as staging:
            (staging / "train.csv").write_text("half")
            raise RuntimeError("generator failed")
    assert _contents(target) == {"train.csv": "old"} and os.listdir(tmp_path) == ["corpus"]


def test_a_failure_mid_publish_leaves_the_old_folder(tmp_path, monkeypatch):
    """Where the kernel offers no atomic exchange, two renames: the second one failing puts the old folder back."""
    target = tmp_path / "export"
    _folder(target, {"a.json": "old"})
    real_rename = os.rename
    staging = durable.new_staging(target)
    (staging / "a.json").write_text("new")

    def rename(source, destination):
        if Path(source) == staging:
            raise OSError(errno.EIO, "Input/output error")
        real_rename(source, destination)

    monkeypatch.setattr(durable.folder, "_exchange", lambda first, second: False)
    monkeypatch.setattr(durable.folder.os, "rename", rename)
    with pytest.raises(OSError, match="Input/output"):
        with durable.publishing(staging, target):
            pass
    monkeypatch.undo()
    assert _contents(target) == {"a.json": "old"} and os.listdir(tmp_path) == ["export"]
    with durable.staged_folder(target) as again:  # and the fallback swap itself works
        (again / "b.json").write_text("new")
    monkeypatch.setattr(durable.folder, "_exchange", lambda first, second: False)
    with durable.staged_folder(target) as third:
        (third / "c.json").write_text("newer")
    assert _contents(target) == {"c.json": "newer"} and os.listdir(tmp_path) == ["export"]


def test_a_publisher_killed_at_any_point_leaves_one_whole_version(tmp_path):
    target = tmp_path / "corpus"
    _folder(target, {f"part-{index}.txt": "0" for index in range(40)})
    for trial in range(8):
        process = _start(PUBLISHER, target, 40)
        _kill_after(process, 1 + trial % 3, (trial % 4) * 0.003)
        versions = {p.read_text() for p in target.iterdir()}
        assert len(list(target.iterdir())) == 40 and len(versions) == 1, f"trial {trial}: {versions}"


def test_refuse_takes_over_an_empty_folder_and_fails_on_a_full_one(tmp_path):
    empty, full = tmp_path / "empty", tmp_path / "full"
    empty.mkdir()
    _folder(full, {"mine.txt": "keep"})
    with durable.staged_folder(empty, if_exists=IfExists.REFUSE) as staging:
        (staging / "x").write_text("x")
    assert _contents(empty) == {"x": "x"}
    with pytest.raises(OSError) as refused:
        with durable.staged_folder(full, if_exists=IfExists.REFUSE) as staging:
            (staging / "x").write_text("x")
    assert refused.value.errno in (errno.ENOTEMPTY, errno.EEXIST)
    assert _contents(full) == {"mine.txt": "keep"} and sorted(os.listdir(tmp_path)) == ["empty", "full"]


def test_keep_lets_the_folder_finished_first_win(tmp_path):
    target = tmp_path / "env"
    _folder(target, {"theirs": "1"})
    staging = durable.new_staging(target, mode=0o700)
    assert staging.stat().st_mode & 0o777 == 0o700
    (staging / "ours").write_text("2")
    assert durable.publish_folder(staging, target, IfExists.KEEP) is False
    assert _contents(target) == {"theirs": "1"} and os.listdir(tmp_path) == ["env"]
    assert durable.publish_folder(durable.new_staging(tmp_path / "fresh"), tmp_path / "fresh", IfExists.KEEP)


def test_move_file_puts_a_finished_file_in_place(tmp_path):
    incoming = tmp_path / "incoming"
    incoming.mkdir()
    (incoming / "w.whl").write_bytes(b"wheel")
    (tmp_path / "w.whl").write_bytes(b"older")
    durable.move_file(incoming / "w.whl", tmp_path / "w.whl")
    assert (tmp_path / "w.whl").read_bytes() == b"wheel" and not (incoming / "w.whl").exists()


# Killed at the two instants no timing can hit reliably: just after the exchange (the staging name then holds the old
# folder) and between the two renames of the fallback swap (the retired folder holds the old one).
KILLED_AFTER_EXCHANGE = """
import os, sys
from pathlib import Path
import durable, durable.folder
target = Path(sys.argv[1])
staging = durable.new_staging(target)
(staging / "new.txt").write_text("new")
assert durable.folder._exchange(staging, target)
os.kill(os.getpid(), 9)
"""
KILLED_BETWEEN_RENAMES = """
import os, sys
from pathlib import Path
import durable, durable.folder
target = Path(sys.argv[1])
staging = durable.new_staging(target)
real_rename = os.rename
def rename(source, destination):
    real_rename(source, destination)
    if Path(destination).name == "old":
        os.kill(os.getpid(), 9)
durable.folder.os.rename = rename
durable.folder._exchange = lambda first, second: False
durable.publish_folder(staging, target)
"""


def test_leftovers_of_killed_publishers_are_removed_by_the_next_publish(tmp_path):
    """Hostile input round 2, row 18: `.NAME.partial-*` and retired old folders stayed forever."""
    target = tmp_path / "corpus"
    _folder(target, {f"part-{index}.txt": "0" for index in range(40)})
    killed_while_building = 0
    for trial in range(12):
        process = _start(PUBLISHER, target, 40)
        _kill_after(process, 1 + trial % 3, (trial % 4) * 0.003)
        killed_while_building += any(".partial-" in name for name in os.listdir(tmp_path))
        if killed_while_building >= 2:
            break
    for script in (KILLED_AFTER_EXCHANGE, KILLED_BETWEEN_RENAMES):
        process = _start(script, target)
        process.wait()
        assert process.returncode == -signal.SIGKILL
    left = _leftovers(tmp_path, "corpus")
    assert any(".partial-" in name for name in left) and any(".old-" in name for name in left), left
    with durable.staged_folder(target) as staging:
        (staging / "final.txt").write_text("final")
    assert os.listdir(tmp_path) == ["corpus"] and _contents(target) == {"final.txt": "final"}


def test_a_live_publishers_staging_folder_is_left_alone(tmp_path):
    target = tmp_path / "env"
    building = durable.new_staging(target, label="building")  # ours, this process lives: not a leftover
    (building / "half").write_text("x")
    stranger = tmp_path / ".env.partial-XYZ"  # not a name durable gives: nobody's to judge
    stranger.mkdir()
    with durable.staged_folder(target) as staging:
        (staging / "a").write_text("a")
    assert sorted(os.listdir(tmp_path)) == sorted(["env", building.name, stranger.name])
    assert durable.publish_folder(building, target, IfExists.KEEP) is False
    assert sorted(os.listdir(tmp_path)) == sorted(["env", stranger.name])
