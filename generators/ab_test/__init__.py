"""The seeded A/B-test sessions log with its planted traps, and its hidden experiments.

Entry point: `generate_ab_data(AbParams(...), out_dir) -> AbManifest`.
"""

from generators.ab_test.params import GENERATOR_VERSION, AbParams
from generators.ab_test.writer import AbManifest, generate_ab_data

__all__ = ["GENERATOR_VERSION", "AbManifest", "AbParams", "generate_ab_data"]
