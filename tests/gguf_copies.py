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


def requantized_q4_0(folder: Path) -> Path:
    """A copy of the default model whose Q4_1 weights are re-quantized to Q4_0 (the metadata and every other
    tensor as they are): a quantization llama.cpp repacks on an AVX2 CPU, and one llamafile's sgemm served."""
    import numpy as np
    from gguf import GGMLQuantizationType, GGUFReader, GGUFValueType, GGUFWriter
    from gguf.quants import dequantize, quantize

    out = folder / "SmolLM2-135M-Instruct.Q4_0.gguf"
    reader = GGUFReader(default_model_path())
    arch = reader.fields["general.architecture"]
    writer = GGUFWriter(str(out), arch=bytes(arch.parts[arch.data[0]]).decode())
    for name, field in reader.fields.items():
        if name.startswith("GGUF.") or name == "general.architecture":  # the writer adds these itself
            continue
        kind = field.types[0]
        if kind == GGUFValueType.ARRAY:
            item = field.types[1]
            values = [bytes(field.parts[i]).decode() if item == GGUFValueType.STRING else field.parts[i].tolist()[0]
                      for i in field.data]
            writer.add_key_value(name, values, kind, sub_type=item)
        elif kind == GGUFValueType.STRING:
            writer.add_key_value(name, bytes(field.parts[field.data[0]]).decode(), kind)
        else:
            writer.add_key_value(name, field.parts[field.data[0]].tolist()[0], kind)
    for tensor in reader.tensors:
        if tensor.tensor_type == GGMLQuantizationType.Q4_1:
            shape = tuple(int(n) for n in reversed(tensor.shape.tolist()))
            weights = dequantize(tensor.data, GGMLQuantizationType.Q4_1).reshape(shape)
            writer.add_tensor(tensor.name, quantize(weights, GGMLQuantizationType.Q4_0),
                              raw_dtype=GGMLQuantizationType.Q4_0)
        else:
            writer.add_tensor(tensor.name, np.asarray(tensor.data), raw_dtype=tensor.tensor_type)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return out
