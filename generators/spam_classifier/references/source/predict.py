"""Calibration reference: label each message of --input with the model train.py saved.

`python predict.py --input <features csv> --output <predictions csv>` writes `id,label`.
The model picks its own columns, all of which exist in the holdout file.
"""

import argparse

import joblib
import pandas as pd

MODEL_FILE = "model.joblib"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    model = joblib.load(MODEL_FILE)
    features = pd.read_csv(args.input, keep_default_na=False, dtype={"subject": str, "body": str})
    predictions = pd.DataFrame({"id": features["id"], "label": model.predict(features).astype(int)})
    predictions.to_csv(args.output, index=False)


if __name__ == "__main__":
    main()
