"""Short names for GGUF files the user already holds, resolved to the file when a plan is loaded:

  hf:ORG/REPO[:QUANT]        a repository's GGUF in the Hugging Face cache (or LM Studio's PUBLISHER/REPO);
                             QUANT (Q4_K_M, or the file's whole name) picks one when the repository holds several
  ollama-file:NAME[:TAG]     the GGUF blob of an Ollama name:tag (TAG `latest` when left out), run by llama.cpp

Nothing is downloaded: a name no file answers is ModelNameUnresolved, naming the places searched and what they
hold. The places are explicit (bakeoff.models.discovery.ModelPlaces, resolved at the CLI's edge).
"""

from __future__ import annotations

import re
from pathlib import Path

from bakeoff.models.discovery import FoundModel, ModelPlaces, search_hf_hub, search_lmstudio, search_ollama
from bakeoff.models.errors import ModelNameUnresolved

HF_PREFIX = "hf:"
OLLAMA_FILE_PREFIX = "ollama-file:"
SHORT_FORMS = f"{HF_PREFIX}ORG/REPO[:QUANT], {OLLAMA_FILE_PREFIX}NAME[:TAG]"
# The second and later parts of a split GGUF: llama.cpp loads them from the first.
_PART = re.compile(r"-(\d+)-of-\d+\.gguf$", re.IGNORECASE)


def resolution_line(label: str, named: str, path: Path | None) -> str:
    """What a batch says before it starts, for a model a short name found: which file it runs."""
    return f"model {label}: {named} is {path}"


def is_short_name(text: str) -> bool:
    return text.startswith((HF_PREFIX, OLLAMA_FILE_PREFIX))


def check_short_name(text: str) -> None:
    """Refuse a malformed short name, reading no file."""
    if text.startswith(HF_PREFIX):
        repo = text.removeprefix(HF_PREFIX).partition(":")[0]
        if not re.fullmatch(r"[\w.-]+/[\w.-]+", repo):
            raise ModelNameUnresolved(f"{text!r}: an hf: name is {HF_PREFIX}ORG/REPO[:QUANT]")
    elif not text.removeprefix(OLLAMA_FILE_PREFIX).partition(":")[0]:
        raise ModelNameUnresolved(f"{text!r}: an ollama-file: name is {OLLAMA_FILE_PREFIX}NAME[:TAG]")


def resolve_short_name(text: str, places: ModelPlaces | None) -> Path:
    """The file a short name stands for; ModelNameUnresolved saying why there is none (or which ones compete)."""
    check_short_name(text)
    if places is None:
        raise ModelNameUnresolved(f"{text!r} names a file where models live, and nothing said where to look here")
    if text.startswith(HF_PREFIX):
        repo, _, quant = text.removeprefix(HF_PREFIX).partition(":")
        return _hf_file(text, places, repo, quant)
    name, _, tag = text.removeprefix(OLLAMA_FILE_PREFIX).partition(":")
    return _ollama_blob(text, places, f"{name}:{tag or 'latest'}")


def _hf_file(text: str, places: ModelPlaces, repo: str, quant: str) -> Path:
    searches = [search_hf_hub(places.hf_hub), *(search_lmstudio(place) for place in places.lmstudio)]
    held = [found for search in searches for found in search.found if found.name.lower() == repo.lower()]
    first_parts = [found for found in held if not _is_later_part(found.path.name)]
    chosen = [found for found in first_parts if _matches(found, quant)] if quant else first_parts
    files = sorted({found.path.name for found in chosen})
    where = "; ".join(search.said() for search in searches)
    if not held:
        raise ModelNameUnresolved(f"{text!r}: no GGUF file of {repo} here (nothing is downloaded; looked in: {where})")
    if not files:
        raise ModelNameUnresolved(f"{text!r}: {repo} holds no file matching {quant!r}; it holds "
                                  f"{', '.join(sorted({found.path.name for found in first_parts}))}")
    if len(files) > 1:
        raise ModelNameUnresolved(f"{text!r}: {repo} holds {', '.join(files)}; name one as {HF_PREFIX}{repo}:QUANT")
    return _newest(chosen)


def _is_later_part(name: str) -> bool:
    part = _PART.search(name)
    return part is not None and int(part.group(1)) > 1


def _matches(found: FoundModel, quant: str) -> bool:
    """QUANT is the file's whole name, or a part of it between separators (Q4_K_M in model.Q4_K_M.gguf)."""
    name = found.path.name.lower()
    wanted = quant.lower()
    return name == wanted or re.search(rf"(^|[.\-_]){re.escape(wanted)}([.\-_]|$)", name.removesuffix(".gguf")) is not None


def _newest(chosen: list[FoundModel]) -> Path:
    """Of one file in several snapshots (revisions) or places, the one written last."""
    return max(chosen, key=lambda found: found.path.stat().st_mtime).path.absolute()


def _ollama_blob(text: str, places: ModelPlaces, name: str) -> Path:
    search = search_ollama(places.ollama)
    for found in search.found:
        if found.name == name:
            return found.path.absolute()
    skipped = [problem for problem in search.problems if problem.startswith(f"{name}: ")]
    if skipped:
        raise ModelNameUnresolved(f"{text!r}: {skipped[0]}")
    held = ", ".join(found.name for found in search.found) or "none"
    raise ModelNameUnresolved(f"{text!r}: Ollama has no {name} here (nothing is downloaded; {search.said()}; "
                              f"it holds {held})")
