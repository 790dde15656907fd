"""The batching engine (`engine = "server"`): llama.cpp's llama-server of the same build as the binding, on the
real default model. It answers on loopback and says what it runs; a server that dies mid-answer is a
backend_crash for that turn and the next turn restarts it; it never outlives bakeoff (a normal close, and
SIGINT, SIGTERM and SIGKILL of a real `bakeoff run`, checked in the process table)."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import threading
from pathlib import Path

import psutil
import pytest
from engine_support import segfault_when_busy
from executor_support import normalized
from runner_support import bakeoff_cli, make_tiny_corpus, stage_records
from server_support import WATCHDOG_MODULE, gone, wait_for_server
from test_engine_batch import TASK_SETTINGS, start_batch, write_plan

from bakeoff.models.base import GenerationSettings, Message
from bakeoff.models.engine_build import read_build_stamp
from bakeoff.models.registry import BackendOptions, open_backend
from bakeoff.models.scheduling import usable_cores

pytestmark = [pytest.mark.llama, pytest.mark.slow]

SHORT = GenerationSettings(max_tokens=16, seed=1)
# The crash tests' budgets with a short decide: its 300 tokens are room for a signal to land mid-answer, which the
# comparison of records at one and two runs in flight does not need (half of each run's tokens went there).
SHORT_DECIDE = TASK_SETTINGS.replace("decide = 300\n", "decide = 64\n")
HELLO = [Message("user", "Say hello to the reader.")]


def server_backend(**options):
    return open_backend("default", BackendOptions(engine="server", n_ctx=2048, **options))


def _flag(command: list[str], name: str) -> int:
    """The number given to `name` on a command line (`--threads 2`)."""
    return int(command[command.index(name) + 1])


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_server_answers_on_loopback_with_the_bindings_own_build():
    backend = server_backend(max_concurrent=2)
    try:
        server, watchdog = wait_for_server(os.getpid())
        done = backend.chat(HELLO, key="hello#1", settings=SHORT)
        assert done.error is None and done.completion_tokens > 0 and done.text
        info = done.model_info
        assert (info["engine"], info["server_parallel"], info["server_pid"]) == ("server", 2, server.pid)
        # Every core that other work leaves free (bakeoff.models.scheduling), for generation and prompts alike: the
        # count bakeoff's rule chose, recorded in model_info, is the one the server process was started with.
        assert 1 <= info["n_threads"] == info["n_threads_batch"] <= usable_cores()
        assert _flag(server.cmdline(), "--threads") == info["n_threads"], server.cmdline()
        assert _flag(server.cmdline(), "--threads-batch") == info["n_threads_batch"], server.cmdline()
        stamp = read_build_stamp()
        assert info["llama_cpp_build_flags"] == stamp.flags != "unknown" and info["llama_cpp_build_key"] == stamp.key
        assert info["server_build"]["path"] == stamp.server and info["server_build"]["version"].startswith("version")
        listening = [c for c in server.net_connections(kind="inet") if c.status == psutil.CONN_LISTEN]
        assert listening and {c.laddr.ip for c in listening} == {"127.0.0.1"}
        # One tree built both: the server loads the very libraries the Python binding ships.
        import llama_cpp

        binding = Path(llama_cpp.__file__).parent / "lib"
        for name in ("libllama.so.0", "libggml.so.0", "libggml-base.so.0", "libggml-cpu.so.0"):
            assert _sha256(Path(stamp.server).parent / name) == _sha256(binding / name), name
    finally:
        backend.close()
    assert gone([server.pid, watchdog.pid])


def test_a_server_killed_mid_answer_is_a_backend_crash_and_the_next_turn_restarts_it():
    backend = server_backend()
    try:
        server, _watchdog = wait_for_server(os.getpid())
        killer = threading.Thread(target=segfault_when_busy, args=(server,), daemon=True)
        killer.start()  # SIGSEGV once the server is generating
        long = GenerationSettings(max_tokens=2000, seed=1)
        crashed = backend.chat([Message("user", "Write a very long story about a ship at sea.")], key="story#1",
                               settings=long)
        killer.join()
        assert crashed.error_kind == "backend_crash" and "SIGSEGV" in (crashed.error or "")
        assert "restarted for the next turn" in (crashed.error or "")
        again = backend.chat(HELLO, key="hello#1", settings=SHORT)
        assert again.error is None and again.completion_tokens > 0
        assert again.model_info["server_starts"] == 2 and again.model_info["server_pid"] != server.pid
    finally:
        backend.close()


@pytest.mark.docker
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["SIGINT", "SIGTERM", "SIGKILL"])
def test_no_server_outlives_a_signalled_bakeoff_run(tmp_path, signum):
    corpus = make_tiny_corpus(tmp_path / "corpus")
    plan = write_plan(tmp_path / "plan.toml", corpus, '{ spec = "default", engine = "server" }', runs=2)
    process = start_batch(plan, tmp_path / "batch")
    try:
        started = wait_for_server(process.pid, process)
        assert started, (tmp_path / "batch.log").read_text()
        logs = [Path(p.cmdline()[p.cmdline().index(WATCHDOG_MODULE) + 1]) for p in started
                if WATCHDOG_MODULE in p.cmdline()]
        os.kill(process.pid, signum)
        process.wait()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert gone([p.pid for p in started]), [p.pid for p in started]
    # The server's private folder goes with it, even when bakeoff itself was killed.
    assert logs and not any(log.parent.exists() for log in logs), logs


@pytest.mark.docker
def test_two_runs_in_flight_on_the_server_give_the_records_of_one_at_a_time(tmp_path):
    """The acceptance batch: the default model on the batching engine, N = 2 against concurrency 1."""
    corpus = make_tiny_corpus(tmp_path / "corpus")
    plan = write_plan(tmp_path / "plan.toml", corpus, '{ spec = "default", engine = "server", max_concurrent = 2 }',
                      runs=2, settings=SHORT_DECIDE)
    runs = ("default-r01", "default-r02")
    batches = {}
    for parallel in ("1", "2"):
        out = tmp_path / f"parallel-{parallel}"
        done = bakeoff_cli("run", "--no-probes", "--plan", str(plan), "--out", str(out), "--parallel", parallel)
        assert done.returncode == 0, done.stderr[-3000:]
        batches[parallel] = out
    infos = {parallel: [record["completion"]["model_info"] for run in runs
                        for record in stage_records(out / "runs" / run) if record.get("completion")]
             for parallel, out in batches.items()}
    assert {info["server_parallel"] for info in infos["1"]} == {1}
    assert {info["server_parallel"] for info in infos["2"]} == {2}
    assert normalized_batch(batches["2"]) == normalized_batch(batches["1"])
    for run in runs:  # stage by stage, prompts and the model's every answer: the same except times
        alone, beside = (stage_records(batches[n] / "runs" / run) for n in "12")
        assert [normalized(r) for r in beside] == [normalized(r) for r in alone], run
        summaries = [normalized(json.loads((batches[n] / "runs" / run / "run.json").read_text())) for n in "12"]
        assert summaries[0] == summaries[1]
    # Every server those batches started is gone with them.
    pids = {info["server_pid"] for found in infos.values() for info in found}
    assert None not in pids and gone(sorted(pids))


def normalized_batch(batch: Path) -> object:
    return normalized(json.loads((batch / "batch.json").read_text()))


def test_the_same_request_gives_the_same_tokens_cold_cached_and_beside_another():
    """What makes records independent of the concurrency: llama.cpp's tokens must not depend on the batch."""
    backend = server_backend(max_concurrent=2)
    design = [Message("system", "You are a careful data scientist. " * 40),
              Message("user", "Write a design document for a spam classifier: metric, features, validation.")]
    story = [Message("system", "You write long stories. " * 90), Message("user", "Tell a story about a lighthouse.")]
    settings = GenerationSettings(max_tokens=120, seed=1)
    try:
        cold = backend.chat(design, key="design#1", settings=settings)
        cached = backend.chat(design, key="design#1", settings=settings)
        assert cached.cached_prompt_tokens > 0  # the prefix came from the cache this time
        beside = {}
        other = threading.Thread(target=lambda: beside.setdefault("story", backend.chat(story, key="story#1",
                                                                                     settings=settings)))
        other.start()
        batched = backend.chat(design, key="design#1", settings=settings)
        other.join()
        assert beside["story"].error is None
        assert cold.error is None and cold.completion_tokens > 20
        assert cached.text == cold.text and batched.text == cold.text
    finally:
        backend.close()
