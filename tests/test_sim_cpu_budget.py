"""The CPU budget is the submission's, not a process's, and the wall-clock limit leaves out the machine's
other load (issue 34): the cap (bakeoff.tasks.simulation.cpu_cap) counts every process simulate.py starts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from bakeoff.tasks.simulation.cpu_cap import CPU_EXCEEDED_EXIT, WALL_EXCEEDED_EXIT, capped_argv
from generators.simulation.calibration import REFERENCES

CONFIG = {"name": "c", "stations": 2, "interarrival": {"distribution": "exponential", "mean": 0.5},
          "service": {"distribution": "lognormal", "log_mu": -0.5, "log_sigma": 0.9, "mean": 0.9, "sd": 1.0},
          "time_unit": "minutes", "seed": 7, "cpu_seconds": 2}
# careful's own code in four forked processes, each with its own output: four budgets' worth of work
FORKED_CAREFUL = """import os, sys
workers = []
for i in range(4):
    pid = os.fork()
    if pid == 0:
        os.execv(sys.executable, [sys.executable, "careful.py", "--config", sys.argv[2], "--output", f"part{i}.json"])
    workers.append(pid)
for pid in workers:
    os.waitpid(pid, 0)
"""
SPIN_ONE_SECOND = "import time\nt = time.process_time()\nwhile time.process_time() - t < 1.0:\n    pass\n"


def capped(folder, budget, wall=None):
    argv = capped_argv("c.json", "r.json", budget, wall)
    return subprocess.run([sys.executable, *argv[1:]], cwd=folder, capture_output=True, text=True, timeout=300)


def test_carefuls_code_forked_into_four_processes_does_not_get_four_budgets(tmp_path):
    shutil.copyfile(REFERENCES / "sim_careful" / "simulate.py", tmp_path / "careful.py")
    (tmp_path / "simulate.py").write_text(FORKED_CAREFUL, encoding="utf-8")
    (tmp_path / "c.json").write_text(json.dumps(CONFIG), encoding="utf-8")
    alone = subprocess.run([sys.executable, "careful.py", "--config", "c.json", "--output", "alone.json"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert alone.returncode == 0, alone.stderr  # one careful run fits its budget...
    done = capped(tmp_path, CONFIG["cpu_seconds"])
    assert done.returncode == CPU_EXCEEDED_EXIT, (done.returncode, done.stderr)  # ...four do not
    assert "used its CPU-time budget" in done.stderr
    assert not list(tmp_path.glob("part*.json"))  # every worker was stopped before it wrote


def test_processes_left_behind_are_stopped_with_the_run(tmp_path):
    marker = tmp_path / "late"
    (tmp_path / "simulate.py").write_text(
        f"import os, time\nif os.fork() == 0:\n    time.sleep(3)\n    open({str(marker)!r}, 'w').close()\n", encoding="utf-8")
    assert capped(tmp_path, 2).returncode == 0
    time.sleep(4)
    assert not marker.exists()


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity")
def test_the_wall_clock_limit_does_not_count_time_the_machine_kept_the_run_waiting(tmp_path):
    (tmp_path / "simulate.py").write_text(SPIN_ONE_SECOND, encoding="utf-8")
    cpu = sorted(os.sched_getaffinity(0))[0]
    spin = "import os\nos.sched_setaffinity(0, {%d})\nwhile True:\n    pass\n" % cpu
    load = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(4)]  # four busy neighbours on one CPU
    try:
        argv = capped_argv("c.json", "r.json", 5, 2.0)
        started = time.monotonic()
        done = subprocess.run([sys.executable, *argv[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                              preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
        elapsed = time.monotonic() - started
    finally:
        for process in load:
            process.kill()
            process.wait()
    assert elapsed > 2.5, elapsed  # the wall clock passed the limit...
    assert done.returncode == 0, (done.returncode, done.stderr, elapsed)  # ...but the run was not at fault
    (tmp_path / "simulate.py").write_text("import time\ntime.sleep(30)\n", encoding="utf-8")
    assert capped(tmp_path, 5, 2.0).returncode == WALL_EXCEEDED_EXIT  # a run that idles is stopped at the limit
