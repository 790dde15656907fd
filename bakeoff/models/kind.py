"""What a backend kind is: the parsed spec value every kind returns, and the protocol each kind object fulfils.

A kind (gguf, openai, scripted: bakeoff.models.kinds) owns everything that differs between backends: the spec
forms it parses, the plan options its backend reads, the checks a batch runs before its first run, the model
`bakeoff check` tries the engine with, and the factory that opens the backend. Callers ask the spec's kind
(bakeoff.models.kinds.kind_of) and never compare a kind's name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # annotations only: a kind's module loads no backend until it is asked to build one
    from bakeoff.models.api_key import KeyRoute
    from bakeoff.models.base import ModelBackend
    from bakeoff.models.discovery import ModelPlaces
    from bakeoff.models.options import BackendOptions
    from bakeoff.models.template_process import TemplateLimits

# GET <base_url>/models for an endpoint: (base_url, api_key_env) -> the served model names (tests pass their own).
ModelLister = Callable[[str, str], list[str]]


@dataclass(frozen=True)
class ModelSpec:
    """A parsed spec. `text` is the spec as written (what records keep); `kind` names the kind that parsed it."""

    text: str
    kind: str  # the parsing kind's `name` (bakeoff.models.kinds.kind_of finds the object)
    target: str  # a path (the default model's, found in its package), or a base URL
    model: str = ""  # the served model's name (an endpoint's)
    path: Path | None = None  # the file the spec names (a GGUF, a script of answers); None for an endpoint
    named: str = ""  # the short name (hf:, ollama-file:) the file was found by, which preflight says; "" for none

    def file(self) -> Path | None:
        """The file the spec names, or None for an endpoint."""
        return self.path


class BackendKind(Protocol):
    """One kind of backend, registered once in bakeoff.models.kinds.KINDS."""

    name: str  # what ModelSpec.kind holds
    form: str  # its spec forms, as the unknown-spec message lists them
    prefixes: tuple[str, ...]  # the heads that claim a spec ("gguf:"), or a whole word ("default")
    options: frozenset[str] | None  # the plan options its backend reads; None: any (it stands in for every kind)
    is_endpoint: bool  # one server answers every run (its context is probed, its key routed, its runs capped)
    uses_gpu: bool  # each run loads the model itself onto a GPU (a cluster's default GPU demand)
    engine_name: str  # the inference engine, as exports name it
    open_weights: bool  # the weights are a file the user holds

    def bare(self, text: str) -> bool:
        """Whether `text`, which starts with no kind's prefix, is one of this kind's forms (a path ending .gguf)."""
        ...

    def parse(self, text: str) -> ModelSpec:
        """The parts of a spec this kind claims; ModelSpecError for a malformed one."""
        ...

    def label_base(self, text: str) -> str:
        """The part of the spec its runs are labelled by (a file's stem, an endpoint's model)."""
        ...

    def absolute(self, spec: ModelSpec, base_dir: Path) -> ModelSpec:
        """The spec with a relative file made absolute against `base_dir` (an endpoint's as it is)."""
        ...

    def resolve(self, spec: ModelSpec, places: ModelPlaces | None) -> ModelSpec:
        """The spec with a short name for a file where models live (hf:, ollama-file:) replaced by the file's own
        spec; any other as it is. ModelNameUnresolved when no file answers the name."""
        ...

    def check_options(self, spec: ModelSpec, options: BackendOptions) -> None:
        """Refuse a combination of options its backend cannot honour (BackendOptionInvalid)."""
        ...

    def check_reasoning(self, spec: ModelSpec, reasoning: str, server: str, limits: TemplateLimits | None) -> None:
        """Refuse, loading nothing, a reasoning mode the model has no switch for."""
        ...

    def check_file(self, spec: ModelSpec, label: str) -> None:
        """Preflight in a moment: the model's file is there and reads (ModelFileMissing, ModelHeaderUnreadable)."""
        ...

    def check_ready(self, spec: ModelSpec, label: str, options: BackendOptions, list_models: ModelLister | None) -> None:
        """Preflight of what serves it: the batching engine is installed, the endpoint lists the model."""
        ...

    def key_route(self, spec: ModelSpec, api_key_env: str) -> KeyRoute | None:
        """Which key goes to which host (None: it sends no key); BackendOptionInvalid for one that may not go."""
        ...

    def identity(self, spec: ModelSpec, cache: Path | None) -> str:
        """What the model is, whatever its label (a file's sha256, an endpoint and its model)."""
        ...

    def engine_model(self, spec: ModelSpec) -> Path | None:
        """The GGUF `bakeoff check` and a batch's engine test try the engine with; None: it needs no engine."""
        ...

    def build(self, spec: ModelSpec, options: BackendOptions) -> ModelBackend:
        """The backend, ready to chat (its libraries load here, not before)."""
        ...


class FileKind:
    """What the kinds whose spec names a file share: its checks and identity come from the file."""

    prefix = ""  # "<name>:" ahead of the path
    what = "file"  # how a missing file is named
    options: frozenset[str] | None = None
    is_endpoint = False
    uses_gpu = False
    open_weights = True

    def bare(self, text: str) -> bool:
        return False

    def label_base(self, text: str) -> str:
        return file_label(text)

    def absolute(self, spec: ModelSpec, base_dir: Path) -> ModelSpec:
        path = Path(spec.target).expanduser()
        if not path.is_absolute():
            path = (base_dir / path).resolve()
        head = self.prefix if spec.text.startswith(self.prefix) else ""
        return replace(spec, text=f"{head}{path}", target=str(path), path=path)

    def resolve(self, spec: ModelSpec, places: ModelPlaces | None) -> ModelSpec:
        return spec

    def check_options(self, spec: ModelSpec, options: BackendOptions) -> None:
        return None

    def check_reasoning(self, spec: ModelSpec, reasoning: str, server: str, limits: TemplateLimits | None) -> None:
        return None

    def check_file(self, spec: ModelSpec, label: str) -> None:
        from bakeoff.models.errors import ModelFileMissing

        if spec.path is not None and not spec.path.is_file():
            raise ModelFileMissing(f"model {label}: no {self.what} at {spec.path} (a relative path in a plan is read "
                                   "against the plan file's folder)")

    def check_ready(self, spec: ModelSpec, label: str, options: BackendOptions, list_models: ModelLister | None) -> None:
        return None

    def key_route(self, spec: ModelSpec, api_key_env: str) -> KeyRoute | None:
        return None

    def identity(self, spec: ModelSpec, cache: Path | None) -> str:
        if spec.path is None:
            return spec.text
        from bakeoff.models.filehash import file_sha256

        return f"sha256:{file_sha256(spec.path, cache)}"

    def engine_model(self, spec: ModelSpec) -> Path | None:
        return None


def require_listed(spec: ModelSpec, label: str, lister: ModelLister, api_key_env: str, *, where: str, list_url: str,
                   fetch_hint: str = "") -> None:
    """The endpoint answers its model list (`list_url`) and lists `spec.model`; EndpointNotAnswering otherwise,
    naming what it does list (and the nearest name)."""
    import httpx

    from bakeoff.errors import did_you_mean
    from bakeoff.models.errors import EndpointNotAnswering

    try:
        names = lister(spec.target, api_key_env)
    except (httpx.HTTPError, ValueError) as exc:
        raise EndpointNotAnswering(f"model {label}: {where} does not answer its model list "
                                   f"(GET {list_url}: {type(exc).__name__}: {exc})") from None
    if spec.model not in names:
        shown = ", ".join(names[:20]) or "none"
        raise EndpointNotAnswering(f"model {label}: {where} does not serve {spec.model!r}{fetch_hint}; it lists "
                                   f"{shown}" + did_you_mean(spec.model, names))


def file_label(text: str) -> str:
    """A file's name without its model or answers suffix; a word without a path (`default`) as it is."""
    _, _, rest = text.partition(":")
    if not rest:
        return Path(text).name.removesuffix(".gguf") if text.endswith(".gguf") else text
    base = Path(rest).name
    for suffix in (".gguf", ".jsonl", ".json"):
        base = base.removesuffix(suffix)
    return base


def file_spec(text: str, kind: str, target: str) -> ModelSpec:
    """A spec naming a file (its path expanded as every reader of the file will read it)."""
    return ModelSpec(text, kind, target, "", Path(target).expanduser())


__all__ = ["BackendKind", "FileKind", "ModelLister", "ModelSpec", "file_label", "file_spec", "require_listed"]
