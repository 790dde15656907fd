"""Copies of the default model (SmolLM2-135M-Instruct) whose `tokenizer.chat_template` is one of ours.

`gguf-new-metadata --chat-template-file` (the `gguf` package) rewrites the metadata of a copy; the weights are
the default model's, so llama.cpp loads and runs every copy.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bakeoff.models.registry import default_model_path


def with_template(folder: Path, name: str, source: str) -> Path:
    template = folder / f"{name}.jinja"
    template.write_text(source, encoding="utf-8")
    out = folder / f"{name}.gguf"
    tool = Path(sys.executable).parent / "gguf-new-metadata"
    subprocess.run([str(tool), str(default_model_path()), str(out), "--chat-template-file", str(template), "--force"],
                   check=True, capture_output=True)
    return out
