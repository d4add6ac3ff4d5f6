"""Published numbers from the source documents, each with the document and table it comes from.

    from hybridlab.reference import REFERENCE
    table = REFERENCE["001-table-3"]
    table.frame        # a fresh DataFrame of the published numbers, exactly as printed
    table.citation     # document (file name, authors, title) and table/section

Data only: nothing here is measured or derived. Labs show these beside the student's own numbers
where the student's machine cannot reproduce the published setting (DESIGN section 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

DOC_000 = (
    "000_137a3e4545ee2d4e.txt (A. Stathopoulos, 'Mixed Mode Programming on HECToR', "
    "MSc in HPC dissertation, EPCC, University of Edinburgh, 2010)"
)
DOC_001 = (
    "001_5ad4b92b950a4cc3.txt (L. Smith, M. Bull, A. Trew, A. Sunderland, "
    "'Profiling H2MOL on an IBM p690+ Cluster', HPCx report, October 2004)"
)


@dataclass(frozen=True)
class Reference:
    """One published table: its rows as printed, the columns, and where it comes from."""

    key: str
    columns: tuple[str, ...]
    rows: tuple[tuple, ...]
    citation: str
    note: str = ""

    @property
    def frame(self) -> pd.DataFrame:
        """The table as a new DataFrame (a copy: editing it cannot change the reference)."""
        return pd.DataFrame(list(self.rows), columns=list(self.columns))

    def __repr__(self) -> str:
        return f"Reference({self.key!r}: {len(self.rows)} rows; {self.citation})"


def _table_3() -> tuple[tuple, ...]:
    # (processors, routine, average s, maximum s, minimum s), in the order of the report
    printed = {
        6: [(13.74, 19.08, 11.00), (0.66, 1.25, 0.25), (8.70, 13.02, 5.20), (4.36, 9.01, 1.47)],
        15: [
            (27.40, 35.74, 19.30),
            (1.10, 2.00, 0.33),
            (14.33, 19.16, 8.39),
            (11.94, 19.36, 6.59),
        ],
        28: [
            (51.98, 73.93, 30.21),
            (2.23, 3.74, 0.53),
            (27.21, 46.78, 12.42),
            (22.33, 36.04, 6.00),
        ],
        45: [
            (38.41, 54.04, 28.01),
            (1.24, 2.29, 0.34),
            (13.94, 23.67, 7.65),
            (23.16, 36.34, 10.54),
        ],
        120: [
            (61.89, 92.71, 39.16),
            (2.50, 4.70, 0.66),
            (25.97, 48.54, 14.89),
            (31.63, 51.63, 14.33),
        ],
        210: [
            (67.68, 104.24, 45.28),
            (2.66, 5.30, 0.71),
            (26.05, 42.60, 12.17),
            (36.61, 61.76, 20.89),
        ],
    }
    routines = ("Total", "MPI_BSend", "MPI_Recv", "MPI_Barrier")
    return tuple(
        (p, routine, *values)
        for p, rows in printed.items()
        for routine, values in zip(routines, rows, strict=True)
    )


REFERENCE: dict[str, Reference] = {
    "001-table-3": Reference(
        key="001-table-3",
        columns=("processors", "routine", "avg_s", "max_s", "min_s"),
        rows=_table_3(),
        citation=f"{DOC_001}, section 9 'Communication', Table 3",
        note=(
            "H2MOL on the HPCx Phase 2 system (IBM p690+), measured with MPITrace: seconds spent "
            "in each main communication routine, average, maximum and minimum across "
            "processors. 'Total' is all communication. The report has no row for 496 "
            "processors. Section 9 and the conclusions (section 10) attribute the barrier time "
            "to load imbalance from the uneven number of processes per multi-chip module."
        ),
    ),
    "000-table-4.2": Reference(
        key="000-table-4.2",
        columns=("function_group", "version", "seconds", "percent"),
        rows=(
            ("USER", "pure MPI", 14.17, 43.0),
            ("MPI", "pure MPI", 10.49, 32.0),
            ("MPI_SYNC", "pure MPI", 6.86, 21.0),
            ("Total", "pure MPI", 33.00, None),
            ("USER", "2 threads/process", 13.19, 48.0),
            ("MPI", "2 threads/process", 7.46, 27.0),
            ("MPI_SYNC", "2 threads/process", 5.17, 19.0),
            ("Total", "2 threads/process", 27.53, None),
            ("USER", "4 threads/process", 14.24, 60.0),
            ("MPI", "4 threads/process", 5.88, 25.0),
            ("MPI_SYNC", "4 threads/process", 1.62, 6.8),
            ("Total", "4 threads/process", 23.65, None),
        ),
        citation=f"{DOC_000}, section 4.2.1 'CPMD on Cray XT4 system', Table 4.2",
        note=(
            "CPMD, 64 processors, 1 water molecule, CrayPAT statistics (time in seconds and "
            "percentage of the total). MPI_SYNC is the time processes wait in a barrier that "
            "CrayPAT inserts before each collective: the load imbalance. With 4 threads per "
            "process it falls from 21% to 6.8% of the run."
        ),
    ),
    "000-table-4.3": Reference(
        key="000-table-4.3",
        columns=("function_group", "version", "seconds", "percent"),
        rows=(
            ("USER", "pure MPI", 180.86, 78.0),
            ("MPI", "pure MPI", 37.33, 16.0),
            ("MPI_SYNC", "pure MPI", 12.75, 5.5),
            ("Total", "pure MPI", 232.34, None),
            ("USER", "2 threads/process", 184.85, 75.0),
            ("MPI", "2 threads/process", 44.05, 18.0),
            ("MPI_SYNC", "2 threads/process", 15.60, 6.3),
            ("Total", "2 threads/process", 246.80, None),
            ("USER", "4 threads/process", 224.99, 83.0),
            ("MPI", "4 threads/process", 33.21, 12.0),
            ("MPI_SYNC", "4 threads/process", 9.17, 3.4),
            ("Total", "4 threads/process", 270.80, None),
        ),
        citation=f"{DOC_000}, section 4.2.1 'CPMD on Cray XT4 system', Table 4.3",
        note=(
            "CPMD, 64 processors, 128 water molecules, CrayPAT statistics (seconds and percentage "
            "of the total). A larger problem divides more evenly: MPI_SYNC is 5.5% of the pure "
            "MPI run, against 21% for 1 molecule (Table 4.2)."
        ),
    ),
}


def reference(key: str) -> Reference:
    """REFERENCE[key], with an error that lists the known keys."""
    try:
        return REFERENCE[key]
    except KeyError:
        raise KeyError(f"no reference {key!r}; known: {', '.join(sorted(REFERENCE))}") from None
