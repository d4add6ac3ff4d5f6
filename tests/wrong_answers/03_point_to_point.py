"""Wrong answers to lab 03: the kit's fits (of each size's median) called in one line, a slope
taken for a bandwidth, a fit of medians, a knee one size low, overlaps that poll from a worker
thread, never poll or compute steps twice, and a prediction or fraction computed the wrong
way."""

from wrong_answers import together, wrong

FIT = {"hidden_fit_hockney"}
KNEE = {"hidden_locate_knee"}
OVERLAP = {"hidden_overlap_exchange"}

OVERLAP_C = '''%%c OVERLAP_C p2p_overlap
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {{
    MPI_Request req[2];
    int done = 0;
#pragma omp parallel
    {{
        int me = omp_get_thread_num(), mpi = {mpi};
        if (me == mpi) {{
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 0, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 0, comm, &req[1]);
        }}
        long mine = 0;
{loop}
        for (long i = 0; i < steps; i++) {{
            compute_step(i);
            if (me == mpi && !done && mine++ % poll == 0 && {polls})
                MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
        }}
        if (me == mpi && !done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }}
}}
'''
FOR = "#pragma omp for schedule(static) nowait"


def overlap(mpi: str = "0", loop: str = FOR, polls: str = "1") -> str:
    return OVERLAP_C.format(mpi=mpi, loop=loop, polls=polls)


NUMBERS = """def overlap_numbers(medians):
    return float({predicted}), float({hidden})


PREDICTED_OVERLAP_S, HIDDEN_FRACTION = overlap_numbers(overlap_medians)"""
M = "medians"

MISTAKES = [
    wrong(
        "fit_hockney",
        """from hybridlab.p2p.hockney import hockney_fit as _fit


def fit_hockney(sizes, seconds) -> tuple[float, float]:
    line = _fit(sizes, seconds)
    return line.alpha, line.beta""",
        loses={"hidden_fit_hockney"},
        why="a one-line call of the kit's hockney_fit (a fit of each size's median)", reason='not the least-squares line',
    ),
    wrong(
        "fit_hockney",
        """def fit_hockney(sizes, seconds) -> tuple[float, float]:
    slope, intercept = np.polyfit(np.asarray(sizes, float), np.asarray(seconds, float), 1)
    return float(intercept), float(slope)  # the slope is 1 / beta, not beta""",
        loses=FIT,
        why="returns the slope (seconds per byte) as the bandwidth", reason='not the least-squares line',
    ),
    wrong(
        "fit_hockney",
        """def fit_hockney(sizes, seconds) -> tuple[float, float]:
    data = pd.DataFrame({"s": np.asarray(sizes, float), "t": np.asarray(seconds, float)})
    med = data.groupby("s")["t"].median()  # one point per size: not the fit asked for
    slope, intercept = np.polyfit(med.index.to_numpy(), med.to_numpy(), 1)
    return float(intercept), float(1.0 / slope)""",
        loses={"hidden_fit_hockney"},
        why="fits the median of each size instead of every sample", reason='not the least-squares line',
    ),
    wrong(
        "locate_knee",
        """def locate_knee(sizes, seconds) -> float:
    return float(piecewise_hockney(sizes, seconds).switch_bytes)""",
        loses={"hidden_locate_knee"},
        why="a one-line call of the kit's piecewise_hockney (the knee of the medians)", reason='locate_knee:',
    ),
    wrong(
        "locate_knee",
        """def locate_knee(sizes, seconds) -> float:
    s = np.asarray(sizes, dtype=float)
    t = np.asarray(seconds, dtype=float)
    distinct = np.unique(s)
    best, best_cost = None, np.inf
    for k, cut in enumerate(distinct[3:-2], start=3):
        cost = 0.0
        for part in (s < cut, s >= cut):
            w = 1.0 / t[part]
            design = np.column_stack([w, s[part] * w])
            coef, *_ = np.linalg.lstsq(design, t[part] * w, rcond=None)
            cost += float(np.sum((t[part] * w - design @ coef) ** 2))
        if cost < best_cost:
            best, best_cost = float(distinct[k - 1]), cost  # the last size of the lower line
    return best""",
        loses=KNEE,
        why="returns the last size of the lower line, not the first of the upper one", reason='locate_knee:',
    ),
    wrong(
        "overlap_exchange",
        overlap(mpi="omp_get_num_threads() - 1"),
        loses=OVERLAP,
        why="the last thread (a worker) starts, polls and completes the exchange: breaks FUNNELED", reason='ThreadComplianceError',
    ),
    wrong(
        "overlap_exchange",
        overlap(polls="0"),
        loses=OVERLAP,
        why="never polls: the message moves only in the final MPI_Waitall", reason='the master must poll',
    ),
    wrong(
        "overlap_exchange",
        overlap(loop=""),
        loses=OVERLAP | {"hidden_overlap_numbers"},
        why="no omp for: every thread computes every step (each step several times)", reason='compute_step was called',
    ),
    wrong(
        "overlap_numbers",
        NUMBERS.format(
            predicted=f'{M}["compute"] + {M}["message"]',
            hidden=f'({M}["blocking"] - {M}["student"]) / min({M}["compute"], {M}["message"])',
        ),  # fmt: skip
        loses={"hidden_overlap_numbers"},
        why="predicts the blocking sum, not a perfect overlap", reason='not the perfect overlap of your medians',
    ),
    wrong(
        "overlap_numbers",
        NUMBERS.format(
            predicted=f'max({M}["compute"], {M}["message"])',
            hidden=f'({M}["blocking"] - {M}["student"]) / {M}["blocking"]',
        ),  # fmt: skip
        loses={"hidden_overlap_numbers"},
        why="the gain as a share of the blocking time, not of what could be hidden", reason='not the share of your medians',
    ),
]

(FIT_KIT, FIT_SLOPE, FIT_MEDIANS, KNEE_KIT, KNEE_LOW,
 OV_WORKER, OV_NO_POLL, OV_EVERY_STEP, NUM_SUM, NUM_BLOCKING) = MISTAKES  # fmt: skip

# one mistake per part in each submission: every part still has at least two wrong answers
WRONG = [
    together(FIT_KIT, KNEE_KIT, OV_WORKER, NUM_SUM),
    together(FIT_SLOPE, OV_NO_POLL, NUM_BLOCKING),
    together(FIT_MEDIANS, KNEE_LOW, OV_EVERY_STEP),
]
