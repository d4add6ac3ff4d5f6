"""The warm ipyparallel engines a notebook runs kernels in: Cluster (placement, deferral, runs
through the run path), engine_set (one start's engines: launcher process, registration,
identities, a stop that leaves nothing), supervisor (timeouts, crashes, restart), controller
(the notebook's warm ipyparallel controller), engine (the process each MPI rank runs:
`python -m hybridlab.engines.engine`, kept light) and once (a function called once on every
rank of a fresh MPI job, without engines: what a graded test of a student's function needs).

Nothing is imported here, so that an engine does not import pandas or the ipyparallel client.
"""
