"""Scale-out figures, measured side by side in one run on this machine (a real local Ray cluster, CPU only).

1. harness overhead: the same plan (scripted answers, Docker sandbox) under the Ray executor with one
   worker slot and under the local executor; the Ray batch's extra wall time over the local one's (goal <= 10%).
2. runs per hour with one and two workers on a plan dominated by model waiting (a scripted model that
   waits a fixed delay before each answer; answers without code, so the sandbox has little to do)
   (goal >= 1.8x with two).
3. one machine, two runs in flight (the local executor, --parallel 2; one model shared, one generation at a
   time): the batch wall time over the larger of its summed model time and summed sandbox time
   (goal <= 1.15; the sequential loop takes their sum).

    .venv/bin/python bench/scale_out.py [--runs 2] [--delay 2.0] [--train-delay 2.5]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

# bench/ holds a sandbox.py of its own: the package of that name must win, and the tests' helpers be found.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from runner_support import answers, implementation, make_tiny_corpus, write_script  # noqa: E402

MiB = 1024 * 1024


class DelayedScripted:
    """Opens the scripted backend, wrapped so that every answer first waits `delay` seconds (a slow model)."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.busy = [0.0]  # seconds the model itself was busy (in this process: the local executor's runs)

    def __call__(self, spec, options):
        from bakeoff.runner.executors.common import default_open_backend

        return _Delayed(default_open_backend(spec, options), self.delay, self.busy)


class _Delayed:
    def __init__(self, inner, delay: float, busy: list) -> None:
        self._inner, self._delay, self._busy = inner, delay, busy
        self.identity = inner.identity

    def chat(self, messages, *, key, settings):
        started = time.monotonic()
        time.sleep(self._delay)
        try:
            return self._inner.chat(messages, key=key, settings=settings)
        finally:
            self._busy[0] += time.monotonic() - started  # inside the shared model's lock: no waiting counted

    def close(self) -> None:
        self._inner.close()


def _plan(root: Path, corpus: Path, script: Path, runs: int, models: int = 1):
    from bakeoff.runner.plan import plan_from_mapping

    specs = [{"spec": f"scripted:{script}", "label": f"m{i}"} for i in range(models)]
    return plan_from_mapping({"models": specs, "corpus": str(corpus), "runs": runs, "sandbox": "docker", "seed": 3,
                              "limits": {"memory_mb": 2048, "pids": 256, "cpus": 1.0},
                              "task_settings": {"smoke_rows": 50}}, root)


def _batch(plan, out: Path, executor, opener=None) -> tuple[float, list[dict]]:
    from bakeoff.runner.batch import BatchOptions, run_batch
    from sandbox.wheelhouse import default_wheelhouse

    started = time.monotonic()
    result = run_batch(plan, BatchOptions(out_dir=out, wheelhouse=default_wheelhouse(), executor=executor,
                                          open_backend=opener))
    wall = time.monotonic() - started
    assert result.failed == 0, [r.get("error") for r in result.records]
    return wall, [dict(r) for r in result.records]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=2, help="runs per measured batch (model waiting: 2x this)")
    parser.add_argument("--delay", type=float, default=2.0, help="seconds the slow model waits per answer")
    parser.add_argument("--overlap-runs", type=int, default=4, help="runs of the one-machine overlap batch (even: none ends alone)")
    parser.add_argument("--only-overlap", action="store_true", help="measure the one-machine overlap alone")
    parser.add_argument("--train-delay", type=float, default=2.5, help="model delay for the one-machine overlap")
    args = parser.parse_args()

    from bakeoff.runner.executors.local import LocalExecutor

    root = Path(tempfile.mkdtemp(prefix="bakeoff-scale-out-"))
    corpus = make_tiny_corpus(root / "corpus")
    working = write_script(root / "working.jsonl", answers(implementation()), copies=max(args.runs, args.overlap_runs))
    figures = {} if args.only_overlap else _on_ray(args, root, corpus, working)
    overlap_plan = _plan(root, corpus, working, args.overlap_runs)
    _report(figures, args, root, corpus, overlap_plan, LocalExecutor)


def _on_ray(args, root: Path, corpus: Path, working: Path) -> dict:

    from bakeoff.runner.executors.node import ray_on_loopback

    with ray_on_loopback() as address:  # the cluster binds to loopback, not the machine's interface address
        return _measure_on_ray(args, root, corpus, working, address)


def _measure_on_ray(args, root: Path, corpus: Path, working: Path, address: str) -> dict:
    import ray
    from ray.cluster_utils import Cluster

    from bakeoff.runner.executors.local import LocalExecutor
    from bakeoff.runner.executors.ray_driver import RayExecutor
    from bakeoff.runner.executors.settings import ExecutorSettings

    prose = write_script(root / "prose.jsonl", [{"key": k, "text": "I would rather describe it in words."}
                                                for k in ("explore", "decide", "implement", "docs")], copies=1)
    node = {"num_cpus": 2, "object_store_memory": 200 * MiB, "resources": {"bakeoff_docker": 1},
            "node_ip_address": address}
    cluster = Cluster(initialize_head=True, head_node_args=node)
    cluster.add_node(**node)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False)
    figures = {}
    try:
        one = RayExecutor(ExecutorSettings(kind="ray", max_in_flight=1))
        two = RayExecutor(ExecutorSettings(kind="ray"))
        plan = _plan(root, corpus, working, args.runs)
        # Alternated and the best of two each: the first batch also warms caches (the wheelhouse, the page cache).
        walls: dict[str, list[float]] = {"local": [], "ray": []}
        for attempt in range(2):
            walls["local"].append(_batch(plan, root / f"overhead-local-{attempt}", LocalExecutor())[0])
            walls["ray"].append(_batch(plan, root / f"overhead-ray-{attempt}", one)[0])
        local_wall, ray_wall = min(walls["local"]), min(walls["ray"])
        figures["harness_overhead"] = (ray_wall / local_wall - 1, local_wall, ray_wall)

        waiting = _plan(root, corpus, prose, args.runs, models=2)
        opener = DelayedScripted(args.delay)
        one_wall, records = _batch(waiting, root / "wait-one", one, opener)
        two_wall, _ = _batch(waiting, root / "wait-two", two, opener)
        runs = len(records)
        figures["runs_per_hour"] = (runs * 3600 / one_wall, runs * 3600 / two_wall)
    finally:
        ray.shutdown()
        cluster.shutdown()
    return figures


def _report(figures: dict, args, root: Path, corpus: Path, overlap_plan, LocalExecutor) -> None:
    slow = DelayedScripted(args.train_delay)
    wall, records = _batch(overlap_plan, root / "overlap", LocalExecutor(2), slow)
    # The engine's own busy time: a run's model_s also counts its wait for the model another run is using.
    model = slow.busy[0]
    code = sum(r["timings"]["sandbox_s"] + r["timings"]["scoring_s"] for r in records)
    figures["overlap"] = (wall / max(model, code), wall, model, code)

    if "harness_overhead" in figures:
        _print_ray(figures)
    print(f"one machine, 2 in flight ({args.overlap_runs} runs): wall {wall:.1f} s / max(model {model:.1f} s, "
          f"sandbox {code:.1f} s) = {wall / max(model, code):.2f} (sequential would be their sum, {model + code:.1f} s; "
          "goal <= 1.15)")
    print(json.dumps({k: list(v) for k, v in figures.items()}))


def _print_ray(figures: dict) -> None:
    overhead, local_wall, ray_wall = figures["harness_overhead"]
    per_hour_one, per_hour_two = figures["runs_per_hour"]
    print(f"harness overhead, Ray (1 worker) over local: {overhead * 100:+.1f}%  "
          f"(local {local_wall:.1f} s, Ray {ray_wall:.1f} s; goal <= 10%)")
    print(f"runs/hour, model-waiting plan: 1 worker {per_hour_one:.0f}, 2 workers {per_hour_two:.0f}, "
          f"x{per_hour_two / per_hour_one:.2f} (goal >= 1.8)")


if __name__ == "__main__":
    main()
