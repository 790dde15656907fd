"""bakeoff: measure how well language models do unattended data-science work.

The package orchestrates; the components it drives live beside it
(`generators`, `scorer`, `sandbox`, `task_specs`) and never import it.
"""

__version__ = "0.1.0"
