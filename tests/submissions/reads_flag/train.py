"""Careless: moderator_flagged tracks the label in training, so it looks like the perfect feature."""

import joblib
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

train = pd.read_csv("data/train.csv")
model = DecisionTreeClassifier(max_depth=2, random_state=0)
model.fit(train[["moderator_flagged", "n_links"]], train["label"])
joblib.dump(model, "model.joblib")
