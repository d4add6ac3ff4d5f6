"""What a student's compiled C may be: judged from its object and its preprocessed unit, never
from the text the student typed.

A C cell (hybridlab.runs.student_c) and a whole program (hybridlab.slurm.jobs.build_program) are compiled
with every MPI name redirected to the kit's tracer (kernels_c/hl_mpi_trace.h, hl_trace.c). What
the compiler made of them is then read back:

  symbols     (nm) a cell defines as globals only the names its part's header declares (the
              functions the kit calls; a whole program: main and names no library of the
              process defines, so nothing is interposed: clock_gettime, omp_get_thread_num,
              MPI_Is_thread_main ...); it refers only to the tracer's entry points
              (hl_traced_MPI_*), the kit helpers its header declares, OpenMP (omp_*, GOMP_*),
              the maths library and the C library functions of ALLOWED_LIBC: no real MPI_ or
              PMPI_ function (a #undef, push_macro, pasted name or asm label that got round the
              redirect shows here), no dl*, syscall, file or process functions;
  sections    no constructor or destructor tables, no indirect function (ifunc: its resolver
              runs as the library loads): code that would run before the kit's; no code in a
              section other than .text and .text.* (what move_cell_code renames hl_cell_text: code
              elsewhere would be out of the kit's write counts and its check of the functions
              handed to it);
  code        (objdump) no system-call instruction, no indirect call or jump outside the code a
              header inlined (a function reached through a pointer the cell found in memory, such as a slot of the object's GOT,
              would be a real MPI or C library function the checks above never saw; the unit is
              built with -fno-jump-tables, so a switch makes none);
  unit        (cc -E, the cell's own lines after preprocessing) no asm, no #line to another
              file, no #include of a file other than a system or MPI header, no attribute that
              turns a sanitizer off (no_sanitize: an Archer build checks every line), no
              OpenMP runtime entry point named (GOMP_taskwait for a pragma the text hides), no
              section attribute or section pragma (code or data placed by name), no builtin
              that reaches or reshapes the stack (__builtin_frame_address, return_address,
              alloca, setjmp ...: a cell that rewrote its own return address called what the
              symbols never showed);
  Fortran     no OpenMP Fortran binding (omp_set_schedule_: libgomp exports them, a C cell
              has no use for them).

An Archer build (clang -fsanitize=thread, hybridlab.kernels.archer) is judged the same way; what
the sanitizer itself adds is allowed: its instrumentation calls (__tsan_read8, ...), never its
annotations, and its one module constructor. clang's OpenMP entry points are __kmpc_*.

An OpenMP offload unit (clang -fopenmp-targets, lab 15) is checked twice: its host object and
the device object the offload bundler unbundles from it (for the host plugin's x86_64 target,
real code the process loads). Both may refer to the offload runtime (__tgt_*, __kmpc_*) and
define the region entries clang makes; the host object's one constructor is clang's
registration of the unit's requirements. A part whose kernel reads the offload runtime's report
from stderr (its header defines HL_STDERR_IS_EVIDENCE) may not write to stderr; one whose kit
reads the run-sched ICV to tell a task's own work from its creator's (HL_SCHEDULE_IS_EVIDENCE,
lab 12 (b)) may not call omp_set_schedule.

Each refusal names the cell's line where the object's debug information or the preprocessed
unit gives one ("cell:7: ..."), and says what the part allows. `preprocessed_cell` gives the
cell's preprocessed lines to the checks symbols cannot make (a pragma, a task with depend).
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..paths import find_kernel_file, kernel_dirs
from .c_text import comments_blanked
from .toolchain import direct_command, nm, toolchain_env

CELL = "cell"  # the file name a cell's lines carry (`#line 1 "cell"`, hybridlab.c_cells)
# How a checked unit is compiled for its lines: DWARF 4, since objdump -l (binutils 2.40) names
# the unit's own file, not "cell", for DWARF 5 lines made before the line table's first change
# of file (a cell that inlines no header: every line, and the refusals named none)
DEBUG_FLAGS = ("-gdwarf-4",)
TRACED_PREFIX = "hl_traced_"
# What a cell or a whole program may call of the C library: memory, strings, formatted output,
# clocks and sleeps, numbers, where the process runs, POSIX mutexes and spin locks (a fresh
# attacker's right answer L16r8 guarded each count with a pthread mutex, which lab 16 (a) allows,
# and lost 4/4 at the build, 2026-12-05; a part that refuses a lock says so from the unit). Not
# files, descriptors, processes, signals, the environment or the dynamic linker: what would reach
# the records, the key or the real MPI; nor qsort or bsearch, which call whatever address they are
# given (a fresh attacker called a refused libgomp function and the real MPI that way).
ALLOWED_LIBC = frozenset("""
malloc calloc realloc free aligned_alloc posix_memalign memalign
memcpy memmove memset memcmp memchr strlen strnlen strcmp strncmp strcpy strncpy strcat strncat
strchr strrchr strstr strspn strcspn strdup strtol strtoll strtoul strtoull strtod strtof atoi
atol atof abs labs llabs rand srand rand_r div ldiv
printf fprintf sprintf snprintf vprintf vfprintf vsprintf vsnprintf puts fputs putchar fputc
putc fflush fwrite perror stdout stderr sscanf __isoc99_sscanf __isoc23_sscanf __isoc23_strtol
__isoc23_strtoll __isoc23_strtoul __isoc23_strtoull
__printf_chk __fprintf_chk __sprintf_chk __snprintf_chk __vprintf_chk __vfprintf_chk
__vsnprintf_chk __vsprintf_chk __memcpy_chk __memmove_chk __memset_chk __strcpy_chk
__strcat_chk __strncpy_chk __stack_chk_fail __assert_fail __errno_location __ctype_b_loc
__ctype_tolower_loc __ctype_toupper_loc toupper tolower
clock_gettime clock time gettimeofday nanosleep usleep sleep sched_yield sched_getcpu
sched_getaffinity __sched_cpucount gethostname getpid sysconf get_nprocs
abort exit __tls_get_addr __atomic_feraiseexcept
pthread_mutex_init pthread_mutex_destroy pthread_mutex_lock pthread_mutex_trylock
pthread_mutex_unlock pthread_spin_init pthread_spin_destroy pthread_spin_lock pthread_spin_trylock
pthread_spin_unlock
""".split())  # __tls_get_addr: a _Thread_local's address (clang's task reductions use one, PIC)
# __atomic_feraiseexcept: libatomic's, which GCC calls after an _Atomic floating compound
# assignment (`*(_Atomic double *)p += v`, one compare-and-swap loop) to raise its FP exceptions
# OpenMP's runtime (libgomp; clang's __kmpc_ entry points of libomp), the data objects of Open MPI's handles (MPI_COMM_WORLD is
# &ompi_mpi_comm_world there, MPI_REQUEST_NULL &ompi_request_null) and MPI's constants that are
# objects: names, not calls into MPI.
# MPI's queries of values that move no data, make no object and wait for nothing: the tracer has
# no wrapper for them, and a cell may call them by their own names (a fresh attacker's right answer
# L13r5, 2026-12-05, took alltoallw's byte displacements from MPI_Type_get_extent and lost 4/4)
MPI_QUERIES = frozenset("""
MPI_Type_get_extent MPI_Type_get_extent_x MPI_Type_get_true_extent MPI_Type_get_true_extent_x
MPI_Type_size MPI_Type_size_x MPI_Query_thread MPI_Is_thread_main MPI_Get_version
MPI_Get_library_version MPI_Group_size MPI_Group_rank MPI_Comm_compare MPI_Group_compare
""".split())
CELL_CODE = "hl_cell_text"  # the section a student's code is moved into (hybridlab.h, HL_OWN_CODE)
CELL_CODE_BOUNDS = frozenset({f"__start_{CELL_CODE}", f"__stop_{CELL_CODE}"})  # the header's
_ALWAYS = re.compile(r"(omp_|GOMP_|__kmpc_|ompi_mpi_)\w+|ompi_request_null|ompi_message_null"
                     r"|ompi_message_no_proc|_GLOBAL_OFFSET_TABLE_|MPI_UNWEIGHTED"
                     r"|MPI_WEIGHTS_EMPTY|MPI_F_STATUSE?S?_IGNORE|MPI_F_ERRCODES_IGNORE")
# What clang's -fsanitize=thread puts into an object (an Archer build, hybridlab.kernels.archer):
# each access and atomic the compiler instruments, function entry and exit, and the module's
# constructor calling __tsan_init. Not ThreadSanitizer's annotations (ignore, acquire, release),
# which would hide a race: a cell calling those is refused like any other name.
_SANITIZER = re.compile(r"__tsan_(init|func_entry|func_exit|(unaligned_)?(read|write)(1|2|4|8|16)"
                        r"|(read|write)_range|atomic(8|16|32|64|128)_\w+|atomic_(thread|signal)_fence"
                        r"|mem(cpy|set|move))")
_SANITIZER_CTOR = "tsan.module_ctor"
# ... and what AddressSanitizer's instrumentation as calls puts into lab 15's device object (the
# kit's check of what the device's code dereferences, hybridlab.offload.exercise.WATCH_FLAGS):
# each access and memcpy/memmove/memset, and its module constructor
_SANITIZER = re.compile(rf"{_SANITIZER.pattern}|__asan_(init|version_mismatch_check_v8"
                        r"|handle_no_return|(load|store)(1|2|4|8|16|N)|mem(cpy|set|move))")
_SANITIZER_CTORS = (_SANITIZER_CTOR, "asan.module_ctor")
_REAL_MPI = re.compile(r"P?MPI_\w+|P?MPIX_\w+|ompi_\w+|MPIR_\w+")
_OMP_CRITICAL = ".gomp_critical_user_"  # GCC's lock of a named `omp critical`, a common symbol
_FORBIDDEN_SECTIONS = (".init_array", ".fini_array", ".preinit_array", ".ctors", ".dtors")
_SYSCALL = re.compile(r"\t(syscall|sysenter|int\s+\$0x80|svc\s)")
_INDIRECT = re.compile(r"\t(?:notrack\s+|bnd\s+)?(?:call|jmp)q?\s+\*")
_MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"((?: \d)*)$')
_ASM = re.compile(r"\b(asm|__asm__|__asm)\b")
# a line directive as the preprocessor reads it (`#line N`, GNU's `# N "file" flags`, `%:` too)
_LINE_DIRECTIVE = re.compile(r"^[ \t\f\v]*(?:#|%:)[ \t\f\v]*(?:line\b|\d)", re.MULTILINE)
# code or data placed in a section of the cell's own choosing: an attribute (GNU or C23 spelling)
# or clang's pragma. Its code would lie outside CELL_CODE, where the kit's write counts and its
# check of a function handed to it do not look (check_code refuses the section itself too)
_ATTRIBUTE = re.compile(r"\b__attribute(?:__)?\s*\(|\[\[")
_SECTION_WORD = re.compile(r"\b(?:__)?section(?:__)?\b")
_SECTION_PRAGMA = re.compile(r"^\s*#\s*pragma\s+(?:(?:clang|GCC)\s+)?section\b")
_LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
# What clang's OpenMP offloading adds to a unit: calls into the runtime and the regions' entries.
_OFFLOAD_CALL = re.compile(r"__tgt_\w+|__kmpc_\w+")
_OFFLOAD_ENTRY = re.compile(r"\.?__omp_offloading_\w+(\.region_id)?|\.omp_offloading\.entry\.__omp_offloading_\w+")
_REGISTRATION = ".omp_offloading.requires_reg"  # clang's constructor in .init_array.0
_BUNDLE = re.compile(r"__CLANG_OFFLOAD_BUNDLE__(openmp-x86_64-\S+)")
_BUNDLER = "clang-offload-bundler"
_STDERR = frozenset({"stderr", "perror", "psignal", "psiginfo"})  # what writes to stderr
# an attribute that builds a function without the sanitizer's checks (Archer, lab 16)
_NO_SANITIZE = re.compile(r"\b(no_sanitize\w*|__no_sanitize\w*|disable_sanitizer_instrumentation)\b")
# the OpenMP runtime's own entry points (what the compiler turns a pragma into), named in a cell's
# text: a pragma the preprocessed unit does not show (GOMP_taskwait for #pragma omp taskwait)
_RUNTIME_ENTRY = re.compile(r"\b(GOMP_\w+|__kmpc_\w+)")
# builtins that reach or reshape the stack a function returns through: its frame and return
# addresses, stack allocations, saved stack pointers, non-local jumps and forwarded calls. With
# them a cell rewrote its own return address and "returned" into a C library function it may not
# call (pwrite64 on the kit's sealed page: a fresh attacker's K1 and K2, labs 02 (d) and 16 (a),
# full points twice, 2026-12-06); a cell's functions return where they were called from
_STACK_BUILTIN = re.compile(r"\b(__builtin_(?:frame_address|return_address|extract_return_addr|"
                            r"frob_return_addr|alloca\w*|stack_save|stack_restore|apply\w*|return|"
                            r"eh_return\w*|unwind_init|dwarf_cfa|setjmp|longjmp|"
                            r"call_with_static_chain)|alloca)\b")
# OpenMP's Fortran bindings in libgomp (omp_set_schedule_, omp_set_schedule_8_): never a C call
_FORTRAN_BINDING = re.compile(r"omp_\w+_")
_WHY = {  # what a refused name does, in the words of a message
    "hl_trace_note": "writes the kit's records (hl_emit and kin are the kit's, not a cell's)",
}


@dataclass(frozen=True)
class Refusal:
    """One construct of the student's C the kit refuses: where (a cell line, or 0) and why."""

    line: int
    message: str
    file: str = CELL  # the name the unit's own lines carry

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: error: {self.message}"


@dataclass(frozen=True)
class Part:
    """What a part lets the student's object define and call beyond the common allowance."""

    defines: frozenset[str]  # the globals it may (and the kit's kernel expects it to) define
    helpers: frozenset[str]  # the kit helpers it may call (its header declares them)
    whole_program: bool = False  # a whole program: any global no library defines, and main
    stderr_is_evidence: bool = False  # the kit reads the offload runtime's report from stderr
    schedule_is_evidence: bool = False  # the kit reads the run-sched ICV (task stamps, lab 12)

    def describe(self) -> str:
        if self.whole_program:
            return "a whole program defines main and its own functions (static where it can)"
        helpers = f"; it may call the kit's {', '.join(sorted(self.helpers))}" if self.helpers else ""
        return f"the cell defines {', '.join(sorted(self.defines))} (other functions static){helpers}"


def _run(cmd: list[str]) -> str:
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=toolchain_env())
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr[-500:]}")
    return done.stdout


# ------------------------------------------------------------------------------ the part


def header_names(kernel: str) -> frozenset[str]:
    """The names kernels_c/<kernel>_student.h (and the kit headers it includes besides
    hybridlab.h) declares: functions and extern data."""
    names: set[str] = set()
    pending = [f"{kernel}_student.h"]
    while pending:
        path = find_kernel_file(pending.pop())
        if path is None:
            continue
        text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", path.read_text(), flags=re.S)
        text = re.sub(r"^\s*#[^\n]*", "", text, flags=re.M)
        for declaration in _top_level(text).split(";"):
            declaration = " ".join(declaration.split())
            if declaration.startswith(("typedef", "static", "struct", "enum")):
                continue
            found = re.search(r"\b([A-Za-z_]\w*)\s*\((?:[^()]|\([^()]*\))*\)$", declaration)
            data = re.match(r"extern\b[^()]*?\b([A-Za-z_]\w*)$", declaration)
            names |= {m.group(1) for m in (found, data) if m}
        pending += [n for n in re.findall(r'#\s*include\s+"(hl_\w+\.h)"', path.read_text())
                    if n not in ("hybridlab.h", "hl_student.h")]  # fmt: skip
    return frozenset(names)


def _top_level(text: str) -> str:
    """C text with every brace block's inside taken out (function bodies, struct members)."""
    out, depth = [], 0
    for char in text:
        depth += char == "{"
        if depth == 0:
            out.append(char)
        elif char == "}" and depth:
            depth -= 1
            out.append(";" if depth == 0 else "")
    return "".join(out)


def defined_globals(obj: Path, file: str = CELL) -> dict[str, int]:
    """The global symbols an object defines -> the line of `file` where, 0 when unknown."""
    out = {}
    for line in _run([*nm(), "-l", "--defined-only", "-g", str(obj)]).splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3:
            name, _, where = parts[2].partition("\t")
            out[name] = _line_of(where, file)
    return out


def cell_part(kernel: str, kit_object: Path) -> Part:
    """A C cell's part: it defines what its header declares and the kit's kernel does not; it
    may call what its header declares and the kernel defines."""
    declared = header_names(kernel)
    kit = set(defined_globals(kit_object))
    header = find_kernel_file(f"{kernel}_student.h")
    text = header.read_text() if header is not None else ""

    def says(flag: str) -> bool:
        return bool(re.search(rf"^\s*#\s*define\s+{flag}\b", text, re.M))

    return Part(frozenset(declared - kit), frozenset(declared & kit),
                stderr_is_evidence=says("HL_STDERR_IS_EVIDENCE"),
                schedule_is_evidence=says("HL_SCHEDULE_IS_EVIDENCE"))


WHOLE_PROGRAM = Part(frozenset({"main"}), frozenset(), whole_program=True)


# --------------------------------------------------------------------------- the checks


def _line_of(where: str, file: str) -> int:
    match = re.search(rf"(?:^|/){re.escape(file)}:(\d+)", where)
    return int(match.group(1)) if match else 0


@functools.lru_cache(maxsize=1)
def library_names() -> frozenset[str]:
    """Every name the C library, the maths library, OpenMP and MPI export: a global of the
    student's object with one of them would interpose it (the kit's timers and tracer too)."""
    names: set[str] = set()
    for lib in ("libc.so.6", "libm.so.6", "libgomp.so.1"):
        path = _run(["gcc", f"-print-file-name={lib}"]).strip()
        if Path(path).is_file():
            names |= set(_run([*nm(), "-D", "--defined-only", path]).split()[2::3])
    names = {n.split("@")[0] for n in names}
    return frozenset(names)


@functools.lru_cache(maxsize=1)
def _libm_names() -> frozenset[str]:
    path = _run(["gcc", "-print-file-name=libm.so.6"]).strip()
    if not Path(path).is_file():
        return frozenset()
    return frozenset(n.split("@")[0] for n in _run([*nm(), "-D", "--defined-only", path]).split()[2::3])


def _references(obj: Path, file: str) -> dict[str, int]:
    """Each undefined symbol of the object -> the first cell line that refers to it (0: none
    known, e.g. a reference from data)."""
    names = {line.split()[-1] for line in _run([*nm(), "-u", str(obj)]).splitlines() if line.strip()}
    lines: dict[str, int] = {}
    current = 0
    for line in _run(["objdump", "-d", "-l", "-r", "--no-show-raw-insn", str(obj)]).splitlines():
        where = re.match(r"^(\S+):(\d+)(?: \(discriminator \d+\))?$", line)
        if where:
            current = _line_of(line, file)
            continue
        reloc = re.match(r"^\s+[0-9a-f]+: R_\w+\s+([A-Za-z_.][\w.@]*)", line)
        if reloc:
            name = reloc.group(1).split("@")[0]
            if name in names and not lines.get(name):
                lines[name] = current
    return {n: lines.get(n, 0) for n in names}


def _allowed_call(name: str, part: Part, entries: frozenset[str] | None) -> bool:
    entry = name.startswith(TRACED_PREFIX) if entries is None else name in entries
    return (entry or name in part.helpers or name in ALLOWED_LIBC or name in CELL_CODE_BOUNDS
            or name in MPI_QUERIES
            or name in _libm_names() or bool(_ALWAYS.fullmatch(name))
            or bool(_SANITIZER.fullmatch(name)))  # fmt: skip


def check_symbols(obj: Path, part: Part, entries: frozenset[str] | None, file: str = CELL
                  ) -> list[Refusal]:  # fmt: skip
    """The object's globals and references against the part (see the module docstring);
    `entries` are the tracer's entry points (tracer_entries; None: any hl_traced_ name, the ones
    hl_mpi_trace.h declares). A real MPI name the tracer has an entry for was reached round the
    redirect (an evasion); one it has none for is a function the kit does not trace, said so
    with the ones it does."""
    found = []
    reserved = library_names()
    traced = traced_names(entries)
    for name, line in sorted(defined_globals(obj, file).items()):
        if name in part.defines or name.startswith(_OMP_CRITICAL) or _OFFLOAD_ENTRY.fullmatch(name):
            continue
        if not name.isidentifier():  # the compiler's own (clang's task reduction keeps a
            continue  # `reduction_size.bins_9.artificial.`): no cell names one (asm labels refused)
        if part.whole_program and name not in reserved and not _REAL_MPI.fullmatch(name) \
                and not name.startswith(("hl_", "omp_", "GOMP_")):  # fmt: skip
            continue
        what = ("would replace the library's own (the kit's timers and tracer call it too)"
                if name in reserved or _REAL_MPI.fullmatch(name) or name.startswith("omp_")
                else "is not one the part declares: make it static")  # fmt: skip
        found.append(Refusal(line, f"defines the global {name}, which {what}; {part.describe()}",
                             file))
    for name, line in sorted(_references(obj, file).items()):
        if part.stderr_is_evidence and name in _STDERR:
            found.append(Refusal(line, f"uses {name}, which writes to stderr: in this part the "
                                       "kit reads the offload runtime's report there", file))
            continue
        if _FORTRAN_BINDING.fullmatch(name):
            found.append(Refusal(line, f"uses {name}, OpenMP's Fortran binding: a C cell calls "
                                       "the C function", file))  # fmt: skip
            continue
        if part.schedule_is_evidence and name == "omp_set_schedule":
            found.append(Refusal(line, "uses omp_set_schedule: in this part the kit reads the "
                                       "schedule ICV (what ran inside a task and what outside); "
                                       "give a loop its schedule with a schedule clause", file))
            continue
        if _allowed_call(name, part, entries) or _OFFLOAD_CALL.fullmatch(name):
            continue
        if _REAL_MPI.fullmatch(name) and name.startswith("MPI_") and name not in traced:
            found.append(Refusal(line, f"{name} is not traced by the kit; this part allows: "
                                       f"{', '.join(sorted(traced))}", file))  # fmt: skip
            continue
        if _REAL_MPI.fullmatch(name):
            why = ("reaches MPI out of the tracer's sight (an #undef, push_macro, pasted name or "
                   "asm label round the redirect): call MPI by the names mpi.h gives, and only "
                   "the functions the kit traces")
        elif name.startswith("hl_"):
            why = _WHY.get(name, "is the kit's own, not a cell's")
        elif name.startswith("dl") or name in ("syscall", "open", "fopen", "read", "write"):
            why = "reaches past the kit (the dynamic linker, system calls, files)"
        else:
            why = "is not among what the part allows (memory, strings, printing, clocks, maths, OpenMP)"
        found.append(Refusal(line, f"uses {name}, which {why}", file))
    return found


def profiling_calls(obj: Path) -> str:
    """A traced kit-style kernel (not a student's unit: its kit helpers call MPI by the real
    names, so only the profiling names tell): its PMPI_ calls, as an error line, or ""."""
    names = sorted(n for n in _references(obj, CELL) if n.startswith("PMPI_"))
    return (f"{', '.join(names)}: a traced kernel calls MPI by the names mpi.h gives, not the "
            "profiling ones the tracer does not see") if names else ""  # fmt: skip


def offload_parts(obj: Path) -> list[Path]:
    """The object, and beside it the device object of an offload unit for the host plugin's
    target (unbundled into the same folder): what check_symbols and check_code judge."""
    bundle = _BUNDLE.search(_run(["readelf", "-S", "-W", str(obj)]))
    if bundle is None:
        return [obj]
    device = obj.with_name(f"{obj.stem}.device.o")
    _run([_bundler(), "--type=o", f"--targets={bundle.group(1)}", f"--inputs={obj}",
          f"--outputs={device}", "--unbundle"])  # fmt: skip
    return [obj, device]


def _bundler() -> str:
    """clang's offload bundler: beside the clang on PATH (Debian keeps it in LLVM's folder)."""
    clang = subprocess.run(["clang", "-print-prog-name=" + _BUNDLER], capture_output=True,
                           text=True, check=False, env=toolchain_env()).stdout.strip()  # fmt: skip
    return clang if clang and Path(clang).is_file() else _BUNDLER


def _only_registration(obj: Path, sections: str) -> bool:
    """Whether the object's one constructor table is clang's offload registration: .init_array.0
    with one entry, the start of .text.startup, where only .omp_offloading.requires_reg is."""
    if not re.search(r"\s\.init_array\.0\s", sections) or re.search(
            r"\s\.(init_array(?!\.0\s)|fini_array|preinit_array|ctors|dtors)\S*\s", sections):
        return False
    relocs = re.findall(r"^[0-9a-f]+\s+[0-9a-f]+\s+R_\w+\s+[0-9a-f]+\s+(\S+)", _run(
        ["readelf", "-r", "-W", str(obj)]).split("'.rela.init_array.0'", 1)[-1]
        .split("Relocation section", 1)[0], re.M)  # fmt: skip
    startup = [line.split()[-1] for line in _run(["objdump", "-t", str(obj)]).splitlines()
               if "\t" in line and line.split("\t")[0].split()[-1:] == [".text.startup"]
               and " F " in line]  # fmt: skip
    return relocs == [".text.startup"] and startup == [_REGISTRATION]


def check_code(obj: Path, file: str = CELL) -> list[Refusal]:
    """No constructor or destructor tables (but clang's offload registration), no system-call
    instruction and no indirect call or jump in the object."""
    found = []
    sections = _run(["readelf", "-S", "-W", str(obj)])
    registration = _only_registration(obj, sections)
    for name in _FORBIDDEN_SECTIONS:
        if name == ".init_array" and (registration or _sanitizer_constructor_only(obj)):
            continue
        if re.search(rf"\s{re.escape(name)}(\.\S+)?\s", sections):
            found.append(Refusal(0, f"has a {name} section (a constructor or destructor): "
                                    "nothing of a cell runs before or after the kit calls it",
                                 file))  # fmt: skip
    found += _foreign_code(obj, file)
    for line in _run([*nm(), "-l", "--defined-only", str(obj)]).splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[1] == "i":  # STT_GNU_IFUNC
            name, _, where = parts[2].partition("\t")
            found.append(Refusal(_line_of(where, file), f"makes {name} an indirect function (ifunc):"
                                 " its resolver would run as the library loads, before the kit"
                                 " calls anything; define the function itself", file))  # fmt: skip
    current, header, syscall, indirect = 0, False, False, False
    kit = tuple({f"{p}/" for d in kernel_dirs() for p in (d, d.resolve())})
    for line in _run(["objdump", "-d", "-l", "--no-show-raw-insn", str(obj)]).splitlines():
        if re.match(r"^\S+:\d+", line):
            # only the kit's headers: a C library's inline routine (glibc's bsearch, inlined at
            # -O2, calls its comparator) is the cell's call
            current = _line_of(line, file)
            header = bool(re.match(r"^\S+\.h:\d+", line)) and line.startswith(kit)
        elif _SYSCALL.search(line) and not syscall:
            syscall = True
            found.append(Refusal(current, "makes a system call itself (asm): calls go through "
                                          "MPI, OpenMP and the C library", file))  # fmt: skip
        elif _INDIRECT.search(line) and not header and not indirect:  # a kit header's inlined
            # helper (hl_sample calling the test it is given) checks the address (HL_OWN_CODE)
            indirect = True
            found.append(Refusal(current, "calls through a function pointer: a cell calls MPI, "
                                          "OpenMP, the C library and its own functions by name",
                                 file))  # fmt: skip
    return found


def _code_sections(obj: Path) -> list[str]:
    """The object's sections of code (objdump -h: CODE), by name."""
    out, name = [], ""
    for line in _run(["objdump", "-h", "-w", str(obj)]).splitlines():
        fields = line.split()
        if len(fields) > 6 and fields[0].isdigit():
            name = fields[1]
            if "CODE" in line.split(None, 7)[-1]:
                out.append(name)
    return out


def _foreign_code(obj: Path, file: str) -> list[Refusal]:
    """Code in a section other than .text and .text.* (what move_cell_code renames CELL_CODE):
    a `section` attribute, clang's section pragma or any other spelling put it where the kit's
    write counts and its check of a function handed to it do not look (a fresh attacker's copies
    in a section "hl_fast" were counted as no one's). Named at the first cell line of its code."""
    found = []
    for name in _code_sections(obj):
        if name == ".text" or name.startswith(".text.") or name == CELL_CODE:
            continue
        line = 0
        for text in _run(["objdump", "-d", "-l", "-j", name, str(obj)]).splitlines():
            line = _line_of(text, file) if re.match(r"^\S+:\d+", text) else 0
            if line:
                break
        found.append(Refusal(line, f"puts code in the section {name}: a cell's code stays in "
                                   ".text, the only code the kit counts and calls (no section "
                                   "attribute or pragma)", file))  # fmt: skip
    return found


def move_cell_code(obj: Path) -> None:
    """Rename the object's code sections (.text and .text.*) to CELL_CODE: once linked, the
    linker's __start_/__stop_hl_cell_text bound the student's own code, and the kit's inline
    helpers call a function handed to them only when it lies there. An offload unit (a bundle)
    is left as it is."""
    sections = _run(["readelf", "-S", "-W", str(obj)])
    if _BUNDLE.search(sections):
        return
    names = sorted(set(re.findall(r"\]\s+(\.text(?:\.\S+)?)\s", sections)))
    if names:
        _run(["objcopy", *(f"--rename-section={n}={CELL_CODE}" for n in names), str(obj)])


def _sanitizer_constructor_only(obj: Path) -> bool:
    """Whether the object's constructor tables hold one entry, ThreadSanitizer's own module
    constructor (an Archer build); False for anything else there, or nothing."""
    relocations = _run(["readelf", "-r", "-W", str(obj)]) + "\n\n"
    tables = re.findall(r"Relocation section '\.rela\.init_array[^']*'.*?\n\n", relocations, re.S)
    targets = [t for table in tables for t in re.findall(
        r"^[0-9a-f]+\s+[0-9a-f]+\s+\S+\s+[0-9a-f]+\s+(.+?)\s*$", table, re.M)]
    return (any(targets in ([f".text.{c} + 0"], [f"{c} + 0"]) for c in _SANITIZER_CTORS)
            or _gcc_sanitizer_constructor(obj, targets))


def _gcc_sanitizer_constructor(obj: Path, targets: list[str]) -> bool:
    """Whether the one constructor is GCC's for ThreadSanitizer (a whole program's counted
    build, hybridlab.slurm.jobs.COUNT_WRITES): a function of .text.startup whose whole code is a
    jump to __tsan_init."""
    at = re.fullmatch(r"\.text\.startup \+ ([0-9a-f]+)", targets[0]) if len(targets) == 1 else None
    if at is None:
        return False
    code = _run(["objdump", "-dr", "--no-show-raw-insn", "--section=.text.startup", str(obj)])
    body = re.search(rf"^0*{at.group(1)} <[^>]+>:\n((?:\s+\S.*\n?)*)", code, re.M)
    lines = [ln.split(None, 1)[1] for ln in body.group(1).splitlines() if ln.strip()] if body else []
    return (len(lines) == 2 and lines[0].startswith("jmp")
            and re.fullmatch(r"R_X86_64_PLT32\s+__tsan_init-0x4", lines[1].strip()) is not None)


@functools.lru_cache(maxsize=4)
def _wrapper_includes(cc: str) -> list[str]:
    """The include folders the compiler wrapper adds (mpicc -show: MPI's own headers)."""
    done = subprocess.run([cc, "-show"], capture_output=True, text=True, check=False,
                          env=toolchain_env())  # fmt: skip
    return [str(Path(d).resolve()) for d in re.findall(r"(?:^|\s)-I(\S+)", done.stdout)]


def line_directives(unit: str) -> list[int]:
    """The lines of the unit's cell (after its `#line 1 "cell"`) that hold a line directive, read
    as the preprocessor reads them: lines joined by a backslash, comments as blanks. A directive
    sets what the preprocessed unit says of every later line (a system header's, a kit file's,
    an included one's), which every check of the unit's text and debug lines believes (a fresh
    attacker's `# 1 "cell" 3` let a kit header in and hid a taskwait; one naming a kit file
    made the cell's code pass for the kit's, 4/4 kept in labs 03, 04 and 12, 2026-12-05)."""
    head = f'#line 1 "{CELL}"\n'
    at = unit.find(head)
    if at < 0:
        return []
    logical = []
    for piece in unit[at + len(head):].split("\n"):  # a backslash-newline joins two lines
        if logical and logical[-1][0].endswith("\\"):
            logical[-1] = (logical[-1][0][:-1] + piece, logical[-1][1] + 1)
        else:
            logical.append((piece, 1))
    text = "\n".join(line for line, _ in logical)
    blank = comments_blanked(text)
    starts, number = [], 1
    for _, joined in logical:
        starts.append(number)
        number += joined
    return [starts[blank.count("\n", 0, m.start())] for m in _LINE_DIRECTIVE.finditer(blank)]


def preprocessed_cell(unit: str, compile_flags: list[str], file: str = CELL,
                      env: dict[str, str] | None = None,
                      ) -> tuple[list[tuple[int, str]], list[Refusal]]:  # fmt: skip
    """The cell's own lines after preprocessing (cc -E of the unit, macros expanded, comments
    gone; `compile_flags` as the unit is compiled, -c and -o left out), as (cell line, text),
    and what the unit may not do there: asm, a #line to another file, an #include of a file
    that is neither a system nor an MPI header (a kit header the unit does not include already:
    a fresh attacker's n04hurry included hl_grid2d.h and let the kit's own halo exchange,
    send_up and send_down, do lab 04 (a), 4/4 kept, 2026-12-05). `env`: the compiler's environment (an offload
    build's, build.compiler_env; else toolchain.toolchain_env's)."""
    env = env or toolchain_env()
    done = subprocess.run(direct_command([*compile_flags, "-E", "-x", "c", "-"], env), input=unit,
                          capture_output=True, text=True, check=False, env=env)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"the unit does not preprocess: {done.stderr[-1500:]}")
    kit = [str(d.resolve()) for d in kernel_dirs()]
    mpi = [os.path.realpath(d) for d in _wrapper_includes(compile_flags[0])]
    lines: list[tuple[int, str]] = []
    found: list[Refusal] = []
    in_cell, depth, current, number = False, 0, "", 0
    given: set[str] = set()  # the files the unit included before the cell
    for text in done.stdout.splitlines():
        marker = _MARKER.match(text)
        if not marker:
            if in_cell and depth == 0 and current == CELL:
                lines.append((number, text))
            number += 1
            continue
        line, name, flags = int(marker.group(1)), marker.group(2), marker.group(3).split()
        if name.startswith("/"):  # as the file is: a path through ".." names where it leads
            name = os.path.realpath(name)
        if name == CELL and not in_cell and "1" not in flags:
            in_cell = True  # the unit's own `#line 1 "cell"`
        elif not in_cell:
            given.add(name)
        elif "1" in flags:
            if depth == 0 and "3" not in flags and name in given:
                pass  # a header the unit gives already, included again
            elif depth == 0 and "3" not in flags and any(name.startswith(k) for k in kit):
                found.append(Refusal(number, f"includes {Path(name).name}, a header of the "
                                             "kit's kernels: a cell calls what its part's header "
                                             "declares, which the unit includes already", file))
            elif depth == 0 and "3" not in flags and not any(name.startswith(k) for k in mpi):
                found.append(Refusal(number, f"includes {name}: a cell includes system and MPI "
                                             "headers only", file))  # fmt: skip
            depth += 1
        elif "2" in flags:
            depth = max(depth - 1, 0)
        elif depth == 0 and name != current:
            found.append(Refusal(number, f'sets its line to another file ("{name}"): no '
                                             "#line in a cell", file))  # fmt: skip
        current, number = name, line
    found += _section_placements(lines, file)
    found += [Refusal(line, "holds a line directive (#line, or # N \"file\"): the kit reads where "
                            "each line of the unit comes from, so a cell keeps its own", file)
              for line in line_directives(unit)]
    for line, text in lines:
        if _ASM.search(text):
            found.append(Refusal(line, "uses asm: a cell is C (calls go through MPI, OpenMP and "
                                       "the C library)", file))  # fmt: skip
        entry = _RUNTIME_ENTRY.search(text)
        if entry:
            found.append(Refusal(line, f"calls {entry.group(1)}, an entry point of the OpenMP "
                                       "runtime: a cell says what it wants with OpenMP's pragmas "
                                       "and omp_ functions", file))  # fmt: skip
        stack = _STACK_BUILTIN.search(text)
        if stack:
            found.append(Refusal(line, f"uses {stack.group(1)}, which reaches or reshapes the "
                                       "stack its functions return through: a cell's functions "
                                       "return where they were called from (an array's room comes "
                                       "from its declaration or from malloc)", file))
        if _NO_SANITIZE.search(text):
            found.append(Refusal(line, "turns a sanitizer off (no_sanitize): the kit's race "
                                       "detector checks every line of a cell", file))  # fmt: skip
    return lines, found


def _section_placements(lines: list[tuple[int, str]], file: str) -> list[Refusal]:
    """The cell's section attributes (`__attribute__((section("x")))`, `__section__`,
    `[[gnu::section("x")]]`, across lines too) and section pragmas (`#pragma clang section`, as
    `_Pragma` gives it too), each at its line: string and character literals are read as empty."""
    found = []
    said = "places code or data in a section of its own (%s): a cell's code stays where the " \
           "compiler puts it (.text), the only code the kit counts and calls"
    text, starts = "", []
    for line, source in lines:
        starts.append((len(text), line))
        text += _LITERAL.sub('""', source) + "\n"
        if _SECTION_PRAGMA.match(source):
            found.append(Refusal(line, said % "a section pragma", file))

    def line_at(offset: int) -> int:
        return next(line for start, line in reversed(starts) if start <= offset)

    for match in _ATTRIBUTE.finditer(text):
        end, depth = match.end(), 1
        close = "]]" if match.group().startswith("[[") else ")"
        while end < len(text) and depth:
            if close == "]]" and text.startswith("]]", end):
                break
            depth += {"(": close == ")", ")": -(close == ")")}.get(text[end], 0)
            end += 1
        if _SECTION_WORD.search(text, match.end(), end):
            found.append(Refusal(line_at(match.start()), said % "a section attribute", file))
    return found


@functools.lru_cache(maxsize=1)
def _redirected() -> frozenset[str]:
    """The MPI names hl_mpi_trace.h sends to the tracer (`#define MPI_Send HL_ENTRY(...)`)."""
    path = find_kernel_file("hl_mpi_trace.h")
    text = path.read_text() if path else ""
    return frozenset(re.findall(r"^#define (MPI_\w+) (?:HL_ENTRY\(|hl_traced_)", text, re.M))


def traced_names(entries: frozenset[str] | None) -> frozenset[str]:
    """The MPI functions a cell may call: those the tracer has an entry point for (`entries`,
    tracer_entries), or without them those hl_mpi_trace.h redirects to it."""
    if entries is None:
        return _redirected()
    names = (n.removeprefix(TRACED_PREFIX) for n in entries)
    return frozenset(n for n in names if n.startswith("MPI_") and not n.endswith("_synchronous"))


def tracer_entries(tracer_object: Path) -> frozenset[str]:
    """The entry points a student's unit may call: what the tracer object defines as
    hl_traced_*."""
    return frozenset(n for n in defined_globals(tracer_object) if n.startswith(TRACED_PREFIX))
