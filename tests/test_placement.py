import pytest

from hybridlab.machine.placement import MPICH_THROTTLE, Placement, PlacementError


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"ranks": 0}, "ranks must be a whole number of at least 1, not 0"),
        ({"threads": -2}, "threads must be a whole number of at least 1, not -2"),
        ({"threads": "2"}, "not '2'"),
        ({"threads": True}, "not True"),
        ({"ranks": 1.5}, "not 1.5"),
        ({"bind": "socket"}, "bind must be one of 'none', 'cores', 'spread', 'one-core'"),
    ],
)
def test_bad_parameters_are_refused_with_a_clear_message(kwargs, message):
    with pytest.raises(PlacementError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Placement(**kwargs)


def test_binding_more_threads_than_cpus_is_refused_before_launch():
    with pytest.raises(PlacementError, match="needs a CPU for each of the 2 x 2 = 4 threads"):
        Placement(2, 2, "cores").check_fits(2)
    with pytest.raises(PlacementError, match="needs a CPU for each of the 3 ranks"):
        Placement(3, 1, "one-core").check_fits(2)
    Placement(4, 4, "none").check_fits(2)  # unbound may oversubscribe
    Placement(2, 4, "one-core").check_fits(2)  # threads share their rank's core by design


def test_mpich_flags_bind_each_rank_to_its_threads_cores():
    assert Placement(2, 3, "cores").launcher_args("mpich") == [
        "-bind-to",
        "core:3",
        "-map-by",
        "core:3",
    ]
    assert Placement(2, 3, "one-core").launcher_args("mpich") == [
        "-bind-to",
        "core",
        "-map-by",
        "core",
    ]
    assert Placement(2, 3, "none").launcher_args("mpich") == []


def test_open_mpi_flags_give_each_rank_threads_cores_and_allow_oversubscription():
    args = Placement(2, 4, "cores").launcher_args("openmpi")
    assert args[:1] == ["--oversubscribe"]
    assert ["--map-by", "slot:PE=4", "--bind-to", "core"] == args[1:]
    assert Placement(2, 4, "none").launcher_args("openmpi") == [
        "--oversubscribe",
        "--bind-to",
        "none",
    ]


def test_srun_flags_give_each_rank_its_cpus_and_bind_them_as_asked():
    one_node = ["--nodes=1", "--ntasks-per-node=2"]
    assert Placement(2, 3, "cores").srun_args() == [
        *one_node, "--cpus-per-task", "3", "--cpu-bind=cores", "--distribution=block:block",
    ]  # fmt: skip
    assert Placement(2, 3, "spread").srun_args()[-1] == "--distribution=block:cyclic"
    # one-core: one CPU per rank, its threads share it
    assert Placement(2, 3, "one-core").srun_args() == [
        *one_node, "--cpus-per-task", "1", "--cpu-bind=cores",
    ]  # fmt: skip
    # unbound ranks may share CPUs, as with mpiexec
    assert Placement(3, 2, "none").srun_args() == [
        "--nodes=1", "--ntasks-per-node=3", "--cpus-per-task", "2", "--cpu-bind=none",
        "--overcommit",
    ]  # fmt: skip


def test_ranks_are_the_total_spread_evenly_over_the_nodes():
    placement = Placement(4, 2, "cores", nodes=2)
    assert placement.ranks_per_node == 2
    assert placement.srun_args()[:2] == ["--nodes=2", "--ntasks-per-node=2"]
    assert placement.label == "4 ranks x 2 threads, bind=cores, on 2 nodes"
    placement.check_fits(4)  # 2 ranks x 2 threads on each node: fits a 4-CPU node
    with pytest.raises(PlacementError, match="4 threads per node"):
        Placement(4, 2, "cores", nodes=2).check_fits(2)
    with pytest.raises(ValueError, match="must divide by nodes: 3 ranks"):
        Placement(3, 1, nodes=2)
    with pytest.raises(PlacementError, match="nodes must be a whole number"):
        Placement(2, 1, nodes=0)


def test_openmp_environment_follows_the_binding():
    assert Placement(1, 2, "none").environment("mpich", 8) == {
        "OMP_NUM_THREADS": "2",
        "OMP_PROC_BIND": "false",
    }
    env = Placement(1, 2, "spread").environment("mpich", 8)
    assert (env["OMP_PLACES"], env["OMP_PROC_BIND"]) == ("cores", "spread")
    env = Placement(1, 2, "cores").environment("mpich", 8)
    assert (env["OMP_PLACES"], env["OMP_PROC_BIND"]) == ("cores", "close")


def test_oversubscription_throttles_busy_polling_and_warns():
    p = Placement(4, 1, "none")
    assert p.oversubscribed(2)
    env = p.environment("mpich", 2)
    assert MPICH_THROTTLE.items() <= env.items()
    assert p.environment("openmpi", 2)["OMPI_MCA_mpi_yield_when_idle"] == "1"
    assert "4 ranks x 1 threads = 4 on 2 usable CPUs" in p.oversubscription_warning(2)
    assert not MPICH_THROTTLE.keys() & Placement(2, 1).environment("mpich", 2).keys()
    assert Placement(2, 1).oversubscription_warning(2) is None


def test_the_placement_owns_the_thread_level_for_both_run_paths():
    funneled = Placement(2, 1)  # engines' default
    assert funneled.thread_level == "funneled"
    env = funneled.engine_environment("mpich", 2)
    assert env["MPI4PY_RC_THREAD_LEVEL"] == "funneled"
    assert env.items() >= funneled.environment("mpich", 2).items()
    assert funneled.program_arguments() == ["--thread-level=funneled"]
    own_choice = Placement(2, 1, thread_level=None)  # run_program's default: no flag at all
    assert own_choice.program_arguments() == []
    assert "MPI4PY_RC_THREAD_LEVEL" not in own_choice.engine_environment("mpich", 2)
    with pytest.raises(PlacementError, match="thread_level must be one of single, funneled"):
        Placement(thread_level="lots")
