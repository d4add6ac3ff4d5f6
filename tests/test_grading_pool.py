"""The grading pool's jobs, forked from its zygote: each the process its command would have been."""

from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path

from hybridlab.grading import pool

SCRIPT = textwrap.dedent(
    """
    import os, sys
    print("cwd", os.getcwd())
    print("argv", sys.argv[1:])
    print("mine", os.environ.get("JOB_ONLY"), "zygote's", os.environ.get("ZYGOTE_ONLY"))
    print("own session", os.getsid(0) == os.getpid())
    print("stdin", repr(sys.stdin.read()))
    print("imported before", "nbgrader.apps.nbgraderapp" in sys.modules)
    print("to stderr", file=sys.stderr)
    sys.exit(int(sys.argv[1]))
    """
)


def _job(tmp_path: Path, name: str, *args: str, timeout: float = 60, then=()) -> pool.Job:
    script = tmp_path / f"{name}.py"
    script.write_text(SCRIPT if not args or args[0] != "sleep" else
                      "import time\ntime.sleep(600)\n")  # fmt: skip
    job = pool.Job(name, [str(script), *args], {"JOB_ONLY": name, "PATH": os.environ["PATH"]},
                   tmp_path, timeout)  # fmt: skip
    job.then = [list(c) for c in then]
    return job


def test_a_job_is_its_own_process_with_its_own_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("ZYGOTE_ONLY", "x")
    (tmp_path / "work").mkdir()
    job = _job(tmp_path, "alice", "0", "two words")
    job.cwd = tmp_path / "work"
    failing = _job(tmp_path, "bob", "3")
    done = pool.run([job, failing], 2, progress=False)
    assert [j.student for j in done] == ["alice", "bob"]
    assert done[0].returncode == 0 and done[1].returncode == 3, (done[0].log, done[1].log)
    log = done[0].log
    assert f"cwd {tmp_path / 'work'}" in log
    assert "argv ['0', 'two words']" in log
    assert "mine alice zygote's None" in log  # the job's environment whole, nothing else
    assert "own session True" in log and "stdin ''" in log and "to stderr" in log
    assert "imported before True" in log  # forked from the zygote, not a fresh interpreter
    assert "mine bob" in done[1].log


def test_a_job_past_its_backstop_is_killed_and_the_others_still_run(tmp_path):
    hung = _job(tmp_path, "hung", "sleep", timeout=2)
    start = time.monotonic()
    done = pool.run([hung, _job(tmp_path, "quick", "0")], 1, progress=False)
    assert time.monotonic() - start < 60
    assert done[0].killed and done[0].returncode != 0
    assert done[1].returncode == 0 and not done[1].killed


def test_follow_up_commands_run_only_after_success(tmp_path):
    passed = _job(tmp_path, "a", "0", then=[[str(tmp_path / "a.py"), "5"]])
    failed = _job(tmp_path, "b", "1", then=[[str(tmp_path / "b.py"), "0"]])
    done = pool.run([passed, failed], 2, progress=False)
    assert done[0].extra["then"] == [5] and done[0].returncode == 0
    assert "then" not in done[1].extra and done[1].returncode == 1
