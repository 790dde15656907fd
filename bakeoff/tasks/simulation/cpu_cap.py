"""The CPU-time budget of one simulate.py run, enforced in the sandbox.

Every run of the submission's simulate.py goes through a few lines of Python given on the command line
(`python -I -S -c CAP N simulate.py ...`, nothing of it in the workspace for sandboxed code to change; `-I` keeps
the workspace and PYTHONPATH off its sys.path, so a `resource.py` beside simulate.py is not what it imports): they fork,
set RLIMIT_CPU to the configuration's `cpu_seconds` (SIGXCPU at N seconds, SIGKILL a second later) in the
child, exec simulate.py there, and report a run stopped by the cap as exit status 152 (128 + SIGXCPU) with a
line saying so. The limit is per process (its CPU time counts from the start, imports included); the
sandbox's wall-clock timeout and its CPU share (the plan's `cpus`) bound whatever it forks on top.
"""

from __future__ import annotations

from sandbox.base import ExecResult
from sandbox.paths import HARNESS_PYTHON

SIMULATE_SCRIPT = "simulate.py"
CPU_EXCEEDED_EXIT = 152
CPU_EXCEEDED_LINE = "[stopped: simulate.py used its CPU-time budget of {n} s]"
CPU_CAP = (
    "import os,resource,sys\n"
    "n=int(sys.argv[1])\n"
    "pid=os.fork()\n"
    "if pid==0:\n"
    "    resource.setrlimit(resource.RLIMIT_CPU,(n,n+1))\n"
    "    os.execvp(sys.executable,[sys.executable]+sys.argv[2:])\n"
    "_,status=os.waitpid(pid,0)\n"
    "used=resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "if os.WIFSIGNALED(status):\n"
    "    sig=os.WTERMSIG(status)\n"
    "    if sig==24 or (sig==9 and used.ru_utime+used.ru_stime>=n):\n"
    f"        sys.stderr.write({CPU_EXCEEDED_LINE!r}.format(n=n)+'\\n')\n"
    f"        sys.exit({CPU_EXCEEDED_EXIT})\n"
    "    sys.exit(128+sig)\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


def capped_argv(config: str, output: str, cpu_seconds: int) -> list[str]:
    """simulate.py on `config` writing `output`, under the CPU cap (paths as the sandbox sees them)."""
    cap = [*HARNESS_PYTHON, "-S", "-c", CPU_CAP, str(int(cpu_seconds))]  # the cap needs only the standard library
    return [*cap, SIMULATE_SCRIPT, "--config", config, "--output", output]


def shown_command(config: str, output: str) -> str:
    """The command as the model is told it ran (the cap is the harness's, not its code)."""
    return f"python {SIMULATE_SCRIPT} --config {config} --output {output}"


def over_budget(result: ExecResult) -> bool:
    """Stopped by the CPU cap (the cap's own exit status and line)."""
    return result.exit_code == CPU_EXCEEDED_EXIT and "[stopped: simulate.py used its CPU-time budget" in result.stderr


def wall_timeout(cpu_seconds: float, floor_s: float) -> float:
    """The wall-clock limit of a run with this CPU budget: room for a slow, shared machine, never below the floor."""
    return max(float(floor_s), 2.0 * cpu_seconds + 15.0)


def budget_of(config_text: str, default: int = 5) -> int:
    """The `cpu_seconds` of a configuration file's text (the host's own copy: trusted data)."""
    import durable

    try:
        value = durable.loads(config_text, what="the configuration").get("cpu_seconds", default)
    except (durable.UntrustedJSON, AttributeError):
        return default
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 1 else default


__all__ = ["CPU_CAP", "CPU_EXCEEDED_EXIT", "SIMULATE_SCRIPT", "budget_of", "capped_argv", "over_budget",
           "shown_command", "wall_timeout"]
