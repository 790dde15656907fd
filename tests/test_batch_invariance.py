"""llama.cpp's tokens do not depend on the batch: the logprob of every generated token, as the real
llama-server of setup.sh's build reports it, is the same bit for bit for a request alone, again from the
prefix cache, and decoded beside other requests whose prompts arrive while it decodes. This is what lets
records at N runs in flight equal those at one (tests/test_server_engine.py). It failed with llamafile's sgemm
built in (3 of 6 answers changed, cold against cached; docs/models.md), on the default model (Q4_1) and on a
Q4_0 copy that llama.cpp repacks."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
from gguf_copies import requantized_q4_0

from bakeoff.models.llama_server import ServerCommand, ServerProcess, find_server_build
from bakeoff.models.registry import default_model_path

pytestmark = [pytest.mark.llama, pytest.mark.slow]

SLOTS = 4
MAX_TOKENS = 32
# Each request starts this long after the one before: a prompt is read while the earlier ones decode (a
# request of MAX_TOKENS decodes for longer than this even on an idle machine).
STAGGER_S = 0.25
PROMPTS = [
    ("You are a careful data scientist. " * 30, "Write a design document for a spam classifier."),
    ("You write long stories. " * 60, "Tell a story about a lighthouse keeper."),
    ("Answer in Python. " * 10, "Write a function that fits a logistic regression with numpy."),
    ("You explain statistics. " * 20, "What is a p-value, and how is it misused?"),
]


def answer(client: httpx.Client, url: str, prompt: tuple[str, str]) -> list[tuple[str, float]]:
    """(token, logprob) of every generated token; sampled (temperature 0.7, a fixed seed), as runs are.
    MAX_TOKENS (32, was 64: half the test's cost) is enough: logprobs are compared bit for bit, so a kernel whose
    result depends on the batch changes them from the first generated token on."""
    system, user = prompt
    reply = client.post(f"{url}/v1/chat/completions", json={
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        "max_tokens": MAX_TOKENS, "temperature": 0.7, "seed": 1, "logprobs": True, "top_logprobs": 1})
    reply.raise_for_status()
    return [(token["token"], token["logprob"]) for token in reply.json()["choices"][0]["logprobs"]["content"]]


@pytest.mark.parametrize("model", ["default", "q4_0"])
def test_every_logprob_is_the_same_alone_cached_and_beside_other_requests(tmp_path, model):
    path = default_model_path() if model == "default" else requantized_q4_0(tmp_path)
    command = ServerCommand(model=path, parallel=SLOTS, n_ctx=2048, n_threads=2, n_threads_batch=2,
                            n_gpu_layers=0, seed=0)
    server = ServerProcess.start(find_server_build(), command, ready_timeout_s=120)
    try:
        with httpx.Client(timeout=httpx.Timeout(300.0), headers=server.auth_headers) as client:
            alone = [answer(client, server.base_url, prompt) for prompt in PROMPTS]
            cached = [answer(client, server.base_url, prompt) for prompt in PROMPTS]
            beside: dict[int, list[tuple[str, float]]] = {}

            def one(index: int) -> None:
                time.sleep(STAGGER_S * index)  # staggered: a prompt is read while the others decode
                beside[index] = answer(client, server.base_url, PROMPTS[index])

            threads = [threading.Thread(target=one, args=(index,)) for index in range(len(PROMPTS))]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    finally:
        server.stop()
    assert all(len(tokens) > 20 for tokens in alone)
    assert cached == alone
    assert [beside[index] for index in range(len(PROMPTS))] == alone
