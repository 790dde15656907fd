"""Cheater: the visible experiment's careful answer, hard-coded, whatever log it is given.

answer.json beside this file holds the careful analysis of data/sessions.csv, made once when this
submission was; every hidden experiment gets the same effect and interval.
"""

import argparse
import json
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    result = json.loads((Path(__file__).resolve().parent / "answer.json").read_text(encoding="utf-8"))
    with open(args.output, "w", encoding="utf-8") as out:
        json.dump(result, out)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
