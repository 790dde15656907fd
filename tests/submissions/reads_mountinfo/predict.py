"""Prints the sandbox's mount table (what a curious submission would look at), then predicts spam for nothing."""

import argparse
import csv

parser = argparse.ArgumentParser()
parser.add_argument("--input", required=True)
parser.add_argument("--output", required=True)
args = parser.parse_args()
with open("/proc/self/mountinfo") as table:
    print(table.read())
with open(args.input, newline="", encoding="utf-8") as source, open(args.output, "w", newline="") as out:
    writer = csv.writer(out)
    writer.writerow(["id", "label"])
    for row in csv.DictReader(source):
        writer.writerow([row["id"], 0])
