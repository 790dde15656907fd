"""Scaffolds: how a run drives its model through a task, one package each (bakeoff.scaffolds.registry names them).

The interface is bakeoff.runner.scaffold.Scaffold; the command line resolves a plan's scaffolds by name and hands
them to the batch, as it does the task's plug-in."""
