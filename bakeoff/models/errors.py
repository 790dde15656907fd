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


class ChatTemplateError(BakeoffError):
    """A model's chat template that cannot be compiled or rendered (refused at load, never replaced)."""


class ReasoningModeUnsupported(BakeoffError):
    """A reasoning mode the model or server has no switch for."""


class BackendOptionInvalid(BakeoffError):
    """A backend option (from a plan) that no backend reads, or a value of the wrong type or range."""
