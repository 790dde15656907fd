"""A size-limited scratch filesystem for a sandbox's workspace.

Sandboxed code can fill whatever it can write. The root filesystem and
/tmp are capped by the drivers (read-only root; /tmp charged to the memory
cap), but the workspace is a host folder. A `ScratchFs` is a filesystem of
its own for that folder, of a fixed size, so a command that fills it gets
ENOSPC (`disk_full`) while the host's disk is untouched:

- `loop`: an ext4 image (a sparse file in the parent folder) loop-mounted:
  real disk, page cache the kernel can reclaim; preferred;
- `tmpfs`: a size-limited tmpfs when loop devices are not available
  (its pages are memory: what the sandbox writes there also counts against
  the memory cap of the cgroup that wrote it);
- `folder`: a plain folder, no cap, where mounting is not allowed (bakeoff
  not run as root). `capped` is False then; the limits are in docs/sandbox.md.

Because the filesystem is its own, a sandbox's /proc/self/mountinfo shows
folders of it (`/workspace` on `/dev/loopN` or `tmpfs`), never the host path
of the scratch folder. The whole thing is removed by `close` (unmounted,
image deleted); a second `close` does nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sandbox.errors import SandboxError

LOOP = "loop"
TMPFS = "tmpfs"
FOLDER = "folder"
KINDS = (LOOP, TMPFS, FOLDER)
IMAGE_NAME = "scratch.ext4"
MOUNT_NAME = "fs"
MIN_SIZE = 8 * 1024**2  # ext4 needs room for its own metadata


@dataclass(frozen=True)
class DiskCap:
    """Where a capped filesystem is mounted, how large it is, and what it held before any command ran."""

    mount_point: Path
    size_bytes: int
    kind: str  # LOOP or TMPFS (a FOLDER has no cap and no DiskCap)
    baseline_bytes: int = 0  # used right after it was made (filesystem metadata, copied inputs)
    cap_bytes: int = 0  # the cap as the caller stated it (the filesystem is a little larger: its own metadata)

    def used_bytes(self) -> int:
        """Bytes in use now, less the baseline."""
        info = os.statvfs(self.mount_point)
        return max(0, (info.f_blocks - info.f_bfree) * info.f_frsize - self.baseline_bytes)


class ScratchFs:
    """One capped filesystem under `parent`; `path` is the folder to put the workspace (and inputs) in."""

    def __init__(self, root: Path, path: Path, kind: str, size_bytes: int, image: Path | None) -> None:
        self.root = root
        self.path = path
        self.kind = kind
        self.size_bytes = size_bytes
        self._image = image
        self.closed = False

    @property
    def capped(self) -> bool:
        return self.kind != FOLDER

    @classmethod
    def create(cls, parent: Path, size_bytes: int, kinds: tuple[str, ...] = KINDS) -> ScratchFs:
        """The first of `kinds` that works here (a plain folder needs nothing and always works)."""
        if size_bytes < MIN_SIZE:
            raise SandboxError(f"a scratch filesystem needs at least {MIN_SIZE // 1024**2} MiB, not {size_bytes} bytes")
        unknown = [kind for kind in kinds if kind not in KINDS]
        if unknown or not kinds:
            raise SandboxError(f"unknown scratch filesystem kind {unknown!r}; choose from {', '.join(KINDS)}")
        root = Path(tempfile.mkdtemp(prefix="bakeoff-scratch-", dir=parent))
        mount_point = root / MOUNT_NAME
        mount_point.mkdir()
        reasons = []
        for kind in kinds:
            try:
                image = _mount(kind, root, mount_point, size_bytes)
            except (OSError, subprocess.CalledProcessError) as exc:
                reasons.append(f"{kind}: {_reason(exc)}")
                continue
            os.chmod(mount_point, 0o755)
            return cls(root, mount_point, kind, size_bytes, image)
        shutil.rmtree(root, ignore_errors=True)
        raise SandboxError("could not make a scratch filesystem: " + "; ".join(reasons))

    def disk_cap(self, cap_bytes: int | None = None) -> DiskCap | None:
        """What the sandbox needs to report the peak use (None for an uncapped folder).

        Call it once what is to be copied in is there: that much is the baseline, not the sandbox's use.
        `cap_bytes` is the cap to report (default: the room left now).
        """
        if not self.capped:
            return None
        info = os.statvfs(self.path)
        used = (info.f_blocks - info.f_bfree) * info.f_frsize
        room = info.f_bavail * info.f_frsize
        return DiskCap(self.path, self.size_bytes, self.kind, baseline_bytes=used, cap_bytes=cap_bytes or room)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.capped:
            # Lazy: a process still holding a file open (it should not) does not keep the mount alive for us.
            subprocess.run(["umount", "--lazy", str(self.path)], capture_output=True, check=False)
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> ScratchFs:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _mount(kind: str, root: Path, mount_point: Path, size_bytes: int) -> Path | None:
    if kind == FOLDER:
        return None
    if os.geteuid() != 0:
        raise PermissionError("mounting needs root")
    if kind == TMPFS:
        _run(["mount", "-t", "tmpfs", "-o", f"size={size_bytes},mode=0755,nosuid,nodev", "tmpfs", str(mount_point)])
        return None
    if kind == LOOP:
        image = root / IMAGE_NAME
        with open(image, "wb") as handle:
            handle.truncate(size_bytes)  # sparse: disk is used only as the sandbox writes
        # -m 0: no blocks reserved for root (commands run unprivileged); no journal: scratch, not records.
        _run(["mkfs.ext4", "-q", "-F", "-m", "0", "-O", "^has_journal", "-E", "root_owner=0:0", str(image)])
        _run(["mount", "-o", "loop,nosuid,nodev", str(image), str(mount_point)])
        return image
    raise AssertionError(kind)  # create() checked the kinds


def _run(argv: list[str]) -> None:
    if shutil.which(argv[0]) is None:
        raise FileNotFoundError(f"{argv[0]} is not installed")
    subprocess.run(argv, capture_output=True, text=True, check=True)


def _reason(exc: Exception) -> str:
    if isinstance(exc, subprocess.CalledProcessError):
        return (exc.stderr or exc.stdout or f"exit {exc.returncode}").strip()[-200:]
    return str(exc)
