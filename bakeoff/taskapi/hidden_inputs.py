"""The hidden inputs of a corpus (the holdout's features, the hidden experiments) as a run's sandbox sees them.

A run's sandbox lives for all its stages, and what the model's own code prints in explore goes back to the
model. So a batch run mounts an empty folder of its own where the hidden inputs belong and fills it only while
the harness grades (the check, the evaluate probes), emptying it again afterwards: model-written code that
runs outside a check finds the folder empty. A bind mount shows its folder live, so the folder is filled and
emptied in place, never replaced. `bakeoff score` and `bakeoff analyze` only grade: there the inputs are
mounted as they are (AlwaysMounted).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Protocol

from durable.nofollow import TrustedRoot
from sandbox.base import Mount
from sandbox.paths import HOLDOUT_DIR

FOLDER_MODE = 0o755  # the sandbox's user must be able to read it (the drivers refuse an unreadable input)


class HiddenInputs(Protocol):
    def opened(self) -> AbstractContextManager[None]:
        """While inside, the hidden inputs are in the sandbox at their targets."""
        ...


class AlwaysMounted:
    """The inputs are mounted as they are for the sandbox's whole life (nothing to open)."""

    @contextmanager
    def opened(self) -> Iterator[None]:
        yield


class GatedFolder:
    """An empty host folder mounted at HOLDOUT_DIR, filled with copies of the hidden parts while opened.

    `parts` are `(host path, path under HOLDOUT_DIR)`: "" for a folder whose files go in at the top, a file
    name for a single file. Copies, not links: nothing the sandbox is shown is the corpus's own inode.
    """

    def __init__(self, folder: Path, parts: tuple[tuple[Path, str], ...]) -> None:
        self.folder = Path(folder)
        self.parts = parts

    def mount(self) -> Mount:
        return Mount(self.folder, HOLDOUT_DIR, read_only=True)

    def prepare(self) -> None:
        """Make the folder (empty) before the sandbox mounts it."""
        self.folder.mkdir(mode=FOLDER_MODE, exist_ok=True)
        os.chmod(self.folder, FOLDER_MODE)
        self._empty()

    @contextmanager
    def opened(self) -> Iterator[None]:
        try:
            self._fill()
            yield
        finally:
            self._empty()

    def _fill(self) -> None:
        for source, under in self.parts:
            if source.is_dir():
                for path in sorted(p for p in source.rglob("*") if p.is_file()):
                    self._copy(path, Path(under) / path.relative_to(source))
            else:
                self._copy(source, Path(under or source.name))

    def _copy(self, source: Path, relative: Path) -> None:
        target = self.folder / relative
        for parent in reversed(relative.parents[:-1]):
            (self.folder / parent).mkdir(mode=FOLDER_MODE, exist_ok=True)
        shutil.copyfile(source, target, follow_symlinks=False)
        os.chmod(target, 0o644)

    def _empty(self) -> None:
        """Remove what is in the folder (never through a link), keeping the folder: the mount points at it."""
        root = TrustedRoot(self.folder)
        for name in os.listdir(self.folder):
            root.remove_tree(name)


def hidden_parts(layout_mounts: tuple[tuple[str, str], ...], hidden: tuple[str, ...],
                 folder: Path) -> tuple[tuple[Path, str], ...]:
    """The hidden parts of a corpus as GatedFolder's parts: each target under HOLDOUT_DIR, or refused."""
    parts = []
    for part, target in layout_mounts:
        if part not in hidden:
            continue
        if target != HOLDOUT_DIR and not target.startswith(HOLDOUT_DIR + "/"):
            raise ValueError(f"hidden part {part} is mounted at {target}, outside {HOLDOUT_DIR}")
        parts.append((folder / part, target[len(HOLDOUT_DIR):].lstrip("/")))
    return tuple(parts)
