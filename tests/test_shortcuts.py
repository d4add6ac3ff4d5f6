"""hybridlab.shortcuts: a graded function that calls the kit's answer fails inside the block,
one written out works, and everything is put back afterwards."""

from __future__ import annotations

import pytest

from hybridlab.modelling import overlap
from hybridlab.shortcuts import KitShortcut, unavailable


def test_a_call_of_the_kit_is_blocked_and_restored():
    original = overlap.epsilon

    def shortcut(f):
        return overlap.epsilon(f, 2)

    def own(f):
        return 1.0 / max(f, (1.0 - f) * 2)

    with unavailable(overlap):
        with pytest.raises(KitShortcut, match="overlap.epsilon"):
            shortcut(0.5)
        assert own(0.5) == 1.0
    assert overlap.epsilon is original
    assert float(shortcut(2 / 3)) == pytest.approx(1.5)


def test_names_bound_in_the_namespace_and_listed_names_only():
    namespace = {"eps": overlap.epsilon, "bounds": overlap.epsilon_max, "n": 3}
    with unavailable((overlap, "epsilon"), namespace=namespace):
        with pytest.raises(KitShortcut):
            namespace["eps"](0.5, 2)
        assert namespace["bounds"](2) == 1.5  # not listed: still there
        assert overlap.epsilon_max is namespace["bounds"]
    assert namespace["eps"] is overlap.epsilon and namespace["n"] == 3
