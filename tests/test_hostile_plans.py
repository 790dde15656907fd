"""Hostile plans and batch folders, round 2 (issue 23 rows 12, 16, 17, 19): each refused by name before a run."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bakeoff.runner.executors.address import (
    RayAddressInvalid,
    RayClientUnavailable,
    RayClusterUnreachable,
    check_address,
    parse_address,
)
from bakeoff.runner.plan import PlanError, plan_from_mapping

BAKEOFF = str(Path(sys.executable).with_name("bakeoff"))


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([BAKEOFF, *args], capture_output=True, text=True, cwd=cwd, check=False, timeout=120)


def test_a_label_of_300_letters_is_refused_with_the_plan_not_mid_batch(tmp_path):
    with pytest.raises(PlanError, match="at most 64"):
        plan_from_mapping({"models": [{"spec": "scripted:x.jsonl", "label": "a" * 300}], "corpus": "c"}, tmp_path)
    long_file = "scripted:/m/" + "b" * 300 + ".jsonl"  # a label made from a file name is cut to fit
    (entry,) = plan_from_mapping({"models": [long_file], "corpus": "c"}, tmp_path).models
    assert len(entry.label) == 64


def test_a_label_of_300_letters_in_a_plan_file_leaves_no_batch_folder(tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text(f'corpus = "c"\nmodels = [{{ spec = "scripted:x.jsonl", label = "{"a" * 300}" }}]\n', encoding="utf-8")
    done = _cli("run", "--plan", str(plan), "--out", str(tmp_path / "batch"), cwd=tmp_path)
    assert done.returncode != 0 and "error: PlanError:" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "batch").exists()


@pytest.mark.parametrize("address", ["auto", "127.0.0.1:6379", "head.cluster:6379", "ray://10.0.0.5:10001", "[::1]:6379"])
def test_rays_address_forms_parse(address):
    assert parse_address(address).text == address


@pytest.mark.parametrize("address", ["", "nowhere", "host:port", "127.0.0.1:99999", "http://x:1", "ray://", "a b:1"])
def test_other_addresses_are_named_errors(address):
    with pytest.raises(RayAddressInvalid):
        parse_address(address)


def test_a_ray_client_address_without_the_client_extra_is_named():
    import importlib.util

    assert importlib.util.find_spec("grpc") is None, "this test expects Ray without its client extra"
    with pytest.raises(RayClientUnavailable, match=r"ray\[client\]"):
        check_address("ray://127.0.0.1:10001")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_address_where_nothing_listens_is_refused_within_the_deadline():
    port = _free_port()  # bound and closed: nothing listens on it now
    with pytest.raises(RayClusterUnreachable, match=f"127.0.0.1:{port}"):
        check_address(f"127.0.0.1:{port}", deadline_s=2.0)


def test_an_address_where_something_listens_passes():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        assert check_address(f"127.0.0.1:{server.getsockname()[1]}").port == server.getsockname()[1]


def test_bakeoff_run_says_the_cluster_is_not_there_before_any_run(tmp_path):
    port = _free_port()
    plan = tmp_path / "plan.toml"
    plan.write_text(f'corpus = "c"\nmodels = ["scripted:x.jsonl"]\n[executor]\nkind = "ray"\naddress = "127.0.0.1:{port}"\n',
                    encoding="utf-8")
    done = _cli("run", "--plan", str(plan), "--out", str(tmp_path / "batch"), cwd=tmp_path)  # once waited forever
    assert done.returncode != 0 and "error: RayClusterUnreachable:" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "batch").exists()
    plan.write_text('corpus = "c"\nmodels = ["scripted:x.jsonl"]\n[executor]\nkind = "ray"\naddress = "ray://h"\n',
                    encoding="utf-8")
    done = _cli("run", "--plan", str(plan), "--out", str(tmp_path / "batch"), cwd=tmp_path)
    assert "error: RayAddressInvalid:" in done.stderr and "Traceback" not in done.stderr


def test_status_refuses_a_batch_json_whose_schema_is_an_object(tmp_path):
    batch = tmp_path / "batch"
    batch.mkdir()
    (batch / "batch.json").write_text(json.dumps({"schema": {"x": 1}, "plan": {}, "plan_sha256": "", "order": []}),
                                      encoding="utf-8")
    done = _cli("status", str(batch), cwd=tmp_path)
    assert done.returncode != 0 and "UnknownRecordSchema" in done.stderr and "Traceback" not in done.stderr
    report = _cli("report", str(batch), cwd=tmp_path)
    assert report.returncode != 0 and "Traceback" not in report.stderr


@pytest.mark.parametrize("corpus", ["c\x00x", "", "   ", 3, ["corpora/a"]])
def test_a_corpus_that_is_not_a_path_is_a_plan_error(tmp_path, corpus):
    """A NUL byte in the corpus path was a ValueError from resolve() and a traceback (found by the plan fuzz)."""
    with pytest.raises(PlanError, match="corpus must be a folder's path"):
        plan_from_mapping({"corpus": corpus, "models": [{"spec": "default"}]}, tmp_path)
