"""Which llama.cpp build is installed: the stamp scripts/setup.sh leaves in the virtual environment.

setup.sh compiles llama-cpp-python with a known flag set and writes
<venv>/bakeoff-llama-build.json ({"key", "version", "cmake_args", "server"}: `server` is the
llama-server built in the same tree, copied into the venv). Every gguf
result records these flags, so a result says which engine build produced it.
Where the stamp is missing (llama-cpp-python installed some other way) the
flags are "unknown"; reading it never imports llama_cpp.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import durable

STAMP_NAME = "bakeoff-llama-build.json"
UNKNOWN = "unknown"
# What a user runs to get the portable build back (a crashing or missing engine).
REBUILD_COMMAND = "bash scripts/setup.sh"
CUDA_REBUILD_COMMAND = f"{REBUILD_COMMAND} --cuda"  # the build that offloads layers to an NVIDIA GPU
REBUILD_HINT = (
    f"rebuild the engine with `{REBUILD_COMMAND}` from the bakeoff checkout (a portable CPU build; "
    f"`{CUDA_REBUILD_COMMAND}` on a GPU workstation)"
)


@dataclass(frozen=True)
class BuildStamp:
    flags: str  # the CMAKE_ARGS the build was compiled with, or "unknown"
    key: str  # setup.sh's hash of version and flags, or "unknown"
    version: str  # the llama-cpp-python version the stamp was written for, or "unknown"
    source: str  # the stamp file read, or why there is none
    server: str = ""  # the llama-server of the same build ("" when the stamp names none)

    def to_dict(self) -> dict[str, str]:
        return {"flags": self.flags, "key": self.key, "version": self.version, "source": self.source,
                "server": self.server}


def default_stamp_path() -> Path:
    return Path(sys.prefix) / STAMP_NAME


def read_build_stamp(path: Path | None = None) -> BuildStamp:
    path = Path(path) if path is not None else default_stamp_path()
    try:
        data = durable.read_json(path)
    except FileNotFoundError:
        return BuildStamp(UNKNOWN, UNKNOWN, UNKNOWN, f"no {path}: not installed by scripts/setup.sh")
    except (OSError, durable.UntrustedJSON) as exc:
        return BuildStamp(UNKNOWN, UNKNOWN, UNKNOWN, f"unreadable {path}: {exc}")
    if not isinstance(data, dict):
        return BuildStamp(UNKNOWN, UNKNOWN, UNKNOWN, f"unreadable {path}: not a JSON object")
    return BuildStamp(
        flags=str(data.get("cmake_args") or UNKNOWN),
        key=str(data.get("key") or UNKNOWN),
        version=str(data.get("version") or UNKNOWN),
        source=str(path),
        server=str(data.get("server") or ""),
    )


def build_flags_for(stamp: BuildStamp, installed_version: str | None) -> str:
    """The stamp's flags, unless the installed llama-cpp-python is not the version the stamp describes."""
    if installed_version and stamp.version not in (UNKNOWN, installed_version):
        return f"{UNKNOWN} (the stamp is for {stamp.version}, {installed_version} is installed)"
    return stamp.flags
