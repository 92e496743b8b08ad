"""`workbench kernelspec`: a spec a Jupyter server can start the engine kernel from.

The proof is a kernel started by jupyter_client's own ``KernelManager`` from the
installed spec, answering our client's requests and stopped by the manager's
interrupt, as a Jupyter server would start and interrupt it.
"""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

from tests.cli.cli_util import run_cli
from tests.kernel_util import wait_until, wait_working
from workbench.api import messages as m
from workbench.api.process_env import QUIET_DEBUGGER
from workbench.client.engine_client import EngineClient


def kernels(prefix: Path) -> Path:
    return prefix / "share" / "jupyter" / "kernels"


def install(capsys, prefix: Path, *options: str) -> tuple[int, str, str]:
    return run_cli(capsys, "kernelspec", "install", "--prefix", str(prefix), *options)


def test_install_writes_a_spec_that_starts_this_pythons_engine_kernel(capsys, tmp_path):
    code, out, err = install(capsys, tmp_path)
    folder = kernels(tmp_path) / "workbench"
    assert code == 0
    assert out == f"installed kernelspec 'workbench' in {folder}\n"
    # Jupyter does not look in a bare prefix: the command says how a server finds it.
    assert err == f"  a Jupyter server finds it with JUPYTER_PATH={tmp_path / 'share/jupyter'}\n"
    spec = json.loads((folder / "kernel.json").read_text())
    assert spec["argv"] == [sys.executable, "-m", "workbench.engine.kernel", "-f",
                            "{connection_file}", "--managed"]
    assert spec["display_name"] == "Workbench (JAX)"
    assert spec["language"] == "python"
    assert spec["interrupt_mode"] == "signal"
    assert spec["metadata"] == {"debugger": False}
    assert {k: spec["env"][k] for k in QUIET_DEBUGGER} == dict(QUIET_DEBUGGER)
    # glibc's malloc as plain Python has it, so a timing matches Jupyter's kernel.
    assert not [k for k in spec["env"] if k.startswith("MALLOC_")]
    # Readable by every user's server, not the temporary folder's 0700.
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755
    assert stat.S_IMODE((folder / "kernel.json").stat().st_mode) == 0o644


def test_install_takes_a_name_a_display_name_and_more_environment(capsys, tmp_path):
    code, out, _ = install(capsys, tmp_path, "--name", "JAX-Class", "--display-name",
                           "JAX class (GPU)", "--env", "WORKBENCH_MEMORY_LIMIT=8G")
    folder = kernels(tmp_path) / "jax-class"  # Jupyter's names are lower case
    assert code == 0 and out == f"installed kernelspec 'jax-class' in {folder}\n"
    spec = json.loads((folder / "kernel.json").read_text())
    assert spec["display_name"] == "JAX class (GPU)"
    assert spec["env"]["WORKBENCH_MEMORY_LIMIT"] == "8G"
    assert spec["env"]["PYDEVD_DISABLE_FILE_VALIDATION"] == "1"


def test_installing_again_replaces_the_spec(capsys, tmp_path):
    install(capsys, tmp_path, "--display-name", "first")
    code, _, _ = install(capsys, tmp_path, "--display-name", "second")
    spec = json.loads((kernels(tmp_path) / "workbench" / "kernel.json").read_text())
    assert code == 0 and spec["display_name"] == "second"


def test_list_with_a_prefix_shows_the_workbench_specs_only(capsys, tmp_path):
    install(capsys, tmp_path)
    other = kernels(tmp_path) / "plainpy"
    other.mkdir()
    (other / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python", "language": "python"}))
    code, out, _ = run_cli(capsys, "kernelspec", "list", "--prefix", str(tmp_path))
    assert code == 0
    rows = [row.split() for row in out.splitlines()]
    assert ["workbench", str(kernels(tmp_path) / "workbench")] in rows
    assert not any(str(other) in row for row in out.splitlines())


def test_list_says_when_a_specs_python_is_gone(capsys, tmp_path):
    install(capsys, tmp_path, "--name", "moved")
    spec_file = kernels(tmp_path) / "moved" / "kernel.json"
    spec = json.loads(spec_file.read_text())
    spec["argv"][0] = str(tmp_path / "old-venv" / "bin" / "python")
    spec_file.write_text(json.dumps(spec))
    _, out, _ = run_cli(capsys, "kernelspec", "list", "--prefix", str(tmp_path))
    row = next(row for row in out.splitlines() if str(spec_file.parent) in row)
    assert row.endswith(f"(its Python is gone: {spec['argv'][0]})")


def test_remove_takes_a_workbench_spec_away_and_leaves_others(capsys, tmp_path):
    install(capsys, tmp_path)
    folder = kernels(tmp_path) / "workbench"
    code, out, _ = run_cli(capsys, "kernelspec", "remove", "--prefix", str(tmp_path))
    assert code == 0 and out == f"removed kernelspec 'workbench' from {folder}\n"
    assert not folder.exists()
    code, _, err = run_cli(capsys, "kernelspec", "remove", "--prefix", str(tmp_path))
    assert code == 1 and err.startswith("workbench kernelspec: error: no kernelspec 'workbench'")

    other = kernels(tmp_path) / "python3"
    other.mkdir()
    (other / "kernel.json").write_text(json.dumps({
        "argv": ["python", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3", "language": "python"}))
    code, _, err = run_cli(capsys, "kernelspec", "remove", "--name", "python3", "--prefix",
                           str(tmp_path))
    assert code == 1 and "does not start the workbench engine" in err
    assert (other / "kernel.json").exists()


def test_a_prefix_that_cannot_be_written_is_one_line_and_exit_1(capsys, tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    code, out, err = install(capsys, blocked)
    assert code == 1 and out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith(f"workbench kernelspec: error: cannot write the kernelspec to "
                          f"{blocked}")


@pytest.mark.parametrize("argv", [
    ["install", "--name", "a b"],
    ["install", "--env", "NOEQUALS"],
    ["install", "--user"],  # with --prefix: one place only
    ["install", "--bogus"],
    ["frobnicate"],
    [],
])
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, argv):
    prefix = ["--prefix", str(tmp_path)] if argv else []
    try:
        code, _, err = run_cli(capsys, "kernelspec", *argv, *prefix)
    except SystemExit as exc:  # argparse's own usage error
        code, err = exc.code, capsys.readouterr().err
    assert code == 2
    assert len(err.splitlines()) == 1 and "error:" in err
    assert not kernels(tmp_path).exists()


@pytest.mark.kernel
def test_a_jupyter_kernel_manager_starts_and_interrupts_the_engine_from_the_spec(
        capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.delenv("PYDEVD_DISABLE_FILE_VALIDATION", raising=False)
    assert install(capsys, tmp_path / "prefix")[0] == 0
    specs = KernelSpecManager(kernel_dirs=[str(kernels(tmp_path / "prefix"))])
    km = KernelManager(kernel_name="workbench", kernel_spec_manager=specs)
    km.start_kernel()
    try:
        pid = km.provisioner.process.pid
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        assert b"PYDEVD_DISABLE_FILE_VALIDATION=1" in environ  # the spec's env, as ours
        assert not [v for v in environ if v.startswith(b"MALLOC_")]
        with EngineClient(connection_file=km.connection_file) as client:
            reply = client.call(m.Ping(), 120)
            assert isinstance(reply, m.Result) and reply.value.in_kernel is True

            box: list[m.Reply] = []
            client.request(m.LoadSource(source="while True:\n    pass\n"), box.append)
            wait_working(pid)
            km.interrupt_kernel()  # interrupt_mode "signal": SIGINT to its process group
            wait_until(lambda: box, 30, "the interrupted request's reply")
            assert isinstance(box[0], m.Cancelled), box[0]
            assert isinstance(client.call(m.Ping(), 30), m.Result)
    finally:
        km.shutdown_kernel(now=True)
    assert not km.is_alive()


def test_the_command_line_parser_loads_no_jupyter_client():
    """The window parses its command line before its first frame: jupyter_client (0.16 s)
    loads after that frame, with the engine client, not with this command's definitions."""
    code = ("import sys\nfrom workbench.cli import build_parser\nbuild_parser()\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('jupyter_client', 'jax')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
