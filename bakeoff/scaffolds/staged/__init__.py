"""The staged scaffold: the six fixed stages (explore, decide, implement, repair, evaluate, docs)."""
