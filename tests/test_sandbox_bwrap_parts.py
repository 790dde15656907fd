"""The pieces under the bwrap driver: cgroup discovery, the output cap, the host Python environment."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sandbox.base import Limits, SandboxSpec
from sandbox.bwrap import BwrapSandbox
from sandbox.cgroups import CgroupUnavailable, V1Tree, V2Tree, find_tree
from sandbox.hostenv import BASE_MOUNT, METADATA_FILE, HostEnvError, ensure_host_env
from sandbox.hostproc import CappedStream


def v1_mountinfo(root: Path) -> str:
    lines = []
    for number, controller in enumerate(["cpu", "memory", "pids", "freezer"], start=30):
        folder = root / controller
        folder.mkdir()
        lines.append(f"{number} 25 0:{number} / {folder} rw,relatime shared:9 - cgroup cgroup rw,{controller}")
    lines.append(f"40 25 0:40 / {root / 'unified'} rw - cgroup2 cgroup2 rw")
    return "\n".join(lines) + "\n"


def test_v1_groups_are_made_under_the_processs_own_group(tmp_path):
    mountinfo = v1_mountinfo(tmp_path)
    (tmp_path / "memory" / "jobs" / "42").mkdir(parents=True)
    own = "5:pids:/\n4:memory:/jobs/42\n1:cpu:/\n0::/\n"
    tree = find_tree(mountinfo, own)
    assert isinstance(tree, V1Tree)
    assert tree.parents == {
        "memory": tmp_path / "memory" / "jobs" / "42",
        "pids": tmp_path / "pids",
        "cpu": tmp_path / "cpu",
    }


def test_v2_is_used_when_the_controllers_are_delegated(tmp_path):
    unified = tmp_path / "unified"
    (unified / "job").mkdir(parents=True)
    (unified / "job" / "cgroup.subtree_control").write_text("cpu memory pids\n")
    mountinfo = f"40 25 0:40 / {unified} rw - cgroup2 cgroup2 rw\n"
    tree = find_tree(mountinfo, "0::/job\n")
    assert isinstance(tree, V2Tree) and tree.parent == unified / "job"


def test_no_usable_hierarchy_is_unavailable_with_a_reason(tmp_path):
    unified = tmp_path / "unified"
    unified.mkdir()
    (unified / "cgroup.subtree_control").write_text("cpu\n")  # memory and pids not delegated
    with pytest.raises(CgroupUnavailable, match="memory, pids and cpu"):
        find_tree(f"40 25 0:40 / {unified} rw - cgroup2 cgroup2 rw\n", "0::/\n")


@pytest.mark.bwrap
def test_this_machine_offers_a_cgroup_tree_with_writable_caps():
    tree = find_tree()
    group = tree.create(Limits(memory_bytes=300 * 1024**2, pids=17, cpus=0.5))
    try:
        if tree.version == 1:
            memory, pids, cpu = group.dirs
            assert (memory / "memory.limit_in_bytes").read_text().strip() == str(300 * 1024**2)
            assert (pids / "pids.max").read_text().strip() == "17"
            assert (cpu / "cpu.cfs_quota_us").read_text().strip() == "50000"
        else:
            assert (group.dirs[0] / "pids.max").read_text().strip() == "17"
        assert group.members() == [] and group.oom_kills() == 0
    finally:
        group.remove()
    assert not any(d.exists() for d in group.dirs)


def test_capped_stream_keeps_head_and_tail_and_counts_the_middle():
    stream = CappedStream(100)
    for index in range(50):
        stream.feed(f"{index:04d}|".encode() * 4)  # 20 bytes a chunk, 1000 in all
    kept = stream.result()
    assert len(kept.text) == 100
    assert kept.dropped_bytes == 900
    assert kept.text.startswith("0000|0000|") and kept.text.endswith("0049|0049|")


def test_capped_stream_under_the_cap_keeps_everything():
    stream = CappedStream(1000)
    stream.feed(b"abc")
    stream.feed("é".encode())
    assert stream.result().text == "abcé" and stream.result().dropped_bytes == 0


def test_capped_stream_with_a_zero_cap_keeps_nothing():
    stream = CappedStream(0)
    stream.feed(b"abc")
    assert stream.result().text == "" and stream.result().dropped_bytes == 3


@pytest.fixture(scope="module")
def bare_env(tmp_path_factory):
    """A venv with no extra packages: quick to build, enough to check the retargeting."""
    cache = tmp_path_factory.mktemp("cache")
    return cache, ensure_host_env(cache, packages=())


def test_a_built_env_points_at_sandbox_paths_not_host_ones(bare_env):
    cache, env = bare_env
    cfg = (env.venv_dir / "pyvenv.cfg").read_text()
    assert f"home = {env.base_mount}/bin" in cfg
    assert str(env.venv_dir) not in cfg
    links = [os.readlink(p) for p in (env.venv_dir / "bin").iterdir() if p.is_symlink()]
    absolute = [target for target in links if target.startswith("/")]
    assert absolute and all(target.startswith(env.base_mount + "/bin/") for target in absolute)
    if not str(env.base_prefix).startswith("/usr"):
        assert env.base_mount == BASE_MOUNT and env.library_path == f"{BASE_MOUNT}/lib"
    pip_script = (env.venv_dir / "bin" / "pip").read_text().splitlines()[0]
    assert pip_script.startswith("#!/opt/venv/bin/python")
    assert not [p for p in cache.iterdir() if ".building-" in p.name]  # no half-built folder left


def test_a_built_env_is_found_again_instead_of_rebuilt(bare_env):
    cache, env = bare_env
    before = (env.venv_dir / METADATA_FILE).stat().st_mtime_ns
    again = ensure_host_env(cache, packages=())
    assert again == env
    assert (env.venv_dir / METADATA_FILE).stat().st_mtime_ns == before


@pytest.mark.bwrap
def test_a_built_env_runs_inside_bwrap_and_hides_the_interpreters_host_path(bare_env, tmp_path):
    _, env = bare_env
    with BwrapSandbox(SandboxSpec(workspace=tmp_path), host_env=env) as box:
        code = "import sys, os, json; print(json.dumps([sys.prefix, sys.base_prefix, os.path.exists(%r)]))"
        result = box.exec(["python", "-c", code % str(env.base_prefix)])
    assert result.ok, result.stderr
    prefix, base_prefix, host_path_visible = json.loads(result.stdout)
    assert prefix == "/opt/venv" and base_prefix == env.base_mount
    assert host_path_visible == (not env.needs_base_bind)


def test_a_broken_env_says_how_to_recover(bare_env):
    cache, env = bare_env
    meta = env.venv_dir / METADATA_FILE
    saved = meta.read_text()
    try:
        meta.write_text(json.dumps({**json.loads(saved), "base_prefix": "/nonexistent/python"}))
        with pytest.raises(HostEnvError, match="delete the folder to rebuild"):
            ensure_host_env(cache, packages=())
    finally:
        meta.write_text(saved)
    assert ensure_host_env(cache, packages=()) == env  # repaired metadata is usable again


def test_a_failing_install_is_a_host_env_error_and_leaves_nothing(tmp_path):
    empty_wheelhouse = tmp_path / "wheels"
    empty_wheelhouse.mkdir()
    with pytest.raises(HostEnvError, match="install the sandbox packages"):
        ensure_host_env(tmp_path / "cache", packages=("bakeoff-no-such-package",), wheelhouse=empty_wheelhouse)
    assert list((tmp_path / "cache").iterdir()) == []


@pytest.mark.bwrap
def test_an_env_built_offline_from_the_wheelhouse_runs_in_bwrap(tmp_path):
    from sandbox.wheelhouse import default_wheelhouse, require_wheels

    wheelhouse = default_wheelhouse()
    wheelhouse.mkdir(parents=True, exist_ok=True)
    require_wheels(("joblib==1.6.0",), wheelhouse)  # the host fills it (cached after the first time)
    messages: list[str] = []
    env = ensure_host_env(tmp_path / "cache", packages=("joblib==1.6.0",), wheelhouse=wheelhouse, report=messages.append)
    assert any(f"from {wheelhouse}" in m for m in messages)
    assert not any("package index" in m for m in messages)  # no fallback was needed
    with BwrapSandbox(SandboxSpec(workspace=tmp_path), host_env=env) as box:
        result = box.exec(["python", "-c", "import joblib; print(joblib.__version__)"])
    assert result.stdout == "1.6.0\n", result.stderr


def test_groups_left_by_a_dead_bakeoff_are_swept_and_live_ones_kept(tmp_path):
    import subprocess

    dead = subprocess.Popen(["true"])
    dead.wait()  # a pid that no longer runs
    parents = {c: tmp_path / c for c in ("memory", "pids", "cpu")}
    for parent in parents.values():
        (parent / f"bakeoff-{dead.pid}-aaaa").mkdir(parents=True)
        (parent / f"bakeoff-{os.getpid()}-bbbb").mkdir()
    tree = V1Tree(parents)
    assert tree.sweep_stale() == 3
    for parent in parents.values():
        assert sorted(p.name for p in parent.iterdir()) == [f"bakeoff-{os.getpid()}-bbbb"]


def test_pip_scripts_run_inside_even_when_the_host_cache_path_is_too_long_for_a_shebang(tmp_path):
    """Past 127 bytes pip writes a `/bin/sh` trampoline naming the host venv instead of a `#!` line: it must be
    pointed at the sandbox's venv too (it failed once the suite's own temporary paths grew that long)."""
    cache = tmp_path / ("c" * 60) / ("d" * 60)
    env = ensure_host_env(cache, packages=())
    head = (env.venv_dir / "bin" / "pip").read_text().splitlines()[:2]
    assert head[0].startswith("#!/opt/venv/bin/python") and "exec" not in head[1], head
