"""Notebook and course tooling: authoring (new labs and parts), c_cells (%%c), notebooks
(running a notebook headless), course_size (the size the course grades at), kernelspec,
labsettings, bookserver, hidden_inputs, doctor.
"""
