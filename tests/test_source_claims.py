"""Figures the book states about the sources, recomputed from the published tables.

Each test computes a claim from hybridlab.reference (the numbers as printed in the seeds) and
checks that the text says exactly that, so a claim cannot drift from the data it rests on.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hybridlab.reference import REFERENCE

BOOK = Path(__file__).resolve().parents[1] / "book"


def percent(value: float, reference: float) -> str:
    """A signed change in the book's style: '+4.1 %', '-0.2 %'."""
    return f"{(value / reference - 1) * 100:+.1f} %"


@pytest.fixture(scope="module")
def halo_chapter() -> str:
    return " ".join((BOOK / "labs" / "04_halo_exchange.md").read_text().split())


def test_table_2_spread_of_hybrid_against_pure_mpi(halo_chapter):
    table = REFERENCE["003-table-2"].frame
    mpi = table[table.version == "pure MPI"].set_index(["nodes", "schedule"]).seconds
    hybrid = table[table.version != "pure MPI"]
    change = [row.seconds / mpi[(row.nodes, row.schedule)] - 1 for row in hybrid.itertuples()]
    low, high = min(change) * 100, max(change) * 100
    assert f"{low:+.1f} % to {high:+.1f} % of pure MPI".replace("+-", "-") in halo_chapter
    at64 = hybrid[hybrid.nodes == 64]
    static = at64[at64.schedule == "static"].seconds
    guided = at64[at64.schedule == "guided"].seconds
    assert f"{static.min():.2f} to {static.max():.2f} s with `static`" in halo_chapter
    assert f"{guided.min():.2f} to {guided.max():.2f} s with `guided`" in halo_chapter


def test_table_1_one_rank_per_node_and_schedules(halo_chapter):
    table = REFERENCE["003-table-1"].frame
    mpi = float(table[table.version == "pure MPI"].seconds.iloc[0])
    one = table[(table.version == "hybrid 1") & (table.mpi_per_node == 1)].set_index("schedule")
    assert (
        f"{one.seconds['static']:.2f} s with `static` ({percent(one.seconds['static'], mpi)}"
        in halo_chapter
    )
    assert (
        f"{one.seconds['guided']:.2f} s with `guided` ({percent(one.seconds['guided'], mpi)})"
        in halo_chapter
    )
    per_socket = table[(table.mpi_per_node >= 2) & table.schedule.isin(["static", "guided"])]
    worst = max(abs(per_socket.seconds / mpi - 1)) * 100
    assert f"within {worst:.1f} % of pure MPI" in halo_chapter


def test_xt6_best_run_of_each_scheme(halo_chapter):
    a5 = REFERENCE["000-appendix-a5"].frame
    xt6 = a5[(a5.system == "XT6") & (a5.processors == 192)]
    mpi = float(xt6[xt6.scheme == "pure MPI"].total_s.iloc[0])
    for scheme in ("Master Only", "Multiple", "Funnelled", "Funnelled optimal"):
        runs = xt6[xt6.scheme == scheme]
        best = runs.loc[runs.total_s.idxmin()]
        threads = int(best.threads)
        unit = "thread" if threads == 1 else "threads"
        assert f"({threads} {unit}, {percent(best.total_s, mpi)})" in halo_chapter, scheme


def test_funnelled_halo_above_master_only(halo_chapter):
    a5 = REFERENCE["000-appendix-a5"].frame
    xt6 = a5[(a5.system == "XT6") & (a5.processors == 192)].set_index(["scheme", "threads"])
    for threads in (8, 24):
        funnelled = xt6.halo_s[("Funnelled", threads)]
        master = xt6.halo_s[("Master Only", threads)]
        assert funnelled > 1.5 * master
    assert (
        f"{xt6.halo_s[('Funnelled', 8)]:.2f} s and at 24 threads {xt6.halo_s[('Funnelled', 24)]:.2f} s"
        in halo_chapter
    )


def test_rectangular_speedups_and_design_target(halo_chapter):
    table = REFERENCE["003-table-3"].frame
    best = table.loc[table.speedup.idxmax()]
    assert f"hybrid 3 by {best.speedup:.2f} with `{best.schedule}`" in halo_chapter
    assert "fewer messages of the same length" in halo_chapter
    assert "fewer, larger messages" not in halo_chapter.replace("not larger ones", "")


def test_master_only_halo_growth_against_face_areas(halo_chapter):
    """Book 04 (exercise c): 24 x 4 x 2 processes of 144^3 on the XT6, threads replace processes
    along X; at 24 threads one process sends 16 times pure MPI's face points, while A.23's halo
    time grew 23.9 times."""
    a23 = (
        REFERENCE["000-appendix-a5"].frame.query("table == 'A.23'").set_index(["scheme", "threads"])
    )
    pure, mo24 = a23.halo_s[("pure MPI", 1)], a23.halo_s[("Master Only", 24)]

    def faces(t):  # an interior process: two faces along each axis with more than one process
        lx, ly, lz = 144 * t, 144, 144
        return (2 * ly * lz if 24 // t > 1 else 0) + 2 * lx * lz + 2 * lx * ly

    assert faces(24) / faces(1) == 16
    assert f"{pure:.3f} s" in halo_chapter
    assert (
        f"16 times the data at 24 threads against {mo24 / pure:.1f} times the time" in halo_chapter
    )
