"""Runs INSIDE the student's kernel (and in the grader's judge): the values a hidden test cell
hands out of the kernel, so that no expected value is ever computed where the student's code runs.

A judged hidden test cell asks the kernel only for values (book/authoring.md):

    from hybridlab.grading.handout import from_kernel as _from_kernel
    _got = _from_kernel(lambda: cut_edges(_rows, _cols, _nodes))    # the student's answer
    ### BEGIN JUDGE
    assert _got == _cut_ref(_rows, _cols, _nodes)                     # the grader's side only
    ### END JUDGE

In the kernel, from_kernel calls the function it is given, writes the value as one line of
tagged JSON (no pickle: the grader reads it as data) and returns the value as the grader will
read it back. The grader removes the judge blocks before the cell reaches the kernel, and
afterwards runs the whole cell in a fresh process of its own (judge.py), where from_kernel calls
nothing and returns the handed-out values in order.

The channel (issue 36: a helper process of the student's rewrote the hand-out file, a plain file
of the sandbox, after lab 09 (a)'s test cell, A10's F1 and F2) is a pipe the grader makes for
each kernel it starts (Channel): the kernel inherits its write end only (the descriptor
$HYBRIDLAB_HANDOUT names, taken when this module is imported, by the guard's capture, before any
student cell, and made close-on-exec: no program the kernel starts inherits it), and the grader
reads the other end as it fills. What was written cannot be changed or taken back (a pipe only
appends), and each line is a frame {"part", "n", "value"}: the test cell open now (the guard's
restore opens it, resume closes it) and the value's number in it. The grader takes what the
pipe holds after each cell, and the judge (values) accepts a test cell's lines only as its own
frames numbered 0, 1, 2, ... with as many values as the test reads: a line written by any other
writer (a process handed or re-opening the descriptor, a thread, os.write from the student's
code) or outside the test cell that owns it can only add a line, and the part is refused with
the reason (HandOutMismatch, zero). from_kernel writes only to the descriptor it was given and
refuses one replaced meanwhile (dup2 of another file over it).
Values: None, bool, int, float, str, list, tuple, dict, set, numpy scalars and arrays (numbers,
booleans, strings, objects of these), pandas Series, DataFrame and Index; anything else is
handed out as its type and repr and never equals an expected value.
"""

from __future__ import annotations

import json
import os
import select
import stat
import threading
from collections import deque

ENV = "HYBRIDLAB_HANDOUT"  # the descriptor (a pipe's write end) the kernel hands values out to
DEPTH = 40  # nesting deeper than this is handed out as unreadable
# a text longer than this is handed out compressed (a trace of a polling loop runs to tens of
# MB, past what the grader reads of one cell's hand-out), and unpacked no further than MAX_TEXT
LONG_TEXT = 1 << 20
MAX_TEXT = 1 << 30
_replayed: deque | None = None  # in the judge: the values the kernel handed out, in order
_cell: list = [None, 0]  # in the kernel: the test cell open now (its part) and its values so far
CAP = 2**26  # bytes the grader keeps of one cell's hand-out (more: the cell's lines refused)
OVERFLOW = "<more handed out than the grader keeps>"  # the grader's line after a cut hand-out


class HandOutMismatch(Exception):
    """The judge asked for more values than the kernel handed out (or fewer were read)."""


class Unreadable:
    """A value the kernel could not hand out as data: its type and repr, equal to nothing else."""

    def __init__(self, kind: str, text: str):
        self.kind, self.text = kind, text

    def __repr__(self) -> str:
        return f"<unreadable {self.kind}: {self.text}>"


def from_kernel(answer, _write=os.write, _fstat=os.fstat, _dumps=json.dumps):
    """The value of `answer()` (a function of no arguments) as the grader reads it: in the
    kernel, call it and hand the value out (a frame of the test cell open now); in the judge,
    the next value the kernel handed out. (The defaults are bound before any student cell.)"""
    if _replayed is not None:
        if not _replayed:
            raise HandOutMismatch("the test reads more values than the kernel handed out")
        return decode(_replayed.popleft())
    encoded = encode(answer())
    fd = _destination()
    if fd is not None:
        if _identity(fd, _fstat) != _CHANNEL:
            raise HandOutMismatch("the hand-out channel's descriptor was replaced (not the pipe "
                                  "the grader gave the kernel): nothing handed out")
        part, number = _cell
        _cell[1] = number + 1
        data = (_dumps({"part": part, "n": number, "value": encoded}) + "\n").encode()
        while data:
            data = data[_write(fd, data):]
    return decode(encoded)


def _descriptor(text: str | None = os.environ.get(ENV)) -> int | None:
    """The channel's descriptor $HYBRIDLAB_HANDOUT named at import (a number), if it is an open
    pipe."""
    try:
        fd = int(text or "")
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return None
    except (ValueError, OSError):
        return None
    os.set_inheritable(fd, False)  # close-on-exec: no program the kernel starts inherits it
    return fd


def _destination(fd: int | None = _descriptor()) -> int | None:
    """The channel's descriptor as $HYBRIDLAB_HANDOUT named it when this module was imported:
    in a graded kernel, by the guard's capture, before any student cell (a default argument:
    the guard watches it). The variable changed later sends nothing elsewhere."""
    return fd


def _identity(fd: int | None, _fstat=os.fstat) -> tuple[int, int] | None:
    """(device, inode) of the pipe at `fd` (None: not open, or not a pipe)."""
    try:
        found = _fstat(fd)
    except (OSError, TypeError, ValueError):
        return None
    return (found.st_dev, found.st_ino) if stat.S_ISFIFO(found.st_mode) else None


_CHANNEL = _identity(_destination())  # the pipe the grader gave this kernel


def open_cell(part: str) -> None:
    """The guard, before a test cell: the values handed out from now on are `part`'s, from 0."""
    _cell[:] = [str(part), 0]


def close_cell() -> None:
    """The guard, after the grader took the test cell's values: none belongs to a cell now."""
    _cell[:] = [None, 0]


def values(lines: list[str], part: str) -> list:
    """The values of the test cell `part` (the encoded JSON data, in order) in the lines the
    grader took after it; HandOutMismatch with the reason when a line is not one of that cell's
    frames numbered in order: written by another writer, or outside the test cell."""
    if OVERFLOW in lines:
        raise HandOutMismatch(f"more than {CAP >> 20} MiB handed out in this cell: the grader "
                              "kept none of it")
    found = []
    for i, line in enumerate(lines):
        where = f"hand-out line {i + 1} of {len(lines)}"
        try:
            frame = json.loads(line)
        except ValueError:
            frame = None
        if not (isinstance(frame, dict) and set(frame) == {"part", "n", "value"}):
            raise HandOutMismatch(
                f"{where} is not a value the test's from_kernel wrote (not one of its frames: "
                f"{line[:60]!r}): written by another writer, refused")
        if frame["part"] != part:
            raise HandOutMismatch(
                f"{where} was handed out {'outside any test cell' if frame['part'] is None else 'in ' + repr(frame['part'])[:40]},"
                f" not in this test cell ({part!r}): written outside the test cell that owns it, refused")
        if frame["n"] != i:
            raise HandOutMismatch(
                f"{where} is numbered {str(frame['n'])[:20]}, not {i}: a line written by another "
                "writer beside the test's own, refused")
        found.append(frame["value"])
    return found


class Channel:
    """The grader's side of one kernel's hand-out channel: a pipe whose write end (`fd`) the
    kernel inherits ($HYBRIDLAB_HANDOUT: env(); closed here once the kernel started: started()),
    read by a thread of the grader's as it fills (the kernel never waits on a full pipe); take()
    gives the lines written since the last take, cut to CAP bytes (then an OVERFLOW line)."""

    def __init__(self, cap: int = CAP):
        self._read, self.fd = os.pipe()  # neither inherited by anything the grader starts
        os.set_blocking(self._read, False)
        self._cap, self._data, self._over, self._done = cap, bytearray(), False, False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._pump, daemon=True, name="hybridlab-handout")
        self._thread.start()

    def env(self) -> dict[str, str]:
        return {ENV: str(self.fd)}

    def started(self) -> None:
        """The kernel has its copy of the write end: the grader's is closed (end of file when
        the kernel and whatever inherited it have ended)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def _pump(self) -> None:
        while not self._done:
            select.select([self._read], [], [], 0.2)
            with self._lock:
                if self._done or not self._drain():
                    return

    def _drain(self) -> bool:
        """Read what the pipe holds now (the lock held); False at its end."""
        while True:
            try:
                chunk = os.read(self._read, 1 << 20)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not chunk:
                return False
            if len(self._data) + len(chunk) > self._cap:
                self._over = True
            else:
                self._data += chunk

    def take(self) -> list[str]:
        """The lines written since the last take (all the kernel wrote before now)."""
        with self._lock:
            if not self._done:
                self._drain()
            data, over = bytes(self._data), self._over
            self._data, self._over = bytearray(), False
        lines = data.decode(errors="replace").splitlines()
        return [*lines, OVERFLOW] if over else lines

    def close(self) -> None:
        self.started()
        with self._lock:
            self._done = True
            os.close(self._read)
        self._thread.join(1.0)


# ------------------------------------------------------------------------------ the format


def _unreadable(value) -> dict:
    try:
        text = repr(value)[:300]
    except Exception as err:  # a repr that fails is the student's: say so, hand out nothing
        text = f"(repr failed: {type(err).__name__})"
    return {"type": "unreadable", "kind": type(value).__name__, "text": text}


def _array(values, depth: int) -> dict:
    import numpy as np

    values = np.asarray(values)
    if values.dtype.kind in "biuU":
        data = values.ravel().tolist()
    elif values.dtype.kind == "f":
        data = [float(v) for v in values.ravel()]
    else:
        return {
            "type": "ndarray",
            "dtype": "object",
            "shape": list(values.shape),
            "data": [encode(v, depth + 1) for v in values.ravel().tolist()],
        }
    return {"type": "ndarray", "dtype": values.dtype.str, "shape": list(values.shape), "data": data}


def _index(index, depth: int) -> dict:
    import pandas as pd

    if isinstance(index, pd.MultiIndex):
        return {
            "type": "multiindex",
            "names": [encode(n, depth + 1) for n in index.names],
            "data": [encode(tuple(t), depth + 1) for t in index.tolist()],
        }
    return {"type": "index", "name": encode(index.name, depth + 1), "data": _array(index, depth)}


def encode(value, depth: int = 0):
    """`value` as JSON data (tagged where JSON has no such type)."""
    import sys

    if depth > DEPTH:
        return _unreadable(value)
    if type(value) is str and len(value) > LONG_TEXT:
        import base64
        import zlib

        packed = base64.b64encode(zlib.compress(value.encode("utf-8", "surrogatepass"), 6))
        return {"type": "text", "data": packed.decode("ascii")}
    if value is None or type(value) in (bool, int, float, str):
        return value
    if type(value) in (list, tuple, set, frozenset):
        items = [encode(v, depth + 1) for v in value]
        return items if type(value) is list else {"type": type(value).__name__, "data": items}
    if type(value) is dict:
        return {"type": "dict", "data": [[encode(k, depth + 1), encode(v, depth + 1)]
                                         for k, v in value.items()]}  # fmt: skip
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.generic) and value.dtype.kind in "biufU":
        return {"type": "scalar", "dtype": value.dtype.str, "data": value.item()}
    if np is not None and type(value) is np.ndarray:
        return _array(value, depth)
    pd = sys.modules.get("pandas")
    if pd is not None and type(value) is pd.Series:
        return {"type": "series", "name": encode(value.name, depth + 1),
                "index": _index(value.index, depth), "data": _array(value.to_numpy(), depth)}  # fmt: skip
    if pd is not None and type(value) is pd.DataFrame:
        return {
            "type": "frame",
            "index": _index(value.index, depth),
            "columns": _index(value.columns, depth),
            "data": [_array(value.iloc[:, i].to_numpy(), depth) for i in range(value.shape[1])],
        }
    if (
        pd is not None
        and isinstance(value, pd.Index)
        and type(value).__module__.startswith("pandas")
    ):
        return _index(value, depth)
    return _unreadable(value)


def _decode_array(data: dict):
    import numpy as np

    if data["dtype"] == "object":
        values = np.empty(len(data["data"]), dtype=object)
        for i, v in enumerate(data["data"]):
            values[i] = decode(v)
        return values.reshape(data["shape"])
    dtype = np.dtype(data["dtype"])
    if dtype.kind not in "biufU":
        raise ValueError(f"not a handed-out dtype: {dtype}")
    return np.array(data["data"], dtype=dtype).reshape(data["shape"])


def _decode_index(data: dict):
    import pandas as pd

    if data["type"] == "multiindex":
        return pd.MultiIndex.from_tuples([decode(t) for t in data["data"]],
                                         names=[decode(n) for n in data["names"]])  # fmt: skip
    return pd.Index(_decode_array(data["data"]), name=decode(data["name"]))


def _unpack_text(packed: str) -> str:
    """A long text `encode` compressed, unpacked no further than MAX_TEXT bytes."""
    import base64
    import zlib

    unpack = zlib.decompressobj()
    raw = unpack.decompress(base64.b64decode(packed, validate=True), MAX_TEXT)
    if unpack.unconsumed_tail:
        raise ValueError(f"a handed-out text longer than {MAX_TEXT >> 20} MiB")
    return raw.decode("utf-8", "surrogatepass")


def decode(data):
    """The value `encode` made `data` of (unknown tags: an error, never code run)."""
    if not isinstance(data, (dict, list)):
        return data
    if isinstance(data, list):
        return [decode(v) for v in data]
    kind = data.get("type")
    if kind in ("tuple", "set", "frozenset"):
        return {"tuple": tuple, "set": set, "frozenset": frozenset}[kind](
            decode(v) for v in data["data"]
        )
    if kind == "dict":
        return {decode(k): decode(v) for k, v in data["data"]}
    if kind == "scalar":
        return _decode_array({"dtype": data["dtype"], "shape": [], "data": data["data"]})[()]
    if kind == "ndarray":
        return _decode_array(data)
    if kind in ("index", "multiindex"):
        return _decode_index(data)
    if kind == "series":
        import pandas as pd

        return pd.Series(_decode_array(data["data"]), index=_decode_index(data["index"]),
                         name=decode(data["name"]))  # fmt: skip
    if kind == "frame":
        import pandas as pd

        columns = _decode_index(data["columns"])
        frame = pd.DataFrame(
            {i: _decode_array(c) for i, c in enumerate(data["data"])},
            index=_decode_index(data["index"]),
        )
        frame.columns = columns
        return frame
    if kind == "text":
        return _unpack_text(str(data["data"]))
    if kind == "unreadable":
        return Unreadable(str(data.get("kind")), str(data.get("text")))
    raise ValueError(f"not a handed-out value: {str(kind)[:40]}")
