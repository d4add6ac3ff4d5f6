"""Lab 15's judging, from the "offload" and "checksum" records of kernels_c/offload_halo.c: the
faults a graded loop is held to, and the checksums a right answer gives. Reads results only
(the bytes per iteration are (a)'s, the student's to compute: nothing here computes them).

The kernel sums the runtime's copies in three windows per rank: before the first target region
launched (the data region's entry and iteration 1's updates), between the first and the last
launch (iterations 2..K: what the loop moves every iteration), and after the last (the exit).
"""

from __future__ import annotations

import pandas as pd

from ..halo.serial import jacobi2d_grid

HALO_ROWS = 2  # rows each way per iteration: two edge rows out, two halo rows in


SCALARS = 16  # bytes of scalars each way an iteration may move beside the halo (a residual)
# what a rank's device may hold (device_bytes): u and unew and one more array of the block's size
# (a scratch array), the halo's rows (a buffer for them) and DEVICE_SCALARS bytes of scalars
BLOCK_ARRAYS = 3
DEVICE_SCALARS = 128


def transfer_faults(offload: pd.DataFrame, iterations: int) -> list[str]:
    """What a graded loop did wrong by the runtime's report, one message per fault and rank
    (empty: right). Held to: the report read; target regions launched on the rank's own device,
    at least one per iteration; after the first launch no copy larger than the halo's rows
    (the data region held, no whole-block map or update); each way, no more than the halo's
    bytes per iteration after the first and 16 bytes of scalars (a residual); the block's rows
    copied to the device before the first launch and back from it after the last (the result
    is the device's: a sweep on the host beside empty target regions leaves the device's block
    stale), and after the last launch no
    more than the halo's rows copied to the device; before the first launch no more copied to
    it than u, unew and the halo's rows (not a grid computed ahead on the host), and of it no
    more than DEVICE_SCALARS bytes that are not u's or unew's as the kit handed them
    (h2d_not_handed: a grid swept on the host and mapped in); the device's copy of the block,
    read by the kit before each of the loop's MPI calls and each map, update and target region,
    seen to reach the grid of every iteration in an array a target region stored into since the
    grid before, the last one too before it is copied back (device_iterations: every sweep ran
    on the device);
    the device's copy, its other mappings, its declare target data and the device image
    unchanged between the runtime's maps, updates and launches (host_writes: the host wrote it
    through a device address it took out of a target region); no point of the copy, another
    mapping or a declare target variable changed by a launch where the launch's code stored
    nothing (launch_writes: the host writing it while a launch ran); no load, store or memcpy of
    the target regions'
    code outside the device data environment (device_strays: a host address handed in); no more
    than one row's bytes an iteration carried by value into the launches (literal_bytes: the
    bytes of firstprivate scalars passed as literal arguments, and num_teams/thread_limit, each
    value changed since the same region's last launch counted whole, and a byte a launch: a grid
    the host computed, carried in as scalars); the halo row of every iteration before the last
    received by MPI from each neighbour (halo_above, halo_below: messages from the rank above or
    below holding this rank's halo row as the grid of that iteration; a rank that computes its
    neighbours' rows itself receives none); the rank's device holding no more than BLOCK_ARRAYS
    arrays of the block's size, the halo's rows and DEVICE_SCALARS bytes (device_bytes: not the
    whole grid); no map, update or target region made while another host thread of the cell's could
    run (parallel_operations: from inside a host parallel region, or a nowait construct's task off
    the cell's thread)."""
    faults = []
    for _, row in offload.iterrows():
        rank, halo = int(row["rank"]), HALO_ROWS * int(row["row_bytes"])
        if not int(row["report"]):
            faults.append(f"rank {rank}: the offload runtime's report was not read")
            continue
        block = int(row["rows"]) * int(row["row_bytes"])
        if int(row["h2d_before"]) < block:
            faults.append(f"rank {rank}: {int(row['h2d_before'])} bytes copied to the device before "
                          f"the first target region, less than the block's {block} (the sweep "
                          "works on the block on the device: map it there first)")
        arrays = 2 * (int(row["rows"]) + 2) * int(row["row_bytes"]) + halo
        if int(row["h2d_before"]) > arrays:
            faults.append(f"rank {rank}: {int(row['h2d_before'])} bytes copied to the device before "
                          f"the first target region, more than u's and unew's with the halo's "
                          f"rows ({arrays}): target regions compute the grid, it is not copied "
                          "there")
        foreign = row.get("h2d_not_handed", -1)
        foreign = int(foreign) if foreign == foreign else -1  # NaN: a record without the watch
        if foreign > DEVICE_SCALARS:
            faults.append(f"rank {rank}: of what was copied to the device before the first target "
                          f"region, {foreign} bytes were not u's or unew's as the kit handed them "
                          "(the grid's start): map the block as it comes, and let target regions "
                          "make every sweep (a grid swept on the host and mapped in is not the "
                          "device's)")
        seen = int(row.get("device_iterations", -1))
        if seen < iterations:
            faults.append(f"rank {rank}: the device's copy of the block (u or unew, read by the kit "
                          "before each of your MPI calls and each map, update and target region) "
                          f"was seen to reach the grid of "
                          f"{max(seen, 0)} of the {iterations} iterations: every sweep runs on the "
                          "device, the last one too, before the block is copied back (a sweep on "
                          "the host, in a copy of its own or after the copy back, leaves the "
                          "device's copy behind)")
        wrote = row.get("host_writes", 0)
        wrote = int(wrote) if wrote == wrote else 0  # NaN: a record without the watch
        if wrote > 0:
            faults.append(f"rank {rank}: the device's memory (its copy of u or unew, another "
                          f"mapping, its declare target data) changed {wrote} time(s) while "
                          "no map, update or target region ran (the kit reads it after each and "
                          "before the next): the host wrote the device's memory itself, through a "
                          "device address taken out of a target region (a mapped pointer or "
                          "integer, a union, a mapped structure, a slot written through "
                          "firstprivate); the block moves by map clauses and target update only, "
                          "and only target regions compute in it")
        during = row.get("launch_writes", 0)
        during = int(during) if during == during else 0
        if during > 0:
            faults.append(f"rank {rank}: after {during} launch(es) the device's memory (its copy "
                          "of u or unew, another mapping, its declare target variables) "
                          "had changed at points the target region's own code never stored to "
                          "(the kit checks every store of the device's code): the host wrote the "
                          "device's memory while a launch ran (another host thread, a nowait "
                          "region), through a device address taken out of a target region; only "
                          "target regions compute in the device's copy")
        strays = row.get("device_strays", 0)
        strays = int(strays) if strays == strays else 0  # NaN: a record without the check
        if strays > 0:
            faults.append(f"rank {rank}: the target regions' code reached memory outside the "
                          f"device data environment {strays} time(s) (the kit checks every load, "
                          "store and memcpy of the device's code against what the launches map, "
                          "the device's own frames and its declare target data): a host address "
                          "handed into a target region (an integer or pointer, firstprivate or in "
                          "mapped memory) reads the host's memory, not the device's; the device "
                          "works on what map clauses put there")
        carried = row.get("literal_bytes", -1)
        carried = int(carried) if carried == carried else -1  # NaN: a record without the watch
        if carried > int(row["row_bytes"]) * iterations:
            faults.append(f"rank {rank}: the target regions' launches carried {carried} bytes by "
                          f"value in {iterations} iterations, more than one row's "
                          f"{int(row['row_bytes'])} bytes an iteration (the kit counts the bytes of "
                          "each launch's literal arguments, firstprivate scalars passed by value, "
                          "and num_teams/thread_limit, each value that changed since the same "
                          "region's last launch counted whole, and a byte a launch): values passed by value are data moved to "
                          "the device, past the runtime's report; the grid moves by map clauses "
                          "and target update only, and target regions compute it")
        for side, name in (("above", "the rank above"), ("below", "the rank below")):
            got = row.get(f"halo_{side}", -1)
            got = int(got) if got == got else -1  # NaN: a record without the watch; -1: no neighbour
            if 0 <= got < iterations - 1:
                faults.append(f"rank {rank}: the halo row from {name} arrived by MPI for {got} of "
                              f"the first {iterations - 1} iterations (the kit reads every message "
                              "the rank receives as it completes, for the neighbour's edge row as "
                              "the grid of that iteration): each iteration's halo rows travel "
                              "from the neighbours by MPI (exchange_rows, or your own "
                              "point-to-point calls), not computed by the rank itself")
        held = row.get("device_bytes", -1)
        held = int(held) if held == held else -1
        limit = BLOCK_ARRAYS * (int(row["rows"]) + 2) * int(row["row_bytes"]) + halo + DEVICE_SCALARS
        if held > limit:
            faults.append(f"rank {rank}: the device held {held} bytes of your mappings and declare "
                          f"target data, more than {limit} ({BLOCK_ARRAYS} arrays of the block's "
                          f"size, the halo's rows and {DEVICE_SCALARS} bytes of scalars): a rank "
                          "holds its block and its halo, not the whole grid")
        threads = row.get("parallel_operations", -1)
        threads = int(threads) if threads == threads else -1
        if threads > 0:
            faults.append(f"rank {rank}: {threads} map(s), update(s) or target region(s) made "
                          "while another host thread of yours could run (from inside a host "
                          "parallel region, or a nowait construct's task run off jacobi_offload's "
                          "thread): another host thread could write the device's memory while the "
                          "runtime or a region works in it; make them from jacobi_offload's own "
                          "thread, outside host parallel regions, and without nowait")
        if int(row["d2h_after"]) < block:
            faults.append(f"rank {rank}: {int(row['d2h_after'])} bytes copied back from the device "
                          f"after the last target region, less than the block's {block} (the "
                          "result is the device's: map it back at the data region's end)")
        if int(row["h2d_after"]) > halo:
            faults.append(f"rank {rank}: {int(row['h2d_after'])} bytes copied to the device after "
                          f"the last target region, more than the halo's {halo} (the result "
                          "must be computed on the device, not copied there)")
        if int(row["launches"]) < iterations:
            faults.append(f"rank {rank}: {int(row['launches'])} target regions ran on a device "
                          f"in {iterations} iterations (the sweep runs on the device)")
        if int(row["foreign"]):
            faults.append(f"rank {rank}: the report names a device other than {int(row['device'])}")
        if int(row["largest_between"]) > halo:
            faults.append(f"rank {rank}: a copy of {int(row['largest_between'])} bytes after the "
                          f"first iteration, more than the halo's {halo} (the grid must stay on "
                          "the device)")
        for way in ("h2d", "d2h"):  # (a launch's own always-to copies of iteration 1 fall after
            # the first launch began: one halo more to the device), and SCALARS bytes an iteration
            # (a residual's reduction variable, mapped to and from each launch)
            moved = int(row[f"{way}_between"])
            allowed = halo * (iterations if way == "h2d" else iterations - 1) + SCALARS * iterations
            if moved > allowed:
                faults.append(f"rank {rank}: {moved} bytes {way} after the first iteration, more "
                              f"than {allowed} (the halo's rows and {SCALARS} bytes of scalars an "
                              "iteration only)")
    return faults


def expected_checksums(nx: int, ny: int, iterations: int) -> tuple[float, float]:
    """What the kernel's rank 0 writes in its "checksum" record for a right answer: the
    interior's sum and its weighted sum (weights 1 + (3 i + 5 j) mod 11), from a numpy sweep."""
    u, _ = jacobi2d_grid(nx, ny, iterations)
    i = pd.RangeIndex(ny + 2).to_numpy()[:, None]
    j = pd.RangeIndex(nx + 2).to_numpy()[None, :]
    inner = (slice(1, -1), slice(1, -1))
    return float(u[inner].sum()), float((u * (1 + (3 * i + 5 * j) % 11))[inner].sum())
