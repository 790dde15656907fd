"""A task's data folder: what it holds (its task's CorpusLayout) and what a run's sandbox sees of it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bakeoff.errors import BakeoffError


class CorpusError(BakeoffError):
    """The corpus folder is missing a file the run needs."""


class CorpusFolderMissing(CorpusError):
    """A command was given a corpus folder that does not exist."""


@dataclass(frozen=True)
class CorpusLayout:
    """What a task's data folder holds, as its task (bakeoff.tasks) declares it.

    Paths are relative to the folder; a part may be a file or a folder of files. `mounts` are what a
    run's sandbox sees (read-only, `(part, path in the sandbox)`, relative targets under the workspace);
    a part holding the truth is in `required` only, never in `mounts`.
    """

    required: tuple[str, ...]
    mounts: tuple[tuple[str, str], ...]
    truth: tuple[str, ...] = ()  # the parts no sandbox ever sees and no submission may bring in (may be absent)
    hidden: tuple[str, ...] = ()  # mounted parts a batch run's sandbox sees only while the harness grades
    excerpt: str = "excerpt.txt"
    excerpt_of: str = "the data"  # the file the excerpt's lines come from, as the prompts name it
    manifest: str = "manifest.json"
    hint: str = "make one with `bakeoff generate`"


@dataclass(frozen=True)
class CorpusFiles:
    folder: Path
    layout: CorpusLayout

    @property
    def excerpt(self) -> Path:
        return self.folder / self.layout.excerpt

    @property
    def manifest(self) -> Path:
        return self.folder / self.layout.manifest

    def path(self, part: str) -> Path:
        return self.folder / part

    @classmethod
    def from_folder(cls, folder: Path, layout: CorpusLayout) -> CorpusFiles:
        files = cls(Path(folder).resolve(), layout)
        if not files.folder.is_dir():  # not "lacks train.csv, ...": the folder itself is not there
            raise CorpusFolderMissing(f"corpus folder {files.folder} does not exist; {layout.hint}")
        wanted = (*layout.required, layout.excerpt)
        missing = [part for part in wanted if not files.path(part).exists()]
        if missing:
            raise CorpusError(f"corpus folder {files.folder} lacks {', '.join(missing)}; {layout.hint}")
        return files

    def files(self) -> list[Path]:
        """Every file a run reads or is graded with (folders expanded, sorted), the excerpt and the manifest;
        a file that is absent is listed all the same (the fingerprint records it as absent)."""
        listed: list[Path] = []
        for part in (*self.layout.required, self.layout.excerpt, self.layout.manifest):
            path = self.path(part)
            found = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
            listed.extend(p for p in found if p not in listed)
        return listed

    def truth_files(self) -> tuple[Path, ...]:
        """Every file of the parts no sandbox sees (the truth parts, and required parts never mounted)."""
        mounted = {part for part, _ in self.layout.mounts}
        parts = [*self.layout.truth, *(p for p in self.layout.required if p not in mounted and p not in self.layout.truth)]
        found: list[Path] = []
        for part in parts:
            path = self.path(part)
            if path.is_dir():
                found.extend(sorted(p for p in path.rglob("*") if p.is_file()))
            elif path.is_file():
                found.append(path)
        return tuple(found)

    def relative(self, path: Path) -> str:
        return path.relative_to(self.folder).as_posix()

    def mounts(self) -> tuple[Any, ...]:
        """The read-only sandbox mounts of the visible data and the hidden inputs (never the truth)."""
        from sandbox.base import Mount

        return tuple(Mount(self.path(part), target, read_only=True) for part, target in self.layout.mounts)

    def visible_mounts(self) -> tuple[Any, ...]:
        """The mounts of the parts that are not hidden inputs (what a scaffold's own tool commands see)."""
        from sandbox.base import Mount

        return tuple(Mount(self.path(part), target, read_only=True) for part, target in self.layout.mounts
                     if part not in self.layout.hidden)

    def hidden_gate(self, folder: Path) -> Any:
        """A bakeoff.taskapi.hidden_inputs.GatedFolder at `folder` for this corpus's hidden inputs."""
        from bakeoff.taskapi.hidden_inputs import GatedFolder, hidden_parts

        return GatedFolder(folder, hidden_parts(self.layout.mounts, self.layout.hidden, self.folder))

    def manifest_sha256(self) -> str | None:
        import hashlib

        return hashlib.sha256(self.manifest.read_bytes()).hexdigest() if self.manifest.is_file() else None
