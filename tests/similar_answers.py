"""Answers to lab 04's four code answer cells for the similarity tests (test_similarity.py): two
students who wrote their own (ANA, BORIS: other MPI calls, loops where the solution uses pandas,
other names and orders), and a third (CARLA) who took ANA's and renamed every variable, changed
the comments, tags and spacing. Each is a dict grade_id -> what the student wrote."""

from __future__ import annotations

import re

from wrong_answers import c_cell

SIGNATURE = "void {name}(double *a, long m, long nx, int up, int down, MPI_Comm comm) {{\n"
HALO_FACES = (
    "def halo_faces(threads: int, local: int = 144, grid=(24, 4, 2)) -> dict[str, int]:\n"
    '    """Face points of one process\'s local array (threads replace processes along X)."""\n'
)
PREDICT = (
    "def predict_halo(threads_list, pure_halo_s: float, local: int = 144,\n"
    "                 grid=(24, 4, 2)) -> pd.DataFrame:\n"
    '    """Halo time per thread count, proportional to the face points sent."""\n'
)
SHARES = "def phase_shares(table: pd.DataFrame) -> pd.DataFrame:\n"


ANA = {
    "exchange_halos": c_cell("EXCHANGE_C", "halo2d", SIGNATURE.format(name="exchange_halos") + """\
    const long row = nx + 2;
    double *top_inner = a + row + 1, *bottom_inner = a + m * row + 1;
    double *top_halo = a + 1, *bottom_halo = a + (m + 1) * row + 1;
    MPI_Request r[4];
    MPI_Irecv(top_halo, (int)nx, MPI_DOUBLE, up, 7, comm, r);
    MPI_Irecv(bottom_halo, (int)nx, MPI_DOUBLE, down, 8, comm, r + 1);
    MPI_Isend(bottom_inner, (int)nx, MPI_DOUBLE, down, 7, comm, r + 2);
    MPI_Isend(top_inner, (int)nx, MPI_DOUBLE, up, 8, comm, r + 3);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
}"""),
    "phase_shares": SHARES + """\
    cols = ["jacobi", "halo", "reduction", "other"]
    rows = {}
    for _, r in table.iterrows():
        total = sum(float(r[c]) for c in cols)
        shares = {c: float(r[c]) / total for c in cols}
        shares["dominant"] = max(cols, key=lambda c: float(r[c]))
        rows[r["label"]] = shares
    return pd.DataFrame.from_dict(rows, orient="index")""",
    "halo_faces": HALO_FACES + """\
    procs = (grid[0] // threads, grid[1], grid[2])
    nx, ny, nz = local * threads, local, local
    out = {"x": ny * nz, "y": nx * nz, "z": nx * ny}
    total = 0
    for axis, p in zip(("x", "y", "z"), procs):
        if p > 1:
            total += 2 * out[axis]
    out["total"] = total
    return out


""" + PREDICT + """\
    ref = halo_faces(1, local, grid)["total"]
    rows = []
    for t in threads_list:
        r = halo_faces(t, local, grid)["total"] / ref
        rows.append((t, r, r * pure_halo_s))
    return pd.DataFrame(rows, columns=["threads", "face_ratio", "predicted_s"]).set_index("threads")""",
    "overlap_iteration": c_cell("OVERLAP_C", "halo2d", SIGNATURE.format(name="overlap_iteration") + """\
    long w = nx + 2;
    MPI_Request rq[4];
#pragma omp masked
    {
        MPI_Isend(&a[w + 1], (int)nx, MPI_DOUBLE, up, 20, comm, &rq[0]);
        MPI_Isend(&a[m * w + 1], (int)nx, MPI_DOUBLE, down, 10, comm, &rq[1]);
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 10, comm, &rq[2]);
        MPI_Irecv(&a[(m + 1) * w + 1], (int)nx, MPI_DOUBLE, down, 20, comm, &rq[3]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    }
#pragma omp for schedule(static) nowait
    for (long row = 2; row <= m - 1; row++)
        stencil_rows(row, row);
#pragma omp barrier
#pragma omp masked
    {
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }
#pragma omp barrier
}"""),
}

BORIS = {
    "exchange_halos": c_cell("EXCHANGE_C", "halo2d", SIGNATURE.format(name="exchange_halos") + """\
    const long stride = nx + 2;
    double *first = a + stride + 1;      /* first interior row */
    double *last = a + m * stride + 1;   /* last interior row */
    double *above = a + 1;               /* the halo row above */
    double *below = a + (m + 1) * stride + 1;
    /* downwards first, then upwards: every rank sends and receives in the same call */
    MPI_Sendrecv(last, (int)nx, MPI_DOUBLE, down, 0, above, (int)nx, MPI_DOUBLE, up, 0,
                 comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(first, (int)nx, MPI_DOUBLE, up, 0, below, (int)nx, MPI_DOUBLE, down, 0,
                 comm, MPI_STATUS_IGNORE);
}"""),
    "phase_shares": SHARES + """\
    phases = table[["jacobi", "halo", "reduction", "other"]].astype(float)
    phases.index = table["label"]
    result = phases.divide(phases.sum(axis="columns"), axis="index")
    result["dominant"] = phases.idxmax(axis="columns")
    return result""",
    "halo_faces": HALO_FACES + """\
    sizes = {"x": local * threads, "y": local, "z": local}
    split = {"x": grid[0] // threads > 1, "y": grid[1] > 1, "z": grid[2] > 1}
    faces = {}
    for axis in "xyz":
        others = [sizes[b] for b in "xyz" if b != axis]
        faces[axis] = others[0] * others[1]
    faces["total"] = sum(2 * faces[axis] for axis in "xyz" if split[axis])
    return faces


""" + PREDICT + """\
    one = halo_faces(1, local, grid)["total"]
    ratios = np.array([halo_faces(t, local, grid)["total"] for t in threads_list]) / one
    index = pd.Index(list(threads_list), name="threads")
    return pd.DataFrame({"face_ratio": ratios, "predicted_s": ratios * pure_halo_s}, index=index)""",
    "overlap_iteration": c_cell("OVERLAP_C", "halo2d", SIGNATURE.format(name="overlap_iteration") + """\
    long w = nx + 2;
    if (omp_get_thread_num() == 0) {
        MPI_Request q[4];
        MPI_Irecv(a + 1, (int)nx, MPI_DOUBLE, up, 3, comm, q);
        MPI_Irecv(a + (m + 1) * w + 1, (int)nx, MPI_DOUBLE, down, 4, comm, q + 1);
        MPI_Isend(a + m * w + 1, (int)nx, MPI_DOUBLE, down, 3, comm, q + 2);
        MPI_Isend(a + w + 1, (int)nx, MPI_DOUBLE, up, 4, comm, q + 3);
        MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
    }
#pragma omp for schedule(guided) nowait
    for (long r = m - 1; r >= 2; r--) stencil_rows(r, r);
#pragma omp barrier
#pragma omp single nowait
    stencil_rows(1, 1);
#pragma omp single
    if (m > 1) stencil_rows(m, m);
}"""),
}

# ANA's answers, every name changed, comments, tags and spacing too
CARLA = {
    "exchange_halos": c_cell("EXCHANGE_C", "halo2d", SIGNATURE.format(name="exchange_halos") + """\
    const long len = nx + 2;  // one row with its two halo columns
    double *north_in = a + len + 1,  *south_in = a + m * len + 1;
    double *north_out = a + 1,  *south_out = a + (m + 1) * len + 1;
    MPI_Request reqs[4];
    MPI_Irecv(north_out, (int)nx, MPI_DOUBLE, up, 70, comm, reqs);
    MPI_Irecv(south_out, (int)nx, MPI_DOUBLE, down, 80, comm, reqs + 1);
    MPI_Isend(south_in, (int)nx, MPI_DOUBLE, down, 70, comm, reqs + 2);
    MPI_Isend(north_in, (int)nx, MPI_DOUBLE, up, 80, comm, reqs + 3);
    MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);  // all four at once
}"""),
    "phase_shares": SHARES + """\
    names = ['jacobi', 'halo', 'reduction', 'other']
    result = {}
    for _, line in table.iterrows():
        whole = sum(float(line[n]) for n in names)
        part = {n: float(line[n]) / whole for n in names}
        part['dominant'] = max(names, key=lambda n: float(line[n]))   # the biggest phase
        result[line['label']] = part
    return pd.DataFrame.from_dict(result, orient='index')""",
    "halo_faces": HALO_FACES + """\
    counts = (grid[0] // threads, grid[1], grid[2])
    lx, ly, lz = local * threads, local, local
    res = {'x': ly * lz, 'y': lx * lz, 'z': lx * ly}
    s = 0
    for d, n in zip(('x', 'y', 'z'), counts):
        if n > 1:
            s += 2 * res[d]   # two faces along a split direction
    res['total'] = s
    return res


""" + PREDICT + """\
    base = halo_faces(1, local, grid)['total']
    table = []
    for k in threads_list:
        q = halo_faces(k, local, grid)['total'] / base
        table.append((k, q, q * pure_halo_s))
    return pd.DataFrame(table, columns=['threads', 'face_ratio', 'predicted_s']).set_index('threads')""",
    "overlap_iteration": c_cell("OVERLAP_C", "halo2d", SIGNATURE.format(name="overlap_iteration") + """\
    long width = nx + 2;
    MPI_Request reqs[4];
#pragma omp masked
    {
        MPI_Isend(&a[width + 1], (int)nx, MPI_DOUBLE, up, 21, comm, &reqs[0]);
        MPI_Isend(&a[m * width + 1], (int)nx, MPI_DOUBLE, down, 11, comm, &reqs[1]);
        MPI_Irecv(&a[1], (int)nx, MPI_DOUBLE, up, 11, comm, &reqs[2]);
        MPI_Irecv(&a[(m + 1) * width + 1], (int)nx, MPI_DOUBLE, down, 21, comm, &reqs[3]);
        MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
    }
#pragma omp for schedule(static) nowait
    for (long i = 2; i <= m - 1; i++)
        stencil_rows(i, i);   /* the interior while the halos travel */
#pragma omp barrier
#pragma omp masked
    {
        stencil_rows(1, 1);
        if (m > 1) stencil_rows(m, m);
    }
#pragma omp barrier
}"""),
}


_C_DECLARED = re.compile(r"(?:const\s+)?(?:long|int|double|size_t|MPI_Request|MPI_Count)\s*\**\s*"
                         r"(\w+)\s*[=;,\[)]")  # fmt: skip


def renamed(source: str, language: str) -> str:
    """A copy of an answer cell as a student hides one: every name it declares renamed (C: the
    locals and parameters it declares; Python: what it assigns and loops over), comments
    dropped and the indentation widened. The magic line is kept."""
    magic, _, body = source.partition("\n") if source.startswith("%%") else ("", "", source)
    if language == "C":
        names = set(_C_DECLARED.findall(body))
        body = re.sub(r"/\*.*?\*/", "", body)
    else:
        names = set(re.findall(r"^\s*(\w+)\s*=", body, re.M)) | set(re.findall(r"for (\w+) in", body))
        body = re.sub(r"\s+# .*$", "", body, flags=re.M)
    for name in sorted(names, key=len, reverse=True):
        body = re.sub(rf"\b{name}\b", f"my_{name}", body)
    body = "\n".join(line.replace("    ", "      ") for line in body.splitlines())
    return f"{magic}\n{body}" if magic else body
