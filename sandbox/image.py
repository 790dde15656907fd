"""Building the sandbox image, idempotently.

The image is labelled with a hash of what it was built from (the Dockerfile,
the pinned stack, the base image's id). `build_image` does nothing when an
image with that label exists, so running it on every CI start is cheap.

Base image: the Dockerfile's default (`python:3.11-slim`) when it is here or
can be pulled; with `bootstrap=True`, a debootstrap minbase imported offline
when it cannot (reused on later builds).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from sandbox import bootstrap
from sandbox.docker_engine import IMAGE_TAG, connect
from sandbox.errors import SandboxError, SandboxUnavailable
from sandbox.wheelhouse import default_wheelhouse, require_wheels

DEFAULT_BASE_IMAGE = "python:3.11-slim"
# Named by what it holds, so that a base made from another package list is never taken for this one.
BOOTSTRAP_TAG = "bakeoff-base:bookworm-" + hashlib.sha256(" ".join(bootstrap.BOOTSTRAP_PACKAGES).encode()).hexdigest()[:8]
HASH_LABEL = "org.bakeoff.build-hash"
BASE_LABEL = "org.bakeoff.base-image"
DOCKERFILE = Path(__file__).with_name("Dockerfile")

# Shared libraries the image provides for wheels that load them without shipping them: name -> who needs it.
# `bakeoff check` loads each in a real sandbox; the Dockerfile and the offline base install them.
SYSTEM_LIBRARIES = {"libgomp.so.1": "the OpenMP runtime lightgbm and xgboost load"}

# The data-science stack, with its whole dependency closure pinned so that a
# rebuild gives the same image.
IMAGE_STACK = (
    "numpy==2.4.6",
    "pandas==3.1.1",
    "scikit-learn==1.9.1",
    "scipy==1.17.1",
    "joblib==1.6.0",
    "threadpoolctl==3.8.0",
    "python-dateutil==4.0.0",
    "tzdata==2026.6",
    "cloudpickle==3.1.3",
    "narwhals==2.29.0",
)


class BuildProgress(Protocol):
    """Where a build reports what it is doing (the CLI shows it; tests may collect it)."""

    def step(self, message: str) -> None: ...

    def detail(self, line: str) -> None: ...


class QuietProgress:
    def step(self, message: str) -> None:
        pass

    def detail(self, line: str) -> None:
        pass


@dataclass(frozen=True)
class BuildOptions:
    image_tag: str = IMAGE_TAG
    base_image: str = DEFAULT_BASE_IMAGE
    bootstrap: bool = False
    wheelhouse: Path = field(default_factory=default_wheelhouse)
    mirror: str | None = None  # None: read from this machine's apt sources
    apt_root: Path = Path("/etc/apt")
    force: bool = False  # rebuild even when the image is up to date


@dataclass(frozen=True)
class BuildReport:
    image_tag: str
    image_id: str
    base_image: str
    build_hash: str
    built: bool  # False when the existing image was already up to date
    bootstrapped: bool  # True when this call made the base image with debootstrap
    duration_s: float


@dataclass(frozen=True)
class ImageStatus:
    """Whether the sandbox image is here and built from the current recipe."""

    present: bool
    current: bool | None  # None when it cannot be told without the base image
    detail: str


def build_hash(base_image_id: str, dockerfile: bytes | None = None, stack: tuple[str, ...] = IMAGE_STACK) -> str:
    digest = hashlib.sha256()
    digest.update(DOCKERFILE.read_bytes() if dockerfile is None else dockerfile)
    digest.update("\n".join(stack).encode())
    digest.update(base_image_id.encode())
    return digest.hexdigest()


def _local_image_id(client, name: str) -> str | None:
    import docker

    try:
        return client.images.get(name).id
    except docker.errors.ImageNotFound:
        return None


def _pull(client, name: str, progress: BuildProgress) -> str | None:
    import docker

    progress.step(f"pulling base image {name}")
    try:
        return client.images.pull(name).id
    except docker.errors.APIError as exc:
        progress.detail(f"cannot pull {name}: {exc.explanation or exc}")
        return None


def resolve_base(client, options: BuildOptions, progress: BuildProgress) -> tuple[str, str, bool]:
    """(base image name, its id, whether it was bootstrapped now). Never pulls when a usable base is here."""
    local = _local_image_id(client, options.base_image)
    if local:
        return options.base_image, local, False
    if options.bootstrap and options.base_image == DEFAULT_BASE_IMAGE:
        # Offline machines ask for the default base on every CI start: an earlier bootstrap answers at once.
        # A base the user named explicitly is always tried first.
        made_before = _local_image_id(client, BOOTSTRAP_TAG)
        if made_before:
            return BOOTSTRAP_TAG, made_before, False
    pulled = _pull(client, options.base_image, progress)
    if pulled:
        return options.base_image, pulled, False
    if not options.bootstrap:
        raise SandboxUnavailable(
            f"base image {options.base_image} is not here and cannot be pulled; "
            "run `bakeoff sandbox build --bootstrap` to make one offline with debootstrap"
        )
    mirror = options.mirror or bootstrap.debian_mirror(apt_root=options.apt_root)
    progress.step(f"bootstrapping {BOOTSTRAP_TAG} with debootstrap from {mirror} (about a minute)")
    image_id = bootstrap.bootstrap_base_image(client, BOOTSTRAP_TAG, mirror=mirror, on_line=progress.detail)
    return BOOTSTRAP_TAG, image_id, True


def image_status(client, options: BuildOptions = BuildOptions()) -> ImageStatus:
    """Is the image here, and does its label match the recipe it would be built from now?"""
    import docker

    try:
        image = client.images.get(options.image_tag)
    except docker.errors.ImageNotFound:
        return ImageStatus(False, None, f"{options.image_tag} is missing")
    labels = image.labels or {}
    base = labels.get(BASE_LABEL, "")
    base_id = _local_image_id(client, base) if base else None
    if base_id is None:
        return ImageStatus(True, None, f"{options.image_tag} is here (its base {base or '?'} is not, so freshness is unknown)")
    current = labels.get(HASH_LABEL) == build_hash(base_id)
    detail = f"{options.image_tag} is up to date" if current else f"{options.image_tag} is out of date: run `bakeoff sandbox build`"
    return ImageStatus(True, current, detail)


def _fill_context(context: Path, wheel_files: tuple[str, ...], wheelhouse: Path) -> None:
    shutil.copy2(DOCKERFILE, context / "Dockerfile")
    libraries = context / "system-libs"
    libraries.mkdir()
    for name in SYSTEM_LIBRARIES:
        found = _host_library(name)
        if found is not None:  # used only where the base lacks it (the Dockerfile keeps a base's own)
            shutil.copy2(found, libraries / name)
    (context / "requirements.txt").write_text("\n".join(IMAGE_STACK) + "\n")
    wheels = context / "wheels"
    wheels.mkdir()
    for name in wheel_files:
        try:
            os.link(wheelhouse / name, wheels / name)
        except OSError:  # another file system: copy instead
            shutil.copy2(wheelhouse / name, wheels / name)


def _host_library(name: str) -> Path | None:
    """The host's copy of shared library `name` from its dynamic linker's cache, or None."""
    import subprocess

    listing = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=False).stdout
    for line in listing.splitlines():
        if line.strip().startswith(name + " ") and "x86-64" in line:
            return Path(line.rsplit("=>", 1)[-1].strip())
    return None


def _run_build(client, context: Path, tag: str, base: str, labels: dict[str, str], progress: BuildProgress) -> str:
    import docker

    try:
        events = client.api.build(
            path=str(context), tag=tag, buildargs={"BASE_IMAGE": base}, labels=labels,
            rm=True, forcerm=True, pull=False, network_mode="none", decode=True,
        )
        for event in events:
            if "error" in event:
                raise SandboxError(f"building {tag} failed: {event['error'].strip()}")
            line = event.get("stream", "").rstrip()
            if line:
                progress.detail(line)
    except docker.errors.APIError as exc:
        raise SandboxError(f"building {tag} failed: {exc.explanation or exc}") from None
    return client.images.get(tag).id


def build_image(options: BuildOptions, progress: BuildProgress = QuietProgress(), client=None) -> BuildReport:
    """Build the sandbox image unless an image built from the same recipe is already here."""
    started = time.monotonic()
    owned = client is None
    client = connect(client)
    try:
        return _build_with(client, options, progress, started)
    finally:
        if owned:
            client.close()


def _build_with(client, options: BuildOptions, progress: BuildProgress, started: float) -> BuildReport:
    base, base_id, bootstrapped = resolve_base(client, options, progress)
    recipe_hash = build_hash(base_id)
    existing = _local_image_id(client, options.image_tag)
    if existing and not options.force:
        labels = client.images.get(options.image_tag).labels or {}
        if labels.get(HASH_LABEL) == recipe_hash:
            progress.step(f"{options.image_tag} is up to date")
            return BuildReport(options.image_tag, existing, base, recipe_hash, False, bootstrapped,
                               time.monotonic() - started)
    progress.step(f"filling the wheelhouse {options.wheelhouse}")
    wheels = require_wheels(IMAGE_STACK, options.wheelhouse)
    progress.step(f"building {options.image_tag} from {base}")
    with tempfile.TemporaryDirectory(prefix="bakeoff-image-context-") as context:
        _fill_context(Path(context), wheels.files, options.wheelhouse)
        labels = {HASH_LABEL: recipe_hash, BASE_LABEL: base}
        image_id = _run_build(client, Path(context), options.image_tag, base, labels, progress)
    return BuildReport(options.image_tag, image_id, base, recipe_hash, True, bootstrapped, time.monotonic() - started)
