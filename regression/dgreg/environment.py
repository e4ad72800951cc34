"""Where a suite ran: date, commit, machine, versions (for the report's header)."""

import datetime
import os
import platform
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))


def _run(argv, cwd=None, env=None):
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=30, cwd=cwd, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout.strip() if p.returncode == 0 else None


def commit():
    """'<sha>' or '<sha>+local changes' or 'no commit yet'; read-only git calls only."""
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0")  # never write the index
    sha = _run(["git", "rev-parse", "--short=12", "HEAD"], cwd=REPO, env=env)
    if sha is None:
        return "no commit yet" if _run(["git", "rev-parse", "--git-dir"], cwd=REPO) else "unknown"
    status = _run(["git", "status", "--porcelain"], cwd=REPO, env=env) or ""
    # The report and the APBS cache are what the suite itself writes: not changes to the code.
    changed = [line for line in status.splitlines()
               if not line[3:].startswith(("regression/report", "regression/reference"))]
    return sha + ("+local changes" if changed else "")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def gpus():
    out = _run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                "--format=csv,noheader"])
    return [g.strip() for g in out.splitlines() if g.strip()] if out else []


def describe(program_path, apbs_version):
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit(),
        "host": platform.node(),
        "cpu": "%s, %d logical cores" % (cpu_model(), os.cpu_count() or 0),
        "gpus": gpus(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "program": program_path,
        "apbs": apbs_version,
    }
