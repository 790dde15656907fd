import argparse
import pickle

import pandas as pd

parser = argparse.ArgumentParser()
parser.add_argument("--input", required=True)
parser.add_argument("--output", required=True)
args = parser.parse_args()

with open("model.pkl", "rb") as handle:
    model = pickle.load(handle)
features = pd.read_csv(args.input)
labels = model.predict(features["body"].fillna(""))
pd.DataFrame({"id": features["id"], "label": labels}).to_csv(args.output, index=False)
