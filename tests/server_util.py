"""A real Jupyter Server on 127.0.0.1 with a token, the workbench kernelspec installed into a
prefix of its own (``workbench kernelspec install --prefix``), for the ``--server`` tests."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests.attach_util import free_ports
from tests.kernel_util import wait_until

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class JupyterServerProcess:
    url: str
    token: str = field(repr=False)
    proc: subprocess.Popen
    log: Path

    def rest(self, method: str, path: str, body: dict | None = None):
        """The server's REST API, with the token."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, method=method, data=data,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=30) as reply:
            raw = reply.read()
        return json.loads(raw) if raw else None

    def kernels(self) -> list[dict]:
        return self.rest("GET", "api/kernels")

    def env(self) -> dict[str, str]:
        """An environment whose JUPYTER_TOKEN is this server's (as a student's would be)."""
        return {**os.environ, "JUPYTER_TOKEN": self.token}


def _server_pythonpath() -> str:
    """The project, and ``server_path`` (which leaves out a slow import the servers need not
    make), before what the environment had."""
    return os.pathsep.join(filter(None, [str(ROOT), str(Path(__file__).parent / "server_path"),
                                         os.environ.get("PYTHONPATH")]))


@contextmanager
def running_jupyter_server(folder: Path, *, gateway: bool = False, port: int | None = None,
                           token: str | None = None) -> Iterator[JupyterServerProcess]:
    """``jupyter server``, or with ``gateway`` a Jupyter Kernel Gateway (its REST API and
    channels, no contents); on ``port`` with ``token`` when given (a server restarted)."""
    jupyter_path = _kernelspec_prefix(folder)
    port = port or free_ports(1)[0]
    token = token or secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_PATH": str(jupyter_path),
           "JUPYTER_RUNTIME_DIR": str(folder / "runtime"), "JUPYTER_CONFIG_DIR": str(folder),
           "PYTHONPATH": _server_pythonpath()}
    env.pop("JUPYTER_TOKEN", None)
    log = folder / "server.log"
    with log.open("wb") as out:
        argv = ([sys.executable, "-m", "kernel_gateway", f"--KernelGatewayApp.port={port}",
                 "--KernelGatewayApp.ip=127.0.0.1", f"--KernelGatewayApp.auth_token={token}",
                 "--KernelGatewayApp.port_retries=0",
                 "--JupyterWebsocketPersonality.list_kernels=True"] if gateway else
                [sys.executable, "-m", "jupyter_server", "--no-browser", "--allow-root",
                 f"--port={port}", "--ip=127.0.0.1", f"--IdentityProvider.token={token}",
                 f"--ServerApp.root_dir={folder}", "--ServerApp.port_retries=0",
                 # The collaboration layer's file ids (where installed): not in ~/.local.
                 f"--BaseFileIdManager.db_path={folder / 'file_id.db'}",
                 f"--SQLiteYStore.db_path={folder / 'ystore.db'}"])
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env)
    server = JupyterServerProcess(f"http://127.0.0.1:{port}/", token, proc, log)

    try:
        _wait_answering(server, "api/kernelspecs", 60, "the Jupyter Server")
        yield server
    finally:
        _stop(proc)


def _wait_answering(server: JupyterServerProcess, path: str, timeout: float,
                    what: str) -> None:
    """Until ``path`` answers; fail with the log's end if the process exits first."""
    def answers() -> bool:
        if server.proc.poll() is not None:
            raise AssertionError(f"{what} exited: {server.log.read_text()[-3000:]}")
        try:
            server.rest("GET", path)
        except OSError:
            return False
        return True

    wait_until(answers, timeout, f"{what} to answer")


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def _kernelspec_prefix(folder: Path) -> Path:
    """The workbench kernelspec installed under ``folder/prefix``; the folder Jupyter
    finds it in (for JUPYTER_PATH)."""
    prefix = folder / "prefix"
    subprocess.run([sys.executable, "-m", "workbench.cli", "kernelspec", "install", "--prefix",
                    str(prefix)], check=True, capture_output=True, timeout=120)
    return prefix / "share" / "jupyter"


HUB_CONFIG = """
c = get_config()  # noqa: F821
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_port = {hub_port}
c.JupyterHub.authenticator_class = "dummy"
c.JupyterHub.spawner_class = "simple"
c.Spawner.cmd = [{python!r}, "-m", "jupyterhub.singleuser"]
c.Spawner.args = ["--allow-root"]
c.Spawner.environment = {{"JUPYTER_PATH": {jupyter_path!r}}}
c.Spawner.default_url = "/lab"
c.JupyterHub.db_url = "sqlite:///{folder}/hub.sqlite"
c.JupyterHub.cookie_secret_file = "{folder}/cookie_secret"
c.ConfigurableHTTPProxy.pid_file = "{folder}/proxy.pid"
c.JupyterHub.load_roles = [{{"name": "teacher", "scopes": ["admin:users", "admin:servers",
                            "tokens"], "services": ["class"]}}]
c.JupyterHub.services = [{{"name": "class", "api_token": {admin_token!r}}}]
"""


@contextmanager
def running_jupyterhub(folder: Path, user: str = "ada") -> Iterator[JupyterServerProcess]:
    """A JupyterHub (dummy authenticator, local-process spawner) with ``user``'s server
    started: its URL is the user's (``http://127.0.0.1:PORT/user/NAME/``), its token the
    user's own API token."""
    jupyter_path = _kernelspec_prefix(folder)
    port, hub_port = free_ports(2)
    admin = secrets.token_hex(16)
    config = folder / "jupyterhub_config.py"
    config.write_text(HUB_CONFIG.format(port=port, hub_port=hub_port, folder=folder,
                                        python=sys.executable,
                                        jupyter_path=str(jupyter_path),
                                        admin_token=admin))
    log = folder / "hub.log"
    env = {**os.environ, "PYTHONPATH": _server_pythonpath()}
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)],
                                cwd=folder, stdout=out, stderr=subprocess.STDOUT, env=env)
    hub = JupyterServerProcess(f"http://127.0.0.1:{port}/hub/", admin, proc, log)

    try:
        _wait_answering(hub, "api/", 90, "the JupyterHub")
        hub.rest("POST", f"api/users/{user}")
        token = hub.rest("POST", f"api/users/{user}/tokens", {"note": "workbench test"})["token"]
        hub.rest("POST", f"api/users/{user}/server")
        server = JupyterServerProcess(f"http://127.0.0.1:{port}/user/{user}/", token, proc, log)

        _wait_answering(server, "api/kernelspecs", 90, f"{user}'s server")
        yield server
    finally:
        _stop(proc)
