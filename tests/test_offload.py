"""Lab 15's offload, for real: clang's host-plugin devices (memory of their own), the offload
runtime's report read by the kernel, the grader's rules on it, the student's object checked as
host and device code (and for (b): no device address on the host, the sweep on the device), and
the lab without clang."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import nbformat
import pandas as pd
import pytest

import hybridlab as hl
from gaming import source_of
from hybridlab.course import notebooks
from hybridlab.kernels.offload import probe
from hybridlab.offload import exercise as offload_exercise
from hybridlab.offload.exercise import (
    build_student_offload,
    device_code_refusals,
    run_student_offload,
    variant_runs,
)
from hybridlab.offload.tables import HALO_ROWS, expected_checksums, transfer_faults
from solutions_c import OFFLOAD_RESIDENT

ROOT = Path(__file__).resolve().parents[1]
NX, NY, ITERATIONS = 40, 18, 6


needs_offload = pytest.mark.skipif(not probe().ready, reason=f"no offload target: {probe().message}")


def _offload(res: hl.Results) -> pd.DataFrame:
    return res.records.query("record == 'offload'").dropna(axis=1, how="all")


def _checksum(res: hl.Results) -> float:
    return float(res.records.query("record == 'checksum'")["checksum"].iloc[0])


def test_without_clang_the_probe_says_what_to_install(monkeypatch, tmp_path):
    from hybridlab.kernels import toolchain

    monkeypatch.setattr(toolchain, "AT_IMPORT", (("PATH", str(tmp_path)),))  # the kit's PATH
    found = probe.__wrapped__()
    assert not found.ready and found.devices == 0
    assert "no clang on PATH" in found.message and "libomp-14-dev" in found.message


@needs_offload
def test_the_host_plugin_gives_devices_whose_memory_is_not_the_hosts():
    found = probe()
    assert found.devices >= 1 and found.off_host
    runs = variant_runs(NX, NY, ITERATIONS)
    want = expected_checksums(NX, NY, ITERATIONS)
    for name in ("resident", "remap", "host"):
        assert abs(_checksum(runs[name]) - want[0]) <= 1e-9 * abs(want[0]), name
    # without `target update to` the device never sees the halo the host received
    assert abs(_checksum(runs["stale"]) - want[0]) > 1e-6
    for rank, row in _offload(runs["resident"]).set_index("rank").iterrows():
        assert int(row["device"]) == rank % int(row["devices"])
        halo = HALO_ROWS * int(row["row_bytes"])
        assert int(row["h2d_between"]) == int(row["d2h_between"]) == halo * (ITERATIONS - 1)
        assert int(row["launches"]) == 2 * ITERATIONS and int(row["foreign"]) == 0
        assert int(row["largest_between"]) == halo // HALO_ROWS
    block = (int(_offload(runs["remap"])["rows"].max()) + 2) * int(_offload(runs["remap"])["row_bytes"].iloc[0])
    assert (_offload(runs["remap"])["largest_between"] >= block).all()
    assert (_offload(runs["host"])["launches"] == 0).all()
    # the kit's variants are not watched (device_iterations -1): the student's is
    watched = _offload(runs["resident"]).assign(device_iterations=ITERATIONS)
    assert (_offload(runs["resident"])["device_iterations"] == -1).all()
    assert transfer_faults(watched, ITERATIONS) == []
    assert any("stay on the device" in f for f in transfer_faults(_offload(runs["remap"]), ITERATIONS))
    assert any("ran on a device" in f for f in transfer_faults(_offload(runs["host"]), ITERATIONS))


def test_the_rules_on_the_report_name_each_fault():
    right = {"rank": 0, "device": 0, "report": 1, "row_bytes": 100, "launches": 20, "foreign": 0,
             "largest_between": 100, "h2d_between": 1800, "d2h_between": 1800, "rows": 8,
             "h2d_before": 2000, "d2h_after": 1000, "h2d_after": 200, "device_iterations": 10,
             "halo_above": 9, "halo_below": -1, "device_bytes": 3328, "parallel_operations": 0}
    assert transfer_faults(pd.DataFrame([right]), 10) == []
    # a residual's reduction variable, 8 bytes each way an iteration beside the halo (a right
    # answer of fixer f21's, 2026-12-05): no fault
    assert transfer_faults(pd.DataFrame([{**right, "h2d_between": 2080, "d2h_between": 1880}]), 10) == []
    cases = {
        "was not read": {"report": 0},
        "ran on a device": {"launches": 9},
        "other than 0": {"foreign": 3},
        "stay on the device": {"largest_between": 201},
        # (one halo more to the device than back: the first launch's own always-to copies fall
        # after it began, r15d)
        "h2d after the first iteration": {"h2d_between": 2161},
        "d2h after the first iteration": {"d2h_between": 5000},
        # the sweep on the host beside empty target regions (a fresh attacker's 6 points)
        "before the first target region": {"h2d_before": 4},
        "back from the device": {"d2h_after": 799},
        "must be computed on the device": {"h2d_after": 201},
        # a grid computed ahead on the host and copied before the first launch (u, unew: 2 x 10
        # rows, and two halo rows)
        "more than u's and unew's": {"h2d_before": 2201},
        # the sweep on the host in a copy of the block, the device's copy left behind (a fresh
        # attacker's 6 points, helperG)
        "seen to reach the grid of 3 of the 10": {"device_iterations": 3},
        # the last sweep on the host after the copy back (A8's K4, 6/6 twice, 2026-12-07)
        "seen to reach the grid of 9 of the 10": {"device_iterations": 9},
        # the first sweeps on the host, mapped in with the block (A8's K5, 6/6 twice, 2026-12-07)
        "were not u's or unew's as the kit handed them": {"h2d_not_handed": 129},
        # the host writing the device's copy through an address taken out of a target region
        # (mapped pointers, a slot written through firstprivate): the kit's watch on the copy
        "while no map, update or target region ran": {"host_writes": 2},
        # the host writing it while a launch ran, and a target region reading the host's memory
        # (fixer helper-f2, 2026-12-04): the kit's check of the device's code
        "while a launch ran": {"launch_writes": 1},
        "outside the device data environment": {"device_strays": 5},
        # the host's grid carried into target regions as by-value firstprivate scalars (a fresh
        # attacker, attackG's G15a3): more than a row's bytes an iteration
        "bytes by value in 10 iterations": {"literal_bytes": 1001},
        # no halo exchanged: every rank sweeping the whole grid on its device, one MPI_Barrier an
        # iteration (attackS's A15_nohalo, 6/6 twice, 2026-12-05): no halo row arrived by MPI from
        # a neighbour, and the device held the whole grid (3 arrays of 10 rows, 2 rows, 128 bytes)
        "from the rank above arrived by MPI for 3 of the first 9": {"halo_above": 3},
        "from the rank below arrived by MPI for 0 of the first 9": {"halo_below": 0},
        "more than 3328": {"device_bytes": 3329},
        # a host thread writing the device's memory while a target region launched from a host
        # parallel region waited (attackS's A15_x87_hostthread3, 6/6 twice, 2026-12-05)
        "made while another host thread of yours could run": {"parallel_operations": 1},
    }
    for words, change in cases.items():
        faults = transfer_faults(pd.DataFrame([{**right, **change}]), 10)
        assert len(faults) == 1 and words in faults[0], (words, faults)


@needs_offload
def test_the_students_loop_is_judged_by_the_runtime_and_its_values():
    got = run_student_offload(build_student_offload(OFFLOAD_RESIDENT, "t_offload_ok"), 3, nx=NX, ny=NY,
                              iterations=ITERATIONS)  # fmt: skip
    assert (got["checksum"], got["weighted"]) == pytest.approx(expected_checksums(NX, NY, ITERATIONS), rel=1e-12)
    assert transfer_faults(pd.DataFrame(got["offload"]), ITERATIONS) == []
    assert sorted(r["device"] for r in got["offload"]) == [0, 1, 2]
    # the device's copy, read before each exchange and runtime operation, held iterations 1..K in
    # turn, and nothing but the block as handed was copied there before the first launch
    assert [r["device_iterations"] for r in got["offload"]] == [ITERATIONS] * 3
    assert [r["h2d_not_handed"] for r in got["offload"]] == [0] * 3
    # and changed only while the runtime ran a map, an update or a target region
    assert [r["host_writes"] for r in got["offload"]] == [0] * 3
    # by the target regions' own stores, which reached only the device data environment
    assert [(r["launch_writes"], r["device_strays"]) for r in got["offload"]] == [(0, 0)] * 3
    # and the launches' by-value arguments carried a few bytes an iteration (the sizes, once)
    assert all(0 < r["literal_bytes"] <= r["row_bytes"] for r in got["offload"]), got["offload"]


BY_VALUE = r"""
static void push(double *u, long b, double v0, double v1, int device, double one) {
#pragma omp target device(device) firstprivate(b, v0, v1, one)
    {
        u[b] = v0 * one;
        u[b + 1] = v1 * one;
    }
}

void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
#pragma omp target data map(tofrom: u[0:n]) map(to: unew[0:n]) device(device)
    for (long it = 0; it < iterations; it++) {
        exchange_rows(u, m, w, comm);
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++)
                unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1]
                                          + u[i * w + j + 1]);
        for (long i = 1; i <= m; i++)
            for (long j = 1; j < w - 1; j++) u[i * w + j] = unew[i * w + j];
        for (long k = 0; k + 1 < n; k += 2) push(u, k, u[k], u[k + 1], device, (double)(w > 0));
        if (n % 2) push(u, n - 2, u[n - 2], u[n - 1], device, (double)(w > 0));
    }
}
"""


@needs_offload
def test_values_carried_by_value_into_the_launches_are_counted():
    """The host sweeps; the new values reach the device's u as firstprivate doubles of small
    target regions (literal arguments: no map, no copy in the runtime's report): the kit's launch
    wrappers count their bytes (literal_bytes)."""
    got = run_student_offload(build_student_offload(BY_VALUE, "t_offload_by_value"), 2, nx=NX,
                              ny=NY, iterations=ITERATIONS)  # fmt: skip
    assert (got["checksum"], got["weighted"]) == pytest.approx(expected_checksums(NX, NY, ITERATIONS), rel=1e-12)
    assert all(r["literal_bytes"] > r["row_bytes"] * ITERATIONS for r in got["offload"]), got["offload"]
    faults = transfer_faults(pd.DataFrame(got["offload"]), ITERATIONS)
    assert any("bytes by value in" in f for f in faults), faults


@needs_offload
@pytest.mark.parametrize(("why", "field"), [
    ("the host sweeps a shadow serially on lines of its own", "device_strays"),
    ("the same with the shadow's address stored in mapped memory", "device_strays"),
    ("the device's addresses handed out in a mapped slot", "launch_writes"),
    ("the second host thread calls the kit's check entry", "device_strays"),
])
def test_the_devices_code_is_checked_against_the_device_data_environment(why, field, monkeypatch):
    """A host address handed into a target region (a firstprivate integer, a pointer stored in
    mapped memory) through which a near-empty region copies the host's shadow into the device's
    copy; a second host thread writing the device's copy while a region waits (fixer helper-f2,
    2026-12-04): the corpus's attempts, counted by the kit's check of the device's code (the
    build's refusal of the casts turned off: the run's check stands behind it)."""
    monkeypatch.setattr(offload_exercise, "address_casts", lambda unit: [])
    code = source_of("15_offload", why)
    got = run_student_offload(build_student_offload(code, "t_offload_" + field), 2, nx=NX, ny=NY,
                              iterations=ITERATIONS)  # fmt: skip
    assert all(r[field] >= ITERATIONS - 1 for r in got["offload"]), got["offload"]


SMUGGLED = r"""
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    double *du = 0, *dn = 0;
#pragma omp target data map(tofrom : u[0:n]) map(to : unew[0:n]) device(device)
    for (long it = 0; it < iterations; it++) {
#pragma omp target update from(u[w:w]) device(device)
#pragma omp target update from(u[m * w:w]) device(device)
        exchange_rows(u, m, w, comm);
#pragma omp target update to(u[0:w]) device(device)
#pragma omp target update to(u[(m + 1) * w:w]) device(device)
#pragma omp target map(from : du, dn) device(device)
        {
            du = u, dn = unew;
            for (long i = 1; i <= m; i++)
                for (long j = 1; j < w - 1; j++)
                    unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +
                                              u[i * w + j - 1] + u[i * w + j + 1]);
        }
        for (long i = 1; i <= m; i++) /* the host's own copy into the device's u */
            for (long j = 1; j < w - 1; j++) du[i * w + j] = dn[i * w + j];
    }
}
"""


@needs_offload
def test_the_host_writing_the_devices_copy_is_seen():
    """The device's addresses handed back in mapped pointers, and the host then writing the
    device's copy itself (here the copy of unew into u): the kit's watch (HL_WATCH_DEVICE) sees
    the device's copy change between the runtime's operations."""
    got = run_student_offload(build_student_offload(SMUGGLED, "t_offload_smuggled"), 2, nx=NX,
                              ny=NY, iterations=ITERATIONS)  # fmt: skip
    assert (got["checksum"], got["weighted"]) == pytest.approx(expected_checksums(NX, NY, ITERATIONS), rel=1e-12)
    assert all(r["host_writes"] >= ITERATIONS - 1 for r in got["offload"]), got["offload"]
    faults = transfer_faults(pd.DataFrame(got["offload"]), ITERATIONS)
    assert any("while no map, update or target region ran" in f for f in faults), faults


@needs_offload
def test_an_offload_build_links_a_tracer_object_of_its_own_compiler(tmp_path, monkeypatch):
    """The kit objects kept in the cache (build._kit_object) are told apart by the compiler that
    made them: the offload build's tracer is clang's, the host build's gcc's."""
    from hybridlab.kernels.build import objects_dir
    from hybridlab.sync.exercise import build_student_construct
    from solutions_c import CONSTRUCT_ATOMIC

    monkeypatch.setenv("HYBRIDLAB_CACHE", str(tmp_path / "cache"))
    build_student_construct(CONSTRUCT_ATOMIC)
    build_student_offload(OFFLOAD_RESIDENT, "t_offload_own_tracer")
    tracers = sorted(objects_dir().glob("hl_trace-*.o"))
    assert len(tracers) == 2, tracers
    made_by = {subprocess.run(["readelf", "-p", ".comment", str(t)], capture_output=True,
                              text=True, check=True).stdout.count("clang") > 0 for t in tracers}
    assert made_by == {True, False}


@needs_offload
@pytest.mark.parametrize("change,refusal", [
    ('    const long n = (m + 2) * w;\n',
     '    const long n = (m + 2) * w;\n    fputs("Libomptarget device 0 info: x\\n", stderr);\n'),
    ('void jacobi_offload(',
     '__attribute__((constructor)) static void early(void) {}\nvoid jacobi_offload('),
    ('void jacobi_offload(',
     'int omp_get_num_devices(void) { return 1; }\nvoid jacobi_offload('),
], ids=["stderr", "constructor", "interposed"])
def test_the_students_object_is_refused_where_it_reaches_past_the_kit(change, refusal):
    with pytest.raises(hl.BuildError) as err:
        build_student_offload(OFFLOAD_RESIDENT.replace(change, refusal, 1), "t_offload_refused")
    words = {"stderr": "writes to stderr", "constructor": "constructor",
             "interposed": "would replace the library's own"}
    assert any(w in str(err.value) for w in words.values()), str(err.value)




@needs_offload
def test_b_halo_rows_by_map_always_to_on_the_sweeps_region_are_no_fault():
    """A fresh attacker's right answer (r15d): the launch's own always-to copies of the halo rows
    are neither a host write while it ran nor a copy too many."""
    from honest import source_of as right_source

    always_to = right_source("15_offload", "a fresh attacker's r15d")
    got = run_student_offload(build_student_offload(always_to, "t_offload_always_to"), 2, nx=NX,
                              ny=NY, iterations=ITERATIONS)  # fmt: skip
    assert (got["checksum"], got["weighted"]) == pytest.approx(expected_checksums(NX, NY, ITERATIONS), rel=1e-12)
    assert transfer_faults(pd.DataFrame(got["offload"]), ITERATIONS) == []


@needs_offload
@pytest.mark.parametrize("host, device", [
    ("omp_set_max_active_levels(3);", ""),
    ("", "if (omp_get_max_active_levels() > 99) u[0] = 1.0;"),
], ids=["host-setter", "device-getter"])
def test_b_refuses_an_icv_the_host_sets_and_a_target_region_reads(host, device):
    """A fresh attacker (J15d) carried the host's values to the device through ICVs: the host's
    setters are refused, and a target region's getters of what the host may set."""
    code = OFFLOAD_RESIDENT.replace("    const long n = (m + 2) * w;\n",
                                    f"    const long n = (m + 2) * w;\n    {host}\n", 1)
    if device:
        code = code.replace("#pragma omp target", "#pragma omp target\n    { " + device + " }\n"
                            "#pragma omp target", 1)
    with pytest.raises(hl.BuildError) as err:
        build_student_offload(code, "t_offload_icv")
    said = str(err.value)
    assert ("sets what a target region can read back" in said if host else
            "calls omp_get_max_active_levels from a target region" in said), said


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_lab_without_clang_skips_its_live_cells_with_a_note(monkeypatch, tmp_path):
    shadow = tmp_path / "bin"
    shadow.mkdir()
    for entry in Path("/usr/bin").iterdir():  # every program but clang's
        if not entry.name.startswith("clang"):
            (shadow / entry.name).symlink_to(entry)
    venv = Path(os.environ["PATH"].split(os.pathsep)[0])
    monkeypatch.setenv("PATH", os.pathsep.join([str(venv), str(shadow)]))
    executed, _ = notebooks.run_notebook(ROOT / "labs" / "15_offload.ipynb", tmp_path / "run",
                                         quick=True, timeout=600, allow_errors=True)  # fmt: skip
    nb = nbformat.read(executed, as_version=4)
    text = "\n".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []))
    assert "note: no offload device here" in text and "no clang on PATH" in text
    errors = [(c.metadata.get("nbgrader", {}).get("grade_id"), o["ename"])
              for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors and all(e == "NotImplementedError" and g for g, e in errors), errors


_HALO_IN = ("#pragma omp target update to(u[0:w]) device(device)\n"
            "#pragma omp target update to(u[(m + 1) * w:w]) device(device)\n")
_SWEEP = "#pragma omp target teams distribute parallel for collapse(2) device(device)\n"
_ROW = "(size_t)w * sizeof(double)"
# (b) written another way: no refusal
_RIGHT = {
    "solution": OFFLOAD_RESIDENT,
    "target parallel for": OFFLOAD_RESIDENT.replace(_SWEEP, "#pragma omp target parallel for device(device)\n"),
    "maps on each region, a helper, a timing": OFFLOAD_RESIDENT.replace(
        "void jacobi_offload(", "static double four(const double *u, long k, long w) {\n"
        "    return u[k - w] + u[k + w] + u[k - 1] + u[k + 1];\n}\n\nvoid jacobi_offload(").replace(
        "    const long n = (m + 2) * w;\n", "    const long n = (m + 2) * w;\n    double t0 = hl_now();\n").replace(
        _SWEEP, "#pragma omp target map(tofrom : u[0:n], unew[0:n]) device(device)\n"
        "#pragma omp teams distribute parallel for collapse(2)\n", 1).replace(
        "unew[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +\n"
        "                                          u[i * w + j - 1] + u[i * w + j + 1]);",
        "unew[i * w + j] = 0.25 * four(u, i * w + j, w);").replace(
        "    }\n}\n", "    }\n    printf(\"%.3g ms\\n\", (hl_now() - t0) * 1e3 / (double)iterations);\n}\n"),
}
# what hands the host a device address, or computes off the device: the unit's refusal, the
# object's (the unit's checks left out)
_WRONG = {
    "use_device_ptr": (OFFLOAD_RESIDENT.replace(_HALO_IN, (
        "        double *d = u;\n"
        "#pragma omp target data use_device_ptr(d) device(device)\n"
        f"        {{ memcpy(d, u, {_ROW}); memcpy(d + (m + 1) * w, u + (m + 1) * w, {_ROW}); }}\n")),
        "uses use_device_ptr", "maps a device address back"),
    "omp_target_memcpy": (OFFLOAD_RESIDENT.replace(_HALO_IN, (
        "        omp_target_memcpy(omp_get_mapped_ptr(u, device), u, (size_t)w * sizeof(double), 0, 0,\n"
        "                          device, omp_get_initial_device());\n")),
        "uses omp_get_mapped_ptr", "uses omp_target_memcpy"),
    "host sweep": (OFFLOAD_RESIDENT.replace(_SWEEP, "#pragma omp parallel for collapse(2)\n"),
                   "computes nothing on the device", "computes nothing on the device"),
    "host threads beside": (OFFLOAD_RESIDENT.replace(_SWEEP, (
        "#pragma omp parallel for\n"
        "        for (long i = 1; i <= m; i++) unew[i * w + 1] = 0.5 * u[i * w + 1] + 1.0;\n" + _SWEEP), 1),
        "computes on the host's threads", "computes on the host's threads"),
}


@needs_offload
@pytest.mark.parametrize("name", list(_RIGHT))
def test_b_written_another_way_is_not_refused(name):
    assert device_code_refusals("\n" + _RIGHT[name]) == []


@needs_offload
@pytest.mark.parametrize("name", list(_WRONG))
def test_b_refuses_a_device_address_on_the_host_and_a_sweep_off_the_device(name, monkeypatch):
    code, unit, obj = _WRONG[name]
    assert code != OFFLOAD_RESIDENT
    said = [str(r) for r in device_code_refusals("\n" + code)]
    assert any(unit in s for s in said) and all("(b) moves the block with map clauses" in s for s in said), said
    monkeypatch.setattr(offload_exercise, "unit_refusals", lambda lines: [])  # the object alone
    assert any(obj in str(r) for r in device_code_refusals("\n" + code)), name


_HOST_RUNS_DEVICE_CODE = """
#pragma omp declare target
static void sweep(double *a, double *b, long m, long w) {
    for (long i = 1; i <= m; i++)
        for (long j = 1; j < w - 1; j++)
            b[i * w + j] = 0.25 * (a[(i - 1) * w + j] + a[(i + 1) * w + j] + a[i * w + j - 1] + a[i * w + j + 1]);
    for (long i = 1; i <= m; i++)
        for (long j = 1; j < w - 1; j++) a[i * w + j] = b[i * w + j];
}
#pragma omp end declare target
void jacobi_offload(double *u, double *unew, long m, long w, long iterations, int device,
                    MPI_Comm comm) {
    const long n = (m + 2) * w;
    double *slot[2] = {0, 0};
    long where = (long)slot;
#pragma omp target data map(tofrom: u[0:n]) map(to: unew[0:n]) device(device)
    for (long it = 0; it < iterations; it++) {
        exchange_rows(u, m, w, comm);
#pragma omp target firstprivate(where) device(device)
        {
            if (it == 0) { double **s = (double **)where; s[0] = u; s[1] = unew; sweep(u, unew, m, w); }
        }
        if (it > 0) sweep(slot[0], slot[1], m, w);
    }
}
"""


@needs_offload
@pytest.mark.parametrize("inline", ["static", "__attribute__((noinline)) static"])
def test_b_refuses_the_device_code_run_by_the_host(inline):
    """A fresh attacker's (attackD, 2026-12-04): device addresses stored through a firstprivate
    integer, then the host sweeping the device's copy with the declare-target helper: refused at
    the host's call (inlined) or in the helper (out of line), from the host object alone."""
    code = _HOST_RUNS_DEVICE_CODE.replace("static void sweep(", f"{inline} void sweep(")
    said = [str(r) for r in device_code_refusals(code)]
    assert any("runs the device's code on the host" in s for s in said), said


@needs_offload
def test_b_refusal_is_a_build_error_naming_the_cells_line():
    code = _WRONG["use_device_ptr"][0]
    with pytest.raises(hl.BuildError) as err:
        build_student_offload(code, "t_offload_device_ptr")
    line = code.splitlines().index("#pragma omp target data use_device_ptr(d) device(device)") + 1
    assert f"cell:{line}: error: uses use_device_ptr" in str(err.value), str(err.value)


# what a target region reads past the kit's check of its accesses (fixer helper-f7, 2026-12-04):
# a C library routine handed a host address (attackD's D15strtod), the same only where the kit's
# watch is compiled in, and a target intrinsic's gather or lddqu in a declare-target helper
_UNCHECKED_READS = {
    "strtod": ("the host sweeps and prints the grid as text", "calls strtod from a target region"),
    "strtod where watched": ("the strtod attempt only where the kit's watch is compiled in",
                             "calls strtod from a target region"),
    "gather": ("the host's values read in a target region by an AVX2 gather",
               "uses the instruction vgatherdpd in a target region"),
    "lddqu": ("the same with SSE3's lddqu", "uses the instruction lddqu in a target region"),
}


@needs_offload
@pytest.mark.parametrize("name", list(_UNCHECKED_READS))
def test_b_refuses_device_code_reaching_past_the_access_check(name):
    why, refusal = _UNCHECKED_READS[name]
    code = source_of("15_offload", why)
    said = [str(r) for r in device_code_refusals(code)]
    assert any(refusal in s for s in said), said


@needs_offload
def test_b_device_calls_allow_openmp_and_the_maths_library():
    """A target region calling sqrt, fabs, pow and omp_get_thread_num is not refused."""
    code = OFFLOAD_RESIDENT.replace("#include", "#include <math.h>\n#include", 1) if "#include" in \
        OFFLOAD_RESIDENT else "#include <math.h>\n" + OFFLOAD_RESIDENT
    code = code.replace("unew[i * w + j] = 0.25 * (", "unew[i * w + j] = (sqrt(4.0) * fabs(-0.125) "
                        "+ 0.0 * pow(1.5, (double)omp_get_thread_num())) * (", 1)
    assert "sqrt(4.0)" in code
    assert device_code_refusals("\n" + code) == []


@needs_offload
def test_b_refuses_an_address_handed_over_as_a_number():
    """A declare-target array's address taken in a target region, read back by `target update`
    as an integer, and the host's memcpy into it (a fresh attacker's M15b_hostsweep, 6/6 kept):
    the casts are refused at their lines, read from the unit's unoptimised IR."""
    code = OFFLOAD_RESIDENT.replace(
        "void jacobi_offload(", "static double box[64];\n#pragma omp declare target(box)\n"
        "void jacobi_offload(", 1).replace(
        "    const long n = (m + 2) * w;\n", "    const long n = (m + 2) * w;\n"
        "    unsigned long where[1] = {0};\n"
        "#pragma omp target map(from: where[0:1]) device(device)\n"
        "    where[0] = (unsigned long)&box[0];\n"
        "    double *leaked = (double *)where[0];\n    (void)leaked;\n", 1)
    assert code.count("where") == 4, code
    said = [str(r) for r in device_code_refusals("\n" + code)]
    casts = [s for s in said if "casts an address to an integer" in s]
    assert len(casts) == 2 and all("(b) moves the block with map clauses" in s for s in casts), said


@needs_offload
def test_b_a_pointer_difference_is_no_cast_and_a_declare_target_pointer_is_refused():
    """A right answer finding row offsets by pointer difference (a fresh attacker's p15pdiff,
    refused at first) keeps its build; a declare-target pointer set on the device and read back
    by `target update from` (p15leak: the device's address with no cast) is refused at its line."""
    offsets = OFFLOAD_RESIDENT.replace(
        "    const long n = (m + 2) * w;\n",
        "    const long n = (m + 2) * w;\n    double *bottom = &u[m * w];\n"
        "    long last = bottom - u;\n    (void)last;\n", 1)
    assert offsets != OFFLOAD_RESIDENT and device_code_refusals("\n" + offsets) == []
    leak = OFFLOAD_RESIDENT.replace(
        "void jacobi_offload(", "static double stage[64];\nstatic double *where;\n"
        "#pragma omp declare target(stage, where)\nvoid jacobi_offload(", 1)
    said = [str(r) for r in device_code_refusals("\n" + leak)]
    assert any("declares where for the device, a variable that holds an address" in s
               for s in said), said


def test_b_refuses_at_build_what_the_toolchain_gets_wrong():
    """clang 14's host plugin crashes on the `loop` construct and computes wrong values with
    `target ... nowait` (attackS's right answers R15_sendrecv_loop, R15_nowait_taskwait, lost 6/6
    at run time, 2026-12-05): the build says so, naming the line; `taskloop` and a worksharing
    loop's `nowait` inside a region are no concern of it."""
    from hybridlab.offload.exercise import unit_refusals

    refused = unit_refusals([(3, "#pragma omp target teams loop collapse(2) device(device)"),
                             (4, "  #  pragma omp loop"),
                             (5, "#pragma omp target teams distribute parallel for nowait"),
                             (6, "#pragma omp target update to(u[0:w]) device(device) nowait")])
    assert [(r.line, "`loop`" in r.message, "nowait" in r.message) for r in refused] == [
        (3, True, False), (5, False, True)]
    assert "target teams distribute parallel for" in refused[0].message
    assert unit_refusals([(1, "#pragma omp taskloop"), (2, "#pragma omp for nowait"),
                          (3, "#pragma omp target teams distribute parallel for collapse(2)")]) == []


@needs_offload
@pytest.mark.parametrize("why", ["halo rows by MPI_Mprobe", "halo rows by MPI-4 partitioned"])
def test_b_halo_rows_by_matched_probes_and_partitioned_requests_are_seen(why):
    """f40's left item: offload_halo's receive watch read MPI_Recv/Irecv/Recv_init/Sendrecv only;
    rows by a matched probe's MPI_Mrecv/MPI_Imrecv or by MPI_Precv_init counted 0 iterations."""
    from honest import source_of as right_source

    code = right_source("15_offload", why)
    got = run_student_offload(build_student_offload(code, "t_offload_" + why.split()[-1][:7]), 3,
                              nx=NX, ny=NY, iterations=ITERATIONS)  # fmt: skip
    assert (got["checksum"], got["weighted"]) == pytest.approx(expected_checksums(NX, NY, ITERATIONS), rel=1e-12)
    halos = [(r["halo_above"], r["halo_below"]) for r in got["offload"]]
    assert sorted(halos) == sorted([(-1, ITERATIONS), (ITERATIONS, ITERATIONS), (ITERATIONS, -1)]), halos


@needs_offload
def test_a_cell_that_forges_the_kits_watch_from_its_own_statics_no_longer_keeps_device_iterations():
    """f51: a sweep on the host in a copy of the block, then offload_halo.c's watch found by
    scanning from one of the cell's statics and `seen` set to iterations - 1: the record said
    device_iterations = 5 of 5 on the old kernel. The watch is hybridlab.h's sealed evidence now
    (read-only pages written through /proc/self/mem): the count stays the device's, or the run
    dies on the store."""
    cell = source_of("15_offload", "the sweep on the host in a copy, then the kit's watch")
    cell = cell.split("\n", 1)[1] if cell.startswith("%%") else cell
    try:
        got = run_student_offload(build_student_offload(cell, "t_offload_sealed_watch"), 2, nx=NX,
                                  ny=NY, iterations=ITERATIONS)  # fmt: skip
    except hl.KernelError as e:
        assert "signal 11" in str(e)
        return
    assert all(r["device_iterations"] < ITERATIONS - 1 for r in got["offload"]), got["offload"]


@needs_offload
@pytest.mark.parametrize("why", ["A8's K4", "A8's K5"])
def test_sweeps_on_the_host_beside_the_devices_are_seen(why):
    """A8's K4 and K5 (6/6 twice each): the first one or two sweeps on the host, mapped in with
    the block, and the last after the copy back. The old look advanced one grid a look from the
    first MPI call on and never looked after the last launch: device_iterations was K - 1 of K.
    Now the bytes copied before the first launch that are not the block as handed are summed, a
    look sees a grid only in an array a target region stored into since the grid before, and the
    last grid is looked at before the copy back."""
    cell = source_of("15_offload", why)
    cell = cell.split("\n", 1)[1] if cell.startswith("%%") else cell
    got = run_student_offload(build_student_offload(cell, "t_offload_host_ends"), 2, nx=NX, ny=NY,
                              iterations=ITERATIONS)  # fmt: skip
    assert all(r["h2d_not_handed"] > 0 for r in got["offload"]), got["offload"]
    assert all(r["device_iterations"] < ITERATIONS - 1 for r in got["offload"]), got["offload"]


@needs_offload
def test_a_cell_that_forges_the_kits_halo_counts_and_device_peak_no_longer_keeps_them():
    """Issue 36's F15_tallies: every rank sweeps the whole grid, no halo exchanged, then the kit's
    halo counts (found from a static of the cell by their values) set to the iterations and the
    device's peak to u's and unew's bytes: on the old kernel the records said halo rows from both
    neighbours every iteration and no more device memory than the block's. The "offload" record's
    tallies are hybridlab.h's sealed evidence now: they stay the kit's, or the run dies on the
    store."""
    cell = source_of("15_offload", "every rank sweeps the whole grid, then the kit's halo counts")
    cell = cell.split("\n", 1)[1] if cell.startswith("%%") else cell
    try:
        got = run_student_offload(build_student_offload(cell, "t_offload_sealed_tallies"), 2,
                                  nx=NX, ny=NY, iterations=ITERATIONS)  # fmt: skip
    except hl.KernelError as e:
        assert "signal 11" in str(e)
        return
    records = got["offload"]
    assert sorted((r["halo_above"], r["halo_below"]) for r in records) == [(-1, 0), (0, -1)], records
    assert all(r["device_bytes"] > 2 * (r["rows"] + 2) * r["row_bytes"] for r in records), records


@needs_offload
def test_report_lines_the_cell_writes_to_stderr_are_not_the_runtimes():
    """A2's K6: every row to the host and back every iteration, and report lines of negative Size
    written to fd 2 through stdout's FILE (its descriptor set to 2), which the old kernel read back
    with the runtime's own lines and summed: the copies after the first iteration came to the
    halo's. The kernel sums the runtime's own fprintf calls now, so the cell's lines count
    nothing: every row's bytes each way in every iteration after the first."""
    cell = source_of("15_offload", "A2's K6")
    cell = cell.split("\n", 1)[1] if cell.startswith("%%") else cell
    got = run_student_offload(build_student_offload(cell, "t_offload_forged_report"), 2,
                              nx=NX, ny=NY, iterations=ITERATIONS)  # fmt: skip
    for r in got["offload"]:
        block = (r["rows"] + 2) * r["row_bytes"]
        assert r["h2d_between"] >= block * (ITERATIONS - 1), r
        assert r["d2h_between"] >= block * (ITERATIONS - 1), r


@needs_offload
@pytest.mark.parametrize("name", ["a1", "a2", "a3"])
def test_the_kits_grids_and_look_buffer_are_out_of_the_cells_reach(name):
    """A5's a1-a3 (tests/gaming): the kit's sealed watch, found from a static of the cell, named the
    kit's serial sweep one iteration ahead and its look buffer, whose copies the report left out;
    no stencil (a1), the sweep on the host (a2) or the whole interior both ways every iteration
    (a3), pushed through the look buffer, kept every count of the old kernel (no fault). The grids
    and the buffer have no access now but while the kit's own code works in them: the run dies
    on the cell's first read or copy of them."""
    cell = source_of("15_offload", f"A5's {name}")
    cell = cell.split("\n", 1)[1] if cell.startswith("%%") else cell
    kernel = build_student_offload(cell, f"t_offload_look_{name}")
    with pytest.raises(hl.KernelError, match="signal 11"):
        run_student_offload(kernel, 2, nx=NX, ny=NY, iterations=ITERATIONS)
