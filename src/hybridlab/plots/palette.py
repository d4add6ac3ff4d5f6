"""The kit's colours, defined once: every topic's pictures take them from here.

Colours are the Okabe-Ito palette, told apart by readers with any common colour-vision
deficiency, and no cue is colour alone: each phase also has its own hatch (PHASE_HATCHES), so a
timeline or a stacked bar reads the same in grey print. PHASE_COLOURS names what a rank or
thread is doing; the same colour and hatch mean the same kind of work in every lab (computing,
waiting at a barrier or reduction, communicating, idle).
"""

from __future__ import annotations

# Okabe & Ito, "Color Universal Design" (2008): black, orange, sky blue, bluish green, yellow,
# blue, vermillion, reddish purple.
OKABE_ITO = ("#000000", "#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00",
             "#cc79a7")  # fmt: skip
_BLUE, _ORANGE, _GREEN, _VERMILLION = "#0072b2", "#e69f00", "#009e73", "#d55e00"

# kind of work -> (colour, hatch): computing solid, waiting dotted, communicating striped,
# idle crossed
_KINDS = {
    "compute": (_BLUE, ""),
    "wait": (_ORANGE, ".."),
    "comm": (_GREEN, "//"),
    "idle": (_VERMILLION, "xx"),
}
_PHASE_KIND = {
    # lab 02 (synchronisation timelines)
    "compute": "compute",
    "barrier": "wait",
    "comm": "comm",
    "idle": "idle",
    # lab 04 (halo exchange breakdowns)
    "jacobi": "compute",
    "halo": "comm",
    "reduction": "wait",
    "other": "idle",
    # lab 07 (3-D FFT phases)
    "fft": "compute",
    "rearrange": "wait",
    "alltoall": "comm",
}
PHASE_COLOURS = {phase: _KINDS[kind][0] for phase, kind in _PHASE_KIND.items()}
PHASE_HATCHES = {phase: _KINDS[kind][1] for phase, kind in _PHASE_KIND.items()}

# the lowest MPI thread level a call needs (hybridlab.runs.compliance), from harmless to demanding
THREAD_LEVEL_COLOURS = {
    "single": _BLUE,
    "funneled": _GREEN,
    "serialized": _ORANGE,
    "multiple": _VERMILLION,
}

# one colour per rank in placement maps (the rank's number is written on it as well)
RANK_COLOURS = (_BLUE, _ORANGE, "#56b4e9", _GREEN, "#cc79a7", _VERMILLION, "#000000", "#999999")
SHARED = _VERMILLION  # a CPU that more than one thread shares (also labelled "shared")


def ink_on(colour: str) -> str:
    """Black or white, whichever reads better on `colour` (WCAG relative luminance)."""
    channels = [int(colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return "black" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.18 else "white"


def phase_style(phase: str) -> dict:
    """Keyword arguments for a bar or patch of this phase: its colour, hatch and an edge that
    shows the hatch (grey for a phase the palette does not know)."""
    return {
        "color": PHASE_COLOURS.get(phase, "0.5"),
        "hatch": PHASE_HATCHES.get(phase, ""),
        "edgecolor": "white",
    }
