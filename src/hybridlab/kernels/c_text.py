"""Reading C text the way the method checks need it: comments and literals taken out, a
function's body, the statement a pragma governs, the loops around a place. Meant for the
preprocessed unit (student_c.preprocessed), where macros are expanded and #if'd-out lines gone.

    text = code_only(preprocessed_unit)
    body = function_body(text, "construct_test")
    block = statement_at(body, pragma.end())
    looped = inside_loop(body, pragma.start())
    governed = pragma_spans(body, r"parallel\b")
"""

from __future__ import annotations

import re

_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_STRINGS = re.compile(r'"(?:\\.|[^"\\\n])*"' + r"|'(?:\\.|[^'\\\n])*'")
_LOOP_HEAD = re.compile(r"\b(for|while)\s*\(")
_PAIRS = {"(": ")", "{": "}"}


def without_comments(code: str) -> str:
    """The C with its comments taken out (string literals kept)."""
    return _COMMENTS.sub(" ", code)


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


def statement_at(text: str, pos: int) -> str:
    """The statement that begins at (or after blank space from) `pos`: a brace block, a loop or
    if with its body, a pragma line with the statement it governs, or one simple statement."""
    i = len(text) - len(text[pos:].lstrip())
    if i >= len(text):
        return ""
    if text[i] == "{":
        return text[i : closing(text, i)]
    if text[i] == "#":
        end = text.find("\n", i)
        end = len(text) if end < 0 else end
        return text[i:end] + statement_at(text, end)
    head = re.match(r"(for|while|if|switch)\s*\(", text[i:])
    if head:
        after = closing(text, i + head.end() - 1)
        body = statement_at(text, after)
        end = text.index(body, after) + len(body) if body else after
        rest = re.match(r"\s*else\b", text[end:])
        if head.group(1) == "if" and rest:
            tail = statement_at(text, end + rest.end())
            end = text.index(tail, end + rest.end()) + len(tail)
        return text[i:end]
    if re.match(r"do\b", text[i:]):
        body = statement_at(text, i + 2)
        end = text.index(body, i + 2) + len(body)
        semi = text.find(";", end)
        return text[i : semi + 1 if semi >= 0 else len(text)]
    semi = text.find(";", i)
    return text[i : semi + 1 if semi >= 0 else len(text)]


def loops(text: str) -> list[tuple[int, int, int]]:
    """(start, body start, end) of every for, while and do loop in `text`."""
    found = []
    for head in _LOOP_HEAD.finditer(text):
        after = closing(text, head.end() - 1)
        if head.group(1) == "while" and text[after:].lstrip().startswith(";"):
            continue  # the end of a do ... while (...);
        body = statement_at(text, after)
        start = text.index(body, after) if body else after
        found.append((head.start(), start, start + len(body)))
    for do in re.finditer(r"\bdo\b", text):
        loop = statement_at(text, do.start())
        body = statement_at(text, do.end())
        found.append((do.start(), text.index(body, do.end()) if body else do.end(),
                      do.start() + len(loop)))
    return found


def inside_loop(text: str, pos: int) -> bool:
    """Whether `pos` lies in the body of a loop of `text`."""
    return any(body <= pos < end for _, body, end in loops(text))


def pragma_spans(text: str, directive: str) -> list[tuple[int, int]]:
    """(start, end) of every `#pragma omp <directive>` (a regular expression) with the statement
    it governs."""
    spans = []
    for pragma in re.finditer(rf"#\s*pragma\s+omp\s+(?:{directive})[^\n]*", text):
        governed = statement_at(text, pragma.end())
        spans.append((pragma.start(), text.index(governed, pragma.end()) + len(governed)
                      if governed else pragma.end()))
    return spans
