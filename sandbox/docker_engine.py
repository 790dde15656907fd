"""The Docker engine as the sandbox driver sees it: connecting, the image, and orphaned containers.

Every container a sandbox starts is labelled with its owner (host name, boot
id, pid). A bakeoff process killed before it could close its sandboxes
leaves containers behind; the next sandbox opened on the same host removes
those whose owner is gone.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from pathlib import Path

from sandbox.errors import SandboxUnavailable

IMAGE_TAG = "bakeoff-sandbox:latest"  # the sandbox image sandbox.image builds and the driver runs
CONTAINER_LABEL = "org.bakeoff.sandbox"
OWNER_PID_LABEL = "org.bakeoff.owner-pid"
OWNER_HOST_LABEL = "org.bakeoff.owner-host"
BOOT_LABEL = "org.bakeoff.boot-id"


def docker_errors():
    """docker-py's error module, imported only when a sandbox is used."""
    import docker.errors

    return docker.errors


def connect(client=None):
    """A docker-py client for the local engine; SandboxUnavailable when there is none."""
    if client is not None:
        return client
    import docker

    try:
        return docker.from_env()
    except docker.errors.DockerException as exc:
        raise SandboxUnavailable(
            f"the Docker engine is not reachable ({exc}); start it (e.g. `dockerd`) or choose --sandbox bwrap"
        ) from None


def require_image(client, image: str) -> None:
    import docker

    try:
        client.images.get(image)
    except docker.errors.ImageNotFound:
        raise SandboxUnavailable(
            f"the sandbox image {image} is missing; build it with `bakeoff sandbox build` "
            "(add --bootstrap where no registry is reachable)"
        ) from None


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def owner_labels() -> dict[str, str]:
    """Labels naming the process that owns a sandbox container, so that orphans can be found."""
    return {
        CONTAINER_LABEL: "1",
        OWNER_HOST_LABEL: socket.gethostname(),
        OWNER_PID_LABEL: str(os.getpid()),
        BOOT_LABEL: _boot_id(),
    }


def _owner_is_gone(labels: Mapping[str, str]) -> bool:
    if labels.get(OWNER_HOST_LABEL) != socket.gethostname():
        return False  # another host (or container) shares this engine: its pids are not ours to judge
    if labels.get(BOOT_LABEL) != _boot_id():
        return True  # made before the last reboot: its owner is certainly gone
    try:
        os.kill(int(labels.get(OWNER_PID_LABEL, "0")), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, ValueError):
        return False
    return False


def remove_orphaned_containers(client) -> int:
    """Remove sandbox containers whose owning bakeoff process died without closing them; return how many."""
    import docker

    removed = 0
    # The low-level listing carries the labels; the high-level one looks each container up again, which
    # races with containers that remove themselves as their sandbox closes.
    for summary in client.api.containers(all=True, filters={"label": CONTAINER_LABEL}):
        if _owner_is_gone(summary.get("Labels") or {}):
            try:
                client.api.remove_container(summary["Id"], force=True)
                removed += 1
            except docker.errors.APIError:
                pass  # it went away by itself, or another process removed it first
    return removed


def remove_labelled_containers(labels: Mapping[str, str], client=None) -> int:
    """Remove every sandbox container carrying all of `labels` (a dead worker's, say); return how many.

    No reachable engine means nothing can be left on it: 0.
    """
    import docker

    try:
        engine = client or docker.from_env()
    except docker.errors.DockerException:
        return 0
    removed = 0
    try:
        wanted = [CONTAINER_LABEL, *(f"{key}={value}" for key, value in labels.items())]
        for summary in engine.api.containers(all=True, filters={"label": wanted}):
            try:
                engine.api.remove_container(summary["Id"], force=True)
                removed += 1
            except docker.errors.APIError:
                pass  # it removed itself meanwhile
    finally:
        if client is None:
            engine.close()
    return removed
