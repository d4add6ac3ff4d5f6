#!/usr/bin/env bash
# Build and run the hybridlab image: with Docker where a daemon answers, otherwise with podman.
#
#   scripts/image.sh build [TAG] [TARGET]
#                                    build the Dockerfile (default tag hybridlab:latest); TARGET
#                                    student (default: released labs, no solutions) or instructor
#   scripts/image.sh run [TAG]       start JupyterLab from the image on port 8888
#   scripts/image.sh podman ARGS...  podman with the same storage and runtime options
#   scripts/image.sh clean           remove the podman storage folder
#
# The podman route works on machines without a Docker daemon and without any reachable image
# registry (the course's CI VMs):
#   - the base image is made from Debian's own packages: `debootstrap --variant=minbase bookworm`
#     from the mirror in /etc/apt/sources.list.d, then `podman import`, and the Dockerfile is
#     built on it with `--build-arg BASE=...` (the Dockerfile itself stays generic);
#   - runtime runc (crun fails on these VMs), storage driver vfs (no overlay inside the VM),
#     cgroupfs, the default ulimits and sysctls cleared in our own containers.conf;
#   - `--network host` for the build and the container;
#   - if the host's pip needs a CA bundle (a `cert =` line in /etc/pip.conf), that bundle and a
#     pip.conf naming it are mounted read-only into the build's RUN steps (at /etc/xdg/pip), so
#     pip inside the build trusts the same certificates as the host; the image keeps only the
#     empty mount point.
# Everything podman keeps lives in one folder, $HYBRIDLAB_IMAGE_STORE (default
# ~/.cache/hybridlab/podman); the image test points it at a scratch folder and removes it after.
#
# Environment: HYBRIDLAB_IMAGE_ENGINE=docker|podman (default: docker if `docker info` answers),
# HYBRIDLAB_IMAGE_STORE, HYBRIDLAB_DEBIAN_MIRROR (default: read from /etc/apt/sources.list.d).
set -euo pipefail

HERE="$(cd "$(dirname "$0")/.." && pwd)"
STORE="${HYBRIDLAB_IMAGE_STORE:-${XDG_CACHE_HOME:-$HOME/.cache}/hybridlab/podman}"
BASE_TAG="localhost/hybridlab-base:bookworm"

log() { printf '[image] %s\n' "$*" >&2; }

engine() {
    if [ -n "${HYBRIDLAB_IMAGE_ENGINE:-}" ]; then
        echo "$HYBRIDLAB_IMAGE_ENGINE"
    elif command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
        echo docker
    elif command -v podman >/dev/null 2>&1; then
        echo podman
    else
        log "neither a Docker daemon nor podman: install podman (Debian: apt-get install podman buildah runc debootstrap)"
        exit 2
    fi
}

# podman with every option the route needs; all state under $STORE.
pm() {
    mkdir -p "$STORE"
    if [ ! -f "$STORE/containers.conf" ]; then
        cat >"$STORE/containers.conf" <<'EOF'
# Written by scripts/image.sh: what podman needs on a VM without systemd or overlayfs.
[containers]
default_ulimits = []
default_sysctls = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
    fi
    CONTAINERS_CONF="$STORE/containers.conf" podman \
        --root "$STORE/root" --runroot "$STORE/run" --tmpdir "$STORE/tmp" \
        --storage-driver vfs --runtime runc --cgroup-manager cgroupfs --events-backend file \
        "$@"
}

# The Debian mirror apt uses on this host (the URIs line, not the snapshot URL in a comment).
debian_mirror() {
    if [ -n "${HYBRIDLAB_DEBIAN_MIRROR:-}" ]; then echo "$HYBRIDLAB_DEBIAN_MIRROR"; return; fi
    local uri
    uri="$(grep -h -E '^\s*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | awk '{print $2}' | grep -v -- '-security' | head -n1 || true)"
    [ -n "$uri" ] || uri="$(grep -h -E '^\s*deb\s' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
        | awk '{print $2}' | grep -v -- '-security' | head -n1 || true)"
    echo "${uri:-http://deb.debian.org/debian}"
}

# The bookworm base image, made from Debian's packages (once per store).
make_base() {
    if pm image exists "$BASE_TAG"; then
        log "base $BASE_TAG already in $STORE"
        return
    fi
    command -v debootstrap >/dev/null || { log "debootstrap is needed: apt-get install debootstrap"; exit 2; }
    local rootfs mirror
    rootfs="$STORE/rootfs"
    mirror="$(debian_mirror)"
    rm -rf "$rootfs"
    log "debootstrap --variant=minbase bookworm from $mirror"
    debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$STORE/debootstrap.log" 2>&1 \
        || { tail -n 30 "$STORE/debootstrap.log" >&2; exit 1; }
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    log "podman import -> $BASE_TAG"
    tar -C "$rootfs" -c . | pm import --change 'CMD ["/bin/bash"]' - "$BASE_TAG" >/dev/null
    rm -rf "$rootfs"
}

# -v options giving pip in the build the host's CA bundle, when the host's pip.conf names one.
pip_ca_mounts() {
    local cert
    [ -f /etc/pip.conf ] || return 0
    cert="$(sed -n -E 's/^\s*cert\s*=\s*(\S+).*/\1/p' /etc/pip.conf | head -n1)"
    [ -n "$cert" ] && [ -f "$cert" ] || return 0
    # One folder mounted where pip looks for a site-wide pip.conf (/etc/xdg/pip): only its empty
    # mount point stays in the image.
    mkdir -p "$STORE/pip"
    cp "$cert" "$STORE/pip/host-ca.crt"
    printf '[global]\ncert = /etc/xdg/pip/host-ca.crt\n' >"$STORE/pip/pip.conf"
    echo "-v $STORE/pip:/etc/xdg/pip:ro"
}

build() {
    local tag="${1:-hybridlab:latest}" target="${2:-student}" start
    start=$(date +%s)
    case "$(engine)" in
    docker)
        log "docker build --target $target -t $tag"
        docker build --target "$target" -t "$tag" "$HERE"
        ;;
    podman)
        make_base
        log "podman build --target $target -t $tag --build-arg BASE=$BASE_TAG (storage $STORE)"
        # shellcheck disable=SC2046  # the mounts are separate words on purpose
        pm build --network host --build-arg "BASE=$BASE_TAG" $(pip_ca_mounts) \
            --layers=false --target "$target" -t "$tag" -f "$HERE/Dockerfile" "$HERE"
        ;;
    esac
    log "built $tag in $(($(date +%s) - start)) s"
}

run() {
    local tag="${1:-hybridlab:latest}"
    case "$(engine)" in
    docker) docker run --rm -it -p 8888:8888 "$tag" ;;
    podman) pm run --rm -it --network host "$tag" ;;
    esac
}

cmd="${1:-build}"
shift || true
case "$cmd" in
build) build "$@" ;;
run) run "$@" ;;
podman) pm "$@" ;;
clean)
    # vfs layers belong to root-owned files of the image: let podman drop them, then the folder.
    [ -d "$STORE" ] && pm system reset --force >/dev/null 2>&1 || true
    rm -rf "$STORE"
    ;;
*)
    sed -n '2,10p' "$0"
    exit 2
    ;;
esac
