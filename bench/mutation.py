"""Mutation testing of the modules that guard trust and truth: how many planted bugs their fast tests notice.

For each named module the script copies the working tree (tracked and untracked, not ignored files) into a
temporary folder, writes mutmut's configuration there, runs `mutmut run` on that module's files against that
module's test files only (the MODULES table), and prints one Markdown table row per module (mutants, killed,
survived, timeout, score) followed by every surviving mutant (file, line, the mutation as a diff). The repository
itself is never written to: mutmut mutates its own copy under the temporary folder, which is deleted afterwards,
also when the run is interrupted (Ctrl-C) or a module's time box runs out.

Tool: mutmut 3.x (the `mutation` extra), chosen over cosmic-ray 8.x for speed on a 2-core shared machine: mutmut
compiles every mutant of a file into one module behind trampolines and forks a warmed pytest process per mutant,
running only the tests that reach the mutated function (it records which tests call which function first), where
cosmic-ray rewrites the file and starts a fresh test command per mutant. Its per-file selection (`only_mutate`)
also maps directly onto "this module against these tests". One worker (`--max-children 1`) by default.

    nice -n 10 .venv/bin/python bench/mutation.py [MODULE ...] [--time-box SECONDS] [--out FILE] [--workers 1]
        [--mutants PATTERN ...]

With no MODULE every module in the table runs, in order. `--mutants` checks only the mutants whose names match
(mutmut's names, fnmatch patterns): the rest count as not checked. `--out` writes the report (Markdown) to FILE too.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("bakeoff", "durable", "generators", "scorer", "sandbox", "task_specs")


@dataclass(frozen=True)
class Module:
    """One unit of the report: the files mutated and the fast tests that should notice."""

    sources: tuple[str, ...]
    tests: tuple[str, ...]
    # Extra pytest arguments, to leave out the slow tests of those files (`-m "not slow"`): none when empty.
    pytest_args: tuple[str, ...] = ()
    # mutmut's CPU-time limit per mutant is (its tests' clean time + 1 s) x this x 2; its default (15) lets each
    # mutant that loops forever burn minutes of CPU (the answer parser's scanning loops have dozens of them).
    # A loop is as stuck at 2x as at 15x: the limit counts CPU seconds, so a busy machine does not trip it.
    timeout_multiplier: float | None = None
    # Run every test in a folder of its own (in the copy only). mutmut runs the tests in its working folder, where
    # its bookkeeping lives; a mutant of a no-follow remover that lists "." instead of the folder it was given
    # (`_remove_folder` 4: `fd = None`) removed all of it, and mutmut 3.8.1 died on its missing .meta file.
    private_cwd: bool = False


MODULES: dict[str, Module] = {
    "scorer": Module(
        sources=("scorer/score.py", "scorer/reading.py"),
        tests=("tests/test_scorer_formats.py", "tests/test_scorer_metrics.py", "tests/test_fuzz_scorer.py"),
    ),
    "scorer-intervals": Module(
        sources=("scorer/intervals.py", "scorer/interval_reading.py"),
        tests=("tests/test_ab_scorer.py", "tests/test_sim_scorer.py", "tests/test_interval_grader_exact.py",
               "tests/test_fuzz_scorer.py"),
    ),
    "durable-jsonio": Module(
        sources=("durable/jsonio.py",),
        # test_durable.py is left out: it kills real writers with SIGKILL (seconds a test), for the writers.
        tests=("tests/test_fuzz_json.py",),
    ),
    "durable-nofollow": Module(
        sources=("durable/nofollow.py",),
        tests=("tests/test_durable_nofollow.py", "tests/test_durable_nofollow_exact.py",
               "tests/test_durable_nofollow_races.py", "tests/test_fuzz_paths.py"),
        private_cwd=True,
    ),
    "answers": Module(
        sources=("bakeoff/answers.py",),
        tests=("tests/test_answers.py", "tests/test_answers_audit.py", "tests/test_reasoning_audit.py",
               "tests/test_fuzz_answers.py", "tests/test_hostile_answers.py", "tests/test_tool_calls.py",
               "tests/test_answers_meter_exact.py"),
        pytest_args=("-m", "not slow"),
        timeout_multiplier=2.0,
    ),
    "records": Module(
        # The one codec every record is read and written through (msgspec); the rest of the package declares fields.
        sources=("bakeoff/records/codec.py",),
        tests=("tests/test_records.py", "tests/test_fuzz_records.py", "tests/test_records_library.py",
               "tests/test_records_codec_exact.py"),
    ),
    "tool-calls": Module(
        sources=("bakeoff/models/tools.py",),
        tests=("tests/test_tool_calls.py", "tests/test_tool_calls_exact.py"),
    ),
    "secret": Module(
        sources=("generators/secret.py",),
        # test_secret_attacks.py is left out: its attacks run as Python processes in another folder, where
        # mutmut's trampolines cannot find their configuration (every such process fails, mutant or not).
        tests=("tests/test_generator_secret.py",),
        pytest_args=("-m", "not slow"),
    ),
}

# mutmut's exit-code verdicts, folded into the report's columns. "no tests": no test of the module even calls
# the mutated function, so nothing could notice the bug; it counts (and is listed) as surviving.
KILLED = {"killed", "caught by type check"}
SURVIVED = {"survived", "no tests"}
TIMEOUT = {"timeout"}


@dataclass
class Outcome:
    name: str
    counts: dict[str, int] = field(default_factory=dict)
    survivors: list[tuple[str, str]] = field(default_factory=list)  # (file:line and mutant name, diff)
    wall_s: float = 0.0
    note: str = ""

    def count(self, statuses: set[str]) -> int:
        return sum(n for status, n in self.counts.items() if status in statuses)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def row(self) -> str:
        total, killed = self.total, self.count(KILLED)
        score = f"{100 * killed / total:.1f}" if total else "-"
        other = total - killed - self.count(SURVIVED) - self.count(TIMEOUT)
        note = self.note or (f"{other} not checked" if other else "")
        return (
            f"| {self.name} | {total} | {killed} | {self.count(SURVIVED)} | {self.count(TIMEOUT)} | {score} | "
            f"{self.wall_s / 60:.1f} | {note} |"
        )


def working_tree_files() -> list[str]:
    listing = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO, check=True, capture_output=True,
    ).stdout.decode()
    return [name for name in listing.split("\0") if name and (REPO / name).is_file()]


def copy_tree(target: Path) -> None:
    for name in working_tree_files():
        if name.split("/", 1)[0] in ("runs", "docs"):
            continue  # data and prose: no test of these modules reads them
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, destination)


PRIVATE_CWD = """

@pytest.fixture(autouse=True)
def _mutation_bench_private_cwd(tmp_path_factory, monkeypatch):
    # bench/mutation.py: a mutant that removes "." removes this folder, not mutmut's bookkeeping.
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))


# bench/mutation.py: a remover mutant leaves a test's tree thousands of levels deep; pytest removes an older
# session's temporary folders with shutil.rmtree, which recurses, and its RecursionError failed every later
# session: every later mutant counted as killed. Python 3.11 calls between Python functions use no C stack.
import sys as _mutation_bench_sys

_mutation_bench_sys.setrecursionlimit(100_000)
"""


def write_config(target: Path, module: Module) -> None:
    lines = ["[mutmut]", "source_paths="]
    lines += [f"    {package}" for package in PACKAGES]
    lines += ["only_mutate="] + [f"    {source}" for source in module.sources]
    # One process, no cache files in the copy: the suite's addopts ask for two xdist workers.
    lines += ["pytest_add_cli_args=", "    -n", "    0", "    -p", "    no:cacheprovider", "    -q"]
    lines += [f"    {argument}" for argument in module.pytest_args]
    lines += ["pytest_add_cli_args_test_selection="] + [f"    {test}" for test in module.tests]
    lines += ["use_git_change_detection=false"]
    if module.timeout_multiplier is not None:
        lines += [f"timeout_multiplier={module.timeout_multiplier}"]
    (target / "setup.cfg").write_text("\n".join(lines) + "\n")
    if module.private_cwd:
        with open(target / "tests" / "conftest.py", "a", encoding="utf-8") as conftest:
            conftest.write(PRIVATE_CWD)


# Run inside the copy after `mutmut run`: every mutant's verdict, and the diff of each survivor, as JSON lines.
COLLECT = """
import json
from mutmut.__main__ import SourceFileMutationData, get_diff_for_mutant, walk_mutatable_files
from mutmut.stats import status_by_exit_code

def line_of(path, key, diff):
    # mutmut's diff numbers lines from the function's start (and a method's body is dedented): find the removed
    # line in the file itself.
    name = key.rsplit(".", 1)[-1].split("__mutmut_")[0]
    parts = name.split("\u01c1")
    function = parts[2] if len(parts) == 3 else name[2:]
    lines = path.read_text().splitlines()
    start = next((i for i, text in enumerate(lines) if text.lstrip().startswith(f"def {function}(")), 0)
    removed = [text[1:] for text in diff.splitlines() if text.startswith("-") and not text.startswith("---")]
    for i in range(start, len(lines)):
        if removed and lines[i].strip() == removed[0].strip():
            return i + 1
    return start + 1

for path in walk_mutatable_files():
    data = SourceFileMutationData(path=path)
    data.load()
    for key, code in data.exit_code_by_key.items():
        status = status_by_exit_code[code]
        diff = get_diff_for_mutant(key, path=path) if status in ("survived", "no tests") else ""
        line = line_of(path, key, diff) if diff else 0
        print(json.dumps({"mutant": key, "status": status, "file": str(path), "line": line, "diff": diff}))
"""


def mutmut_bin() -> str:
    return str(Path(sys.executable).with_name("mutmut"))


def remove_scratch(scratch: Path) -> None:
    """The copy, whatever it holds: `rm -rf` walks a tree of any depth (shutil.rmtree recurses, and a tree a mutant
    left thousands of levels deep stops it with RecursionError)."""
    subprocess.run(["rm", "-rf", "--one-file-system", str(scratch)], check=False)


def run_module(name: str, module: Module, time_box_s: float, workers: int, mutants: tuple[str, ...] = ()) -> Outcome:
    outcome = Outcome(name)
    started = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix=f"bakeoff-mutation-{name}-"))
    try:
        copy_tree(scratch)
        write_config(scratch, module)
        # The tests' temporary folders inside the copy too: a mutant of the folder remover leaves a tree thousands of
        # levels deep behind, which pytest's own clean-up of /tmp/pytest-of-USER then fails on (RecursionError) in
        # every later pytest session on the machine, whoever runs it.
        (scratch / ".tmp").mkdir()
        env = {**os.environ, "PYTHONPATH": "", "TMPDIR": str(scratch / ".tmp")}
        # Its own process group, so a time box or Ctrl-C ends mutmut and every pytest it forked.
        process = subprocess.Popen(
            [mutmut_bin(), "run", "--max-children", str(workers), *mutants],
            cwd=scratch, env=env, start_new_session=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        try:
            log, _ = process.communicate(timeout=time_box_s)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGTERM)
            log, _ = process.communicate()
            outcome.note = f"time box ({time_box_s / 60:.0f} min) ran out: partial"
        except BaseException:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise
        if process.returncode not in (0, None) and not outcome.note:
            outcome.note = f"mutmut exited {process.returncode}"
            sys.stderr.write(log[-4000:])
        collected = subprocess.run(
            [sys.executable, "-c", COLLECT], cwd=scratch, env=env, capture_output=True, text=True, check=False,
        )
        for line in collected.stdout.splitlines():
            verdict = json.loads(line)
            outcome.counts[verdict["status"]] = outcome.counts.get(verdict["status"], 0) + 1
            if verdict["status"] in SURVIVED:
                where = f'{verdict["file"]}:{verdict["line"]} `{verdict["mutant"]}` ({verdict["status"]})'
                outcome.survivors.append((where, verdict["diff"]))
    finally:
        remove_scratch(scratch)
        outcome.wall_s = time.monotonic() - started
    return outcome


def report(outcomes: list[Outcome]) -> str:
    lines = [
        "| module | mutants | killed | survived | timeout | score % | wall min | note |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    lines += [outcome.row() for outcome in outcomes]
    for outcome in outcomes:
        if not outcome.survivors:
            continue
        lines += ["", f"### Surviving mutants: {outcome.name}", ""]
        for mutant, diff in outcome.survivors:
            changed = [text for text in diff.splitlines() if text[:1] in "+-" and text[:3] not in ("+++", "---")]
            lines += [f"- {mutant}", "", "```diff", *changed, "```", ""]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("modules", nargs="*", metavar="MODULE", help="any of: " + ", ".join(MODULES))
    parser.add_argument("--time-box", type=float, default=1800, help="seconds per module (default 1800)")
    parser.add_argument("--workers", type=int, default=1, help="mutmut's --max-children (default 1)")
    parser.add_argument("--out", type=Path, help="also write the report (Markdown) here")
    parser.add_argument("--budget", type=float, help="seconds for the whole run: modules past it are skipped")
    # A pass over the mutants an earlier, stopped pass never reached: the rest are reported as not checked.
    parser.add_argument("--mutants", nargs="+", default=[], metavar="PATTERN",
                        help="only the mutants whose mutmut names match (fnmatch), e.g. 'durable.nofollow.x_remove_tree__mutmut_*'")
    args = parser.parse_args()
    unknown = [name for name in args.modules if name not in MODULES]
    if unknown:
        parser.error(f"unknown module(s) {', '.join(unknown)}; known: {', '.join(MODULES)}")
    outcomes = []
    ends = time.monotonic() + args.budget if args.budget else float("inf")
    for name in args.modules or list(MODULES):
        left = ends - time.monotonic()
        if left < 60:
            outcomes.append(Outcome(name, note="not run: the budget was spent"))
            continue
        outcome = run_module(name, MODULES[name], min(args.time_box, left), args.workers, tuple(args.mutants))
        print(outcome.row(), flush=True)
        outcomes.append(outcome)
        text = report(outcomes)
        if args.out:
            args.out.write_text(text)
    print(report(outcomes))
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:  # run_module has already ended mutmut and removed its copy
        print("interrupted: no mutated file was left behind", file=sys.stderr)
        raise SystemExit(130) from None
