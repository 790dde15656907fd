"""Benchmark the llama.cpp backend against raw llama_cpp, side by side in one run.

1. Generation speed: tokens/s through GgufBackend.chat(), whose engine runs in
   its own child process, against raw llama_cpp.Llama.create_chat_completion()
   in this process, on the same prompt and settings (goal: ratio >= 0.95: the
   process boundary must cost nothing measurable). Both are measured the same
   way: the prompt is evaluated once beforehand, then each timed call re-reads
   only its last prompt token and generates; rounds alternate raw/backend so
   drift hits both. CPU time of the backend side is this process's plus the
   engine process's (read through psutil).
2. Prefix reuse: prompt-processing time of a conversation's second turn when
   the first turn is still in the KV cache, against a cold start of the same
   second turn (shared prefix >= 2,000 tokens, new part <= 200; goal <= 0.05).

Usage: python bench/backend.py [--model SPEC] [--rounds N] [--prefix-rounds N] [--threads N] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bakeoff.models.base import GenerationSettings, Message  # noqa: E402
from bakeoff.models.kinds import kind_of  # noqa: E402
from bakeoff.models.registry import BackendOptions, open_backend, parse_spec  # noqa: E402

GENERATION_PROMPT = [
    Message("system", "You are a helpful data scientist."),
    Message("user", "Explain step by step how to build a spam classifier with scikit-learn, with code."),
]


def shared_prefix_text(sections: int) -> str:
    """A long, deterministic task statement: the part two turns share."""
    parts = []
    for i in range(1, sections + 1):
        parts.append(
            f"Section {i}. The training file holds messages with a subject, a body, the sender, the age of the "
            f"sender's domain in days, counts of links, attachments and replies, the time the message arrived and "
            f"a moderator flag. Rule {i}: score each message on arrival, before anyone has looked at it, and "
            f"report the F1 of the spam class on data you did not train on."
        )
    return "\n".join(parts)


class Stopwatch:
    """Wall-clock and CPU time of one call: this process's, plus that of `other_pid` (the engine process).

    CPU time is the steadier figure on a machine shared with other work: time
    spent descheduled counts in wall-clock time but not in CPU time.
    """

    def __init__(self, other_pid: int | None = None) -> None:
        self._other = psutil.Process(other_pid) if other_pid else None

    def _cpu_now(self) -> float:
        cpu = time.process_time()
        if self._other is not None:
            times = self._other.cpu_times()
            cpu += times.user + times.system
        return cpu

    def __enter__(self):
        self._wall, self._cpu = time.perf_counter(), self._cpu_now()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self._wall
        self.cpu = self._cpu_now() - self._cpu


def time_raw_generation(llm, messages, settings: GenerationSettings) -> tuple[int, Stopwatch]:
    with Stopwatch() as watch:
        response = llm.create_chat_completion(
            messages=[{"role": m.role, "content": m.content} for m in messages],
            max_tokens=settings.max_tokens,
            temperature=settings.temperature,
            seed=settings.seed,
        )
    return int(response["usage"]["completion_tokens"]), watch


def time_backend_generation(backend, messages, settings: GenerationSettings) -> tuple[int, Stopwatch]:
    with Stopwatch(backend.engine_pid) as watch:
        completion = backend.chat(messages, key="bench#1", settings=settings)
    if completion.error:
        raise SystemExit(f"backend failed: {completion.error}")
    return completion.completion_tokens, watch


def bench_generation(model_path: Path, backend, rounds: int, max_tokens: int, n_ctx: int, threads: int | None) -> dict:
    import llama_cpp

    raw = llama_cpp.Llama(
        model_path=str(model_path), n_ctx=n_ctx, n_gpu_layers=-1, seed=0,
        n_threads=threads, n_threads_batch=threads, verbose=False,
    )
    settings = GenerationSettings(max_tokens=max_tokens, temperature=0.0, seed=0)
    # Warm-up: the first decode of a fresh context is slow, and it puts the prompt in each cache.
    time_raw_generation(raw, GENERATION_PROMPT, settings)
    time_backend_generation(backend, GENERATION_PROMPT, settings)
    rates = {"raw_wall": [], "backend_wall": [], "raw_cpu": [], "backend_cpu": []}
    tokens = set()
    sides = [("raw", lambda: time_raw_generation(raw, GENERATION_PROMPT, settings)),
             ("backend", lambda: time_backend_generation(backend, GENERATION_PROMPT, settings))]
    for round_number in range(rounds):
        # Alternate which side goes first, so neither always runs right after the other.
        for side, timer in (sides if round_number % 2 == 0 else sides[::-1]):
            n, watch = timer()
            tokens.add(n)
            rates[f"{side}_wall"].append(n / watch.wall)
            rates[f"{side}_cpu"].append(n / watch.cpu)
    raw.close()
    figures = {"completion_tokens": sorted(tokens), **{f"{k}_all": v for k, v in rates.items()}}
    for clock in ("wall", "cpu"):
        raw_median = statistics.median(rates[f"raw_{clock}"])
        backend_median = statistics.median(rates[f"backend_{clock}"])
        paired = [b / r for r, b in zip(rates[f"raw_{clock}"], rates[f"backend_{clock}"], strict=True)]
        figures[clock] = {
            "raw_tokens_per_s": raw_median,
            "backend_tokens_per_s": backend_median,
            "ratio": backend_median / raw_median,
            "paired_ratio_median": statistics.median(paired),
        }
    return figures


def bench_prefix_reuse(backend, rounds: int, sections: int) -> dict:
    settings = GenerationSettings(max_tokens=48, temperature=0.0, seed=0)
    first_turn = [
        Message("system", shared_prefix_text(sections)),
        Message("user", "Which column must not be used, and why? Answer in two sentences."),
    ]
    warm_times, cold_times, shapes = [], [], []
    for _ in range(rounds):
        backend.reset_cache()  # every round starts from nothing, like a new run
        answer = backend.chat(first_turn, key="prefix#1", settings=settings)
        second_turn = first_turn + [
            Message("assistant", answer.text),
            Message("user", "Now write the first three lines of train.py that load the data without that column."),
        ]
        warm = backend.chat(second_turn, key="prefix#2", settings=settings)
        backend.reset_cache()  # a cold start of the very same second turn
        cold = backend.chat(second_turn, key="prefix#2", settings=settings)
        warm_times.append(warm.prompt_seconds)
        cold_times.append(cold.prompt_seconds)
        shapes.append((warm.prompt_tokens, warm.cached_prompt_tokens, cold.cached_prompt_tokens))
    prompt_tokens, cached, cold_cached = shapes[-1]
    warm_median, cold_median = statistics.median(warm_times), statistics.median(cold_times)
    return {
        "prompt_tokens": prompt_tokens,
        "shared_prefix_tokens": cached,
        "new_tokens": prompt_tokens - cached,
        "cold_cached_tokens": cold_cached,
        "warm_prompt_s": warm_median,
        "cold_prompt_s": cold_median,
        "ratio": warm_median / cold_median,
        "warm_all": warm_times,
        "cold_all": cold_times,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="default", help="a gguf spec (default: the SmolLM2 default model)")
    parser.add_argument("--rounds", type=int, default=5, help="generation rounds (raw and backend alternate)")
    parser.add_argument("--prefix-rounds", type=int, default=2, help="prefix-reuse rounds (each has two cold prompts)")
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--sections", type=int, default=28, help="length of the shared prefix (about 75 tokens each)")
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=None,
                        help="llama.cpp threads for generation and prompt processing, raw and backend alike "
                             "(default: llama-cpp-python's; 1 is steadier on a machine shared with other work)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()

    parsed = parse_spec(args.model)
    model_path = kind_of(parsed).engine_model(parsed)
    if model_path is None:
        raise SystemExit("bench/backend.py compares against raw llama_cpp: give a gguf model")
    options = BackendOptions(n_ctx=args.n_ctx, n_threads=args.threads, n_threads_batch=args.threads)
    backend = open_backend(parsed, options)
    generation = bench_generation(model_path, backend, args.rounds, args.max_tokens, args.n_ctx, args.threads)
    prefix = bench_prefix_reuse(backend, args.prefix_rounds, args.sections)
    backend.close()

    print(f"model: {parsed.target}  n_ctx={args.n_ctx}  rounds={args.rounds}  threads={args.threads or 'default'}")
    print()
    print("generation tokens/s (same prompt, temperature 0, median of rounds)")
    print(f"  {'clock':>6} {'raw llama_cpp':>14} {'backend':>10} {'ratio':>8} {'paired':>8}   goal >= 0.95"
          "   (backend: the engine in its own process)")
    for clock in ("wall", "cpu"):
        row = generation[clock]
        print(f"  {clock:>6} {row['raw_tokens_per_s']:14.1f} {row['backend_tokens_per_s']:10.1f} "
              f"{row['ratio']:8.3f} {row['paired_ratio_median']:8.3f}")
    print(f"  ({'/'.join(map(str, generation['completion_tokens']))} tokens a call; paired = median of per-round ratios)")
    print()
    print("second-turn prompt processing: prefix reuse vs cold start (median)")
    print(f"  {'cold start s':>16} {'reuse s':>10} {'ratio':>8}   goal <= 0.05")
    print(f"  {prefix['cold_prompt_s']:16.3f} {prefix['warm_prompt_s']:10.3f} {prefix['ratio']:8.3f}"
          f"   (prompt {prefix['prompt_tokens']} tokens: shared prefix {prefix['shared_prefix_tokens']}, "
          f"new {prefix['new_tokens']})")
    if prefix["shared_prefix_tokens"] < 2000 or prefix["new_tokens"] > 200:
        print("  warning: the conversation is outside the stated shape (prefix >= 2000, new <= 200)")
    if args.json:
        args.json.write_text(json.dumps({"generation": generation, "prefix_reuse": prefix}, indent=2))


if __name__ == "__main__":
    main()
