"""The capped scratch filesystem (sandbox.scratch): real loop and tmpfs mounts, made and removed here, as root."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from sandbox.errors import SandboxError
from sandbox.scratch import FOLDER, LOOP, TMPFS, ScratchFs

MIB = 1024**2


def mounted_at(path: Path) -> list[str]:
    """The host's mount table lines whose mount point is `path`."""
    with open("/proc/self/mountinfo") as handle:
        return [line for line in handle if line.split()[4] == str(path)]


def fill(folder: Path) -> int:
    """Write 1 MiB blocks until the filesystem refuses; the bytes written."""
    written = 0
    with open(folder / "filler", "wb") as out:
        try:
            while written < 1024 * MIB:
                out.write(b"x" * MIB)
                out.flush()
                os.fsync(out.fileno())
                written += MIB
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    return written


@pytest.mark.parametrize("kind", [LOOP, TMPFS])
def test_a_capped_filesystem_refuses_writes_past_its_size_and_is_removed(tmp_path, kind):
    fs = ScratchFs.create(tmp_path, 32 * MIB, kinds=(kind,))
    try:
        assert (fs.kind, fs.capped) == (kind, True)
        assert len(mounted_at(fs.path)) == 1
        cap = fs.disk_cap()
        written = fill(fs.path)
        assert 16 * MIB <= written <= 32 * MIB
        assert cap.used_bytes() >= written - MIB
        assert 16 * MIB <= cap.cap_bytes <= 32 * MIB  # the room there was, reported as the cap
    finally:
        fs.close()
    assert mounted_at(fs.path) == []
    assert not fs.root.exists()
    fs.close()  # twice is harmless


def test_the_loop_image_is_sparse_until_written(tmp_path):
    with ScratchFs.create(tmp_path, 512 * MIB, kinds=(LOOP,)) as fs:
        image = fs.root / "scratch.ext4"
        assert image.stat().st_size == 512 * MIB
        assert image.stat().st_blocks * 512 < 64 * MIB


def test_a_plain_folder_is_the_last_resort_and_has_no_cap(tmp_path):
    with ScratchFs.create(tmp_path, 32 * MIB, kinds=(FOLDER,)) as fs:
        assert (fs.kind, fs.capped, fs.disk_cap()) == (FOLDER, False, None)
        assert fs.path.is_dir() and mounted_at(fs.path) == []
    assert not fs.root.exists()


def test_an_unknown_kind_is_refused_and_nothing_is_left(tmp_path):
    with pytest.raises(SandboxError, match="unknown scratch filesystem kind"):
        ScratchFs.create(tmp_path, 32 * MIB, kinds=("zfs",))
    assert list(tmp_path.iterdir()) == []


def test_when_no_kind_works_the_error_says_why_and_nothing_is_left(tmp_path):
    with pytest.raises(SandboxError, match="loop: .*at least|needs at least"):
        ScratchFs.create(tmp_path, MIB, kinds=(LOOP,))
    assert list(tmp_path.iterdir()) == []
