"""Every git command the host runs, and the one place that decides what git may read of a repository.

A run's repository is written by sandboxed code (its work tree) and, in a batch folder someone else made, by
whoever made it (its `.git` too). git obeys what it finds there: the config's commands (core.fsmonitor, hooks,
filter drivers, core.sshCommand, a promisor remote's `ext::` command run to fetch a missing object, gpg.program),
the attributes' conversions (working-tree-encoding, eol, filters) and alternates. So the host
- runs git with no system, global or user config, no hooks, no fsmonitor, no replace objects, lazy fetch off and
  every transport refused, on an explicit git folder (never found by searching upwards) (`git`);
- reads a foreign repository's objects through a bare repository of its own that borrows them (alternates), so
  that the foreign config is never read at all (`borrowed_objects`);
- uses a run repository as a repository (reset, commit, bundle) only when its git folder is what bakeoff writes
  (`check_own_repository`: ForeignRepository otherwise, and the run is refused by name);
- hashes files as the bytes they are (no filters, no attributes), makes commits with plumbing (no hooks), and
  writes a checkout's files itself: attributes never convert, and so never wedge a commit or a reset.
"""

from __future__ import annotations

import os
import stat
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from bakeoff.batchfolder.files import is_disk_full
from bakeoff.errors import BakeoffError

GIT_TIMEOUT_S = 600  # one git command on a run's repository (a large tree of model files included)
CONFIG_MAX_BYTES = 64 * 1024
BRANCH = "refs/heads/main"
# What bakeoff writes as a run repository's .git/config (and nothing else).
OWN_CONFIG = (b"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
              b"\tlogallrefupdates = true\n\thooksPath = /dev/null\n\tfsmonitor = false\n")
# The settings a run repository's config may hold (git lower-cases the keys): the ones above, and what git init
# and GitPython wrote on other machines before bakeoff wrote the file itself.
_ALLOWED_SETTINGS = {
    "core.repositoryformatversion": {"0"}, "core.filemode": {"true", "false"}, "core.bare": {"false"},
    "core.logallrefupdates": {"true"}, "core.hookspath": {"/dev/null"}, "core.fsmonitor": {"false"},
    "core.ignorecase": {"true", "false"}, "core.precomposeunicode": {"true", "false"},
    "core.symlinks": {"true", "false"},
}
_REQUIRED_SETTINGS = {"core.hookspath", "core.fsmonitor"}
# Files in a git folder that make git read config, attributes or objects from elsewhere: bakeoff writes none.
_FOREIGN_GIT_FILES = ("commondir", "gitdir", "config.worktree", "info/attributes", "info/grafts",
                      "objects/info/alternates", "objects/info/http-alternates")
# Command-line settings outrank every config file: the repository's own can turn none of these back on.
_SAFE_SETTINGS = ("core.hooksPath=/dev/null", "core.fsmonitor=false", "core.attributesFile=/dev/null",
                  "core.sshCommand=false", "protocol.allow=never", "commit.gpgSign=false", "gc.auto=0",
                  "maintenance.auto=false", "core.untrackedCache=false", "core.pager=cat")
COMMITTER = {"GIT_AUTHOR_NAME": "bakeoff", "GIT_AUTHOR_EMAIL": "runner@bakeoff.invalid",
             "GIT_COMMITTER_NAME": "bakeoff", "GIT_COMMITTER_EMAIL": "runner@bakeoff.invalid"}


class HostGitError(BakeoffError):
    """A git command of the host's failed (the message says which and why)."""


class ForeignRepository(HostGitError):
    """A run repository whose git folder is not what bakeoff writes: it is never used as a repository."""


def _environment() -> dict[str, str]:
    """No configuration but the repository's own (checked, or never read), nothing fetched, nothing asked."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.devnull, "XDG_CONFIG_HOME": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_NO_LAZY_FETCH": "1",
            "GIT_ALLOW_PROTOCOL": "", "GIT_PROTOCOL_FROM_USER": "0", "GIT_NO_REPLACE_OBJECTS": "1",
            "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "false", "GIT_OPTIONAL_LOCKS": "0",
            "LC_ALL": "C", **COMMITTER}


def command(git_dir: Path | None, work_tree: Path | None, args: Sequence[str]) -> list[str]:
    """The git command line: the safe settings first, then an explicit git folder (None: no repository)."""
    tree = [f"--work-tree={work_tree}"] if work_tree is not None else []
    folder = [f"--git-dir={git_dir}"] if git_dir is not None else []
    settings = [arg for setting in _SAFE_SETTINGS for arg in ("-c", setting)]
    return ["git", *settings, *folder, *tree, *args]


def git(git_dir: Path | None, args: Sequence[str], *, work_tree: Path | None = None, stdin: bytes = b"",
        ok_codes: tuple[int, ...] = (0,), cwd: Path | None = None) -> bytes:
    """One git command on `git_dir` (the work tree `work_tree`, run from there), its output; HostGitError else.

    With no git folder (init, reading a config file) it runs in `cwd`, where git searches no further up."""
    where = cwd or work_tree or git_dir or Path(tempfile.gettempdir())
    env = _environment()
    if git_dir is None:
        env["GIT_CEILING_DIRECTORIES"] = str(Path(where).resolve().parent)
    try:
        done = subprocess.run(command(git_dir, work_tree, args), input=stdin, capture_output=True, check=False,
                              env=env, cwd=where, timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HostGitError(f"git {args[0]} on {git_dir or where}: {exc}") from None
    if done.returncode not in ok_codes:
        detail = done.stderr.decode("utf-8", "replace").strip()[-500:]
        raise HostGitError(f"git {args[0]} on {git_dir or where} failed ({done.returncode}): {detail}")
    return done.stdout


# --- run repositories of bakeoff's own ------------------------------------------------------------------------


def init_own_repository(root: Path) -> None:
    """A new, empty repository at `root` (branch main) whose config is bakeoff's, and nothing else's."""
    git_dir = root / ".git"
    root.mkdir(parents=True, exist_ok=True)
    git(None, ["init", "-q", "-b", "main", "--template=", str(root)], cwd=root)
    (git_dir / "config").write_bytes(OWN_CONFIG)


def _settings(config: Path) -> list[tuple[str, str]]:
    """(key, value) pairs of a config file, read by git without following its includes."""
    with tempfile.TemporaryDirectory(prefix="bakeoff-config-") as nowhere:  # no repository's config is read
        out = git(None, ["config", "--file", str(config), "--no-includes", "--list", "-z"], cwd=Path(nowhere))
    pairs = []
    for entry in out.split(b"\0"):
        if entry:
            key, _, value = entry.decode("utf-8", "replace").partition("\n")
            pairs.append((key, value))
    return pairs


def check_own_repository(root: Path) -> Path:
    """`root/.git` when it is a git folder as bakeoff writes one; ForeignRepository (saying why) otherwise."""
    git_dir = root / ".git"

    def refuse(why: str) -> ForeignRepository:
        return ForeignRepository(f"{root}: not a repository as bakeoff writes one ({why}); refused, never run git in it")

    if git_dir.is_symlink() or not git_dir.is_dir():
        raise refuse(".git is not a folder")
    config = git_dir / "config"
    try:
        info = config.lstat()
    except OSError:
        raise refuse("no .git/config") from None
    if not stat.S_ISREG(info.st_mode) or info.st_size > CONFIG_MAX_BYTES:
        raise refuse(".git/config is not a small regular file")
    for name in _FOREIGN_GIT_FILES:
        if os.path.lexists(git_dir / name):
            raise refuse(f".git/{name} exists")
    try:
        settings = _settings(config)
    except HostGitError:
        raise refuse(".git/config cannot be read as a git config") from None
    keys = [key for key, _ in settings]
    for key, value in settings:
        if value not in _ALLOWED_SETTINGS.get(key, set()) or keys.count(key) > 1:
            raise refuse(f"its config sets {key}")
    if not _REQUIRED_SETTINGS <= set(keys):
        raise refuse("its config does not turn off hooks and fsmonitor")
    return git_dir


def _quoted_path(path: str) -> bytes:
    """A path as one line of `--stdin-paths`: C-quoted when it holds a quote, a backslash or a control byte."""
    raw = os.fsencode(path)
    if not any(byte < 0x20 or byte in (0x22, 0x5C, 0x7F) for byte in raw):
        return raw
    escaped = b"".join(b"\\%03o" % byte if byte < 0x20 or byte == 0x7F else
                       (b"\\" + bytes([byte]) if byte in (0x22, 0x5C) else bytes([byte])) for byte in raw)
    return b'"' + escaped + b'"'


@dataclass(frozen=True)
class CommitMade:
    sha: str
    date: str  # the committer date, ISO 8601 with its offset


def commit_files(root: Path, files: Sequence[str], message: str) -> CommitMade:
    """Commit exactly `files` (paths relative to `root`, their bytes as they are) on main; the index follows."""
    git_dir = root / ".git"
    modes = []
    for path in files:
        mode = os.lstat(root / path).st_mode
        modes.append(b"100755" if mode & stat.S_IXUSR else b"100644")
    listing = b"".join(_quoted_path(p) + b"\n" for p in files)
    # --no-filters: no attribute (working-tree-encoding, eol, a filter driver) is read or applied.
    hashed = git(git_dir, ["hash-object", "-w", "--no-filters", "--stdin-paths"], work_tree=root,
                 stdin=listing).split() if files else []
    if len(hashed) != len(files):
        raise HostGitError(f"git hash-object on {root}: {len(hashed)} ids for {len(files)} files")
    entries = b"".join(mode + b" " + sha + b"\t" + os.fsencode(p) + b"\0"
                       for mode, sha, p in zip(modes, hashed, files, strict=True))
    git(git_dir, ["read-tree", "--empty"])
    git(git_dir, ["update-index", "--add", "-z", "--index-info"], stdin=entries)
    tree = git(git_dir, ["write-tree"]).decode().strip()
    parent = head(root)
    made = git(git_dir, ["commit-tree", tree, *(["-p", parent] if parent else []), "-F", "-"],
               stdin=message.encode("utf-8")).decode().strip()
    git(git_dir, ["update-ref", "-m", "commit", BRANCH, made, *([parent] if parent else [])])
    date = git(git_dir, ["show", "-s", "--format=%cI", made]).decode().strip()
    return CommitMade(made, date)


def head(root: Path) -> str | None:
    """main's commit, None before the first."""
    out = git(root / ".git", ["rev-parse", "-q", "--verify", f"{BRANCH}^{{commit}}"], ok_codes=(0, 1))
    return out.decode().strip() or None


def head_parent(root: Path) -> str | None:
    """The first parent of main's commit, None for the first commit."""
    out = git(root / ".git", ["rev-parse", "-q", "--verify", f"{BRANCH}^1^{{commit}}"], ok_codes=(0, 1))
    return out.decode().strip() or None


def _own_harness_part(path: PurePosixPath, kept: frozenset[str]) -> bool:
    return not path.parts or path.parts[0] in kept or ".git" in path.parts or ".." in path.parts or path.is_absolute()


def checkout(root: Path, sha: str, kept: frozenset[str], remove: Callable[[Path, str], None]) -> None:
    """The work tree holds exactly commit `sha`'s files (their bytes as stored) and the folders `kept`;
    main and the index move there. Links and submodules in the tree are not written."""
    git_dir = root / ".git"
    clear(root, kept | {".git"}, remove)
    listing = tree_listing(git_dir, sha)
    wanted = [(PurePosixPath(path), blob, mode) for path, blob, mode, _ in listing
              if mode in ("100644", "100755") and not _own_harness_part(PurePosixPath(path), kept)]

    def write(index: int, data: bytes) -> None:
        relative, _, mode = wanted[index]
        target = root.joinpath(*relative.parts)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            target.chmod(0o755 if mode == "100755" else 0o644)
        except OSError as exc:
            if is_disk_full(exc):
                raise
            # a path the tree holds twice (a file and a folder): the first one stays

    read_blobs(git_dir, [blob for _, blob, _ in wanted], write)
    git(git_dir, ["read-tree", sha])
    git(git_dir, ["update-ref", "-m", "reset", BRANCH, sha])


def clear(root: Path, kept: frozenset[str] | set[str], remove: Callable[[Path, str], None]) -> None:
    """Remove everything at the top of `root` but `kept` (never following a link)."""
    for entry in sorted(os.listdir(root)):
        if entry not in kept:
            remove(root, entry)


def changed_between(root: Path, before: str, after: str) -> list[str]:
    out = git(root / ".git", ["diff-tree", "-r", "-z", "--name-only", "--no-renames", "--no-ext-diff",
                              "--no-textconv", before, after])
    return sorted(os.fsdecode(p) for p in out.split(b"\0") if p)


def root_commit(root: Path) -> str:
    return git(root / ".git", ["rev-list", "--max-parents=0", BRANCH]).split()[0].decode()


def commit_messages(root: Path) -> list[str]:
    """main's commit messages, oldest first."""
    out = git(root / ".git", ["log", "--reverse", "--format=%B%x00", BRANCH])
    return [m.decode("utf-8", "replace").strip() for m in out.split(b"\0")[:-1]]


def ignored(root: Path, files: Sequence[str]) -> set[str]:
    """Those of `files` that the work tree's .gitignore files ignore (git check-ignore exits 1 when none is)."""
    if not files:
        return set()
    out = git(root / ".git", ["check-ignore", "--no-index", "-z", "--stdin"], work_tree=root,
              stdin=b"".join(os.fsencode(p) + b"\0" for p in files), ok_codes=(0, 1))
    return {os.fsdecode(p) for p in out.split(b"\0") if p}


def bundle(root: Path, since: str | None, target: Path) -> None:
    """main as a bundle file, less the history up to `since`."""
    git(root / ".git", ["bundle", "create", "-q", str(target), BRANCH, *([f"^{since}"] if since else [])])


def unbundle(root: Path, source: Path) -> None:
    """A bundle's objects into the repository (no transport, no refs moved)."""
    git(root / ".git", ["bundle", "unbundle", str(source)])


def set_branch(root: Path, sha: str) -> None:
    git(root / ".git", ["update-ref", "-m", "handback", BRANCH, sha])


# --- reading any repository's objects, its config unread ---------------------------------------------------------


def tree_listing(git_dir: Path, sha: str) -> list[tuple[str, str, str, int | None]]:
    """(path, blob id, mode, size) of every entry of commit `sha`'s tree, recursively."""
    out = git(git_dir, ["ls-tree", "-r", "-z", "--long", "--full-tree", sha])
    entries = []
    for entry in out.split(b"\0"):
        if not entry:
            continue
        meta, _, name = entry.partition(b"\t")
        mode, kind, blob, size = (meta.split() + [b"-"] * 4)[:4]
        if kind == b"blob":
            entries.append((os.fsdecode(name), blob.decode("ascii"), mode.decode("ascii"),
                            int(size) if size.isdigit() else None))
    return entries


def read_blobs(git_dir: Path, blobs: Sequence[str], take: Callable[[int, bytes], None]) -> None:
    """Each blob's bytes, handed to `take(index, bytes)` as `git cat-file --batch` streams them (one process
    for them all); a missing object is skipped (it is never fetched)."""
    if not blobs:
        return
    try:
        process = subprocess.Popen(command(git_dir, None, ["cat-file", "--batch"]), stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_environment(), cwd=git_dir)
    except OSError as exc:
        raise HostGitError(f"git cat-file on {git_dir}: {exc}") from None
    stdin, stdout = process.stdin, process.stdout
    assert stdin is not None and stdout is not None  # both are pipes

    def feed() -> None:  # a thread: git answers while it reads, and both pipes are bounded
        try:
            stdin.write("".join(f"{blob}\n" for blob in blobs).encode())
            stdin.close()
        except OSError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        for index in range(len(blobs)):
            header = stdout.readline().split()
            if not header:
                break  # git ended early
            if len(header) != 3 or not header[2].isdigit():
                continue  # "<id> missing"
            data = stdout.read(int(header[2]))
            stdout.read(1)  # the newline after the content
            take(index, data)
    finally:
        stdout.close()
        try:
            process.wait(timeout=GIT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        writer.join(timeout=GIT_TIMEOUT_S)


@contextmanager
def borrowed_objects(root: Path) -> Iterator[Path | None]:
    """The git folder of a clean bare repository of the host's own that reads `root/.git`'s objects (alternates);
    None when `root` holds no object store to borrow. Nothing of `root/.git` but its objects is ever read."""
    objects = root / ".git" / "objects"
    if any(p.is_symlink() or not p.is_dir() for p in (root / ".git", objects)) or "\n" in str(objects.resolve()):
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="bakeoff-borrow-") as folder:
        borrower = Path(folder) / "borrower.git"
        git(None, ["init", "-q", "--bare", "--template=", str(borrower)], cwd=Path(folder))
        (borrower / "objects" / "info").mkdir(parents=True, exist_ok=True)
        (borrower / "objects" / "info" / "alternates").write_text(f"{objects.resolve()}\n", encoding="utf-8")
        yield borrower


def checkout_commit(checkout_root: Path) -> tuple[str, bool] | None:
    """bakeoff's own source checkout: its commit and whether tracked files changed; None when it is not one."""
    git_dir = checkout_root / ".git"  # a folder, or a worktree's file naming one
    if not git_dir.exists():
        return None
    try:
        sha = git(git_dir, ["rev-parse", "HEAD"], work_tree=checkout_root).decode().strip()
        changes = git(git_dir, ["status", "--porcelain", "--untracked-files=no"], work_tree=checkout_root)
    except HostGitError:
        return None
    return sha, bool(changes.strip())
