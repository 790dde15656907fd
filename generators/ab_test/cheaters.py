"""The A/B-test take-home's reference analyses and its degenerate baselines, as submission folders.

References (generators/ab_test/references/ab_*): careless (every row an independent trial), half (by user, the fault
missed), careful (by user, the fault removed). Cheaters, which a headline must not reward:

- ab_constant: one data-free interval for every experiment, the 2.5%..97.5% range of the true effects as the
  generator's public parameters make them (the best constant a reader of the public code can pick);
- ab_hardcoded: the visible experiment's careful answer, the same for every experiment;
- ab_band: a sound (careful) estimate with a fixed band of +-0.01, no variance;
- ab_per_user: the mean of per-user rates with a Welch interval: the right unit, the wrong estimand.

`materialize_ab` writes one as a self-contained folder (analyze.py and, for the first two, the data they carry).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import durable
from generators.ab_test import AbParams
from generators.ab_test.writer import MANIFEST_FILE, SESSIONS_FILE
from generators.common.child import child_env
from generators.errors import GeneratorError, ReferenceFailed

AB_VARIANTS = ("ab_careless", "ab_half", "ab_careful")
AB_CHEATERS = ("ab_constant", "ab_hardcoded", "ab_band", "ab_per_user")
REFERENCES = Path(__file__).resolve().parent / "references"
LEVEL = 0.95


class UnknownAbReference(GeneratorError):
    """A reference analysis name that does not exist, or a cheater made without the data folder it needs."""


def constant_interval(params: AbParams, level: float = LEVEL) -> dict[str, float]:
    """The central `level` range of the hidden true effects: a share `zero_effect_share` at 0, the rest
    uniform in [-max_effect, max_effect]. Symmetric, so the constant's estimate is 0."""
    tail = (1 - level) / 2
    spread = 1 - params.zero_effect_share
    reach = params.max_effect * max(0.0, 1 - 2 * tail / spread) if spread > 0 else 0.0
    return {"effect": 0.0, "ci_low": -reach, "ci_high": reach}


def _careful_answer(corpus: Path, python: str) -> dict[str, float]:
    """The careful reference's result on the visible experiment of `corpus`."""
    with tempfile.TemporaryDirectory(prefix="bakeoff-ab-hardcoded-") as scratch:
        output = Path(scratch) / "visible.json"
        argv = [python, str(REFERENCES / "ab_careful" / "analyze.py"), "--input", str(corpus / SESSIONS_FILE),
                "--output", str(output)]
        done = subprocess.run(argv, capture_output=True, text=True, env=child_env())
        if done.returncode != 0:
            raise ReferenceFailed(f"ab_careful on {corpus / SESSIONS_FILE} exited with {done.returncode}:\n"
                                  f"{(done.stdout + done.stderr)[-2000:]}")
        return json.loads(output.read_text(encoding="utf-8"))


def materialize_ab(variant: str, dest: Path, corpus: Path | None = None, python: str = sys.executable) -> Path:
    """Write the `variant` submission (analyze.py, and what a cheater carries) into `dest`; return dest.

    ab_constant reads the corpus's public parameters (the defaults without a corpus); ab_hardcoded needs the
    corpus, whose visible experiment it analyses once."""
    if variant not in AB_VARIANTS + AB_CHEATERS:
        raise UnknownAbReference(
            f"no reference named {variant!r}; choose one of: {', '.join(AB_VARIANTS + AB_CHEATERS)}")
    if variant == "ab_hardcoded" and corpus is None:
        raise UnknownAbReference("ab_hardcoded hard-codes a data folder's visible answer: give the folder")
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(REFERENCES / variant / "analyze.py", dest / "analyze.py")
    if variant == "ab_constant":
        params = AbParams(**json.loads((corpus / MANIFEST_FILE).read_text())["params"]) if corpus else AbParams()
        (dest / "constant.json").write_text(durable.dumps(constant_interval(params)) + "\n", encoding="utf-8")
    if variant == "ab_hardcoded" and corpus is not None:
        (dest / "answer.json").write_text(durable.dumps(_careful_answer(Path(corpus), python)) + "\n", encoding="utf-8")
    return dest
