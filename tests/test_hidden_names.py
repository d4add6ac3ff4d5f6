"""A hidden test cell's private names kept apart from the student's (grading/hidden_names.py)."""

from __future__ import annotations

import ast
import builtins

import pytest

from hybridlab.grading._guard import BUILTINS
from hybridlab.grading.hidden_names import PREFIX, separate

HIDDEN = """
from math import sqrt as _sqrt

def _twice(x):
    return 2 * x

_r = 3
_got = [answer(_twice(v)) for v in range(_r)]
assert _got == [_sqrt(4 * v * v) + 1 for v in range(_r)], "answer"
"""
STUDENT = """
def _r(x):  # the student's helper, named like the test's own
    return x + 1

def answer(x):
    return _r(x)
"""


def test_a_students_helper_named_like_the_tests_keeps_working_and_nothing_stays_behind():
    namespace: dict = {BUILTINS: builtins}
    exec(STUDENT, namespace)
    namespace["namespace"] = namespace
    exec(separate(HIDDEN, "namespace"), namespace)
    assert namespace["_r"](1) == 2  # still the student's
    assert not [name for name in namespace if name.startswith(PREFIX)]


def test_the_names_go_even_when_the_test_fails():
    namespace: dict = {"answer": lambda x: 0, BUILTINS: builtins}
    namespace["namespace"] = namespace
    with pytest.raises(AssertionError, match="answer"):
        exec(separate(HIDDEN, "namespace"), namespace)
    assert not [name for name in namespace if name.startswith(PREFIX)]


def test_public_names_and_the_kits_own_stay_as_they_are():
    cell = "import numpy as np\n_hl_guard = 1\nvalue = np.float64(2)\n"
    assert ast.dump(ast.parse(separate(cell))) == ast.dump(ast.parse(cell))


def test_a_global_shadowing_a_builtin_never_reaches_the_test():
    """An answer cell's `sorted` or `open` (attackers forged lab 09's page faults that way): the
    test reads the interpreter's own; a name the test binds itself, and super(), stay as written."""
    namespace: dict = {BUILTINS: builtins, "sorted": lambda *a, **k: [10**6, 10**6],
                       "len": lambda x: 99}
    cell = ("def sum(values):  # the test's own helper\n    return -1\n"
            "class _K(dict):\n    def __init__(self):\n        super().__init__(a=1)\n"
            "_got = (sorted([3, 1]), len('ab'), sum([1]), _K())\nresult = _got\n")
    namespace["namespace"] = namespace
    exec(separate(cell, "namespace"), namespace)
    assert namespace["result"] == ([1, 3], 2, -1, {"a": 1})


def test_a_private_name_also_passed_by_keyword_is_an_authoring_error():
    with pytest.raises(ValueError, match="by keyword"):
        separate("def _f(_n):\n    return _n\n_n = 2\n_f(_n=_n)\n")
