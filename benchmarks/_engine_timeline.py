"""The kit's engine (hybridlab.engines.engine) with the moments of its start written down: run
in its place by bench_engine_start.py (engine_set.ENGINE), it starts the same engine and writes
`timeline-<pid>.json` into the folder named by TIMELINE_DIR once the engine's kernel is up.

Each moment is written as a wall-clock time ("wall": time.time(), comparable with the notebook
process's) and as the CPU time the engine had used by then ("cpu": time.process_time(), which
the machine's load inflates much less):
"""

from __future__ import annotations

import json
import os
import sys
import time

MOMENTS = {
    "python": "the engine's Python runs its first line (launcher and interpreter started)",
    "kit imported": "hybridlab.engines.engine imported (the kit's package with it)",
    "ipyparallel imported": "ipyparallel's engine imported (ipykernel, IPython, zmq)",
    "initialised": "the engine application configured (its config and connection file read)",
    "replied": "the hub answered the registration request (MPI is initialised before it is sent)",
    "kernel up": "the engine's IPython kernel created, its heart beating",
}
__doc__ += "".join(f"\n- {name}: {what}" for name, what in MOMENTS.items())
marks = {"python": time.time()}
cpu = {"python": time.process_time()}


def mark(moment: str) -> None:
    marks[moment], cpu[moment] = time.time(), time.process_time()


import hybridlab.engines.engine as engine  # noqa: E402 - after the first moment

mark("kit imported")
import_engine_app = engine.import_engine_app


def timed_engine_app() -> type:
    """ipyparallel's IPEngine, its initialize() and registration timed."""
    app = import_engine_app()
    mark("ipyparallel imported")
    initialize, complete = app.initialize, app.complete_registration

    def timed_initialize(self, argv=None):
        initialize(self, argv)
        mark("initialised")

    async def timed_complete(self, msg, connect, maybe_tunnel):
        mark("replied")
        await complete(self, msg, connect, maybe_tunnel)
        mark("kernel up")
        path = os.path.join(os.environ["TIMELINE_DIR"], f"timeline-{os.getpid()}.json")
        with open(path, "w") as out:
            json.dump({"wall": marks, "cpu": cpu}, out)

    app.initialize, app.complete_registration = timed_initialize, timed_complete
    return app


engine.import_engine_app = timed_engine_app

if __name__ == "__main__":
    engine.main(sys.argv[1:])
