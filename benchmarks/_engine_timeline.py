"""The kit's engine (hybridlab.engines.engine) with the moments of its start written down: run
in its place by bench_engine_start.py (engine_set.ENGINE), it starts the same engine and writes
`timeline-<pid>.json` into the folder named by TIMELINE_DIR once the engine's kernel is up.

Each moment is a wall-clock time (time.time(), comparable with the notebook process's):
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

import hybridlab.engines.engine as engine  # noqa: E402 - after the first moment

marks["kit imported"] = time.time()
import_engine_app = engine.import_engine_app


def timed_engine_app() -> type:
    """ipyparallel's IPEngine, its initialize() and registration timed."""
    app = import_engine_app()
    marks["ipyparallel imported"] = time.time()
    initialize, complete = app.initialize, app.complete_registration

    def timed_initialize(self, argv=None):
        initialize(self, argv)
        marks["initialised"] = time.time()

    async def timed_complete(self, msg, connect, maybe_tunnel):
        marks["replied"] = time.time()
        await complete(self, msg, connect, maybe_tunnel)
        marks["kernel up"] = time.time()
        path = os.path.join(os.environ["TIMELINE_DIR"], f"timeline-{os.getpid()}.json")
        with open(path, "w") as out:
            json.dump(marks, out)

    app.initialize, app.complete_registration = timed_initialize, timed_complete
    return app


engine.import_engine_app = timed_engine_app

if __name__ == "__main__":
    engine.main(sys.argv[1:])
