"""The harness seeds every execution: the same seed gives the same random numbers, another seed others."""

from __future__ import annotations

import pytest

from bakeoff.runner.seeding import install_seed_hook, seeded_env

PROBE = "import random, numpy; print(random.random(), numpy.random.rand(), hash('spam'))"


def draws(kind: str, workspace, seed: int, **options) -> str:
    from sandbox.base import SandboxSpec
    from sandbox.factory import open_sandbox

    hook = install_seed_hook(workspace)
    hook_path = str(hook) if kind == "none" else f"/workspace/{hook.relative_to(workspace).as_posix()}"
    spec = SandboxSpec(workspace=workspace, env=seeded_env(seed, hook_path))
    with open_sandbox(kind, spec, **options) as sandbox:
        result = sandbox.exec(["python", "-c", PROBE], timeout_s=120)
    assert result.ok, result.stderr
    return result.stdout.strip()


@pytest.mark.docker
def test_seeding_in_docker(tmp_path):
    first = draws("docker", tmp_path, 5)
    assert draws("docker", tmp_path, 5) == first
    assert draws("docker", tmp_path, 6) != first
    # random, numpy and str hashing each follow the seed
    assert all(a != b for a, b in zip(first.split(), draws("docker", tmp_path, 6).split(), strict=True))


@pytest.mark.bwrap
@pytest.mark.docker
def test_seeding_in_bwrap_matches_docker(tmp_path):
    # The same seed gives the same numbers whichever isolation runs the code.
    assert draws("bwrap", tmp_path, 5) == draws("docker", tmp_path, 5)
