"""The sandbox image build, `bakeoff sandbox build`, the sandbox rows of `bakeoff check`, and the host wheelhouse."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from bakeoff.cli import main
from sandbox.image import (
    BASE_LABEL,
    DOCKERFILE,
    HASH_LABEL,
    IMAGE_STACK,
    IMAGE_TAG,
    BuildOptions,
    build_hash,
    build_image,
    image_status,
)
from sandbox.wheelhouse import TargetPlatform, download_wheels, requirement_set_key


class Recorder:
    def __init__(self) -> None:
        self.steps: list[str] = []
        self.details: list[str] = []

    def step(self, message: str) -> None:
        self.steps.append(message)

    def detail(self, line: str) -> None:
        self.details.append(line)


def test_build_hash_follows_the_recipe():
    base = build_hash("sha256:base")
    assert base == build_hash("sha256:base")
    assert base != build_hash("sha256:other-base")
    assert base != build_hash("sha256:base", dockerfile=DOCKERFILE.read_bytes() + b"\n# changed\n")
    assert base != build_hash("sha256:base", stack=IMAGE_STACK[:-1])


def test_dockerfile_takes_the_base_as_an_argument_and_makes_a_venv():
    text = DOCKERFILE.read_text()
    assert "ARG BASE_IMAGE=python:3.11-slim" in text and "FROM ${BASE_IMAGE}" in text
    assert "PATH=/opt/venv/bin:" in text
    assert "--no-index" in text


def test_requirement_set_key_ignores_order_and_blank_lines():
    target = TargetPlatform()
    assert requirement_set_key(["b", "a", ""], target) == requirement_set_key(["a", " b "], target)
    assert requirement_set_key(["a"], target) != requirement_set_key(["a"], TargetPlatform(python_version="3.12"))


def test_wheelhouse_downloads_for_the_sandbox_platform_then_answers_from_its_stamp(tmp_path):
    first = download_wheels(["six==1.16.0"], tmp_path)
    assert first.ok and not first.cached
    assert first.files == ("six-1.16.0-py2.py3-none-any.whl",)
    assert zipfile.is_zipfile(tmp_path / first.files[0])
    # A python that cannot run proves that the second answer comes from the stamp, not from pip.
    second = download_wheels(["six==1.16.0"], tmp_path, python="/nonexistent/python")
    assert second.ok and second.cached and second.files == first.files


def test_wheelhouse_reports_a_requirement_that_cannot_be_had(tmp_path):
    result = download_wheels(["bakeoff-no-such-package-anywhere==9.9"], tmp_path)
    assert not result.ok and result.files == ()
    assert "bakeoff-no-such-package-anywhere" in result.log_tail
    assert not list(tmp_path.glob("*.whl"))


@pytest.mark.docker
def test_the_image_is_current_and_a_second_build_does_nothing(tmp_path):
    import docker

    client = docker.from_env()
    status = image_status(client)
    assert status.present and status.current, status.detail
    progress = Recorder()
    empty_wheelhouse = tmp_path / "wheels"
    report = build_image(BuildOptions(bootstrap=True, wheelhouse=empty_wheelhouse), progress, client)
    assert not report.built and not report.bootstrapped
    assert report.image_id == client.images.get(IMAGE_TAG).id
    assert not empty_wheelhouse.exists()  # up to date: not even the wheelhouse was needed
    labels = client.images.get(IMAGE_TAG).labels
    assert labels[HASH_LABEL] == report.build_hash
    assert labels[BASE_LABEL] == report.base_image


@pytest.mark.docker
@pytest.mark.slow
def test_a_forced_build_really_builds_a_labelled_image(tmp_path):
    import docker

    client = docker.from_env()
    tag = "bakeoff-sandbox-test:forced"
    wheelhouse = Path(BuildOptions().wheelhouse)
    progress = Recorder()
    try:
        # The base is named and present: the plain (not --bootstrap) path, as with python:3.11-slim on a workstation.
        base = client.images.get(IMAGE_TAG).labels[BASE_LABEL]
        options = BuildOptions(image_tag=tag, base_image=base, wheelhouse=wheelhouse, force=True)
        report = build_image(options, progress, client)
        assert report.built and report.base_image == base and not report.bootstrapped
        image = client.images.get(tag)
        assert image.labels[HASH_LABEL] == report.build_hash
        assert any("Successfully built" in line for line in progress.details)
        output = client.containers.run(tag, ["python", "-c", "import sklearn, sys; print(sys.prefix)"],
                                       network_mode="none", remove=True)
        assert output.decode().strip() == "/opt/venv"
    finally:
        try:
            client.images.remove(tag)
        except docker.errors.ImageNotFound:
            pass


def check_rows(result) -> dict:
    """`bakeoff check --json` rows by item (the sandbox rows of the machine check)."""
    return {row["item"]: row for row in json.loads(result.output)["rows"]}


@pytest.mark.docker
def test_cli_check_says_docker_is_usable():
    result = CliRunner().invoke(main, ["check", "--json"])
    assert result.exit_code == 0, result.output
    rows = check_rows(result)
    assert rows["docker engine"]["state"] == rows["sandbox image"]["state"] == "ok"
    assert "a test command ran" in rows["sandbox image"]["detail"]
    assert "bubblewrap" in rows


@pytest.mark.docker
def test_cli_check_fails_and_says_why_without_the_image():
    result = CliRunner().invoke(main, ["check", "--json", "--image", "bakeoff-no-such-image:never"])
    assert result.exit_code == 1
    image = check_rows(result)["sandbox image"]
    assert image["state"] == "FAIL" and "bakeoff sandbox build" in image["detail"]


@pytest.mark.docker
def test_cli_build_is_quick_to_say_up_to_date():
    result = CliRunner().invoke(main, ["sandbox", "build", "--bootstrap"])
    assert result.exit_code == 0, result.output
    assert "up to date" in result.output


@pytest.mark.docker
def test_cli_build_without_a_reachable_base_says_to_bootstrap(tmp_path):
    result = CliRunner().invoke(main, ["sandbox", "build", "--base-image", "bakeoff-no-such-base:never",
                                       "--tag", "bakeoff-sandbox-test:never", "--wheelhouse", str(tmp_path)])
    assert result.exit_code != 0
    assert "--bootstrap" in result.output
    assert "Traceback" not in result.output


def test_cli_help_for_every_sandbox_command():
    for argv in (["sandbox", "--help"], ["sandbox", "build", "--help"], ["check", "--help"]):
        result = CliRunner().invoke(main, argv)
        assert result.exit_code == 0 and "Usage" in result.output


def test_cli_check_without_an_engine_says_so_and_fails(tmp_path):
    missing_engine = f"unix://{tmp_path / 'no-engine.sock'}"
    result = CliRunner().invoke(main, ["check", "--json"], env={"DOCKER_HOST": missing_engine})
    assert result.exit_code == 1
    engine = check_rows(result)["docker engine"]
    assert engine["state"] == "FAIL" and "not reachable" in engine["detail"]
    assert "Traceback" not in result.output


def test_opening_a_docker_sandbox_without_an_engine_is_unavailable(tmp_path, monkeypatch):
    from sandbox.base import SandboxSpec
    from sandbox.errors import SandboxUnavailable
    from sandbox.factory import open_sandbox

    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path / 'no-engine.sock'}")
    with pytest.raises(SandboxUnavailable, match="not reachable"):
        open_sandbox("docker", SandboxSpec(workspace=tmp_path))


@pytest.mark.docker
def test_the_base_the_sandbox_image_was_built_on_runs_python_311_offline():
    """The base under the sandbox image (on an offline machine, the one setup's `--bootstrap` made with debootstrap
    from this machine's mirror) runs Python 3.11 with no network. Making a base from scratch takes minutes: that
    full run is bench/bootstrap.py, and CI's setup does it on every cold machine."""
    import docker

    client = docker.from_env()
    base = client.images.get(IMAGE_TAG).labels[BASE_LABEL]
    script = "import sys, venv, ensurepip; print(sys.version_info[:2])"
    output = client.containers.run(base, ["python3", "-c", script], network_mode="none", remove=True)
    assert output.decode().strip() == "(3, 11)", base


def test_cli_check_reports_an_engine_that_answers_with_an_error(monkeypatch):
    import docker.errors

    import sandbox.docker

    class EngineInTrouble:
        def version(self):
            raise docker.errors.APIError("500 Server Error: the engine is shutting down")

        def close(self):
            pass

    monkeypatch.setattr(sandbox.docker, "connect", lambda client=None: EngineInTrouble())
    result = CliRunner().invoke(main, ["check", "--json"])
    assert result.exit_code == 1
    engine = check_rows(result)["docker engine"]
    assert engine["state"] == "FAIL" and "shutting down" in engine["detail"]
    assert "Traceback" not in result.output
