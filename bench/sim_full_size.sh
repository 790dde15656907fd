#!/usr/bin/env bash
# The four full-size simulation corpora of issue 34 (the public secret, then three fresh ones), one after another,
# each resumable (bench/calibrate.py simulation --out: every line's truth and every run's result kept as it is
# done). Their folders live in bench/full_size/simulation/ and are committed as they grow, so a run that does not
# fit one session (about two CPU hours a corpus) goes on in the next from what was kept. A finished corpus leaves
# its table in NAME.md (written whole at the end: a NAME.md is never partial); NAME.log is its progress.
#
#   bench/sim_full_size.sh            (JOBS=2 by default; PYTHON and OUT may be set)
#
# The fresh corpora's secrets are kept beside them (secret.hex): fresh to every submission and cheater calibrated
# on them, and public from the commit on, like the calibration secret; never a real bake-off's secret.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-$here/.venv/bin/python}
out=${OUT:-$here/bench/full_size/simulation}
mkdir -p "$out"
failed=0
for name in public fresh1 fresh2 fresh3; do
  [ -s "$out/$name.md" ] && continue
  fresh=()
  [ "$name" != public ] && fresh=(--fresh)
  for attempt in 1 2 3; do  # a resumed try runs only what is not kept yet
    nice -n 19 "$python" "$here/bench/calibrate.py" simulation --out "$out/$name" --jobs "${JOBS:-2}" ${fresh[@]+"${fresh[@]}"} \
        > "$out/$name.md.part" 2>> "$out/$name.log"
    # A table ends with the verdict, which exits 1 when a check fails: that table is complete and kept; no verdict
    # is a crash, tried again.
    if grep -q '^verdict: ' "$out/$name.md.part"; then
      grep -q '^verdict: FAILED' "$out/$name.md.part" && { echo "$name: a check failed (see $name.md)" >&2; failed=1; }
      mv "$out/$name.md.part" "$out/$name.md"
      break
    fi
    echo "$name: try $attempt of bench/calibrate.py failed (see $name.log)" >&2
    [ "$attempt" = 3 ] && exit 1
  done
done
exit $failed
