"""Topic: the hybrid programming models (lab 01). plots: the taxonomy figure, the thread-level
table. A topic imports the harness; the harness never imports a topic."""
