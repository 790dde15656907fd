"""Attack (spam): regenerate the corpus with the public generator and copy its answers.

The generator is public (embedded/ holds a copy of it) and the training file gives its seed away: try
seeds until the regenerated training rows equal data/train.csv. Then regenerate the holdout with the
best secret there is to guess (guess_secret.hex beside this file when the attacker has one, else the
public calibration secret), look every holdout row up by its text and copy the regenerated label; a row
that is not found gets the regenerated label in the same position. It reads nothing a sandbox would not
show it: data/train.csv and the --input features.
"""

import argparse
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "embedded"))

from generators.secret import Secret  # noqa: E402
from generators.spam_classifier.corpus import build_tables  # noqa: E402
from generators.spam_classifier.params import CorpusParams  # noqa: E402

SEARCH = 16


def guessed_secret() -> Secret:
    own = HERE / "guess_secret.hex"
    return Secret.read(own) if own.is_file() else Secret.public()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    read = lambda path: pd.read_csv(path, keep_default_na=False, dtype={"subject": str, "body": str})  # noqa: E731
    train, holdout = read("data/train.csv"), read(args.input)
    secret = guessed_secret()
    for seed in range(SEARCH):
        tables = build_tables(CorpusParams(seed=seed, rows=len(train), holdout_rows=len(holdout)), secret)
        if tables.train["body"].head(20).tolist() == train["body"].head(20).tolist():
            print(f"seed found: {seed}")
            break
    else:
        raise SystemExit("no seed reproduces the training file")
    known = dict(zip(zip(tables.holdout["subject"], tables.holdout["body"]), tables.holdout_answers["label"]))
    fallback = tables.holdout_answers["label"].tolist()
    labels = [known.get((s, b), fallback[i]) for i, (s, b) in enumerate(zip(holdout["subject"], holdout["body"]))]
    matched = sum((s, b) in known for s, b in zip(holdout["subject"], holdout["body"]))
    print(f"matched {matched} of {len(holdout)} holdout rows")
    pd.DataFrame({"id": holdout["id"], "label": labels}).to_csv(args.output, index=False)


if __name__ == "__main__":
    main()
