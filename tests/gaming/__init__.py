"""Gaming attempts: how a hurried student tries to score without doing the work, one file per lab
(`<lab>.py`, a list GAMING), beside the honest mistakes of tests/wrong_answers/.

Five kinds (issues 28 and 36), each attempt named with one:
  shortcut     a kit function, table or constant reached any way at all (an alias, a default
               argument, another module, a private helper, the package's data);
  method       the method skipped but the numbers right (no overlap passing as overlap, a flat
               collective for a node-aware one, MPI from every thread under FUNNELED, the eager
               path taken for a safe ordering);
  hidden       an answer right only for the inputs the notebook shows (a hard-coded case, the
               machine at hand, an odd sample count, one MPI library);
  constant     a number or letter typed in (a published value, the letter the hint names);
  interpreter  the test's own interpreter reached (issue 36): a reference helper called, or an
               expected value read, from the test's frames (FRAME_TOOLS), or a judging module
               of the kit (student_c, a topic's exercise module) replaced from an earlier cell.

Four more (issue 36), against the evidence a C part is judged by, for a determined student who
reads the installed kit (c_evidence writes them for any C cell):
  untraced     an MPI call made out of the tracer's sight (an #undef behind a line splice, a
               pasted PMPI_ name, push_macro, an asm label, dlsym);
  forged       records written by the student (the kit's interval recorder called by name, a
               printed record line, the records' buffer written through ctx);
  interposed   a library function the kit's timers, page tracer or tracer call replaced
               (clock_gettime, omp_get_thread_num, MPI_Is_thread_main);
  text         a check by name or text fooled (a lock through a function pointer, a pragma in a
               comment).

Each must score zero on the part it touches and keep every other part's points: `make
test-grading-full` grades them beside the wrong answers (tests/test_grading.py), and
tests/test_wrong_answers.py checks that every automatic part has at least three of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from wrong_answers import Wrong, first_source
from wrong_answers import load as _load

HERE = Path(__file__).resolve().parent
KINDS = ("shortcut", "method", "hidden", "constant", "interpreter", "untraced", "forged",
         "interposed", "text")
ROOT = HERE.parents[1]
# an answer cell's preamble for the "interpreter" kind: what the calling test holds, by name
FRAME_TOOLS = """
import sys


def _from_the_test(names, want_callable):
    \"\"\"A helper (want_callable) or a value the calling test holds under one of `names`,
    found in its frames (its locals, then its globals, outwards); None when there is none.\"\"\"
    frame = sys._getframe(2)
    while frame is not None:
        for scope in (frame.f_locals, frame.f_globals):
            for name in names:
                if name in scope and callable(scope[name]) == want_callable:
                    return scope[name]
        frame = frame.f_back
    return None
"""


# C of the "forged" attempts that write the kit's sealed page through the kit's own
# /proc/self/mem descriptor by stdout's FILE (attacker U, 2026-12-06; labs 02, 11, 12):
# sealed_page() finds the page above the cell's statics, unseal(at, from, n) writes it
SEALED_DESCRIPTOR_WRITE = r"""static long mem_pos; /* where the descriptor's file position stands (the kit only pwrites) */

/* the kit's sealed page: the first 64 KiB boundary above this cell's statics (the same segment
   of the library's data) whose head is {ready 1, a descriptor, the run's ctx} */
static char *sealed_page(void) {
    unsigned long p = ((unsigned long)&mem_pos | 0xffffUL) + 1;
    for (int k = 0; k < 64; k++, p += 0x10000) {
        const int *head = (const int *)p;
        if (head[0] == 1 && head[1] >= 3 && head[1] <= 65535 && ((void *const *)p)[1])
            return (char *)p;
    }
    return NULL;
}

/* n bytes of `from` written at byte `at` of the sealed page through the kit's own descriptor,
   by stdout's FILE: glibc's fflush seeks the descriptor by write_base - read_end, then writes */
static void unseal(long at, const void *from, long n) {
    char *page = sealed_page();
    if (!page) return;
    char *to = page + at;
    FILE saved;
    fflush(stdout);
    memcpy(&saved, stdout, sizeof saved);
    stdout->_fileno = ((const int *)page)[1];
    stdout->_flags &= ~0x1000; /* not appending */
    stdout->_IO_write_base = (char *)from;
    stdout->_IO_write_ptr = (char *)from + n;
    stdout->_IO_read_end = (char *)from - ((long)to - mem_pos);
    fflush(stdout);
    mem_pos = (long)to + n;
    memcpy(stdout, &saved, sizeof saved);
}
"""


def attempt(kind: str, answer: str, source: str, loses: set[str], why: str,
            reason: str = "") -> Wrong:
    """One gaming attempt at one answer cell, of one of KINDS; `reason`: a fragment of the error
    one of the `loses` cells must end with (tests/wrong_answers/__init__.py)."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not one of {KINDS}")
    return Wrong(((answer, source.strip()),), frozenset(loses), why, kind, reason)


def solution_cell(lab: str, answer: str) -> str:
    """The instructor's answer cell `answer` of grading/source/<lab> (a C cell: its magic line
    first)."""
    nb = nbformat.read(ROOT / "grading" / "source" / lab / f"{lab}.ipynb", as_version=4)
    return next(c.source for c in nb.cells
                if c.metadata.get("nbgrader", {}).get("grade_id") == answer)  # fmt: skip


REPLACED = {  # a library function the kit's tracer, page tracer or clock calls, replaced
    "MPI_Is_thread_main": "#undef MPI_Is_thread_main\nint MPI_Is_thread_main(int *flag) { *flag = 1; return 0; }",
    "omp_get_thread_num": "int omp_get_thread_num(void) { return 0; }",
    "clock_gettime": "int clock_gettime(clockid_t c, struct timespec *t) { (void)c; t->tv_sec = 0; "
                     "t->tv_nsec = 0; return 0; }",
}


# the fragment of the kit's refusal each kind of attempt must lose with (kernels/unit_checks.py)
REFUSED = {
    "interposed": "would replace the library's own",
    "forged": "is the kit's own, not a cell's",
    "untraced": "out of the tracer's sight",
}


def c_evidence(lab: str, answer: str, loses: set[str], call: str | None,
               replaced: tuple[str, ...] = tuple(REPLACED), recorder: bool = True,
               reasons: bool = False) -> list[Wrong]:
    """The C-evidence attempts at a C cell (issue 36), each the instructor's solution with one
    change the kit must refuse: its first `call` (an MPI function it makes; None for a cell
    without MPI) hidden from the tracer by an #undef behind a line splice and by a pasted PMPI_
    name; the library functions `replaced` by the cell's own (REPLACED); with `recorder`, the
    kit's interval recorder written by name. With `reasons`, each names the refusal it must lose
    with (REFUSED)."""
    magic, body = solution_cell(lab, answer).split("\n", 1)
    first = body.index("{\n") + 2  # the first function's body
    out = [attempt("interposed", answer, f"{magic}\n{body}\n" + "\n".join(REPLACED[n] for n in replaced)
                   + "\n", loses, f"replaces {', '.join(replaced)}, which the kit's tracer, page "
                   "tracer or clock call", reason=REFUSED["interposed"] if reasons else "")]  # fmt: skip
    if recorder:
        out.append(attempt("forged", answer, f"{magic}\nvoid hl_trace_compute(double, double);\n"
                           f"{body[:first]}    hl_trace_compute(0.0, 1e3);\n{body[first:]}", loses,
                           "a computed interval written into the kit's recorder by name",
                           reason=REFUSED["forged"] if reasons else ""))
    if call:
        assert f"{call}(" in body, (lab, answer, call)
        pasted = body.replace(f"{call}(", f"JOIN(PMPI_, {call.removeprefix('MPI_')})(", 1)
        out += [
            attempt("untraced", answer, f"{magic}\n#un\\\ndef {call}\n{body}", loses,
                    f"{call} reached untraced: an #undef a line splice hides from a text filter",
                    reason=REFUSED["untraced"] if reasons else ""),
            attempt("untraced", answer, f"{magic}\n#define JOIN(a, b) a##b\n{pasted}", loses,
                    f"{call} reached as PMPI_, the name pasted together",
                    reason=REFUSED["untraced"] if reasons else ""),
        ]
    return out


@dataclass(frozen=True)
class Oracle:
    """A graded function's hidden inputs and a judge of its answer, for the scan of every kit
    function (tests/test_no_kit_answers.py): no function a student can import may return a value
    `is_answer` accepts. `is_answer` holds the instructor's reference (here, never in the kit)."""

    part: str  # the answer cell
    args: tuple
    is_answer: Callable[[object], bool]
    kwargs: dict = field(default_factory=dict)


def oracles(lab: str) -> list[Oracle]:
    """The ORACLES list of `<lab>.py` beside this file ([] when it has none)."""
    path = HERE / f"{lab}.py"
    return _load(lab, HERE, "ORACLES") if path.exists() and "ORACLES" in path.read_text() else []


def load(lab: str) -> list[Wrong]:
    """The GAMING list of `<lab>.py` beside this file ([] when the lab has none yet)."""
    return _load(lab, HERE, "GAMING")


def source_of(lab: str, why: str) -> str:
    """The code of `lab`'s gaming attempt whose `why` starts so (wrong_answers.first_source)."""
    return first_source(load(lab), why)
