"""Seeded corpus generators and the calibration reference pipelines."""
