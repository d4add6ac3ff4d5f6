"""Lab 06 (placement and topology): the placement arithmetic is exact on the sources' maps and
nodes, the published tables agree with themselves, and the placement kernel checks its own
answers. No timing is asserted."""

from __future__ import annotations

import re

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import hybridlab as hl  # noqa: E402
from gaming import solution_cell  # noqa: E402
from hybridlab.mapping import plots, tables  # noqa: E402
from hybridlab.mapping.exercise import grid_runs, weak_summary  # noqa: E402
from hybridlab.reference import REFERENCE  # noqa: E402
from seeds import SEEDS, needs_seeds  # noqa: E402
from two_nodes_records import two_node_run  # noqa: E402

# ------------------------------------------------------------------------------ rank maps


def test_rank_maps_and_their_plot_name_no_cut_links():
    """The links a map cuts are lab 06's exercise (a): the kit draws the map, counts nothing."""
    assert tables.slide13_maps()["sequential"] == tables.sequential(16, 2) == [0] * 8 + [1] * 8
    assert tables.round_robin(4, 2) == [0, 1, 0, 1]
    assert tables.blocks(2, 4, 2, 2) == [0, 0, 1, 1, 0, 0, 1, 1]
    assert tables.sequential(5, 2) == [0, 0, 0, 1, 1]
    assert not hasattr(tables, "cut_links") and not hasattr(tables, "grid_links")
    fig = plots.rank_map_plot(2, 8, tables.round_robin(16, 2), title="round robin")
    assert len(fig.axes[0].lines) == 2 * 22  # every link in two halves, one per end
    assert fig.axes[0].get_title() == "round robin"


# ------------------------------------------------------------------ NUMA regions of a node


def test_xt6_straddling_thread_counts():
    node = tables.xt6_node()
    assert sorted(c for cores in node.values() for c in cores) == list(range(24))
    counts = [int(t) for t in REFERENCE["000-table-4.1"].frame["threads_per_process"]]
    assert counts == [1, 2, 3, 4, 6, 8, 12, 24]
    table = tables.straddle_table(node, counts).set_index("threads")
    assert [t for t in counts if table.loc[t, "straddles"]] == [4, 8, 12, 24]
    assert table.loc[4, "straddling_pes"] == [1, 4]  # cores 4-7 and 16-19
    assert table.loc[8, "straddling_pes"] == [0, 1, 2]
    # -S (processes per NUMA region) is possible exactly when processes per node divide by 4
    assert [t for t in counts if table.loc[t, "aprun_S_possible"]] == [1, 2, 3, 6]
    assert tables.per_numa_cores(node, 2, 3)[3] == [6, 7]
    with pytest.raises(ValueError, match="cores per NUMA region"):
        tables.per_numa_cores(node, 4, 2)


def test_one_numa_node_never_straddles():
    assert all(tables.straddling({0: [0, 1, 2, 3]}, t) == [] for t in (1, 2, 4))


# ------------------------------------------------------------------------- H2MOL modules


def test_h2mol_processes_per_module():
    assert tables.processes_per_module(6, "round-robin") == [2, 2, 1, 1]
    assert tables.processes_per_module(6, "fill") == [6, 0, 0, 0]
    assert tables.processes_per_module(28, "fill") == [8, 8, 8, 4]
    lone = [p + 1 for p, m in enumerate(tables.module_of_process(6, "round-robin")) if m >= 2]
    assert lone == [3, 4]  # 001 Figure 4: processes 3 and 4 are alone on their MCMs
    table = tables.h2mol_table(REFERENCE["001-table-1"].frame)
    assert list(table["round_robin_max_per_mcm"]) == [2, 4, 7, 4, 8, 8, 8]
    assert list(table["fill_max_per_mcm"]) == [6, 8, 8, 8, 8, 8, 8]
    assert all(table["processors"] == table["per_frame"] * table["frames"])
    with pytest.raises(ValueError):
        tables.processes_per_module(33, "fill")


# ------------------------------------------------------------------- published cost tables


def test_dlpoly_costs_agree_with_nodes_times_time_except_the_erratum():
    frame = REFERENCE["004-dlpoly"].frame
    per_node = {"Naive": 24, "S4N16": 16, "S4N4": 4, "S1N4": 4, "S2N8": 8, "S3N12": 12, "S5N20": 20}
    erratum = []
    for row in frame.itertuples():
        if row.config == "XT4":
            au = tables.cost_au(row.processes // 4, row.seconds, 4, tables.XT4_AU_PER_CORE_HOUR)
        else:
            au = tables.cost_au(row.nodes, row.seconds)
            if (row.processes, row.config) != (128, "Naive"):
                assert row.nodes == tables.nodes_needed(row.processes, per_node[row.config])
        if abs(au - row.au) >= 0.03:
            erratum.append((row.processes, row.config))
    assert erratum == [(p, "S2N8") for p in (64, 128, 256, 512)]
    assert len(frame) == 6 * 8


def test_castep_au_ratios_follow_from_nodes_and_rates():
    castep = REFERENCE["004-castep"].frame.set_index("id")
    for run, ratio in (("vanilla_s", "vanilla_au_ratio"), ("shm_s", "shm_au_ratio")):
        xt4 = tables.cost_au(144 // 4, castep.loc["XT4", run], 4, tables.XT4_AU_PER_CORE_HOUR)
        for config in "ABCDE":
            nodes = tables.nodes_needed(144, int(castep.loc[config, "per_node"]))
            xt6 = tables.cost_au(nodes, castep.loc[config, run])
            assert abs(xt6 / xt4 - castep.loc[config, ratio]) < 0.006, (config, run)
    blas = REFERENCE["004-castep-blas"].frame
    xt4 = tables.cost_au(36, 1235, 4, tables.XT4_AU_PER_CORE_HOUR)
    for row in blas.itertuples():
        xt6 = tables.cost_au(tables.nodes_needed(row.processes, row.per_node), row.shm_s)
        assert abs(xt6 / xt4 - row.au_ratio) < 0.006


def test_glomap_utilisation():
    for row in REFERENCE["004-glomap"].frame.itertuples():
        per_node, _, depth = row.config[1:].partition("d")  # "N4d6" -> 4 per node, 6 cores each
        per_node, depth = int(per_node), int(depth or 1)
        assert tables.nodes_needed(row.mpi_tasks, per_node) == row.nodes
        assert row.cores_used == row.mpi_tasks * depth
        assert abs(row.cores_used / (row.nodes * 24) - row.utilisation) < 0.006


def test_launcher_table_lists_every_binding():
    table = tables.launcher_table(2, 3, 8)
    assert list(table.index) == list(hl.BIND_MODES)
    assert table.loc["cores", "MPICH hydra"] == "mpiexec -n 2 -bind-to core:3 -map-by core:3"
    assert "--map-by slot:PE=3" in table.loc["cores", "Open MPI"]
    assert table.loc["spread", "Cray aprun"] == "aprun -n 2 -S 1 -d 3"
    assert table.loc["one-core", "Slurm srun"] == (
        "srun -n 2 --nodes=1 --ntasks-per-node=2 --cpus-per-task 1 --cpu-bind=cores"
    )  # one node asked for: engines stay beside the notebook unless nodes= says otherwise


# -------------------------------------------------------------------------------- plots


def test_plots_draw(tmp_path):
    figs = [
        plots.rank_map_plot(2, 8, tables.slide13_maps()["optimal"], title="optimal"),
        plots.node_plot(tables.xt6_node(), [1, 4, 24], per_numa={1: 6}, totals={4: 4.04}),
        plots.modules_plot(6, tables.module_of_process(6, "round-robin")),
        plots.time_cost_plot(REFERENCE["004-dlpoly"].frame, REFERENCE["004-castep"].frame),
    ]
    summary = weak_summary(
        pd.DataFrame(
            {
                "work": ["memory"] * 3,
                "bind": ["cores"] * 3,
                "ranks": [1, 2, 2],
                "rank": [0, 0, 1],
                "seconds": [1.0, 1.5, 2.0],
            }
        )
    )
    assert list(summary["slowdown"]) == [1.0, 2.0]
    figs.append(plots.weak_scaling_plot(summary, hl.read_topology(), REFERENCE["004-castep"].frame))
    for i, fig in enumerate(figs):
        fig.savefig(tmp_path / f"{i}.png")
        assert (tmp_path / f"{i}.png").stat().st_size > 1000
    rank_map = figs[0].axes[0]  # slide 13's optimal map: two 2 x 4 blocks, 2 links cut
    assert rank_map.get_title() == "optimal"
    halves = [line.get_color() for line in rank_map.lines]
    assert len(halves) == 44 and len(set(halves)) == 2  # 22 links in two halves, two nodes
    assert len(rank_map.patches) == 16 and {t.get_text() for t in rank_map.texts} == {str(r) for r in range(16)}
    node = figs[1].axes[0]  # the XT6 node: 24 cores, one row per thread count
    assert len(node.get_xticklabels()) == 24
    assert sum(p.get_width() == 0.9 for p in node.patches) == 3 * 24  # every core of each row
    assert "4.04 s" in [t.get_text() for t in node.texts]


# ------------------------------------------------------------------------------- kernel


@pytest.mark.parametrize(
    "work,ranks,threads", [("memory", 2, 1), ("compute", 1, 2), ("both", 2, 1), ("both", 1, 2)]
)
def test_placement_kernel_checks_itself(work, ranks, threads):
    res = hl.run_program(
        "placement",
        ranks=ranks,
        threads=threads,
        timeout=60,
        work=work,
        n=10_001,
        compute_n=513,
        depth=7,
        samples=2,
        target_ms=1,
    )
    rec = res.records
    works = ["memory", "compute"] if work == "both" else [work]
    assert sorted(set(rec["work"])) == sorted(works)
    assert len(rec) == ranks * 2 * len(works) and set(rec["rank"]) == set(range(ranks))
    assert (rec["seconds"] > 0).all()
    mem = rec[rec["work"] == "memory"]
    assert (mem["bytes"] == 24 * 10_001).all()
    comp = rec[rec["work"] == "compute"]
    assert (comp["ops"] == (513 if work == "both" else 10_001) * 7).all()


def test_placement_kernel_refuses_bad_parameters():
    with pytest.raises(hl.KernelError, match="memory, compute or both"):
        hl.run_program("placement", ranks=1, threads=1, timeout=60, work="disk")
    with pytest.raises(hl.KernelError, match="at least 1"):
        hl.run_program("placement", ranks=1, threads=1, timeout=60, n=0)


def test_placement_kernel_runs_in_the_engines():
    with hl.Cluster(ranks=2, threads=1, start_timeout=240) as cluster:
        res = cluster.run("placement", work="both", n=5000, compute_n=100, samples=1, target_ms=1)
    assert sorted(set(res.records["work"])) == ["compute", "memory"]
    assert set(res.records["rank"]) == {0, 1}


# ------------------------------------------------------------------- against the seed text


@needs_seeds
def test_lab06_tables_are_printed_in_the_seeds():
    numbers = {}
    for doc in ("000", "001", "004"):
        (path,) = SEEDS.glob(f"{doc}_*.txt")
        numbers[doc] = {float(x) for x in re.findall(r"\d+\.\d+|\d+", path.read_text())}
    for key in ("004-dlpoly", "004-castep", "004-castep-blas", "004-glomap", "001-table-1"):
        frame = REFERENCE[key].frame
        for col in frame.select_dtypes("number").columns:
            for value in frame[col].dropna():
                assert float(value) in numbers[key[:3]], (key, col, value)
    slides = next(SEEDS.glob("002_*.txt")).read_text()
    assert "Round-robin — x14" in slides and "Sequential — x8" in slides and "Optimal ?" in slides
    table41 = next(SEEDS.glob("000_*.txt")).read_text()
    assert "\n".join(f"{p}\t{t}" for p, t in REFERENCE["000-table-4.1"].rows) in table41


def test_lab00_runs_and_their_pictures():
    from hybridlab.mapping.exercise import piling_runs, unbound_history

    history = unbound_history(threads=1, repeats=3, spin_ms=1)
    assert list(history["run"]) == [0, 1, 2] and set(history["rank"]) == {0}
    fig = plots.cpu_history_plot(history, hl.read_topology().usable)
    (line,) = fig.axes[0].lines  # one thread, one line through its CPU run after run
    assert list(line.get_xdata()) == [0, 1, 2] and list(line.get_ydata()) == list(history["cpu"])
    timed = piling_runs(threads=1, n=1000, samples=3, binds=("cores",))
    ax = plots.piling_plot(timed, threads=1).axes[0]
    dots = [line for line in ax.lines if line.get_marker() == "o"]
    assert sorted(dots[0].get_ydata()) == pytest.approx(sorted(timed["cores"].records["seconds"] * 1e6))
    assert any("cannot be shown" in t.get_text() for t in ax.texts)  # one thread: no piling


# ------------------------------------------------ the multi-node section (labs 00 and 06)


def test_node_table_says_which_ranks_share_a_node_on_two_nodes():
    hello = two_node_run("hello")  # real records: 4 ranks on the kit's two-node Slurm cluster
    table = tables.node_table(hello, hl.read_topology())
    assert set(table["node"]) == {"node1", "node2"}
    ranks = {node: sum(g["ranks"], []) for node, g in table.groupby("node")}
    assert sorted(ranks["node1"] + ranks["node2"]) == [0, 1, 2, 3]
    assert ranks == {h: sorted(r for r, h2 in tables.rank_hosts(hello).items() if h2 == h)
                     for h in ranks}  # fmt: skip
    assert tables.node_of_ranks(tables.rank_hosts(hello)) == [0, 0, 1, 1]  # srun's block order


def test_node_table_on_one_node_and_the_published_xt6_placement():
    res = hl.run_program("hello_hybrid", ranks=2, threads=1, spin_ms=5)
    table = tables.node_table(res, hl.read_topology())
    assert len(set(table["node"])) == 1 and sorted(sum(table["ranks"], [])) == [0, 1]
    xt6 = tables.node_table(tables.xt6_placement(), tables.xt6_topology())
    assert list(xt6["node"]) == ["XT6 node 0"] * 2 + ["XT6 node 1"] * 2  # two sockets each
    assert list(xt6["ranks"]) == [[0, 1], [2, 3], [4, 5], [6, 7]]  # -S 1: one rank per region
    assert all(len(t) == 12 for t in xt6["threads"])  # two ranks of 6 threads per socket
    with pytest.raises(ValueError, match="at most 4 processes"):
        tables.xt6_placement(per_node=5)


def test_rank_hosts_needs_a_host():
    with pytest.raises(ValueError, match="name no host"):
        tables.rank_hosts(pd.DataFrame({"rank": [0], "thread": [0], "cpu": [0]}))


def test_grid_order_puts_each_position_on_its_node():
    launched = [0, 0, 0, 0, 1, 1, 1, 1]  # ranks 0-3 on node 0
    order = tables.grid_order(launched, tables.round_robin(8, 2))
    assert order == [0, 4, 1, 5, 2, 6, 3, 7]
    assert [launched[r] for r in order] == tables.round_robin(8, 2)
    assert tables.grid_order(launched, tables.sequential(8, 2)) == list(range(8))
    with pytest.raises(ValueError, match="ranks per node"):
        tables.grid_order(launched, [0] * 6 + [1] * 2)


def test_cut_links_measured_across_two_nodes_match_the_model():
    maps = {"round-robin": tables.round_robin(8, 2), "sequential": tables.sequential(8, 2),
            "blocks": tables.blocks(2, 4, 2, 2)}  # fmt: skip
    runs = {name: two_node_run(f"grid_{name}") for name in maps}
    model = {"round-robin": 6, "sequential": 4, "blocks": 2}  # counted by hand on the 2 x 4 grid
    table = tables.cut_links_table(runs, model).set_index("map")
    assert table["model_cut_links"].to_dict() == model
    assert (table["measured_cut_links"] == table["model_cut_links"]).all()
    assert (table["messages"] == 2 * 10).all()  # 10 links of a 2 x 4 grid, one message each way
    for name, run in runs.items():  # the map the program asked for is where the ranks were
        assert tables.measured_node_of_position(run) == maps[name]
    fig = plots.cut_links_plot(table.reset_index(), REFERENCE["002-slide-13"].frame,
                               grid="2 x 4 ranks on 2 nodes")  # fmt: skip
    assert len(fig.axes) == 2


def test_grid_exchange_on_one_node_counts_no_message_across():
    maps = {"sequential": [0, 0, 1, 1]}
    with pytest.raises(ValueError, match="ranks per node"):  # two nodes' map, one node's run
        grid_runs(2, 2, maps, nodes=1, bytes=256, reps=2)
    one = hl.run_program("grid_exchange", ranks=4, rows=2, bytes=256, reps=2)
    table = tables.cut_links_table({"sequential": one}, {"sequential": 2})
    assert int(table["model_cut_links"].iloc[0]) == 2  # the model's two nodes ...
    assert int(table["measured_cut_links"].iloc[0]) == 0  # ... are one node here
    assert int(table["messages"].iloc[0]) == 8
    assert tables.cut_links_table({"sequential": one})["model_cut_links"].isna().all()
    assert tables.measured_node_of_position(one) == [0, 0, 0, 0]
    with pytest.raises(hl.KernelError, match="each rank 0..3 once"):
        hl.run_program("grid_exchange", ranks=4, rows=2, order="0,0,1,2")
    with pytest.raises(hl.KernelError, match="needs 6 ranks"):
        hl.run_program("grid_exchange", ranks=4, rows=2, cols=3)


def test_node_sum_threads_racing_into_rank_sum_are_seen_by_archer():
    """Lab 06 (e): every thread of a rank adds into the shared rank_sum. Unguarded adds race
    whether or not one is lost in a run (a fresh hurried student kept 4/4 with them): Archer
    names the cell's line; the solution's critical section and an atomic update race nowhere."""
    from hybridlab.kernels import archer
    from hybridlab.mapping.exercise import node_sum_under_archer
    from solutions_c import NODE_SUM

    if archer.missing():
        pytest.skip(archer.missing())
    guarded = "#pragma omp critical\n    for (int i = 0; i < n; i++) rank_sum[i] += mine[i];"
    assert guarded in NODE_SUM
    assert node_sum_under_archer(NODE_SUM)["races"] == []
    atomic = NODE_SUM.replace(guarded, "for (int i = 0; i < n; i++) {\n#pragma omp atomic\n"
                              "        rank_sum[i] += mine[i];\n    }")
    assert node_sum_under_archer(atomic)["races"] == []
    racy = NODE_SUM.replace(guarded, "for (int i = 0; i < n; i++) rank_sum[i] += mine[i];")
    races = node_sum_under_archer(racy)["races"]
    assert races and all("node_sum cell:" in r for r in races), races


# attacker A9's K2 and K3 (2026-12-07), their node_sum: the master alone adds every thread's
# published values into rank_sum; the master reduces each thread's values on the node, nothing
# added into rank_sum. And a right answer: a worksharing loop over the elements adding every
# thread's values (clang keeps an element's sum in a register: one store per element)
_PUBLISHED = """
static const double *published[64];
void node_sum(const double *mine, double *rank_sum, double *sum, int n, MPI_Comm node,
              MPI_Comm leaders) {
    published[omp_get_thread_num()] = mine;
    int nt = omp_get_num_threads();
#pragma omp barrier
"""
_THREE_STEPS = """#pragma omp masked
    {
        MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
"""
_MASTER_ADDS = _PUBLISHED + """#pragma omp masked
    for (int t = 0; t < nt; t++)
        for (int i = 0; i < n; i++) rank_sum[i] += published[t][i];
#pragma omp barrier
""" + _THREE_STEPS
_REDUCE_PER_THREAD = _PUBLISHED + """#pragma omp masked
    {
        int nr;
        MPI_Comm_rank(node, &nr);
        for (int t = 0; t < nt; t++) {
            MPI_Reduce(published[t], rank_sum, n, MPI_DOUBLE, MPI_SUM, 0, node);
            if (nr == 0)
                for (int i = 0; i < n; i++) sum[i] = (t ? sum[i] : 0.0) + rank_sum[i];
        }
        if (leaders != MPI_COMM_NULL)
            MPI_Allreduce(MPI_IN_PLACE, sum, n, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, node);
    }
#pragma omp barrier
}
"""
_SHARED_LOOP = _PUBLISHED + """#pragma omp for
    for (int i = 0; i < n; i++) {
        double s = rank_sum[i];
        for (int t = 0; t < nt; t++) s += published[t][i];
        rank_sum[i] = s;
    }
""" + _THREE_STEPS


def test_node_sum_threads_that_add_nothing_into_rank_sum_are_counted():
    """Lab 06 (e): the Archer run counts, per thread, the bytes of rank_sum the cell's own code
    writes in each call (node_sum.c's HL_COUNT_ADDS). A9's K2 (the master adds every thread's
    values alone) and K3 (a reduction per thread, nothing added into rank_sum) kept 4/4 twice:
    a thread wrote nothing, and node_sum_unadded names it; the solution (a critical section),
    and a worksharing loop over the elements (each thread half of them), keep the part."""
    from hybridlab.kernels import archer
    from hybridlab.mapping.exercise import node_sum_unadded, node_sum_under_archer
    from solutions_c import NODE_SUM

    if archer.missing():
        pytest.skip(archer.missing())
    split = NODE_SUM[:NODE_SUM.index("void node_sum(")]
    for code, bytes_each in ((NODE_SUM, {1600}), (split + _SHARED_LOOP, {800})):
        seen = node_sum_under_archer(code, 2, 2, 200, 2)
        assert seen["races"] == [] and {a for *_, a in seen["added"]} == bytes_each, seen
        assert len(seen["added"]) == 2 * 2 * 2
        assert node_sum_unadded(seen["added"], 2, 2, 200, 2) is None
    for code, idle in ((_MASTER_ADDS, "thread 1 wrote 0 values"),
                       (_REDUCE_PER_THREAD, "thread 0 wrote 0 values")):
        seen = node_sum_under_archer(split + code, 2, 2, 200, 2)
        problem = node_sum_unadded(seen["added"], 2, 2, 200, 2)
        assert problem and idle in problem and "less than a quarter" in problem, (problem, seen)


def test_node_sum_adds_split_into_an_atomic_read_and_write_are_refused():
    """Lab 06 (e): an add split into `omp atomic read` then `omp atomic write` loses adds that
    Archer never reports (attackH h06c kept 4/4): split_adds refuses the write (clang's IR:
    rank_sum written from a value read atomically; without clang, the preprocessed cell's text,
    lab 16's SPLIT_UPDATE), through a macro's __atomic_store too; the solution and an atomic
    update pass."""
    from hybridlab.kernels import split_rmw
    from hybridlab.mapping.exercise import split_adds
    from solutions_c import NODE_SUM

    said = "rank_sum written from a value read before" if split_rmw.clang_present() else "atomic"
    guarded = "#pragma omp critical\n    for (int i = 0; i < n; i++) rank_sum[i] += mine[i];"
    assert split_adds(NODE_SUM) == []
    atomic = NODE_SUM.replace(guarded, "for (int i = 0; i < n; i++) {\n#pragma omp atomic update\n"
                              "        rank_sum[i] += mine[i];\n    }")
    assert split_adds(atomic) == []
    split = NODE_SUM.replace(guarded, "for (int i = 0; i < n; i++) {\n        double old;\n"
                             "#pragma omp atomic read\n        old = rank_sum[i];\n"
                             "#pragma omp atomic write\n        rank_sum[i] = old + mine[i];\n    }")
    found = split_adds(split)
    assert any(said in f for f in found), found
    hidden = NODE_SUM.replace(guarded, "#define W(x, v) do { double w_ = (v); "
                              "__atomic_store(&(x), &w_, 5); } while (0)\n"
                              "    for (int i = 0; i < n; i++) W(rank_sum[i], rank_sum[i] + mine[i]);")
    assert any(said in f or "__atomic_store" in f for f in split_adds(hidden)), split_adds(hidden)
    # a read in one named critical section, the write in another (a fresh attacker's L06h2)
    critical = NODE_SUM.replace(guarded, "for (int i = 0; i < n; i++) {\n        double v;\n"
                                "#pragma omp critical(read_bin)\n        v = rank_sum[i];\n"
                                "#pragma omp critical(write_bin)\n        rank_sum[i] = v + mine[i];\n    }")
    if split_rmw.clang_present():
        assert any("rank_sum written from a value read before" in f for f in split_adds(critical))
    zeroed = NODE_SUM.replace(guarded, "for (int i = 0; i < n; i++) rank_sum[i] = 0.0;\n    " + guarded)
    assert split_adds(zeroed) == []  # a constant is no value read before


_GUARDED = "#pragma omp critical\n    for (int i = 0; i < n; i++) rank_sum[i] += mine[i];"


def _adds(body: str, before: str = "") -> str:
    """The solution's node_sum with its guarded adds replaced by `body` (and `before` put ahead
    of node_sum: statics, helpers, includes)."""
    from solutions_c import NODE_SUM

    assert _GUARDED in NODE_SUM
    code = NODE_SUM.replace(_GUARDED, body)
    return code.replace("void node_sum(", before + "\nvoid node_sum(", 1) if before else code


def _turns(read: str, write: str, before: str = "double *acc = rank_sum;") -> str:
    """A fresh attacker's R06 shape: threads take turns between barriers, each turn reads
    rank_sum[i] in one critical section and writes it in another."""
    return (f"{before}\n    int me = omp_get_thread_num(), team = omp_get_num_threads();\n"
            "    for (int turn = 0; turn < team; turn++) {\n        if (turn == me)\n"
            "            for (int i = 0; i < n; i++) {\n                double cur;\n"
            f"#pragma omp critical(hl_read)\n                {read}\n"
            f"#pragma omp critical(hl_write)\n                {write}\n            }}\n"
            "#pragma omp barrier\n    }")


def test_node_sum_split_adds_are_read_from_the_ir_not_the_text():
    """Lab 06 (e): a read of rank_sum in one critical section and the write of the value made
    from it in another is refused however the write is spelt: through an alias, with a dummy
    read of rank_sum in the written value, over two lines (a fresh attacker's R06alias,
    R06dummy, R06multiline kept 4/4 past a text rule), in a volatile local, a static buffer,
    helper functions, a memcpy, two omp locks, a read outside any region, code the graded
    compiler sees behind `#ifndef __clang__` (split_rmw reads clang's IR of the cell as gcc
    preprocesses it), and through an address loaded from the stack rather than the argument."""
    from hybridlab.kernels import split_rmw
    from hybridlab.mapping.exercise import split_adds

    if not split_rmw.clang_present():
        pytest.skip("clang is not installed")
    said = "rank_sum written from a value read before"
    alias = _adds(_turns("cur = acc[i];", "acc[i] = cur + mine[i];"))
    dummy = _adds(_turns("cur = acc[i];", "rank_sum[i] = cur + mine[i] + 0.0 * rank_sum[i];"))
    multiline = _adds(_turns("cur = acc[i];", "rank_sum[i]\n                    = cur + mine[i];"))
    volatile = _adds("for (int i = 0; i < n; i++) {\n        volatile double v;\n"
                     "#pragma omp critical(a)\n        v = rank_sum[i];\n"
                     "#pragma omp critical(b)\n        rank_sum[i] = v + mine[i];\n    }")
    kept = _adds("int t = omp_get_thread_num();\n    for (int i = 0; i < n; i++) {\n"
                 "#pragma omp critical(a)\n        keep[t] = rank_sum[i];\n"
                 "#pragma omp critical(b)\n        rank_sum[i] = keep[t] + mine[i];\n    }",
                 "static double keep[256];")
    helpers = _adds("for (int i = 0; i < n; i++) put(&rank_sum[i], get(&rank_sum[i]) + mine[i]);",
                    "__attribute__((noinline)) static double get(double *p) {\n    double v;\n"
                    "#pragma omp critical(a)\n    v = *p;\n    return v;\n}\n"
                    "__attribute__((noinline)) static void put(double *p, double v) {\n"
                    "#pragma omp critical(b)\n    *p = v;\n}")
    copied = _adds("double *tmp = malloc(sizeof(double) * (size_t)n);\n"
                   "#pragma omp critical(a)\n    memcpy(tmp, rank_sum, sizeof(double) * (size_t)n);\n"
                   "#pragma omp critical(b)\n    for (int i = 0; i < n; i++) rank_sum[i] = tmp[i] + mine[i];\n"
                   "    free(tmp);", "#include <stdlib.h>\n#include <string.h>")
    locks = _adds("#pragma omp single\n    if (!ready) { omp_init_lock(&la); omp_init_lock(&lb); ready = 1; }\n"
                  "    for (int i = 0; i < n; i++) {\n        double v;\n"
                  "        omp_set_lock(&la); v = rank_sum[i]; omp_unset_lock(&la);\n"
                  "        omp_set_lock(&lb); rank_sum[i] = v + mine[i]; omp_unset_lock(&lb);\n    }",
                  "static omp_lock_t la, lb;\nstatic int ready;")
    outside = _adds("for (int i = 0; i < n; i++) {\n        double v = rank_sum[i];\n"
                    "#pragma omp critical\n        rank_sum[i] = v + mine[i];\n    }")
    hidden = _adds("#ifdef __clang__\n" + _GUARDED + "\n#else\n"
                   "for (int i = 0; i < n; i++) {\n        double v;\n"
                   "#pragma omp critical(a)\n        v = rank_sum[i];\n"
                   "#pragma omp critical(b)\n        rank_sum[i] = v + mine[i];\n    }\n#endif")
    scanned = _adds("double *rs = *(double *volatile *)((char *)__builtin_frame_address(0) + 16);\n"
                    "    for (int i = 0; i < n; i++) {\n        double v;\n"
                    "#pragma omp critical(a)\n        v = rs[i];\n"
                    "#pragma omp critical(b)\n        rs[i] = v + mine[i];\n    }")
    for name, code in [("alias", alias), ("dummy", dummy), ("multiline", multiline),
                       ("volatile", volatile), ("kept", kept), ("helpers", helpers),
                       ("copied", copied), ("locks", locks), ("outside", outside),
                       ("hidden", hidden)]:  # fmt: skip
        found = split_adds(code)
        assert any(said in f for f in found), (name, found)
    # rank_sum's address read out of the stack frame: refused before the IR is read (unit_checks:
    # no builtin that reaches the stack a function returns through, attacker V's K1, 2026-12-06)
    with pytest.raises(ValueError, match="uses __builtin_frame_address"):
        split_adds(scanned)
    assert any(f.startswith("cell line 21:") for f in split_adds(alias)), split_adds(alias)  # the write


def test_node_sum_adds_made_whole_keep_their_points():
    """Lab 06 (e): right answers the text rule refused keep their points: the read and the
    write in ONE critical section (a fresh attacker's R06crit2), a master copying the node's
    total into rank_sum after a barrier (R06copyback), a helper whose critical section holds
    the whole add, one lock held over the adds, a volatile temporary inside one critical
    section, an atomic update through an alias, an atomic capture, a compare-and-swap loop."""
    from hybridlab.kernels import split_rmw
    from hybridlab.mapping.exercise import split_adds

    if not split_rmw.clang_present():
        pytest.skip("clang is not installed")
    crit2 = _adds("for (int i = 0; i < n; i++) {\n#pragma omp critical(hl_add)\n        {\n"
                  "            double v = rank_sum[i] + mine[i];\n            rank_sum[i] = v;\n"
                  "        }\n    }")
    from solutions_c import NODE_SUM

    copyback = NODE_SUM.replace(
        "if (leaders != MPI_COMM_NULL)\n            MPI_Allreduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, leaders);",
        "if (leaders != MPI_COMM_NULL) {\n            MPI_Reduce(rank_sum, sum, n, MPI_DOUBLE, MPI_SUM, 0, leaders);\n"
        "            for (int i = 0; i < n; i++) rank_sum[i] = sum[i];\n"
        "            MPI_Bcast(rank_sum, n, MPI_DOUBLE, 0, leaders);\n"
        "            for (int i = 0; i < n; i++) sum[i] = rank_sum[i];\n        }")
    assert copyback != NODE_SUM
    helper = _adds("for (int i = 0; i < n; i++) add(&rank_sum[i], mine[i]);",
                   "__attribute__((noinline)) static void add(double *p, double v) {\n"
                   "#pragma omp critical\n    *p += v;\n}")
    locked = _adds("#pragma omp single\n    if (!ready) { omp_init_lock(&la); ready = 1; }\n"
                   "    omp_set_lock(&la);\n    for (int i = 0; i < n; i++) rank_sum[i] += mine[i];\n"
                   "    omp_unset_lock(&la);", "static omp_lock_t la;\nstatic int ready;")
    volatile = _adds("for (int i = 0; i < n; i++) {\n#pragma omp critical\n        {\n"
                     "            volatile double v = rank_sum[i];\n            rank_sum[i] = v + mine[i];\n"
                     "        }\n    }")
    aliased = _adds("double *acc = rank_sum;\n    for (int i = 0; i < n; i++) {\n"
                    "#pragma omp atomic update\n        acc[i] += mine[i];\n    }")
    capture = _adds("for (int i = 0; i < n; i++) {\n        double old;\n"
                    "#pragma omp atomic capture\n        { old = rank_sum[i]; rank_sum[i] += mine[i]; }\n"
                    "        (void)old;\n    }")
    cas = _adds("for (int i = 0; i < n; i++) {\n        double old, new_;\n"
                "        __atomic_load(&rank_sum[i], &old, __ATOMIC_RELAXED);\n"
                "        do new_ = old + mine[i];\n        while (!__atomic_compare_exchange("
                "&rank_sum[i], &old, &new_, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));\n    }")
    for name, code in [("crit2", crit2), ("copyback", copyback), ("helper", helper),
                       ("locked", locked), ("volatile", volatile), ("aliased", aliased),
                       ("capture", capture), ("cas", cas)]:  # fmt: skip
        assert split_adds(code) == [], (name, split_adds(code))


def test_node_sum_split_adds_through_branches_or_a_rebuilt_address_are_refused():
    """Lab 06 (e): the IR rule follows control dependence, not only data flow, and takes an
    address made from an integer (or chosen by branches on rank_sum's address) as rank_sum's. A
    fresh attacker (attackS) kept 4/4 with A06_split_launder (the read value rebuilt bit by bit
    by branches between two critical sections) and A06_ptr_launder2 (the address rebuilt so, the
    write through it). Refused too: the write made or not by such branches (bits added into
    rank_sum under `if`), an offset from `sum` rebuilt by branches on rank_sum's address, a value
    kept by an atomic exchange, a hand-made spin lock (its acquire and release atomics are
    boundaries), and a buffer written back one block late (the next critical section)."""
    from hybridlab.kernels import split_rmw
    from hybridlab.mapping.exercise import split_adds

    if not split_rmw.clang_present():
        pytest.skip("clang is not installed")
    said = "rank_sum written from a value read before"
    split = ("for (int i = 0; i < n; i++) {\n        double old;\n"
             "#pragma omp critical(readit)\n        old = rank_sum[i];\n"
             "        double v = VALUE;\n#pragma omp critical(writeit)\n        TARGET = v;\n    }")
    rebuilt = ("static double rebuilt(double x) {\n    double b = 0.0;\n    volatile int ticks = 0;\n"
               "    for (int k = 40; k >= 0; k--) {\n        double t = b + (double)(1L << k);\n"
               "        if (t <= x) { b = t; ticks++; }\n    }\n    return b;\n}")
    value = _adds(split.replace("VALUE", "rebuilt(old) + mine[i]").replace("TARGET", "rank_sum[i]"), rebuilt)
    address = _adds("double *w = rebuilt_ptr(rank_sum);\n    "
                    + split.replace("VALUE", "old + mine[i]").replace("TARGET", "w[i]"),
                    "#include <stdint.h>\nstatic double *rebuilt_ptr(double *p) {\n"
                    "    uintptr_t a = (uintptr_t)p, b = 0;\n    volatile int ticks = 0;\n"
                    "    for (int k = 63; k >= 0; k--) {\n        uintptr_t t = b | ((uintptr_t)1 << k);\n"
                    "        if (t <= a) { b = t; ticks++; }\n    }\n    return (double *)b;\n}")
    offset = _adds("long d = 0;\n    {\n        long want = rank_sum - sum;\n"
                   "        volatile int ticks = 0;\n        long lo = -(1L << 40);\n"
                   "        for (int k = 40; k >= 0; k--) if (lo + (1L << k) <= want) { lo += 1L << k; ticks++; }\n"
                   "        d = lo;\n    }\n    double *w = sum + d;\n    "
                   + split.replace("VALUE", "old + mine[i]").replace("TARGET", "w[i]"))
    bits = _adds("for (int i = 0; i < n; i++) {\n        double old;\n"
                 "#pragma omp critical(readit)\n        old = rank_sum[i];\n"
                 "        long v = (long)(old + mine[i]);\n#pragma omp critical(writeit)\n"
                 "        {\n            rank_sum[i] = 0.0;\n"
                 "            for (int k = 0; k < 50; k++) if (v & (1L << k)) rank_sum[i] += (double)(1L << k);\n"
                 "        }\n    }")
    exchanged = _adds("for (int i = 0; i < n; i++) {\n        double old, got;\n"
                      "#pragma omp critical(readit)\n        old = rank_sum[i];\n"
                      "        __atomic_exchange(&kept, &old, &got, __ATOMIC_RELAXED);\n"
                      "        __atomic_load(&kept, &got, __ATOMIC_RELAXED);\n"
                      "#pragma omp critical(writeit)\n        rank_sum[i] = got + mine[i];\n    }",
                      "static _Thread_local double kept;")
    spin = _adds("for (int i = 0; i < n; i++) {\n        double old;\n        int z;\n"
                 "        do z = 0; while (!__atomic_compare_exchange_n(&la, &z, 1, 0, __ATOMIC_ACQUIRE, "
                 "__ATOMIC_RELAXED));\n        old = rank_sum[i];\n"
                 "        __atomic_fetch_and(&la, 0, __ATOMIC_RELEASE);\n"
                 "        do z = 0; while (!__atomic_compare_exchange_n(&lb, &z, 1, 0, __ATOMIC_ACQUIRE, "
                 "__ATOMIC_RELAXED));\n        rank_sum[i] = old + mine[i];\n"
                 "        __atomic_fetch_and(&lb, 0, __ATOMIC_RELEASE);\n    }",
                 "static int la, lb;")
    late = _adds("double block[64];\n    int last = -1, len = 0;\n"
                 "    for (int i0 = 0; i0 <= n; i0 += 64) {\n#pragma omp critical(add)\n        {\n"
                 "            if (last >= 0) memcpy(rank_sum + last, block, (size_t)len * sizeof *block);\n"
                 "            len = n - i0 < 64 ? n - i0 : 64;\n            last = i0;\n"
                 "            if (len > 0) memcpy(block, rank_sum + i0, (size_t)len * sizeof *block);\n"
                 "            for (int k = 0; k < len; k++) block[k] += mine[i0 + k];\n        }\n    }",
                 "#include <string.h>")
    for name, code in [("value", value), ("address", address), ("offset", offset), ("bits", bits),
                       ("exchanged", exchanged), ("spin", spin), ("late", late)]:  # fmt: skip
        found = split_adds(code)
        assert any(said in f for f in found), (name, found)


def test_node_sum_whole_adds_through_a_buffer_beside_a_counter_or_as_c11_keep_their_points():
    """Lab 06 (e): right answers a fresh attacker (attackS) saw lose 0/4 keep their points: a
    block copied out of rank_sum into a local buffer, added to and copied back inside ONE
    critical section (R06_blockcrit: the next block's copy overwrites all the copy back reads,
    and `block[k] += x` keeps what the element held in place), an `omp atomic` count of another
    variable between the read and the write (R06_counted: a relaxed atomic orders nothing, so no
    lock is made of it), and a C11 atomic compound assignment (R06_c11: GCC calls libatomic's
    __atomic_feraiseexcept, which the unit checks allow and the link provides)."""
    from hybridlab.kernels import split_rmw
    from hybridlab.mapping.exercise import build_student_nodes, check_student_nodes, split_adds

    if not split_rmw.clang_present():
        pytest.skip("clang is not installed")
    blockcrit = _adds("double block[64];\n    for (int i0 = 0; i0 < n; i0 += 64) {\n"
                      "        int len = n - i0 < 64 ? n - i0 : 64;\n#pragma omp critical(add)\n        {\n"
                      "            memcpy(block, rank_sum + i0, (size_t)len * sizeof *block);\n"
                      "            for (int k = 0; k < len; k++) block[k] += mine[i0 + k];\n"
                      "            memcpy(rank_sum + i0, block, (size_t)len * sizeof *block);\n        }\n    }",
                      "#include <string.h>")
    counted = _adds("for (int i = 0; i < n; i++) {\n#pragma omp critical(add)\n        {\n"
                    "            double x = rank_sum[i];\n#pragma omp atomic\n            adds_made++;\n"
                    "            rank_sum[i] = x + mine[i];\n        }\n    }", "static long adds_made;")
    c11 = _adds("for (int i = 0; i < n; i++) *(_Atomic double *)&rank_sum[i] += mine[i];")
    for name, code in [("blockcrit", blockcrit), ("counted", counted), ("c11", c11)]:
        assert split_adds(code) == [], (name, split_adds(code))
    kernel = build_student_nodes(c11, name="student_nodes_c11")
    check_student_nodes(kernel, shapes=((4, 2, 2),), n=100, reps=1)


_OWN = "static omp_lock_t own[256];\nstatic int ready;"
_OWN_INIT = ("#pragma omp single\n    if (!ready) { for (int k = 0; k < 256; k++) omp_init_lock(&own[k]); "
             "ready = 1; }\n    ")
_LOOP = "for (int i = 0; i < n; i++) rank_sum[i] += mine[i];"


def _own(take: str, give: str = "", before: str = "") -> str:
    """Adds held by `take` ... `give` (the lock routines' arguments: an omp_lock_t *)."""
    return _adds(f"{_OWN_INIT}omp_set_lock({take});\n    {_LOOP}\n    omp_unset_lock({give or take});",
                 _OWN + ("\n" + before if before else ""))


def test_node_sum_adds_under_regions_the_threads_do_not_share_are_refused():
    """Lab 06 (e): each add in ONE lock hold or critical section, but not the same one for every
    thread, excludes nothing, and Archer reports no race between adds under distinct locks: a
    fresh attacker (attackU) kept 4/4 with each thread's own lock (u06_ownlocks, with or without a
    stagger) and with thread 0 in critical(even), the others in critical(odd) (u06_namedcrit).
    lock_identity refuses, naming the line: two critical names; a critical and a lock; a lock and
    an atomic; a lock whose address differs between the threads (the thread number or its parity,
    a helper returning it, a stack lock, a threadprivate lock, a pointer kept in a _Thread_local
    and drawn from a ticket, an address kept in a global table by thread, the thread's data
    pointer, a single's pick, a lock passed to a helper chosen by branches on the thread number,
    an element index offset by the thread that also offsets the base, a ticket from a shared
    counter each thread increments in a critical section, the thread number kept in a double
    array and read back); a lock routine called
    through a pointer; an unlock of an alias that lets go of nothing the rule can match."""
    from hybridlab.kernels import split_rmw
    from hybridlab.mapping.exercise import split_adds

    if not split_rmw.clang_present():
        pytest.skip("clang is not installed")
    said = "one lock or one critical name shared by every thread"
    me = "omp_get_thread_num()"
    own = _own(f"&own[{me} % 256]", before="void hl_sleep_us(long us);") \
        .replace(f"omp_set_lock(&own[{me} % 256])", f"hl_sleep_us(300L * {me});\n    "
                 f"omp_set_lock(&own[{me} % 256])", 1)  # fmt: skip
    named = _adds(f"if ({me} == 0) {{\n        for (int i = 0; i < n; i++) {{\n#pragma omp critical(even)\n"
                  "            rank_sum[i] += mine[i];\n        }\n    } else {\n"
                  "        for (int i = 0; i < n; i++) {\n#pragma omp critical(odd)\n"
                  "            rank_sum[i] += mine[i];\n        }\n    }")
    mixed = {kind: _adds(f"if ({me} == 0) {{\n        omp_set_lock(&la);\n        {_LOOP}\n"
                         f"        omp_unset_lock(&la);\n    }} else {{\n{other}\n    }}",
                         "static omp_lock_t la;\n__attribute__((constructor)) static void mk(void) "
                         "{ omp_init_lock(&la); }")
             for kind, other in [("critical", "#pragma omp critical\n        " + _LOOP),
                                 ("atomic", "for (int i = 0; i < n; i++) {\n#pragma omp atomic\n"
                                  "            rank_sum[i] += mine[i];\n        }")]}  # fmt: skip
    helper = _own("my_lock()", before="__attribute__((noinline)) static omp_lock_t *my_lock(void) {\n"
                  f"    return &own[{me} % 256];\n}}")
    stack = _adds(f"omp_lock_t l;\n    omp_init_lock(&l);\n    omp_set_lock(&l);\n    {_LOOP}\n"
                  "    omp_unset_lock(&l);\n    omp_destroy_lock(&l);")
    private = _adds(f"if (!tl_ready) {{ omp_init_lock(&tl); tl_ready = 1; }}\n    omp_set_lock(&tl);\n"
                    f"    {_LOOP}\n    omp_unset_lock(&tl);",
                    "static omp_lock_t tl;\nstatic int tl_ready;\n#pragma omp threadprivate(tl, tl_ready)")
    parity = _own(f"&own[{me} & 1]")
    ticket = _own("mylock", before="static int ticket;\nstatic _Thread_local omp_lock_t *mylock;").replace(
        "omp_set_lock(mylock)", "if (!mylock) mylock = &own[__atomic_fetch_add(&ticket, 1, "
        "__ATOMIC_RELAXED) % 256];\n    omp_set_lock(mylock)", 1)
    table = _own(f"chosen[{me} % 256]", before="static omp_lock_t *chosen[256];").replace(
        "omp_set_lock(chosen", f"chosen[{me} % 256] = &own[{me} % 256];\n    omp_set_lock(chosen", 1)
    data = _own("&own[(unsigned long)mine % 256]")
    picked = _own("&own[first]").replace("omp_set_lock(&own[first])", "int first = 0;\n"
                                         "#pragma omp single nowait\n    first = 1;\n    omp_set_lock(&own[first])", 1)
    passed = _adds(f"{_OWN_INIT}if ({me} == 0) take(&own[0]); else take(&own[1]);\n    {_LOOP}\n"
                   f"    if ({me} == 0) give(&own[0]); else give(&own[1]);",
                   _OWN + "\n__attribute__((noinline)) static void take(omp_lock_t *l) { omp_set_lock(l); }\n"
                   "__attribute__((noinline)) static void give(omp_lock_t *l) { omp_unset_lock(l); }")
    offset = _adds(f"{_OWN_INIT}int me = {me};\n    volatile long sh = (long)me * n;\n"
                   "    double *p = rank_sum - sh;\n    for (int i = 0; i < n; i++) {\n"
                   "        long e = i + sh;\n        omp_set_lock(&own[e / n]);\n"
                   "        p[e] += mine[i];\n        omp_unset_lock(&own[e / n]);\n    }", _OWN)
    indexed = _own("&own[me]").replace("omp_set_lock(&own[me]);", f"int me = {me};\n    "
                                       "omp_set_lock(&own[me]);\n    rank_sum[me] += 0.0;", 1)
    pointer = _own(f"&own[{me}]", before="static volatile int pick = 1;").replace(
        "omp_set_lock(", "void (*take)(omp_lock_t *) = pick ? omp_set_lock : omp_unset_lock;\n    take(", 1)
    alias = _own(f"&own[1 + {me}]", before="static omp_lock_t *volatile alias = &own[0];").replace(
        "omp_set_lock(", "omp_set_lock(&own[0]);\n    omp_unset_lock(alias);\n    omp_set_lock(", 1)
    counter = _own("&own[t % 256]", before="static int counter;").replace(
        "omp_set_lock(", "int t;\n#pragma omp critical(ticket)\n    t = counter++;\n    omp_set_lock(", 1)
    kept = _own(f"&own[(int)kept[{me} % 256]]", before="static double kept[256];").replace(
        "omp_set_lock(", f"kept[{me} % 256] = {me};\n    omp_set_lock(", 1)
    cases = [("own", own), ("named", named), ("counter", counter), ("kept", kept), ("critical", mixed["critical"]), ("atomic", mixed["atomic"]),
             ("helper", helper), ("stack", stack), ("private", private), ("parity", parity),
             ("ticket", ticket), ("table", table), ("data", data), ("picked", picked),
             ("passed", passed), ("offset", offset), ("indexed", indexed), ("pointer", pointer),
             ("alias", alias)]  # fmt: skip
    for name, code in cases:
        found = split_adds(code)
        assert any(said in f for f in found), (name, found)
    assert any(f.startswith("cell line 17") and said in f for f in split_adds(parity)), split_adds(parity)


def test_node_sum_adds_under_one_lock_for_every_thread_keep_their_points():
    """Lab 06 (e): locks the same for every thread keep their points: striped locks `lk[i % 8]`
    (each element always the same lock, also when each thread starts at an element of its own),
    locks by block, one global lock initialised in a single (also taken in a helper, or with
    omp_test_lock), one reached through a static pointer set once, also with rank_sum reached
    through a static pointer (split_rmw took the lock's pointer, loaded from memory, for
    rank_sum's, handed to omp_set_lock as to an unknown routine), a nest lock, a lock inside a
    critical section, a POSIX mutex, rank_sum zeroed in a single first, a lock malloc'd in a
    single, a lock chosen by the thread in a single (one thread stores it, every thread takes
    that one)."""
    from hybridlab.kernels import split_rmw
    from hybridlab.mapping.exercise import split_adds

    if not split_rmw.clang_present():
        pytest.skip("clang is not installed")
    once = "#pragma omp single\n    if (!ready) { omp_init_lock(&la); ready = 1; }\n    "
    one = "static omp_lock_t la;\nstatic int ready;"
    striped = ("#pragma omp single\n    if (!ready) { for (int k = 0; k < 8; k++) omp_init_lock(&lk[k]); "
               "ready = 1; }\n    for (int k = 0; k < n; k++) {\n        int i = START;\n"
               "        omp_set_lock(&lk[i % 8]);\n        rank_sum[i] += mine[i];\n"
               "        omp_unset_lock(&lk[i % 8]);\n    }")
    stripes = "static omp_lock_t lk[8];\nstatic int ready;"
    cases = [
        ("striped", _adds(striped.replace("START", "k"), stripes)),
        ("stagger", _adds(striped.replace("START", "(k + omp_get_thread_num() * 64) % n"), stripes)),
        ("blocks", _adds("#pragma omp single\n    if (!ready) { for (int k = 0; k < 16; k++) "
                         "omp_init_lock(&lk[k]); ready = 1; }\n    for (int b = 0; b < 16; b++) {\n"
                         "        omp_set_lock(&lk[b]);\n        for (int i = b * n / 16; i < (b + 1) * n / 16; "
                         "i++) rank_sum[i] += mine[i];\n        omp_unset_lock(&lk[b]);\n    }",
                         "static omp_lock_t lk[16];\nstatic int ready;")),
        ("global", _adds(f"{once}omp_set_lock(&la);\n    {_LOOP}\n    omp_unset_lock(&la);", one)),
        ("helper", _adds(f"{once}take();\n    {_LOOP}\n    give();", one + "\n__attribute__((noinline)) "
                         "static void take(void) { omp_set_lock(&la); }\n__attribute__((noinline)) "
                         "static void give(void) { omp_unset_lock(&la); }")),
        ("tested", _adds(f"{once}while (!omp_test_lock(&la)) ;\n    {_LOOP}\n    omp_unset_lock(&la);", one)),
        ("pointer", _adds("#pragma omp single\n    if (!lp) { omp_init_lock(&the_lock); lp = &the_lock; }\n"
                          "    for (int i = 0; i < n; i++) {\n        omp_set_lock(lp);\n"
                          "        rank_sum[i] += mine[i];\n        omp_unset_lock(lp);\n    }",
                          "static omp_lock_t the_lock;\nstatic omp_lock_t *lp;")),
        ("nest", _adds("#pragma omp single\n    if (!ready) { omp_init_nest_lock(&la); ready = 1; }\n"
                       f"    omp_set_nest_lock(&la);\n    {_LOOP}\n    omp_unset_nest_lock(&la);",
                       "static omp_nest_lock_t la;\nstatic int ready;")),
        ("inside", _adds(f"{once}\n#pragma omp critical\n    {{\n        omp_set_lock(&la);\n        {_LOOP}\n"
                         "        omp_unset_lock(&la);\n    }", one)),
        ("mutex", _adds(f"pthread_mutex_lock(&mu);\n    {_LOOP}\n    pthread_mutex_unlock(&mu);",
                        "#include <pthread.h>\nstatic pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;")),
        ("zeroed", _adds("#pragma omp single\n    for (int i = 0; i < n; i++) rank_sum[i] = 0.0;\n    "
                         + _GUARDED)),
        ("malloced", _adds("#pragma omp single\n    if (!lp) { lp = malloc(sizeof *lp); omp_init_lock(lp); }\n"
                           f"    omp_set_lock(lp);\n    {_LOOP}\n    omp_unset_lock(lp);",
                           "#include <stdlib.h>\nstatic omp_lock_t *lp;")),
        ("published", _adds("#pragma omp single\n    if (!lp) { omp_init_lock(&the_lock); lp = &the_lock; }\n"
                            "#pragma omp single\n    rs = rank_sum;\n    omp_set_lock(lp);\n"
                            "    for (int i = 0; i < n; i++) rs[i] += mine[i];\n    omp_unset_lock(lp);",
                            "static omp_lock_t the_lock;\nstatic omp_lock_t *lp;\nstatic double *rs;")),
        ("slot", _own("slot", before="static omp_lock_t *slot;").replace(
            "omp_set_lock(", "#pragma omp single\n    slot = &own[omp_get_thread_num()];\n    omp_set_lock(", 1)),
    ]
    for name, code in cases:
        assert split_adds(code) == [], (name, split_adds(code))


_STRIPES = "static omp_lock_t lk[64];\nstatic int ready;"
_STRIPES_INIT = ("#pragma omp single\n    if (!ready) { for (int k = 0; k < 64; k++) omp_init_lock(&lk[k]); "
                 "ready = 1; }\n    ")
_TRY_ADD = ("__attribute__((noinline)) static int try_add(double *p, double x) {\n"
            "    double old = *(volatile double *)p, nx = old + x;\n"
            "    return __atomic_compare_exchange(p, &old, &nx, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);\n}")


def test_node_sum_adds_that_may_fail_and_move_on_are_refused():
    """Lab 06 (e): an add that is one whole read-modify-write but may FAIL, its failure moving on
    instead of trying again, loses an add only when two threads meet on one element; every access
    is atomic or under a lock every thread shares, so split_rmw, lock_identity and Archer passed
    it: a fresh attacker (attackZ) kept 4/4 twice with z06_cas1 (one __atomic_compare_exchange,
    no retry) and z06_synccas (__sync_val_compare_and_swap on the bits, its result ignored), and
    once in two with z06_trylock (omp_test_lock on striped locks, the add skipped when busy).
    kernels.retry_rmw refuses them, and: a CAS of three tries at most, a CAS loop that goes on
    while it SUCCEEDS, a CAS once in a helper whose result the caller drops, pthread_mutex_trylock,
    a hand-made try-lock (a CAS or a test-and-set on a flag, or a fetch-and-add ticket), the lock
    test's result kept in a volatile or returned by a helper, and the add written through a select
    on the lock test's result."""
    from hybridlab.kernels import split_rmw
    from hybridlab.mapping.exercise import split_adds

    if not split_rmw.clang_present():
        pytest.skip("clang is not installed")
    cas = ("for (int i = 0; i < n; i++) {\n        double seen = 0.0;\n"
           "        __atomic_compare_exchange(&rank_sum[i], &seen, &seen, 0, 5, 5);\n"
           "        double want = seen + mine[i];\n"
           "        __atomic_compare_exchange(&rank_sum[i], &seen, &want, 0, 5, 5);\n    }")
    sync = ("for (int i = 0; i < n; i++) {\n        unsigned long *bits = (unsigned long *)&rank_sum[i];\n"
            "        unsigned long old = __sync_val_compare_and_swap(bits, 0UL, 0UL), next;\n"
            "        double v;\n        memcpy(&v, &old, sizeof v);\n        v += mine[i];\n"
            "        memcpy(&next, &v, sizeof next);\n        (void)__sync_val_compare_and_swap(bits, old, next);\n    }")
    tried = ("for (int i = 0; i < n; i++) {\n        TAKE\n"
             "            rank_sum[i] += mine[i];\n            GIVE\n        }\n    }")
    test = ("if (omp_test_lock(&lk[i % 64])) {", "omp_unset_lock(&lk[i % 64]);")
    cases = {
        "cas": _adds(cas), "sync": _adds(sync, "#include <string.h>"),
        "trylock": _adds(_STRIPES_INIT + tried.replace("TAKE", test[0]).replace("GIVE", test[1]), _STRIPES),
        "bounded": _adds("for (int i = 0; i < n; i++) {\n        double old = *(volatile double *)&rank_sum[i];\n"
                         "        for (int k = 0; k < 3; k++) {\n            double nx = old + mine[i];\n"
                         "            if (__atomic_compare_exchange(&rank_sum[i], &old, &nx, 0, 5, 5)) break;\n"
                         "        }\n    }"),
        "inverted": _adds("for (int i = 0; i < n; i++) {\n"
                          "        double old = *(volatile double *)&rank_sum[i], nx = old + mine[i];\n"
                          "        while (__atomic_compare_exchange(&rank_sum[i], &old, &nx, 0, 5, 5))\n"
                          "            nx = old + mine[i];\n    }"),
        "helper": _adds("for (int i = 0; i < n; i++) (void)try_add(&rank_sum[i], mine[i]);", _TRY_ADD),
        "mutex": _adds(tried.replace("TAKE", "if (pthread_mutex_trylock(&mu) == 0) {")
                       .replace("GIVE", "pthread_mutex_unlock(&mu);"),
                       "#include <pthread.h>\nstatic pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;"),
        "casflag": _adds(tried.replace("TAKE", "if (__sync_bool_compare_and_swap(&flag[i % 64], 0, 1)) {")
                         .replace("GIVE", "__sync_lock_release(&flag[i % 64]);"), "static int flag[64];"),
        "tas": _adds(tried.replace("TAKE", "if (!__atomic_test_and_set(&tf[i % 64], __ATOMIC_ACQUIRE)) {")
                     .replace("GIVE", "__atomic_clear(&tf[i % 64], __ATOMIC_RELEASE);"), "static _Bool tf[64];"),
        "ticket": _adds(tried.replace("TAKE", "if (__atomic_fetch_add(&busy[i % 64], 1, __ATOMIC_ACQUIRE) == 0) {")
                        .replace("GIVE", "__atomic_store_n(&busy[i % 64], 0, __ATOMIC_RELEASE);"),
                        "static int busy[64];"),
        "volatile": _adds(_STRIPES_INIT + tried.replace(
            "TAKE", "volatile int ok = omp_test_lock(&lk[i % 64]);\n        if (ok) {").replace("GIVE", test[1]),
            _STRIPES),
        "took": _adds(_STRIPES_INIT + tried.replace("TAKE", "if (take(&lk[i % 64])) {").replace("GIVE", test[1]),
                      _STRIPES + "\n__attribute__((noinline)) static int take(omp_lock_t *l) "
                      "{ return omp_test_lock(l); }"),
        "select": _adds(_STRIPES_INIT + "for (int i = 0; i < n; i++) {\n        int ok = omp_test_lock(&lk[i % 64]);\n"
                        "        double v = rank_sum[i];\n        rank_sum[i] = ok ? v + mine[i] : v;\n"
                        "        if (ok) omp_unset_lock(&lk[i % 64]);\n    }", _STRIPES),
    }
    for name, code in cases.items():
        found = split_adds(code)
        assert any("tried again" in f or "instead of trying again" in f for f in found), (name, found)
    assert any(f.startswith("cell line 16:") and "not tried again" in f
               for f in split_adds(cases["cas"])), split_adds(cases["cas"])  # the second CAS


def test_node_sum_adds_tried_again_until_they_succeed_keep_their_points():
    """Lab 06 (e): an add that may fail keeps its points when its failure comes back to it: a CAS
    loop in a helper after a CAS that only reads (a fresh attacker's z06r_cas), a
    __sync_val_compare_and_swap loop on the bits, a weak __atomic_compare_exchange_n loop,
    omp_test_lock retried until it takes the lock, or falling back to omp_set_lock, or in a do-while
    around the add, pthread_mutex_trylock retried, an omp atomic update and capture (clang's CAS
    loop for a double), OpenMP's array-section reduction (z06r_arrayred) and an ordered region
    (z06r_ordered); and, for retry_rmw alone (split_rmw refuses it for another reason: the caller's
    loop runs on a value read from rank_sum), a helper's one CAS that the caller tries again."""
    from hybridlab.kernels import llvm_ir, retry_rmw, split_rmw
    from hybridlab.mapping.exercise import split_adds
    from hybridlab.runs.student_c import preprocessed_lines, student_unit

    if not split_rmw.clang_present():
        pytest.skip("clang is not installed")
    spin = ("for (int i = 0; i < n; i++) {\n        TAKE\n        rank_sum[i] += mine[i];\n"
            "        GIVE\n    }")
    give = "omp_unset_lock(&lk[i % 64]);"
    cases = {
        "helper": _adds("for (int i = 0; i < n; i++) cas_add(&rank_sum[i], mine[i]);",
                        "static void cas_add(double *where, double x) {\n    double old = 0.0, next;\n"
                        "    __atomic_compare_exchange(where, &old, &old, 0, 5, 5);\n"
                        "    do {\n        next = old + x;\n"
                        "    } while (!__atomic_compare_exchange(where, &old, &next, 0, 5, 5));\n}"),
        "syncval": _adds("for (int i = 0; i < n; i++) {\n        unsigned long *b = (unsigned long *)&rank_sum[i];\n"
                         "        unsigned long old = __atomic_load_n(b, 0), got;\n        for (;;) {\n"
                         "            double v;\n            memcpy(&v, &old, 8);\n            v += mine[i];\n"
                         "            unsigned long nx;\n            memcpy(&nx, &v, 8);\n"
                         "            got = __sync_val_compare_and_swap(b, old, nx);\n"
                         "            if (got == old) break;\n            old = got;\n        }\n    }",
                         "#include <string.h>"),
        "weak": _adds("for (int i = 0; i < n; i++) {\n        long *b = (long *)&rank_sum[i];\n"
                      "        long old = __atomic_load_n(b, 0), nx;\n        do {\n            double v;\n"
                      "            memcpy(&v, &old, 8);\n            v += mine[i];\n            memcpy(&nx, &v, 8);\n"
                      "        } while (!__atomic_compare_exchange_n(b, &old, nx, 1, 5, 0));\n    }",
                      "#include <string.h>"),
        "spin": _adds(_STRIPES_INIT + spin.replace("TAKE", "while (!omp_test_lock(&lk[i % 64])) ;")
                      .replace("GIVE", give), _STRIPES),
        "fallback": _adds(_STRIPES_INIT + spin.replace(
            "TAKE", "if (!omp_test_lock(&lk[i % 64])) omp_set_lock(&lk[i % 64]);").replace("GIVE", give), _STRIPES),
        "doloop": _adds(_STRIPES_INIT + "for (int i = 0; i < n; i++) {\n        int ok;\n        do {\n"
                        "            ok = omp_test_lock(&lk[i % 64]);\n"
                        f"            if (ok) {{ rank_sum[i] += mine[i]; {give} }}\n"
                        "        } while (!ok);\n    }", _STRIPES),
        "mutex": _adds(spin.replace("TAKE", "while (pthread_mutex_trylock(&mu)) ;")
                       .replace("GIVE", "pthread_mutex_unlock(&mu);"),
                       "#include <pthread.h>\nstatic pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;"),
        "atomic": _adds("for (int i = 0; i < n; i++) {\n#pragma omp atomic update\n        rank_sum[i] += mine[i];\n"
                        "        double o;\n#pragma omp atomic capture\n        { o = rank_sum[i]; rank_sum[i] += 0.0; }\n"
                        "        (void)o;\n    }"),
        "arrayred": _adds("int T = omp_get_num_threads();\n#pragma omp for schedule(static, 1) "
                          "reduction(+ : rank_sum[:n])\n    for (int k = 0; k < T; k++)\n"
                          "        for (int i = 0; i < n; i++) rank_sum[i] += mine[i];"),
        "ordered": _adds("int T = omp_get_num_threads();\n#pragma omp for ordered schedule(static, 1)\n"
                         "    for (int k = 0; k < T; k++) {\n#pragma omp ordered\n"
                         "        for (int i = 0; i < n; i++) rank_sum[i] += mine[i];\n    }"),
    }
    for name, code in cases.items():
        assert split_adds(code) == [], (name, split_adds(code))
    caller = _adds("for (int i = 0; i < n; i++)\n        while (!try_add(&rank_sum[i], mine[i])) ;", _TRY_ADD)
    view = split_rmw.gcc_view(preprocessed_lines("node_sum", "HL_STUDENT_NODES", caller), caller)
    ir = llvm_ir.cell_ir(student_unit("node_sum", "HL_STUDENT_NODES", view), (), sanitized=False)
    assert retry_rmw.dropped_adds(ir) == []


def test_node_sum_must_come_out_of_the_reductions():
    """Lab 06 (e): the sums are judged outside the student's process (node_sum_verdict, from the
    salts, factors, views and nudged reductions the kit recorded): the solution's sum is the
    nudged total; full-size reductions whose results are dropped beside gathers summed by hand (a
    fresh attacker kept 4/4 so) give the right total unscaled; reductions of zeros beside a sum
    copied from memory (attacker F's F06e: the kernel no longer holds any expected sum) give the
    nodes nothing of the rank's own."""
    from pathlib import Path

    from hybridlab.mapping.exercise import (
        build_student_nodes,
        check_student_nodes,
        node_sum_evidence,
        node_sum_verdict,
    )
    from hybridlab.runs.student_c import run_student
    from solutions_c import NODE_SUM
    from wrong_answers import lab_module

    gaming = lab_module("06_placement_topology", Path(__file__).resolve().parent / "gaming")
    dropped = [g for g in gaming.GAMING if g.reason == "did not come out of your reductions"]
    assert len(dropped) == 2
    kernel = build_student_nodes(NODE_SUM, name="student_nodes_nudged")
    res = run_student(kernel, 4, 2, "funneled", 60, variant="student", ranks_per_node=2, n=200,
                      reps=2)  # fmt: skip
    seen = node_sum_evidence(res)
    assert int(res.records.query("record == 'check'")["wrong"].iloc[0]) == -1  # not judged inside
    assert node_sum_verdict(seen, 4, 2, 2, 200, 2) is None
    assert "wrong result" in node_sum_verdict(seen, 4, 2, 2, 199, 2)  # another n: other values
    changed = dict(seen, salts=[[r, s + 1, t, m] for r, s, t, m in seen["salts"]])
    assert "wrong result" in node_sum_verdict(changed, 4, 2, 2, 200, 2)
    attack = build_student_nodes(dropped[0].answers[0][1].split("\n", 1)[1],
                                 name="student_nodes_dropped")  # fmt: skip
    res = run_student(attack, 4, 2, "funneled", 60, variant="student", ranks_per_node=2, n=200,
                      reps=2)  # fmt: skip
    assert "did not come out of your reductions" in node_sum_verdict(
        node_sum_evidence(res), 4, 2, 2, 200, 2)
    with pytest.raises(AssertionError, match="did not come out of your reductions"):
        check_student_nodes(attack, shapes=((4, 1, 2),), n=100, reps=1)
    forged = [g for g in gaming.GAMING if "F06e" in g.why][0]
    attack = build_student_nodes(forged.answers[0][1].split("\n", 1)[1], name="student_nodes_read")
    try:
        res = run_student(attack, 4, 2, "funneled", 60, variant="student", ranks_per_node=2,
                          n=200, reps=2)  # fmt: skip
    except hl.KernelCrash:  # its scan of the stack's pointers may fault: it loses either way
        return
    assert "given 0 of its own values" in node_sum_verdict(node_sum_evidence(res), 4, 2, 2, 200, 2)


def test_lab00_c_runs_the_answer_cells_again_apart_on_the_runs_it_is_given():
    """Lab 00 (c) graded apart (mapping.exercise.piling_apart): the answer cells run again in a
    child process on runs the hidden test drew; the numbers come back plain. A right answer
    gives the drawn runs' numbers; typed numbers and runs rewritten inside the cell change
    nothing the caller holds."""
    import pandas as pd

    from hybridlab.mapping.exercise import piling_apart
    from hybridlab.runs.records import Results

    def placement(masks):
        return Results(pd.DataFrame({"rank": 0, "thread": range(len(masks)),
                                     "cpu": [m[0] for m in masks], "allowed_cpus": masks}))

    piled, spread = placement([[4, 12]] * 3), placement([[0], [1], [2]])
    timed = {"cores": Results(pd.DataFrame({"seconds": [1.0, 2.0, 9.0]})),
             "one-core": Results(pd.DataFrame({"seconds": [3.0, 5.0, 4.0, 4.5]}))}
    names = {"T": 3, "timed": timed, "piled": piled, "spread": spread}
    cases = [(piled.records, spread.records), (spread.records, piled.records)]
    right = solution_cell("00_getting_started", "piling_slowdown")
    got = piling_apart({"piling_slowdown": right}, names, cases)
    assert got == {"slowdown": 4.25 / 2.0, "predicted": 1.5, "cases": [1.5, 1 / 1.5]}, got
    typed = right.split("slowdown = predicted = None")[0] + (
        "slowdown, predicted = 1.6, 2.0\n"
        "timed['one-core'].records['seconds'] = 1.6 * timed['cores'].records['seconds']\n")
    got = piling_apart({"piling_slowdown": typed}, names, cases)
    assert got["slowdown"] == 1.6 and timed["one-core"].records["seconds"].median() == 4.25, got
    got = piling_apart({"piling_slowdown": "slowdown = predicted = None"}, names, cases)
    assert got == {"error": "NotImplementedError: slowdown is not set"}, got


def test_node_sum_cas_retry_that_adds_another_value_is_refused():
    """Lab 06 (e): a compare-and-swap loop that comes back to its one CAS but writes another
    value on a retry (attackR's L06_G5 kept 4/4 twice: the addend in a volatile local zeroed after
    each try, so a retry adds nothing and an add is lost when two threads meet) is refused by
    retry_rmw: every try must write the value it compared plus the same addend. Also: the addend
    chosen by a try counter, a helper whose caller retries with an argument made anew, and a
    retry that writes back what it read. The right CAS loops (an addend from `mine`, a helper's
    parameter, a volatile addend never changed) keep their points."""
    from hybridlab.kernels import split_rmw
    from hybridlab.mapping.exercise import split_adds

    if not split_rmw.clang_present():
        pytest.skip("clang is not installed")
    loop = ("for (int i = 0; i < n; i++) {\n        unsigned long long *b = (unsigned long long *)&rank_sum[i];\n"
            "        unsigned long long old = __atomic_load_n(b, 0), nx;\n        ADDEND\n        do {\n"
            "            double o;\n            memcpy(&o, &old, 8);\n            double v = o + WHAT;\n"
            "            memcpy(&nx, &v, 8);\n            AFTER\n"
            "        } while (!__atomic_compare_exchange_n(b, &old, nx, 1, 4, 0));\n    }")

    def cas(addend: str, what: str, after: str = "") -> str:
        return _adds(loop.replace("ADDEND", addend).replace("WHAT", what).replace("AFTER", after),
                     "#include <string.h>")

    wrong = {
        "zeroed": cas("volatile double add = mine[i];", "add", "add = 0.0;"),
        "counted": cas("int tries = 0;", "(tries++ ? 0.0 : mine[i])"),
        "half": cas("volatile double add = mine[i];", "add", "add = add * 0.5;"),
        "caller": _adds("for (int i = 0; i < n; i++) {\n        int k = 0;\n"
                        "        while (!try_add(&rank_sum[i], k++ ? 0.0 : mine[i])) ;\n    }", _TRY_ADD),
        "back": _adds("for (int i = 0; i < n; i++) {\n        double old = *(volatile double *)&rank_sum[i];\n"
                      "        double nx = old + mine[i];\n"
                      "        while (!__atomic_compare_exchange(&rank_sum[i], &old, &nx, 0, 5, 5)) nx = old;\n    }"),
    }
    for name, code in wrong.items():  # (a loop clang peels is a CAS not tried again, f39's rule)
        found = split_adds(code)
        assert any("the same addend" in f or "not tried again" in f for f in found), (name, found)
    assert any("the same addend" in f for f in split_adds(wrong["zeroed"])), split_adds(wrong["zeroed"])
    right = {
        "mine": cas("", "mine[i]"),
        "before": cas("double add = mine[i] * 1.0;", "add"),
        "volatile": cas("volatile double add = mine[i];", "add"),
        "caller": _adds("for (int i = 0; i < n; i++)\n        while (!try_add(&rank_sum[i], mine[i])) ;", _TRY_ADD),
    }
    for name, code in right.items():
        found = split_adds(code)
        assert not any("the same addend" in f for f in found), (name, found)
    for name in ("mine", "before", "volatile"):
        assert split_adds(right[name]) == [], (name, split_adds(right[name]))


def test_node_sum_hand_made_spin_locks_keep_their_points():
    """Lab 06 (e): a lock made by hand, taken by a test-and-set spun until it is had and released
    by an atomic clear or store, is a lock (attackR's L06_R4 lost 4/4 to a rule against any atomic
    store or exchange in the cell): __atomic_test_and_set + __atomic_clear, __sync_lock_test_and_set
    + __sync_lock_release, __atomic_exchange_n + __atomic_store_n. A test whose failure skips the
    add is still refused (retry_rmw), and an atomic store into rank_sum of a value read before
    (split_rmw)."""
    from hybridlab.kernels import split_rmw
    from hybridlab.mapping.exercise import split_adds

    if not split_rmw.clang_present():
        pytest.skip("clang is not installed")
    held = "TAKE\n    for (int i = 0; i < n; i++) rank_sum[i] += mine[i];\n    GIVE"
    locks = {
        "tas": ("static char spin;", "while (__atomic_test_and_set(&spin, __ATOMIC_ACQUIRE)) { }",
                "__atomic_clear(&spin, __ATOMIC_RELEASE);"),
        "sync": ("static int spin;", "while (__sync_lock_test_and_set(&spin, 1)) { }",
                 "__sync_lock_release(&spin);"),
        "xchg": ("static int spin;", "while (__atomic_exchange_n(&spin, 1, __ATOMIC_ACQUIRE)) { }",
                 "__atomic_store_n(&spin, 0, __ATOMIC_RELEASE);"),
    }
    for name, (before, take, give) in locks.items():
        code = _adds(held.replace("TAKE", take).replace("GIVE", give), before)
        assert split_adds(code) == [], (name, split_adds(code))
    skipped = _adds("if (!__atomic_test_and_set(&spin, __ATOMIC_ACQUIRE)) {\n"
                    "        for (int i = 0; i < n; i++) rank_sum[i] += mine[i];\n"
                    "        __atomic_clear(&spin, __ATOMIC_RELEASE);\n    }", "static char spin;")
    assert any("instead of trying again" in f for f in split_adds(skipped)), split_adds(skipped)
    stored = _adds("for (int i = 0; i < n; i++) {\n        double v, w;\n        __atomic_load(&rank_sum[i], &v, 5);\n"
                   "        w = v + mine[i];\n        __atomic_store(&rank_sum[i], &w, 5);\n    }")
    assert any("rank_sum written from a value read before" in f for f in split_adds(stored)), split_adds(stored)


def test_node_sum_openmp_atomic_compare_is_read_as_a_compare_and_swap():
    """Lab 06 (e): OpenMP 5.1's `atomic compare`, which the graded GCC builds and the kit's clang
    14 cannot parse, was a RuntimeError ("could not compile the cell to IR": attackR's L06_R6, a
    CAS loop by `atomic compare capture`, lost 4/4). clang_view rewrites it line for line as the
    compare-and-swap it is, so the rules judge it: the loop until it succeeds passes, the same
    compare tried once (L06_G6) is refused; its forms (the ternary, the capture after, the else
    capture, a named result) become one CAS, a `<` form a critical section; Archer builds it."""
    from hybridlab.kernels import archer, split_rmw
    from hybridlab.mapping.exercise import clang_view, node_sum_under_archer, split_adds

    loop = ("for (int i = 0; i < n; i++) {\n        double expected = 0.0, seen;\n        for (;;) {\n"
            "            double want = expected + mine[i];\n#pragma omp atomic compare capture\n"
            "            {\n                seen = rank_sum[i];\n"
            "                if (rank_sum[i] == expected) { rank_sum[i] = want; }\n            }\n"
            "            if (seen == expected) break;\n            expected = seen;\n        }\n    }")
    once = ("for (int i = 0; i < n; i++) {\n        double seen, want;\n#pragma omp atomic read\n"
            "        seen = rank_sum[i];\n        want = seen + mine[i];\n#pragma omp atomic compare\n"
            "        if (rank_sum[i] == seen) { rank_sum[i] = want; }\n    }")
    for body in (loop, once):
        view = clang_view(_adds(body))
        assert "atomic compare" not in view and "__sync_val_compare_and_swap" in view
        assert len(view.splitlines()) == len(_adds(body).splitlines())
    forms = {
        "x = x == e ? d : x;": "",
        "{ x = x == e ? d : x; v = x; }": "v = hlac0_ok ? hlac0_d : hlac0_o;",
        "if (x == e) { x = d; } else { v = x; }": "if (!hlac0_ok) v = hlac0_o;",
        "{ r = x == e; if (r) { x = d; } }": "r = hlac0_ok;",
        "{ if (e == x) { x = d; } v = x; }": "v = hlac0_ok ? hlac0_d : hlac0_o;",
    }
    for form, capture in forms.items():
        view = clang_view(f"#pragma omp atomic compare capture\n{form}\n")
        assert "__sync_val_compare_and_swap" in view and "(e)" in view and capture in view, (form, view)
    assert "critical(hl_atomic_compare)" in clang_view("#pragma omp atomic compare\nif (x < e) { x = e; }\n")
    if not split_rmw.clang_present():
        pytest.skip("clang is not installed")
    assert split_adds(_adds(loop)) == [], split_adds(_adds(loop))
    assert any("not tried again" in f for f in split_adds(_adds(once))), split_adds(_adds(once))
    if not archer.missing():
        assert node_sum_under_archer(_adds(loop))["races"] == []


# attackS's A06_nested_gcconly (2026-12-06), its adds: a read in one critical section, the write
# in another, the read in a GCC nested function for gcc only and a plain helper for clang
_NESTED_READ = ("    double get_at(double *rs, int i) {\n        double x;\n"
                "#pragma omp critical(readit)\n        x = rs[i];\n        return x;\n    }\n")
_SPLIT_WRITE = ("    for (int i = 0; i < n; i++) {\n        double x = get_at(rank_sum, i);\n"
                "#pragma omp critical(writeit)\n        rank_sum[i] = x + mine[i];\n    }")
_PLAIN_READ = ("static double get_at(double *rs, int i) {\n    double x;\n"
               "#pragma omp critical(readit)\n    x = rs[i];\n    return x;\n}")


def test_node_sum_cells_that_tell_the_compilers_apart_are_refused():
    """Lab 06 (e): a cell whose C differs for gcc (the graded build, what runs) and clang (the
    IR rules' and Archer's build) showed clang a program that was not the one run: attackS's
    A06_nested_gcconly kept 4/4 twice with a split add whose read sat in a GCC nested function
    behind `#ifndef __clang__` (clang could not read gcc's view, the text rule found nothing),
    and a plain helper for clang's own build. Judged by behaviour (same_c.preprocessed_apart:
    the cell through both preprocessors), not by names: `__clang__`, `_OPENMP`'s value, a macro
    only gcc predefines, `__GNUC__`'s value in code all differ; `#ifdef _OPENMP`, a macro call
    over two lines, `_Pragma`, a header's macros and `atomic compare` do not."""
    from hybridlab.kernels import same_c, split_rmw
    from hybridlab.mapping.exercise import build_student_nodes

    if not split_rmw.clang_present():
        pytest.skip("clang is not installed")
    apart = {
        "clang": "#ifdef __clang__\nint a;\n#else\nint b;\n#endif\n",
        "openmp value": "#if _OPENMP >= 201811\nint a;\n#else\nint b;\n#endif\n",
        "gcc only macro": "int z;\n#ifdef __SIZEOF_FLOAT80__\nint a;\n#endif\n",
        "version in code": "int f(void) { return __GNUC__; }\n",
        "spacing made by a macro": ("#ifdef __clang__\n#define P + +\n#else\n#define P ++\n#endif\n"
                                    "int f(int b) { return 1 P b; }\n"),
        "an #error for one": "#ifdef __clang__\n#error no\n#endif\nint a;\n",
    }
    for name, code in apart.items():
        assert same_c.preprocessed_apart(code), name
    assert "cell line 3" in same_c.preprocessed_apart(apart["gcc only macro"])[0]
    same = {
        "ifdef openmp": "#ifdef _OPENMP\n#include <omp.h>\nint a;\n#endif\n",
        "macro over lines": "#define ADD(a, b) ((a) + (b))\nint f(int x) {\n return ADD(x,\n   2);\n}\n",
        "pragma operator": ('#define CRIT _Pragma("omp critical (x)")\nvoid f(double *a) {\n CRIT\n'
                            " a[0] += 1;\n}\n"),
        "header macros": "#include <math.h>\nint f(double x) { return isnan(x) ? 0 : (int)fabs(x); }\n",
        "atomic compare": ("void f(double *x, double e, double d) {\n#pragma omp atomic compare\n"
                           "    if (*x == e) { *x = d; }\n}\n"),
        "the solution": _adds(_GUARDED),
    }
    for name, code in same.items():
        assert same_c.preprocessed_apart(code) == [], (name, same_c.preprocessed_apart(code))
    attack = _adds("#ifndef __clang__\n" + _NESTED_READ + "#endif\n" + _SPLIT_WRITE,
                   "#ifdef __clang__\n" + _PLAIN_READ + "\n#endif")
    with pytest.raises(ValueError, match="reads differently for gcc and for clang"):
        build_student_nodes(attack, name="student_nodes_apart")


def test_node_sum_cells_clang_cannot_read_as_gcc_builds_them_are_refused():
    """Lab 06 (e): where clang could not read the cell as gcc preprocesses it, split_adds fell
    back to a text rule that knows only `omp atomic read/write` and atomic stores, and a split
    add (a read in one critical section, the write in another) kept its points once the read
    sat in a GCC nested function (attackS's A06_nested_gcconly). Now refused, naming clang's
    error and the cell's line; `atomic compare`, which clang 14 cannot parse either, is still
    read as the compare-and-swap it is."""
    from hybridlab.kernels import split_rmw
    from hybridlab.mapping.exercise import split_adds

    if not split_rmw.clang_present():
        pytest.skip("clang is not installed")
    nested = _adds("\n" + _NESTED_READ + _SPLIT_WRITE)
    line = nested.splitlines().index("    double get_at(double *rs, int i) {") + 1
    with pytest.raises(ValueError, match=rf"clang cannot read the cell as gcc builds it \(cell line "
                                         rf"{line}: function definition is not allowed here\)"):
        split_adds(nested)
    compare = ("for (int i = 0; i < n; i++) {\n        double expected = 0.0, seen;\n        for (;;) {\n"
               "            double want = expected + mine[i];\n#pragma omp atomic compare capture\n"
               "            {\n                seen = rank_sum[i];\n"
               "                if (rank_sum[i] == expected) { rank_sum[i] = want; }\n            }\n"
               "            if (seen == expected) break;\n            expected = seen;\n        }\n    }")
    assert split_adds(_adds(compare)) == []


def test_node_sum_cells_whose_paths_each_optimiser_decides_are_refused():
    """Lab 06 (e): attacker U's u06_bcp kept 4/4 twice with the add split into an atomic read and
    an atomic write behind `__builtin_constant_p(probe != 0)` (probe a malloc's result), which
    clang's -O2 folds to 1 (its IR, which split_adds judges, held only the atomic update) and
    gcc's build to 0 (the split add ran). The preprocessed tokens are the same for both
    (same_c.preprocessed_apart finds nothing): a builtin each optimiser decides is refused on
    any cell line, a header's macro expanded there too."""
    from hybridlab.kernels import same_c, split_rmw
    from hybridlab.mapping.exercise import build_student_nodes
    from hybridlab.runs.student_c import preprocessed_lines

    if not split_rmw.clang_present():
        pytest.skip("clang is not installed")
    split = ("if (FOLDED) {\n#pragma omp atomic update\n            rank_sum[i] += mine[i];\n"
             "        } else {\n            double x;\n#pragma omp atomic read\n            x = rank_sum[i];\n"
             "#pragma omp atomic write\n            rank_sum[i] = x + mine[i];\n        }")
    def chosen(test: str, before: str = "") -> str:
        return _adds(f"{before}    for (int i = 0; i < n; i++) {{\n        " + split.replace("FOLDED", test) + "\n    }")

    bcp = chosen("folded", "    double *probe = malloc(8);\n    int folded = __builtin_constant_p(probe != 0);\n"
                           "    free(probe);\n")
    assert same_c.preprocessed_apart(bcp) == []
    decided = same_c.compiler_decided(preprocessed_lines("node_sum", "HL_STUDENT_NODES", bcp))
    assert decided and "`__builtin_constant_p`" in decided[0], decided
    with pytest.raises(ValueError, match="is decided by each compiler"):
        build_student_nodes(bcp, name="student_nodes_decided")
    # a header's macro that expands to one (glibc's cdefs.h)
    sized = chosen("__glibc_objsize0(rank_sum) == 8")
    assert "__builtin_" not in sized
    assert same_c.compiler_decided(preprocessed_lines("node_sum", "HL_STUDENT_NODES", sized))
    assert same_c.compiler_decided(preprocessed_lines("node_sum", "HL_STUDENT_NODES", _adds(_GUARDED))) == []


def test_node_sum_cells_with_an_openmp_variant_for_one_compiler_are_refused():
    """Lab 06 (e): attacker V's K3 kept 4/4 twice with the add split into an atomic read and an
    atomic write in a `declare variant` whose selector only gcc matches (vendor(gnu)): the tokens
    are the same for both compilers, gcc's build ran the split add, clang's IR held the base
    function's atomic update. OpenMP's choices by context are refused at their line."""
    from hybridlab.kernels import same_c, split_rmw
    from hybridlab.mapping.exercise import build_student_nodes
    from hybridlab.runs.student_c import preprocessed_lines

    if not split_rmw.clang_present():
        pytest.skip("clang is not installed")
    variant = ("static void add_split(double *to, double v) {\n    double seen;\n#pragma omp atomic read\n"
               "    seen = *to;\n#pragma omp atomic write\n    *to = seen + v;\n}\n"
               "#pragma omp declare variant(add_split) match(implementation = {vendor(gnu)})\n"
               "static void add_into(double *to, double v) {\n#pragma omp atomic\n    *to += v;\n}\n")
    code = _adds("    for (int i = 0; i < n; i++) add_into(&rank_sum[i], mine[i]);")
    code = code.replace("void node_sum(", variant + "void node_sum(", 1)
    assert same_c.preprocessed_apart(code) == []
    decided = same_c.compiler_decided(preprocessed_lines("node_sum", "HL_STUDENT_NODES", code))
    assert decided and "declare variant" in decided[0], decided
    with pytest.raises(ValueError, match="is decided by each compiler"):
        build_student_nodes(code, name="student_nodes_variant")
    meta = code.replace("#pragma omp declare variant(add_split) match(implementation = {vendor(gnu)})\n", "")
    meta = meta.replace("add_into(&rank_sum[i], mine[i]);",
                        "{\n#pragma omp metadirective when(implementation = {vendor(gnu)}: critical) default(atomic)\n"
                        "        rank_sum[i] += mine[i];\n    }", 1)
    assert same_c.compiler_decided(preprocessed_lines("node_sum", "HL_STUDENT_NODES", meta))
