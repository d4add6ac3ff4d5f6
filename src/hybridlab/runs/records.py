"""The tidy result table every run returns: one row per record, plus where and how it ran.

Kernels write JSON lines (hybridlab.h). Lines with "meta": true describe a rank; all others are
records with at least rank, thread, cpu and numa. Results keeps both, and the warnings of the run;
every record gets the `host` (node) of its rank from the rank's description, when the kernel did
not write one itself, so that records of ranks on several nodes say where each ran.
A kernel built with trace_mpi=True also writes one "mpi_call" record per MPI call it made (a
point-to-point call with its peer as an MPI_COMM_WORLD rank, -1 for MPI_PROC_NULL, and bytes; a
partitioned call with its request and partitions: kernels_c/hl_trace.c) and an
"mpi_trace" summary per rank (hl_mpi_trace.h): they go to Results.mpi_calls and
meta["mpi_trace"], so the kernel's own records read the same traced or not; the "computed"
intervals the kit's helpers record for student C (hl_trace_compute, hl_trace_rows) go to
Results.compute.
A traced kernel's lines are framed by the kit's tracer object with the run's key, numbered and
counted per rank (parse_framed): only those are records, whatever else the program prints.
"""

from __future__ import annotations

import bisect
import html
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..errors import RequestsLeftOpen

PLACE_COLUMNS = ["rank", "thread", "cpu", "numa"]
WHERE_COLUMNS = (*PLACE_COLUMNS, "host")  # where a record ran: they differ between ranks
CALL_RECORD, TRACE_RECORD = "mpi_call", "mpi_trace"  # written by hl_mpi_trace.h
COMPUTE_RECORD = "computed"  # hl_trace_compute: a kit helper's computation, start and end
EVIDENCE_META = ("ranks", "mpi_trace", "thread_level", "kernel")  # what Results.evidence keeps


class RecordError(ValueError):
    """A kernel's output could not be read as records."""


# a value C's printf writes for a double that is not finite ("nan", "-nan", "inf", "-inf"),
# which JSON has no word for: read as Python's json reads NaN and Infinity
_NONFINITE = re.compile(r"(?<=[:,\[])(-?)(nan|inf)(?=[,}\]])")


def _finite_words(line: str) -> str:
    """`line` with C's words for non-finite doubles put as Python's json module reads them."""
    return _NONFINITE.sub(lambda m: "NaN" if m[2] == "nan" else f"{m[1]}Infinity", line)


def parse_lines(text: str, source: str = "kernel") -> tuple[list[dict], list[dict]]:
    """Split JSON-lines output into (records, rank metadata); other lines are an error. A
    double that is not finite (a NaN checksum of a wrong answer) reads as NaN or infinity."""
    records, ranks = [], []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        try:
            row = json.loads(_finite_words(line))
        except json.JSONDecodeError as err:
            raise RecordError(
                f"{source}: line {n} is not a JSON record: {line[:120]!r}. A kernel's standard "
                "output carries records only (hl_record, written by the kit at the end): print "
                "messages to standard error (fprintf(stderr, ...)), or stop with hl_fail(ctx, ...)"
            ) from err
        if not isinstance(row, dict):
            raise RecordError(f"{source}: line {n} is not a JSON object: {line[:120]!r}")
        (ranks if row.pop("meta", False) else records).append(row)
    return records, ranks


FRAME = "@hl"  # a record line of a traced kernel: "@hl KEY RANK SEQ {json}" (kernels_c/hl_trace.c)
NO_KEY = "-"  # the key of a run the harness gave none (in-process runs: no stdout involved)


# the records a rank writes once in a run (its framed lines: its own, whichever kernel; "meta",
# its description, too): a second one of a rank is forged (parse_framed)
ONCE_A_RANK = ("node", "laid_out", "check", "salt", "memory", "mpi_trace", "mpi_init",
               "stream_origin")  # fmt: skip


def parse_framed(
    text: str, key: str, source: str = "kernel", ranks: int | None = None
) -> tuple[list[dict], list[dict], list[str]]:
    """Split the output of a traced kernel into (records, rank metadata, the program's own
    lines). Records are only the lines the kit's tracer framed with the run's `key`, numbered per
    rank and counted by the rank's closing line; a framed line with another key, a number
    missing or twice, a rank without its closing line, or a closing line that says the records'
    buffer was written by anything but the kit is a RecordError: records forged (check_trace
    then counts each rank's calls and pieces, from its records or its stream). So is a frame of
    a rank the run does not have (`ranks`, the run's number of ranks: 0 to ranks - 1; without
    it, the "size" its ranks' descriptions give), a record whose "rank" is not its frame's, and
    a second record of a kind a rank writes once (ONCE_A_RANK, and its description). Every
    other line is the program's (a student's printf) and never a record."""
    lines: dict[int, dict[int, str]] = {}
    ends: dict[int, tuple[int, int]] = {}
    output: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.startswith(FRAME + " "):
            if line.strip():
                output.append(line)
            continue
        parts = line.split(" ", 4)
        if len(parts) < 5 or parts[1] != key or not parts[2].isdigit():
            raise RecordError(f"{source}: line {n} is framed as a kit record without the run's "
                              "key: records forged")  # fmt: skip
        rank = int(parts[2])
        if ranks is not None and rank >= ranks:
            raise RecordError(f"{source}: line {n} is framed as a record of rank {rank}, which "
                              f"the run of {ranks} ranks does not have: records forged")  # fmt: skip
        if parts[3] == "end":
            count, ok = (parts[4].split() + ["", ""])[:2]
            if rank in ends or not count.isdigit() or ok not in ("0", "1"):
                raise RecordError(f"{source}: rank {rank}'s records close twice or malformed")
            ends[rank] = (int(count), int(ok))
        elif parts[3].isdigit():
            mine = lines.setdefault(rank, {})
            if int(parts[3]) in mine:
                raise RecordError(f"{source}: rank {rank}'s record {parts[3]} appears twice")
            mine[int(parts[3])] = parts[4]
        else:
            raise RecordError(f"{source}: line {n} is not a kit record frame")
    for rank in sorted(set(lines) | set(ends)):
        if any(STREAM_FULL in line for line in lines.get(rank, {}).values()):
            raise RecordError(
                f"{source}: rank {rank} made more MPI calls than its trace keeps (the stream "
                "stopped at its size limit), too many to judge: a thread that tests until its "
                "requests complete should pause between tests (hl_sleep_us)")
        count, ok = ends.get(rank, (-1, 0))
        if rank not in ends or sorted(lines.get(rank, {})) != list(range(count)):
            raise RecordError(f"{source}: rank {rank}'s records are not the {count} the kit "
                              "counted: records lost or forged")  # fmt: skip
        if not ok:
            raise RecordError(f"{source}: rank {rank}'s records were written by code other "
                              "than the kit's (the records' buffer changed): records forged")
    records, metas = [], []
    for rank in sorted(lines):
        mine, meta = parse_lines("\n".join(lines[rank][i] for i in range(len(lines[rank]))),
                                 f"{source} rank {rank}")  # fmt: skip
        _own_records(mine, meta, rank, source)
        records += mine
        metas += meta
    sizes = {str(m["size"]) for m in metas if "size" in m}
    if len(sizes) > 1 or any(not size.isdigit() or int(size) <= max(lines) for size in sizes):
        raise RecordError(f"{source}: the ranks' descriptions give the run's size as "
                          f"{', '.join(sorted(sizes))} and records are framed for ranks "
                          f"{sorted(lines)}: records forged")  # fmt: skip
    return _from_stream(records, source), metas, output


def _own_records(records: list[dict], metas: list[dict], rank: int, source: str) -> None:
    """RecordError unless every record and description framed as `rank`'s says it is `rank`'s
    and the rank wrote each kind of ONCE_A_RANK, and its description, at most once."""
    described = [("description", row) for row in metas]
    for kind, row in (*described, *((repr(r.get("record", "plain")), r) for r in records)):
        said = row.get("rank")
        if said != rank or isinstance(said, bool):
            raise RecordError(f"{source}: a {kind} record framed as rank {rank}'s says rank "
                              f"{said!r}: records forged")  # fmt: skip
    kinds = Counter(str(row.get("record")) for row in records if row.get("record") in ONCE_A_RANK)
    kinds["description"] = len(metas)
    for kind, seen in sorted(kinds.items()):
        if seen > 1:
            raise RecordError(f"{source}: rank {rank} has {seen} {kind!r} records, of which a "
                              "rank writes one: records forged")  # fmt: skip


STREAM_ORIGIN = "stream_origin"  # a trace stream's first line: the clock's origin (hl_trace.c)
STREAM_FULL = '"record":"stream_full"'  # a stream's line when it reached its size limit
STREAM_STEP = "step"  # a trace stream's line: the kernel started an iteration, and when


def _from_stream(records: list[dict], source: str) -> list[dict]:
    """A trace stream's records with their times from the origin its first line gives (the lines
    after it carry the clock's own times) and the kernel's iteration marked from its step lines
    (a call: the last step begun when it began; a piece of computing: when it ended); other
    records as they are."""
    origins = {r.get("rank"): r for r in records if r.get("record") == STREAM_ORIGIN}
    if not origins:
        return records
    marks: dict[object, list[tuple[float, int]]] = {}
    out = []
    for row in records:
        first = origins.get(row.get("rank"))
        if row is first:
            continue
        if first is None or ("start" not in row and row.get("record") != STREAM_STEP):
            raise RecordError(f"{source}: rank {row.get('rank')}'s stream has no origin first")
        base = float(first["origin"])
        if row.get("record") == STREAM_STEP:
            marks.setdefault(row["rank"], []).append((float(row["at"]) - base, int(row["step"])))
            continue
        out.append({**row, "start": row["start"] - base, "end": row["end"] - base})
    for steps in marks.values():
        steps.sort()
    for row in out:
        steps = marks.get(row["rank"], [])
        when = row["end"] if row.get("record") == COMPUTE_RECORD else row["start"]
        at = bisect.bisect_right(steps, when, key=lambda mark: mark[0])
        row["step"] = steps[at - 1][1] if at else -1
    return out


def check_trace(traces: list[dict], calls: list[dict], pieces: list[dict]) -> None:
    """Each rank's trace summary against the calls and pieces of computing read for it (from its
    records or its stream): RecordError when a count differs (records lost or forged)."""
    counts = {"kept": Counter(row.get("rank") for row in calls),
              "computed": Counter(row.get("rank") for row in pieces)}  # fmt: skip
    for summary in traces:
        rank = summary["rank"]
        for what, field_ in (("MPI calls", "kept"), ("computed", "computed")):
            got = counts[field_][rank]
            if got != summary.get(field_, 0):
                raise RecordError(f"rank {rank} has {got} {what} records, its trace counted "
                                  f"{summary.get(field_)}: records lost or forged")  # fmt: skip


# Calls that post a request with data in flight (point to point and the non-blocking
# collectives the windows of hybridlab.runs.student_c open on), and every call of a cell that
# makes a request active (hl_trace_calls.h)
POSTS = (
    "MPI_Isend",
    "MPI_Issend",
    "MPI_Ibsend",
    "MPI_Irsend",
    "MPI_Irecv",
    "MPI_Isendrecv",
    "MPI_Isendrecv_replace",
    "MPI_Ibarrier",
    "MPI_Ibcast",
    "MPI_Iallreduce",
    "MPI_Ireduce",
    "MPI_Ialltoall",
)
# Calls that send and receive in one (MPI-4's non-blocking ones post a request): their record has
# the send side's peer and bytes and the receive side's recv_peer and recv_bytes
SENDRECVS = ("MPI_Sendrecv", "MPI_Sendrecv_replace", "MPI_Isendrecv", "MPI_Isendrecv_replace")
# Calls that make or free communicators and groups: collective over their communicator, but
# moving none of the program's data
COMM_MAKERS = ("MPI_Comm_dup", "MPI_Comm_dup_with_info", "MPI_Comm_split", "MPI_Comm_split_type",
               "MPI_Comm_create", "MPI_Comm_create_group", "MPI_Comm_group", "MPI_Group_incl",
               "MPI_Group_excl", "MPI_Group_translate_ranks", "MPI_Group_free", "MPI_Comm_free")
REQUEST_MAKERS = frozenset({
    *POSTS, "MPI_Ineighbor_alltoall", "MPI_Ineighbor_alltoallv", "MPI_Ineighbor_alltoallw",
    "MPI_Ineighbor_allgather", "MPI_Ineighbor_allgatherv", "MPI_Start",
    "MPI_Imrecv"})  # fmt: skip
_ENDS_ONE = ("MPI_Waitany", "MPI_Testany", "MPI_Request_free")
_ENDS_LISTED = ("MPI_Waitsome", "MPI_Testsome")  # "requests": the ones it completed
_ENDS_LIVE = ("MPI_Wait", "MPI_Test", "MPI_Waitall", "MPI_Testall")  # "live": those given


def check_requests(traces: list[dict], calls: list[dict]) -> None:
    """RequestsLeftOpen when a rank's cell (the calls with "student": 1) made more requests
    active than its waits, tests and MPI_Request_free ended: a send's request never completed
    leaves its buffer MPI's and the message's arrival unknown (MPI_Finalize with requests still
    active is erroneous). Judged only where the trace kept every call; a wait on a persistent
    request already inactive, or MPI_Startall, can only hide a leak, never make one up."""
    if any(t.get("kept") != t.get("calls") for t in traces):
        return
    made, ended = Counter(), Counter()
    for call in calls:
        if call.get("student") != 1:
            continue
        name, rank = call.get("call"), call.get("rank")
        if name in REQUEST_MAKERS:
            made[rank] += 1
        elif name == "MPI_Request_free" or (call.get("done") and name in _ENDS_ONE):
            ended[rank] += 1
        elif call.get("done") and name in _ENDS_LISTED:
            ended[rank] += len(str(call.get("requests", "")).split(","))
        elif call.get("done") and name in _ENDS_LIVE:
            ended[rank] += int(call.get("live") or 0)
    for rank in sorted(made, key=str):
        if made[rank] > ended[rank]:
            raise RequestsLeftOpen(
                f"rank {rank}: {made[rank] - ended[rank]} of the {made[rank]} requests the cell "
                "made active (MPI_Isend, MPI_Irecv, MPI_Imrecv, a non-blocking collective, "
                "MPI_Start) were "
                "never completed by a wait or test: every request is completed (MPI_Wait, "
                "MPI_Waitall, a test that reports it done) before the function returns; a "
                "send's buffer is MPI's until then")


COMPUTE_GAP = 20e-6  # a thread's pieces of computing closer than this (no MPI call between): one


def join_pieces(rows: list[dict], calls: list[dict]) -> list[dict]:
    """The intervals of computing of the pieces the tracer recorded (hl_trace_compute, with the
    thread's "tid"): a thread's pieces less than COMPUTE_GAP apart with no MPI call of that
    thread begun between them (`calls`, the trace), joined, with the number joined ("pieces"); a
    piece of grid rows (hl_trace_rows: "first" >= 0) is an interval of its own. Rows without a
    tid (recorded before pieces were) are intervals already."""
    began: dict[tuple, list[float]] = {}
    for call in calls:
        began.setdefault((call.get("rank"), call.get("tid")), []).append(call.get("start", 0.0))
    for starts in began.values():
        starts.sort()
    out: list[dict] = []
    current: dict[tuple, dict] = {}
    for row in sorted(rows, key=lambda r: (r.get("rank", 0), r.get("tid", 0), r.get("start", 0))):
        if "tid" not in row:
            out.append(row)
            continue
        where = (row.get("rank"), row.get("tid"))
        last = current.get(where)
        if (last is not None and row["first"] < 0 and last["first"] < 0
                and row["start"] - last["end"] < COMPUTE_GAP
                and not _began_between(began.get(where, []), last["end"], row["start"])):
            last["end"] = row["end"]
            last["pieces"] += 1
        else:
            current[where] = dict(row)
            out.append(current[where])
    return out


def _began_between(starts: list[float], low: float, high: float) -> bool:
    """Does a start of the sorted `starts` fall in [low, high]?"""
    at = bisect.bisect_left(starts, low)
    return at < len(starts) and starts[at] <= high


@dataclass
class Results:
    """Records of one run as a DataFrame, its metadata, and warnings about trusting it."""

    records: pd.DataFrame
    meta: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # one row per MPI call of a kernel built with trace_mpi=True (hl_mpi_trace.h), else empty
    mpi_calls: pd.DataFrame = field(default_factory=pd.DataFrame)
    # one row per interval a kit helper computed in (rank, thread, start, end; the rows "first"
    # and "last" of a grid helper, -1 for others; the kernel's iteration "step", -1 unmarked)
    compute: pd.DataFrame = field(default_factory=pd.DataFrame)

    @classmethod
    def from_rows(
        cls, rows: list[dict], ranks: list[dict], meta: dict, warnings: list[str]
    ) -> Results:
        kind = [row.get("record") for row in rows]
        calls = [row for row, k in zip(rows, kind, strict=True) if k == CALL_RECORD]
        traces = [row for row, k in zip(rows, kind, strict=True) if k == TRACE_RECORD]
        compute = [row for row, k in zip(rows, kind, strict=True) if k == COMPUTE_RECORD]
        if traces:
            check_trace(traces, calls, compute)
            check_requests(traces, calls)
        compute = join_pieces(compute, calls)
        traced = (CALL_RECORD, TRACE_RECORD, COMPUTE_RECORD)
        rows = [row for row, k in zip(rows, kind, strict=True) if k not in traced]
        hosts = {r["rank"]: r["host"] for r in ranks if "rank" in r and "host" in r}
        if hosts:
            rows = [row if "host" in row else {**row, "host": hosts.get(row.get("rank"))}
                    for row in rows]  # fmt: skip
        meta = dict(meta)
        meta["ranks"] = sorted(ranks, key=lambda r: r.get("rank", 0))
        if hosts:
            meta["hosts"] = sorted(set(hosts.values()))
        if ranks:
            meta.setdefault("thread_level", ranks[0].get("thread_level"))
            meta.setdefault("mpi_library", " ".join(ranks[0].get("mpi_library", "").split()))
        if traces:
            meta["mpi_trace"] = sorted(traces, key=lambda r: r["rank"])
        mpi_calls = _table(calls, ["rank", "start"]) if traces else pd.DataFrame()
        intervals = _table(compute, ["rank", "start"]) if compute else pd.DataFrame()
        return cls(_table(rows, ["rank", "thread"]), meta, list(warnings), mpi_calls, intervals)

    def evidence(self) -> dict:
        """What a grader judges this run by, as plain data a judged hidden cell hands out of the
        student's kernel (grading.handout): the records, the MPI call trace, the computed
        intervals and the ranks' descriptions and trace summaries (from_evidence reads it back)."""
        meta = {k: self.meta[k] for k in EVIDENCE_META if k in self.meta}
        return {"records": self.records, "mpi_calls": self.mpi_calls, "compute": self.compute,
                "meta": meta}  # fmt: skip

    @classmethod
    def from_evidence(cls, data: dict) -> Results:
        """The run `evidence` described, in the grader's process."""
        return cls(data["records"], dict(data["meta"]), [], data["mpi_calls"], data["compute"])

    @property
    def traced(self) -> bool:
        """True when the kernel was built with trace_mpi=True (its MPI calls are recorded)."""
        return "mpi_trace" in self.meta

    def __len__(self) -> int:
        return len(self.records)

    def save(self, path: str | Path) -> Path:
        """Write records, metadata and warnings to one JSON file (nothing lost)."""
        path = Path(path)
        path.write_text(self.dumps())
        return path

    def dumps(self) -> str:
        """Records, calls, intervals, metadata and warnings as one JSON text (what a judged
        hidden cell hands out of the kernel: hybridlab.grading.handout)."""
        return json.dumps(
            {
                "records": self.records.to_dict(orient="records"),
                "mpi_calls": self.mpi_calls.to_dict(orient="records"),
                "compute": self.compute.to_dict(orient="records"),
                "meta": self.meta,
                "warnings": self.warnings,
            },
            indent=1,
            default=str,
        )

    @classmethod
    def loads(cls, text: str) -> Results:
        data = json.loads(text)
        calls = pd.DataFrame(data.get("mpi_calls", []))
        compute = pd.DataFrame(data.get("compute", []))
        return cls(pd.DataFrame(data["records"]), data["meta"], data["warnings"], calls, compute)

    @classmethod
    def load(cls, path: str | Path) -> Results:
        return cls.loads(Path(path).read_text())

    def _repr_html_(self) -> str:
        shown = ["kernel", "mpi_library", "thread_level", "placement", "machine", "probe"]
        rows = "".join(
            f"<tr><th style='text-align:left'>{k}</th><td style='text-align:left'>"
            f"{html.escape(str(self.meta[k]))}</td></tr>"
            for k in shown
            if k in self.meta
        )
        warn = "".join(
            f"<p style='color:#a40'><b>warning:</b> {html.escape(w)}</p>" for w in self.warnings
        )
        return f"{warn}<table>{rows}</table>{self.records.to_html(max_rows=40, index=False)}"

    def __repr__(self) -> str:
        warn = "".join(f"warning: {w}\n" for w in self.warnings)
        return f"{warn}{self.records.to_string(max_rows=40, index=False)}"


def _table(rows: list[dict], order: list[str]) -> pd.DataFrame:
    """Rows as a frame: place columns first (present even when empty), sorted stably."""
    frame = pd.DataFrame(rows)
    for col in PLACE_COLUMNS:
        if col not in frame:
            frame[col] = pd.Series(dtype="int64")
    frame = frame[PLACE_COLUMNS + [c for c in frame.columns if c not in PLACE_COLUMNS]]
    if len(frame):
        frame = frame.sort_values(order, kind="stable")
    return frame.reset_index(drop=True)


def as_frame(records: Results | pd.DataFrame) -> pd.DataFrame:
    """The records of a Results, or a DataFrame as it is."""
    return records.records if isinstance(records, Results) else records


def require_columns(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    """A clear error when records lack columns an analysis needs."""
    missing = sorted(set(columns) - set(frame.columns))
    if missing:
        raise ValueError(f"{what} need the columns {', '.join(columns)} (missing: {missing})")
