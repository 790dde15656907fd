"""A real llama.cpp server's `tool_calls`, through the OpenAI-compatible backend.

llama-cpp-python's own server (`python -m llama_cpp.server`) serves the default model on 127.0.0.1; asked to
call a named tool (`tool_choice`), it constrains the answer to the tool's JSON schema and returns it as
`tool_calls`, as llama.cpp's server and vLLM do for models trained for tools. The backend sends the tools and
the earlier turns in the API's shape and reads the calls back; the audit judges them.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import httpx
import pytest

from bakeoff.answers import audit_tool_calls
from bakeoff.models.base import GenerationSettings, Message
from bakeoff.models.openai_compat import OpenAICompatBackend
from bakeoff.models.registry import default_model_path
from bakeoff.models.tools import ToolCall, ToolSyntax
from bakeoff.records import CaptureStatus
from bakeoff.scaffolds.agent.tools import TOOLS

pytestmark = [pytest.mark.llama, pytest.mark.slow]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(default_model_path()),
                                    "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", "1"],
                                   stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(600):  # the model loads in seconds; a busy machine may take longer
            if process.poll() is not None:
                pytest.fail(f"the server exited: {log.read_text(errors='replace')[-2000:]}")
            try:
                if httpx.get(f"{url}/models", timeout=1.0).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        else:
            pytest.fail("the server did not come up")
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_the_server_s_tool_calls_are_read_and_audited(server):
    backend = OpenAICompatBackend(server, "default")
    earlier = [Message("system", "You write files with the tools."), Message("user", "Make a folder listing."),
               Message("assistant", "", (ToolCall("list_files", "{}", "s001c0000"),)),
               Message("tool", "train.py (20 bytes)", tool_call_id="s001c0000", name="list_files"),
               Message("user", "Now write hello.py that prints hello.")]
    settings = GenerationSettings(max_tokens=300, tools=TOOLS, tool_choice="write_file", seed=3)
    try:
        completion = backend.chat(earlier, key="agent#2", settings=settings)
    finally:
        backend.close()
    assert completion.error is None, completion.error
    assert backend.tool_syntax == ToolSyntax.OPENAI
    assert completion.model_info["tool_syntax"] == ToolSyntax.OPENAI and completion.model_info["tool_calls_from"] == "server"
    assert [c.name for c in completion.tool_calls] == ["write_file"] and completion.tool_calls[0].call_id
    arguments = completion.tool_calls[0].parsed_arguments()  # the server's grammar held it to the tool's schema
    assert set(arguments) == {"path", "content"}
    capture, problems = audit_tool_calls(completion, TOOLS, settings.total_tokens)
    assert capture.status == CaptureStatus.CAPTURED and problems == (None,)
