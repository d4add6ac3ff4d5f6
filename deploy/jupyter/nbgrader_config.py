"""nbgrader in the students' servers (the hub puts this folder on JUPYTER_CONFIG_PATH).

The course `hybridlab` (as grading/nbgrader_config.py), its exchange named by the hub's
environment (HYBRIDLAB_EXCHANGE, from deploy/jupyterhub_config.py's SITE). Fetched labs go to ~/<course>/<lab>/, so labs of
two courses with the same name do not collide; a student sees only the courses whose hub group
(nbgrader-<course>) they are in.
"""

import os

from nbgrader.auth import JupyterHubAuthPlugin

c = get_config()  # noqa: F821 - provided by traitlets when it loads this file

c.CourseDirectory.course_id = "hybridlab"
c.Exchange.root = os.environ.get("HYBRIDLAB_EXCHANGE", "/srv/nbgrader/exchange")
c.Exchange.path_includes_course = True
c.Authenticator.plugin_class = JupyterHubAuthPlugin
