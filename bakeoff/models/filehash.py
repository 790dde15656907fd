"""sha256 of model files, cached by path, size and modification time.

Hashing a 7 GB GGUF takes tens of seconds; a batch loads the same files over
and over (also across restarts), so the digest is kept in a small JSON file.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import durable

CHUNK_BYTES = 4 * 1024 * 1024


def default_cache_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bakeoff" / "sha256.json"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def _cache_key(path: Path) -> str:
    stat = path.stat()
    return f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"


def _load(cache_file: Path) -> dict:
    try:
        data = durable.read_json(cache_file)
    except (OSError, durable.UntrustedJSON):
        return {}
    return data if isinstance(data, dict) else {}


def _store(cache_file: Path, data: dict) -> None:
    """Write atomically so a crash never leaves half a cache behind."""
    try:
        durable.write_text(cache_file, durable.dumps(data, indent=0, sort_keys=True), mode=durable.PRIVATE)
    except OSError:
        return  # a read-only home or a full disk only costs a re-hash next time


def file_sha256(path: Path, cache_file: Path | None = None) -> str:
    """The file's sha256, from the cache when path, size and mtime are unchanged."""
    path = Path(path)
    cache_file = cache_file or default_cache_file()
    key = _cache_key(path)
    cache = _load(cache_file)
    if key in cache:
        return cache[key]
    digest = _sha256(path)
    cache[key] = digest
    _store(cache_file, cache)
    return digest
