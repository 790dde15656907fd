"""The llama.cpp backend on the real default model (SmolLM2-135M-Instruct), plus the sha256 cache."""

from __future__ import annotations

import hashlib
import json

import pytest

from bakeoff.models.base import GenerationSettings, Message, ModelBackend
from bakeoff.models.filehash import file_sha256
from bakeoff.models.registry import BackendOptions, default_model_path, open_backend

NAME_A_CAT = [Message("user", "Invent a name for a cat and say why.")]


@pytest.fixture(scope="module")
def backend(tmp_path_factory):
    cache = tmp_path_factory.mktemp("hash") / "sha256.json"
    backend = open_backend("default", BackendOptions(n_ctx=1024, hash_cache_file=cache))
    yield backend
    backend.close()


@pytest.mark.llama
def test_answer_has_token_counts_timings_and_model_info(backend):
    assert isinstance(backend, ModelBackend)
    completion = backend.chat(
        [Message("system", "You are terse."), Message("user", "What is 2 + 2?")],
        key="math#1",
        settings=GenerationSettings(max_tokens=16, temperature=0.0),
    )
    assert completion.error is None and completion.text.strip()
    assert completion.finish_reason in ("stop", "length")
    assert completion.prompt_tokens > 10 and 0 < completion.completion_tokens <= 16
    assert completion.prompt_seconds > 0 and completion.generation_seconds > 0
    assert completion.backend == f"gguf:{default_model_path()}"
    info = completion.model_info
    assert info["sha256"] == hashlib.sha256(default_model_path().read_bytes()).hexdigest()
    assert info["quantization"] == "Q4_1" and info["n_ctx"] == 1024
    assert info["n_gpu_layers_requested"] == -1 and info["offloaded_layers"] == 0  # CPU build here
    assert info["llama_cpp_python_version"].startswith("0.3.")
    assert "libllama" in info["llama_cpp_libraries"] and "libggml" in info["llama_cpp_libraries"]
    json.dumps(completion.to_dict())  # a record is plain data


@pytest.mark.llama
def test_same_seed_same_text_different_seeds_different_texts(backend):
    def sample(seed):
        settings = GenerationSettings(max_tokens=24, temperature=0.8, seed=seed)
        return backend.chat(NAME_A_CAT, key="cat#1", settings=settings).text

    first = sample(11)
    other_conversation = backend.chat([Message("user", "Hi")], key="hi#1", settings=GenerationSettings(max_tokens=4))
    assert other_conversation.error is None
    assert sample(11) == first  # whatever the cache held in between
    assert len({first, sample(12), sample(13)}) == 3


@pytest.mark.llama
def test_second_turn_reuses_the_first_turns_prefix(backend):
    settings = GenerationSettings(max_tokens=24, temperature=0.0)
    turn1_messages = [Message("system", "You write short Python."), Message("user", "Print the numbers 1 to 3.")]
    turn1 = backend.chat(turn1_messages, key="code#1", settings=settings)
    turn2_messages = turn1_messages + [Message("assistant", turn1.text), Message("user", "Now 4 to 6.")]
    turn2 = backend.chat(turn2_messages, key="code#2", settings=settings)
    assert turn2.error is None
    # Everything up to the first answer is already in the KV cache: at least the first prompt.
    assert turn2.cached_prompt_tokens >= turn1.prompt_tokens - 1
    assert turn2.prompt_tokens - turn2.cached_prompt_tokens < 20


@pytest.mark.llama
def test_prompt_longer_than_the_context_is_an_error_completion(backend):
    huge = [Message("user", "spam " * 3000)]
    completion = backend.chat(huge, key="huge#1", settings=GenerationSettings(max_tokens=8))
    # a prompt the context cannot hold is the harness's setting, never the model's failure (issue 37)
    assert completion.error_kind == "context_truncated" and "n_ctx=1024" in completion.error
    # and the backend still answers afterwards
    assert backend.chat(NAME_A_CAT, key="cat#2", settings=GenerationSettings(max_tokens=4)).error is None


def test_sha256_cache_follows_size_and_mtime(tmp_path):
    model = tmp_path / "m.gguf"
    cache = tmp_path / "cache" / "sha256.json"
    model.write_bytes(b"first")
    assert file_sha256(model, cache) == hashlib.sha256(b"first").hexdigest()
    assert list(json.loads(cache.read_text()).values()) == [hashlib.sha256(b"first").hexdigest()]
    # A cached digest is served without reading the file again ...
    key = next(iter(json.loads(cache.read_text())))
    cache.write_text(json.dumps({key: "cached-digest"}))
    assert file_sha256(model, cache) == "cached-digest"
    # ... until the file changes.
    model.write_bytes(b"second, longer")
    assert file_sha256(model, cache) == hashlib.sha256(b"second, longer").hexdigest()


@pytest.mark.llama
def test_stop_sequences_end_the_answer(backend):
    free = backend.chat(NAME_A_CAT, key="cat#3", settings=GenerationSettings(max_tokens=24, temperature=0.0))
    assert "e" in free.text  # without the stop sequence the answer has an "e" ...
    stopped = backend.chat(NAME_A_CAT, key="cat#3", settings=GenerationSettings(max_tokens=24, temperature=0.0, stop=("e",)))
    assert "e" not in stopped.text and stopped.finish_reason == "stop"  # ... with it, the answer ends before one
    assert free.text.startswith(stopped.text)
