"""Errors raised by the corpus generators."""


class GeneratorError(Exception):
    """Base class: bad generator input or an output folder that cannot be written."""
