"""Errors of the model layer that a user can act on.

A model's silence is never an error (it is a `Completion` with `error` set);
these are raised for bad specs, missing files and models that cannot be loaded.
"""

from __future__ import annotations

from bakeoff.errors import BakeoffError


class ModelSpecError(BakeoffError):
    """A model spec string that names no backend, or names one badly."""


class ModelFileNotFound(BakeoffError):
    """A GGUF or scripted file that does not exist."""


class ModelFileInvalid(BakeoffError):
    """A file that is not what its spec says (not a GGUF file, bad JSONL...)."""


class ModelDoesNotFit(BakeoffError):
    """The weights and context would not fit in the GPU's free memory: refused before loading."""


class BackendUnavailable(BakeoffError):
    """A library a backend needs is not installed, or the model failed to load."""


class ServerPortTaken(BackendUnavailable):
    """The port chosen for bakeoff's llama-server answered, but not from the server bakeoff started (another local
    process bound it first): nothing is sent to it, and the server is started on another port."""


class ChatTemplateError(BakeoffError):
    """A model's chat template that cannot be compiled or rendered (refused at load, never replaced)."""


class ChatTemplateExhausted(ChatTemplateError):
    """A chat template that ran past a limit of its process (bakeoff.models.template_process); `limit` says which:
    "deadline", "memory", "recursion", "size" (the prompt it rendered), "process" (it died), "start"."""

    def __init__(self, message: str, *, limit: str) -> None:
        super().__init__(message)
        self.limit = limit

    def __reduce__(self):  # sent from the engine's process to the parent, keyword and all
        return (_exhausted, (str(self), self.limit))


def _exhausted(message: str, limit: str) -> ChatTemplateExhausted:
    return ChatTemplateExhausted(message, limit=limit)


class ReasoningModeUnsupported(BakeoffError):
    """A reasoning mode the model or server has no switch for."""


class BackendOptionInvalid(BakeoffError):
    """A backend option (from a plan) that no backend reads, or a value of the wrong type or range."""


class PreflightFailed(BakeoffError):
    """Something a batch needs is not there; nothing was started."""


class ModelFileMissing(PreflightFailed):
    """A plan's model file (a GGUF, a scripted answers file) does not exist."""


class ModelHeaderUnreadable(PreflightFailed):
    """A plan's GGUF file is not one whose header bakeoff can read."""


class BatchingServerMissing(PreflightFailed):
    """A plan's GGUF model asks for the batching engine (engine = "server") and no llama-server runs here."""


class EndpointNotAnswering(PreflightFailed):
    """An OpenAI-compatible endpoint of the plan does not answer its model list, or does not list the model."""


class KeyNotSendable(PreflightFailed):
    """An endpoint model's api_key_env names no key, or its key would go over plain http to another host."""


class ModelNameUnresolved(ModelSpecError):
    """An `hf:` or `ollama-file:` name that no file where models live answers (or that several answer)."""
