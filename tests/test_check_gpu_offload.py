"""`bakeoff check` beside a GPU with a CPU build of the engine: a failing row naming `bash scripts/setup.sh --cuda`
and a machine that is not ready (issue 38); with no GPU the CPU build is a harmless `no`, as before.

There is no GPU here: the GPU the check sees is handed down (CheckOptions.gpu_probe, a FixedProbe); the real
NVML path is asked too, and says what is true of this machine."""

from __future__ import annotations

import pytest

from bakeoff.models.engine_check import EngineProbe
from bakeoff.models.engine_messages import EngineFacts
from bakeoff.models.memory import GIB, FixedProbe, GpuMemory, MemoryEstimate, NvmlProbe
from bakeoff.models.registry import default_model_path
from bakeoff.preflight import CheckOptions, State, engine_rows, machine_report, render
from sandbox.image import IMAGE_TAG

H100 = GpuMemory(name="NVIDIA H100 80GB HBM3", free_bytes=79 * GIB, total_bytes=80 * GIB)
CUDA_FIX = "bash scripts/setup.sh --cuda"


def loaded(offloads: bool) -> EngineProbe:
    facts = EngineFacts(pid=1, llama_cpp_python_version="0.3.36", libraries={}, system_info="AVX2 = 1",
                        gpu_offload_supported=offloads, n_ctx=512, estimate=MemoryEstimate(0, 0, 0, 0))
    return EngineProbe(True, False, "1 token in 0.1 s", "model.gguf", "-DGGML_NATIVE=OFF", facts)


def offload_row(probe: EngineProbe, gpu: GpuMemory | None):
    return next(row for row in engine_rows(probe, gpu) if row.item == "GPU offload")


def test_a_cpu_build_beside_a_gpu_fails_and_names_the_cuda_build():
    row = offload_row(loaded(offloads=False), H100)
    assert row.state is State.FAIL
    assert CUDA_FIX in row.detail and H100.name in row.detail


def test_a_cpu_build_with_no_gpu_is_a_harmless_no():
    row = offload_row(loaded(offloads=False), None)
    assert row.state is State.NO and CUDA_FIX in row.detail


def test_a_build_that_offloads_beside_a_gpu_is_ok():
    assert offload_row(loaded(offloads=True), H100).state is State.OK


def options(tmp_path, gpu_probe):
    return CheckOptions(image=IMAGE_TAG, out_dir=tmp_path, model_path=default_model_path(), sandbox="bwrap",
                        gpu_probe=gpu_probe)


@pytest.mark.llama
def test_the_installed_cpu_build_beside_a_gpu_makes_the_machine_not_ready(tmp_path):
    report = machine_report(options(tmp_path, FixedProbe(H100)))
    assert report.row("engine generates").state is State.OK  # the build works: only the offload fails
    assert report.row("GPU offload").state is State.FAIL and CUDA_FIX in report.row("GPU offload").detail
    assert report.row("GPU memory").state is State.OK and H100.name in report.row("GPU memory").detail
    assert not report.ready  # `bakeoff check` exits 1
    text = render(report)
    assert CUDA_FIX in text and text.rstrip().endswith("this machine is NOT ready: fix the FAIL rows")


@pytest.mark.llama
def test_no_gpu_seen_leaves_the_cpu_build_harmless_and_nvml_says_what_is_here(tmp_path):
    unseen = machine_report(options(tmp_path, FixedProbe(None)))
    assert unseen.row("GPU offload").state is State.NO
    assert unseen.row("GPU memory").state is State.NO
    real = machine_report(options(tmp_path, None))  # NVML asked for real
    seen = NvmlProbe().read()
    assert real.row("GPU memory").state is (State.OK if seen else State.NO)
    if seen is None:
        assert real.row("GPU offload").state is State.NO and "no NVIDIA GPU" in real.row("GPU memory").detail
