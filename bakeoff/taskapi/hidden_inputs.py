"""The hidden-input gate: the one place that decides when a submission's code may see what it is graded on.

The hidden inputs of a corpus (the holdout's features, the hidden experiments, the hidden configurations) and
the probes' inputs made from them are shown to the sandbox at HOLDOUT_DIR, and only there: a probe's input takes
the very path and name a grading input has, so a submission cannot tell a probe from grading by its path.

A batch run's sandbox lives for all its stages, and what the submission's code prints or writes outside the
hidden step goes back to the model. So a run mounts an empty folder of its own at HOLDOUT_DIR (GatedFolder),
and a task opens the gate only around the steps that need the hidden inputs (the prediction on the holdout,
the hidden configurations, the probes), never around a visible step whose output returns to the model. While
it is open, whatever the submission's code writes into the folders the sandbox keeps is undone when it closes
(bakeoff.taskapi.rollback): nothing written while the inputs were visible reaches a prompt, the workspace or
git. The task copies the hidden step's output out (host side) before the gate closes. A bind mount shows its
folder live, so the folder is filled and emptied in place, never replaced.

A probe is staged by the same gate: `opened(sandbox, shown)` fills the folder exactly as grading does and puts
each probe input in place of the grading file of the same name (refusing a name grading has not), so the
folder's listing, the path, the name and the command are grading's; only the changed file's content differs,
and a probe makes that look like a real input (same row count and order, a changed column holding real
values). `bakeoff score` and `bakeoff analyze` give their sandboxes a GatedFolder of their own, so their
probes are staged the same way. AlwaysMounted (the inputs mounted as they are) stays for code that grades
without probing.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Protocol

from bakeoff.taskapi.rollback import rolled_back
from durable.nofollow import TrustedRoot
from sandbox.base import Mount, Sandbox
from sandbox.paths import HOLDOUT_DIR

FOLDER_MODE = 0o755  # the sandbox's user must be able to read it (the drivers refuse an unreadable input)


class HiddenInputs(Protocol):
    def opened(self, sandbox: Sandbox, shown: Mapping[str, Path] | None = None) -> AbstractContextManager[None]:
        """While inside, the hidden inputs are in `sandbox` at HOLDOUT_DIR (with `shown`: a probe's inputs, each
        host file in place of the hidden input of that name); what its code writes meanwhile is undone afterwards."""
        ...


class AlwaysMounted:
    """The inputs are mounted as they are for the sandbox's whole life (`bakeoff score`: nothing to open, and
    nothing of the sandbox goes back to a model)."""

    @contextmanager
    def opened(self, sandbox: Sandbox, shown: Mapping[str, Path] | None = None) -> Iterator[None]:
        if shown is not None:
            raise ValueError("a probe's inputs are shown through a GatedFolder, at the grading inputs' path")
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
    def opened(self, sandbox: Sandbox, shown: Mapping[str, Path] | None = None) -> Iterator[None]:
        inside = [m.sandbox_path for m in sandbox.spec.mounts if not m.sandbox_path.startswith("/")]
        with rolled_back(sandbox.writable_folders(), mount_points=inside):  # the workspace comes first
            try:
                self._fill()
                for relative, source in (shown or {}).items():
                    self._replace(Path(relative), Path(source))
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

    def _replace(self, relative: Path, source: Path) -> None:
        """A probe's input in place of the grading file `relative`: a name grading does not show is refused (a
        probe's input must be where, and named as, a grading input is)."""
        target = self.folder / relative
        if relative.is_absolute() or ".." in relative.parts or target.is_symlink() or not target.is_file():
            raise ValueError(f"a probe's input {relative} is not a hidden input's name under {HOLDOUT_DIR}")
        target.unlink()
        self._copy(source, relative)

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
