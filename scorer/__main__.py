"""Entry point for `python -m scorer`."""

import sys

from scorer.cli import main

sys.exit(main())
