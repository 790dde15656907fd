"""The CPU-time budget of one simulate.py run, enforced in the sandbox.

Every run of the submission's simulate.py goes through a short Python supervisor given on the command line
(`python -I -S -c CAP N WALL simulate.py ...`, nothing of it in the workspace for sandboxed code to change; `-I`
keeps the workspace and PYTHONPATH off its sys.path, so a `resource.py` beside simulate.py is not what it
imports): it forks and execs simulate.py, then counts the CPU time of every process simulate.py starts
(issue 34: four forked workers do not get four budgets) and stops the whole tree at N seconds, reported as exit
status 152 with a line saying so. Its wall-clock limit WALL leaves out the time the machine's other work kept
the tree waiting for a CPU, so a loaded machine does not end a run that a quiet one would finish; a run past
it is reported as exit status 153, and ends the hidden runs as a timeout does.
"""

from __future__ import annotations

from sandbox.base import ExecResult
from sandbox.paths import HARNESS_PYTHON

SIMULATE_SCRIPT = "simulate.py"
CPU_EXCEEDED_EXIT = 152
CPU_EXCEEDED_LINE = "[stopped: simulate.py used its CPU-time budget of {n} s]"
CPU_USED_LINE = "[simulate.py used {c:.3f} CPU seconds]"  # every run's last line on stderr: the tree's CPU time
CPU_USED_PATTERN = r"\[simulate\.py used ([0-9.]+) CPU seconds\]"  # that line, read back (its number the group)
WALL_EXCEEDED_EXIT = 153
WALL_EXCEEDED_LINE = "[stopped: simulate.py passed its wall-clock limit of {w:g} s (time it could have run)]"
# The supervisor. It becomes a child subreaper (prctl 36), so whatever the submission forks stays below it even
# when orphaned, and every 50 ms it sums the CPU time of the whole tree: each live descendant's own and reaped
# children's time (/proc/PID/stat fields 14-17, found through /proc/PID/task/*/children) plus what its own
# reaped children used. At the budget it kills the tree: the budget is the submission's, not a process's.
# The wall-clock limit counts elapsed time less the longest wait on a run queue of any process of the tree
# (/proc/PID/schedstat): the time the machine's other work held it back is not the submission's. Processes
# left behind when simulate.py exits are killed. RLIMIT_CPU on simulate.py stays as a second line.
CPU_CAP = r"""import ctypes,os,resource,sys,time
n=int(sys.argv[1]);wall=float(sys.argv[2])
try:ctypes.CDLL(None).prctl(36,1,0,0,0)
except Exception:pass
tick=os.sysconf('SC_CLK_TCK');me=os.getpid()
pid=os.fork()
if pid==0:
    resource.setrlimit(resource.RLIMIT_CPU,(n,n+1))
    os.execvp(sys.executable,[sys.executable]+sys.argv[3:])
def read(path):
    try:
        with open(path) as f:return f.read()
    except OSError:return ''
def parent(s):return int(s[s.rindex(')')+2:].split()[1]) if s else -1
listed=os.path.exists('/proc/%d/task/%d/children'%(me,me))
def children(p):
    if not listed:
        return [int(d) for d in os.listdir('/proc') if d.isdigit() and parent(read('/proc/'+d+'/stat'))==p]
    try:tasks=os.listdir('/proc/%d/task'%p)
    except OSError:return []
    return [int(c) for t in tasks for c in read('/proc/%d/task/%s/children'%(p,t)).split()]
def tree():
    out=[];todo=children(me)
    while todo:
        p=todo.pop();s=read('/proc/%d/stat'%p)
        if s:out.append((p,sum(int(v) for v in s[s.rindex(')')+2:].split()[11:15])));todo+=children(p)
    return out
def delay(p):
    x=read('/proc/%d/schedstat'%p).split()
    return int(x[1])/1e9 if len(x)>1 else 0.0
def kill(procs):
    for p,_ in procs:
        try:os.kill(p,9)
        except OSError:pass
def reap():
    global status
    while True:
        try:p,st=os.waitpid(-1,os.WNOHANG)
        except ChildProcessError:return False
        if p==0:return True
        if p==pid:status=st
start=time.monotonic();status=None;stop=0;held=0.0
while reap() and status is None:
    procs=tree();used=resource.getrusage(resource.RUSAGE_CHILDREN)
    held=max([held]+[delay(p) for p,_ in procs])
    if used.ru_utime+used.ru_stime+sum(t for _,t in procs)/tick>=n:stop=152
    elif time.monotonic()-start-held>wall:stop=153
    if stop:kill(procs)
    time.sleep(0.02 if stop else 0.05)
while reap():
    kill(tree());time.sleep(0.01)
used=resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stderr.write(U_LINE.format(c=used.ru_utime+used.ru_stime)+'\n')
if stop==153:
    sys.stderr.write(W_LINE.format(w=wall)+'\n');sys.exit(153)
used=resource.getrusage(resource.RUSAGE_CHILDREN)
sig=os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
if stop==152 or sig==24 or (sig==9 and used.ru_utime+used.ru_stime>=n):
    sys.stderr.write(C_LINE.format(n=n)+'\n');sys.exit(152)
if sig:sys.exit(128+sig)
sys.exit(os.waitstatus_to_exitcode(status))
""".replace("W_LINE", repr(WALL_EXCEEDED_LINE)).replace("C_LINE", repr(CPU_EXCEEDED_LINE)).replace("U_LINE", repr(CPU_USED_LINE))
OUTER_TIMEOUT_FACTOR = 10  # the sandbox's own timeout: a last line, far past the cap's load-free limit


def capped_argv(config: str, output: str, cpu_seconds: int, wall_s: float | None = None) -> list[str]:
    """simulate.py on `config` writing `output`, under the CPU cap and the load-free wall-clock limit `wall_s`
    (default: `wall_timeout` with no floor; paths as the sandbox sees them)."""
    wall_s = wall_timeout(cpu_seconds, 0.0) if wall_s is None else wall_s
    cap = [*HARNESS_PYTHON, "-S", "-c", CPU_CAP, str(int(cpu_seconds)), f"{float(wall_s):g}"]  # standard library only
    return [*cap, SIMULATE_SCRIPT, "--config", config, "--output", output]


def shown_command(config: str, output: str) -> str:
    """The command as the model is told it ran (the cap is the harness's, not its code)."""
    return f"python {SIMULATE_SCRIPT} --config {config} --output {output}"


def over_budget(result: ExecResult) -> bool:
    """Stopped by the CPU cap (the cap's own exit status and line)."""
    return result.exit_code == CPU_EXCEEDED_EXIT and "[stopped: simulate.py used its CPU-time budget" in result.stderr


def wall_timeout(cpu_seconds: float, floor_s: float) -> float:
    """The wall-clock limit of a run with this CPU budget (the cap counts it without the machine's other load),
    never below the floor."""
    return max(float(floor_s), 2.0 * cpu_seconds + 15.0)


def outer_timeout(wall_s: float) -> float:
    """The sandbox's own timeout around a capped run: only a cap that failed ever meets it."""
    return OUTER_TIMEOUT_FACTOR * wall_s + 60.0


def over_wall(result: ExecResult) -> bool:
    """Stopped by the cap's wall-clock limit (its own exit status and line): like a timeout, it ends the runs."""
    return result.exit_code == WALL_EXCEEDED_EXIT and "[stopped: simulate.py passed its wall-clock limit" in result.stderr


def cpu_used(stderr: str) -> float | None:
    """The CPU seconds the cap's last line says the run used (None when there is no such line)."""
    import re

    found = re.findall(CPU_USED_PATTERN, stderr)
    return float(found[-1]) if found else None


def without_cpu_line(result: ExecResult) -> ExecResult:
    """The result without the cap's own "[simulate.py used N CPU seconds]" line: the harness's, not the
    submission's output, and different on every run (records and the model's prompts keep what simulate.py wrote).
    The probe reads the line before it is dropped (`cpu_used`)."""
    import dataclasses
    import re

    kept = re.sub(rf"(?m)^{CPU_USED_PATTERN}\n?", "", result.stderr)
    return result if kept == result.stderr else dataclasses.replace(result, stderr=kept)


def budget_of(config_text: str, default: int = 5) -> int:
    """The `cpu_seconds` of a configuration file's text (the host's own copy: trusted data)."""
    import durable

    try:
        value = durable.loads(config_text, what="the configuration").get("cpu_seconds", default)
    except (durable.UntrustedJSON, AttributeError):
        return default
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 1 else default


__all__ = ["CPU_CAP", "CPU_EXCEEDED_EXIT", "SIMULATE_SCRIPT", "WALL_EXCEEDED_EXIT", "budget_of", "capped_argv",
           "outer_timeout", "over_budget", "over_wall", "shown_command", "wall_timeout", "without_cpu_line"]
