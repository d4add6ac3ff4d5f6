"""Wrong answers to lab 04: a halo exchange off by a row, a warm-up rounded, a face count that
ignores the process grid, a prediction scaled by the wrong run, and funnelled overlaps that break
FUNNELED, read halos too early, do not overlap, or deadlock under synchronous sends."""

from wrong_answers import together, wrong

EXCHANGE = '%%c EXCHANGE_C halo2d\nvoid exchange_halos(double *a, long m, long nx, int up, int down, MPI_Comm comm) {{\n    long w = nx + 2;\n{body}\n}}\n'

OVERLAP_GOOD_EXCHANGE = """\
        MPI_Request req[4];
        MPI_Irecv(&a[0 * w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, &req[0]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, &req[1]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm, &req[2]);
        MPI_Isend(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 2, comm, &req[3]);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);"""


def overlap(who: str = "#pragma omp masked", exchange: str = OVERLAP_GOOD_EXCHANGE,
            interior: str = "#pragma omp for schedule(dynamic) nowait\n    for (long i = 2; i < m; i++) stencil_rows(i, i);\n#pragma omp barrier") -> str:  # fmt: skip
    """The model answer of (d) with one of its three steps changed."""
    return f'''%%c OVERLAP_C halo2d
void overlap_iteration(double *a, long m, long nx, int up, int down, MPI_Comm comm) {{
    long w = nx + 2;
{who}
    {{
{exchange}
    }}
    {interior}
#pragma omp single
    {{
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }}
}}
'''


A = {"hidden_exchange_halos"}
C = {"hidden_halo_faces"}
D = {"hidden_overlap_iteration"}

# part (c)'s prediction, right: the wrong answers to (c) get the faces wrong, not this
PREDICT_HALO = """


def predict_halo(threads_list, pure_halo_s: float, local: int = 144, grid=(24, 4, 2)) -> pd.DataFrame:
    base = halo_faces(1, local, grid)["total"]
    ratio = [halo_faces(t, local, grid)["total"] / base for t in threads_list]
    out = pd.DataFrame({"threads": list(threads_list), "face_ratio": ratio})
    out["predicted_s"] = out["face_ratio"] * pure_halo_s
    return out.set_index("threads")"""


MISTAKES = [
    wrong(
        "exchange_halos",
        EXCHANGE.format(
            body="""\
    MPI_Sendrecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 1, &a[0 * w + 1], (int)nx,
                 MPI_DOUBLE, up, 1, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&a[0 * w + 1], (int)nx, MPI_DOUBLE, up, 2, &a[(m + 1) * w + 1], (int)nx,
                 MPI_DOUBLE, down, 2, comm, MPI_STATUS_IGNORE);"""
        ),
        loses=A,
        why="sends its halo rows (0 and m + 1) instead of its edge rows (1 and m)",
        reason="the halo rows do not hold the neighbours' edge rows",
    ),
    wrong(
        "exchange_halos",
        EXCHANGE.format(
            body="""\
    MPI_Sendrecv(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, &a[0 * w + 1], (int)nx,
                 MPI_DOUBLE, up, 1, comm, MPI_STATUS_IGNORE);"""
        ),
        loses=A,
        why="exchanges downwards only: row m + 1 never receives the lower neighbour's row 1",
        reason="the halo rows do not hold the neighbours' edge rows",
    ),
    wrong(
        "phase_shares",
        """def phase_shares(table: pd.DataFrame) -> pd.DataFrame:
    phases = ["jacobi", "halo", "reduction", "other"]
    t = table.set_index("label")[phases].astype(float)
    out = t.div(t.sum(axis=1), axis=0).round(2)  # "two decimals are enough"
    out["dominant"] = t.idxmax(axis=1)
    return out""",
        loses={"hidden_phase_shares"},
        why="shares rounded to two decimals: not the fractions asked for",
        reason="the four phases' own sum gives",
    ),
    wrong(
        "phase_shares",
        """def phase_shares(table: pd.DataFrame) -> pd.DataFrame:
    phases = ["jacobi", "halo", "reduction", "other"]
    t = table.set_index("label")[phases].astype(float)
    out = t.div(t.sum(axis=0), axis=1)  # each column's share over the runs
    out["dominant"] = t.idxmax(axis=1)
    return out""",
        loses={"hidden_phase_shares"},
        why="divides by the column sums (share of each run in a phase), not the row sums",
        reason="the four phases' own sum gives",
    ),
    wrong(
        "halo_faces",
        """def halo_faces(threads: int, local: int = 144, grid=(24, 4, 2)) -> dict[str, int]:
    lx, ly, lz = local * threads, local, local
    faces = {"x": ly * lz, "y": lx * lz, "z": lx * ly}
    return {**faces, "total": 2 * (faces["x"] + faces["y"] + faces["z"])}  # every axis""" + PREDICT_HALO,
        loses=C,
        why="counts two faces along every axis, also where the process grid has one process",
        reason="the faces are",
    ),
    wrong(
        "halo_faces",
        """def halo_faces(threads: int, local: int = 144, grid=(24, 4, 2)) -> dict[str, int]:
    px, py, pz = grid[0] // threads, grid[1], grid[2]
    lx, ly, lz = local * threads, local, local
    faces = {"x": ly * lz, "y": lx * lz, "z": lx * ly}
    return {**faces, "total": sum(faces[a] for a, p in zip("xyz", (px, py, pz)) if p > 1)}""" + PREDICT_HALO,
        loses=C,
        why="one face per axis: a process in the middle has a neighbour on both sides",
        reason="the faces are",
    ),
    wrong(
        "halo_faces",
        """def halo_faces(threads: int, local: int = 144, grid=(24, 4, 2)) -> dict[str, int]:
    px, py, pz = grid[0] // threads, grid[1], grid[2]
    lx, ly, lz = local * threads, local, local
    faces = {"x": ly * lz, "y": lx * lz, "z": lx * ly}
    return {**faces, "total": sum(2 * faces[a] for a, p in zip("xyz", (px, py, pz)) if p > 1)}


def predict_halo(threads_list, pure_halo_s: float, local: int = 144, grid=(24, 4, 2)) -> pd.DataFrame:
    base = halo_faces(threads_list[0], local, grid)["total"]  # the first run given, not pure MPI
    ratio = [halo_faces(t, local, grid)["total"] / base for t in threads_list]
    out = pd.DataFrame({"threads": list(threads_list), "face_ratio": ratio})
    out["predicted_s"] = out["face_ratio"] * pure_halo_s
    return out.set_index("threads")""",
        loses=C,
        why="scales by the first thread count listed instead of pure MPI (1 thread)",
        reason="the faces at",
    ),
    wrong(
        "overlap_iteration",
        overlap(who="if (omp_get_thread_num() == omp_get_num_threads() - 1)"),
        loses=D,
        why="a worker thread exchanges (the master computes): breaks FUNNELED",
        reason="ThreadComplianceError",
    ),
    wrong(
        "overlap_iteration",
        overlap(
            interior="#pragma omp for schedule(dynamic) nowait\n    for (long i = 2; i < m; i++) stencil_rows(i, i);"
        ),
        loses=D,
        why="no barrier before the edge rows: they read halos that have not arrived",
        reason="the checksum is NaN",
    ),
    wrong(
        "overlap_iteration",
        overlap(
            interior="#pragma omp barrier\n#pragma omp for\n    for (long i = 2; i < m; i++) stencil_rows(i, i);"
        ),
        loses=D,
        why="the team waits for the exchange before the interior: correct, but no overlap",
        reason="other than the master between the posting of the requests and their completion",
    ),
    wrong(
        "overlap_iteration",
        overlap(
            exchange="""\
        MPI_Send(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 1, comm);
        MPI_Send(&a[1 * w + 1], (int)nx, MPI_DOUBLE, up, 2, comm);
        MPI_Recv(&a[0 * w + 1], (int)nx, MPI_DOUBLE, up, 1, comm, MPI_STATUS_IGNORE);
        MPI_Recv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 2, comm, MPI_STATUS_IGNORE);"""
        ),
        loses=D,
        why="both sends before both receives: deadlocks once a send waits for its receive",
        reason="deadlock",
    ),
]

(EX_ROW, EX_DOWN, SH_ROUND, SH_COLUMNS, FACES_ALL, FACES_ONE, PRED_FIRST,
 OV_WORKER, OV_NO_BARRIER, OV_NO_OVERLAP, OV_DEADLOCK) = MISTAKES  # fmt: skip

# one mistake per part in each submission: every part still has at least two wrong answers
WRONG = [
    together(EX_ROW, SH_ROUND, PRED_FIRST, OV_WORKER),
    together(EX_DOWN, SH_COLUMNS, FACES_ALL, OV_NO_BARRIER),
    together(OV_NO_OVERLAP),
    together(FACES_ONE, OV_DEADLOCK),
]
