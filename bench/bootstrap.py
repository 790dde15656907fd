"""The offline base image made from scratch: debootstrap from this machine's own apt mirror, imported into Docker
under a throwaway tag, then Python 3.11 run in it with no network. About one to three minutes on the 2-core
machine, which is why it is a bench and not a test: CI's setup makes the same base the same way on a cold machine
(`bakeoff sandbox build --bootstrap`), and tests/test_image.py checks the base the sandbox image was built on.

    .venv/bin/python bench/bootstrap.py [--mirror URL]

Needs root, debootstrap and a Docker engine. Exits 1 naming what failed; the throwaway image is removed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TAG = "bakeoff-base-bench:bootstrap"
VERSION_SCRIPT = "import sys, venv, ensurepip; print(sys.version_info[:2])"


def main() -> int:
    import docker

    from sandbox.bootstrap import bootstrap_base_image, debian_mirror

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirror", help="a Debian mirror (default: the one this machine's apt uses)")
    args = parser.parse_args()
    client = docker.from_env()
    mirror = args.mirror or debian_mirror()
    lines: list[str] = []
    started = time.monotonic()
    try:
        image_id = bootstrap_base_image(client, TAG, mirror=mirror, on_line=lines.append)
        made_s = time.monotonic() - started
        if client.images.get(TAG).id != image_id:
            print(f"FAIL: {TAG} is not the image the bootstrap reported", file=sys.stderr)
            return 1
        if not any("Base system installed successfully" in line for line in lines):
            print("FAIL: debootstrap never said the base system was installed:\n" + "\n".join(lines[-20:]),
                  file=sys.stderr)
            return 1
        output = client.containers.run(TAG, ["python3", "-c", VERSION_SCRIPT], network_mode="none", remove=True)
        version = output.decode().strip()
        print(f"| mirror | bootstrap s | python |\n|---|---:|---|\n| {mirror} | {made_s:.0f} | {version} |")
        if version != "(3, 11)":
            print(f"FAIL: the base runs Python {version}, not 3.11", file=sys.stderr)
            return 1
        return 0
    finally:
        try:
            client.images.remove(TAG)
        except docker.errors.ImageNotFound:
            pass


if __name__ == "__main__":
    raise SystemExit(main())
