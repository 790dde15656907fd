import argparse

import joblib
import pandas as pd
from tabulate import tabulate

parser = argparse.ArgumentParser()
parser.add_argument("--input", required=True)
parser.add_argument("--output", required=True)
args = parser.parse_args()

features = pd.read_csv(args.input)
model = joblib.load("model.joblib")
texts = features["subject"].fillna("") + " " + features["body"].fillna("")
labels = model.predict(texts)
pd.DataFrame({"id": features["id"], "label": labels}).to_csv(args.output, index=False)
counts = [["spam", int(labels.sum())], ["ham", int(len(labels) - labels.sum())]]
print(tabulate(counts, headers=["predicted", "messages"], tablefmt="github"))
