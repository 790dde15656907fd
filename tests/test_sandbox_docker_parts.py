"""The Docker driver's host-side parts that need no engine: output capping, status line, mounts, apt sources."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sandbox.base import Mount, SandboxSpec
from sandbox.bootstrap import debian_mirror, read_apt_sources
from sandbox.docker_capture import CappedStream, split_status
from sandbox.docker_mounts import (
    missing_placeholders,
    remove_placeholders,
    resolve_mounts,
    sandbox_target,
    share_workspace_with_group,
)
from sandbox.errors import SandboxError, SandboxUnavailable
from sandbox.supervisor import STATUS_PREFIX, _json_scalar

NONCE = "feedc0de" * 4


def status_line(body: str = '{"exit_code": 0}') -> bytes:
    return STATUS_PREFIX + NONCE.encode() + b" " + body.encode() + b"\n"


def test_capped_stream_keeps_the_head_and_counts_the_rest():
    stream = CappedStream(cap=10)
    for chunk in (b"0123", b"456789abc", b"def"):
        stream.feed(chunk)
    assert stream.text() == "0123456789"
    assert stream.dropped == 6 and stream.total == 16


def test_status_line_is_split_off_small_output():
    stream = CappedStream(cap=100)
    stream.feed(b"warning: x\n")
    stream.feed(status_line())
    status, text, dropped = split_status(stream, NONCE)
    assert status == '{"exit_code": 0}'
    assert text == "warning: x\n" and dropped == 0


def test_status_line_is_split_off_capped_output_with_exact_counts():
    stream = CappedStream(cap=5)
    stream.feed(b"e" * 5000)
    stream.feed(status_line())
    status, text, dropped = split_status(stream, NONCE)
    assert status == '{"exit_code": 0}'
    assert text == "eeeee" and dropped == 4995


def test_status_line_straddling_the_cap_is_not_counted_as_output():
    stream = CappedStream(cap=8)
    stream.feed(b"abc" + status_line())
    _, text, dropped = split_status(stream, NONCE)
    assert text == "abc" and dropped == 0


def test_a_status_line_with_another_nonce_is_output():
    stream = CappedStream(cap=1000)
    stream.feed(STATUS_PREFIX + b"0" * 32 + b' {"exit_code": 0}\n')
    status, text, _ = split_status(stream, NONCE)
    assert status is None and "bakeoff-status" in text


def test_status_values_are_json():
    import json

    body = "{" + ", ".join(f'"{k}": {_json_scalar(v)}' for k, v in {"a": None, "b": True, "c": 3, "d": 0.25}.items()) + "}"
    assert json.loads(body) == {"a": None, "b": True, "c": 3, "d": 0.25}


def test_mount_targets_resolve_under_the_workspace_and_refuse_escapes():
    assert sandbox_target("data/train.csv") == "/workspace/data/train.csv"
    assert sandbox_target("/holdout/holdout.csv") == "/holdout/holdout.csv"
    for bad in ("../etc", "/", ".", "/workspace"):
        with pytest.raises(SandboxError):
            sandbox_target(bad)


def test_truth_file_is_refused_even_inside_a_folder(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "truth.csv").write_text("x")
    with pytest.raises(SandboxError, match="truth.csv"):
        resolve_mounts(SandboxSpec(workspace=tmp_path / "corpus"))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with pytest.raises(SandboxError, match="truth.csv"):
        resolve_mounts(SandboxSpec(workspace=workspace, mounts=(Mount(corpus, "/corpus"),)))


def test_missing_mount_source_is_an_error(tmp_path):
    with pytest.raises(SandboxError, match="does not exist"):
        resolve_mounts(SandboxSpec(workspace=tmp_path, mounts=(Mount(tmp_path / "nope.csv", "data/x.csv"),)))


def test_placeholders_are_found_and_only_empty_ones_removed(tmp_path):
    source = tmp_path / "train.csv"
    source.write_text("x")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    mounts = resolve_mounts(SandboxSpec(workspace=workspace, mounts=(Mount(source, "data/sub/train.csv"),)))
    placeholders = missing_placeholders(workspace, mounts)
    assert placeholders == [workspace / "data"]
    (workspace / "data" / "sub").mkdir(parents=True)
    (workspace / "data" / "sub" / "train.csv").touch()  # what Docker leaves behind
    remove_placeholders(placeholders)
    assert not (workspace / "data").exists()
    (workspace / "data").mkdir()
    (workspace / "data" / "real.txt").write_text("a model wrote this")
    remove_placeholders(placeholders)
    assert (workspace / "data" / "real.txt").exists()


def test_workspace_is_shared_with_the_group_but_git_is_not(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text("print(1)")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("")
    os.chmod(tmp_path / "src" / "train.py", 0o600)
    gid = os.getegid()
    share_workspace_with_group(tmp_path, gid)
    assert os.stat(tmp_path / "src" / "train.py").st_mode & 0o060 == 0o060
    assert os.stat(tmp_path / "src").st_mode & 0o2070 == 0o2070
    assert os.stat(tmp_path / ".git" / "config").st_mode & 0o020 == 0


def test_apt_sources_in_both_formats(tmp_path):
    (tmp_path / "sources.list").write_text(
        "# comment\ndeb [arch=amd64 signed-by=/k.gpg] http://one.example/debian bookworm main contrib\n"
        "deb-src http://src.example/debian bookworm main\n"
    )
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / "sources.list.d" / "debian.sources").write_text(
        "Types: deb\nURIs: http://two.example/debian\nSuites: bookworm bookworm-updates\nComponents: main\n\n"
        "Types: deb\nURIs: http://sec.example/debian-security\nSuites: bookworm-security\nComponents: main\n"
    )
    (tmp_path / "sources.list.d" / "old.list.disabled").write_text("deb http://off.example/debian bookworm main\n")
    uris = [s.uri for s in read_apt_sources(tmp_path)]
    assert uris == ["http://one.example/debian", "http://two.example/debian", "http://sec.example/debian-security"]
    assert debian_mirror("bookworm", tmp_path) == "http://one.example/debian"
    assert debian_mirror("bookworm-security", tmp_path) == "http://sec.example/debian-security"


def test_no_mirror_for_the_suite_says_how_to_name_one(tmp_path):
    (tmp_path / "sources.list").write_text("deb http://one.example/ubuntu jammy main\n")
    with pytest.raises(SandboxUnavailable, match="--mirror"):
        debian_mirror("bookworm", tmp_path)


def test_this_machines_mirror_is_read_from_its_apt_sources():
    mirror = debian_mirror()
    assert mirror.startswith(("http://", "https://"))
    assert any(mirror == s.uri for s in read_apt_sources(Path("/etc/apt")))
