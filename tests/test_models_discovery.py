"""`bakeoff models` finds GGUF files where the tools people run keep them: the Hugging Face hub cache (llama.cpp's
-hf downloads), LM Studio's folder and Ollama's store; and says, for each place, why it found nothing.

Each test builds the real layout in tmp_path, with small real GGUF files (headers only, sparse) and real Ollama
manifest JSON, and points HOME (and the tools' variables) at it."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from click.testing import CliRunner
from test_models_memory import seven_b_header, write_gguf

from bakeoff.cli import main
from bakeoff.models.discovery import (
    OLLAMA_MODEL_LAYER,
    Place,
    places_from_env,
    search_all,
    search_hf_hub,
    search_ollama,
)

GIB = 1024**3
# Every variable that names a place, emptied: a test's places are only those it builds.
NO_PLACES = {"BAKEOFF_MODELS_DIR": "", "HF_HUB_CACHE": "", "HF_HOME": "", "XDG_CACHE_HOME": "", "OLLAMA_MODELS": ""}


def small_gguf(path: Path, name: str, file_type: int = 15, size_bytes: int = GIB) -> Path:
    """A GGUF header of a small llama model (file_type 15: Q4_K_M, 7: Q8_0), padded sparsely."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_gguf(path, {
        "general.architecture": "llama", "general.name": name, "general.file_type": file_type,
        "tokenizer.ggml.tokens": ["<s>", "</s>"], "llama.block_count": 2, "llama.embedding_length": 64,
        "llama.attention.head_count": 2, "llama.attention.head_count_kv": 2, "llama.context_length": 2048,
    }, size_bytes)


def hf_cache_file(hub: Path, repo: str, filename: str, **gguf) -> Path:
    """A file as the hub cache stores it: the bytes in blobs/, a link to them in snapshots/REVISION/."""
    folder = hub / f"models--{repo.replace('/', '--')}"
    blob = small_gguf(folder / "blobs" / hashlib.sha256(filename.encode()).hexdigest(), repo, **gguf)
    link = folder / "snapshots" / "0123456789abcdef0123456789abcdef01234567" / filename
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(os.path.relpath(blob, link.parent))
    (folder / "refs").mkdir(exist_ok=True)
    (folder / "refs" / "main").write_text("0123456789abcdef0123456789abcdef01234567")
    return link


def ollama_model(store: Path, name: str, tag: str, *, blob: bool = True, digest: str | None = None,
                 namespace: str = "registry.ollama.ai/library") -> str:
    """A pulled Ollama model: its manifest (the registry's JSON shape) and, unless `blob` is False, its GGUF blob."""
    hexdigest = hashlib.sha256(f"{name}:{tag}".encode()).hexdigest()
    digest = digest or f"sha256:{hexdigest}"
    if blob:
        small_gguf(store / "blobs" / f"sha256-{hexdigest}", f"{name} {tag}", file_type=7, size_bytes=2 * GIB)
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
        "config": {"mediaType": "application/vnd.docker.container.image.v1+json",
                   "digest": "sha256:" + "c" * 64, "size": 485},
        "layers": [
            {"mediaType": OLLAMA_MODEL_LAYER, "digest": digest, "size": 2 * GIB},
            {"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:" + "d" * 64, "size": 1429},
            {"mediaType": "application/vnd.ollama.image.params", "digest": "sha256:" + "e" * 64, "size": 96},
        ],
    }
    path = store / "manifests" / namespace / name / tag
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest))
    return hexdigest


def listing(home: Path, *args: str, **env: str):
    result = CliRunner().invoke(main, ["models", "--json", *args], env={**NO_PLACES, "HOME": str(home), **env})
    assert result.exit_code == 0, result.output
    return {row["spec"]: row for row in map(json.loads, result.stdout.splitlines())}, result.stderr


def test_models_lists_the_hf_cache_lm_studio_and_ollama_with_a_spec_to_paste(tmp_path):
    home = tmp_path / "home"
    hf = hf_cache_file(home / ".cache" / "huggingface" / "hub", "bartowski/Pretend-1B-GGUF", "pretend-1b.Q4_K_M.gguf")
    studio = small_gguf(home / ".lmstudio" / "models" / "lmstudio-community" / "Tiny-GGUF" / "tiny.Q8_0.gguf",
                        "Tiny", file_type=7, size_bytes=GIB // 2)
    hexdigest = ollama_model(home / ".ollama" / "models", "pretend", "1b")
    rows, looked = listing(home)
    by_place = {row["found_in"]: row for row in rows.values() if row["found_in"]}
    assert set(by_place) == {"Hugging Face cache", "LM Studio folder", "Ollama store"}
    hub_row = by_place["Hugging Face cache"]
    assert hub_row["spec"] == f"gguf:{hf}" and hub_row["known_as"] == "bartowski/Pretend-1B-GGUF"
    assert (hub_row["quantization"], hub_row["size_bytes"]) == ("Q4_K_M", GIB)
    studio_row = by_place["LM Studio folder"]
    assert studio_row["spec"] == f"gguf:{studio}" and studio_row["known_as"] == "lmstudio-community/Tiny-GGUF"
    assert (studio_row["quantization"], studio_row["size_bytes"]) == ("Q8_0", GIB // 2)
    ollama_row = by_place["Ollama store"]
    blob = home / ".ollama" / "models" / "blobs" / f"sha256-{hexdigest}"
    assert ollama_row["spec"] == f"gguf:{blob}" and ollama_row["known_as"] == "pretend:1b"
    assert (ollama_row["quantization"], ollama_row["size_bytes"]) == ("Q8_0", 2 * GIB)
    assert all(Path(row["spec"].removeprefix("gguf:")).is_absolute() for row in rows.values() if row["found_in"])
    assert f"Hugging Face cache {home / '.cache' / 'huggingface' / 'hub'}" in looked


def test_the_table_names_each_model_as_its_place_does(tmp_path):
    home = tmp_path / "home"
    ollama_model(home / ".ollama" / "models", "pretend", "1b")
    result = CliRunner().invoke(main, ["models"], env={**NO_PLACES, "HOME": str(home), "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "[pretend:1b, Ollama store]" in result.output


def test_each_place_says_why_it_found_nothing(tmp_path):
    home = tmp_path / "home"
    hub = home / ".cache" / "huggingface" / "hub"
    (hub / "models--org--safetensors-only" / "snapshots" / "abc").mkdir(parents=True)
    (hub / "models--org--safetensors-only" / "snapshots" / "abc" / "model.safetensors").write_bytes(b"{}")
    (home / ".lmstudio" / "models" / "pub" / "repo").mkdir(parents=True)
    store = home / ".ollama" / "models"
    hexdigest = ollama_model(store, "gone", "latest", blob=False)
    _, looked = listing(home)
    assert "Hugging Face cache" in looked and "nothing, no .gguf file in any snapshot of its 1 model repositories" \
        in looked
    assert f"LM Studio folder {home / '.lmstudio' / 'models'}: nothing, no .gguf file in PUBLISHER/REPO folders" in looked
    assert f"LM Studio folder {home / '.cache' / 'lm-studio' / 'models'}: nothing, no such folder" in looked
    assert f"Ollama store {store}: nothing, no usable manifest in it" in looked
    assert f"skipped gone:latest: its model blob sha256-{hexdigest} is missing from {store / 'blobs'}" in looked
    assert "no models folder (--dir or $BAKEOFF_MODELS_DIR names one)" in looked


def test_the_environment_names_the_places(tmp_path):
    home = tmp_path / "home"
    places = places_from_env({"HF_HOME": str(tmp_path / "hfhome"), "OLLAMA_MODELS": str(tmp_path / "ollama"),
                              "BAKEOFF_MODELS_DIR": str(tmp_path / "mine")}, home)
    assert places.hf_hub.folder == tmp_path / "hfhome" / "hub" and places.hf_hub.named_by == "$HF_HOME"
    assert places.ollama.folder == tmp_path / "ollama" and places.models_dir.folder == tmp_path / "mine"
    assert places_from_env({"HF_HUB_CACHE": str(tmp_path / "hub"), "HF_HOME": "x"}, home).hf_hub.folder == \
        tmp_path / "hub"
    assert places_from_env({"XDG_CACHE_HOME": str(tmp_path / "xdg")}, home).hf_hub.folder == \
        tmp_path / "xdg" / "huggingface" / "hub"
    defaults = places_from_env({}, home)
    assert defaults.hf_hub.folder == home / ".cache" / "huggingface" / "hub"
    assert defaults.ollama.folder == home / ".ollama" / "models" and defaults.models_dir.folder is None
    assert [place.folder for place in defaults.lmstudio] == [home / ".lmstudio" / "models",
                                                            home / ".cache" / "lm-studio" / "models"]
    # the CLI reads them from its environment: a store named by OLLAMA_MODELS is searched
    ollama_model(tmp_path / "ollama", "named", "q8")
    rows, looked = listing(home, OLLAMA_MODELS=str(tmp_path / "ollama"))
    assert any(row["known_as"] == "named:q8" for row in rows.values())
    assert f"Ollama store {tmp_path / 'ollama'} ($OLLAMA_MODELS)" in looked


def test_ollama_names_other_namespaces_as_ollama_list_does(tmp_path):
    store = tmp_path / "store"
    ollama_model(store, "llama3.2", "3b")
    ollama_model(store, "tiny", "q4", namespace="registry.ollama.ai/someone")
    ollama_model(store, "Pretend-GGUF", "Q4_K_M", namespace="hf.co/bartowski")
    names = sorted(found.name for found in search_ollama(Place("Ollama store", store)).found)
    assert names == ["hf.co/bartowski/Pretend-GGUF:Q4_K_M", "llama3.2:3b", "someone/tiny:q4"]


def test_an_ollama_manifest_is_untrusted_bytes(tmp_path):
    """A digest that is not sha256:HEX could name a path outside the store: refused by name, as are a blob that
    links outside, an oversized or malformed manifest and one with no model layer; the good one is still found."""
    store = tmp_path / "store"
    ollama_model(store, "good", "1b")
    ollama_model(store, "escape", "1b", blob=False, digest="sha256:../../../../etc/passwd")
    outside = small_gguf(tmp_path / "elsewhere.gguf", "Elsewhere")
    linked = ollama_model(store, "linked", "1b", blob=False)
    (store / "blobs" / f"sha256-{linked}").symlink_to(outside)
    manifests = store / "manifests" / "registry.ollama.ai" / "library"
    (manifests / "huge").mkdir()
    (manifests / "huge" / "1b").write_text('{"layers": [' + " " * (2 << 20) + "]}")
    (manifests / "broken").mkdir()
    (manifests / "broken" / "1b").write_bytes(b"\xff not json")
    (manifests / "nomodel").mkdir()
    (manifests / "nomodel" / "1b").write_text(json.dumps({"layers": [{"mediaType": "x", "digest": "sha256:" + "a" * 64}]}))
    search = search_ollama(Place("Ollama store", store))
    assert [found.name for found in search.found] == ["good:1b"]
    problems = "\n".join(search.problems)
    assert "escape:1b: model layer digest 'sha256:../../../../etc/passwd' is not sha256:<64 hex digits>" in problems
    assert f"linked:1b: its model blob sha256-{linked} links outside {store / 'blobs'}" in problems
    assert "huge:1b: manifest unreadable (JSONTooLarge" in problems
    assert "broken:1b: manifest unreadable (JSONMalformed" in problems
    assert f"nomodel:1b: manifest has no {OLLAMA_MODEL_LAYER} layer" in problems


def test_the_models_folder_and_the_hub_are_searched_together(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    seven_b_header(mine / "a.gguf", size_bytes=GIB)
    hub = tmp_path / "hub"
    hf_cache_file(hub, "org/one-GGUF", "one.Q4_K_M.gguf")
    hf_cache_file(hub, "org/one-GGUF", "sub/one-00001-of-00002.gguf")
    searches = search_all(places_from_env({"HF_HUB_CACHE": str(hub)}, tmp_path / "home", mine))
    found = {found.path.name: found for search in searches for found in search.found}
    assert set(found) == {"a.gguf", "one.Q4_K_M.gguf", "one-00001-of-00002.gguf"}
    assert found["one-00001-of-00002.gguf"].name == "org/one-GGUF" and found["a.gguf"].name == ""
    assert search_hf_hub(Place("Hugging Face cache", tmp_path / "empty-hub")).empty_because == "no such folder"
