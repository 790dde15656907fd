"""The secret that keys the simulation take-home's hidden configurations.

The visible examples come from the seed alone (`--seed S` reproduces them); the hidden configurations, their
seeds and so their truth come from the seed and a secret of 256 bits drawn from the operating system. The
generator is public and a seed is small enough to search: without the secret a submission could rebuild the
hidden configurations' answers from what it is shown; with it, it cannot.

The secret lives only in the data folder's `secret.hex`, beside the answer key, never mounted into a sandbox
(the task's layout lists it among the truth). The manifest records its id, a hash that names the secret
without revealing it, so two data folders can be told apart or matched without reading either secret.
The same convention as the other take-homes' (secret.hex, a sha256 id); this copy is the simulation's own.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from generators.errors import GeneratorError

SECRET_FILE = "secret.hex"
SECRET_BYTES = 32  # drawn for new data: 256 bits
MIN_SECRET_BYTES = 16  # accepted from a file: at least 128 bits
MAX_SECRET_FILE_BYTES = 4096
_ID_PREFIX = b"bakeoff simulation secret id\x00"
# A secret everyone knows, for figures anyone can reproduce (the README's calibration table names it). Data
# made with it has no hidden part worth the name: never use it for a real bake-off.
PUBLIC_SECRET_HEX = hashlib.sha256(b"bakeoff public simulation calibration secret, version 1").hexdigest()


class InvalidSecret(GeneratorError):
    """A secret that cannot be used: unreadable, not hexadecimal, or shorter than 128 bits."""


@dataclass(frozen=True)
class Secret:
    value: bytes

    def __post_init__(self) -> None:
        if len(self.value) < MIN_SECRET_BYTES:
            raise InvalidSecret(f"a secret needs at least {MIN_SECRET_BYTES * 8} bits, got {len(self.value) * 8}")

    @classmethod
    def fresh(cls) -> Secret:
        return cls(secrets.token_bytes(SECRET_BYTES))

    @classmethod
    def public(cls) -> Secret:
        return cls.from_hex(PUBLIC_SECRET_HEX)

    @classmethod
    def from_hex(cls, text: str) -> Secret:
        try:
            return cls(bytes.fromhex("".join(text.split())))
        except ValueError:
            raise InvalidSecret("a secret is written as hexadecimal digits (0-9, a-f)") from None

    @classmethod
    def read(cls, path: Path) -> Secret:
        try:
            with open(path, "rb") as handle:
                raw = handle.read(MAX_SECRET_FILE_BYTES + 1)
        except OSError as exc:
            raise InvalidSecret(f"cannot read the secret file {path}: {exc.strerror or exc}") from None
        if len(raw) > MAX_SECRET_FILE_BYTES:
            raise InvalidSecret(f"{path} is over {MAX_SECRET_FILE_BYTES} bytes: not a secret file")
        try:
            return cls.from_hex(raw.decode("ascii"))
        except (UnicodeDecodeError, InvalidSecret):
            raise InvalidSecret(f"{path} is not a secret file (hexadecimal digits, at least 128 bits)") from None

    @property
    def identity(self) -> str:
        """What the manifest records: names the secret, reveals nothing of it."""
        return "sha256:" + hashlib.sha256(_ID_PREFIX + self.value).hexdigest()

    def seed_sequence(self, seed: int, purpose: str) -> np.random.SeedSequence:
        """Seed material of one hidden part: the data's seed, this secret and what it is for."""
        tag = int.from_bytes(hashlib.sha256(purpose.encode("utf-8")).digest()[:8], "big")
        return np.random.SeedSequence([seed, int.from_bytes(self.value, "big"), tag])

    def write(self, folder: Path) -> Path:
        """`folder/secret.hex`, readable by its owner only (folder is a fresh staging folder)."""
        path = Path(folder) / SECRET_FILE
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="ascii") as handle:
            handle.write(self.value.hex() + "\n")
        return path
