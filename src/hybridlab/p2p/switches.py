"""The MPI library's switches that lab 03 moves on one node, as MPICH 5 and Open MPI 5 spell them.

MPICH (ch4, POSIX shared memory): a message goes eagerly through shared-memory cells of
MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE bytes; from MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD bytes on
the receiver copies it straight out of the sender's memory (Linux CMA, `process_vm_readv`);
MPICH_ASYNC_PROGRESS=1 starts a progress thread in each process.

Open MPI (pml ob1 over the `sm` btl, what it picks on one node): eager up to btl_sm_eager_limit
bytes (its header included), above that a rendezvous whose data the receiver fetches by CMA
(the `cma` component of the smsc framework; OMPI_MCA_smsc=^cma turns it off, and the sender then
pushes fragments of btl_sm_max_send_size bytes, inside its MPI calls only). Open MPI 5 has no
progress thread for shared memory (its only one, btl_tcp_progress_thread, serves TCP).

Variables are read when MPI starts: they go to run_program's `env`, never to a running cluster.
"""

from __future__ import annotations

from dataclasses import dataclass

RAISED_BYTES = 65536  # where lab 03 moves the eager switch


@dataclass(frozen=True)
class Switches:
    mpi: str
    raised: dict[str, str]  # moves the eager/single-copy switch to RAISED_BYTES
    knee_variable: str  # the variable of `raised` that says where the knee goes
    no_single_copy: dict[str, str]  # turns CMA off: the sender must move the data itself
    async_progress: dict[str, str] | None  # starts a progress thread; None: the MPI has none
    no_async: str = ""  # why there is no async run (said on the plot)


SWITCHES = {
    "mpich": Switches(
        mpi="mpich",
        raised={
            "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE": str(RAISED_BYTES),
            # MPICH refuses a cell larger than its pack buffer
            "MPIR_CVAR_CH4_PACK_BUFFER_SIZE": str(2 * RAISED_BYTES),
            "MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD": str(RAISED_BYTES),
        },
        knee_variable="MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD",
        no_single_copy={"MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD": str(2**30)},
        async_progress={"MPICH_ASYNC_PROGRESS": "1"},
    ),
    "openmpi": Switches(
        mpi="openmpi",
        raised={
            "OMPI_MCA_btl_sm_eager_limit": str(RAISED_BYTES),
            # an eager message is one fragment: the fragment size goes up with the limit
            "OMPI_MCA_btl_sm_max_send_size": str(2 * RAISED_BYTES),
        },
        knee_variable="OMPI_MCA_btl_sm_eager_limit",
        no_single_copy={"OMPI_MCA_smsc": "^cma"},
        async_progress=None,
        no_async="Open MPI 5 has no progress thread for shared memory: no 'async' run here",
    ),
}


def switches(implementation: str) -> Switches:
    """The switches of the MPI behind mpiexec (`hl.mpi_info().implementation`)."""
    try:
        return SWITCHES[implementation]
    except KeyError:
        known = ", ".join(SWITCHES)
        raise ValueError(
            f"lab 03 knows the switches of {known}, not of {implementation!r}"
        ) from None
