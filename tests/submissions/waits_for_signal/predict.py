"""Says it started (a file in the workspace), then waits: the test interrupts `bakeoff score` meanwhile."""

import time

with open("started", "w") as marker:
    marker.write("predict.py is running\n")
time.sleep(3600)
