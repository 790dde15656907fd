"""The batching server against another local user and against its own hang (issue 32, rows 3 and 10), with the real
llama-server and a real second user (uid 65534, through setpriv).

Row 3: a local user who learns the port before the server binds it can bind it first, answer /health and then
every turn; and a server without a key fills its slots for anyone. Now the port and the key are never where another
user can read them, what answers /health is checked to be bakeoff's own child, and a request without the key is
refused. Row 10: a server that is stopped (SIGSTOP) is killed after the turn that timed out on it, and the next turn
gets a fresh one, instead of every later turn waiting out its whole timeout."""

from __future__ import annotations

import os
import shutil
import signal
import stat
import tempfile
from pathlib import Path

import httpx
import psutil
import pytest
from server_support import Squatter, gone, wait_for_server

from bakeoff.models import errors
from bakeoff.models.base import GenerationSettings, Message
from bakeoff.models.llama_server import ServerCommand, ServerProcess, find_server_build, free_port
from bakeoff.models.registry import BackendOptions, default_model_path, open_backend

pytestmark = [pytest.mark.llama, pytest.mark.slow]

SHORT = GenerationSettings(max_tokens=16, seed=1)
HELLO = [Message("user", "Say hello to the reader.")]
STORY = [Message("user", "Write a very long story about a ship at sea.")]
SQUATTED = "SQUATTED"


@pytest.fixture
def shared_tmp(monkeypatch):
    """A temporary folder every local user may list, as /tmp is, made bakeoff's: the squatter watches this one alone
    (never another engineer's servers in the real /tmp)."""
    folder = Path(tempfile.mkdtemp(prefix="bakeoff-shared-tmp-"))
    folder.chmod(0o1777)
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def server_backend():
    return open_backend("default", BackendOptions(engine="server", n_ctx=2048))


def test_a_local_user_who_watches_for_the_port_answers_no_turn_and_the_key_is_required(shared_tmp):
    squatter = Squatter(shared_tmp)
    squatter.wait_for("watching")
    backend = server_backend()
    try:
        answers = [backend.chat(HELLO, key=f"hello#{turn}", settings=SHORT) for turn in (1, 2)]
        for answer in answers:
            assert answer.error is None and SQUATTED not in answer.text and answer.completion_tokens > 0, (answer, squatter.events)
        [private] = list(shared_tmp.iterdir())  # where the server's log (which names the port) is
        assert stat.S_IMODE(private.stat().st_mode) == 0o700 and private.stat().st_uid == os.getuid()
        assert squatter.wait_for("listing_refused") == {"event": "listing_refused", "path": str(private)}
        without_key = httpx.post(f"{backend.base_url}/v1/chat/completions", timeout=60,
                                 json={"messages": [{"role": "user", "content": "hi"}], "max_tokens": 4})
        assert without_key.status_code == 401
        server, watchdog = wait_for_server(os.getpid())
        command_lines = server.cmdline() + watchdog.cmdline()  # what every local user may read in /proc
        key = backend.auth_headers["Authorization"].removeprefix("Bearer ")
        assert len(key) >= 32 and "--port" not in command_lines and not any(key in arg for arg in command_lines)
    finally:
        backend.close()
        events = squatter.stop()
    assert not [event for event in events if event["event"] in ("found", "bound", "served")], events


def test_a_port_another_user_bound_first_is_refused_by_name_and_the_server_starts_on_another():
    port = free_port()
    squatter = Squatter(Path("/nonexistent"), port)
    squatter.wait_for("bound")
    build = find_server_build()
    command = ServerCommand(model=default_model_path(), parallel=1, n_ctx=2048, n_threads=1, n_threads_batch=1,
                            n_gpu_layers=0, seed=0)
    try:
        with pytest.raises(errors.ServerPortTaken, match=f"port {port} "):
            ServerProcess.start(build, command, ready_timeout_s=120, choose_port=lambda: port)
        ports = iter([port, free_port()])
        server = ServerProcess.start(build, command, ready_timeout_s=120, choose_port=lambda: next(ports))
        try:
            reply = httpx.post(f"{server.base_url}/v1/chat/completions", headers=server.auth_headers, timeout=120,
                               json={"messages": [{"role": "user", "content": "hi"}], "max_tokens": 4})
        finally:
            server.stop()
    finally:
        events = squatter.stop()
    assert server.port != port
    assert reply.status_code == 200 and SQUATTED not in reply.text
    served = [event for event in events if event["event"] == "served"]
    assert served and {event["path"] for event in served} == {"/health"}, events  # it answered; it got nothing else
    assert not any(event["authorization"] for event in served)


def test_a_stopped_server_is_killed_after_the_turn_that_timed_out_and_the_next_turn_gets_a_new_one():
    backend = server_backend()
    server, watchdog = wait_for_server(os.getpid())
    fresh = []
    try:
        # A turn that runs out of time on a server that still answers /health leaves the server running.
        busy = backend.chat(STORY, key="story#1", settings=GenerationSettings(max_tokens=2000, seed=1, timeout_s=1))
        os.kill(server.pid, signal.SIGSTOP)
        timed_out = backend.chat(HELLO, key="hello#1", settings=GenerationSettings(max_tokens=16, seed=1, timeout_s=3))
        # Far below this turn's own timeout (on the stopped server it would wait all of it and fail).
        again = backend.chat(HELLO, key="hello#2", settings=GenerationSettings(max_tokens=16, seed=1, timeout_s=120))
        fresh = [process.pid for process in wait_for_server(os.getpid())]
    finally:
        if psutil.pid_exists(server.pid):
            os.kill(server.pid, signal.SIGCONT)
        backend.close()
    assert busy.error_kind == "timeout" and "killed" not in (busy.error or "")
    assert again.error is None and again.completion_tokens > 0, again.error
    assert timed_out.error_kind == "timeout" and "killed, the next turn starts a fresh one" in (timed_out.error or "")
    assert again.model_info["server_starts"] == 2 and again.model_info["server_pid"] not in (server.pid, None)
    assert gone([server.pid, watchdog.pid, *fresh])
