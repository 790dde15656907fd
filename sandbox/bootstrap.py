"""An offline base image: a Debian minbase made with debootstrap and imported into Docker.

Used where no container registry can be reached (`bakeoff sandbox build
--bootstrap`). The Debian mirror is read from this machine's own apt sources
at run time: whatever mirror apt already uses here is the one reachable.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from sandbox.errors import SandboxError, SandboxUnavailable

BOOTSTRAP_SUITE = "bookworm"  # Debian 12: its python3 is 3.11, as the sandbox wants
# libgomp1: the OpenMP runtime that lightgbm's and xgboost's wheels load but do not ship. Without it a submission
# that declares them installs them and then dies on import: the environment's failure, charged to the model.
BOOTSTRAP_PACKAGES = ("python3", "python3-venv", "python3-pip", "libgomp1")


@dataclass(frozen=True)
class AptSource:
    """One `deb` line (or deb822 stanza entry) of the apt configuration."""

    uri: str
    suites: tuple[str, ...]
    components: tuple[str, ...]


def _one_line_sources(text: str) -> Iterable[AptSource]:
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line.startswith("deb "):
            continue
        words = line.split()[1:]
        if words and words[0].startswith("["):  # options such as [arch=amd64 signed-by=...]
            while words and not words[0].endswith("]"):
                words.pop(0)
            words = words[1:]
        if len(words) >= 2:
            yield AptSource(uri=words[0], suites=(words[1],), components=tuple(words[2:]))


def _deb822_sources(text: str) -> Iterable[AptSource]:
    for stanza in text.split("\n\n"):
        fields: dict[str, str] = {}
        for raw in stanza.splitlines():
            if raw.startswith("#") or ":" not in raw or raw[:1].isspace():
                continue
            name, value = raw.split(":", 1)
            fields[name.strip().lower()] = value.strip()
        if "deb" not in fields.get("types", "").split() or fields.get("enabled", "yes").lower() == "no":
            continue
        for uri in fields.get("uris", "").split():
            yield AptSource(uri, tuple(fields.get("suites", "").split()), tuple(fields.get("components", "").split()))


def read_apt_sources(apt_root: Path = Path("/etc/apt")) -> list[AptSource]:
    """Every enabled `deb` source in sources.list and sources.list.d (both formats)."""
    sources: list[AptSource] = []
    candidates = [apt_root / "sources.list"]
    if (apt_root / "sources.list.d").is_dir():
        candidates += sorted((apt_root / "sources.list.d").iterdir())
    for path in candidates:
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        if path.suffix == ".list" or path.name == "sources.list":
            sources += _one_line_sources(text)
        elif path.suffix == ".sources":
            sources += _deb822_sources(text)
    return sources


def debian_mirror(suite: str = BOOTSTRAP_SUITE, apt_root: Path = Path("/etc/apt")) -> str:
    """The mirror this machine's apt uses for `suite` main; raise when it has none."""
    for source in read_apt_sources(apt_root):
        if suite in source.suites and "main" in source.components:
            return source.uri
    raise SandboxUnavailable(
        f"no apt source for Debian {suite!r} (main) under {apt_root}; "
        "pass --mirror URL to name a Debian mirror for debootstrap"
    )


def _run_streaming(argv: list[str], on_line: Callable[[str], None]) -> int:
    """Run a command, handing each output line to `on_line` as it arrives."""
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace") as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            on_line(line.rstrip("\n"))
        return proc.wait()


def bootstrap_base_image(
    client,
    tag: str,
    *,
    mirror: str,
    suite: str = BOOTSTRAP_SUITE,
    on_line: Callable[[str], None] = lambda line: None,
    scratch: Path | None = None,
) -> str:
    """Make a minbase root filesystem with debootstrap and import it as image `tag`; return the image id."""
    if shutil.which("debootstrap") is None:
        raise SandboxUnavailable("debootstrap is not installed (apt-get install debootstrap)")
    if os.geteuid() != 0:
        raise SandboxUnavailable("debootstrap needs root: run the build with sudo, or make the base image pullable")
    with tempfile.TemporaryDirectory(dir=scratch, prefix="bakeoff-bootstrap-") as work:
        rootfs = Path(work) / "rootfs"
        argv = [
            "debootstrap", "--variant=minbase", f"--include={','.join(BOOTSTRAP_PACKAGES)}",
            suite, str(rootfs), mirror,
        ]
        if _run_streaming(argv, on_line) != 0:
            raise SandboxError(f"debootstrap of {suite} from {mirror} failed (its output is above)")
        # The apt lists and caches are dead weight in an image that never runs apt.
        for leftover in ("var/cache/apt/archives", "var/lib/apt/lists"):
            shutil.rmtree(rootfs / leftover, ignore_errors=True)
        tarball = Path(work) / "rootfs.tar"
        if _run_streaming(["tar", "-C", str(rootfs), "-cf", str(tarball), "."], on_line) != 0:
            raise SandboxError("could not pack the bootstrapped root filesystem")
        repository, _, version = tag.partition(":")
        client.api.import_image_from_file(str(tarball), repository=repository, tag=version or "latest")
    return client.images.get(tag).id
