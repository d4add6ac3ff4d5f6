"""Topic: the halo exchange (labs 04, 08, 09). serial: numpy Jacobi references and grid checks;
tables and plots: time breakdowns; exercise: the student's halo kernel, built and checked (the
only module here that runs kernels). A topic imports the harness; the harness never imports a
topic."""
