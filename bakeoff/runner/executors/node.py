"""A Ray worker node as bakeoff sees it: what it advertises, the check before a run starts, leftover containers.

A node advertises the isolation it offers as a custom Ray resource, `bakeoff_<kind>` (docker, bwrap or
none), whose amount is how many runs' sandboxes it hosts at once. The advertisement can be wrong (an image
removed since), so every run checks its node before it starts: the sandbox is usable and the model file
the spec names is there (with the driver's sha256, when the driver has the file). A node that fails the
check is a named error in that run's record.
Sandbox containers carry labels naming the batch and the run; a retried run removes those its dead
attempt left behind.
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from bakeoff.errors import BakeoffError
from bakeoff.models.spec import ModelSpec
from sandbox.kinds import ISOLATING_KINDS, UNSAFE

BATCH_LABEL = "org.bakeoff.batch"
RUN_LABEL = "org.bakeoff.run"
IMAGE_ENV = "BAKEOFF_SANDBOX_IMAGE"  # a node's own sandbox image tag, where it is not the default


class NodeCannotRun(BakeoffError):
    """The node a run was placed on cannot run it."""


class SandboxMissingOnNode(NodeCannotRun):
    """The node lacks the plan's isolation (Docker engine, the sandbox image, bubblewrap)."""


class ModelFileMissingOnNode(NodeCannotRun):
    """The model file the spec names is not on the node, or differs from the driver's copy."""


def sandbox_resource(kind: str) -> str:
    return f"bakeoff_{kind}"


def node_sandbox_options(kind: str, options: Mapping) -> dict:
    """The run's sandbox options on this node: its own image tag, where it names one."""
    options = dict(options)
    if kind == "docker" and os.environ.get(IMAGE_ENV):
        options["image"] = os.environ[IMAGE_ENV]
    return options


def _image(options: Mapping) -> str:
    from sandbox.image import IMAGE_TAG

    return str(options.get("image") or IMAGE_TAG)


def sandbox_problem(kind: str, options: Mapping) -> str | None:
    """Why this machine cannot host the sandbox kind, or None."""
    if kind == "docker":
        from sandbox.docker_engine import connect, require_image
        from sandbox.errors import SandboxUnavailable

        try:
            client = connect()
            try:
                require_image(client, _image(options))
            finally:
                client.close()
        except SandboxUnavailable as exc:
            return str(exc)
        except Exception as exc:  # noqa: BLE001 - an engine that answers with an error cannot host runs either
            return f"the Docker engine failed: {type(exc).__name__}: {exc}"
        return None
    if kind == "bwrap" and shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    return None


def file_digest(path: Path) -> str:
    from bakeoff.models.filehash import file_sha256

    return file_sha256(path)


def check_node(node: str, kind: str, options: Mapping, spec: ModelSpec, sha256: str | None) -> None:
    """Raise a NodeCannotRun subclass naming what this node lacks for the run."""
    problem = sandbox_problem(kind, options)
    if problem:
        raise SandboxMissingOnNode(f"node {node} cannot host the {kind} sandbox: {problem}")
    from bakeoff.models.errors import ModelFileNotFound
    from bakeoff.models.registry import parse_spec

    try:
        here = parse_spec(spec.text)  # parsed on this node: the default model is its own package's file
    except ModelFileNotFound as exc:
        raise ModelFileMissingOnNode(f"node {node}: {exc}") from None
    path = here.file()  # None for an endpoint
    if path is None:
        return
    if not path.is_file():
        raise ModelFileMissingOnNode(f"node {node} has no model file {path} (model spec {spec.text})")
    if sha256 is not None and file_digest(path) != sha256:
        raise ModelFileMissingOnNode(f"node {node}: {path} differs from the driver's copy (sha256 is not {sha256[:12]}...)")


def node_name(node_id: str) -> str:
    """How records and `bakeoff status` name a node: host and the start of Ray's node id."""
    return f"{socket.gethostname()}/{node_id[:8]}"


def remove_run_containers(batch_id: str, run_id: str) -> int:
    """Remove the containers a run's earlier attempt left on this node's engine; return how many."""
    from sandbox.docker_engine import remove_labelled_containers

    return remove_labelled_containers({BATCH_LABEL: batch_id, RUN_LABEL: run_id})


def local_resources(slots: int) -> dict[str, float]:
    """The custom resources this machine can advertise, each isolation kind it offers with `slots` runs."""
    resources = {sandbox_resource(UNSAFE): float(slots)}
    for kind in ISOLATING_KINDS:
        if sandbox_problem(kind, {}) is None:
            resources[sandbox_resource(kind)] = float(slots)
    return resources


LOOPBACK = "127.0.0.1"
# Ray (2.60) turns a node address of 127.0.0.1 into the machine's interface address
# (ray._private.services.resolve_ip_for_localhost) unless its multi-host switch is off. The switch is an
# environment variable read when ray is imported (by the raylet and the workers a local cluster starts)
# and a module constant (in this process, which may have imported ray already).
_RAY_MULTI_HOST_SWITCH = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


@contextmanager
def ray_on_loopback() -> Iterator[str]:
    """While inside, a Ray cluster this process starts binds to loopback; yields the address to give it."""
    from ray._private import ray_constants

    saved_env, saved_switch = os.environ.get(_RAY_MULTI_HOST_SWITCH), ray_constants.ENABLE_RAY_CLUSTER
    os.environ[_RAY_MULTI_HOST_SWITCH] = "0"
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield LOOPBACK
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = saved_switch
        if saved_env is None:
            os.environ.pop(_RAY_MULTI_HOST_SWITCH, None)
        else:
            os.environ[_RAY_MULTI_HOST_SWITCH] = saved_env
