"""Topic: the tools a hybrid programmer uses (lab 16). exercise: Archer (ThreadSanitizer with
OpenMP's semantics) on the kit's lab 01 race and on the student's count, the kit's MPI tracer on a
ring with one usage error, the kit's timeline of lab 04's variants and what the machine's hardware
counters give (the only module here that runs kernels or tools). A topic imports the harness;
the harness never imports a topic."""
