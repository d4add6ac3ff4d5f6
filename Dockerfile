# hybridlab: a self-study image with JupyterLab on port 8888, the C kernels prebuilt and the
# course kernelspec installed. It runs the same `make setup` as a local checkout, installing the
# Python packages from requirements.lock (locked for Python 3.11, which bookworm ships).
#
# Two images from this file:
#   docker build -t hybridlab .                                     the student image (default):
#       the released labs and the kit; no course folder, no solutions, no hidden tests, no tests
#   docker build --target instructor -t hybridlab-instructor .      the instructor image: the
#       whole repository, with the nbgrader course (grading/) and the test suite
#   docker run --rm -p 8888:8888 hybridlab
ARG BASE=debian:bookworm-slim
FROM ${BASE} AS system

ARG DEBIAN_FRONTEND=noninteractive
ENV LANG=C.UTF-8 \
    HOME=/home/student \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# A C compiler with OpenMP (gcc brings libgomp), Python with venv, make, and the optional
# topology tools (lstopo-no-graphics from hwloc-nox, numactl). MPI itself comes from PyPI.
# Slurm and munge: the student's own one-node Slurm (hybridlab slurm start) for lab 10's jobs.
# SimGrid (smpicc from libsimgrid-dev, smpirun from simgrid): lab 14's simulations at scale.
# Boost's headers come with libsimgrid-dev for SimGrid's C++ API only (smpi.h includes them
# under __cplusplus); the kit's kernels are C, so they go: 160 MB less.
# clang 14 with libomp (clang-tools-14 has the offload bundler): lab 15's offload to a host device;
# lab 16's Archer, ThreadSanitizer told OpenMP's synchronisation (libarcher.so in libomp-14-dev,
# the sanitizer's runtime in libclang-rt-14-dev). About 0.4 GB of LLVM libraries.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        python3 python3-venv gcc libc6-dev make hwloc-nox numactl libfftw3-double3 bubblewrap \
        slurm-wlm munge libsimgrid-dev simgrid clang libomp-14-dev clang-tools-14 libclang-rt-14-dev \
    && rm -rf /usr/include/boost /var/lib/apt/lists/*

RUN useradd --create-home --uid 1000 --user-group --shell /bin/bash student \
    && install -d -o student -g student /opt/hybridlab
# A login shell (JupyterLab's terminal) resets PATH in /etc/profile: this puts the venv back.
COPY deploy/profile-hybridlab.sh /etc/profile.d/hybridlab.sh

# Numeric, so that runtimes enforcing "run as non-root" can check it without /etc/passwd.
USER 1000:1000
WORKDIR /opt/hybridlab
ENV PATH="/opt/hybridlab/.venv/bin:${PATH}" \
    IPP_NONINTERACTIVE=1 \
    SLURM_CONF=${HOME}/.hybridlab-slurm/slurm.conf
EXPOSE 8888
ENTRYPOINT ["/opt/hybridlab/deploy/image-entrypoint.sh"]
CMD ["jupyter", "lab", "--notebook-dir=labs", "--ip=0.0.0.0", "--port=8888", "--no-browser"]

# The instructor image: the whole repository (.dockerignore keeps local state out), so that
# `hybridlab grade`, `make release` and `make test` work inside.
FROM system AS instructor
COPY --chown=student:student . .
# The same setup as `make lab` / `make test` on a laptop: .venv from requirements.lock,
# the package in editable mode, all kernels built, the kernelspec installed.
RUN make setup

# The course book's pages (what `make book` builds), for the student image: jupyter-book alone at
# the lock's versions. Only the HTML leaves this stage, less every page source that names
# nbgrader's solution or hidden-test delimiters (the instructors' and authors' pages).
FROM system AS book
COPY --chown=student:student requirements.lock ./
COPY --chown=student:student book ./book
RUN python3 -m venv /tmp/jupyter-book \
    && /tmp/jupyter-book/bin/pip install --quiet -c requirements.lock jupyter-book \
    && /tmp/jupyter-book/bin/jupyter-book build book --warningiserror --nitpick --keep-going \
    && find book/_build/html/_sources -type f -exec grep -qE 'BEGIN (SOLUTION|HIDDEN TESTS)' {} \; -delete

# The student image (the default: the last stage): what `make setup` needs and the released
# labs, nothing of grading/ (solutions, hidden tests) or tests/ (which hold solutions too); the
# built book, which JupyterLab serves at /hybridlab/book/ (hybridlab.course.bookserver).
FROM system AS student
COPY --chown=student:student Makefile pyproject.toml requirements.lock README.md LICENSE LICENSE-content ./
COPY --chown=student:student src ./src
COPY --chown=student:student kernels_c ./kernels_c
COPY --chown=student:student labs ./labs
COPY --chown=student:student deploy/image-entrypoint.sh ./deploy/
COPY --from=book --chown=student:student /opt/hybridlab/book/_build/html ./book/_build/html
RUN make setup
