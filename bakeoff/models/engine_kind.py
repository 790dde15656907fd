"""Which engine serves a gguf: model (the plan's `engine` option), named once for the registry and both engines."""

from __future__ import annotations

from enum import StrEnum


class Engine(StrEnum):
    """What serves a gguf: model (the plan's `engine`)."""

    BINDING = "binding"  # llama-cpp-python in bakeoff's own engine process: one generation at a time
    SERVER = "server"  # llama.cpp's llama-server on loopback: max_concurrent generations batched at once
