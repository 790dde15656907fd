"""`bakeoff check` on this machine (each row must say what is true here), and with a simulated crashing engine."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from click.testing import CliRunner
from engine_support import segfault_at_first_token, segfault_at_start

from bakeoff.cli import main
from bakeoff.models.engine_build import read_build_stamp
from bakeoff.models.engine_check import EngineUnusable
from bakeoff.models.memory import NvmlProbe
from bakeoff.models.registry import default_model_path, parse_spec
from bakeoff.preflight import CheckOptions, State, machine_report, render
from sandbox.image import IMAGE_TAG


def docker_engine_answers() -> bool:
    return subprocess.run(["docker", "info"], capture_output=True, check=False).returncode == 0


def llama_facts() -> tuple[str, bool]:
    """The system-info line and offload support, asked of llama_cpp in a process of its own."""
    script = "import json, llama_cpp; print(json.dumps([llama_cpp.llama_print_system_info().decode().strip(), " \
             "bool(llama_cpp.llama_supports_gpu_offload())]))"
    import sys

    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    info, offload = json.loads(done.stdout.strip().splitlines()[-1])
    return info, offload


@pytest.mark.llama
@pytest.mark.docker
def test_check_says_what_is_true_on_this_machine(tmp_path):
    result = CliRunner().invoke(main, ["check", "--json", "--out", str(tmp_path / "batch")])
    report = json.loads(result.output)
    rows = {row["item"]: row for row in report["rows"]}
    system_info, offload = llama_facts()
    stamp = read_build_stamp()
    assert rows["engine build"]["state"] == "ok" and stamp.flags in rows["engine build"]["detail"]
    assert "-DGGML_NATIVE=OFF" in stamp.flags  # the portable build setup.sh makes
    assert system_info in rows["engine build"]["detail"]
    assert rows["engine generates"]["state"] == "ok" and "1 token" in rows["engine generates"]["detail"]
    assert rows["GPU offload"]["state"] == ("ok" if offload else "no")
    assert rows["batching server"]["state"] == "ok" and stamp.server in rows["batching server"]["detail"]
    gpu = NvmlProbe().read()
    assert rows["GPU memory"]["state"] == ("ok" if gpu else "no")
    if gpu is None:
        assert "no NVIDIA GPU" in rows["GPU memory"]["detail"]
    assert rows["docker engine"]["state"] == ("ok" if docker_engine_answers() else "FAIL")
    assert rows["sandbox image"]["state"] == "ok" and IMAGE_TAG in rows["sandbox image"]["detail"]
    assert rows["bubblewrap"]["state"] == ("ok" if shutil.which("bwrap") else "no")
    free_gib = shutil.disk_usage(tmp_path).free / 1024**3
    shown = float(rows["free disk"]["detail"].split(" GiB")[0])
    assert abs(shown - free_gib) < 0.5 and str(tmp_path) in rows["free disk"]["detail"]
    assert report["ready"] is True and result.exit_code == 0


@pytest.mark.llama
@pytest.mark.docker
def test_check_table_is_one_row_per_item():
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 0, result.output
    items = [line.split("  ")[0] for line in result.output.splitlines()[1:10]]
    assert items == ["engine build", "engine generates", "GPU offload", "batching server", "GPU memory",
                     "docker engine", "sandbox image", "bubblewrap", "free disk"]
    assert result.output.rstrip().endswith("this machine is ready")


def options(tmp_path, entry, sandbox="bwrap"):
    return CheckOptions(image=IMAGE_TAG, out_dir=tmp_path, model_path=default_model_path(), sandbox=sandbox,
                        engine_entry=entry)


@pytest.mark.llama
def test_a_build_that_crashes_at_the_first_token_is_reported_not_suffered(tmp_path):
    report = machine_report(options(tmp_path, segfault_at_first_token))
    generates = report.row("engine generates")
    assert generates.state is State.FAIL
    assert "SIGSEGV" in generates.detail and "while generating its first token" in generates.detail
    assert "bash scripts/setup.sh" in generates.detail  # the fix
    assert "AVX2 = 1" in report.row("engine build").detail  # it loaded, so it reported its build
    assert not report.ready and "FAIL" in render(report) and "NOT ready" in render(report)


def test_an_engine_that_dies_before_loading_is_reported(tmp_path):
    report = machine_report(options(tmp_path, segfault_at_start))
    generates = report.row("engine generates")
    assert generates.state is State.FAIL and "SIGSEGV" in generates.detail and "while loading" in generates.detail
    assert "did not report" in report.row("engine build").detail and not report.ready


@pytest.mark.llama
def test_run_preflight_stops_on_a_crashing_engine_and_names_the_rebuild(tmp_path):
    from bakeoff.cli.batch import check_engine

    with pytest.raises(EngineUnusable, match="crashes on this machine") as refused:
        check_engine([parse_spec("default")], entry=segfault_at_first_token)
    assert "SIGSEGV" in str(refused.value) and "bash scripts/setup.sh" in str(refused.value)
    check_engine([parse_spec("default")])  # the installed build generates: no error
    check_engine([parse_spec(f"scripted:{tmp_path / 'answers.jsonl'}")], entry=segfault_at_start)  # no gguf model: not tried


@pytest.mark.llama
def test_run_tries_the_engine_before_the_first_run(tmp_path):
    from runner_support import bakeoff_cli

    from bakeoff.batchfolder.lock import batch_lock

    # What refuses the batch in a moment (here a missing corpus) is said before the engine test (issue 38).
    done = bakeoff_cli("run", "--model", "default", "--runs", "1", "--corpus", str(tmp_path / "no-corpus"),
                       "--out", str(tmp_path / "batch"))
    assert "error: CorpusFolderMissing" in done.stderr and "engine: " not in done.stderr
    corpus = tmp_path / "ab"
    made = bakeoff_cli("generate", "--task", "ab_test", "--out", str(corpus), "--experiments", "2", "--users", "400")
    assert made.returncode == 0, made.stderr
    (tmp_path / "batch").mkdir()
    with batch_lock(tmp_path / "batch"):  # another writer holds the folder: the preflight stops there
        done = bakeoff_cli("run", "--model", "default", "--runs", "1", "--corpus", str(corpus),
                           "--out", str(tmp_path / "batch"))
    # The engine generated (said on stderr) before the batch began, and the preflight stopped at the lock.
    assert "engine: 1 token" in done.stderr
    assert done.stderr.index("engine: 1 token") < done.stderr.index("error: BatchLocked")
    assert done.returncode == 3 and "Traceback" not in done.stderr
