"""The guard counts the frames of the interpreter a thread was handed (grading/_guard.py
frames_reached): lab 08 (a)'s line counter can be switched off in a frame (f_trace,
f_trace_lines) only through the frame itself (attacker U's u08_tbsmall, 3/3 twice, 2026-12-06)."""

import subprocess
import sys

FRAMES_PROBE = """
import threading
import hybridlab.grading._guard as g

g.capture()


def plain():  # an exception raised and caught, a generator run: no frame handed out
    try:
        raise LookupError
    except LookupError as e:
        str(e)
    return sum(x for x in range(3))


def traceback_frame():
    try:
        raise LookupError
    except LookupError as e: e.__traceback__.tb_frame.f_trace_lines = False


def generator_frame():
    run = (x for x in range(3))
    run.gi_frame.f_trace_lines = False
    return list(run)


for how in (plain, traceback_frame, generator_frame):
    before = g.frames_reached()
    how()
    print(how.__name__, g.frames_reached() - before)
before = g.frames_reached()
other = threading.Thread(target=traceback_frame)
other.start()
other.join()
print("another thread", g.frames_reached() - before)
"""


def test_the_guard_counts_the_frames_a_thread_was_handed():
    done = subprocess.run(
        [sys.executable, "-c", FRAMES_PROBE], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "plain 0", "traceback_frame 1", "generator_frame 1", "another thread 0"], done.stdout
