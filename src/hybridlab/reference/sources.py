"""The five source documents: how a reader finds each (full reference) and how text cites it.

Text cites a source in short form with the place in it: "Stathopoulos 2010, Table 4.32",
"Smith et al. 2004, section 9", "Rabenseifner, slide 13", "Luecke et al., Table 2",
"Armstrong et al., CASTEP talk". The book's bibliography page gives the full references.
Document numbers ("000" to "004") name the data files in reference/data only; readers never see
them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    """One source document: its short form, possessive short form and full reference."""

    number: str
    short: str
    possessive: str
    full: str


SOURCES: dict[str, Source] = {
    s.number: s
    for s in (
        Source(
            "000",
            "Stathopoulos 2010",
            "Stathopoulos's",
            "A. Stathopoulos, \"Mixed Mode Programming on HECToR\", MSc in High Performance "
            "Computing dissertation, EPCC, The University of Edinburgh, August 2010.",
        ),
        Source(
            "001",
            "Smith et al. 2004",
            "Smith et al.'s",
            "L. Smith, M. Bull, A. Trew (The University of Edinburgh) and A. Sunderland "
            "(Daresbury Laboratory), \"Profiling H2MOL on an IBM p690+ Cluster\", HPCx report, "
            "7 October 2004.",
        ),
        Source(
            "002",
            "Rabenseifner",
            "Rabenseifner's",
            "R. Rabenseifner, \"Hybrid Parallel Programming\", 61 slides, High Performance "
            "Computing Center Stuttgart (HLRS), University of Stuttgart, about 2003 (undated; "
            "it cites the HLRS Result and Review Workshop of October 2003).",
        ),
        Source(
            "003",
            "Luecke et al.",
            "Luecke et al.'s",
            "G. Luecke, O. Weiss, M. Kraeva, J. Coyle, J. Hoekstra (Iowa State University's High "
            "Performance Computing Group), \"Performance Analysis of Pure MPI Versus MPI+OpenMP "
            "for Jacobi Iteration and a 3D FFT on the Cray XT5\", Cray User Group (CUG) paper, "
            "about 2010 (undated; its latest reference is from 2009).",
        ),
        Source(
            "004",
            "Armstrong et al.",
            "Armstrong et al.'s",
            "C. Armstrong, L. Anton, M. Richardson, P. Ridley, V. Pellissier, talks on the HECToR "
            "Cray XT6 (Magny-Cours): \"Micro-benchmarking tests\" (C. Armstrong) and application "
            "talks on CASINO (L. Anton), GLOMAP (M. Richardson), CABARET and Incompact 3D "
            "(P. Ridley), DL_POLY (V. Pellissier) and CASTEP (C. Armstrong), about 2010 "
            "(undated).",
        ),
    )
}

__all__ = ["SOURCES", "Source"]
