"""Right answers to lab 03 written another way: lstsq and the centred normal equations for the
line; polyfit's weights and a closed-form weighted fit for the knee (searched from the top);
overlaps with MPI_Test on each request and chunks of two steps, or a team sharing the steps by
hand, or a dynamic schedule behind a barrier (no communication thread: a master that only posts
and waits while the others compute is not the exercise: tests/gaming/03_point_to_point.py);
medians through the statistics module or the 50th percentile."""

from honest import right

HONEST = [
    # (a) fit_hockney
    right("fit_hockney", """
def fit_hockney(sizes, seconds) -> tuple[float, float]:
    s = np.asarray(sizes, dtype=float)
    t = np.asarray(seconds, dtype=float)
    design = np.vstack([np.ones_like(s), s]).T
    (alpha, per_byte), *_ = np.linalg.lstsq(design, t, rcond=None)
    return float(alpha), float(1.0 / per_byte)
""", why="np.linalg.lstsq on the design [1, s], unscaled"),
    right("fit_hockney", """
def fit_hockney(sizes, seconds) -> tuple[float, float]:
    s = np.array(list(sizes), dtype=np.float64)
    t = np.array(list(seconds), dtype=np.float64)
    ds, dt = s - s.mean(), t - t.mean()
    per_byte = float(np.dot(ds, dt) / np.dot(ds, ds))  # centred normal equations
    return float(t.mean() - per_byte * s.mean()), 1.0 / per_byte
""", why="the closed form: covariance over variance, centred"),
    # (b) locate_knee
    right("locate_knee", """
def locate_knee(sizes, seconds) -> float:
    frame = pd.DataFrame({"s": np.asarray(sizes, dtype=float), "t": np.asarray(seconds, dtype=float)})
    levels = np.sort(frame["s"].unique())
    errors = {}
    for cut in levels[3:len(levels) - 2]:
        total = 0.0
        for side in (frame[frame["s"] < cut], frame[frame["s"] >= cut]):
            slope, alpha = np.polyfit(side["s"], side["t"], 1, w=1.0 / side["t"])
            total += float((((side["t"] - (alpha + slope * side["s"])) / side["t"]) ** 2).sum())
        errors[float(cut)] = total
    return min(errors, key=errors.get)
""", why="np.polyfit with weights 1/T on each side, pandas for the split"),
    right("locate_knee", """
def locate_knee(sizes, seconds) -> float:
    s = np.asarray(sizes, dtype=float)
    t = np.asarray(seconds, dtype=float)
    levels = sorted(set(s.tolist()))

    def misfit(x, y):  # weighted least squares in closed form, weights 1/T^2
        w = 1.0 / y ** 2
        xm, ym = np.sum(w * x) / np.sum(w), np.sum(w * y) / np.sum(w)
        slope = np.sum(w * (x - xm) * (y - ym)) / np.sum(w * (x - xm) ** 2)
        return float(np.sum(w * (y - (ym - slope * xm) - slope * x) ** 2))

    best, knee = np.inf, None
    for cut in reversed(levels[3:-2]):  # from the top down: ties go to the larger size
        error = misfit(s[s < cut], t[s < cut]) + misfit(s[s >= cut], t[s >= cut])
        if error < best:
            best, knee = error, cut
    return float(knee)
""", why="a closed-form weighted fit (weights 1/T^2), searched from the largest size down"),
    # (d) overlap_exchange
    right("overlap_exchange", r"""
%%c OVERLAP_C p2p_overlap
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int sent = 0, got = 0;
#pragma omp parallel
    {
        int master = omp_get_thread_num() == 0;
        if (master) {
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 7, comm, &reqs[1]);
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 7, comm, &reqs[0]);
        }
        long since = 0;
#pragma omp for schedule(static, 2) nowait
        for (long i = 0; i < steps; i++) {
            compute_step(i);
            if (master && !(sent && got) && since++ % poll == 0) {
                if (!got) MPI_Test(&reqs[0], &got, MPI_STATUS_IGNORE);
                if (!sent) MPI_Test(&reqs[1], &sent, MPI_STATUS_IGNORE);
            }
        }
        if (master && !(sent && got)) MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    }
}
""", why="send posted first, MPI_Test on each request, static chunks of two steps"),
    right("overlap_exchange", r"""
%%c OVERLAP_C p2p_overlap
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request r[2];
#pragma omp parallel
    {
        const int me = omp_get_thread_num(), team = omp_get_num_threads();
        int complete = 0;
        long done_here = 0;
        if (me == 0) {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 1, comm, r);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 1, comm, r + 1);
        }
        for (long i = me; i < steps; i += team) {  /* the steps dealt out by hand */
            compute_step(i);
            if (me == 0 && !complete && ++done_here % poll == 0)
                MPI_Testall(2, r, &complete, MPI_STATUSES_IGNORE);
        }
        if (me == 0 && !complete) MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
}
""", why="no omp for: each thread takes every team-th step, thread 0 posts, polls and waits"),
    right("overlap_exchange", r"""
%%c OVERLAP_C p2p_overlap
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request q[2];
    int finished = 0;
    long polled_at = 0;
#pragma omp parallel shared(finished, polled_at)
    {
#pragma omp masked
        {
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 3, comm, &q[1]);
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 3, comm, &q[0]);
        }
#pragma omp barrier
#pragma omp for schedule(dynamic, 1) nowait
        for (long i = 0; i < steps; i++) {
            compute_step(i);
            if (omp_get_thread_num() == 0 && !finished && polled_at++ % poll == 0)
                MPI_Testall(2, q, &finished, MPI_STATUSES_IGNORE);
        }
#pragma omp masked
        if (!finished) MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    }
}
""", why="a dynamic schedule, the team held by a barrier until the master has posted"),
    # (e) overlap_numbers
    right("overlap_numbers", """
import statistics


def overlap_numbers(medians):
    c, m = float(medians["compute"]), float(medians["message"])
    longer, shorter = (c, m) if c >= m else (m, c)
    return longer, (float(medians["blocking"]) - float(medians["student"])) / shorter


_by = {}
for _v, _sec in zip(overlap_runs.records["variant"], overlap_runs.records["seconds"]):
    _by.setdefault(str(_v), []).append(float(_sec))
_med = {v: statistics.median(x) for v, x in _by.items()}
PREDICTED_OVERLAP_S, HIDDEN_FRACTION = overlap_numbers(_med)
""", why="a conditional for the longer and the shorter; the records grouped by hand, "
         "statistics.median, handed in as a dict"),
    right("overlap_numbers", """
def overlap_numbers(medians):
    smaller, larger = sorted([medians["compute"], medians["message"]])
    return float(larger), float((medians["blocking"] - medians["student"]) / smaller)


_t = {v: float(np.percentile(g.to_numpy(), 50))
      for v, g in overlap_runs.records.groupby("variant")["seconds"]}
PREDICTED_OVERLAP_S, HIDDEN_FRACTION = overlap_numbers(_t)
""", why="the 50th percentile (the mean of the middle two), a sorted pair"),
    right("overlap_numbers", """
def overlap_numbers(medians):
    t = medians.to_dict()
    gap = abs(t["compute"] - t["message"])
    perfect = (t["compute"] + t["message"] + gap) / 2  # the larger, without max
    hidden = (t["blocking"] - t["student"]) / (perfect - gap)  # and the smaller
    return perfect, hidden


PREDICTED_OVERLAP_S, HIDDEN_FRACTION = overlap_numbers(overlap_medians)
""", why="the larger and smaller as (sum +- difference) / 2, from the Series' dict"),
    right("overlap_numbers", """
def overlap_numbers(medians) -> tuple[float, float]:
    perfect = max(medians["compute"], medians["message"])
    return perfect, (medians["blocking"] - medians["student"]) / min(medians["compute"], medians["message"])


PREDICTED_OVERLAP_S, HIDDEN_FRACTION = overlap_numbers(overlap_medians)
fig, ax = plt.subplots(figsize=(4, 2))
ax.bar(list(overlap_medians.index), list(overlap_medians.values * 1e3))
ax.axhline(PREDICTED_OVERLAP_S * 1e3, ls="--", label="perfect")
plt.show()
""", why="a fresh attacker's right answer that draws a bar chart with the first cell's plt (lost "
         "2/2 while the cell ran again apart without plt)"),
    right("overlap_exchange", r"""
%%c OVERLAP_C p2p_overlap
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int done = 0;
#pragma omp parallel shared(req, done)
    {
#pragma omp masked
        {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 17, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 17, comm, &req[1]);
        }
        long own = 0;
        int master = omp_get_thread_num() == 0;
#pragma omp for schedule(static) nowait
        for (long i = 0; i < steps; i++) {
            compute_step(i);
            if (master && !done && ++own % poll == 0)
                MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
        }
#pragma omp masked
        if (!done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
#pragma omp barrier
    }
}
""", why="fresh attacker (h03a): static schedule, the master tests both requests every `poll` of its own steps"),
    right("overlap_exchange", r"""
%%c OVERLAP_C p2p_overlap
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request sreq, rreq;
    int sent = 0, got = 0;
#pragma omp parallel
    {
#pragma omp masked
        {
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 3, comm, &sreq);
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 3, comm, &rreq);
        }
#pragma omp barrier
        long mine = 0;
#pragma omp for schedule(dynamic, 2) nowait
        for (long i = 0; i < steps; i++) {
            compute_step(i);
            if (omp_get_thread_num() == 0 && ++mine % poll == 0) {
                if (!got) MPI_Test(&rreq, &got, MPI_STATUS_IGNORE);
                if (!sent) MPI_Test(&sreq, &sent, MPI_STATUS_IGNORE);
            }
        }
#pragma omp masked
        {
            if (!got) MPI_Wait(&rreq, MPI_STATUS_IGNORE);
            if (!sent) MPI_Wait(&sreq, MPI_STATUS_IGNORE);
        }
#pragma omp barrier
    }
}
""", why="fresh attacker (h03b): a barrier after posting, dynamic,2, two MPI_Test calls"),
    right("overlap_exchange", r"""
%%c OVERLAP_C p2p_overlap
/* the master polls more, so it takes half a share: static split by hand, the master's block
 * first and shorter */
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int done = 0;
#pragma omp parallel
    {
        int me = omp_get_thread_num(), team = omp_get_num_threads();
        long lo, hi;
        if (team == 1) { lo = 0; hi = steps; }
        else {
            long head = steps / (2 * team) + 1;   /* the master's half share */
            long rest = steps - head, per = (rest + team - 2) / (team - 1);
            lo = me == 0 ? 0 : head + (me - 1) * per;
            hi = me == 0 ? head : (lo + per < steps ? lo + per : steps);
        }
        if (me == 0) {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 5, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 5, comm, &req[1]);
        }
        long mine = 0;
        for (long i = lo; i < hi; i++) {
            compute_step(i);
            if (me == 0 && !done && mine++ % poll == 0) MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
        }
        if (me == 0 && !done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
}
""", why="the master takes half a share (steps / (2T) + 1, split by hand) since it also polls: "
         "at _check_stalls' floor for a master that waits while the others compute nothing "
         "inside the window"),
    right("overlap_exchange", r"""
%%c OVERLAP_C p2p_overlap
/* Right answer, unusual: no worksharing construct, each thread computes its own block of the
 * steps by hand; the master tests each request with its own MPI_Test and completes what is
 * left with MPI_Wait, one request at a time. */
static void my_block(long steps, int t, int nt, long *lo, long *hi) {
    long base = steps / nt, extra = steps % nt;
    *lo = t * base + (t < extra ? t : extra);
    *hi = *lo + base + (t < extra);
}

void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request recv_req, send_req;
#pragma omp parallel
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        long lo, hi;
        my_block(steps, t, nt, &lo, &hi);
        if (t == 0) {
            int got = 0, gone = 0;
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 5, comm, &recv_req);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 5, comm, &send_req);
            for (long i = lo; i < hi; i++) {
                compute_step(i);
                if ((i - lo + 1) % poll == 0 && !(got && gone)) {
                    if (!got) MPI_Test(&recv_req, &got, MPI_STATUS_IGNORE);
                    if (!gone) MPI_Test(&send_req, &gone, MPI_STATUS_IGNORE);
                }
            }
            if (!got) MPI_Wait(&recv_req, MPI_STATUS_IGNORE);
            if (!gone) MPI_Wait(&send_req, MPI_STATUS_IGNORE);
        } else {
            for (long i = lo; i < hi; i++) compute_step(i);
        }
    }
}
""", why="fresh attacker (T03r_blocks): no worksharing construct, no barrier: each thread its own block by hand, the master tests each request with its own MPI_Test and waits for each with MPI_Wait"),
    right("overlap_exchange", r"""
%%c OVERLAP_C p2p_overlap
/* Right answer, unusual: thread 0 tested by number (no masked), a barrier after posting, and a
 * dynamic schedule; the master counts its own steps and tests every `poll` of them. */
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int done = 0;
#pragma omp parallel shared(done, req)
    {
        int me = omp_get_thread_num();
        if (me == 0) {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 11, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 11, comm, &req[1]);
        }
#pragma omp barrier
        long own = 0;
#pragma omp for schedule(dynamic, 2) nowait
        for (long i = 0; i < steps; i++) {
            compute_step(i);
            if (me == 0 && !done && ++own % poll == 0)
                MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE);
        }
        if (me == 0 && !done) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
}
""", why="fresh attacker (T03r_dyn): thread 0 by number, a barrier after posting, schedule(dynamic, 2), the master counts its own steps"),
    right("overlap_exchange", r"""
%%c OVERLAP_C p2p_overlap
/* Right answer, unusual: no worksharing construct; every thread computes its own contiguous
 * block of the steps, the master (thread 0, which posted before the barrier) tests each request
 * with its own MPI_Test every `poll` of its steps until both are done, then completes them. */
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
#pragma omp parallel
    {
        int me = omp_get_thread_num(), nt = omp_get_num_threads();
#pragma omp masked
        {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 3, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 3, comm, &req[1]);
        }
#pragma omp barrier
        long lo = steps * me / nt, hi = steps * (me + 1) / nt;
        int open = 2;
        for (long i = lo; i < hi; i++) {
            compute_step(i);
            if (me == 0 && open && (i - lo + 1) % poll == 0) {
                for (int r = 0; r < 2; r++) {
                    if (req[r] == MPI_REQUEST_NULL) continue;
                    int flag = 0;
                    MPI_Test(&req[r], &flag, MPI_STATUS_IGNORE);
                    if (flag) open--;
                }
            }
        }
        if (me == 0 && open) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
}
""", why="fresh attacker (attacker V's R03_blocks): no worksharing construct, contiguous blocks by "
         "hand, the master tests each request with its own MPI_Test every `poll` of its steps"),
    right("overlap_exchange", r"""
%%c OVERLAP_C p2p_overlap
/* Right answer, another way: the master (masked) posts the send first, then the receive; a
 * barrier; a guided schedule; the master polls with MPI_Testany (a completed request comes back
 * null, so each poll tests what is still open); after its share, MPI_Waitall. */
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2];
    int left = 2;
#pragma omp parallel shared(req, left)
    {
#pragma omp masked
        {
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 5, comm, &req[0]);
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 5, comm, &req[1]);
        }
#pragma omp barrier
        long mine = 0;
        int master = omp_get_thread_num() == 0;
#pragma omp for schedule(guided) nowait
        for (long i = 0; i < steps; i++) {
            compute_step(i);
            if (master && left > 0 && ++mine % poll == 0) {
                int idx, flag;
                MPI_Testany(2, req, &idx, &flag, MPI_STATUS_IGNORE);
                if (flag && idx != MPI_UNDEFINED) left--;
            }
        }
        if (master && left > 0) MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
}
""", why="fresh attacker (attacker V's R03_testany): the send posted first, a barrier, "
         "schedule(guided), the master polls with MPI_Testany, then MPI_Waitall"),
    right("overlap_exchange", r"""
%%c OVERLAP_C p2p_overlap
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request rs = MPI_REQUEST_NULL, rr = MPI_REQUEST_NULL;
    int sdone = 0, rdone = 0;
#pragma omp parallel default(shared)
    {
        int id = omp_get_thread_num(), nt = omp_get_num_threads();
        if (id == 0) {
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 42, comm, &rs);
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 42, comm, &rr);
        }
#pragma omp barrier
        long lo = steps * id / nt, hi = steps * (id + 1) / nt;
        long k = 0;
        for (long i = hi - 1; i >= lo; i--) {
            compute_step(i);
            k++;
            if (id == 0 && k >= poll && !(sdone && rdone)) {
                k = 0;
                if (!sdone) MPI_Test(&rs, &sdone, MPI_STATUS_IGNORE);
                if (!rdone) MPI_Test(&rr, &rdone, MPI_STATUS_IGNORE);
            }
        }
        if (id == 0) {
            if (!sdone) MPI_Wait(&rs, MPI_STATUS_IGNORE);
            if (!rdone) MPI_Wait(&rr, MPI_STATUS_IGNORE);
        }
    }
}
""", why="fresh attacker A11's r03_2 (2026-12-07): the send posted first, blocks split by hand "
         "and walked backwards, the master tests each request with MPI_Test every `poll` of its "
         "steps, then MPI_Wait on each"),
    right("overlap_exchange", r"""
%%c OVERLAP_C p2p_overlap
void overlap_exchange(const double *out, double *in, long count, int peer, MPI_Comm comm,
                      long steps, long poll) {
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int left = 2;
#pragma omp parallel
    {
#pragma omp masked
        {
            MPI_Irecv(in, (int)count, MPI_DOUBLE, peer, 1, comm, &req[0]);
            MPI_Isend(out, (int)count, MPI_DOUBLE, peer, 1, comm, &req[1]);
        }
#pragma omp barrier
        long mine = 0;
#pragma omp for schedule(dynamic) nowait
        for (long i = 0; i < steps; i++) {
            compute_step(i);
            if (omp_get_thread_num() == 0 && left > 0 && ++mine % poll == 0) {
                int idx, flag;
                MPI_Testany(2, req, &idx, &flag, MPI_STATUS_IGNORE);
                if (flag && idx != MPI_UNDEFINED) left--;
            }
        }
#pragma omp masked
        while (left > 0) {
            int idx;
            MPI_Waitany(2, req, &idx, MPI_STATUS_IGNORE);
            left--;
        }
    }
}
""", why="fresh attacker A11's r03_3 (2026-12-07): schedule(dynamic) behind a barrier, the master "
         "polls with MPI_Testany, then MPI_Waitany until both are done"),
]
