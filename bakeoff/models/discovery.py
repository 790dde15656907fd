"""Where GGUF files live on a user's machine, and what each place holds: `bakeoff models` lists them.

Besides bakeoff's own folder ($BAKEOFF_MODELS_DIR or --dir), three tools keep GGUF files in layouts of their own:
  - the Hugging Face hub cache (llama.cpp's `-hf` downloads land there):
    HUB/models--ORG--REPO/snapshots/REVISION/**.gguf
  - LM Studio: MODELS/PUBLISHER/REPO/**.gguf
  - Ollama: STORE/manifests/HOST/NAMESPACE/NAME/TAG, a JSON manifest whose layer of media type
    application/vnd.ollama.image.model names its GGUF by digest, stored as STORE/blobs/sha256-HEX.

Every place is an explicit parameter (`ModelPlaces`), resolved from the environment once at the CLI's edge
(`places_from_env`). Each place says what it found and, when it found nothing or skipped something, why, so an
empty listing explains itself. Nothing here downloads anything: these are files the user already holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

import durable
from durable.errors import UntrustedJSON

GGUF_SUFFIX = ".gguf"
MODELS_DIR_ENV = "BAKEOFF_MODELS_DIR"
OLLAMA_MODEL_LAYER = "application/vnd.ollama.image.model"
OLLAMA_DEFAULT_HOST = "registry.ollama.ai"
OLLAMA_DEFAULT_NAMESPACE = "library"
# A manifest is a few hundred bytes; anything far larger is not one (its bytes are someone else's: capped).
MANIFEST_LIMITS = durable.JsonLimits(max_bytes=1 << 20, max_depth=16)
_DIGEST = re.compile(r"sha256:([0-9a-f]{64})")


@dataclass(frozen=True)
class Place:
    """One place searched: what it is called in the listing, and its folder (None: nothing names one)."""

    what: str  # "models folder ($BAKEOFF_MODELS_DIR)", "Hugging Face cache", "LM Studio", "Ollama store"
    folder: Path | None
    unset: str = ""  # why the folder is None (what would name one)
    required: bool = False  # the user named it (--dir, $BAKEOFF_MODELS_DIR): missing, it is an error, not a note
    named_by: str = ""  # what named the folder, when the user did ("--dir", "$HF_HOME")

    def shown(self) -> str:
        """The place as the listing's footer names it."""
        if self.folder is None:
            return f"no {self.what} ({self.unset})"
        if self.required:  # the user's own folder: searched whole
            return f"{self.folder} and its subfolders ({self.named_by})"
        return f"{self.what} {self.folder}" + (f" ({self.named_by})" if self.named_by else "")


@dataclass(frozen=True)
class ModelPlaces:
    """Every place `bakeoff models` looks in, resolved from the environment at the CLI's edge."""

    models_dir: Place
    hf_hub: Place
    lmstudio: tuple[Place, ...]
    ollama: Place


@dataclass(frozen=True)
class FoundModel:
    """A GGUF file found in a place: `name` is what the place calls it (ORG/REPO, PUBLISHER/REPO, NAME:TAG)."""

    path: Path
    source: str  # the place's `what`
    name: str = ""


@dataclass
class Search:
    """What one place gave: the models found, and why it gave nothing or skipped an entry."""

    place: Place
    found: list[FoundModel] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # an Ollama manifest whose blob is missing, ...
    empty_because: str = ""  # set when nothing was found: a missing folder, no GGUF file in it

    def said(self) -> str:
        """The place for the listing's footer, with why it gave nothing and what it skipped."""
        said = self.place.shown()
        if not self.found and self.place.folder is not None:
            said += f": nothing, {self.empty_because}"
        return said + "".join(f"; skipped {problem}" for problem in self.problems)


def places_from_env(env: Mapping[str, str], home: Path, models_dir: Path | None = None) -> ModelPlaces:
    """The places named by the environment (or their tools' defaults under `home`); `models_dir` is --dir's."""
    own_env = _env_path(env, MODELS_DIR_ENV)
    if models_dir is not None:
        own = Place("models folder", models_dir, required=True, named_by="--dir")
    elif own_env is not None:
        own = Place("models folder", own_env, required=True, named_by=f"${MODELS_DIR_ENV}")
    else:
        own = Place("models folder", None, unset=f"--dir or ${MODELS_DIR_ENV} names one")
    return ModelPlaces(
        models_dir=own,
        hf_hub=_hf_hub(env, home),
        lmstudio=(Place("LM Studio folder", home / ".lmstudio" / "models"),
                  Place("LM Studio folder", home / ".cache" / "lm-studio" / "models")),
        ollama=_named_or_default(env, "OLLAMA_MODELS", "Ollama store", home / ".ollama" / "models"),
    )


def _hf_hub(env: Mapping[str, str], home: Path) -> Place:
    """$HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub."""
    hf_home = _env_path(env, "HF_HOME")
    if _env_path(env, "HF_HUB_CACHE") is None and hf_home is not None:
        return Place("Hugging Face cache", hf_home / "hub", named_by="$HF_HOME")
    cache = _env_path(env, "XDG_CACHE_HOME") or home / ".cache"
    return _named_or_default(env, "HF_HUB_CACHE", "Hugging Face cache", cache / "huggingface" / "hub")


def _named_or_default(env: Mapping[str, str], name: str, what: str, default: Path) -> Place:
    folder = _env_path(env, name)
    return Place(what, folder, named_by=f"${name}") if folder is not None else Place(what, default)


def _env_path(env: Mapping[str, str], name: str) -> Path | None:
    """The folder an environment variable names; None when it is unset or empty."""
    value = env[name] if name in env else ""
    return Path(value).expanduser() if value else None


def search_all(places: ModelPlaces) -> list[Search]:
    """Every place searched, in the listing's order."""
    return [search_folder(places.models_dir), search_hf_hub(places.hf_hub),
            *(search_lmstudio(place) for place in places.lmstudio), search_ollama(places.ollama)]


def _ggufs(folder: Path) -> Iterator[Path]:
    return (path for path in sorted(folder.rglob(f"*{GGUF_SUFFIX}")) if path.is_file())


def _opened(place: Place) -> Search:
    """A search of `place`, already marked empty when its folder is unnamed or missing."""
    search = Search(place)
    if place.folder is None:
        search.empty_because = place.unset or "no folder named"
    elif not place.folder.is_dir():
        search.empty_because = "no such folder"
    return search


def _closed(search: Search, empty_because: str) -> Search:
    if not search.found and not search.empty_because:
        search.empty_because = empty_because
    return search


def search_folder(place: Place) -> Search:
    """Every .gguf under the folder and its subfolders."""
    search = _opened(place)
    if place.folder is not None and not search.empty_because:
        search.found = [FoundModel(path, place.what) for path in _ggufs(place.folder)]
    return _closed(search, f"no {GGUF_SUFFIX} file in it or its subfolders")


def search_hf_hub(place: Place) -> Search:
    """models--ORG--REPO/snapshots/*/**.gguf, named ORG/REPO (the files are links into the repo's blobs)."""
    search = _opened(place)
    if place.folder is None or search.empty_because:
        return search
    repos = sorted(path for path in place.folder.glob("models--*") if path.is_dir())
    for repo in repos:
        name = repo.name.removeprefix("models--").replace("--", "/", 1)
        snapshots = repo / "snapshots"
        if snapshots.is_dir():
            search.found += [FoundModel(path, place.what, name) for path in _ggufs(snapshots)]
    return _closed(search, f"no {GGUF_SUFFIX} file in any snapshot of its {len(repos)} model repositories"
                   if repos else "no model repository (models--ORG--REPO) in it")


def search_lmstudio(place: Place) -> Search:
    """PUBLISHER/REPO/**.gguf, named PUBLISHER/REPO."""
    search = _opened(place)
    if place.folder is None or search.empty_because:
        return search
    for path in _ggufs(place.folder):
        parts = path.relative_to(place.folder).parts
        search.found.append(FoundModel(path, place.what, "/".join(parts[:2]) if len(parts) > 2 else ""))
    return _closed(search, f"no {GGUF_SUFFIX} file in PUBLISHER/REPO folders")


class _Layer(msgspec.Struct):
    mediaType: str  # noqa: N815 (the manifest's own key)
    digest: str


class _Manifest(msgspec.Struct):
    layers: list[_Layer]


def search_ollama(place: Place) -> Search:
    """Each manifest (manifests/HOST/NAMESPACE/NAME/TAG) resolved to the blob its model layer names."""
    search = _opened(place)
    if place.folder is None or search.empty_because:
        return search
    manifests = place.folder / "manifests"
    if not manifests.is_dir():
        search.empty_because = "no manifests folder in it"
        return search
    paths = sorted(path for path in manifests.rglob("*") if path.is_file())
    for manifest in paths:
        name = ollama_name(manifest.relative_to(manifests))
        try:
            search.found.append(FoundModel(ollama_blob(place.folder, manifest), place.what, name))
        except OllamaManifestUnusable as exc:
            search.problems.append(f"{name}: {exc}")
    return _closed(search, "no usable manifest in it" if paths else "no manifest in it")


class OllamaManifestUnusable(Exception):
    """A manifest that names no GGUF bakeoff can run (unreadable, no model layer, a blob missing or outside)."""


def ollama_name(relative: Path) -> str:
    """NAME:TAG for the library's models, NAMESPACE/NAME:TAG or HOST/NAMESPACE/NAME:TAG for others (as
    `ollama list` shows them)."""
    *head, tag = relative.parts
    if len(head) >= 2 and head[0] == OLLAMA_DEFAULT_HOST:
        head = head[1:]
        if len(head) >= 2 and head[0] == OLLAMA_DEFAULT_NAMESPACE:
            head = head[1:]
    return f"{'/'.join(head)}:{tag}"


def ollama_blob(store: Path, manifest: Path) -> Path:
    """The GGUF blob the manifest's model layer names; OllamaManifestUnusable saying why there is none."""
    try:
        raw = durable.read_json(manifest, limits=MANIFEST_LIMITS)
        layers = msgspec.convert(raw, _Manifest).layers
    except (OSError, UntrustedJSON, msgspec.ValidationError) as exc:
        raise OllamaManifestUnusable(f"manifest unreadable ({type(exc).__name__}: {exc})") from None
    digests = [layer.digest for layer in layers if layer.mediaType == OLLAMA_MODEL_LAYER]
    if not digests:
        raise OllamaManifestUnusable(f"manifest has no {OLLAMA_MODEL_LAYER} layer")
    matched = _DIGEST.fullmatch(digests[0])
    if matched is None:  # a digest is the blob's file name: anything else could name a path outside the store
        raise OllamaManifestUnusable(f"model layer digest {digests[0][:80]!r} is not sha256:<64 hex digits>")
    blobs = store / "blobs"
    blob = blobs / f"sha256-{matched.group(1)}"
    if not blob.is_file():
        raise OllamaManifestUnusable(f"its model blob {blob.name} is missing from {blobs}")
    if not blob.resolve().is_relative_to(blobs.resolve()):
        raise OllamaManifestUnusable(f"its model blob {blob.name} links outside {blobs}")
    return blob
