"""Topic: synchronisation (lab 02). tables: EPCC overheads, barrier spread, wait-policy CPU time;
plots: their pictures. A topic imports the harness; the harness never imports a topic."""
