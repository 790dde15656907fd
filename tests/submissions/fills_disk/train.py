"""Writes to the workspace until the disk refuses: the sandbox's cap must stop it, not the host's disk."""

written = 0
with open("blob.bin", "wb") as out:
    while written < 64 * 1024**3:
        out.write(b"\0" * 2**20)
        out.flush()
        written += 2**20
print("wrote", written)
