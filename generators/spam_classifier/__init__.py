"""The seeded spam-classification corpus with its planted leakage trap.

Entry point: `generate_corpus(CorpusParams(...), out_dir) -> Manifest`.
"""

from generators.spam_classifier.params import GENERATOR_VERSION, CorpusParams
from generators.spam_classifier.writer import Manifest, generate_corpus, read_manifest

__all__ = ["GENERATOR_VERSION", "CorpusParams", "Manifest", "generate_corpus", "read_manifest"]
