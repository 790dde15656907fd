"""Throughput of the batching engine, side by side in one run against llama.cpp's own figures.

1. Aggregate generated tokens/s with N = 1, 2, 4 generations in flight on the server engine
   (`engine = "server"`, llama-server --parallel N): bakeoff's path (N threads calling the backend as runs in
   flight do: the max_concurrent semaphore, LlamaServerBackend, the OpenAI-compatible client) against N plain
   concurrent HTTP clients posting the same requests to the same server (goal: bakeoff >= 0.9 of it at every
   N). Rounds alternate the two, and the spread of the rounds is printed. llama.cpp's own llama-batched-bench
   (no HTTP, the same build and threads) is printed beside them: what the engine itself does at N sequences.
2. Threads: tokens/s of the in-process engine (one generation) at llama-cpp-python's default thread count
   (half the cores), at every core, and at bakeoff's rule (every core other work leaves free), alternated.
   The server runs at the rule's count, which the first line prints.

    .venv/bin/python bench/throughput.py [--tokens 128] [--rounds 3] [--requests 2] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bakeoff.models.base import GenerationSettings, Message  # noqa: E402
from bakeoff.models.registry import BackendOptions, open_backend  # noqa: E402
from bakeoff.models.scheduling import default_threads, usable_cores  # noqa: E402
from bakeoff.models.spec import default_model_path  # noqa: E402

N_VALUES = (1, 2, 4)
N_CTX = 1024  # per slot: prompt and answer fit with room to spare


def prompts(count: int) -> list[list[Message]]:
    """Distinct requests (no two share a cached prefix beyond the system line), the same for both clients."""
    topics = ["a spam filter", "an A/B test", "a churn model", "a sales forecast", "a fraud detector",
              "a recommender", "a price model", "a survey analysis"]
    return [[Message("system", "You are a careful data scientist."),
             Message("user", f"Explain, step by step and at length, how you would build {topics[i % len(topics)]} "
                             f"(request {i}).")] for i in range(count)]


def _aggregate(results: list[tuple[int, float, float]]) -> float:
    """Generated tokens per second over the span from the first request's start to the last one's end."""
    tokens = sum(r[0] for r in results)
    return tokens / (max(r[2] for r in results) - min(r[1] for r in results))


def bakeoff_round(backend, work: list[list[Message]], n: int, settings: GenerationSettings) -> float:
    """N threads, as N runs in flight: each takes the next request and calls the backend through the semaphore."""
    from bakeoff.runner.executors.local import _Locked

    gated = _Locked(backend, threading.BoundedSemaphore(n))  # the local executor's own wrapper

    def one(index: int) -> tuple[int, float, float]:
        started = time.perf_counter()
        done = gated.chat(work[index], key=f"bench{index}#1", settings=settings)
        assert done.error is None, done.error
        return done.completion_tokens, started, time.perf_counter()

    with ThreadPoolExecutor(max_workers=n) as pool:
        return _aggregate(list(pool.map(one, range(len(work)))))


def plain_round(base_url: str, headers: dict[str, str], work: list[list[Message]], n: int,
                settings: GenerationSettings) -> float:
    """N plain HTTP clients posting the same requests (what bakeoff sends, without bakeoff)."""

    def one(index: int) -> tuple[int, float, float]:
        body = {"model": "m", "messages": [{"role": m.role, "content": m.content} for m in work[index]],
                "max_tokens": settings.max_tokens, "temperature": settings.temperature, "seed": settings.seed}
        started = time.perf_counter()
        response = client.post(f"{base_url}/v1/chat/completions", json=body, timeout=600)
        response.raise_for_status()
        return int(response.json()["usage"]["completion_tokens"]), started, time.perf_counter()

    with httpx.Client(headers=headers) as client, ThreadPoolExecutor(max_workers=n) as pool:
        return _aggregate(list(pool.map(one, range(len(work)))))


def batched_bench(binary: Path, model: Path, tokens: int, threads: int) -> dict[int, float]:
    """llama.cpp's llama-batched-bench: aggregate generation tokens/s (S_TG) at each N, prompt 128."""
    command = [str(binary), "-m", str(model), "-c", str(N_CTX * max(N_VALUES)), "-npp", "128", "-ntg", str(tokens),
               "-npl", ",".join(map(str, N_VALUES)), "-t", str(threads), "-tb", str(threads), "--output-format", "jsonl"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    found = {}
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            found[int(row["pl"])] = float(row["speed_tg"])
    return found


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} [{min(values):.1f}-{max(values):.1f}]"


def measure_server(args, threads: int) -> dict:
    figures: dict = {}
    settings = GenerationSettings(max_tokens=args.tokens, temperature=0.0, seed=7)
    for n in N_VALUES:
        backend = open_backend("default", BackendOptions(engine="server", max_concurrent=n, n_ctx=N_CTX,
                                                         n_threads=threads, n_threads_batch=threads))
        try:
            work = prompts(n * args.requests)
            base, headers = backend.base_url, backend.auth_headers  # the same server, without bakeoff in the way
            plain_round(base, headers, work, n, settings)  # warm-up: pages in the weights; every prompt is cached for both
            ours, theirs = [], []
            for round_ in range(args.rounds):  # alternated, who goes first too, so that drift hits both alike
                if round_ % 2 == 0:
                    ours.append(bakeoff_round(backend, work, n, settings))
                    theirs.append(plain_round(base, headers, work, n, settings))
                else:
                    theirs.append(plain_round(base, headers, work, n, settings))
                    ours.append(bakeoff_round(backend, work, n, settings))
            figures[n] = {"bakeoff": ours, "plain_http": theirs,
                          "ratio": statistics.median(ours) / statistics.median(theirs),
                          "server_build": backend.build.to_dict()}
        finally:
            backend.close()
    return figures


def measure_threads(args, cores: int) -> dict:
    settings = GenerationSettings(max_tokens=args.tokens, temperature=0.0, seed=7)
    work = prompts(1)[0]
    counts = {"llama-cpp-python's default (half the cores)": max(1, cores // 2), "every core": cores,
              "bakeoff's rule": default_threads()}
    backends = {label: open_backend("default", BackendOptions(n_threads=count, n_ctx=N_CTX))
                for label, count in counts.items()}
    rates: dict[str, list[float]] = {label: [] for label in counts}
    try:
        for backend in backends.values():
            backend.chat(work, key="warm#1", settings=settings)
        for _ in range(args.rounds):
            for label, backend in backends.items():
                done = backend.chat(work, key="t#1", settings=settings)
                rates[label].append(done.completion_tokens / done.generation_seconds)
    finally:
        for backend in backends.values():
            backend.close()
    return {"threads": counts, "tokens_per_s": rates}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=128, help="tokens generated per request")
    parser.add_argument("--rounds", type=int, default=4, help="alternated rounds per figure")
    parser.add_argument("--requests", type=int, default=2, help="requests per client per round")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    cores = usable_cores()
    chosen = default_threads()  # the rule's count now: every core that other work leaves free

    server = measure_server(args, chosen)
    build = server[N_VALUES[0]]["server_build"]
    bench = batched_bench(Path(build["path"]).parent / "llama-batched-bench", default_model_path(), args.tokens, chosen)
    threads = measure_threads(args, cores)

    print(f"server engine, default model, {chosen} of {cores} threads (load average {os.getloadavg()[0]:.1f}), "
          f"{args.tokens} tokens per request; {build['version']}")
    print("N | bakeoff tok/s (median [min-max]) | plain HTTP clients | bakeoff / plain (goal >= 0.9) | "
          "llama-batched-bench S_TG")
    for n in N_VALUES:
        row = server[n]
        print(f"{n} | {spread(row['bakeoff'])} | {spread(row['plain_http'])} | {row['ratio']:.2f} | "
              f"{bench.get(n, float('nan')):.1f}")
    one = statistics.median(server[1]["bakeoff"])
    print("bakeoff aggregate over N = 1: " + ", ".join(
        f"N={n} x{statistics.median(server[n]['bakeoff']) / one:.2f}" for n in N_VALUES))
    print("in-process engine, one generation: " + ", ".join(
        f"{label} ({threads['threads'][label]} threads) {spread(rates)} tok/s"
        for label, rates in threads["tokens_per_s"].items()))
    if args.json:
        args.json.write_text(json.dumps({"server": server, "batched_bench": bench, "threads": threads,
                                         "load_average": os.getloadavg()}, indent=2))


if __name__ == "__main__":
    main()
