"""MPI engines: kernels in-process, placement, crash and hang recovery, clean stop."""

import importlib
import time

import pytest
from ipyparallel import error as ipp_error
from ipyparallel import interactive as ipp_interactive

import hybridlab as hl
from conftest import LIBRARY_NAMES, mpi_leftovers, venv_mpi
from faulty_kernels import CRASH, HANG
from hybridlab.engines import controller
from hybridlab.engines.engine import DEFERRED_INITS, getenv, identity
from hybridlab.machine import reaper
from hybridlab.machine.placement import MPICH_THROTTLE, OPENMPI_THROTTLE

THROTTLE = {"mpich": MPICH_THROTTLE, "openmpi": OPENMPI_THROTTLE}


@pytest.fixture(scope="module")
def cluster():
    with hl.Cluster(ranks=2, threads=1, timeout=60) as c:
        yield c
    assert mpi_leftovers(c.tag) == []


def test_kernels_run_in_every_engine_and_records_say_where(cluster):
    res = cluster.run("hello_hybrid", spin_ms=1)
    assert list(res.records["rank"]) == [0, 1]
    assert set(res.records["thread_level"]) == {"funneled"}
    assert res.meta["run_by"] == "engines" and res.meta["placement"].startswith(
        "2 ranks x 1 threads"
    )
    assert res.meta["mpi_library"].startswith(LIBRARY_NAMES[venv_mpi()])
    assert {"before", "after"} <= res.meta["probe"].keys()
    assert [r["rank"] for r in res.meta["ranks"]] == [0, 1]


def test_apply_returns_results_in_rank_order(cluster):
    assert [e["rank"] for e in cluster.apply(identity)] == [0, 1]
    assert cluster.apply(getenv, "OMP_NUM_THREADS") == ["1", "1"]


def test_engines_say_who_they_are_in_files_or_when_asked(cluster):
    # the module's cluster identified its engines from the files they wrote once registered
    assert cluster.engines == cluster.apply(identity)
    asking = hl.Cluster(ranks=2, threads=1, timeout=60)
    asking.identity_files = False  # start() asks every engine instead
    with asking:
        assert [e["rank"] for e in asking.engines] == [0, 1]
        assert asking.engines == asking.apply(identity)


@ipp_interactive
def _loaded_modules() -> list[str]:
    import sys

    return sorted(sys.modules)


@ipp_interactive
def _deferred_names() -> list[str]:
    """What code on an engine gets from the packages whose __init__ the engine deferred."""
    import ipyparallel
    import jupyter_client

    return [
        ipyparallel.Client.__module__,
        ipyparallel.Cluster.__module__,
        ipyparallel.__version__,
        jupyter_client.KernelManager.__module__,
        jupyter_client.write_connection_file.__module__,
    ]


NEVER_IN_AN_ENGINE = (  # what an engine does not use (engine.import_engine_app)
    "debugpy",
    "pydevd",
    "ipyparallel.client.client",
    "ipyparallel.cluster",
    "jupyter_client.manager",
    "jupyter_client.provisioning",
)


def test_a_fresh_engine_imported_only_what_it_uses_and_the_rest_on_first_use():
    """What keeps an engine's start short (benchmarks/engine_start_results.md): ipykernel's
    debugger (debugpy, pydevd), ipyparallel's client and cluster launchers and jupyter_client's
    kernel managers not imported, and of the kit only the engine's module; code on the engine
    that uses them gets them all the same."""
    with hl.Cluster(ranks=2, threads=1, timeout=60) as fresh:
        for loaded in fresh.apply(_loaded_modules):
            assert not [m for m in loaded if m.startswith(NEVER_IN_AN_ENGINE)]
            kit = {m for m in loaded if m.split(".")[0] == "hybridlab"}
            assert kit <= {"hybridlab", "hybridlab.engines", "hybridlab.engines.engine"}
            assert "ipyparallel.engine.app" in loaded  # an ipyparallel engine all the same
        assert [e["rank"] for e in fresh.apply(identity)] == [0, 1]  # the kit's calls still run
        assert fresh.apply(_deferred_names) == [_deferred_names()] * 2  # as in this process


def test_the_names_an_engine_takes_before_a_package_init_runs_are_the_packages_own():
    """An engine takes the names of DEFERRED_INITS from the submodules that define them: the
    same objects as the package's own __init__ gives (run here), so an upgrade of ipyparallel
    or jupyter_client that moves one fails this test."""
    for package, sources in DEFERRED_INITS.items():
        for attr, source in sources.items():
            own = getattr(importlib.import_module(package), attr)
            assert own is getattr(importlib.import_module(f"{package}.{source}"), attr)


def test_unknown_parameters_are_refused_before_anything_runs(cluster):
    with pytest.raises(ValueError, match="no parameter spin"):
        cluster.run("hello_hybrid", spin=1)
    assert cluster.running


def test_a_crash_names_the_rank_and_one_call_restarts(cluster):
    with pytest.raises(hl.KernelCrash, match="rank 1 died while running kernel 'crash'") as caught:
        cluster.run(hl.build_source("crash", CRASH), timeout=60)
    assert caught.value.rank == 1
    assert not cluster.running and "rank 1 died" in repr(cluster)
    with pytest.raises(hl.ClusterNotRunning, match="call cluster.restart()"):
        cluster.run("hello_hybrid")
    assert mpi_leftovers(cluster.tag) == []
    cluster.restart()
    assert list(cluster.run("hello_hybrid", spin_ms=0).records["rank"]) == [0, 1]


@ipp_interactive  # sent by value: the engines cannot import this test module
def _nap(folder: str, seconds: float) -> None:
    import os
    import time

    open(os.path.join(folder, str(os.getpid())), "w").close()
    time.sleep(seconds)


def test_an_interrupt_reaches_busy_engines_as_px_sends_it(cluster, tmp_path):
    """%%px answers a KeyboardInterrupt with client.send_signal(SIGINT): without ipyparallel's
    nanny, each engine answers that request itself, from its control thread."""
    busy = cluster.view.apply_async(_nap, str(tmp_path), 600)
    deadline = time.monotonic() + 300  # a bound, not a timing: a loaded machine starts it late
    while len(list(tmp_path.iterdir())) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)  # until every engine runs it (an idle engine ignores SIGINT)
    assert len(list(tmp_path.iterdir())) == 2, "both engines must be napping before the interrupt"
    cluster.client.send_signal("SIGINT", targets=cluster.view.targets, block=True)
    with pytest.raises(ipp_error.CompositeError, match="KeyboardInterrupt"):
        busy.get(timeout=300)  # the nap lasts 600 s: only the interrupt ends it within 300
    assert cluster.apply(getenv, "OMP_NUM_THREADS") == ["1", "1"]  # the engines live on


def test_a_hang_times_out_and_leaves_nothing_behind(cluster):
    with pytest.raises(hl.KernelTimeout, match="kernel 'hang' did not finish within 2 s"):
        cluster.run(hl.build_source("hang", HANG), timeout=2)
    assert mpi_leftovers(cluster.tag) == []
    cluster.restart()
    assert cluster.apply(getenv, "OMP_NUM_THREADS") == ["1", "1"]


def test_oversubscribed_engines_are_throttled_and_warned_about():
    threads = len(hl.read_topology().usable)
    with hl.Cluster(ranks=2, threads=threads, thread_level="multiple") as c:
        res = c.run("hello_hybrid", spin_ms=0)
        (name, value), *_ = THROTTLE[venv_mpi()].items()
        throttle = c.apply(getenv, name)
    assert throttle == [value, value]
    assert any(w.startswith("oversubscribed") for w in res.warnings)
    assert set(res.records["thread_level"]) == {"multiple"}
    assert len(res.records) == 2 * threads
    assert mpi_leftovers(c.tag) == []


def test_bad_placements_fail_before_launch():
    with pytest.raises(hl.PlacementError, match="threads must be"):
        hl.Cluster(ranks=2, threads=0)
    with pytest.raises(ValueError, match="thread_level must be one of"):
        hl.Cluster(thread_level="lots")
    with pytest.raises(hl.PlacementError, match="needs a CPU for each"):
        hl.Cluster(ranks=64, threads=64, bind="cores")


def test_clusters_borrow_the_warm_controller_and_a_second_one_gets_its_own(cluster):
    with hl.Cluster(ranks=1) as other:  # `cluster` holds the warm controller meanwhile
        assert other.apply(getenv, "OMP_NUM_THREADS") == ["1"]
        assert cluster.apply(getenv, "OMP_NUM_THREADS") == ["1", "1"]
    assert mpi_leftovers(other.tag) == []
    cluster.stop()
    cluster.start()  # the warm controller was kept: only engines start
    assert [name for name, _ in cluster.start_steps][0] == "mpiexec launched (warm controller)"
    assert [e["rank"] for e in cluster.apply(identity)] == [0, 1]


def test_engines_deferred_by_the_grader_start_when_something_needs_them(monkeypatch):
    monkeypatch.setenv(controller.ENGINES_ENV, controller.ON_FIRST_USE)
    unused = hl.Cluster(ranks=2, threads=1, timeout=60).start()
    assert unused.running and reaper.tagged(unused.tag) == []
    unused.stop()  # nothing was launched, nothing to stop
    assert not unused.running and "stopped" in repr(unused)
    for first_use in (lambda c: c.engines, lambda c: c.view, lambda c: c.apply(identity)):
        cluster = hl.Cluster(ranks=2, threads=1, timeout=60).start()
        assert reaper.tagged(cluster.tag) == []
        first_use(cluster)
        assert [e["rank"] for e in cluster.engines] == [0, 1] and cluster.view is not None
        assert cluster.apply(getenv, "OMP_NUM_THREADS") == ["1", "1"]
        cluster.stop()
        assert mpi_leftovers(cluster.tag) == []


@pytest.mark.parametrize(
    "source, deferred",
    [
        ("cluster.start()\nres = cluster.run('hello_hybrid')", True),
        ("share = 5 % parts", True),
        ("%px print(rank)", False),
        ("%%px --block\nx = 1", False),
        ("%autopx", False),
        ("get_ipython().run_cell_magic('px', '', 'x = 1')", False),
        ("if ready:\n    %px x = 1", False),
        ("get_ipython().run_cell('%px x = 1')", False),  # a string may be a cell that runs
        ("cluster.view.activate()  # %%px talks to the lab's cluster again", True),
        ("# %px print(rank): a comment runs no magic", True),
        (
            '{"cells": [{"cell_type": "markdown", "source": ["talk to them with `%%px`"]}, '
            '{"cell_type": "code", "source": ["x = 1  # %px\\n", "y = 2"]}]}',
            True,
        ),
        ('{"cells": [{"cell_type": "code", "source": ["%%px\\n", "x = 1"]}]}', False),
    ],
)
def test_only_notebooks_without_parallel_magics_defer_their_engines(source, deferred):
    assert controller.may_defer_engines(source) is deferred


def test_the_labs_that_use_parallel_magics_are_not_deferred():
    from hybridlab.paths import labs_dir

    deferred = {
        p.stem[:2]: controller.may_defer_engines(p.read_text()) for p in labs_dir().glob("*.ipynb")
    }
    assert deferred["00"] is False  # its %%px cells
    # lab 01 names %%px only in comments: its engines too start at their first use
    assert all(deferred[lab] for lab in ("01", "02", "03", "04", "05", "06", "07", "08", "09"))


def test_a_hub_slow_to_answer_is_waited_for_past_ipyparallels_ten_seconds():
    """CI (stop 61): on a loaded machine a hub took more than ipyparallel's default 10 s to answer
    a new client ("Hub connection request timed out"); the client waits at least MIN_HUB_WAIT."""
    import signal
    import threading

    slow = controller.Controller(controller._environment(None), warm=False)  # noqa: SLF001 - as acquire() makes one
    try:
        deadline = time.monotonic() + 60
        while not controller._complete_json(slow.client_file) and time.monotonic() < deadline:  # noqa: SLF001
            time.sleep(0.05)
        slow.process.send_signal(signal.SIGSTOP)  # a hub that answers nothing for 12 s
        threading.Timer(12, slow.process.send_signal, (signal.SIGCONT,)).start()
        client = slow.connect(timeout=1)
        assert client.ids == []  # connected: the hub answered once it ran again
    finally:
        slow.process.send_signal(signal.SIGCONT)
        slow.stop()
