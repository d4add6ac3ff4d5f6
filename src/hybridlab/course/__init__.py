"""Notebook and course tooling: authoring (new labs and parts), notebooks (running a notebook
headless), kernelspec, labsettings (JupyterLab's settings and the kit's extension), bookserver
(the built book as a path of the student's Jupyter server), hidden_inputs (per-submission
inputs of hidden tests), doctor.
"""
