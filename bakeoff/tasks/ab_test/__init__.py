"""The ab_test take-home: an experiment analysis that runs and is silently wrong (plugin.AbTest)."""
