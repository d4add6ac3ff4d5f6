"""Runs INSIDE the student's kernel (and in the grader's judge): the values a hidden test cell
hands out of the kernel, so that no expected value is ever computed where the student's code runs.

A judged hidden test cell asks the kernel only for values (book/authoring.md):

    from hybridlab.grading.handout import from_kernel as _from_kernel
    _got = _from_kernel(lambda: cut_edges(_rows, _cols, _nodes))    # the student's answer
    ### BEGIN JUDGE
    assert _got == _cut_ref(_rows, _cols, _nodes)                     # the grader's side only
    ### END JUDGE

In the kernel, from_kernel calls the function it is given, writes the value as one line of
tagged JSON (no pickle: the grader reads it as data) to the file $HYBRIDLAB_HANDOUT named when
this module was imported (by the guard, before any student cell: _destination), and returns the
value as the grader will read it back. The grader removes the judge blocks before the cell
reaches the kernel, and afterwards runs the whole cell in a fresh process of its own
(judge.py), where from_kernel calls nothing and returns the handed-out values in order.
Values: None, bool, int, float, str, list, tuple, dict, set, numpy scalars and arrays (numbers,
booleans, strings, objects of these), pandas Series, DataFrame and Index; anything else is
handed out as its type and repr and never equals an expected value.
"""

from __future__ import annotations

import json
import os
from collections import deque

ENV = "HYBRIDLAB_HANDOUT"  # the file the kernel appends one JSON line per value to
DEPTH = 40  # nesting deeper than this is handed out as unreadable
# a text longer than this is handed out compressed (a trace of a polling loop runs to tens of
# MB, past what the grader reads of one cell's hand-out), and unpacked no further than MAX_TEXT
LONG_TEXT = 1 << 20
MAX_TEXT = 1 << 30
_replayed: deque | None = None  # in the judge: the values the kernel handed out, in order


class HandOutMismatch(Exception):
    """The judge asked for more values than the kernel handed out (or fewer were read)."""


class Unreadable:
    """A value the kernel could not hand out as data: its type and repr, equal to nothing else."""

    def __init__(self, kind: str, text: str):
        self.kind, self.text = kind, text

    def __repr__(self) -> str:
        return f"<unreadable {self.kind}: {self.text}>"


def from_kernel(answer):
    """The value of `answer()` (a function of no arguments) as the grader reads it: in the
    kernel, call it and hand the value out; in the judge, the next value the kernel handed out."""
    if _replayed is not None:
        if not _replayed:
            raise HandOutMismatch("the test reads more values than the kernel handed out")
        return decode(_replayed.popleft())
    encoded = encode(answer())
    path = _destination()
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(encoded) + "\n")
    return decode(encoded)


def _destination(path: str | None = os.environ.get(ENV)) -> str | None:
    """The hand-out file as $HYBRIDLAB_HANDOUT named it when this module was imported: in a
    graded kernel, by the guard's capture, before any student cell (a default argument: the
    guard watches it). The variable changed later, even by a function the test calls before its
    value is handed out, sends nothing elsewhere."""
    return path


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
