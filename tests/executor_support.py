"""Shared pieces of the executor tests: a small local Ray cluster, a two-model plan, record comparison."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path

from runner_support import answers, implementation, write_script

# Differ between two identical batches only by when and where they ran (see docs/records.md; as in test_batch_resume).
VOLATILE_KEYS = {
    "timings", "resources", "started_at", "finished_at", "duration_s", "prompt_seconds",
    "generation_seconds", "code_version", "model_info", "info", "sha", "date", "pid", "created_at",
    # How much of a prompt the engine's cache served depends on which turns it answered before (the schedule
    # of runs in flight), as times do; the answer does not.
    "cached_prompt_tokens", "cached_prompt",
}
MiB = 1024 * 1024
LOOPBACK = "127.0.0.1"  # test traffic stays on loopback (Ray's default is the machine's interface address)


def start_cluster(nodes: list[dict]):
    """A real Ray cluster on this machine's loopback: one head and worker nodes, CPU only, small object stores.
    Its shutdown() also ends the loopback setting (bakeoff.runner.executors.node.ray_on_loopback)."""
    from ray.cluster_utils import Cluster

    from bakeoff.runner.executors.node import ray_on_loopback

    stack = ExitStack()
    address = stack.enter_context(ray_on_loopback())
    head, *workers = nodes
    cluster = Cluster(initialize_head=True, head_node_args={"object_store_memory": 200 * MiB, "num_cpus": 2,
                                                            "node_ip_address": address, **head})
    for node in workers:
        cluster.add_node(object_store_memory=200 * MiB, num_cpus=2, node_ip_address=address, **node)
    cluster.wait_for_nodes()
    assert {node.node_ip_address for node in cluster.list_all_nodes()} == {LOOPBACK}
    stack.callback(cluster.shutdown)
    cluster.shutdown = stack.close  # type: ignore[method-assign]
    return cluster


def two_model_plan(root: Path, corpus: Path, runs: int = 2, extra_models: str = "", lines: list[dict] | None = None,
                   task: str | None = None) -> Path:
    """Two scripted models on the same answers (spam's working submission unless `lines`); `task` None: the default."""
    lines = answers(implementation()) if lines is None else lines
    # A scripted backend replays its answers over its whole life. One at a time, each interleaved run
    # opens its own; with runs in flight, a model's runs may share one (depending on the overlap), so
    # the script holds a copy of the answers for every run and the records cannot depend on the timing.
    first = write_script(root / "alpha.jsonl", lines, copies=runs)
    second = write_script(root / "beta.jsonl", lines, copies=runs)
    plan = root / "plan.toml"
    plan.write_text(
        f'runs = {runs}\ncorpus = "{corpus}"\nsandbox = "docker"\nseed = 3\n'
        + (f'task = "{task}"\n' if task else "") +
        f'models = [{{ spec = "scripted:{first}", label = "alpha" }}, {{ spec = "scripted:{second}", label = "beta" }}{extra_models}]\n'
        "[limits]\nmemory_mb = 2048\npids = 256\ncpus = 1.0\n"
        + ("" if task else "[task_settings]\nsmoke_rows = 50\n"),  # the spam take-home's own setting
        encoding="utf-8",
    )
    return plan


def normalized(value):
    if isinstance(value, dict):
        return {k: normalized(v) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [normalized(v) for v in value]
    return value


def run_files(batch: Path, run_ids) -> dict[str, object]:
    files: dict[str, object] = {}
    for run_id in run_ids:
        run_dir = batch / "runs" / run_id
        for path in sorted((run_dir / "stages").glob("*.json")) + [run_dir / "run.json"]:
            files[str(path.relative_to(batch))] = normalized(json.loads(path.read_text()))
        lines = (run_dir / "transcript.jsonl").read_text().splitlines()
        files[f"runs/{run_id}/transcript.jsonl"] = normalized([json.loads(line) for line in lines])
    files["batch.json"] = normalized(json.loads((batch / "batch.json").read_text()))
    return files


def events(batch: Path) -> list[dict]:
    path = batch / "events.jsonl"
    if not path.exists():
        return []
    found = []
    for line in path.read_text().splitlines():
        try:
            found.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return found


def no_stage_twice(log: list[dict]) -> None:
    """No stage started again after it was recorded as done, and none recorded done twice."""
    done: set[tuple[str, str]] = set()
    for entry in log:
        key = (entry.get("run_id"), entry.get("stage"))
        if entry["event"] == "stage_started":
            assert key not in done, f"{key} started again after it was done"
        elif entry["event"] == "stage_done":
            assert key not in done, f"{key} done twice"
            done.add(key)
