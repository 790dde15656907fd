"""Cheater: one data-free interval for every experiment, never reading the log.

The interval is the best constant there is: from the generator's public parameters (the share of
experiments without an effect, the range of the others) it takes the 2.5% and 97.5% points of the
distribution of true effects, written into constant.json beside this file when it was made.
"""

import argparse
import json
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    result = json.loads((Path(__file__).resolve().parent / "constant.json").read_text(encoding="utf-8"))
    with open(args.output, "w", encoding="utf-8") as out:
        json.dump(result, out)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
