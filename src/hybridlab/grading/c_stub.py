"""nbgrader's ClearSolutions with C cells: a `%%c` cell is released with a C stub.

nbgrader replaces a solution region (the lines between its begin and end markers, written in any
comment: a C comment in C) with the stub of the notebook's language, Python's
`raise NotImplementedError()`, which is not C. Here a code cell whose first line is the C cell
magic (hybridlab.kernels.c_cells) gets `/* YOUR CODE HERE */` instead, and a solution cell without
regions keeps its magic line above the stub. grading/nbgrader_config.py puts this preprocessor
in GenerateAssignment's list in place of nbgrader's.
"""

from __future__ import annotations

from nbgrader.converters import GenerateAssignment
from nbgrader.preprocessors import ClearSolutions
from traitlets import Unicode

from ..kernels.c_cells import MAGIC


def is_c_cell(cell) -> bool:
    """A code cell that starts with the `%%c` magic."""
    first = cell.source.split("\n", 1)[0].split()
    return cell.cell_type == "code" and bool(first) and first[0] == f"%%{MAGIC}"


class ClearSolutionsC(ClearSolutions):
    """ClearSolutions; C cells get `c_stub` (their magic line kept)."""

    c_stub = Unicode("/* YOUR CODE HERE */", help="What replaces a solution in a C cell").tag(
        config=True
    )

    def preprocess_cell(self, cell, resources, cell_index):
        if not is_c_cell(cell):
            return super().preprocess_cell(cell, resources, cell_index)
        magic, _, body = cell.source.partition("\n")
        saved = self.code_stub
        self.code_stub = {**saved, resources["language"]: self.c_stub}
        try:
            cell.source = body
            cell, resources = super().preprocess_cell(cell, resources, cell_index)
        finally:
            self.code_stub = saved
        cell.source = f"{magic}\n{cell.source}"
        return cell, resources


def release_preprocessors() -> list:
    """GenerateAssignment's preprocessors with ClearSolutionsC in place of ClearSolutions."""
    default = GenerateAssignment.class_traits()["preprocessors"].make_dynamic_default()
    return [ClearSolutionsC if p is ClearSolutions else p for p in default]
