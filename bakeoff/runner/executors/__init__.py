"""Executors: how the runs of a batch are scheduled (the local loop, or a Ray cluster).

An executor is handed the batch's environment and its pending runs in the interleaved order and
must leave every one of them with a run record. Whatever executes a run, the driver process is the
only writer of the batch folder, so records never depend on which executor ran them.
"""
