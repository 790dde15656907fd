import argparse

import joblib
import pandas as pd

parser = argparse.ArgumentParser()
parser.add_argument("--input", required=True)
parser.add_argument("--output", required=True)
args = parser.parse_args()

features = pd.read_csv(args.input)
model = joblib.load("model.joblib")
texts = features["subject"].fillna("") + " " + features["body"].fillna("")
pd.DataFrame({"id": features["id"], "label": model.predict(texts)}).to_csv(args.output, index=False)
