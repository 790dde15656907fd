"""Attack (ab_test): recover a hidden experiment's truth from the public generator by searching seeds.

The generator is public (embedded/ holds a copy of it). The first thing an experiment draws is its users'
arms, so read the arms of the first 64 users of the --input log, and try master seeds: for each, derive the
hidden experiments (with the best secret there is to guess: guess_secret.hex beside this file when the
attacker has one, else the public calibration secret) and compare that experiment's first 64 arms (its
index is in the file name). On a match the true effect is known: answer it with a zero-width interval. With
no match, answer the best candidate's effect all the same. The parameters other than the seed are taken
from guess_params.json (an attacker who knows every public setting). Extra keys say how well it matched.
"""

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "embedded"))

from generators.ab_test.params import AbParams  # noqa: E402
from generators.ab_test.writer import holdout_specs  # noqa: E402
from generators.secret import Secret  # noqa: E402

SEARCH = 16
LOOKED_AT = 64


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    own = HERE / "guess_secret.hex"
    secret = Secret.read(own) if own.is_file() else Secret.public()
    params = json.loads((HERE / "guess_params.json").read_text(encoding="utf-8"))
    frame = pd.read_csv(args.input)
    arms = frame.groupby("user_id")["arm"].first().sort_index()
    observed = (arms.head(LOOKED_AT).to_numpy() == "B").astype(int)
    index = int(re.search(r"(\d+)$", Path(args.input).stem).group(1))
    best = (-1.0, 0.0, -1)
    for seed in range(SEARCH):
        spec = holdout_specs(AbParams(seed=seed, **params), secret)[index]
        drawn = np.random.default_rng(spec.seed).integers(0, 2, spec.users)[:LOOKED_AT]
        agreement = float(np.mean(drawn == observed)) if spec.users >= LOOKED_AT else 0.0
        if agreement > best[0]:
            best = (agreement, spec.effect, seed)
    agreement, effect, seed = best
    result = {"effect": effect, "ci_low": effect - 1e-9, "ci_high": effect + 1e-9, "agreement": agreement,
              "seed": seed}
    with open(args.output, "w", encoding="utf-8") as out:
        json.dump(result, out)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
