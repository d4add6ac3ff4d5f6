"""Topic: point-to-point messages (labs 03, 08). hockney: the Hockney fit, protocol switch and
aggregation model; exercise: lab 03's runs and the student's overlap; tables: aggregation and
progress tables; paths: fits per message path (inside a node, across nodes); plots: their
pictures. A topic imports the harness; the harness never imports a topic."""
