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
words = ["spam" if label else "ham" for label in model.predict(texts)]
pd.DataFrame({"id": features["id"], "label": words}).to_csv(args.output, index=False)
