"""Reading C text the way the method checks need it: comments and literals taken out, a
function's body, the statement a pragma governs, the loops around a place. Meant for the
preprocessed unit (student_c.preprocessed), where macros are expanded and #if'd-out lines gone.

    text = code_only(preprocessed_unit)
    body = function_body(text, "construct_test")
    block = statement_at(body, pragma.end())
    looped = inside_loop(body, pragma.start())
    governed = pragma_spans(body, r"parallel\b")      # [(start, end, pragma line), ...]
"""

from __future__ import annotations

import re

_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_STRINGS = re.compile(r'"(?:\\.|[^"\\\n])*"' + r"|'(?:\\.|[^'\\\n])*'")
_TOKENS = re.compile(f"{_STRINGS.pattern}|{_COMMENTS.pattern}", re.S)  # whichever begins first
_LOOP_HEAD = re.compile(r"\b(for|while)\s*\(")
_FUNCTION = re.compile(r"\b(\w+)\s*\([^;{}()]*(?:\([^()]*\)[^;{}()]*)*\)\s*\{")
_NOT_FUNCTIONS = {"if", "for", "while", "switch", "do", "else", "return", "sizeof"}
_PAIRS = {"(": ")", "{": "}"}
# A cell's clocks, sleeps and delays (the C library's, OpenMP's, MPI's and hybridlab.h's): each
# times a wait, which the method checks of labs 01 (b) and 12 refuse (a fresh attacker's turns
# timed with hl_sleep_us, hl_sleep_seconds or hl_now kept 12 (d) 4/4 twice, 2026-12-07, A4)
CLOCKS_AND_SLEEPS = re.compile(r"\b(?:hl_traced_|P)?MPI_Wti(?:me|ck)\b"  # traced in the preprocessed unit
                               r"|\b(?:omp_get_wtime|omp_get_wtick|clock_gettime"
                               r"|gettimeofday|nanosleep|clock_nanosleep|usleep|sleep|sched_yield"
                               r"|thrd_sleep|thrd_yield|timespec_get|hl_now|hl_sleep_us|hl_sleep_seconds"
                               r"|hl_nanosleep|hl_thread_cpu_now|hl_delay\w*|hl_slowest_since"
                               r"|hl_start_together|hl_measure|hl_phase\w*|hl_barrier_phase)\b"
                               r"|\b(?:time|clock)\s*\(|\w*rdtsc\w*|__builtin_readcyclecounter")


def without_comments(code: str) -> str:
    """The C with its comments taken out (string literals kept)."""
    return _COMMENTS.sub(" ", code)


def comments_blanked(code: str) -> str:
    """The C with each comment's characters made blanks, its newlines kept (line numbers hold),
    read left to right with the string and character literals (kept as they are)."""
    return _TOKENS.sub(lambda m: m.group() if m.group()[0] in "\"'"
                       else re.sub(r"[^\n]", " ", m.group()), code)


def code_only(code: str) -> str:
    """The C with its comments taken out and its string and character literals emptied."""
    return _COMMENTS.sub(" ", _STRINGS.sub('""', code))


def closing(text: str, start: int) -> int:
    """The index just past the bracket closing the one ( or { at `start`."""
    opening, depth = text[start], 0
    for i in range(start, len(text)):
        depth += (text[i] == opening) - (text[i] == _PAIRS[opening])
        if depth == 0:
            return i + 1
    return len(text)


def function_body(text: str, name: str) -> str:
    """The text of C function `name`, from its name to its matching closing brace; ValueError
    when `text` does not define it."""
    match = re.search(rf"\b{name}\s*\([^)]*\)\s*\{{", text)
    if not match:
        raise ValueError(f"the code must define the function {name}(...) {{ ... }}")
    return text[match.start() : closing(text, match.end() - 1)]


def functions(text: str) -> list[tuple[str, int, int]]:
    """(name, start, end) of each function `text` defines."""
    found, i = [], 0
    while (match := _FUNCTION.search(text, i)) is not None:
        if match.group(1) in _NOT_FUNCTIONS:
            i = match.end()
            continue
        end = closing(text, match.end() - 1)
        found.append((match.group(1), match.start(), end))
        i = end
    return found


def statement_end(text: str, pos: int) -> int:
    """Just past the statement that begins at (or after blank space from) `pos`: a brace block,
    a loop or if with its body, a pragma line with the statement it governs, or one simple
    statement (to its semicolon outside brackets)."""
    i = len(text) - len(text[pos:].lstrip())
    if i >= len(text):
        return i
    if text[i] == "#":
        line_end = text.find("\n", i)
        return statement_end(text, len(text) if line_end < 0 else line_end)
    if text[i] == "{":
        return closing(text, i)
    head = re.match(r"(for|while|if|switch)\s*\(", text[i:])
    if head:
        end = statement_end(text, closing(text, i + head.end() - 1))
        rest = re.match(r"\s*else\b", text[end:])
        return statement_end(text, end + rest.end()) if head.group(1) == "if" and rest else end
    if re.match(r"do\b", text[i:]):
        return text.find(";", statement_end(text, i + 2)) + 1 or len(text)
    depth = 0
    for k in range(i, len(text)):
        depth += (text[k] in "({") - (text[k] in ")}")
        if text[k] == ";" and depth == 0:
            return k + 1
    return len(text)


def statement_at(text: str, pos: int) -> str:
    """The text of the statement that begins at (or after blank space from) `pos`."""
    return text[pos : statement_end(text, pos)].strip()


def loops(text: str) -> list[tuple[int, int, int]]:
    """(start, body start, end) of every for, while and do loop in `text`."""
    found = []
    for head in _LOOP_HEAD.finditer(text):
        after = closing(text, head.end() - 1)
        if head.group(1) == "while" and text[after:].lstrip().startswith(";"):
            continue  # the end of a do ... while (...);
        body = len(text) - len(text[after:].lstrip())
        found.append((head.start(), body, statement_end(text, after)))
    for do in re.finditer(r"\bdo\b", text):
        body = len(text) - len(text[do.end() :].lstrip())
        found.append((do.start(), body, statement_end(text, do.start())))
    return found


def inside_loop(text: str, pos: int) -> bool:
    """Whether `pos` lies in the body of a loop of `text`."""
    return any(body <= pos < end for _, body, end in loops(text))


def pragma_spans(text: str, directive: str) -> list[tuple[int, int, str]]:
    """(start, end, pragma line) of every `#pragma omp <directive>` (a regular expression
    matched right after `omp`; `(?:\\w+\\s+)*for\\b` for any combined construct ending in for),
    over the statement it governs."""
    return [(m.start(), statement_end(text, m.end()), m.group(0))
            for m in re.finditer(rf"#\s*pragma\s+omp\s+(?:{directive})[^\n]*", text)]


def first_use(pattern: re.Pattern, text: str) -> re.Match | None:
    """The first match of `pattern` in `text` that is not the definition of a function of that
    name (a cell defining clock_gettime replaces the library's own, which the build refuses,
    saying so: kernels.unit_checks)."""
    for found in pattern.finditer(text):
        head = re.match(r"\s*\(", text[found.end():]) if found.group(0)[-1:] != "(" else True
        if head:
            opening = found.end() - 1 if head is True else found.end() + head.end() - 1
            if re.match(r"\s*\{", text[closing(text, opening):]):
                continue
        return found
    return None


# the one pause labs 01 (b) and 03 (d) allow between tests of the requests, and those tests
_PAUSE = re.compile(r"hl_sleep_us\s*\(\s*\d+[uUlL]*\s*\)")
_POLLS = re.compile(r"\b(?:hl_traced_)?MPI_(?:Test(?:all|any|some)?|Iprobe|Improbe)\s*\(")


def timed_use(text: str, *more: re.Pattern) -> re.Match | None:
    """The first clock read, sleep or delay (CLOCKS_AND_SLEEPS, and the patterns `more`) in the
    preprocessed cell `text`, leaving out the one pause allowed: hl_sleep_us(N), N a constant, in
    the innermost loop whose body tests or probes requests. None when there is none."""
    allowed = text
    for pause in _PAUSE.finditer(text):
        around = [loop for loop in loops(text) if loop[1] <= pause.start() < loop[2]]
        if around:
            _, body, end = max(around, key=lambda loop: loop[1])
            if _POLLS.search(text, body, end):
                allowed = allowed[:pause.start()] + " " * len(pause.group(0)) + allowed[pause.end():]
    used = [m for m in (first_use(p, allowed) for p in (CLOCKS_AND_SLEEPS, *more)) if m]
    return min(used, key=lambda m: m.start(), default=None)


def timed_name(found: re.Match) -> str:
    """The clock or sleep a timed_use match names, as the cell wrote it."""
    return found.group(0).strip(" (").replace("hl_traced_", "")


def text_line(text: str, pos: int, cell_lines: list[int] | None = None) -> int:
    """The cell's line of `pos` in preprocessed text (cell_lines: the cell's line of each line of
    the text, student_c.preprocessed_lines), else the text's own line (from 1)."""
    line = text.count("\n", 0, pos)
    return cell_lines[line] if cell_lines and line < len(cell_lines) else line + 1
