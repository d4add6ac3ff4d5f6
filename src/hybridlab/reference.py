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

DOC_002 = (
    "002_21a7b3db713838d9.txt (R. Rabenseifner, 'Hybrid Parallel Programming', 61 slides, "
    "HLRS, University of Stuttgart, about 2003; title taken from the slide footers)"
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
    "001-table-4": Reference(
        key="001-table-4",
        columns=("processors", "operation", "css", "seconds"),
        rows=(
            (6, "MPI_Bsend + MPI_Recv", False, 144.2),
            (6, "MPI_Bsend + MPI_Recv", True, 134.7),
            (6, "MPI_Send + MPI_Recv", False, 134.5),
            (6, "MPI_Send + MPI_Recv", True, 134.2),
            (6, "MPI_Isend + MPI_Irecv", False, 131.1),
            (6, "MPI_Isend + MPI_Irecv", True, 132.9),
            (120, "MPI_Bsend + MPI_Recv", False, 298.6),
            (120, "MPI_Bsend + MPI_Recv", True, 295.3),
            (120, "MPI_Send + MPI_Recv", False, 302.6),
            (120, "MPI_Send + MPI_Recv", True, 302.6),
            (120, "MPI_Isend + MPI_Irecv", False, 279.4),
            (120, "MPI_Isend + MPI_Irecv", True, 279.9),
        ),
        citation=f"{DOC_001}, section 9 'Communication', Table 4",
        note=(
            "Whole-code time of H2MOL on HPCx (IBM p690+, MP_EAGER_LIMIT=65536) with three kinds "
            "of point-to-point call, with and without MP_CSS_INTERRUPT ('css', which lets the MPI "
            "library progress messages on an interrupt). The report prints 'MPI_BSend'. Section 9 "
            "says the code was changed to 'MPI_SEND and MPI_RECV' for Figure 8, but the figure "
            "caption and this table show MPI_Isend/MPI_Irecv: a typo in the report. The report's "
            "explanation: with Bsend the receiver waits in MPI_Recv until the sender calls the MPI "
            "library again; css or non-blocking calls let the transfer progress."
        ),
    ),
    "002-slides-14-17": Reference(
        key="002-slides-14-17",
        columns=("scheme", "messages", "message_bytes", "milliseconds"),
        rows=(
            ("pure MPI intra-node", "8 x 8", 1 << 20, 2.0),
            ("pure MPI inter-node", "8 x 8", 1 << 20, 9.6),
            ("pure MPI total", "8 x 8 + 8 x 8", 1 << 20, 11.6),
            ("hybrid masteronly inter-node", "8", 8 << 20, 19.2),
        ),
        citation=(
            f"{DOC_002}, slides 14 and 16 'Masteronly Experiment: Orthogonal parallel "
            "communication' (the 'Timing' Table on the figure) and slide 17 'Results of the "
            "experiment'"
        ),
        note=(
            "Hitachi SR8000, 8 nodes of 8 CPUs, MPI_Sendrecv. Pure MPI: each CPU exchanges 1 MB "
            "inside its node (2.0 ms) and 1 MB with another node (9.6 ms), 11.6 ms in all. Hybrid "
            "masteronly: one thread per node sends the aggregate, 8 MB, between nodes: 19.2 ms, "
            "'1.6x slower than with pure MPI, although only half of the transferred bytes and "
            "less latencies due to 8x longer messages'. Slide 17 (a plot, values not readable "
            "from the text): 'pure MPI is better for message size > 32 kB', and for long "
            "messages T_hybrid / T_pureMPI > 1.6 (OCR prints '> 1-6'). 'MB' is taken as MiB "
            "(the slides do not say). The slide-18 ratio is for several platforms and is not "
            "reproduced here."
        ),
    ),
}


def reference(key: str) -> Reference:
    """REFERENCE[key], with an error that lists the known keys."""
    try:
        return REFERENCE[key]
    except KeyError:
        raise KeyError(f"no reference {key!r}; known: {', '.join(sorted(REFERENCE))}") from None


# ------------------------------------------------------------ lab 04: halo exchange (Jacobi)

DOC_003 = (
    "003_79ee310544934b1e.txt (G. Luecke, O. Weiss, M. Kraeva, J. Coyle, J. Hoekstra, "
    "'Performance Analysis of Pure MPI Versus MPI+OpenMP for Jacobi Iteration and a 3D FFT on "
    "the Cray XT5', Iowa State University, CUG)"
)


def _jacobi_a5() -> tuple[tuple, ...]:
    # (table, version, processors, decomposition, jacobi, halo swap, delta, other, total),
    # exactly as printed in Appendix A.5; system and threads per process are read off the
    # table number (A.16-A.22 XT4, A.23-A.29 XT6) and the decomposition label ("/4t").
    printed = (
        ("A.16", "Master Only", 128, "pure MPI", 3.533353, 0.145059, 0.194561, 9.4e-05, 3.873067),
        ("A.16", "Master Only", 128, "16x4x2/1t", 3.532583, 0.150797, 0.191692, 7.7e-05, 3.875157),
        ("A.16", "Master Only", 128, "8x4x2/2t", 3.530217, 0.201626, 0.190408, 6.6e-05, 3.922317),
        ("A.16", "Master Only", 128, "4x4x2/4t", 3.510483, 0.376002, 0.192636, 6.1e-05, 4.079187),
        ("A.17", "Master Only", 256, "pure MPI", 3.540473, 0.146378, 0.187707, 8.2e-05, 3.87464),
        ("A.17", "Master Only", 256, "32x4x2/1t", 3.541843, 0.144088, 0.192912, 0.000103, 3.878947),
        ("A.17", "Master Only", 256, "16x4x2/2t", 3.533007, 0.218529, 0.234922, 7.8e-05, 3.986537),
        ("A.17", "Master Only", 256, "8x4x2/4t", 3.528487, 0.391072, 0.205106, 7.2e-05, 4.124737),
        ("A.18", "Funnelled", 128, "pure MPI", 3.533353, 0.145059, 0.194561, 9.4e-05, 3.873067),
        ("A.18", "Funnelled", 128, "16x4x2/1t", 3.790343, 0.1076, 0.211168, 0.00024, 4.10935),
        ("A.18", "Funnelled", 128, "8x4x2/2t", 3.623847, 0.236994, 0.207469, 0.000204, 4.068513),
        ("A.18", "Funnelled", 128, "4x4x2/4t", 3.565823, 0.469363, 0.265359, 0.000188, 4.300733),
        (
            "A.19",
            "Funnelled optimal",
            128,
            "pure MPI",
            3.533353,
            0.145059,
            0.194561,
            9.4e-05,
            3.873067,
        ),
        (
            "A.19",
            "Funnelled optimal",
            128,
            "16x4x2/1t",
            3.790343,
            0.1076,
            0.211168,
            0.00024,
            4.10935,
        ),
        (
            "A.19",
            "Funnelled optimal",
            128,
            "8x4x2/2t",
            3.62932,
            0.240106,
            0.217108,
            0.000202,
            4.086733,
        ),
        (
            "A.19",
            "Funnelled optimal",
            128,
            "4x4x2/4t",
            3.456767,
            0.433224,
            0.231819,
            0.001962,
            4.125493,
        ),
        ("A.20", "Funnelled", 256, "pure MPI", 3.540473, 0.146378, 0.187707, 8.2e-05, 3.87464),
        ("A.20", "Funnelled", 256, "32x4x2/1t", 3.770427, 0.117687, 0.221114, 0.000196, 4.109423),
        ("A.20", "Funnelled", 256, "16x4x2/2t", 3.6282, 0.240877, 0.201115, 0.000212, 4.070403),
        ("A.20", "Funnelled", 256, "8x4x2/4t", 3.59517, 0.459299, 0.281201, 0.000191, 4.335857),
        ("A.21", "Multiple", 128, "pure MPI", 3.533353, 0.145059, 0.194561, 9.4e-05, 3.873067),
        ("A.21", "Multiple", 128, "16x4x2/1t", 3.53124, 0.249986, 0.196893, 0.000257, 3.978377),
        ("A.21", "Multiple", 128, "8x4x2/2t", 3.410127, 0.227603, 0.225696, 0.069785, 3.93321),
        ("A.21", "Multiple", 128, "4x4x2/4t", 3.511633, 0.197268, 0.227457, 0.057818, 3.994177),
        ("A.22", "Multiple", 256, "pure MPI", 3.540473, 0.146378, 0.187707, 8.2e-05, 3.87464),
        ("A.22", "Multiple", 256, "32x4x2/1t", 3.535483, 0.252556, 0.206948, 0.00028, 3.995267),
        ("A.22", "Multiple", 256, "16x4x2/2t", 3.42236, 0.222237, 0.22386, 0.065453, 3.93391),
        ("A.22", "Multiple", 256, "8x4x2/4t", 3.489267, 0.205433, 0.272806, 0.079771, 4.047277),
        ("A.23", "Master Only", 192, "pure MPI", 2.63068, 0.12286, 0.287154, 0.000105, 3.0408),
        ("A.23", "Master Only", 192, "24x4x2/1t", 2.53085, 0.149855, 0.29712, 0.000111, 2.977937),
        ("A.23", "Master Only", 192, "12x4x2/2t", 2.417173, 0.291456, 0.28466, 0.00012, 2.99341),
        ("A.23", "Master Only", 192, "8x4x2/3t", 2.40415, 0.336758, 0.254238, 0.000141, 2.995287),
        ("A.23", "Master Only", 192, "6x4x2/4t", 2.962337, 0.726665, 0.352723, 0.000152, 4.041877),
        ("A.23", "Master Only", 192, "4x4x2/6t", 2.45633, 0.703379, 0.257364, 0.000128, 3.4172),
        ("A.23", "Master Only", 192, "3x4x2/8t", 4.263827, 1.57886, 0.64993, 0.00013, 6.492747),
        ("A.23", "Master Only", 192, "2x4x2/12t", 4.95695, 1.423477, 0.469108, 0.000122, 6.849657),
        ("A.23", "Master Only", 192, "1x4x2/24t", 11.554, 2.940657, 0.977957, 0.000119, 15.472733),
        ("A.24", "Master Only", 384, "pure MPI", 2.619807, 0.121792, 0.298513, 0.000105, 3.040217),
        ("A.24", "Master Only", 384, "48x4x2/1t", 2.543363, 0.148345, 0.294702, 0.000106, 2.986517),
        ("A.24", "Master Only", 384, "24x4x2/2t", 2.435857, 0.269132, 0.285554, 0.000121, 2.990663),
        ("A.24", "Master Only", 384, "16x4x2/3t", 2.411803, 0.322843, 0.264725, 0.000138, 2.99951),
        ("A.24", "Master Only", 384, "12x4x2/4t", 2.971213, 0.71704, 0.356724, 0.000129, 4.045107),
        ("A.24", "Master Only", 384, "8x4x2/6t", 2.465207, 0.700576, 0.269584, 0.000116, 3.435483),
        ("A.24", "Master Only", 384, "6x4x2/8t", 4.284873, 1.557003, 0.661611, 0.000142, 6.50363),
        ("A.24", "Master Only", 384, "4x4x2/12t", 4.973293, 1.408617, 0.469267, 0.000116, 6.851293),
        (
            "A.24",
            "Master Only",
            384,
            "2x4x2/24t",
            11.576533,
            2.989983,
            0.98506,
            0.000157,
            15.551733,
        ),
        ("A.25", "Funnelled", 192, "pure MPI", 2.63068, 0.12286, 0.287154, 0.000105, 3.0408),
        ("A.25", "Funnelled", 192, "24x4x2/1t", 2.851497, 0.11308, 0.290436, 0.000501, 3.255517),
        ("A.25", "Funnelled", 192, "12x4x2/2t", 2.579583, 0.27121, 0.312891, 0.000402, 3.164083),
        ("A.25", "Funnelled", 192, "8x4x2/3t", 2.58482, 0.418334, 0.2557, 0.000461, 3.259313),
        ("A.25", "Funnelled", 192, "6x4x2/4t", 3.234903, 0.579013, 0.422895, 0.000389, 4.237197),
        ("A.25", "Funnelled", 192, "4x4x2/6t", 2.61862, 0.81646, 0.340291, 0.000413, 3.775783),
        ("A.25", "Funnelled", 192, "3x4x2/8t", 2.184943, 3.905747, 0.826721, 0.00608, 6.923493),
        ("A.25", "Funnelled", 192, "2x4x2/12t", 4.09121, 2.27224, 0.661062, 0.000365, 7.02488),
        ("A.25", "Funnelled", 192, "1x4x2/24t", 8.320257, 5.84337, 1.20293, 0.000381, 15.366967),
        (
            "A.26",
            "Funnelled optimal",
            192,
            "pure MPI",
            2.63068,
            0.12286,
            0.287154,
            0.000105,
            3.0408,
        ),
        (
            "A.26",
            "Funnelled optimal",
            192,
            "24x4x2/1t",
            2.851497,
            0.11308,
            0.290436,
            0.000501,
            3.255517,
        ),
        (
            "A.26",
            "Funnelled optimal",
            192,
            "12x4x2/2t",
            2.515547,
            0.27312,
            0.304907,
            0.001257,
            3.09483,
        ),
        (
            "A.26",
            "Funnelled optimal",
            192,
            "8x4x2/3t",
            2.32544,
            0.419709,
            0.280904,
            0.004733,
            3.03521,
        ),
        (
            "A.26",
            "Funnelled optimal",
            192,
            "6x4x2/4t",
            2.156063,
            1.057153,
            0.431921,
            0.351578,
            3.996717,
        ),
        (
            "A.26",
            "Funnelled optimal",
            192,
            "4x4x2/6t",
            1.998087,
            0.811542,
            0.32128,
            0.005516,
            3.136427,
        ),
        (
            "A.26",
            "Funnelled optimal",
            192,
            "3x4x2/8t",
            1.40042,
            3.533787,
            1.31106,
            0.285329,
            6.530593,
        ),
        (
            "A.26",
            "Funnelled optimal",
            192,
            "2x4x2/12t",
            3.15908,
            2.260897,
            0.628633,
            0.177528,
            6.226143,
        ),
        (
            "A.26",
            "Funnelled optimal",
            192,
            "1x4x2/24t",
            7.12956,
            5.896207,
            1.224393,
            0.000392,
            14.250567,
        ),
        ("A.27", "Funnelled", 384, "pure MPI", 2.619807, 0.121792, 0.298513, 0.000105, 3.040217),
        ("A.27", "Funnelled", 384, "48x4x2/1t", 2.841233, 0.116858, 0.303163, 0.000322, 3.261573),
        ("A.27", "Funnelled", 384, "24x4x2/2t", 2.578067, 0.26894, 0.319054, 0.000417, 3.166477),
        ("A.27", "Funnelled", 384, "16x4x2/3t", 2.534927, 0.42394, 0.314789, 0.000456, 3.274113),
        ("A.27", "Funnelled", 384, "12x4x2/4t", 3.24364, 0.576876, 0.427896, 0.00038, 4.24879),
        ("A.27", "Funnelled", 384, "8x4x2/6t", 2.60758, 0.836651, 0.345101, 0.000345, 3.789677),
        ("A.27", "Funnelled", 384, "6x4x2/8t", 2.215777, 3.90662, 0.847544, 0.0059, 6.975843),
        ("A.27", "Funnelled", 384, "4x4x2/12t", 4.11314, 2.265987, 0.661332, 0.000383, 7.040843),
        ("A.27", "Funnelled", 384, "2x4x2/24t", 8.28916, 5.8909, 1.203837, 0.00041, 15.3843),
        ("A.28", "Multiple", 192, "pure MPI", 2.63068, 0.12286, 0.287154, 0.000105, 3.0408),
        ("A.28", "Multiple", 192, "24x4x2/1t", 2.690373, 0.314062, 0.336031, 0.000447, 3.340913),
        ("A.28", "Multiple", 192, "12x4x2/2t", 2.310093, 0.305329, 0.288948, 0.091846, 2.996217),
        ("A.28", "Multiple", 192, "8x4x2/3t", 2.279917, 0.305283, 0.261782, 0.151862, 2.998843),
        ("A.28", "Multiple", 192, "6x4x2/4t", 2.748007, 0.349342, 0.3654, 0.368685, 3.831433),
        ("A.28", "Multiple", 192, "4x4x2/6t", 2.37915, 0.274773, 0.270331, 0.183549, 3.107803),
        ("A.28", "Multiple", 192, "3x4x2/8t", 2.62578, 0.57291, 1.218397, 1.481517, 5.898603),
        ("A.28", "Multiple", 192, "2x4x2/12t", 4.3585, 0.379851, 0.571682, 0.444597, 5.75463),
        ("A.28", "Multiple", 192, "1x4x2/24t", 8.401497, 0.514797, 0.823249, 1.123224, 10.862767),
        ("A.29", "Multiple", 384, "pure MPI", 2.619807, 0.121792, 0.298513, 0.000105, 3.040217),
        ("A.29", "Multiple", 384, "48x4x2/1t", 2.71139, 0.322539, 0.322668, 0.000463, 3.35706),
        ("A.29", "Multiple", 384, "24x4x2/2t", 2.225243, 0.335307, 0.309948, 0.142805, 3.013303),
        ("A.29", "Multiple", 384, "16x4x2/3t", 2.298947, 0.291384, 0.262782, 0.148221, 3.001333),
        ("A.29", "Multiple", 384, "12x4x2/4t", 2.76376, 0.342968, 0.364324, 0.361048, 3.8321),
        ("A.29", "Multiple", 384, "8x4x2/6t", 2.395847, 0.274589, 0.268829, 0.178068, 3.117333),
        ("A.29", "Multiple", 384, "6x4x2/8t", 2.62613, 0.573587, 1.216623, 1.476869, 5.89321),
        ("A.29", "Multiple", 384, "4x4x2/12t", 4.348147, 0.395815, 0.575398, 0.508644, 5.828003),
        ("A.29", "Multiple", 384, "2x4x2/24t", 8.376673, 0.517722, 0.861951, 1.112821, 10.869167),
    )
    out = []
    for table, version, processors, decomposition, *seconds in printed:
        system = "XT4" if int(table.split(".")[1]) <= 22 else "XT6"
        threads = 1 if decomposition == "pure MPI" else int(decomposition.split("/")[1][:-1])
        scheme = "pure MPI" if decomposition == "pure MPI" else version
        out.append((table, system, processors, scheme, decomposition, threads, *seconds))
    return tuple(out)


def _luecke_table_2() -> tuple[tuple, ...]:
    # nodes: (MPI, hybrid 1, 2, 3 with 2 processes/node, the same with 4 in brackets)
    printed = {
        "static": {
            2: (149.07, (148.57, 149.08), (147.70, 147.45), (148.31, 148.31)),
            4: (74.96, (75.07, 74.22), (74.25, 73.93), (75.18, 75.21)),
            8: (37.65, (37.42, 37.41), (37.01, 37.14), (37.34, 37.66)),
            16: (18.94, (18.88, 18.74), (18.68, 18.92), (18.76, 19.53)),
            32: (9.37, (9.58, 9.67), (9.65, 9.48), (9.51, 9.66)),
            64: (4.91, (4.98, 4.91), (4.95, 4.97), (4.91, 5.09)),
        },
        "guided": {
            2: (149.07, (148.13, 148.22), (147.99, 148.54), (148.54, 149.63)),
            4: (74.96, (74.65, 74.51), (74.23, 74.06), (75.22, 75.59)),
            8: (37.65, (37.61, 37.52), (37.61, 37.37), (37.76, 38.20)),
            16: (18.94, (19.16, 18.98), (19.09, 18.91), (19.18, 19.40)),
            32: (9.57, (9.85, 9.65), (9.87, 9.71), (9.73, 9.96)),
            64: (4.91, (5.20, 5.11), (5.15, 5.11), (5.05, 5.29)),
        },
    }
    out = []
    for schedule, by_nodes in printed.items():
        for nodes, (mpi, *hybrids) in by_nodes.items():
            out.append((nodes, "pure MPI", schedule, 12, mpi))
            for n, (two, four) in enumerate(hybrids, 1):
                out.append((nodes, f"hybrid {n}", schedule, 2, two))
                out.append((nodes, f"hybrid {n}", schedule, 4, four))
    return tuple(out)


def _luecke_table_1() -> tuple[tuple, ...]:
    schedules = ("dynamic", "dynamic 1024", "static", "guided")
    printed = {
        "hybrid 1": {
            1: (394.35, 278.12, 222.65, 253.11),
            2: (220.01, 148.38, 148.57, 148.13),
            4: (221.30, 147.55, 149.08, 148.22),
            6: (185.78, 147.24, 148.34, 148.01),
        },
        "hybrid 2": {
            1: (390.74, 252.37, 221.21, 257.42),
            2: (219.04, 148.37, 147.70, 147.99),
            4: (220.21, 148.05, 147.45, 148.54),
            6: (182.98, 148.25, 147.82, 148.34),
        },
        "hybrid 3": {
            1: (394.33, 235.91, 220.10, 250.74),
            2: (219.93, 148.61, 148.31, 148.54),
            4: (229.26, 147.73, 148.24, 149.63),
            6: (186.20, 149.75, 148.06, 150.34),
        },
    }
    out = [("pure MPI", 12, None, 149.07)]
    for version, by_procs in printed.items():
        for procs, times in by_procs.items():
            out += [(version, procs, s, t) for s, t in zip(schedules, times, strict=True)]
    return tuple(out)


REFERENCE.update(
    {
        "003-table-1": Reference(
            key="003-table-1",
            columns=("version", "mpi_per_node", "schedule", "seconds"),
            rows=_luecke_table_1(),
            citation=f"{DOC_003}, section 3 'Jacobi Iteration Performance Results', Table 1",
            note=(
                "2-D Jacobi, n = 24*1024 square, 300 iterations, 2 Cray XT5 nodes (2 sockets of "
                "6-core Istanbul each), minimum of 10 trials. Hybrid versions use 12 / "
                "(processes per node) threads; the schedule is OMP_SCHEDULE (schedule(runtime)). "
                "The pure MPI row (12 processes per node) is printed above the table as "
                "'MPI time = 149.07'. One process per node spans both sockets (ccNUMA): slow; "
                "dynamic with chunk 1 is slow."
            ),
        ),
        "003-table-2": Reference(
            key="003-table-2",
            columns=("nodes", "version", "schedule", "mpi_per_node", "seconds"),
            rows=_luecke_table_2(),
            citation=f"{DOC_003}, section 3, Table 2",
            note=(
                "Square 2-D Jacobi (n = 24*1024, 300 iterations) from 2 to 64 XT5 nodes. Hybrid "
                "times with 2 processes per node, and with 4 (printed in brackets); pure MPI runs "
                "12 per node and is printed once per schedule block (9.37 under static and 9.57 "
                "under guided at 32 nodes, as printed). All versions scale alike."
            ),
        ),
        "003-table-3": Reference(
            key="003-table-3",
            columns=("version", "schedule", "seconds", "speedup"),
            rows=(
                ("pure MPI", None, 279.92, None),
                ("hybrid 1", "static", 258.12, 1.08),
                ("hybrid 1", "guided", 259.08, 1.08),
                ("hybrid 2", "static", 253.80, 1.10),
                ("hybrid 2", "guided", 252.16, 1.11),
                ("hybrid 3", "static", 239.79, 1.17),
                ("hybrid 3", "guided", 241.21, 1.16),
            ),
            citation=f"{DOC_003}, section 3, Table 3",
            note=(
                "Rectangular 2-D Jacobi, n1 = 24*1024*256 by n2 = 24*4 (the same points as the "
                "square case), 2 XT5 nodes, 2 processes per node for the hybrids; speedup = "
                "MPI / hybrid. Messages are long, so communication is about 25% of the time and "
                "fewer, larger messages pay: hybrid 3 (sections, THREAD_MULTIPLE) is fastest."
            ),
        ),
        "000-appendix-a5": Reference(
            key="000-appendix-a5",
            columns=(
                "table",
                "system",
                "processors",
                "scheme",
                "decomposition",
                "threads",
                "jacobi_s",
                "halo_s",
                "delta_s",
                "other_s",
                "total_s",
            ),
            rows=_jacobi_a5(),
            citation=(
                f"{DOC_000}, Appendix A.5 'Jacobi kernel', Tables A.16-A.22 (Cray XT4) and "
                "A.23-A.29 (Cray XT6); discussed in section 4.6"
            ),
            note=(
                "3-D Jacobi, weak scaling (192^3 points per process on XT4, 20 iterations; 144^3 "
                "on XT6, 50 iterations), time per phase in seconds, mean of 3 runs. "
                "Decomposition = process grid / threads per process; threads replace processes "
                "along X. Schemes: Master Only, Funnelled (master swaps halos while the others "
                "compute), Funnelled optimal (master's X share tuned down), Multiple (every "
                "thread swaps its own halos; halo and jacobi averaged over threads, other = wait "
                "for the slowest thread). Each table repeats its pure MPI row; 'scheme' names it "
                "'pure MPI'. Totals are as printed: in A.19 (4t) and A.26 (3t) the phases add "
                "up to 0.0017 s and 0.0044 s less than the printed total."
            ),
        ),
    }
)
