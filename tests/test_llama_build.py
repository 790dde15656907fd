"""scripts/setup.sh installed the build scripts/llama-build.sh made: the binding and llama-server of one tree,
keyed by version, flags and recipe; the server in the venv runs on its own (its libraries beside it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from runner_support import REPO_ROOT

from bakeoff.models.engine_build import read_build_stamp


def test_the_installed_build_is_the_one_tree_build_of_its_version_and_flags():
    stamp = read_build_stamp()
    assert stamp.flags != "unknown" and stamp.server, stamp.source  # setup.sh wrote the stamp, naming the server
    done = subprocess.run(["bash", "scripts/llama-build.sh", "--key", sys.executable, stamp.version, stamp.flags],
                          capture_output=True, text=True, cwd=REPO_ROOT, check=True)
    assert done.stdout.strip() == stamp.key
    server = Path(stamp.server)
    linked = subprocess.run(["ldd", str(server)], capture_output=True, text=True, check=True).stdout
    ours = [line.split("=>")[1].split()[0] for line in linked.splitlines() if "libllama" in line or "libggml" in line]
    assert ours and all(Path(path).parent == server.parent for path in ours), linked  # nothing from elsewhere
    version = subprocess.run([str(server), "--version"], capture_output=True, text=True, cwd="/", check=True)
    assert "version:" in version.stdout + version.stderr
