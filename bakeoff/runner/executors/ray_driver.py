"""The Ray executor: one run is one Ray task; the driver (this process) is the only writer of the batch folder.

Runs are submitted in the interleaved order, at most as many as the cluster's sandbox slots (the
`bakeoff_<kind>` resource its nodes advertise) or `max_in_flight` allow, and a model's own cap. A run asks
for what its model needs: a GGUF model one GPU (or the plan's share) and the plan's `vram_gb`, an HTTP
endpoint no GPU. A run no alive node could ever take is recorded as such instead of waiting forever.
Ray retries a task whose worker died (max_retries); errors inside a run are data and never retried.
"""

from __future__ import annotations

import hashlib
from typing import Any

from bakeoff.batchfolder.files import utc_now
from bakeoff.batchfolder.records import read_batch_record
from bakeoff.errors import BakeoffError
from bakeoff.models.kinds import kind_of
from bakeoff.models.spec import ModelSpec
from bakeoff.records import RunRecord
from bakeoff.runner.executors.common import (
    Opener,
    declared_max_concurrent,
    model_backend_options,
    record_unstarted_failure,
)
from bakeoff.runner.executors.settings import ExecutorSettings
from bakeoff.runner.hostgit import ForeignRepository
from bakeoff.runner.model_entries import spec_of
from bakeoff.runner.plan import RunSlot
from bakeoff.runner.run import BatchEnv

POLL_S = 0.2


class RayNotInstalled(BakeoffError):
    """The Ray executor was asked for, but Ray is not installed."""


class NoNodeFits(BakeoffError):
    """No alive node of the cluster offers what a run asks for."""


def require_ray():
    try:
        import ray
    except ImportError:
        raise RayNotInstalled(
            "the Ray executor needs Ray: install the extra with `pip install 'bakeoff[ray]'`"
        ) from None
    return ray


def batch_id(env: BatchEnv) -> str:
    """Names the batch on container labels: its folder and creation time (stable across driver restarts)."""
    created = read_batch_record(env.layout.record).created_at
    return hashlib.sha256(f"{env.batch_dir}\n{created}".encode()).hexdigest()[:16]


class RayExecutor:
    def __init__(self, settings: ExecutorSettings) -> None:
        require_ray()  # before the batch folder is touched: a missing extra is the user's to fix first
        self.settings = settings

    def run(self, env: BatchEnv, slots: list[RunSlot], opener: Opener, progress) -> None:
        from bakeoff.runner.scaffold import refuse_step_writers_on_ray

        refuse_step_writers_on_ray({slot.scaffold: env.scaffold(slot.scaffold) for slot in slots})
        ray = require_ray()
        if ray.is_initialized():  # a cluster this process joined already (tests, benches)
            _Driver(ray, self.settings, env, opener, progress).drive(slots)
            return
        if self.settings.address:
            ray.init(address=self.settings.address, log_to_driver=False)
            try:
                _Driver(ray, self.settings, env, opener, progress).drive(slots)
            finally:
                ray.shutdown()
            return
        from bakeoff.runner.executors.node import local_resources, ray_on_loopback

        # A local cluster binds to loopback: Ray's default is the machine's interface address, and no other host
        # needs to reach it.
        # address="local": a cluster of its own, always; without it ray.init joins any cluster another process
        # started on this machine (and refuses the resources it is handed, a ValueError mid-batch).
        with ray_on_loopback() as address:
            ray.init(address="local", resources=local_resources(self.settings.max_in_flight or 2),
                     include_dashboard=False, log_to_driver=False, _node_ip_address=address)
            try:
                _Driver(ray, self.settings, env, opener, progress).drive(slots)
            finally:
                ray.shutdown()


def _corpus_files(env: BatchEnv) -> dict[str, bytes]:
    corpus = env.corpus
    return {corpus.relative(path): path.read_bytes() for path in corpus.files() if path.is_file()}


class _Driver:
    def __init__(self, ray, settings: ExecutorSettings, env: BatchEnv, opener: Opener, progress) -> None:
        from bakeoff.runner.executors.ray_worker import Desk

        self.ray, self.settings, self.env, self.opener, self.progress = ray, settings, env, opener, progress
        here = ray.get_runtime_context().get_node_id()
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        self.desk = ray.remote(Desk).options(
            num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(here, soft=True)).remote()
        self.corpus_box = [ray.put(_corpus_files(env))]  # nested: a worker fetches it only where it lacks the corpus
        self.batch_id = batch_id(env)
        self.in_flight: dict[Any, RunSlot] = {}
        self._hashes: dict[str, str | None] = {}

    # -- submitting ----------------------------------------------------------------------------

    def _demand(self, slot: RunSlot) -> dict[str, float]:
        from bakeoff.runner.executors.node import sandbox_resource

        wanted = self.settings.for_model(slot.model.label)
        loads_gpu = kind_of(spec_of(slot.model)).uses_gpu  # an endpoint's runs hold no GPU of their own
        gpus = wanted.gpus if wanted.gpus is not None else (self.settings.gpus_per_run if loads_gpu else 0.0)
        demand = {"CPU": self.settings.cpus_per_run, "GPU": gpus, sandbox_resource(self.env.plan.sandbox): 1.0}
        if wanted.vram_gb:
            demand["vram_gb"] = wanted.vram_gb
        return {name: amount for name, amount in demand.items() if amount}

    def _fits_a_node(self, demand: dict[str, float]) -> bool:
        for node in self.ray.nodes():
            if node.get("Alive") and all(node.get("Resources", {}).get(k, 0) >= v for k, v in demand.items()):
                return True
        return False

    def _capacity(self) -> int:
        from bakeoff.runner.executors.node import sandbox_resource

        if self.settings.max_in_flight:
            return self.settings.max_in_flight
        return int(self.ray.cluster_resources().get(sandbox_resource(self.env.plan.sandbox), 0))

    def _model_sha256(self, spec: ModelSpec) -> str | None:
        """The model file's sha256 where the driver has the file (a node must have the same one)."""
        from bakeoff.runner.executors.node import file_digest

        if spec.text not in self._hashes:
            path = spec.file()
            self._hashes[spec.text] = file_digest(path) if path is not None and path.is_file() else None
        return self._hashes[spec.text]

    def _job(self, slot: RunSlot):
        from bakeoff.models.scheduling import ray_run_threads
        from bakeoff.runner.executors.ray_worker import RunJob

        env = self.env
        return RunJob(
            slot=slot, plan=env.plan, plugin=env.plugin, batch_id=self.batch_id, code_version=env.code_version,
            corpus_folder=str(env.corpus.folder), corpus_manifest_sha256=env.corpus.manifest_sha256(),
            wheelhouse=str(env.wheelhouse) if env.wheelhouse else None, sandbox_options=dict(env.sandbox_options),
            evaluate_hooks=dict(env.evaluate_hooks), scaffold=env.scaffold(slot.scaffold),
            model_options=model_backend_options(env, slot.model, 1, ray_run_threads(self.settings.cpus_per_run), busy=0),
            model_sha256=self._model_sha256(spec_of(slot.model)), opener=self.opener,
        )

    def _submit(self, slot: RunSlot, demand: dict[str, float]) -> None:
        from bakeoff.runner.executors.handback import state_from_disk
        from bakeoff.runner.executors.ray_worker import run_attempt

        if self.env.corpus_sha256 is not None:
            from bakeoff.runner.fingerprint import check_fingerprint

            check_fingerprint(self.env.corpus, self.env.corpus_sha256)  # before every run, as the local executor
        self.ray.get(self.desk.open_run.remote(slot.run_id, state_from_disk(self.env, slot.run_id)))
        custom = {k: v for k, v in demand.items() if k not in ("CPU", "GPU")}
        task = self.ray.remote(run_attempt).options(
            num_cpus=demand.get("CPU", 0), num_gpus=demand.get("GPU", 0), resources=custom,
            max_retries=self.settings.max_retries, retry_exceptions=False, name=f"bakeoff-run:{slot.run_id}",
        )
        self.progress.run_started(slot)
        self.in_flight[task.remote(self.desk, self._job(slot), self.corpus_box)] = slot

    def _model_cap(self, slot: RunSlot) -> int | None:
        """At most this many of the model's runs at once: its max_in_flight, and for an endpoint (one server
        for every run, unlike a GGUF file each run loads itself) a declared max_concurrent."""
        cap = self.settings.for_model(slot.model.label).max_in_flight
        declared = declared_max_concurrent(self.env, slot.model)
        if declared and kind_of(spec_of(slot.model)).is_endpoint:
            cap = min(cap, declared) if cap else declared
        return cap

    def _submit_what_fits(self, pending: list[RunSlot]) -> None:
        capacity = self._capacity()
        index = 0
        while index < len(pending) and (len(self.in_flight) < capacity or not self.in_flight):
            slot = pending[index]
            cap = self._model_cap(slot)
            if cap and sum(1 for s in self.in_flight.values() if s.model.label == slot.model.label) >= cap:
                index += 1
                continue
            pending.pop(index)
            demand = self._demand(slot)
            if capacity < 1 or not self._fits_a_node(demand):
                asked = ", ".join(f"{k}={v:g}" for k, v in sorted(demand.items()))
                error = f"NoNodeFits: no alive node of the Ray cluster offers what this run asks for ({asked})"
                self.progress.run_started(slot)
                self.progress.run_finished(slot, record_unstarted_failure(self.env, slot, error))
                continue
            try:
                self._submit(slot, demand)
            except ForeignRepository as exc:  # a handed-over run's repository: refused by name, the batch goes on
                self.progress.run_started(slot)
                self.progress.run_finished(slot, record_unstarted_failure(self.env, slot, f"ForeignRepository: {exc}"))

    # -- publishing ----------------------------------------------------------------------------

    def _publish(self, messages: list[tuple[str, dict]]) -> None:
        from bakeoff.runner.executors.handback import publish_stage

        for run_id, message in messages:
            if message["kind"] == "placed":
                self.env.journal.append("run_placed", run_id=run_id, node=message["node"],
                                        worker_pid=message["worker_pid"], node_ip=message.get("node_ip"),
                                        attempt=message["attempt"],
                                        containers_removed=message["containers_removed"])
            elif message["kind"] == "event":
                fields = dict(message["fields"])
                if message["event"] == "stage_started":
                    self.progress.stage_started(run_id, fields.get("stage"))
                self.env.journal.append(message["event"], **fields)
            else:
                publish_stage(self.env, message["parcel"])

    def _finish(self, slot: RunSlot, ref) -> None:
        from bakeoff.runner.executors.ray_worker import Outcome

        try:
            outcome = self.ray.get(ref)
        except Exception as exc:  # noqa: BLE001 - retries spent (the node lost for good...): the run's failure
            text = str(exc).strip().splitlines()
            outcome = Outcome(f"the Ray task failed: {type(exc).__name__}: {text[0] if text else ''}")
        self.ray.get(self.desk.close_run.remote(slot.run_id))
        if outcome.unstarted:
            record = record_unstarted_failure(self.env, slot, outcome.error)
        else:
            record = self._run_record(slot, outcome)
        self.progress.run_finished(slot, record)

    def _run_record(self, slot: RunSlot, outcome) -> RunRecord:
        """What execute_run writes at a run's end, from the stages this driver published."""
        from bakeoff.batchfolder.records import finished_stages, stages_with_failure, write_run_record
        from bakeoff.runner.summary import run_summary
        from bakeoff.runner.transcript import write_transcript

        env, run_dir = self.env, self.env.run_dir(slot.run_id)
        stages = finished_stages(run_dir) if outcome.error is None else stages_with_failure(run_dir)
        if stages:
            write_transcript(env.layout.run(slot.run_id).transcript, stages.values(), env.counter)
        started_at = outcome.started_at or utc_now()
        record = run_summary(env, slot, stages, started_at, outcome.error, outcome.isolation or env.plan.sandbox,
                             outcome.identity)
        write_run_record(run_dir, record, env.counter)
        env.journal.append("run_failed" if outcome.error else "run_done", run_id=slot.run_id)
        return record

    def drive(self, slots: list[RunSlot]) -> None:
        pending = list(slots)
        while pending or self.in_flight:
            self._submit_what_fits(pending)
            if not self.in_flight:
                continue
            ready, _ = self.ray.wait(list(self.in_flight), num_returns=len(self.in_flight), timeout=POLL_S)
            self._publish(self.ray.get(self.desk.take.remote()))
            for ref in ready:
                self._finish(self.in_flight.pop(ref), ref)
        self._publish(self.ray.get(self.desk.take.remote()))
