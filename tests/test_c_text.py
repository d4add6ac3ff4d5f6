"""Reading C text for the method checks (kernels/c_text.py): statements, loops, functions; and
a check read with it: lab 02's reduction row (a parallel region per repetition)."""

from __future__ import annotations

import pytest

from hybridlab.kernels.c_text import (
    code_only,
    function_body,
    inside_loop,
    statement_at,
    timed_name,
    timed_use,
)
from hybridlab.sync.exercise import region_fault

BODY = """void f(long n) {
    for (long i = 0; i < n; i++) { a(i); }
    while (n--) b(n);
    do { c(); } while (n > 0);
#pragma omp parallel
    { d(); }
    if (n) e(); else g();
    h();
}"""


def test_a_statement_is_its_block_loop_pragma_or_simple_statement():
    text = code_only(BODY)
    assert statement_at(text, text.index("for")) == "for (long i = 0; i < n; i++) { a(i); }"
    assert statement_at(text, text.index("while (n--)")) == "while (n--) b(n);"
    assert statement_at(text, text.index("do")) == "do { c(); } while (n > 0);"
    assert statement_at(text, text.index("#pragma")).endswith("{ d(); }")
    assert statement_at(text, text.index("if")) == "if (n) e(); else g();"


def test_loop_bodies_hold_what_the_loops_repeat():
    text = code_only(BODY)
    for inside in ("a(i)", "b(n)", "c()"):
        assert inside_loop(text, text.index(inside)), inside
    for outside in ("d()", "e()", "h()"):
        assert not inside_loop(text, text.index(outside)), outside


def test_function_body_ignores_comments_and_strings_once_code_only():
    text = code_only('/* g() { */ const char *s = "h() {"; void g(int x) { if (x) { y(); } }')
    assert function_body(text, "g") == "g(int x) { if (x) { y(); } }"
    with pytest.raises(ValueError, match="must define the function h"):
        function_body(text, "h")


REGION = "void construct_test(void *arg, long inner) {{ construct_state *s = arg; {} }}"


@pytest.mark.parametrize("body", [
    "for (long j = 0; j < inner; j++) { long x = 0;\n#pragma omp parallel reduction(+:x)\n"
    "{ hl_delay(s->delay); x += 1; }\ns->updates += x; }",
    "long j = inner; while (j-- > 0) { long x = 0;\n#pragma omp parallel reduction(+ : x) "
    "num_threads(omp_get_max_threads())\n{ hl_delay(s->delay); x++; }\ns->updates += x; }",
    "long j = 0; do { long x = 0;\n#pragma omp parallel reduction(+:x)\n"
    "x += (hl_delay(s->delay), 1);\ns->updates += x; } while (++j < inner);",
])
def test_a_region_per_repetition_is_the_reduction_row(body):
    assert region_fault(function_body(code_only(REGION.format(body)), "construct_test")) == ""


@pytest.mark.parametrize("body, fault", [
    ("long x = 0;\n#pragma omp parallel reduction(+:x)\nfor (long j = 0; j < inner; j++) "
     "{ hl_delay(s->delay); x += 1; }\ns->updates += x;", "outside the loop"),
    ("long x = 0; for (int k = 0; k < 1; k++) {\n#pragma omp parallel reduction(+:x)\n"
     "{ long j = 0; again: hl_delay(s->delay); x += 1; if (++j < inner) goto again; } }\n"
     "s->updates += x;", "loop or goto inside"),
    ("long x = 0; for (int k = 0; k < 1; k++) {\n#pragma omp parallel reduction(+:x)\n"
     "work(s, inner, &x); }\ns->updates += x;", "the region calls work"),
])
def test_one_region_for_every_repetition_is_refused(body, fault):
    assert fault in region_fault(function_body(code_only(REGION.format(body)), "construct_test"))


@pytest.mark.parametrize("body", [
    "long j = inner; while (j-- > 0) { long x = 0;\n#pragma omp parallel reduction(+ : x)\n"
    "do { hl_delay(s->delay); x += 1; } while (0);\ns->updates += x; }",
    "for (long j = 0; j < inner; j++) { long x = 0;\n#pragma omp parallel reduction(+ : x)\n"
    "{ if (s->delay > 0) hl_delay(s->delay); x += 1; }\ns->updates += x; }",
])
def test_a_statement_macro_or_an_if_in_the_region_is_still_one_region(body):
    assert region_fault(function_body(code_only(REGION.format(body)), "construct_test")) == ""


def test_a_traced_mpi_clock_is_a_timed_use_and_the_pause_between_tests_is_not():
    traced = "void f(void) { double t = hl_traced_MPI_Wtime(); (void)t; }"
    assert timed_name(timed_use(traced)) == "MPI_Wtime"  # the preprocessed unit's name for it
    polling = ("void f(MPI_Request *r, int *done) {\n"
               "    while (!*done) { hl_traced_MPI_Testall(2, r, done, 0); hl_sleep_us(20); }\n}")
    assert timed_use(polling) is None
    assert timed_name(timed_use(polling.replace("hl_sleep_us(20)", "hl_sleep_us(n)"))) == "hl_sleep_us"
    assert timed_name(timed_use("void f(void) { hl_sleep_us(20); }")) == "hl_sleep_us"  # no test round it
