import matplotlib
import numpy as np
import pandas as pd
import pytest

from hybridlab.machine.topology import read_topology
from hybridlab.plots import SHARED, machine_note, machine_picture, placement_map, strip_plot
from hybridlab.plots.notes import BOX
from test_topology import fake_sysfs

matplotlib.use("Agg")


def test_placement_map_marks_cpus_shared_by_threads(tmp_path):
    topo = read_topology(fake_sysfs(tmp_path))
    records = pd.DataFrame(
        {"rank": [0, 0, 1, 1], "thread": [0, 1, 0, 1], "cpu": [0, 0, 4, 6], "numa": [0, 0, 1, 1]}
    )
    fig = placement_map(records, topo, "piled")
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("shared") == 1
    assert {"r0 t0", "r0 t1", "r1 t0", "r1 t1", "NUMA 0", "NUMA 1"} <= set(texts)
    red = [p for p in ax.patches if matplotlib.colors.to_hex(p.get_edgecolor()) == SHARED]
    assert len(red) == 2  # both threads on cpu 0
    assert len(ax.get_xticks()) == 8


def test_placement_map_draws_one_map_per_node(tmp_path):
    topo = read_topology(fake_sysfs(tmp_path))
    records = pd.DataFrame(
        {"rank": [0, 1, 2, 3], "thread": [0, 0, 0, 0], "cpu": [0, 0, 0, 1], "numa": [0] * 4,
         "host": ["node1", "node2", "node2", "node1"]}
    )  # fmt: skip
    fig = placement_map(records, topo, "2 nodes")
    assert [ax.get_title() for ax in fig.axes] == [
        "2 nodes, node node1: ranks 0, 3",
        "2 nodes, node node2: ranks 1, 2",
    ]
    # cpu 0 is shared on node2 (ranks 1 and 2), not on node1: each node has its own CPUs
    assert [[t.get_text() for t in ax.texts].count("shared") for ax in fig.axes] == [0, 1]
    with pytest.raises(ValueError, match="one map each"):
        placement_map(records, topo, ax=fig.axes[0])


def test_placement_map_needs_rank_thread_and_cpu(tmp_path):
    topo = read_topology(fake_sysfs(tmp_path))
    with pytest.raises(ValueError, match=r"missing: \['cpu'\]"):
        placement_map(pd.DataFrame({"rank": [0], "thread": [0]}), topo)


def test_machine_picture_draws_every_core_and_cpu(tmp_path):
    topo = read_topology(fake_sysfs(tmp_path))
    texts = [t.get_text() for t in machine_picture(topo).axes[0].texts]
    assert sum(t.startswith("core ") for t in texts) == 4
    assert sum(t.startswith("cpu\n") for t in texts) == 8
    assert "socket 1 / NUMA node 1" in texts


def test_palette_is_okabe_ito_and_no_phase_is_told_by_colour_alone():
    """Every colour of the palette is an Okabe-Ito colour; phases of one kind share colour and
    hatch, phases of different kinds differ in both (so grey print and colour-blind readers
    tell them apart)."""
    from hybridlab.plots import PHASE_COLOURS, PHASE_HATCHES, RANK_COLOURS
    from hybridlab.plots.palette import OKABE_ITO

    okabe = set(OKABE_ITO) | {"#999999"}
    assert set(PHASE_COLOURS.values()) | set(RANK_COLOURS) | {SHARED} <= okabe
    kinds = {(PHASE_COLOURS[p], PHASE_HATCHES[p]) for p in PHASE_COLOURS}
    assert len(kinds) == 4
    assert len({c for c, _ in kinds}) == len({h for _, h in kinds}) == 4
    for lab_phases in (("compute", "barrier", "comm", "idle"), ("jacobi", "halo", "reduction",
                       "other"), ("fft", "rearrange", "alltoall")):  # fmt: skip
        assert len({PHASE_HATCHES[p] for p in lab_phases}) == len(lab_phases)


def test_timeline_and_its_legend_carry_the_phase_hatches():
    from hybridlab.plots import PHASE_HATCHES
    from hybridlab.sync.plots import timeline_plot

    records = pd.DataFrame({"rank": [0, 0, 1, 1], "thread": [0, 0, 0, 0],
                            "phase": ["compute", "barrier", "compute", "idle"],
                            "start": [0.0, 1.0, 0.0, 1.5], "end": [1.0, 2.0, 1.5, 2.0]})  # fmt: skip
    fig = timeline_plot(records)
    ax = fig.axes[0]
    drawn = {c.get_hatch() or "" for c in ax.collections}
    assert drawn == {PHASE_HATCHES[p] for p in ("compute", "barrier", "idle")}
    legend = {t.get_text(): h.get_hatch() or "" for t, h in
              zip(ax.get_legend().get_texts(), ax.get_legend().legend_handles, strict=True)}  # fmt: skip
    assert legend == {p: PHASE_HATCHES[p] for p in ("compute", "barrier", "idle")}
    matplotlib.pyplot.close(fig)


def test_strip_plot_draws_every_sample_and_its_median():
    samples = {"bound": [1e-6, 2e-6, 4e-6], "piled": pd.Series([5e-6, 6e-6])}
    ax = strip_plot(samples, title="two cases")
    dots = [line for line in ax.lines if line.get_marker() == "o"]
    assert [len(d.get_ydata()) for d in dots] == [3, 2]
    assert sorted(np.round(dots[0].get_ydata(), 6)) == [1.0, 2.0, 4.0]  # µs by default
    assert all(abs(x - i) <= 0.12 for i, d in enumerate(dots) for x in d.get_xdata())
    medians = [seg[0][1] for coll in ax.collections for seg in coll.get_segments()]
    assert medians == pytest.approx([2.0, 5.5])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["bound", "piled"]
    assert ax.get_title() == "two cases" and ax.get_ylabel() == "µs per repetition"


def test_strip_plot_lies_down_when_asked():
    ax = strip_plot({"reference": [1.0, 3.0]}, horizontal=True, scale=1.0, unit="s")
    assert list(ax.lines[0].get_xdata()) == [1.0, 3.0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["reference"]
    assert ax.get_xlabel().startswith("s (one dot per sample")


@pytest.mark.parametrize("where", ["top", "bottom", "below"])
def test_machine_note_is_one_box_in_the_axes(where):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    text = machine_note(ax, "1 NUMA node: remote memory cannot be shown here " * 3, where, width=40)
    assert text in ax.texts and text.get_bbox_patch() is not None
    assert max(len(line) for line in text.get_text().splitlines()) <= 40
    assert matplotlib.colors.to_hex(text.get_bbox_patch().get_facecolor()) == BOX["facecolor"]
    plt.close(fig)


def test_machine_note_above_the_figure():
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2)
    machine_note(axes[1], "oversubscribed: 4 threads on 2 CPUs", where="figure")
    assert fig.get_suptitle() == "oversubscribed: 4 threads on 2 CPUs" and not axes[1].texts
    plt.close(fig)

