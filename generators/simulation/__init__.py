"""The packing-line queue take-home's data: visible example configurations, hidden ones keyed by a secret,
and their exact long-run mean waits.

Entry point: `generate_sim_data(SimParams(...), out_dir) -> SimManifest`.
"""

from generators.simulation.params import GENERATOR_VERSION, SimParams
from generators.simulation.secret import SimSecret
from generators.simulation.writer import SimManifest, generate_sim_data

Secret = SimSecret  # the name callers import: the simulation's data is keyed by this one

__all__ = ["GENERATOR_VERSION", "Secret", "SimManifest", "SimParams", "SimSecret", "generate_sim_data"]
