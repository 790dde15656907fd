"""The servers an `openai:` model entry may name (`server = ...`), and the request fields each takes the reasoning
switch in. A server's name is not a backend kind's: Ollama is both a kind (`ollama:`, its native API) and a server
behind `openai:` (its OpenAI-compatible endpoint), so this table is where the word may be compared
(tests/test_model_kinds.py lists it beside the kinds' modules)."""

from __future__ import annotations

from bakeoff.models.errors import ReasoningModeUnsupported

__all__ = ["REASONING_SWITCHES", "SERVERS", "reasoning_fields"]


def _template_switch(mode: str) -> dict:
    """llama.cpp's server hands `chat_template_kwargs` to the model's template (Qwen3's enable_thinking, gpt-oss's
    reasoning_effort)."""
    if mode == "off":
        return {"chat_template_kwargs": {"enable_thinking": False}}
    return {"chat_template_kwargs": {"reasoning_effort": mode}}


def _vllm_switch(mode: str) -> dict:
    """vLLM reads the template's switch, and gpt-oss's effort as a top-level field too."""
    return _template_switch(mode) if mode == "off" else {**_template_switch(mode), "reasoning_effort": mode}


def _ollama_openai_switch(mode: str) -> dict:
    """Ollama's OpenAI endpoint reads `reasoning_effort`, "none" for off."""
    return {"reasoning_effort": "none" if mode == "off" else mode}


# Which field carries the reasoning switch, by the server the model entry names.
REASONING_SWITCHES = {"llama.cpp": _template_switch, "vllm": _vllm_switch, "ollama": _ollama_openai_switch}
SERVERS = tuple(REASONING_SWITCHES)


def reasoning_fields(mode: str, server: str) -> dict:
    """The request fields that set reasoning `mode` on `server` (none for "default")."""
    if mode == "default":
        return {}
    if mode not in ("off", "low", "medium", "high"):
        raise ReasoningModeUnsupported(f"reasoning must be default, off, low, medium or high, got {mode!r}")
    switch = REASONING_SWITCHES.get(server)
    if switch is None:
        raise ReasoningModeUnsupported(
            f"reasoning {mode!r} over HTTP needs the model entry to say which server it is "
            f"(server = one of {', '.join(SERVERS)}): each takes the switch in its own field"
        )
    return switch(mode)
