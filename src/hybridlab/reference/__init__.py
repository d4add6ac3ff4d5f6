"""Published numbers from the source documents, each with the document and table it comes from.

    from hybridlab.reference import REFERENCE
    table = REFERENCE["001-table-3"]
    table.frame        # a fresh DataFrame of the published numbers, exactly as printed
    table.citation     # short form and place: "Smith et al. 2004, section 9 ..., Table 3"
    table.source       # the document's full reference (authors, title, year)
    table.note         # the setting of the measurement, and what the document says about it

The numbers live in data/NNN.toml, one file per source document (NNN is its number in
reference.sources, which holds the full reference and the short form text cites it by): one
[[table]] per published table, with `where` (section, table or slide) and a note. A blank cell ("") is a value the document does not print (None).
Data only: nothing here is measured or derived. Labs show these beside the student's own numbers
where the student's machine cannot reproduce the published setting (the published data is shown beside the student's own).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pandas as pd

from .sources import SOURCES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DATA = Path(__file__).resolve().parent / "data"
BLANK = ""  # a cell the document does not print


@dataclass(frozen=True)
class Reference:
    """One published table: its rows as printed, the columns, and where it comes from."""

    key: str
    columns: tuple[str, ...]
    rows: tuple[tuple, ...]
    citation: str
    source: str
    note: str = ""

    @property
    def frame(self) -> pd.DataFrame:
        """The table as a new DataFrame (a copy: editing it cannot change the reference)."""
        return pd.DataFrame(list(self.rows), columns=list(self.columns))

    def __repr__(self) -> str:
        return f"Reference({self.key!r}: {len(self.rows)} rows; {self.citation})"


def _read(path: Path) -> dict[str, Reference]:
    with path.open("rb") as f:
        data = tomllib.load(f)
    source = SOURCES[path.stem]
    tables = {}
    for t in data["table"]:
        columns = tuple(t["columns"])
        rows = tuple(tuple(None if v == BLANK else v for v in row) for row in t["rows"])
        if any(len(row) != len(columns) for row in rows):
            raise ValueError(f"{path.name}: {t['key']} has a row whose length is not {columns}")
        tables[t["key"]] = Reference(
            key=t["key"],
            columns=columns,
            rows=rows,
            citation=f"{source.short}, {' '.join(t['where'].split())}",
            source=source.full,
            note=t.get("note", ""),
        )
    return tables


@cache
def _all() -> dict[str, Reference]:
    tables: dict[str, Reference] = {}
    for path in sorted(DATA.glob("*.toml")):
        for key, ref in _read(path).items():
            if key in tables:
                raise ValueError(f"reference {key!r} is defined twice ({path.name})")
            tables[key] = ref
    return tables


def keys() -> list[str]:
    """Every table's key, e.g. '001-table-3' (document number, then the table's name)."""
    return sorted(_all())


def load(key: str) -> Reference:
    """One table, with an error that lists the known keys."""
    try:
        return _all()[key]
    except KeyError:
        raise KeyError(f"no reference {key!r}; known: {', '.join(keys())}") from None


reference = load  # the name labs and tests used before the data moved to TOML


class _References(Mapping[str, Reference]):
    """REFERENCE[key]: every published table, read from data/*.toml on first use."""

    def __getitem__(self, key: str) -> Reference:
        return _all()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(_all())

    def __len__(self) -> int:
        return len(_all())

    def __repr__(self) -> str:
        return f"REFERENCE({', '.join(keys())})"


REFERENCE: Mapping[str, Reference] = _References()

__all__ = ["REFERENCE", "SOURCES", "Reference", "keys", "load", "reference"]
