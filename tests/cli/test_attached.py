"""Every headless command with ``--existing FILE``: its request runs in that kernel, and what it
prints is what the in-process run prints; a connection file that leads nowhere is one line and
exit 1."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading

import numpy as np
import pytest

from tests.attach_util import dead_connection_file, start_tcp_kernel, wrong_key_file
from tests.cli.cli_util import run_cli, run_cli_process

SOURCE = """\
print("loading selu")

def selu(x, alpha=1.67, lmbda=1.05):
    print("tracing selu")
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

def sigmoid(x):
    return 1 / (1 + jnp.exp(-x))

def broken(x):
    return x @ jnp.ones((3, 4))
"""


def both(capsys, conn, *argv):
    """(in-process, attached) runs of ``workbench ARGV``: each (status, stdout, stderr)."""
    return run_cli(capsys, *argv), run_cli(capsys, *argv, "--existing", str(conn))


@pytest.mark.parametrize("fmt", ["text", "tree", "json"])
def test_trace_is_the_same_attached(capsys, prog, tcp_kernel, fmt):
    local, attached = both(capsys, tcp_kernel.connection_file, "trace", prog, "selu",
                           "--args", "f32[8]", "--transform", "grad", "--transform", "vmap",
                           "--format", fmt)
    assert local[0] == 0
    assert attached == local
    if fmt == "json":
        assert json.loads(attached[1])["output"] == "loading selu\ntracing selu\n"
    else:
        assert attached[2] == "loading selu\ntracing selu\n"  # the code's prints, on stderr


def test_trace_with_hlo_and_cost_is_the_same_attached(capsys, prog, tcp_kernel):
    local, attached = both(capsys, tcp_kernel.connection_file, "trace", prog, "sigmoid",
                           "--args", "f32[4]", "--hlo", "stablehlo", "--cost", "--format",
                           "json")
    assert local[0] == 0 and attached == local


def test_a_user_code_error_is_the_same_attached(capsys, prog, tcp_kernel):
    local, attached = both(capsys, tcp_kernel.connection_file, "trace", prog, "broken",
                           "--args", "f32[5]")
    assert local[0] == 1 and "error:" in local[2]
    assert attached == local


def test_a_usage_error_is_the_same_attached(capsys, prog, tcp_kernel):
    local, attached = both(capsys, tcp_kernel.connection_file, "trace", prog, "nope",
                           "--args", "f32[5]")
    assert local[0] == 2 and attached == local


def test_plot_is_the_same_attached(capsys, prog, tcp_kernel):
    local, attached = both(capsys, tcp_kernel.connection_file, "plot", prog, "selu",
                           "--points", "41", "--param", "alpha=1.5", "--check", "--format",
                           "json")
    assert local[0] == 0 and attached == local
    assert json.loads(local[1])["check"]  # the derivative check came back too
    local, attached = both(capsys, tcp_kernel.connection_file, "plot", prog, "selu",
                           "--points", "41", "--check")
    assert local[0] == 0 and attached == local


def test_devices_is_the_same_attached(capsys, tcp_kernel):
    local, attached = both(capsys, tcp_kernel.connection_file, "devices", "--format", "json")
    assert local[0] == 0 and attached == local
    # --existing before the sub-command is heard too
    assert run_cli(capsys, "--existing", "nowhere.json", "devices") == (
        1, "", "workbench devices: error: no such connection file: nowhere.json\n")


def test_kmeans_is_the_same_attached(capsys, tcp_kernel, tmp_path):
    data = tmp_path / "points.csv"
    rng = np.random.default_rng(1)
    np.savetxt(data, np.concatenate([rng.normal(0, 1, (50, 3)), rng.normal(6, 1, (50, 3))]),
               delimiter=",")
    for source in (["--blobs", "300", "--k", "3"], ["--data", str(data), "--k", "2"],
                   ["--tutorial"]):
        local, attached = both(capsys, tcp_kernel.connection_file, "kmeans", *source,
                               "--format", "json")
        assert local[0] == attached[0] == 0, (local, attached)
        mine, theirs = json.loads(local[1]), json.loads(attached[1])
        mine.pop("timing"), theirs.pop("timing")
        assert theirs == mine


def test_kmeans_drawn_and_labels_from_an_attached_kernel(capsys, tcp_kernel, tmp_path):
    code, out, err = run_cli(capsys, "kmeans", "--blobs", "200", "--k", "3", "--max-iter", "3",
                             "--labels-out", str(tmp_path / "labels.npy"), "-o",
                             str(tmp_path / "frames"), "--existing",
                             str(tcp_kernel.connection_file))
    assert code == 0, err
    assert np.load(tmp_path / "labels.npy").shape == (200,)
    assert sorted(p.name for p in (tmp_path / "frames").iterdir())[0].endswith(".png")


def test_time_runs_in_the_attached_kernel(capsys, prog, tcp_kernel):
    argv = ("time", prog, "sigmoid", "--args", "f32[100]", "--modes", "jit", "--repeats", "1",
            "--min-batch", "0.001", "--budget", "0.2", "--format", "json")
    local, attached = both(capsys, tcp_kernel.connection_file, *argv)
    assert local[0] == attached[0] == 0, attached
    mine, theirs = json.loads(local[1]), json.loads(attached[1])
    assert theirs.keys() == mine.keys()
    assert [(r["device"], r["mode"]) for r in theirs["results"]] == \
        [(r["device"], r["mode"]) for r in mine["results"]]
    assert theirs["output"] == mine["output"] == "loading selu\n"


def test_time_reports_progress_from_the_attached_kernel(prog, tcp_kernel, monkeypatch):
    from workbench.api import messages as m
    from workbench.api.timing import TimingConfig, TimingReport
    from workbench.cli.common import read_user_file
    from workbench.cli.runner import AttachedEngine

    source, filename = read_user_file(prog)
    engine = AttachedEngine(str(tcp_kernel.connection_file))
    try:
        engine.call(m.LoadSource(source=source, filename=filename), m.Functions)
        progress: list[m.Progress] = []
        report = engine.call(
            m.Time(name="sigmoid", args="f32[10]", modes=("eager", "jit"),
                   config=TimingConfig(min_batch_s=0.001, repeats=1, max_measure_s=0.2)),
            TimingReport, on_progress=progress.append)
    finally:
        engine.close()
    assert report.function == "sigmoid"
    assert progress and progress[-1].done == progress[-1].total > 0


def _one_line_exit_1(capsys, *argv) -> str:
    code, out, err = run_cli(capsys, *argv)
    assert code == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_a_missing_connection_file_is_one_line(capsys, prog, tmp_path):
    line = _one_line_exit_1(capsys, "trace", prog, "selu", "--args", "f32[3]", "--existing",
                            str(tmp_path / "nope.json"))
    assert line == f"workbench trace: error: no such connection file: {tmp_path / 'nope.json'}"


def test_a_connection_file_that_is_not_json_is_one_line(capsys, tmp_path):
    bad = tmp_path / "kernel.json"
    bad.write_text("not json")
    line = _one_line_exit_1(capsys, "devices", "--existing", str(bad))
    assert "is not a connection file (not JSON" in line


def test_a_dead_kernel_is_one_line_within_seconds(tmp_path):
    # In a process of its own, with a time limit: a hang fails the test instead of blocking it.
    proc = run_cli_process("devices", "--existing", str(dead_connection_file(tmp_path)),
                           timeout=20)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        f"workbench devices: error: nothing answers at 127.0.0.1 (the ports in "
        f"{tmp_path / 'dead.json'}): is the kernel running?"]


def test_a_kernel_still_starting_is_waited_for_saying_so(tmp_path):
    """A kernel its manager has just started (its file written, its ports not yet bound): the
    command waits, with a progress line, and runs there once it answers."""
    folder = tmp_path / "starting"
    folder.mkdir()
    conn = dead_connection_file(folder).rename(folder / "conn.json")
    os.utime(conn)
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench.cli", "devices", "--format", "json", "--existing",
         str(conn)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    errors: queue.SimpleQueue[str] = queue.SimpleQueue()
    threading.Thread(target=lambda: [errors.put(line) for line in proc.stderr],
                     daemon=True).start()
    kernel = None
    try:
        first = errors.get(timeout=60)
        assert first.startswith(f"workbench devices: waiting for the kernel in {conn} to "
                                "start (nothing answers yet; giving up in "), first
        kernel = start_tcp_kernel(folder)  # on the file's ports, as its manager starts it
        code = proc.wait(120)
        said = []
        while not errors.empty():
            said.append(errors.get())
        assert code == 0, said
        assert json.loads(proc.stdout.read())["devices"]  # it ran there
    finally:
        proc.kill()
        if kernel is not None:
            kernel.kill()


def test_a_wrong_key_is_one_line_not_a_hang(tcp_kernel, tmp_path):
    proc = run_cli_process("devices", "--existing", str(wrong_key_file(tcp_kernel, tmp_path)),
                           timeout=30)
    assert proc.returncode == 1
    (line,) = proc.stderr.strip().splitlines()
    assert line.endswith("wrong key, or not a workbench kernel?")


def test_ssh_without_existing_is_a_usage_error(capsys, prog):
    code, _, err = run_cli(capsys, "trace", prog, "selu", "--args", "f32[3]", "--ssh", "host")
    assert code == 2 and err.strip() == (
        "workbench trace: error: --ssh needs --existing FILE (the kernel's connection file)")
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, "--ssh", "host")
    assert exc.value.code == 2


def test_trace_through_ssh_is_the_same(prog, tcp_kernel, sshd):
    argv = ("trace", prog, "selu", "--args", "f32[8]", "--format", "json")
    local = run_cli_process(*argv)
    attached = subprocess.run(
        [sys.executable, "-m", "workbench.cli", *argv, "--existing",
         str(tcp_kernel.connection_file), "--ssh", sshd.server],
        capture_output=True, text=True, timeout=120, env=sshd.env())
    assert local.returncode == 0 and attached.returncode == 0, attached.stderr
    assert attached.stdout == local.stdout


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_ctrl_c_interrupts_the_attached_kernel_too(tcp_kernel, tmp_path):
    from tests.kernel_util import wait_until
    from workbench.api import messages as m
    from workbench.client.engine_client import EngineClient

    loop = tmp_path / "loop.py"
    loop.write_text("while True:\n    pass\n")
    pid = tcp_kernel.proc.pid
    before = _cpu_seconds(pid)
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench.cli", "trace", str(loop), "f", "--args", "f32[3]",
         "--existing", str(tcp_kernel.connection_file)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: _cpu_seconds(pid) > before + 0.5, 60, "the loop to run there")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and err.strip() == "workbench trace: interrupted"
    # The kernel stopped the loop: another client is answered at once.
    with EngineClient(tcp_kernel.connection_file) as client:
        assert isinstance(client.call(m.Ping(), 10), m.Result)


def test_an_attached_command_runs_no_jax_here(prog, tcp_kernel):
    """The work happens in the kernel: the command's own process never even imports JAX."""
    code = ("import sys\nfrom workbench.cli import main\nrc = main(sys.argv[1:])\n"
            "print('jax loaded:', 'jax' in sys.modules, file=sys.stderr)\nsys.exit(rc)\n")
    for argv in (("trace", prog, "selu", "--args", "f32[3]", "--format", "tree"),
                 ("kmeans", "--tutorial")):
        proc = subprocess.run([sys.executable, "-c", code, *argv, "--existing",
                               str(tcp_kernel.connection_file)],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.strip().splitlines()[-1] == "jax loaded: False"


def test_lesson_check_after_the_kernel_is_lost_says_so_not_a_usage_hint(tmp_path):
    """Before: the step failed as "usage: the engine failed: ..." with a hint to check the
    function's name and --args, and every later step failed the same way."""
    kernel = start_tcp_kernel(tmp_path / "kernel")
    lesson = tmp_path / "lost.py"
    lesson.write_text(
        "# %% [markdown]\n# # Lost\n\n"
        "# %%\nx = 1\n\n"
        "# %%\nimport os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n\n"
        "# %%\n# workbench: trace f --args f32[3]\ndef f(x):\n    return x\n")
    try:
        proc = run_cli_process("lesson", str(lesson), "--check", "--existing",
                               str(kernel.connection_file), timeout=120)
    finally:
        kernel.kill()
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    lost = next(i for i, line in enumerate(lines) if line.startswith("step 2/"))
    assert " the engine failed: lost contact with the kernel on localhost" in lines[lost]
    assert lines[lost + 1].strip() == (
        "hint: not the lesson's doing: start the kernel again, then check the lesson again "
        "(the steps after this one were not run)")
    assert lines[lost + 2].startswith("step 3/")
    assert lines[lost + 2].endswith("not run: the engine was lost at step 2")
    assert "usage" not in proc.stdout and "function's name" not in proc.stdout
