"""JupyterHub for a class taking the hybridlab labs: each student's server is a Slurm job.

Run as root on the login node, from the kit's venv (requirements-hub.lock installed in it):

    jupyterhub -f deploy/jupyterhub_config.py

What a site changes is in SITE below, each value also settable by the environment variable named
beside it (the demo, `make hub-demo`, and `make test-hub` set them). Nothing else should need an
edit; book/instructors.md ("The term on a JupyterHub") walks through every setting.

- Authentication: PAM (the machine's own accounts and passwords), limited to the course's Unix
  groups. To use LDAP or OAuth instead, see AUTHENTICATION below.
- Spawner: batchspawner's SlurmSpawner. The hub runs sbatch, squeue and scancel as the student
  (runuser, since the hub is root), so the job is the student's own; the server (JupyterLab) runs
  as a job step (srun) with the cores of one lab; the kit's engines start inside that job
  (launcher.py: srun --overlap).
- nbgrader: students' servers read deploy/jupyter/nbgrader_config.py (JUPYTER_CONFIG_PATH): the
  course id, the exchange folder, and course membership from the hub's groups
  (nbgrader-<course> for students, formgrade-<course> for instructors), filled here from the
  Unix groups.
"""

import grp
import os
import shutil
import sys
from pathlib import Path

c = get_config()  # noqa: F821 - provided by traitlets when it loads this file

DEPLOY = Path(__file__).resolve().parent


def setting(variable: str, default: str) -> str:
    return os.environ.get(variable, default)


# --- what a site changes ---------------------------------------------------------------------
SITE = {
    # Slurm: where students' servers run, charged to which account, how large, how long.
    # cores, memory and runtime are the per-site limits of one student's server (its job): the
    # book's "Sizing a class" (book/instructors.md) says what the labs do with more cores and
    # what a lab's server was measured to use.
    "partition": setting("HYBRIDLAB_HUB_PARTITION", ""),  # "" = the cluster's default partition
    "account": setting("HYBRIDLAB_HUB_ACCOUNT", ""),  # "" = the student's default account
    "cores": setting("HYBRIDLAB_HUB_CORES", "2"),  # every lab runs on 2; more: larger shapes
    "memory": setting("HYBRIDLAB_HUB_MEMORY", ""),  # e.g. "4G"; "" = the partition's default
    "runtime": setting("HYBRIDLAB_HUB_RUNTIME", "4:00:00"),  # a lab session
    # idle servers: one with no activity (no open JupyterLab tab, no cell running) for this many
    # seconds is stopped by jupyterhub-idle-culler, which ends its Slurm job and frees its cores;
    # the culler looks every cull_every seconds
    "idle_timeout": setting("HYBRIDLAB_HUB_IDLE_TIMEOUT", "3600"),  # "0" = never cull
    "cull_every": setting("HYBRIDLAB_HUB_CULL_EVERY", "300"),
    # the course: its exchange folder (every user can write it: mode 1777), the Unix groups of
    # its people
    "exchange": setting("HYBRIDLAB_EXCHANGE", "/srv/nbgrader/exchange"),
    "students": setting("HYBRIDLAB_HUB_STUDENTS", "hybridlab-students"),
    "instructors": setting("HYBRIDLAB_HUB_INSTRUCTORS", "hybridlab-instructors"),
    # the network: where the hub listens for browsers, and the address of this (login) node
    # that the compute nodes reach the hub's API at (a server that cannot reach it hangs at
    # "waiting to connect": batchspawner issues #161, #217, #279)
    "bind_url": setting("HYBRIDLAB_HUB_URL", "http://:8000"),
    "hub_port": setting("HYBRIDLAB_HUB_API_PORT", "8081"),  # the hub's API (servers call it)
    "proxy_api_port": setting("HYBRIDLAB_HUB_PROXY_API_PORT", "8001"),  # the hub drives the proxy
    "hub_connect_ip": setting("HYBRIDLAB_HUB_CONNECT_IP", ""),  # "" = this node's hostname
    # where the hub keeps its database, cookie secret and proxy token
    "state": setting("HYBRIDLAB_HUB_STATE", "/srv/jupyterhub"),
    # the PATH of the students' servers, after the kit's own bin: by default the hub's own (where
    # it found sbatch), so a site's Slurm in /opt/slurm/bin and Lmod's module paths are kept
    "path": setting("HYBRIDLAB_HUB_PATH", os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin")),
}


def members(group: str) -> list[str]:
    """The Unix group's members (its supplementary list, as /etc/group or LDAP's nss give it)."""
    try:
        return sorted(grp.getgrnam(group).gr_mem)
    except KeyError:
        return []


STUDENTS, INSTRUCTORS = members(SITE["students"]), members(SITE["instructors"])
COURSE = "hybridlab"  # nbgrader's course id (grading/nbgrader_config.py)

# --- AUTHENTICATION ---------------------------------------------------------------------------
# PAM: the login node's accounts. Only the course's groups may log in; instructors are admins.
# LDAP: pip install jupyterhub-ldapauthenticator, then
#   c.JupyterHub.authenticator_class = "ldapauthenticator.LDAPAuthenticator"
#   c.LDAPAuthenticator.server_address = "ldap.example.org"
#   c.LDAPAuthenticator.bind_dn_template = ["uid={username},ou=people,dc=example,dc=org"]
# OAuth (e.g. the university's single sign-on): pip install oauthenticator, then
#   c.JupyterHub.authenticator_class = "generic-oauth"  (and its client id, secret and URLs)
# Either way the usernames must be the Unix accounts Slurm knows: the jobs run as them.
c.JupyterHub.authenticator_class = "pam"
c.PAMAuthenticator.allowed_groups = {SITE["students"], SITE["instructors"]}
c.Authenticator.admin_users = set(INSTRUCTORS)

# --- the hub ----------------------------------------------------------------------------------
state = Path(SITE["state"])
c.JupyterHub.bind_url = SITE["bind_url"]
c.JupyterHub.hub_ip = "0.0.0.0"  # the servers on the compute nodes call the hub's API
c.JupyterHub.hub_port = int(SITE["hub_port"])
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{SITE['proxy_api_port']}"
c.JupyterHub.hub_connect_ip = SITE["hub_connect_ip"] or os.uname().nodename
c.JupyterHub.db_url = f"sqlite:///{state / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(state / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(state / "jupyterhub.pid")
c.ConfigurableHTTPProxy.pid_file = str(state / "jupyterhub-proxy.pid")
# configurable-http-proxy from npm (deploy/package.json: `npm ci --prefix deploy`)
c.ConfigurableHTTPProxy.command = [
    str(DEPLOY / "node_modules" / ".bin" / "configurable-http-proxy")
]
c.JupyterHub.cleanup_servers = True  # stopping the hub cancels the students' jobs
c.JupyterHub.shutdown_on_logout = True  # logging out ends the student's job: its cores are free

# The course's people as the hub's groups, which nbgrader's JupyterHubAuthPlugin reads: a student
# sees the labs of the courses whose nbgrader-<course> group they are in (nbgrader #1936).
c.JupyterHub.load_groups = {
    f"nbgrader-{COURSE}": {"users": STUDENTS + INSTRUCTORS},
    f"formgrade-{COURSE}": {"users": INSTRUCTORS},
}

# --- idle servers end, and their jobs with them ------------------------------------------------
# jupyterhub-idle-culler (requirements-hub.lock) as a service of the hub: it stops a server idle
# for longer than SITE["idle_timeout"]; stopping a batchspawner server cancels its job (scancel).
# Activity reaches the hub from the proxy (every request to the server) and from the server itself
# (busy kernels): both report more often than the timeout, so an open lab is never idle.
IDLE_TIMEOUT = int(SITE["idle_timeout"])
ACTIVITY_INTERVAL = max(10, min(300, IDLE_TIMEOUT // 4)) if IDLE_TIMEOUT else 300
c.JupyterHub.last_activity_interval = ACTIVITY_INTERVAL
if IDLE_TIMEOUT:
    c.JupyterHub.services = [
        {
            "name": "idle-culler",
            "command": [
                sys.executable, "-m", "jupyterhub_idle_culler",
                f"--timeout={IDLE_TIMEOUT}",
                f"--cull-every={min(int(SITE['cull_every']), max(10, IDLE_TIMEOUT // 2))}",
            ],
        }
    ]  # fmt: skip
    c.JupyterHub.load_roles = [
        {
            "name": "idle-culler",
            "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
            "services": ["idle-culler"],
        }
    ]

# --- the students' servers: Slurm jobs ----------------------------------------------------------
c.JupyterHub.spawner_class = "batchspawner.SlurmSpawner"
# as the student: the hub is root, so runuser (a hub that is not root uses
# "sudo -E -u {username}" with a sudoers rule for sbatch, squeue and scancel)
c.SlurmSpawner.exec_prefix = f"{shutil.which('runuser') or '/usr/sbin/runuser'} -u {{username}} --"
c.SlurmSpawner.req_partition = SITE["partition"]
c.SlurmSpawner.req_account = SITE["account"]
c.SlurmSpawner.req_nprocs = SITE["cores"]
c.SlurmSpawner.req_memory = SITE["memory"]
c.SlurmSpawner.req_runtime = SITE["runtime"]
c.SlurmSpawner.batch_script = (DEPLOY / "slurm_server.sh").read_text()
c.SlurmSpawner.start_timeout = 300  # the queue's wait and JupyterLab's start
c.SlurmSpawner.http_timeout = 180
c.Spawner.ip = "0.0.0.0"  # the proxy on the login node reaches the server on its node
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
# The kit's Python and tools first on PATH (the hybridlab kernel is in its prefix), then the site's
# (SITE["path"]), the students' nbgrader settings, and the kit's settings a lab reads (README,
# "Settings").
kit_bin = str(Path(sys.executable).parent)
c.Spawner.environment = {
    "PATH": f"{kit_bin}:{SITE['path']}",
    "JUPYTER_CONFIG_PATH": str(DEPLOY / "jupyter"),
    "HYBRIDLAB_EXCHANGE": SITE["exchange"],
    "IPP_NONINTERACTIVE": "1",
    "JUPYTERHUB_ACTIVITY_INTERVAL": str(ACTIVITY_INTERVAL),  # the server's reports of activity
}
# passed on when the hub has them: a Slurm configuration outside /etc/slurm, the labs' quick mode
for name in ("SLURM_CONF", "HYBRIDLAB_QUICK"):
    if name in os.environ:
        c.Spawner.environment[name] = os.environ[name]
# the server's token may read the student's own groups (nbgrader's course membership)
c.Spawner.server_token_scopes = [
    "access:servers!server",
    "users:activity!user",
    "read:users:groups!user",
]
