"""Cheater (spam): label each message of --input with the rule train.py chose (see train.py).

`python predict.py --input <features csv> --output <predictions csv>` writes `id,label`.
"""

import argparse
import json
from pathlib import Path

import pandas as pd

from train import RULE_FILE, predict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    saved = json.loads(Path(RULE_FILE).read_text(encoding="utf-8"))
    features = pd.read_csv(args.input, keep_default_na=False, dtype={"subject": str, "body": str})
    labels = predict(saved["rule"], features, saved["spam_rate"], saved.get("model"))
    pd.DataFrame({"id": features["id"], "label": labels}).to_csv(args.output, index=False)


if __name__ == "__main__":
    main()
