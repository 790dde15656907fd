"""The simulation take-home (a packing line's queue: code that runs and is silently wrong) as a task plug-in."""
