"""The gguf backend's engine process on the real default model, under real signals.

The engine (llama.cpp) runs in a child process: a SIGSEGV sent to it in the
middle of a generation makes that turn a `backend_crash` failure, and the next
turn is answered by a restarted engine. Three crashed turns in a row make the
backend fail fast. A generation past its deadline is ended by stopping the child.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import psutil
import pytest
from engine_support import EngineKiller, engine_children, segfault_when_busy

from bakeoff.answers import audit
from bakeoff.models.base import GenerationSettings, Message
from bakeoff.models.engine_build import read_build_stamp
from bakeoff.models.gguf import MAX_CONSECUTIVE_CRASHES, GgufBackend, GgufSettings
from bakeoff.models.registry import default_model_path
from bakeoff.records.enums import CaptureStatus

pytestmark = pytest.mark.llama

COUNT = [Message("user", "Count from 1 to 500, one number a line.")]
LONG = GenerationSettings(max_tokens=400, temperature=0.0)
SHORT = GenerationSettings(max_tokens=4, temperature=0.0)


@pytest.fixture
def backend(tmp_path):
    backend = GgufBackend(default_model_path(), GgufSettings(n_ctx=1024, hash_cache_file=tmp_path / "h.json"))
    yield backend
    backend.close()


def chat_in_thread(backend, messages, settings):
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("c", backend.chat(messages, key="t#1", settings=settings)))
    thread.start()
    return thread, result


def test_the_engine_is_a_child_process_and_model_info_names_the_build(backend):
    (child,) = engine_children(os.getpid())
    assert child.pid == backend.engine_pid != os.getpid()
    completion = backend.chat(COUNT, key="c#1", settings=SHORT)
    assert completion.error is None and completion.completion_tokens > 0
    info = completion.model_info
    assert info["llama_cpp_system_info"].startswith("CPU :") and "AVX2 = 1" in info["llama_cpp_system_info"]
    assert info["llama_cpp_build_flags"] == read_build_stamp().flags != "unknown"  # setup.sh wrote the stamp
    assert "-DGGML_NATIVE=OFF" in info["llama_cpp_build_flags"]
    # The portable build never compiles llama.cpp's AMX path, the one that segfaults on
    # Sapphire-Rapids-class CPUs: on such a CPU a native build reports AMX_INT8 = 1 here.
    assert "AMX" not in info["llama_cpp_system_info"]
    assert info["engine_pid"] == child.pid and info["engine_starts"] == 1


def test_a_segfault_mid_generation_is_backend_crash_and_the_next_turn_restarts(backend):
    (child,) = engine_children(os.getpid())
    thread, result = chat_in_thread(backend, COUNT, LONG)
    assert segfault_when_busy(child)
    thread.join()
    crashed = result["c"]
    assert crashed.error_kind == "backend_crash" and "SIGSEGV" in crashed.error and "-11" in crashed.error
    assert (audit(crashed).status, audit(crashed).reason) == (CaptureStatus.UNCAPTURED, "backend_crash")
    assert not psutil.pid_exists(child.pid) or child.status() == psutil.STATUS_ZOMBIE
    again = backend.chat(COUNT, key="c#2", settings=SHORT)
    assert again.error is None and again.text
    assert again.model_info["engine_starts"] == 2 and again.model_info["engine_pid"] != child.pid


def test_an_engine_killed_between_turns_is_restarted_without_losing_a_turn(backend):
    (child,) = engine_children(os.getpid())
    os.kill(child.pid, signal.SIGKILL)  # what the OOM killer does to an idle engine
    while child.status() != psutil.STATUS_ZOMBIE:  # dead, and left for its parent (the backend) to reap
        time.sleep(0.01)
    answered = backend.chat(COUNT, key="k#1", settings=SHORT)
    assert answered.error is None and answered.completion_tokens > 0
    assert answered.model_info["engine_starts"] == 2


def test_an_engine_reaped_by_someone_else_between_turns_still_loses_no_turn(backend):
    (child,) = engine_children(os.getpid())
    os.kill(child.pid, signal.SIGKILL)
    os.waitpid(child.pid, 0)  # another part of the process reaps it first (multiprocessing's waitpid then fails)
    answered = backend.chat(COUNT, key="r#1", settings=SHORT)
    assert answered.error is None and answered.completion_tokens > 0
    assert answered.model_info["engine_starts"] == 2


def test_three_crashed_turns_in_a_row_fail_every_later_turn_fast(backend):
    (child,) = engine_children(os.getpid())
    thread, result = chat_in_thread(backend, COUNT, LONG)
    assert segfault_when_busy(child)
    thread.join()
    assert result["c"].error_kind == "backend_crash"
    with EngineKiller(os.getpid()) as killer:  # every restarted engine gets SIGSEGV as soon as it appears
        for turn in range(2, MAX_CONSECUTIVE_CRASHES + 1):
            crashed = backend.chat(COUNT, key=f"c#{turn}", settings=SHORT)
            assert crashed.error_kind == "backend_crash" and "SIGSEGV" in crashed.error, crashed.error
        assert "not restarted again" in crashed.error
        started = len(killer.killed)
        fast = backend.chat(COUNT, key="c#9", settings=SHORT)
    assert fast.error_kind == "backend_crash" and "consecutive turns" in fast.error
    assert len(killer.killed) == started == MAX_CONSECUTIVE_CRASHES - 1  # no engine started for the fast failure
    assert engine_children(os.getpid()) == []


def test_a_generation_past_its_deadline_is_ended_by_stopping_the_child(tmp_path):
    # No grace at all: the parent stops the engine while it is still evaluating the long prompt.
    settings = GgufSettings(n_ctx=1024, hash_cache_file=tmp_path / "h.json", deadline_grace_s=0.0)
    backend = GgufBackend(default_model_path(), settings)
    try:
        (child,) = engine_children(os.getpid())
        long_prompt = [Message("user", "Summarise this: " + "the data has many rows and columns. " * 90)]
        late = backend.chat(long_prompt, key="d#1", settings=GenerationSettings(max_tokens=50, timeout_s=0.01))
        assert late.error_kind == "timeout" and "was stopped" in late.error
        assert audit(late).reason == "timeout"
        assert not psutil.pid_exists(child.pid) or child.status() == psutil.STATUS_ZOMBIE
        again = backend.chat(COUNT, key="d#2", settings=SHORT)
        assert again.error is None and again.model_info["engine_starts"] == 2
    finally:
        backend.close()


def test_close_ends_the_engine(tmp_path):
    backend = GgufBackend(default_model_path(), GgufSettings(n_ctx=512, hash_cache_file=tmp_path / "h.json"))
    (child,) = engine_children(os.getpid())
    backend.close()
    assert engine_children(os.getpid()) == [] and not psutil.pid_exists(child.pid)
