"""The runs of lab 07 (the only module of the topic that launches kernels): the OSU-style
alltoall sweep, pure vs hybrid at the same core count, the ping-pong sweep that gives the
Hockney parameters when lab 03's are not at hand, the 3-D FFT for several P x T, and the
student's two-level alltoall (kernels_c/alltoall_nodes.c) built, run on real and made-up nodes,
and checked against MPI_Alltoall; the alltoall with its ranks on several nodes (across_nodes).

    from hybridlab.collectives.exercise import osu_sweep, fft_runs, measure_hockney
    res = osu_sweep(ranks=2, max_bytes=1 << 20)
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Callable, Iterable

import pandas as pd

from ..kernels import archer, llvm_ir
from ..kernels.build import (
    Kernel,
)
from ..kernels.c_text import closing, code_only, functions, loops, pragma_spans, statement_end
from ..kernels.unit_checks import _libm_names, preprocessed_cell
from ..p2p.hockney import PiecewiseHockney, piecewise_hockney
from ..runs.launch import run_program
from ..runs.records import Results
from ..runs.student_c import (
    COLLECTIVES,
    build_student,
    comm_members,
    run_student,
    student_unit,
    unit_flags,
)

OSU_COUNTS = {"iterations": 1000, "skip": 100, "iterations_large": 100, "skip_large": 10}
QUICK_COUNTS = {"iterations": 100, "skip": 10, "iterations_large": 20, "skip_large": 2}


def osu_counts(quick: bool = False, scale: float = 1.0) -> dict[str, int]:
    """osu_alltoall's iteration counts (1000/100 up to 8 KiB, 100/10 above), scaled; quick mode
    uses a tenth to a fifth of them."""
    base = QUICK_COUNTS if quick else OSU_COUNTS
    return {k: max(1, int(v * scale)) for k, v in base.items()}


def osu_sweep(
    ranks: int = 2,
    threads: int = 1,
    *,
    op: str = "alltoall",
    min_bytes: int = 1,
    max_bytes: int = 1 << 20,
    quick: bool = False,
    bind: str = "cores",
    samples: int = 1,
    timeout: float = 300.0,
) -> Results:
    """MPI_Alltoall (or Alltoallv) latency from min_bytes to max_bytes, OSU's method and counts.
    bind='cores' needs ranks x threads CPUs; pass bind='none' to oversubscribe (timings then
    mean little: the harness warns)."""
    return run_program(
        "alltoall",
        ranks=ranks,
        threads=threads,
        bind=bind,
        timeout=timeout,
        op=op,
        min_bytes=min_bytes,
        max_bytes=max_bytes,
        samples=samples,
        **osu_counts(quick),
    )


def equal_volume(
    n: int,
    cores: int,
    threads: Iterable[int],
    messages: Callable[[int, int, int], tuple[int, int]],
    *,
    quick: bool = False,
    bind: str = "cores",
) -> list[Results]:
    """One alltoall of an n^3 complex grid's transpose for each P x T with P x T = cores, each
    message of the size `messages(n, cores, T)` gives (the student's alltoall_messages: messages
    per rank, bytes per message; ValueError for a split that does not fit, which is skipped)."""
    out = []
    for t in threads:
        try:
            _, size = messages(n, cores, t)
        except ValueError:
            continue
        out.append(
            run_program(
                "alltoall",
                ranks=cores // t,
                threads=t,
                bind=bind,
                timeout=300.0,
                min_bytes=int(size),
                max_bytes=int(size),
                samples=3,
                **osu_counts(quick, scale=0.5),
            )
        )
    return out


def measure_hockney(
    max_bytes: int = 1 << 22, quick: bool = False
) -> tuple[pd.DataFrame, PiecewiseHockney]:
    """Lab 03's ping-pong sweep (kernels_c/pingpong.c, 2 ranks bound to cores) and its two-piece
    Hockney fit: what the lab uses when lab 03's parameters were not saved."""
    counts = {"iterations": 200, "skip": 20, "iterations_large": 30, "skip_large": 3}
    if not quick:
        counts = {"iterations": 1000, "skip": 100, "iterations_large": 100, "skip_large": 10}
    res = run_program(
        "pingpong",
        ranks=2,
        threads=1,
        bind="cores",
        mode="sweep",
        min_bytes=1,
        max_bytes=max_bytes,
        samples=3 if quick else 5,
        **counts,
    )
    sweep = res.records
    return sweep, piecewise_hockney(sweep["bytes"], sweep["seconds"])


def fft_runs(
    shapes: Iterable[tuple[int, int]],
    n: int,
    *,
    repetitions: int = 5,
    schedule: str = "static",
    fft: str = "auto",
    bind: str = "cores",
) -> list[Results]:
    """fft3d for every (ranks, threads) in `shapes` on an n^3 grid; shapes whose ranks do not
    divide n are skipped. Oversubscribed shapes need bind='none'."""
    out = []
    for ranks, threads in shapes:
        if n % ranks:
            continue
        out.append(
            run_program(
                "fft3d",
                ranks=ranks,
                threads=threads,
                bind=bind,
                timeout=300.0,
                n=n,
                repetitions=repetitions,
                schedule=schedule,
                fft=fft,
            )
        )
    return out


# What part (d) allows for the leader's copies (assert_packed_by_threads).
# OpenMP routines that set the team of the regions after them: `omp_set_num_threads(1)` before a
# right `parallel for` leaves every copy to one thread (a fresh attacker's, 2026-12-03)
TEAM_SETTERS = ("omp_set_num_threads", "omp_set_dynamic", "omp_set_max_active_levels",
                "omp_set_nested", "omp_set_teams_thread_limit", "omp_set_num_teams")  # fmt: skip
PACKED_BY_THREADS = (
    "the part allows the leader's packing and unpacking loops (every loop that copies data: "
    "memcpy or memmove, memset of a value read from the data, an array element assigned from "
    "another or from a function of the cell that reads one) only shared among the threads of a team the run sets: under "
    "`#pragma omp parallel for`, `#pragma omp for` in a `parallel` region, or a `taskloop`, "
    "sharing a loop whose variable the copies use and whose bounds come from the run's sizes "
    "(no constant bound), with no chunk size in `schedule` and no `num_threads`, `if`, "
    "`grainsize`, `num_tasks` or `final` clause, and no omp_set_num_threads or omp_set_dynamic "
    "call to shrink the team; or, in a `parallel` region, a loop whose bounds "
    "split the work by omp_get_thread_num() and omp_get_num_threads() (or variables computed "
    "from them; each thread's share is then counted in the run, copy_shares); never in a task, "
    "a section, single, master or critical (a loop of a helper "
    "function counts when every call of the helper is in such a construct); loops that only set "
    "counts or offsets may stay serial, derived datatypes that let MPI pack need no loop, and "
    "MPI is called outside the parallel regions"
)
_COPY_CALL = re.compile(
    r"\b(?:__builtin_+)?(?:mem(?:p?cpy|move|ccpy)|bcopy|wmem(?:cpy|move)|st[rp]n?cpy)\w*\b"
)
_DIRECTIVES = {"parallel", "for", "simd", "loop", "taskloop", "task", "single", "master", "masked",
               "critical", "sections", "section", "distribute", "teams", "target", "ordered",
               "atomic", "do"}  # fmt: skip
# a task or a section is one thread's: a single task or section round every copy kept 4/4 (a
# fresh attacker's, 2026-12-03), so only a worksharing loop shares the copies
_ONE_THREAD = {"single", "master", "masked", "critical", "ordered", "atomic", "task", "sections",
               "section"}  # fmt: skip
_SHARED = {"for", "loop", "taskloop", "distribute", "do"}
# clauses of a worksharing loop that can leave every iteration to one thread: a chunk as large as
# the loop (`schedule(static, 1 << 20)`, a fresh attacker's, 4/4 kept), a taskloop's grainsize
# or num_tasks, a final task (an `if` clause: _TEAM_CLAUSE)
_ONE_CHUNK_CLAUSE = re.compile(
    r"\b(?:(?:dist_)?schedule\s*\([^)]*,|(?:grainsize|num_tasks|final)\s*\()"
)
# clauses that choose a region's team: the run sets it (OMP_NUM_THREADS), and a clause whose value
# is 1 or false at run time leaves the copies to one thread (a fresh attacker's num_threads(nth),
# nth = 1, kept 4/4, 2026-12-03)
_TEAM_CLAUSE = re.compile(r"\b(?:num_threads|if)\s*\(")
# the thread number, or a variable set from it (`int t = omp_get_thread_num();`)
_THREAD_NUMBER = r"omp_get_thread_num\s*\(\s*\)"
# a worksharing loop of literal bounds with at most one iteration (`for (int i = 0; i < 1; i++)`)
_ONE_ITERATION = re.compile(r"for\s*\([^;]*=\s*(\d+)\s*;\s*\w+\s*(<=?)\s*(\d+)\s*;")


def build_student_alltoall(
    code: str, name: str = "student_alltoall", *, count_writes: bool = False
) -> Kernel:
    """The student's alltoall_nodes() built into alltoall_nodes.c, MPI calls traced.
    NotImplementedError while the C cell is still the released stub: its body keeps the given
    sizes and buffers, so it is not empty, but it makes no MPI call beyond their sizes and ranks.
    count_writes=True: built with clang and ThreadSanitizer's instrumentation, every write of the
    cell's code counted per OpenMP thread by the kit's object (COUNT_FLAGS; run it with
    COUNT_ENV, read the counts with copy_shares); ValueError for a write the count cannot see
    (count_refusals)."""
    calls = re.findall(r"\b(MPI_\w+)\s*\(", code_only(code))
    if not set(calls) - {"MPI_Comm_size", "MPI_Comm_rank"}:
        raise NotImplementedError(
            "write the three steps in the C cell above first (it is still the stub)"
        )
    if not count_writes:
        return build_student(name, "alltoall_nodes", "HL_STUDENT_ALLTOALL", code,
                             ("alltoall_nodes",))  # fmt: skip
    kernel = build_student(f"{name}_counted", "alltoall_nodes", "HL_STUDENT_ALLTOALL", code,
                           ("alltoall_nodes",), COUNT_FLAGS, archer=True)  # fmt: skip
    refused = count_refusals(code)
    if refused:
        raise ValueError(f"alltoall_nodes: {refused}")
    return kernel


# The kit's count of the cell's writes (alltoall_nodes.c, HL_COUNT_WRITES): ThreadSanitizer's
# entry points for every plain and atomic store and atomic update, and memcpy/memmove/memset (a
# memset to zero logged as its thread's, not counted: alltoall_nodes.c, copied), wrapped at link
# time; the cell's code is built with clang's -fsanitize=thread (archer=True), its races not read.
_COUNTED = archer.WRITE_ENTRIES
# ... and the tracer's entry points of the calls that send data (the cell's references only: the
# kit's own calls are hl_kit_*): each logs the span it sends, so that a write counts as a share
# of the copies only if MPI sends what it left (alltoall_nodes.c, credit_sent)
_SENDS = [f"hl_traced_MPI_{name}" for name in (
    "Send", "Send_synchronous", "Ssend", "Isend", "Isend_synchronous", "Issend", "Sendrecv",
    "Isendrecv", "Alltoall", "Ialltoall", "Alltoallv", "Gather", "Gatherv", "Scatter", "Scatterv")]
COUNT_FLAGS = ("-DHL_COUNT_WRITES", "-Wno-unused-command-line-argument",
               "-Wl,--wrap=" + ",--wrap=".join(_COUNTED + _SENDS))  # fmt: skip
# a run of the counted build: ThreadSanitizer's race reports off (the count is what is read)
COUNT_ENV = {"TSAN_OPTIONS": "report_bugs=0 exitcode=0 ignore_noninstrumented_modules=1",
             "PMIX_MCA_gds": "hash"}  # fmt: skip

# what writes memory out of the count's sight: C library calls that copy (strings, formatted
# output into a buffer, realloc's move, fortified copies), OpenMP's copies (a device's,
# omp_realloc's move, omp_capture_affinity's format text into a buffer: a fresh attacker's K5 moved
# the node's gathered data with omp_realloc, 4/4 kept, 2026-12-07)
_UNCOUNTED_CALL = re.compile(
    r"\b((?:__builtin_+)?(?:st[rp]n?cpy|strn?cat|strdup|strndup|v?sn?printf|v?sscanf"
    r"|__isoc\d+_sscanf|realloc|reallocarray|\w+_chk|omp_target_memcpy\w*|omp_realloc"
    r"|omp_capture_affinity|wmem\w+|bcopy|memccpy|mempcpy))\s*\("
)

# What the counted cell may call (its LLVM IR's declared routines): the tracer's MPI entry points,
# OpenMP's runtime but its copies (_OMP_COPIES: a device's, omp_realloc's, omp_capture_affinity's),
# ThreadSanitizer's instrumentation of loads, stores and atomics of 1-8 bytes
# (the writes among them wrapped: _COUNTED), what _COUNTED wraps (memcpy, memmove, memset),
# allocation, C library routines that write no memory or only data that is none of the cell's
# (the time, the host's name, the affinity mask), output with no format (printf and fprintf with
# a constant format without %n), and the maths library's routines that take no
# pointer. Any other routine may write memory out of the count (a fresh attacker's leader set
# every byte alone with memset before memset was wrapped, 4/4 kept, 2026-12-05; strtol's
# endptr, rand_r's seed, modf's or frexp's output, __tsan_memcpy, printf's %n), so it is refused
# whether or not the kit knows how it writes.
_OMP_COPIES = r"target_|realloc$|capture_affinity$"
CALLS_COUNTED = re.compile(
    r"hl_traced_MPI_\w+|omp_(?!" + _OMP_COPIES + r")\w+|__kmpc_\w+|llvm\.[\w.]+"
    r"|__tsan_(?:init|func_entry|func_exit|(?:unaligned_)?(?:read|write)(?:1|2|4|8|16)"
    r"|atomic(?:8|16|32|64)_(?:load|store|exchange|compare_exchange_(?:strong|weak|val)"
    r"|fetch_(?:add|sub|and|or|xor|nand))|atomic_(?:thread|signal)_fence)"
    r"|memcpy|memmove|memset|malloc|calloc|free|aligned_alloc|posix_memalign|memalign"
    r"|memcmp|memchr|strlen|strnlen|strcmp|strncmp|strchr|strrchr|strstr|strspn|strcspn"
    r"|atoi|atol|atof|abs|labs|llabs|div|ldiv|rand|srand|toupper|tolower|__ctype_\w+_loc"
    r"|__errno_location|puts|fputs|putchar|fputc|putc|fflush|fwrite|perror|printf|fprintf"
    r"|clock_gettime|clock|time|gettimeofday|nanosleep|usleep|sleep|sched_yield|sched_getcpu"
    r"|sched_getaffinity|__sched_cpucount|gethostname|getpid|sysconf|get_nprocs"
    r"|abort|exit|__assert_fail|__stack_chk_fail|__tls_get_addr"
)
_IR_DECLARE = re.compile(r"^declare\b[^@]*@\"?([\w.$]+)\"?\((.*)\)", re.M)
# a printf's or fprintf's format: a constant string of the unit (its global's name)
_FORMAT_ARG = {"printf": re.compile(r"@printf\(\s*(?:i8\*|ptr)\s[^@%]*@(\.str[\w.]*)\b"),
               "fprintf": re.compile(r"@fprintf\([^,]+,\s*(?:i8\*|ptr)\s[^@%]*@(\.str[\w.]*)\b")}
_CONSTANT_STRING = re.compile(r'^@(\.str[\w.]*) = [^"]*c"((?:[^"\\]|\\.)*)"', re.M)
_WRITING_CONVERSION = re.compile(r"%[-+ #0'I]*(?:\d+|\*)?(?:\.(?:\d+|\*)?)?(?:hh|h|ll|l|j|z|t|L|q)?n")


def call_refusals(ir: str) -> list[str]:
    """The routines the counted cell's IR declares that CALLS_COUNTED does not hold (a routine of
    the maths library too when it takes a pointer), and each printf or fprintf whose format is
    not a constant string free of %n, each with the first cell line naming it."""
    lines, located = ir.splitlines(), llvm_ir.cell_lines(ir)
    libm = _libm_names()
    found = []

    def at(name: str) -> str:
        use = next((ln for ln in lines if ln.startswith(" ")
                    and re.search(rf"@{re.escape(name)}\(", ln)), "")  # fmt: skip
        return llvm_ir.where(use, located)

    for name, params in dict(_IR_DECLARE.findall(ir)).items():
        if CALLS_COUNTED.fullmatch(name):
            continue
        if name in libm and not re.search(r"\*|\bptr\b", params):
            continue
        found.append(f"{at(name)}: calls {name.removeprefix('__isoc99_')}, a routine that may "
                     "write memory the kit's count of each thread's copies does not see: copy "
                     "by assignments, memcpy, memmove or memset (the maths library's routines "
                     "that take no pointer, malloc, printf without %n are allowed)")
    strings = {m[1]: m[2] for m in _CONSTANT_STRING.finditer(ir)}
    for name, arg in _FORMAT_ARG.items():
        for ln in lines:
            if not re.search(rf"\bcall\b.*@{name}\(", ln):
                continue
            m = arg.search(ln)
            if m and m[1] in strings and not _WRITING_CONVERSION.search(
                    strings[m[1]].replace("%%", "")):  # fmt: skip
                continue
            found.append(f"{llvm_ir.where(ln, located)}: calls {name} with a format that is not "
                         "a constant string free of %n (which writes memory the kit's count of "
                         "each thread's copies does not see)")
    return list(dict.fromkeys(found))


def ir_count_refusals(ir: str) -> list[str]:
    """The writes of the cell's LLVM IR (after ThreadSanitizer's pass) the kit's count cannot see,
    one sentence per kind and line (kernels.llvm_ir.odd_writes): a store not of 1, 2, 4, 8 or 16
    bytes, a write by a target intrinsic or a libatomic call."""
    found = []
    for at, what, size in llvm_ir.odd_writes(ir):
        if size != -1:
            found.append(llvm_ir.store_sentence(at, what, size, "which the kit's count of each "
                         "thread's copies cannot see: store scalars (no vector types wider than 16 "
                         "bytes)"))  # fmt: skip
        else:
            found.append(f"{at}: a write by {what}, which the kit's count of each thread's "
                         "copies cannot see: copy by assignments, memcpy, memmove or memset")
    return list(dict.fromkeys(found))


def count_refusals(code: str) -> str | None:
    """Why the kit cannot count the cell's copies (None when it can): a call that writes memory
    out of the count's sight (_UNCOUNTED_CALL, named at its cell line), or a write in the cell's
    LLVM IR ThreadSanitizer does not instrument (ir_count_refusals)."""
    text, offsets, numbers = _cell_unit(code)
    found = [f"cell line {_line(offsets, numbers, m.start())}: {m[1]} writes memory out of the "
             "count of each thread's copies (copy by assignments, memcpy, memmove or memset)"
             for m in _UNCOUNTED_CALL.finditer(text)]  # fmt: skip
    ir = cell_ir(code)
    found += ir_count_refusals(ir)
    found += call_refusals(ir)
    return "; ".join(dict.fromkeys(found)) or None


def cell_ir(code: str) -> str:
    """The cell's unit compiled as the counted build compiles it (clang, ThreadSanitizer), as
    LLVM IR after the sanitizer's pass."""
    return llvm_ir.cell_ir(student_unit("alltoall_nodes", "HL_STUDENT_ALLTOALL", code), COUNT_FLAGS)


def _cell_unit(code: str) -> tuple[str, list[int], list[int]]:
    """The cell's preprocessed C as student_c.preprocessed reads it (literals emptied, line by
    line so that offsets stay put), with each line's offset and cell line number."""
    lines, refused = preprocessed_cell(
        student_unit("alltoall_nodes", "HL_STUDENT_ALLTOALL", code), unit_flags()
    )
    if refused:
        raise ValueError("\n".join(str(r) for r in refused))
    text, offsets, numbers = "", [], []
    for number, line in lines:
        offsets.append(len(text))
        numbers.append(number)
        text += code_only(line) + "\n"
    return text, offsets, numbers


def _line(offsets: list[int], numbers: list[int], pos: int) -> int:
    return numbers[max(bisect.bisect_right(offsets, pos) - 1, 0)] if numbers else 0


def _without_addresses(text: str) -> str:
    """`text` with each address of an element (`&a[i]`, `&a[i][j]`) left out: no value read."""
    out, i = [], 0
    for m in re.finditer(r"&\s*\w+\s*(?=\[)", text):
        if m.start() < i:
            continue
        out.append(text[i : m.start()])
        j = m.end()
        while j < len(text) and text[j] == "[":
            depth = 0
            for k in range(j, len(text)):
                depth += (text[k] == "[") - (text[k] == "]")
                if depth == 0:
                    break
            j = k + 1
            while j < len(text) and text[j].isspace():
                j += 1
        out.append(" 0 ")
        i = j
    return "".join(out) + text[i:]


# an element read: `a[i]`, a dereference (`*p`, `1 * *(p + x)`: a star after an operator or a
# star, a fresh attacker's, 4/4 kept), or one after a cast (`(double)*p`)
_READS_ELEMENT = re.compile(
    r"[\w\])]\s*\[|(?:^|[=(,?:+\-/%&|^!~<>\[*])\s*\*\s*[\w(]"
    r"|\(\s*(?:(?:const|volatile|unsigned|signed|long|short)\s+)*"
    r"(?:double|float|int|long|short|char|\w+_t)\s*\)\s*\*\s*[\w(]"
)
_WRITES_ELEMENT = re.compile(r"\]\s*$|(?:^|[^\w\s\]])\s*\*\s*[\w(][^*]*$")


def _pieces(text: str) -> list[str]:
    """`text` cut at semicolons, braces and commas outside brackets (a comma expression's or a
    declaration's parts apart, a call's arguments together)."""
    out, depth, last = [], 0, 0
    for i, c in enumerate(text):
        depth += (c in "([") - (c in ")]")
        if c in ";{}" or (c == "," and depth <= 0):
            out.append(text[last:i])
            last, depth = i + 1, 0 if c in ";{}" else depth
    return [*out, text[last:]]


def _calls(text: str, names: Iterable[str]) -> bool:
    return any(re.search(rf"\b{f}\b", text) for f in names)


# a memset's value that is a constant: a number, an emptied character literal, in casts and
# parentheses, negated or complemented
_CONSTANT_VALUE = re.compile(
    r"[\s(]*(?:\(\s*(?:(?:const|unsigned|signed|long|short)\s+)*(?:int|char|long|short|unsigned"
    r"|signed|\w+_t)\s*\)[\s(]*)*[-+~!]?[\s(]*(?:0[xX][0-9a-fA-F]+|\d+|'[^']*')[uUlL]*[\s)]*"
)
_MEMSET = re.compile(r"\b(?:__builtin_+)?memset\s*\(")


def _memset_values(text: str) -> list[str]:
    """The value argument (the second) of every memset call in C `text`."""
    out = []
    for m in _MEMSET.finditer(text):
        depth, args, last = 1, [], m.end()
        for i in range(m.end(), len(text)):
            c = text[i]
            depth += (c in "([") - (c in ")]")
            if (c == "," and depth == 1) or depth == 0:
                args.append(text[last:i])
                last = i + 1
            if depth == 0:
                break
        if len(args) >= 2:
            out.append(args[1])
    return out


def _copies(text: str, copying: Iterable[str], readers: Iterable[str] = ()) -> bool:
    """Whether C `text` copies data: a memcpy-like call, a call of a cell function in `copying`
    (or its name taken), or an array element written where an element's value is read, directly
    or by a call of a cell function in `readers` (a fresh attacker's `out[i] = get(p, i)`, 4/4
    kept, 2026-12-03); the same statement or another: a value carried through a scalar is copied
    too."""
    if _COPY_CALL.search(text) or _calls(text, copying):
        return True
    writes = reads = False
    for value in _memset_values(text):  # memset's value read from the data: a copy (a fresh
        if _CONSTANT_VALUE.fullmatch(value):  # attacker's `memset(d + b, s[b], one)`, 4/4 kept,
            continue  # 2026-12-05); a constant one (zero) clears and copies nothing
        writes = True
        if _READS_ELEMENT.search(_without_addresses(value)) or _calls(value, readers):
            return True
    for piece in _pieces(_without_addresses(text)):
        at = next((i for i, c in enumerate(piece) if c == "=" and piece[i + 1 : i + 2] != "="
                   and (piece[i - 1 : i] not in ("=", "!", "<", ">") or piece[i - 2 : i] in ("<<", ">>"))),
                  None)  # fmt: skip
        if at is None:
            reads |= bool(
                re.search(r"\w\s*\(", piece)
                and (_READS_ELEMENT.search(piece) or _calls(piece, readers))
            )
            continue
        lhs = piece[: at - 1] if piece[at - 1 : at] in "+-*/%&|^" and at else piece[:at]
        writes |= bool(_WRITES_ELEMENT.search(lhs.rstrip()))
        reads |= bool(_READS_ELEMENT.search(piece[at + 1 :]) or _calls(piece[at + 1 :], readers))
    return writes and reads


def _words(pragma: str) -> set[str]:
    """The directive names of an `#pragma omp` line (its clauses left out)."""
    words = set()
    for word in re.sub(r"#\s*pragma\s+omp\s+", "", pragma).replace(",", " ").split():
        if word not in _DIRECTIVES:
            break
        words.add(word)
    return words


def _assignments(text: str) -> list[tuple[str, str]]:
    """(name, value) of every assignment to a plain variable in `text` (a declaration's too;
    value "?" for a compound assignment, an increment or an address taken: not known)."""
    out = []
    for piece in _pieces(text):
        m = re.search(r"\b(\w+)\s*((?:[-+*/%&|^]|<<|>>)?)=(?!=)(.*)", piece, re.S)
        if m and piece[m.start() - 1 : m.start()] not in (".", ">"):
            out.append((m[1], "?" if m[2] else m[3]))
    for m in re.finditer(
        r"\+\+\s*(\w+)|--\s*(\w+)|\b(\w+)\s*(?:\+\+|--)|&\s*(\w+)\b(?!\s*\[)", text
    ):
        out.append((next(g for g in m.groups() if g), "?"))
    return out


def _names(expression: str) -> set[str]:
    return set(re.findall(r"\b[A-Za-z_]\w*", expression))


def _constants(text: str) -> set[str]:
    """The variables of `text` whose every assignment is a constant expression (`int once = 1;`:
    a fresh attacker's one-iteration bound, 4/4 kept, 2026-12-03)."""
    values: dict[str, list[str]] = {}
    for name, value in _assignments(text):
        values.setdefault(name, []).append(value)
    constant: set[str] = set()
    while True:
        more = {name for name, vals in values.items() if name not in constant
                and all(v != "?" and _names(v) <= constant for v in vals)}  # fmt: skip
        if not more:
            return constant
        constant |= more


def _tainted(text: str, call: str) -> set[str]:
    """The variables of `text` computed from `call` (omp_get_thread_num()...), directly or
    through other such variables, by any arithmetic."""
    found: set[str] = set()
    pairs = _assignments(text)
    while True:
        more = {name for name, value in pairs if name not in found
                and (re.search(call, value) or _names(value) & found)}  # fmt: skip
        if not more:
            return found
        found |= more


def _for_loop(text: str, start: int) -> tuple[str, str, int, int] | None:
    """(head, variable, body start, end) of the for loop at `start`, None if it is no for loop."""
    head = re.match(r"for\s*\(", text[start:])
    if not head:
        return None
    after = closing(text, start + head.end() - 1)
    init = text[start + head.end() : after].split(";")[0]
    var = re.search(r"(\w+)\s*=[^=]", init) or re.search(r"(\w+)\s*$", init)
    body = len(text) - len(text[after:].lstrip())
    return (
        text[start + head.end() : after - 1],
        var[1] if var else "",
        body,
        statement_end(text, after),
    )


def _shared_loop(
    text: str, start: int, pragma: str, constant: set[str], pos: int | None = None
) -> str | None:
    """Why the worksharing construct at `start` (its line `pragma`) may leave its loop to one
    thread (None when it shares it): a clause that can, a loop whose variable its body never
    uses, or whose bounds are constants."""
    shown = pragma.strip()
    if _ONE_CHUNK_CLAUSE.search(pragma) or (
        "parallel" not in _words(pragma) and _TEAM_CLAUSE.search(pragma)
    ):
        return (
            f"under `{shown}`, whose clause can leave every iteration to one thread (no chunk "
            "size, grainsize, num_tasks, if or final clause)"
        )
    line_end = text.find("\n", start)
    rest = text[line_end:]
    at = len(text) - len(rest.lstrip())
    while text.startswith("#", at):  # pragmas between it and its loop
        at = len(text) - len(text[text.find("\n", at) :].lstrip())
    loop = _for_loop(text, at)
    if loop is None:
        return None
    head, var, body, end = loop
    first = _ONE_ITERATION.match(text[at:])
    if first and int(first[3]) + (first[2] == "<=") - int(first[1]) <= 1:
        return f"under `{shown}`, which shares a loop of one iteration"
    bounds = ";".join(head.split(";")[:2])
    if not _names(bounds) - {var} - constant - _C_WORDS:
        return (
            f"under `{shown}`, which shares a loop of constant bounds (`for ({head.strip()})`: "
            "the run's sizes set how many iterations the threads share)"
        )
    if not var or not re.search(rf"\b{var}\b", text[body:end]):
        return (
            f"under `{shown}`, which shares a loop whose body never uses its variable "
            f"`{var}`: each iteration must copy its own part"
        )
    # how the iterations' copies are shared (bounds that decide, a `while`, a share made unequal
    # by arithmetic) is judged from the run: the kit counts each thread's writes (copy_shares)
    return None


_C_WORDS = {"int", "long", "unsigned", "signed", "short", "char", "size_t", "const", "sizeof",
            "double", "float", "ptrdiff_t"}  # fmt: skip


def _not_on_threads(
    text: str,
    pos: int,
    spans,
    funcs,
    seen: frozenset = frozenset(),
    shared: bool = False,
    constant: set[str] | None = None,
) -> str | None:
    """Why the code at `pos` is not run by OpenMP threads (None when it is): no parallel region
    around it, a construct that leaves it to one thread (single, master, critical, a task, a
    section; a worksharing loop that may: _shared_loop), or a function called outside them.
    `shared`: a worksharing construct in the function called at `pos` shares the loop."""
    constant = _constants(text) if constant is None else constant
    around = sorted((s for s in spans if s[0] <= pos < s[1]), key=lambda s: s[0])
    parallel = False
    for start, region_end, pragma in reversed(around):  # innermost first
        words = _words(pragma)
        if words & _SHARED:
            why = _shared_loop(text, start, pragma, constant, pos)
            if why:
                return why
        if words & _ONE_THREAD and not words & _SHARED and not shared:
            return f"inside `{pragma.strip()}`, which one thread runs"
        shared |= bool(words & _SHARED)
        if "parallel" in words:
            if _TEAM_CLAUSE.search(pragma.split("parallel", 1)[1]):
                return (
                    f"under `{pragma.strip()}`, whose clause sets the team (the run sets it: "
                    "no num_threads or if clause)"
                )
            if not shared:
                return _split_by_thread(text, start, pos, region_end)
            parallel = True
            break
    if parallel:
        return None
    mine = [f for f in funcs if f[1] <= pos < f[2]]
    if not mine:
        return "outside every parallel region"
    name, first, last = mine[-1]
    sites = [m.start() for m in re.finditer(rf"\b{name}\b", text) if not first <= m.start() < last]
    inside = [s for s in sites if any(f[1] <= s < f[2] for f in funcs)]
    if not inside or name in seen:
        return f"outside every parallel region ({name} runs on one thread)"
    for site in inside:
        if not re.match(r"\s*\(", text[site + len(name) :]):
            return f"in {name}, whose address is taken (a call through it the check cannot follow)"
        why = _not_on_threads(text, site, spans, funcs, seen | {name}, shared, constant)
        if why:
            return f"in {name}, called {why}"
    return None


def _loops_around(text: str, region: int, pos: int) -> list[int]:
    """The start of the loop at `pos` and of every loop around it after `region`."""
    return [pos] + [
        start for start, body, end in loops(text) if region <= start and body <= pos < end
    ]


def _loop_head(text: str, start: int) -> str:
    """A for or while loop's bounds (its parenthesis), else the whole loop."""
    loop = re.match(r"(?:for|while)\s*\(", text[start:])
    if loop:
        return text[start : closing(text, start + loop.end() - 1)]
    return text[start : statement_end(text, start)]


_TEAM_SIZE = r"omp_get_num_threads\s*\(\s*\)"


def _split_by_thread(text: str, region: int, pos: int, region_end: int | None = None) -> str | None:
    """Why the loop at `pos`, in a parallel region (from `region`) that shares no loop, is not run
    by the region's threads (None when it is): each thread runs it whole unless the bounds of it
    or of a loop around it take both the thread number and the team size (directly or through
    variables computed from them: `lo = total * id / nt`) and its variable is used in its body;
    an `if` or `switch` on the thread number around it leaves it to some threads (a fresh
    attacker's `if (omp_get_thread_num() == 0)` round every copy, 4/4 kept, 2026-12-03)."""
    region_text = text[region:]
    number = re.compile("|".join([_THREAD_NUMBER] + [rf"\b{re.escape(n)}\b" for n in
                                                    sorted(_tainted(region_text, _THREAD_NUMBER))]))  # fmt: skip
    size = re.compile("|".join([_TEAM_SIZE] + [rf"\b{re.escape(n)}\b" for n in
                                              sorted(_tainted(region_text, _TEAM_SIZE))]))  # fmt: skip
    for test in re.finditer(r"\b(?:if|switch)\s*\(", text[region:pos]):
        at = region + test.end() - 1
        after = closing(text, at)
        end = statement_end(text, after)
        rest = text[end:].lstrip()
        if test.group(0).startswith("if") and rest.startswith("else"):
            end = statement_end(text, len(text) - len(rest) + len("else"))
        if after <= pos < end and number.search(text[at:after]):
            return (
                f"under `{text[region + test.start() : after].strip()}`, which leaves it to "
                "some threads"
            )
    for start in _loops_around(text, region, pos):
        head = _loop_head(text, start)
        loop = _for_loop(text, start)
        if (
            number.search(head)
            and size.search(head)
            and (
                loop is None or (loop[1] and re.search(rf"\b{loop[1]}\b", text[loop[2] : loop[3]]))
            )
        ):
            return None  # each thread's share is judged from the run (copy_shares)
    return (
        "in a parallel region that shares no loop: every thread would run it whole "
        "(share it with `omp for` or a taskloop, or split its bounds by omp_get_thread_num() "
        "and omp_get_num_threads(), with the loop's variable used in its body)"
    )


def packing_refusal(code: str) -> str | None:
    """The refusal of part (d)'s rule for the leader's copies, None when the cell keeps it: in the
    cell's preprocessed unit, every loop that copies data (a memcpy-like call, an element written
    from an element's value or from a call of a cell function that reads one, a call of a cell
    function that copies; a function that calls itself or a backward goto counts as a loop) must
    be shared by OpenMP threads (PACKED_BY_THREADS): a worksharing loop around it (_shared_loop)
    in a parallel region, or bounds split by the thread number and team size, not in a construct
    one thread runs (single, master, critical, a task, a section), or in a function every call
    of which is."""
    text, offsets, numbers = _cell_unit(code)
    setter = re.search(rf"\b({'|'.join(TEAM_SETTERS)})\b", text)
    if setter:
        return (
            f"alltoall_nodes copies data with no OpenMP loop running it on a team the run sets: "
            f"line {_line(offsets, numbers, setter.start())} of your cell calls {setter[1]}, "
            f"which sets the teams of the regions after it (a team of one copies alone); "
            f"{PACKED_BY_THREADS}"
        )
    spans = pragma_spans(text, r"\w+")
    funcs = functions(text)
    readers: set[str] = set()
    while True:  # the cell's functions that read an element, directly or through one another
        more = {name for name, start, end in funcs if name not in readers
                and (_READS_ELEMENT.search(_without_addresses(text[text.index("{", start) : end]))
                     or _calls(text[text.index("{", start) : end], readers))}  # fmt: skip
        if not more:
            break
        readers |= more
    copying: set[str] = set()
    while True:  # the cell's functions that copy, directly or through one another
        more = {name for name, start, end in funcs if name not in copying
                and _copies(text[text.index("{", start) : end], copying, readers)}  # fmt: skip
        if not more:
            break
        copying |= more
    looped = [(start, end) for start, _, end in loops(text)]
    for name, start, end in funcs:  # recursion: the function is its own loop
        body = text.index("{", start)
        if re.search(rf"\b{name}\s*\(", text[body:end]):
            looped.append((start, end))
    for jump in re.finditer(r"\bgoto\s+(\w+)\s*;", text):  # a backward goto
        label = re.search(rf"\b{jump[1]}\s*:(?!:)", text)
        if label and label.start() < jump.start():
            looped.append((label.start(), jump.end()))
    constant = _constants(text)
    for start, end in sorted(looped):
        if not _copies(text[start:end], copying, readers):
            continue
        why = _not_on_threads(text, start, spans, funcs, constant=constant)
        if why:
            return (
                f"alltoall_nodes copies data with no OpenMP loop running it on threads: the "
                f"loop on line {_line(offsets, numbers, start)} of your cell is {why}; "
                f"{PACKED_BY_THREADS}"
            )
    return None


def assert_packed_by_threads(code: str) -> None:
    """AssertionError unless every loop of the cell that copies data runs on OpenMP threads
    (packing_refusal: the leader's packing and unpacking shared by its threads)."""
    refusal = packing_refusal(code)
    assert refusal is None, refusal


def copy_shares(res: Results) -> list[list]:
    """[rank, repetition, alone, [bytes per thread number], sent alone, [sent bytes per thread
    number], lost] of a counted run (count_writes=True): what the cell's code wrote on each rank
    during each call of alltoall_nodes, outside parallel regions (`alone`) and, per OpenMP thread
    number, in teams of two or more threads; then the same counting only the bytes MPI sent
    afterwards (the span of each send of the cell's, or recv once the call returned) as each
    byte's last writer left them; `lost`: writes past what the kit's log keeps (the kit's
    object counts it; the cell cannot write the counts)."""
    rows = res.records.query("record == 'writes'")
    return [[int(r.rank), int(r.repetition), int(r.alone),
             [int(x) for x in str(r.by_thread).split()], int(r.sent_alone),
             [int(x) for x in str(r.sent_by_thread).split()], int(r.lost)]
            for r in rows.itertuples()]  # fmt: skip


# bytes a thread of the team may write beyond its even share besides L x count doubles: the set-up
# the compiler writes for a region or a taskloop (a taskloop's creating thread wrote 96 bytes more
# than the other in a right answer)
BOOKKEEPING = 256
# what a rank's code may write outside parallel regions per call (counts, offsets, pointers) and,
# beyond the node's data, in all (a region's loop bookkeeping), in bytes: 4 P + 16 numbers
def alone_allowance(ranks: int) -> int:
    return 8 * (4 * ranks + 16)


def assert_threads_share_copies(shares: list[list], ranks: int, per_node: int, count: int,
                                threads: int) -> None:  # fmt: skip
    """AssertionError unless, on every rank and in every call of alltoall_nodes (`shares`:
    copy_shares of a run with `threads` threads per rank, nodes of `per_node` ranks, `count`
    doubles per pair of ranks), the cell's code wrote (1) outside parallel regions at most one
    block (L x L x count doubles: a leader's own block copied by the master) and
    alone_allowance(ranks) bytes (counts and offsets), (2) in all at most the node's data twice
    (packed and unpacked: 2 L P count doubles) plus a quarter and the allowance (no copy made
    twice, no writes that copy nothing to even the shares), and (3) per thread of the team (the
    master's writes outside regions counted as thread 0's), its even share of what the rank
    wrote, give or take L x count doubles and BOOKKEEPING bytes (what a taskloop's or a
    region's set-up writes) (the kit keeps a thread that runs ahead waiting for the others, so a
    dynamic schedule or a taskloop shares as a static schedule does)."""
    if threads < 2:
        return
    allowed = alone_allowance(ranks)
    block = per_node * per_node * count * 8
    node_data = 2 * per_node * ranks * count * 8
    slack = max(per_node, 2) * count * 8 + BOOKKEEPING
    for rank, rep, alone, by_thread, *_ in shares:
        where = (f"{ranks} ranks of {threads} threads, {per_node} per node, count={count}: "
                 f"rank {rank}, call {rep + 1} of alltoall_nodes")  # fmt: skip
        assert alone <= block + allowed, (
            f"{where}: your code wrote {alone} bytes outside parallel regions (at most "
            f"{block + allowed}: one block of L x L x count doubles and 4 P + 16 numbers, the "
            f"counts and offsets); the part asks that the leader's copies be made by the threads "
            f"of a team, {SHARED_COPIES}"
        )
        team = (by_thread + [0] * threads)[:threads]
        team[0] += alone  # the master is thread 0 of the team
        total = sum(team)
        assert total <= node_data * 5 // 4 + allowed, (
            f"{where}: your code wrote {total} bytes, more than the node's data twice "
            f"(packed and unpacked: {node_data} bytes) and a quarter: each value is copied once, "
            f"{SHARED_COPIES}"
        )
        even = total / threads
        for t, wrote in enumerate(team):
            assert abs(wrote - even) <= slack, (
                f"{where}: thread {t} of the team wrote {wrote} of the {total} bytes the rank "
                f"wrote (by thread, the master's writes outside regions as thread 0's: {team}); "
                f"each thread of the team writes its even share, {even:.0f} bytes, give or take "
                f"L x count doubles and {BOOKKEEPING} bytes of the loops' own bookkeeping "
                f"({slack} bytes): {SHARED_COPIES}"
            )
    for rank, rep, _, _, *sent in shares:  # then what was sent, once every raw count passed
        if sent:
            where = (f"{ranks} ranks of {threads} threads, {per_node} per node, count={count}: "
                     f"rank {rank}, call {rep + 1} of alltoall_nodes")  # fmt: skip
            _assert_sent_shares(where, sent, threads, slack)


def _assert_sent_shares(where: str, sent: list, threads: int, slack: int) -> None:
    """The shares again, of the bytes MPI sent as each byte's last writer left them (copy_shares):
    writes to memory never sent, or overwritten before it was sent, are no thread's share."""
    alone, by_thread, lost = sent
    assert lost == 0, (
        f"{where}: your code made more writes in one call than the kit's log keeps ({lost} past "
        f"it): {SHARED_COPIES}")
    team = (by_thread + [0] * threads)[:threads]
    team[0] += alone
    even = sum(team) / threads
    for t, wrote in enumerate(team):
        assert abs(wrote - even) <= slack, (
            f"{where}: of the bytes MPI then sent (or the kit read in recv), thread {t} of the "
            f"team left {wrote} of {sum(team)} (by thread: {team}); each thread leaves its even "
            f"share, {even:.0f} bytes, give or take {slack}: writes to memory never sent, or "
            f"overwritten before it is sent, are no share of the copies: {SHARED_COPIES}"
        )


SHARED_COPIES = (
    "the kit counts, while alltoall_nodes runs, the bytes your code writes on each rank per "
    "OpenMP thread: the copies are shared evenly among the threads of a team the run sets (a "
    "worksharing loop, a taskloop, or bounds split by thread number and team size), each value "
    "written once by the thread whose share it is"
)


NO_DATA = ("MPI_Barrier", "MPI_Ibarrier")


def sent_between_ranks(res: Results) -> list[list[int]]:
    """[rank, peer, bytes] of the student's sends, summed per pair of MPI_COMM_WORLD ranks:
    every point-to-point call that sends (an MPI_Sendrecv's send side; not to MPI_PROC_NULL)
    and every collective that moves data, as what it sends each member (the tracer's "bytes";
    a gather or reduction counted towards every member, its root not being recorded); bytes -1
    where the trace cannot tell a message's size (a neighbourhood collective's, a type MPI
    cannot size)."""
    calls = res.mpi_calls
    if calls.empty or "peer" not in calls.columns:
        return []
    mine = calls[calls["student"] == 1]
    sends = mine[mine["call"].str.contains("send", case=False) & (mine["peer"] >= 0)]
    pairs = [(int(r), int(p), int(b)) for r, p, b in zip(sends["rank"], sends["peer"],
                                                         sends["bytes"], strict=True)]  # fmt: skip
    moving = mine["call"].isin(COLLECTIVES) | mine["call"].str.contains("eighbor_", regex=False)
    for row in mine[moving & ~mine["call"].isin(NO_DATA)].itertuples():
        sized = int(row.bytes) if "eighbor_" not in row.call else -1
        for member in comm_members(row.comm):
            if member != row.rank:
                pairs.append((int(row.rank), member, sized))
    total: dict[tuple[int, int], int] = {}
    for rank, peer, nbytes in pairs:
        before = total.get((rank, peer), 0)
        total[rank, peer] = -1 if nbytes < 0 or before < 0 else before + nbytes
    return [[rank, peer, nbytes] for (rank, peer), nbytes in sorted(total.items())]


def assert_one_block_between_nodes(
    sent: list[list[int]], per_node: int, count: int, calls: int
) -> None:
    """AssertionError when, over `calls` calls of alltoall_nodes with `count` doubles per pair
    of ranks and nodes of `per_node` consecutive ranks, the ranks of one node sent those of
    another more than one block per call: L x L times one rank's block (`sent`:
    sent_between_ranks), whichever calls moved it, collectives too."""
    block = per_node * per_node * count * 8
    moved: Counter = Counter()
    for rank, peer, nbytes in sent:
        here, there = rank // per_node, peer // per_node
        if here == there:
            continue
        assert nbytes >= 0, (
            f"rank {rank} sent rank {peer} on another node a message the trace cannot size: "
            "send MPI_DOUBLE values between the leaders (not by a neighbourhood collective)"
        )
        moved[here, there] += nbytes
    for (here, there), nbytes in sorted(moved.items()):
        assert nbytes <= calls * block, (
            f"{per_node} ranks per node, count={count}: node {here}'s leader sent node {there}'s "
            f"{nbytes / calls:.0f} bytes per call of alltoall_nodes; between two nodes the part "
            f"moves one block, L x L times one rank's block ({per_node} x {per_node} x {count} "
            f"doubles = {block} bytes), whichever calls send it (the node's whole buffer to every "
            "leader is an allgather by hand, not the two-level alltoall)"
        )


def self_messages(res: Results) -> list[list]:
    """[rank, what, calls] of the student's messages to itself, one row per rank and kind: its
    point-to-point sends whose peer is its own rank ("send to itself", on any communicator,
    MPI_COMM_SELF too) and, per collective that moves data, its calls on a communicator of one
    member ("MPI_Alltoall on one rank"). The trace's peers are MPI_COMM_WORLD ranks."""
    calls = res.mpi_calls
    if calls.empty:
        return []
    mine = calls[calls["student"] == 1]
    counted: Counter = Counter()
    if "peer" in mine.columns:
        sends = mine[mine["call"].str.contains("send", case=False) & (mine["peer"] == mine["rank"])]
        counted.update((int(r), "send to itself") for r in sends["rank"])
    if "comm_size" in mine.columns:
        alone = mine[mine["call"].isin(COLLECTIVES) & ~mine["call"].isin(NO_DATA)
                     & (mine["comm_size"] == 1)]  # fmt: skip
        counted.update((int(r), f"{c} on one rank") for r, c in zip(alone["rank"], alone["call"],
                                                                     strict=True))  # fmt: skip
    return [[rank, what, n] for (rank, what), n in sorted(counted.items())]


def assert_no_self_packing(selfs: list[list], calls: int) -> None:
    """AssertionError when, over `calls` calls of alltoall_nodes, a rank sent itself more than one
    message per call of one kind (`selfs`: self_messages): the leaders' exchange moves a leader's
    own block once (a send to itself, or the leaders' collective when there is one node), a node
    of one rank gathers and scatters once; more is packing or unpacking by MPI messages to
    oneself (a fresh attacker's MPI_Sendrecv to itself on MPI_COMM_SELF for every block, no
    thread copying, 4/4 kept, 2026-12-04)."""
    for rank, what, n in selfs:
        assert n <= calls, (
            f"rank {rank} made {n / calls:g} calls per call of alltoall_nodes that move data to "
            f"itself ({what}): the part allows one per call (the leaders' exchange of a leader's "
            "own block, or a node of one rank's gather and scatter); packing or unpacking by "
            "messages to oneself (MPI_COMM_SELF, or the rank's own rank as the peer) is MPI "
            "copying serially, not the leader's threads (derived datatypes may describe the "
            "blocks the three steps' messages move)"
        )


GATHERS, SCATTERS = ("MPI_Gather", "MPI_Gatherv"), ("MPI_Scatter", "MPI_Scatterv")


def node_steps(res: Results) -> list[list]:
    """[rank, call, bytes] of each gather and scatter the student's code made (steps 1 and 3),
    in call order; bytes as the tracer sizes them: what a gather's rank sends (its send count
    times its type's size), what a scatter's root sends each member (0 on the other ranks)."""
    calls = res.mpi_calls
    if calls.empty:
        return []
    mine = calls[(calls["student"] == 1) & calls["call"].isin(GATHERS + SCATTERS)]
    return [[int(r), str(c), int(b)] for r, c, b in zip(mine["rank"], mine["call"], mine["bytes"],
                                                         strict=True)]  # fmt: skip


def assert_one_gather_and_scatter(steps: list[list], ranks: int, count: int, calls: int) -> None:
    """AssertionError when, over `calls` calls of alltoall_nodes on `ranks` ranks with `count`
    doubles per pair of ranks (`steps`: node_steps), a rank made more than one gather or more
    than one scatter per call, or a gather that did not send its whole send buffer (P x count
    doubles, whatever datatype describes it): step 1 gathers every rank's buffer in one call,
    step 3 scatters in one. Gathers that deliver the runs already in destination-node order and
    scatters that take the received blocks apart (a fresh attacker's K4: N gathers and P
    scatters per call, 4/4 kept twice, 2026-12-07) leave the leader nothing to pack or unpack."""
    whole = ranks * count * 8
    made: Counter = Counter()
    for rank, call, nbytes in steps:
        step = "gather" if call in GATHERS else "scatter"
        made[rank, step] += 1
        assert step == "scatter" or nbytes == whole, (
            f"{ranks} ranks, count={count}: rank {rank}'s {call} sent {nbytes} bytes, not its "
            f"whole send buffer ({ranks} x {count} doubles = {whole} bytes): step 1 gathers "
            f"every rank's send buffer on its node's leader in one call, {ONE_EACH}")
    for (rank, step), n in sorted(made.items()):
        assert n <= calls, (
            f"{ranks} ranks, count={count}: rank {rank} made {n / calls:g} {step}s per call of "
            f"alltoall_nodes: {ONE_EACH}")


ONE_EACH = (
    "one gather of each rank's whole send buffer (step 1) and one scatter (step 3) per call on "
    "the node; the leader packs by destination node and unpacks by destination rank in between "
    "(with its threads, or by derived datatypes in the one gather and the one scatter), not "
    "by more gathers or scatters"
)


def check_student_alltoall(
    kernel: Kernel,
    shapes: tuple[tuple[int, int, int], ...] = ((2, 1, 0), (4, 1, 2)),
    count: int = 3,
    reps: int = 3,
    timeout: float = 60.0,
    compare: bool = True,
) -> pd.DataFrame:
    """Run the student's two-level alltoall at each (ranks, threads, ranks_per_node) (0: the real
    nodes; k > 0: nodes of k consecutive ranks) and, with `compare`, MPI_Alltoall beside it. AssertionError when a
    value differs from MPI_Alltoall's or one node sends another more than one block per call
    (assert_one_block_between_nodes) or a rank sends itself more than one message a call
    (assert_no_self_packing) or gathers or scatters more than once a call
    (assert_one_gather_and_scatter), KernelTimeout on a deadlock, ThreadComplianceError when
    MPI is called where FUNNELED does not allow it. One row per shape: nodes and median times."""
    rows = []
    for ranks, threads, per_node in shapes:
        common = {"ranks_per_node": per_node, "count": count, "reps": reps}
        mine = run_student(kernel, ranks, threads, "funneled", timeout, variant="student", **common)
        check = mine.records.query("record == 'check'").iloc[0]
        assert_one_block_between_nodes(
            sent_between_ranks(mine), int(check["ranks_per_node"]), count, reps
        )
        assert_no_self_packing(self_messages(mine), reps)
        assert_one_gather_and_scatter(node_steps(mine), ranks, count, reps)
        row = {
            "ranks": ranks,
            "threads": threads,
            "nodes": int(check["nodes"]),
            "ranks_per_node": int(check["ranks_per_node"]),
            "two_level_us": 1e6 * _median_seconds(mine),
        }
        if compare:
            flat = run_program(
                kernel, ranks=ranks, threads=threads, timeout=timeout, variant="flat", **common
            )
            row["mpi_alltoall_us"] = 1e6 * _median_seconds(flat)
        rows.append(row)
    return pd.DataFrame(rows)


def _median_seconds(res: Results) -> float:
    return float(res.records.query("record == 'time'")["seconds"].median())


def across_nodes(
    n: int,
    nodes: int,
    cores_per_node: int,
    messages: Callable[[int, int, int], tuple[int, int]],
    *,
    quick: bool = False,
) -> list[Results]:
    """One transpose of an n^3 grid (equal_volume's alltoall, `messages` as there) with the ranks
    on `nodes` nodes: pure MPI (a rank per core) and one rank per node with a thread per core.
    Unbound (bind='none'): a node may have fewer CPUs than asked."""
    cores = nodes * cores_per_node
    out = []
    for threads in sorted({1, cores_per_node}):
        _, size = messages(n, cores, threads)
        out.append(run_program("alltoall", ranks=cores // threads, threads=threads, nodes=nodes,
                               bind="none", timeout=300.0, min_bytes=int(size),
                               max_bytes=int(size), samples=3,
                               **osu_counts(quick, scale=0.5)))  # fmt: skip
    return out
