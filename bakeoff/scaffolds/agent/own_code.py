"""Whether an agent's `run` command executed a file the agent wrote (`own_code_runs`, "the agent ran its own
code"): the file is the program of one of the command's simple commands (`./fit.sh`), or the script an
interpreter was handed (`python fit.py`, `bash run.sh`, `python -m fit`, `. ./env.sh`). A command that only
names the file (`cat notes.md`, `grep x fit.py`, `echo > fit.py`) did not run it.

The shell text is read with shlex as POSIX sh would split it; one that does not split (an open quote) ran
nothing the count can vouch for.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterable, Sequence

# Programs that run the script named by their first argument that is not an option.
INTERPRETER = re.compile(r"(python[0-9.]*|pypy[0-9.]*|bash|sh|dash|zsh|ksh|Rscript|node|perl|ruby|source|\.)")
# Programs that run the command that follows them (their own options and, for timeout, a duration first).
WRAPPERS = frozenset({"time", "nice", "nohup", "env", "timeout", "exec", "command", "stdbuf"})
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh"})
TEST_RUNNERS = frozenset({"pytest", "py.test"})  # run every test file named


def simple_commands(command: str) -> list[list[str]]:
    """The words of each simple command of `command` (split at ; & | && || ( ) and newlines), redirections and
    their targets left out; [] for text that does not split."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        tokens = list(lexer)
    except ValueError:
        return []
    commands: list[list[str]] = [[]]
    skip_next = False
    for token in tokens:
        if skip_next:
            skip_next = False
        elif token and all(ch in "();<>|&\n" for ch in token):
            if "<" in token or ">" in token:
                skip_next = True  # the redirection's target is written or read, never run
            else:
                commands.append([])
        else:
            commands[-1].append(token)
    return [words for words in commands if words]


def _unwrapped(words: Sequence[str]) -> list[str]:
    """The words from the program on: assignments (X=1) and wrappers (time, timeout 60, env X=1) dropped."""
    rest = list(words)
    while rest:
        head = rest[0]
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", head):
            rest.pop(0)
        elif posixpath.basename(head) in WRAPPERS:
            wrapper = posixpath.basename(rest.pop(0))
            while rest and rest[0].startswith("-"):
                rest.pop(0)
            if wrapper == "timeout" and rest:
                rest.pop(0)  # the duration
        else:
            break
    return rest


def _is_written(token: str, written: Iterable[str]) -> bool:
    path = posixpath.normpath(token)
    return any(path == p or path.endswith("/" + p) for p in (posixpath.normpath(w) for w in written))


def _script_of(program: str, args: Sequence[str]) -> list[str]:
    """What an interpreter or test runner is handed to run: its script (or a -m module's file), or, for a
    test runner, every path it names."""
    name = posixpath.basename(program)
    if name in TEST_RUNNERS:
        return [a for a in args if not a.startswith("-")]
    for index, arg in enumerate(args):
        if arg == "-m" and index + 1 < len(args):
            module = args[index + 1].replace(".", "/")
            return [f"{module}.py", f"{module}/__main__.py"]
        if arg in ("-c", "-e"):
            return []  # code given inline, not a file
        if not arg.startswith("-"):
            return [arg]
    return []


def runs_own_code(command: str, written: Iterable[str]) -> bool:
    """Whether `command` executes one of the `written` files (workspace paths)."""
    written_paths = [posixpath.normpath(w) for w in written]
    known = written_paths
    folder = "."  # where the command stands: `cd src && python fit.py` runs src/fit.py
    for words in simple_commands(command):
        words = _unwrapped(words)
        if not words:
            continue
        program, args = words[0], words[1:]
        if program == "cd":
            folder = posixpath.normpath(posixpath.join(folder, args[0])) if args else "."
            continue
        known = [posixpath.relpath(p, folder) for p in written_paths] if folder != "." else written_paths
        if "/" in program and _is_written(program, known):
            return True  # ./fit.sh, tools/run: the file is the program
        name = posixpath.basename(program)
        if name in SHELLS and "-c" in args[:-1] and runs_own_code(args[args.index("-c") + 1], known):
            return True  # sh -c "python fit.py"
        if INTERPRETER.fullmatch(name) or name in TEST_RUNNERS:
            if any(_is_written(script, known) for script in _script_of(program, args)):
                return True
    return False
