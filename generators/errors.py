"""Errors raised by the corpus generators."""


class GeneratorError(Exception):
    """Base class: bad generator input or an output folder that cannot be written."""


class InvalidParameter(GeneratorError):
    """A corpus parameter outside its allowed range (rows <= 0, a rate outside [0, 1) ...)."""


class OutputFolderNotEmpty(GeneratorError):
    """The output folder already holds files and --force was not given."""


class OutputFolderNotWritable(GeneratorError):
    """The output folder (or its parent) cannot be created or written."""


class CorpusNotFound(GeneratorError):
    """A folder given as a corpus lacks the files a corpus has."""


class ReferenceFailed(GeneratorError):
    """A calibration reference pipeline exited with an error or wrote no usable predictions."""
