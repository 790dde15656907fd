"""hf:ORG/REPO[:QUANT] and ollama-file:NAME[:TAG] name GGUF files the user already holds: a plan's are resolved to
the file when it is loaded (the plan keeps its gguf: spec), never downloaded; a name no file answers, or several
do, is a named error. Against real cache and store layouts built in tmp_path."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_models_discovery import NO_PLACES, hf_cache_file, ollama_model, small_gguf

from bakeoff.cli import main
from bakeoff.models.discovery import places_from_env
from bakeoff.models.errors import ModelNameUnresolved, ModelSpecError
from bakeoff.models.spec import default_model_path, parse_spec
from bakeoff.runner.plan import plan_from_mapping

REPO = "bartowski/Pretend-1B-GGUF"


def home_with_models(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    hub = home / ".cache" / "huggingface" / "hub"
    hf_cache_file(hub, REPO, "pretend-1b.Q4_K_M.gguf")
    hf_cache_file(hub, REPO, "pretend-1b.Q8_0.gguf", file_type=7)
    hf_cache_file(hub, "org/split-GGUF", "split-Q6_K-00001-of-00002.gguf")
    hf_cache_file(hub, "org/split-GGUF", "split-Q6_K-00002-of-00002.gguf")
    small_gguf(home / ".lmstudio" / "models" / "lmstudio-community" / "Tiny-GGUF" / "tiny.Q8_0.gguf", "Tiny")
    ollama_model(home / ".ollama" / "models", "pretend", "1b")
    ollama_model(home / ".ollama" / "models", "pretend", "latest")
    ollama_model(home / ".ollama" / "models", "gone", "1b", blob=False)
    return home


def models(tmp_path, *specs):
    home = home_with_models(tmp_path)
    plan = plan_from_mapping({"models": list(specs), "corpus": "c"}, tmp_path, places=places_from_env({}, home))
    return home, {entry.label: entry.spec for entry in plan.models}


def test_a_plan_names_models_by_repository_and_ollama_tag(tmp_path):
    home, specs = models(tmp_path, f"hf:{REPO}:Q4_K_M", "hf:org/split-GGUF", "hf:lmstudio-community/Tiny-GGUF",
                         "ollama-file:pretend:1b", "ollama-file:pretend")
    snapshot = home / ".cache" / "huggingface" / "hub" / f"models--{REPO.replace('/', '--')}" / "snapshots"
    (q4,) = snapshot.glob("*/pretend-1b.Q4_K_M.gguf")
    assert specs["pretend-1b-gguf-q4_k_m"] == f"gguf:{q4}"
    assert specs["split-gguf"].endswith("split-Q6_K-00001-of-00002.gguf")  # llama.cpp reads the rest from the first
    assert specs["tiny-gguf"] == f"gguf:{home / '.lmstudio' / 'models' / 'lmstudio-community' / 'Tiny-GGUF' / 'tiny.Q8_0.gguf'}"
    assert specs["pretend-1b"].startswith(f"gguf:{home / '.ollama' / 'models' / 'blobs' / 'sha256-'}")
    assert specs["pretend"] != specs["pretend-1b"]  # no tag: `latest`, as Ollama reads it
    assert all(parse_spec(spec).path.is_file() for spec in specs.values())


@pytest.mark.parametrize("spec, said", [
    (f"hf:{REPO}", "holds pretend-1b.Q4_K_M.gguf, pretend-1b.Q8_0.gguf; name one as hf:bartowski/Pretend-1B-GGUF:QUANT"),
    (f"hf:{REPO}:Q5_K_M", "holds no file matching 'Q5_K_M'; it holds pretend-1b.Q4_K_M.gguf, pretend-1b.Q8_0.gguf"),
    ("hf:someone/elsewhere-GGUF", "no GGUF file of someone/elsewhere-GGUF here (nothing is downloaded; looked in: "
                                  "Hugging Face cache"),
    ("ollama-file:absent:7b", "Ollama has no absent:7b here (nothing is downloaded; Ollama store"),
    ("ollama-file:gone:1b", "gone:1b: its model blob sha256-"),
    ("hf:no-slash", "an hf: name is hf:ORG/REPO[:QUANT]"),
])
def test_a_name_no_single_file_answers_is_a_named_error(tmp_path, spec, said):
    with pytest.raises(ModelNameUnresolved) as caught:
        models(tmp_path, spec)
    assert said in str(caught.value) and isinstance(caught.value, ModelSpecError)


def test_a_short_name_is_parsed_without_reading_a_file_and_refused_unresolved(tmp_path):
    parsed = parse_spec(f"hf:{REPO}:Q4_K_M")
    assert (parsed.kind, parsed.path) == ("gguf", None)
    with pytest.raises(ModelNameUnresolved, match="nothing said where to look"):
        plan_from_mapping({"models": ["ollama-file:pretend:1b"], "corpus": "c"}, tmp_path)


def test_bakeoff_ask_runs_an_ollama_blob_of_the_default_model(tmp_path):
    """The Ollama store built from the default model's GGUF: the name resolves to the blob, llama.cpp runs it."""
    store = tmp_path / "home" / ".ollama" / "models"
    hexdigest = ollama_model(store, "smollm2", "135m", blob=False)
    blob = store / "blobs" / f"sha256-{hexdigest}"
    blob.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(default_model_path(), blob)
    except OSError:  # another file system
        shutil.copyfile(default_model_path(), blob)
    result = CliRunner().invoke(main, ["ask", "--model", "ollama-file:smollm2:135m", "--json", "--max-tokens", "8",
                                       "Say hi"], env={**NO_PLACES, "HOME": str(tmp_path / "home")})
    assert result.exit_code == 0, result.output
    assert f"gguf:{blob}" in result.stdout and '"error": null' in result.stdout


def test_a_batch_says_which_file_each_name_was_resolved_to_before_it_starts(tmp_path):
    home = home_with_models(tmp_path)
    result = CliRunner().invoke(main, ["run", "--model", f"hf:{REPO}:Q8_0", "--model", "ollama-file:pretend:1b",
                                       "--corpus", str(tmp_path / "no-corpus"), "--sandbox", "none",
                                       "--unsafe-no-isolation", "--runs", "1", "--out", str(tmp_path / "out")],
                                env={**NO_PLACES, "HOME": str(home)})
    assert result.exit_code != 0 and "CorpusFolderMissing" in result.output  # refused after saying it
    (q8,) = (home / ".cache" / "huggingface" / "hub").glob("models--*/snapshots/*/pretend-1b.Q8_0.gguf")
    assert f"model pretend-1b-gguf-q8_0: hf:{REPO}:Q8_0 is {q8}" in result.output
    assert f"model pretend-1b: ollama-file:pretend:1b is {home / '.ollama' / 'models' / 'blobs'}" in result.output
