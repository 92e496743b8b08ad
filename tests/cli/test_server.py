"""Every headless command with ``--server URL``: its requests run in a workbench kernel of a
real Jupyter Server (started here, with a token), and what it prints is what the in-process
run prints; each way of getting the server wrong is one line and exit 1, never the token."""

from __future__ import annotations

import http.server
import json
import re
import threading

import pytest

from tests.cli.cli_util import run_cli
from tests.server_util import running_jupyter_server

SOURCE = """\
print("loading selu")

def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

def broken(x):
    return x @ jnp.ones((3, 4))
"""


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory):
    with running_jupyter_server(tmp_path_factory.mktemp("server")) as server:
        yield server


@pytest.fixture(scope="module")
def kernel_id(jupyter):
    """One workbench kernel of the server for the module's comparisons (each command
    starting its own is tested once)."""
    return jupyter.rest("POST", "api/kernels", {"name": "workbench"})["id"]


@pytest.fixture
def token(jupyter, monkeypatch):
    monkeypatch.setenv("JUPYTER_TOKEN", jupyter.token)
    monkeypatch.delenv("JUPYTERHUB_API_TOKEN", raising=False)
    return jupyter.token


def without_progress(result):
    """A run's (status, stdout, stderr) without the lines that say what it waited for (a
    kernel's start, past 2 s: said or not by how busy the machine is)."""
    code, out, err = result
    kept = [line for line in err.splitlines(keepends=True)
            if not re.match(r"workbench \w+: (starting a '|waiting for )", line)]
    return code, out, "".join(kept)


def on_server(capsys, jupyter, kernel_id, *argv):
    """(in-process, on the server's kernel) runs of ``workbench ARGV``."""
    return run_cli(capsys, *argv), run_cli(capsys, *argv, "--server", jupyter.url,
                                            "--kernel-id", kernel_id)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_trace_is_the_same_on_a_server_kernel(capsys, prog, jupyter, kernel_id, token, fmt):
    local, remote = on_server(capsys, jupyter, kernel_id, "trace", prog, "selu", "--args",
                              "f32[8]", "--transform", "grad", "--transform", "vmap",
                              "--format", fmt)
    assert local[0] == 0 and remote == local


def test_a_user_code_error_is_the_same_on_a_server_kernel(capsys, prog, jupyter, kernel_id,
                                                          token):
    local, remote = on_server(capsys, jupyter, kernel_id, "trace", prog, "broken", "--args",
                              "f32[2,2]")
    assert local[0] == 1 and remote == local


def test_kmeans_plot_and_lesson_check_are_the_same_on_a_server_kernel(
        capsys, prog, jupyter, kernel_id, token, tmp_path, examples_dir):
    local, remote = on_server(capsys, jupyter, kernel_id, "kmeans", "--blobs", "300", "--k",
                              "3", "--seed", "1", "--format", "json")
    assert local[0] == 0 and remote[0] == 0
    drop = ("timing",)
    assert _without(json.loads(remote[1]), drop) == _without(json.loads(local[1]), drop)
    local, remote = on_server(capsys, jupyter, kernel_id, "plot", prog, "selu", "--format",
                              "json")
    assert local[0] == 0 and remote == local
    lesson = next(examples_dir.parent.glob("lessons/01_*.ipynb"))
    local, remote = on_server(capsys, jupyter, kernel_id, "lesson", "--check", str(lesson))
    assert local[0] == 0 and remote[0] == 0

    def verdicts(out: str) -> list[list[str]]:  # each step's number, verdict and title
        return [line.split("—")[0].split()[:4] for line in out.splitlines()]

    assert verdicts(remote[1]) == verdicts(local[1]) and len(verdicts(local[1])) > 3


def test_devices_and_time_name_the_servers_devices(capsys, prog, jupyter, kernel_id, token):
    code, out, err = run_cli(capsys, "devices", "--format", "json", "--server", jupyter.url,
                             "--kernel-id", kernel_id)
    assert code == 0 and json.loads(out)["devices"], err
    code, out, err = run_cli(capsys, "time", prog, "selu", "--args", "f32[100]", "--quiet",
                             "--repeats", "3", "--min-batch", "0.01", "--budget", "0.3",
                             "--server", jupyter.url, "--kernel-id", kernel_id)
    assert code == 0 and "faster than eager" in out, err


def test_a_command_starts_a_kernel_of_its_own_and_shuts_it_down(capsys, prog, jupyter, token):
    before = {k["id"] for k in jupyter.kernels()}
    code, out, err = run_cli(capsys, "trace", prog, "selu", "--args", "f32[3]", "--server",
                             jupyter.url)
    assert code == 0 and "exp" in out, err
    # Nothing left behind: the command waited for the server's shutdown of its kernel.
    assert {k["id"] for k in jupyter.kernels()} == before


def test_a_kernel_gateway_runs_the_commands_too(capsys, prog, tmp_path, monkeypatch):
    pytest.importorskip("kernel_gateway", reason="jupyter_kernel_gateway is not installed")
    with running_jupyter_server(tmp_path, gateway=True) as gateway:
        monkeypatch.setenv("JUPYTER_TOKEN", gateway.token)
        argv = ("trace", prog, "selu", "--args", "f32[4]", "--format", "json")
        local, remote = run_cli(capsys, *argv), run_cli(capsys, *argv, "--server", gateway.url)
        assert local[0] == 0 and without_progress(remote) == local
        assert gateway.kernels() == []  # the command's kernel shut down after it


# --------------------------------------------------------------------------- bad input


def one_line(capsys, *argv, token=None, status=1):
    code, out, err = run_cli(capsys, *argv)
    lines = [line for line in err.splitlines() if "warning:" not in line]
    assert code == status and out == "" and len(lines) == 1, (code, out, err)
    if token:
        assert token not in err
    return lines[0]


def test_a_missing_or_wrong_token_is_one_line_without_the_token(capsys, prog, jupyter,
                                                                monkeypatch):
    monkeypatch.delenv("JUPYTER_TOKEN", raising=False)
    monkeypatch.delenv("JUPYTERHUB_API_TOKEN", raising=False)
    argv = ("trace", prog, "selu", "--args", "f32[3]", "--server", jupyter.url)
    assert "needs a token" in one_line(capsys, *argv)
    line = one_line(capsys, *argv, "--token", "not-the-token", token="not-the-token")
    assert "token given was refused" in line
    _, _, err = run_cli(capsys, *argv, "--token", "not-the-token")
    assert "set JUPYTER_TOKEN" in err  # a token on the command line is visible: said
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", jupyter.token)  # a hub's variable is read too
    assert run_cli(capsys, *argv, "--kernel-name", "nope")[2].count(jupyter.token) == 0


def test_a_server_that_does_not_answer_or_is_not_jupyter_is_one_line(capsys, prog, token):
    from tests.attach_util import free_ports

    port = free_ports(1)[0]
    line = one_line(capsys, "trace", prog, "selu", "--args", "f32[3]", "--server",
                    f"http://127.0.0.1:{port}/", token=token)
    assert line.startswith("workbench trace: error: nothing answers at 127.0.0.1:")
    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _QuietPages)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    try:
        line = one_line(capsys, "trace", prog, "selu", "--args", "f32[3]", "--server",
                        f"http://127.0.0.1:{site.server_address[1]}/", token=token)
    finally:
        site.shutdown()
    assert "answers, but not as a Jupyter Server" in line


def test_an_unknown_kernel_or_kernelspec_is_one_line(capsys, prog, jupyter, token):
    line = one_line(capsys, "trace", prog, "selu", "--args", "f32[3]", "--server", jupyter.url,
                    "--kernel-id", "no-such-kernel", token=token)
    assert "has no kernel 'no-such-kernel'" in line
    line = one_line(capsys, "trace", prog, "selu", "--args", "f32[3]", "--server", jupyter.url,
                    "--kernel-name", "python9", token=token)
    assert "has no 'python9' kernelspec (it has: " in line and "workbench" in line


def test_server_options_need_a_server_and_exclude_a_connection_file(capsys, prog, tmp_path):
    usage = ("trace", prog, "selu", "--args", "f32[3]")
    assert "--kernel-id needs --server URL" in one_line(capsys, *usage, "--kernel-id", "abc",
                                                        status=2)
    assert "give one" in one_line(capsys, *usage, "--server", "http://h:1/", "--existing",
                                  str(tmp_path / "c.json"), status=2)
    line = one_line(capsys, *usage, "--server", "h:1/lab?token=SECRET", status=2)
    assert "not a server URL" in line and "SECRET" not in line


class _QuietPages(http.server.SimpleHTTPRequestHandler):
    """A web site that is not a Jupyter Server, logging nothing on stderr."""

    def log_message(self, *args) -> None:
        pass


def _without(value, keys):
    if isinstance(value, dict):
        return {k: _without(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_without(v, keys) for v in value]
    return value


def test_a_jupyterhub_users_server_runs_the_commands(capsys, prog, tmp_path, monkeypatch):
    import shutil

    pytest.importorskip("jupyterhub", reason="jupyterhub is not installed")
    if shutil.which("configurable-http-proxy") is None:
        pytest.skip("JupyterHub's proxy, configurable-http-proxy (npm), is not installed")
    from tests.server_util import running_jupyterhub

    with running_jupyterhub(tmp_path) as ada:
        monkeypatch.delenv("JUPYTER_TOKEN", raising=False)
        monkeypatch.setenv("JUPYTERHUB_API_TOKEN", ada.token)  # as a hub's terminal has it
        argv = ("trace", prog, "selu", "--args", "f32[4]", "--format", "json")
        local = run_cli(capsys, *argv)
        remote = run_cli(capsys, *argv, "--server", ada.url + "lab")  # the browser's URL
        assert local[0] == 0 and without_progress(remote) == local
        assert ada.kernels() == []


def test_a_token_in_the_urls_query_is_said_to_be_visible(capsys, prog, monkeypatch):
    """As ``--token`` is: the process list shows the command line to every user."""
    from tests.attach_util import free_ports

    monkeypatch.delenv("JUPYTER_TOKEN", raising=False)
    port = free_ports(1)[0]
    code, _, err = run_cli(capsys, "trace", prog, "selu", "--args", "f32[3]", "--server",
                           f"http://127.0.0.1:{port}/lab?token=SECRET")
    assert code == 1
    assert err.splitlines()[0] == (
        "workbench trace: warning: a token on the command line (the URL's ?token=) can be "
        "read by other users of this machine (ps); set JUPYTER_TOKEN in the environment "
        "instead")
    assert "SECRET" not in err
