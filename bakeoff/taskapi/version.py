"""A task's version: one hash of what decides its scores, its spec folder (statement, prompts, settings,
template) and the code that grades it. Batches are pooled into one leaderboard only when it agrees."""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Iterable
from pathlib import Path


def module_files(name: str) -> tuple[Path, list[Path]]:
    """(the folder it lives in, its source files): a module's own file, or every .py file of a package."""
    found = importlib.util.find_spec(name)
    if found is None or found.origin is None:
        return Path(), []
    origin = Path(found.origin)
    if found.submodule_search_locations:  # a package: all of it
        return origin.parent, sorted(p for p in origin.parent.rglob("*.py") if "__pycache__" not in p.parts)
    return origin.parent, [origin]


def tree_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def task_version(name: str, spec_folder: Path, grader_modules: Iterable[str]) -> str:
    """sha256 over the task's name, every file of its spec folder and of its grader modules, each by its path
    relative to its root (so a checkout elsewhere gives the same version) and its bytes."""
    digest = hashlib.sha256(name.encode())
    parts: list[tuple[str, Path]] = [(f"spec/{p.relative_to(spec_folder).as_posix()}", p) for p in tree_files(spec_folder)]
    for module in sorted(grader_modules):
        root, files = module_files(module)
        parts += [(f"{module}/{p.relative_to(root).as_posix()}", p) for p in files]
    for label, path in parts:
        digest.update(b"\0" + label.encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()
