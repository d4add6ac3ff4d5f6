"""Topic: a whole hybrid program (lab 10). exercise: how its Jacobi update is shared among
OpenMP threads, read from the program as the traced build compiles it. The program's build,
jobs and traces are the harness's (hybridlab.slurm.jobs). A topic imports the harness; the
harness never imports a topic."""
