import json

import pytest

from hybridlab.errors import failed_rank
from hybridlab.runs.records import RecordError, Results, parse_framed, parse_lines
from tracer_probe import build_probe

OUTPUT = """{"meta":true,"rank":0,"thread_level":"funneled","mpi_library":"MPICH Version:   5.0.2"}
{"rank":0,"thread":1,"cpu":1,"numa":0,"seconds":0.5}
{"rank":0,"thread":0,"cpu":0,"numa":0,"seconds":0.25}
"""


def test_records_and_rank_metadata_are_separated():
    rows, ranks = parse_lines(OUTPUT)
    assert len(rows) == 2 and len(ranks) == 1 and "meta" not in ranks[0]


def test_lines_that_are_not_records_are_an_error_naming_the_line():
    with pytest.raises(RecordError, match="line 2 is not a JSON record"):
        parse_lines('{"rank":0}\nSegmentation fault\n', "demo")
    with pytest.raises(RecordError, match="not a JSON object"):
        parse_lines("[1, 2]\n")


def test_a_value_that_is_not_finite_is_read_as_nan_or_infinity():
    """C's printf writes a NaN checksum (a wrong answer's) as nan: a record all the same."""
    rows, _ = parse_lines('{"rank":0,"checksum":nan,"delta":-nan,"hi":inf,"lo":-inf,"s":"nan"}\n')
    row = rows[0]
    assert row["checksum"] != row["checksum"] and row["delta"] != row["delta"]
    assert row["hi"] == float("inf") and row["lo"] == float("-inf") and row["s"] == "nan"
    with pytest.raises(RecordError, match="line 1 is not a JSON record"):
        parse_lines("nan\n")


def test_results_are_tidy_sorted_and_survive_a_round_trip(tmp_path):
    rows, ranks = parse_lines(OUTPUT)
    res = Results.from_rows(rows, ranks, {"kernel": "demo"}, ["oversubscribed: ..."])
    assert list(res.records.columns[:4]) == ["rank", "thread", "cpu", "numa"]
    assert list(res.records["thread"]) == [0, 1]
    assert res.meta["mpi_library"] == "MPICH Version: 5.0.2"
    assert res.meta["thread_level"] == "funneled"
    assert "warning: oversubscribed" in repr(res) and "oversubscribed" in res._repr_html_()
    back = Results.load(res.save(tmp_path / "r.json"))
    assert back.records.equals(res.records) and back.warnings == res.warnings


def test_every_record_names_the_node_of_its_rank():
    rows = [
        {"rank": 1, "thread": 0, "cpu": 0, "numa": 0},
        {"rank": 0, "thread": 0, "cpu": 0, "numa": 0},
        {"rank": 0, "thread": 1, "cpu": 1, "numa": 0, "host": "written"},
    ]
    ranks = [{"rank": 0, "host": "node1"}, {"rank": 1, "host": "node2"}]
    res = Results.from_rows(rows, ranks, {}, [])
    assert list(res.records["host"]) == ["node1", "written", "node2"]  # the kernel's own wins
    assert res.meta["hosts"] == ["node1", "node2"]
    assert "host" not in Results.from_rows(rows[:2], [{"rank": 0}], {}, []).records


@pytest.mark.parametrize(
    "output, rank, how",
    [
        ("hybridlab: rank 3 died on signal 11\n", 3, "signal 11 (SIGSEGV)"),
        (
            "=   PID 4242 RUNNING AT vm\n=   EXIT CODE: 9\n=   CLEANING UP",
            1,
            "signal 9 (SIGKILL)",
        ),
        (
            "mpiexec noticed that process rank 2 with PID 0 on node vm exited on signal 6 (Aborted).",
            2,
            "signal 6 (SIGABRT)",
        ),
        ("all good", None, ""),
    ],
)
def test_the_dead_rank_is_read_from_the_report(output, rank, how):
    assert failed_rank(output, {4242: 1}) == (rank, how)


def test_streamed_pieces_of_computing_are_joined_as_the_tracer_once_did():
    from hybridlab.runs.records import COMPUTE_GAP, join_pieces

    def piece(start, end, first=-1, tid=7, rank=0):
        return {"rank": rank, "thread": 0, "tid": tid, "start": start, "end": end, "pieces": 1,
                "first": first, "last": first, "step": 0}  # fmt: skip

    gap = COMPUTE_GAP / 2
    rows = [piece(0.0, 1.0), piece(1.0 + gap, 2.0),  # one stretch: joined
            piece(2.0 + gap, 3.0),  # an MPI call of the thread began between: a new interval
            piece(3.0 + 2 * COMPUTE_GAP, 4.0),  # too far from the last: new
            piece(4.0 + gap, 5.0, first=3), piece(5.0 + gap, 6.0),  # rows stand alone
            piece(0.5, 0.6, tid=8), piece(0.6 + gap, 0.7, tid=8),  # another thread: joined
            {"rank": 0, "thread": 0, "start": 9.0, "end": 9.5, "pieces": 3}]  # recorded joined
    calls = [{"rank": 0, "tid": 7, "start": 2.0 + gap / 2}, {"rank": 0, "tid": 9, "start": 0.6}]
    joined = join_pieces(rows, calls)
    spans = sorted((r.get("tid", 0), r["start"], r["end"], r["pieces"]) for r in joined)
    assert spans == [(0, 9.0, 9.5, 3), (7, 0.0, 2.0, 2), (7, 2.0 + gap, 3.0, 1),
                     (7, 3.0 + 2 * COMPUTE_GAP, 4.0, 1), (7, 4.0 + gap, 5.0, 1),
                     (7, 5.0 + gap, 6.0, 1), (8, 0.5, 0.7, 2)]  # fmt: skip
    assert join_pieces(joined, calls) == joined  # joined again: the same


def test_a_trace_summary_must_count_the_calls_and_pieces_read():
    from hybridlab.runs.records import RecordError, check_trace

    summary = [{"rank": 0, "kept": 2, "computed": 1}]
    calls, pieces = [{"rank": 0}, {"rank": 0}], [{"rank": 0}]
    check_trace(summary, calls, pieces)
    for lost in ((calls[:1], pieces), (calls, []), (calls + [{"rank": 0}], pieces)):
        with pytest.raises(RecordError, match="lost or forged"):
            check_trace(summary, *lost)


def test_requests_a_cell_made_and_never_completed_are_refused():
    """A send request never waited (the rows of the next sweep overwrite a buffer MPI may still
    own) is refused; requests ended by Waitall (the live ones), Waitsome (the listed ones), a
    test that reports them done, or MPI_Request_free are not; the kit's own calls do not count,
    nor a trace that did not keep every call."""
    from hybridlab.errors import RequestsLeftOpen
    from hybridlab.runs.records import check_requests

    def call(name, **fields):
        return {"rank": 0, "call": name, "student": 1, **fields}

    posts = [call("MPI_Irecv"), call("MPI_Isend"), call("MPI_Isend"), call("MPI_Ibarrier")]
    whole = [{"rank": 0, "kept": 9, "calls": 9}]
    with pytest.raises(RequestsLeftOpen, match="rank 0: 2 of the 4 requests"):
        check_requests(whole, [*posts, call("MPI_Waitall", done=1, live=2)])
    check_requests(whole, [*posts, call("MPI_Waitall", done=1, live=4)])
    check_requests(whole, [*posts, call("MPI_Testall", done=0, live=4),
                           call("MPI_Waitsome", done=1, requests="3,7"),
                           call("MPI_Test", done=1, live=1), call("MPI_Request_free")])
    with pytest.raises(RequestsLeftOpen):
        check_requests(whole, [*posts, call("MPI_Testall", done=0, live=4),
                               call("MPI_Wait", done=1, live=0)])
    kit = [{**p, "student": 0} for p in posts]
    check_requests(whole, kit)
    check_requests([{"rank": 0, "kept": 4, "calls": 9}], posts)


# ------------------------------------------------------------- framed records (parse_framed)

KEY = "f00dfeed"


def _framed(rank: int, *lines: str, size: int = 2) -> str:
    """Rank `rank`'s framed records as the tracer writes them: its description, then `lines`."""
    body = [f'{{"meta":true,"rank":{rank},"size":{size}}}', *lines]
    return "".join(f"@hl {KEY} {rank} {i} {line}\n" for i, line in enumerate(body)) + \
        f"@hl {KEY} {rank} end {len(body)} 1\n"


def _node(rank: int, members: str = "0,1") -> str:
    return f'{{"rank":{rank},"thread":0,"cpu":0,"numa":0,"record":"node","members":"{members}"}}'


RUN = _framed(0, _node(0)) + _framed(1, _node(1))


def test_the_records_of_the_runs_ranks_are_read():
    records, ranks, output = parse_framed("hello\n" + RUN, KEY, "demo", 2)
    assert [(r["rank"], r["record"]) for r in records] == [(0, "node"), (1, "node")]
    assert [m["rank"] for m in ranks] == [0, 1] and output == ["hello"]


@pytest.mark.parametrize("forged, ranks, refusal", [
    # a fresh attacker (A12) read the key off the tracer's page and printed a rank the run has not
    (f'@hl {KEY} 70 0 {{"record":"node","rank":0,"members":"0"}}\n@hl {KEY} 70 end 1 1\n', 2,
     "rank 70, which the run of 2 ranks does not have"),
    (f'@hl {KEY} 70 0 {{"record":"forged","rank":70}}\n@hl {KEY} 70 end 1 1\n', None,
     "the run's size as 2 and records are framed for ranks \\[0, 1, 70\\]"),
    (f'@hl {KEY} 70 0 {{"record":"node","rank":0,"members":"0"}}\n@hl {KEY} 70 end 1 1\n', None,
     "a 'node' record framed as rank 70's says rank 0"),
], ids=["out of range", "beyond the described size", "its rank not its frame's"])
def test_a_rank_the_run_does_not_have_is_forged(forged, ranks, refusal):
    with pytest.raises(RecordError, match=refusal):
        parse_framed(RUN + forged, KEY, "demo", ranks)


def test_a_record_must_say_the_rank_of_its_frame():
    with pytest.raises(RecordError, match="a 'node' record framed as rank 1's says rank 0"):
        parse_framed(_framed(0, _node(0)) + _framed(1, _node(0)), KEY, "demo", 2)
    with pytest.raises(RecordError, match="a description record framed as rank 1's says rank 0"):
        parse_framed(_framed(0) + _framed(0).replace(f"{KEY} 0 ", f"{KEY} 1 "), KEY, "demo", 2)
    plain = '{"thread":0,"record":"sweep"}'  # no rank at all
    with pytest.raises(RecordError, match="framed as rank 0's says rank None"):
        parse_framed(_framed(0, plain), KEY, "demo", 1)


@pytest.mark.parametrize("kind", ["node", "laid_out", "check", "mpi_trace"])
def test_a_second_record_of_a_kind_a_rank_writes_once_is_forged(kind):
    line = f'{{"rank":1,"thread":0,"cpu":0,"numa":0,"record":"{kind}","members":"1"}}'
    with pytest.raises(RecordError, match=f"rank 1 has 2 '{kind}' records, of which a rank writes one"):
        parse_framed(_framed(0) + _framed(1, line, line), KEY, "demo", 2)
    sweep = '{"rank":1,"thread":0,"cpu":0,"numa":0,"record":"sweep","iteration":0}'
    parse_framed(_framed(0) + _framed(1, sweep, sweep), KEY, "demo", 2)  # many a rank: kept
    with pytest.raises(RecordError, match="rank 0 has 2 'description' records"):
        parse_framed(_framed(0, '{"meta":true,"rank":0,"size":2}'), KEY, "demo", 2)


def test_more_lines_than_a_rank_counted_are_forged():
    extra = RUN.replace(f"@hl {KEY} 1 end 2 1", f'@hl {KEY} 1 2 {_node(1)}\n@hl {KEY} 1 end 2 1')
    with pytest.raises(RecordError, match="rank 1's records are not the 2 the kit counted"):
        parse_framed(extra, KEY, "demo", 2)


def test_a_second_node_record_is_never_read_over_the_first():
    from hybridlab.shm.exercise import node_members
    rows = [{**json.loads(_node(0)), "rank": 0}, {**json.loads(_node(1)), "rank": 1},
            {**json.loads(_node(1, "1")), "rank": 1}]
    res = Results.from_rows(rows, [], {}, [])
    with pytest.raises(RecordError, match="rank 1 has more than one 'node' record"):
        node_members(res)
    assert node_members(Results.from_rows(rows[:2], [], {}, [])) == {0: {0, 1}, 1: {0, 1}}


KEY_PROBE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
void hl_trace_reset(void);

int main(int argc, char **argv) {  /* argv[1]: where the tracer's sealed page is, from main */
    const char *page = (const char *)main + atol(argv[1]);
    hl_trace_reset();  /* a run started: the key read from $HL_RECORD_KEY_FILE */
    const char *key = getenv("PROBE_KEY");
    for (int i = 0; i + (int)strlen(key) <= 4096; i++)  /* A12: the key at offset 32 of the page */
        if (memcmp(page + i, key, strlen(key)) == 0) { printf("found at %d\n", i); return 0; }
    puts("not on the sealed page");
    fflush(stdout);
    if (argc > 2) printf("%.8s\n", *(char *const *)(page + 32));  /* the key's own page */
    return 0;
}
"""


def test_the_runs_key_is_on_no_page_the_process_can_read(tmp_path):
    """A fresh attacker (A12) found the run's key on the tracer's sealed page (readable) and
    framed records of its own. The key is on a page of its own now, PROT_NONE, read by the
    tracer through /proc/self/mem for each framed line (kernels_c/hl_trace.c, key_copy): not on
    the sealed page, and reading its page faults."""
    import subprocess

    probe, offset = build_probe(tmp_path, KEY_PROBE)
    key = "k3yOfTheRun0123456789abcdef"
    (tmp_path / "key").write_text(key)
    env = {"PATH": "/usr/bin:/bin", "HL_RECORD_KEY_FILE": str(tmp_path / "key"), "PROBE_KEY": key}
    looked = subprocess.run([str(probe), offset], capture_output=True, text=True, timeout=60,
                            env=env)  # fmt: skip
    assert looked.returncode == 0 and "not on the sealed page" in looked.stdout, looked
    read = subprocess.run([str(probe), offset, "read"], capture_output=True, text=True,
                          timeout=60, env=env)  # fmt: skip
    assert read.returncode == -11 and key[:8] not in read.stdout, read  # SIGSEGV
