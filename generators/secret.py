"""The secret that keys a corpus's hidden part.

A corpus is made from a seed and a secret. The visible data (what a model explores and trains on) comes
from the seed alone, so `--seed S` reproduces it; everything hidden (the spam holdout and its labels, the
A/B test's hidden experiments and their truth, the simulation's hidden configurations) comes from the seed and
the secret together. The generators are public and a seed is small enough to search, so without the secret a
submission could regenerate the hidden answers from what it is shown; with 256 bits drawn from the operating
system it cannot.

The secret lives only in the corpus folder's `secret.hex`, beside the answer key, and like the answer key it
is never mounted into a sandbox. The manifest records its id, a hash that names the secret without revealing
it, so that two corpora can be told apart (or matched) without reading either secret.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from generators.errors import GeneratorError

SECRET_FILE = "secret.hex"
SECRET_BYTES = 32  # drawn for a new corpus: 256 bits
MIN_SECRET_BYTES = 16  # accepted from a file: at least 128 bits
MAX_SECRET_FILE_BYTES = 4096
_ID_PREFIX = b"bakeoff corpus secret id\x00"

# A secret everyone knows, for figures anyone can reproduce (the README's calibration tables name it).
# A corpus made with it has no hidden part worth the name: never use it for a real bake-off.
PUBLIC_SECRET_HEX = hashlib.sha256(b"bakeoff public calibration secret, version 1").hexdigest()


class InvalidSecret(GeneratorError):
    """A secret file that cannot be used: unreadable, not hexadecimal, or shorter than 128 bits."""


@dataclass(frozen=True)
class Secret:
    """At least 128 bits that key the hidden part of a corpus.

    A generator whose data was first keyed by an id scheme and public secret of its own keeps them with a
    subclass that names both (generators.simulation.secret): its manifests' ids and its published figures stay.
    """

    value: bytes
    ID_PREFIX: ClassVar[bytes] = _ID_PREFIX
    PUBLIC_HEX: ClassVar[str] = PUBLIC_SECRET_HEX

    def __post_init__(self) -> None:
        if len(self.value) < MIN_SECRET_BYTES:
            raise InvalidSecret(f"a secret needs at least {MIN_SECRET_BYTES * 8} bits, got {len(self.value) * 8}")

    @classmethod
    def fresh(cls) -> Secret:
        """A new secret from the operating system's random source."""
        return cls(secrets.token_bytes(SECRET_BYTES))

    @classmethod
    def public(cls) -> Secret:
        return cls.from_hex(cls.PUBLIC_HEX)

    @classmethod
    def from_hex(cls, text: str) -> Secret:
        digits = "".join(text.split())
        try:
            value = bytes.fromhex(digits)
        except ValueError:
            raise InvalidSecret("a secret is written as hexadecimal digits (0-9, a-f)") from None
        return cls(value)

    @classmethod
    def read(cls, path: Path) -> Secret:
        """The secret written in `path` (as `write` writes it, or any file of hex digits)."""
        try:
            with open(path, "rb") as handle:
                raw = handle.read(MAX_SECRET_FILE_BYTES + 1)
        except OSError as exc:
            raise InvalidSecret(f"cannot read the secret file {path}: {exc.strerror or exc}") from None
        if len(raw) > MAX_SECRET_FILE_BYTES:
            raise InvalidSecret(f"{path} is over {MAX_SECRET_FILE_BYTES} bytes: not a secret file")
        try:
            text = raw.decode("ascii")
        except UnicodeDecodeError:
            raise InvalidSecret(f"{path} is not a secret file (not hexadecimal text)") from None
        try:
            return cls.from_hex(text)
        except InvalidSecret as exc:
            raise InvalidSecret(f"{path}: {exc}") from None

    def hex(self) -> str:
        return self.value.hex()

    @property
    def identity(self) -> str:
        """What the manifest records: names the secret, reveals nothing of it (the secret has 128+ bits)."""
        return "sha256:" + hashlib.sha256(self.ID_PREFIX + self.value).hexdigest()

    def seed_sequence(self, seed: int, purpose: str) -> np.random.SeedSequence:
        """The seed material of one hidden part: the corpus seed, this secret and what it is for."""
        tag = int.from_bytes(hashlib.sha256(purpose.encode("utf-8")).digest()[:8], "big")
        return np.random.SeedSequence([seed, int.from_bytes(self.value, "big"), tag])

    def write(self, folder: Path) -> Path:
        """`folder/secret.hex`, readable by its owner only (the folder is a staging folder: no atomic write needed)."""
        path = Path(folder) / SECRET_FILE
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="ascii") as handle:
            handle.write(self.hex() + "\n")
        return path


def corpus_secret(folder: Path) -> Secret | None:
    """The secret of an existing corpus folder, or None for a folder that has none."""
    path = Path(folder) / SECRET_FILE
    return Secret.read(path) if path.is_file() else None
