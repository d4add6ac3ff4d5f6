import matplotlib
import pandas as pd
import pytest

from hybridlab.plots import SHARED, machine_picture, placement_map
from hybridlab.topology import read_topology
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
