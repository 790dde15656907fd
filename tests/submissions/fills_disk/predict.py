"""Never reached: training fails first."""

raise SystemExit("train.py should have failed")
