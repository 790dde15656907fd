"""Shared pieces of the simulation batch tests: a tiny data folder and scripted answers for the five stages.

The simulations are the calibration references' own simulate.py (careful: replications with a warm-up and a
t interval over replication means; careless: one run of 20,000 orders from empty, an interval as if the waits
were independent), so what the behavioural probe should find is known; the crashing one imports a package
that does not exist.
"""

from __future__ import annotations

from pathlib import Path

from interval_runner_support import implementation_answer, reference_script, stage_answers
from runner_support import fenced

TINY_SIM = {"seed": 3, "configurations": 4, "cpu_seconds": 1, "reference_millions": 2}
# The tests' fixed secret (a real corpus draws its own): the hidden configurations are the same on every run.
TINY_SECRET_HEX = "5e" * 32


def make_tiny_sim_data(folder: Path) -> Path:
    from generators.simulation import Secret, SimParams, generate_sim_data

    generate_sim_data(SimParams(**TINY_SIM), folder, secret=Secret.from_hex(TINY_SECRET_HEX))
    return folder


EXPLORE = fenced("explore.py", """
import glob, json
for path in sorted(glob.glob("data/examples/*.json")):
    c = json.load(open(path))
    print(path, c["stations"], c["interarrival"]["distribution"], c["service"]["distribution"], c["cpu_seconds"])
""")


def design(warmup: str, interval: str) -> str:
    return f"""My design.

# file: DESIGN.md
```markdown
# Design
The line is simulated order by order (each order waits for the station that frees first).
WARMUP: {warmup}
INTERVAL: {interval}
ESTIMATE: 8.0 [7.0, 9.0]
```
"""


CAREFUL_DESIGN = design("six relaxation times of the queue, deleted in every replication", "independent replications")
CARELESS_DESIGN = design("the first 10% of the run", "batch means")  # what its code does not do


def simulation(reference: str) -> str:
    return reference_script(reference, "simulate.py")


CAREFUL = simulation("sim_careful")
CARELESS = simulation("sim_careless")
CRASHING = "import queue_magic_toolkit  # no such package\n" + CAREFUL

# Careful stops on its own CPU clock (simulation v2: it uses its budget), so two runs of it with one seed differ.
# The harness's tests compare two runs of one submission (resumed, re-run, staged against agent): they run careful
# with a fixed run length instead, whose output depends on its seed alone.
CPU_CLOCK_STOP = "if start + size > warmup and now + (now - before) > deadline:"
FIXED_STEPS = 8_000


def fixed_length(source: str, steps: int = FIXED_STEPS) -> str:
    """`source` (careful's simulate.py) stopping after `steps` steps past its warm-up, not on its CPU clock."""
    assert CPU_CLOCK_STOP in source, "careful's stopping rule changed: update tests/sim_runner_support.py"
    return source.replace(CPU_CLOCK_STOP, f"if start + size > warmup + {steps}:")


CAREFUL_FIXED = fixed_length(CAREFUL)


def implementation(simulate: str) -> str:
    return implementation_answer("simulation", "simulate.py", simulate, "numpy")


README = fenced("README.md", """
# How long orders wait
Independent replications with a warm-up deleted.
ESTIMATE: 8.0 [7.0, 9.0]
""", language="markdown")


def sim_answers(implement: str, repair: str | None = None, design_text: str = CAREFUL_DESIGN,
                docs: str = README) -> list[dict]:
    return stage_answers(EXPLORE, design_text, implement, repair, docs)
