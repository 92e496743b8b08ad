"""Shared fixtures. Qt runs offscreen; JAX runs on whatever devices this machine has."""

from __future__ import annotations

import gc
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# A shell starts a background job (`(make test &)` in a script) with SIGINT ignored, and an
# ignored signal stays ignored through every exec: the commands and kernels the tests start
# would not hear the Ctrl+C the tests send them. The suite takes SIGINT as Python does.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# jsonschema (under nbformat, which the lesson tests write notebooks with) checks the "iri"
# format with rfc3987_syntax when it is installed (jupyter_server's jupyter_events asks for
# it), and that builds a Lark grammar as it is imported: 2 s of every test process. No
# notebook schema has an "iri" field; without it jsonschema leaves that format unchecked.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

# XLA compiles the same small programs again and again across the suite: every window,
# kernel and command loads its source afresh, and JAX's in-memory caches are per function
# object. JAX's persistent compilation cache, in a folder of this run (made before any
# worker, kernel or command starts, and inherited by them), compiles each once. The
# application itself runs without it: its timings show real compiles.
_JAX_CACHE_OWNER = "WORKBENCH_TEST_JAX_CACHE" not in os.environ
if _JAX_CACHE_OWNER:
    os.environ["WORKBENCH_TEST_JAX_CACHE"] = tempfile.mkdtemp(prefix="workbench-jax-cache-")
    os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", os.environ["WORKBENCH_TEST_JAX_CACHE"])
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "assets" / "examples"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """``-m serial`` (``make test``'s second phase) imports only the test files that mark a
    test serial: importing all the others only to deselect their tests took it 20 s."""
    if (config.getoption("markexpr") == "serial" and collection_path.suffix == ".py"
            and collection_path.name.startswith("test_")
            and "serial" not in collection_path.read_text(encoding="utf-8")):
        return True
    return None  # never False: that would override --ignore


def pytest_unconfigure(config: pytest.Config) -> None:
    if _JAX_CACHE_OWNER:
        shutil.rmtree(os.environ.pop("WORKBENCH_TEST_JAX_CACHE"), ignore_errors=True)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "kernel: the window or bridge runs on a real engine kernel, not in-process "
        "(Stop, restart, crashes, the console, what the kernel prints)")
    config.addinivalue_line(
        "markers", "serial: the test times what a kernel or a process does (Stop within 3 s, "
        "a crash noticed within 2 s); `make test` runs these one worker per core, after the "
        "rest")


@pytest.fixture(autouse=True, scope="session")
def _cyclic_gc_in_the_main_thread():
    """Python's cyclic collector runs in whichever thread happens to allocate: in the
    in-process engine's thread it destroyed pyqtgraph items (Qt objects) there, deadlocking
    the test process (or crashing it). As the window does (``collect_in_gui_thread``), the
    suite turns it off and collects in the main thread, between tests."""
    gc.disable()
    # What the imports made lives as long as the process: out of every later collection.
    gc.collect()
    gc.freeze()
    yield
    gc.enable()


@pytest.fixture(autouse=True)
def _collect_between_tests():
    """The oldest generation that is due, and those younger, as the automatic collector
    would have (cheap but for the full collection, every tenth or so)."""
    yield
    counts, thresholds = gc.get_count(), gc.get_threshold()
    for generation in (2, 1, 0):
        if counts[generation] > thresholds[generation]:
            gc.collect(generation)
            break


@pytest.fixture
def examples_dir() -> Path:
    return EXAMPLES


@pytest.fixture
def load():
    """Load editor source text under a file name, as the editor would."""
    from workbench.engine.source import load_source

    def _load(source: str, filename: str = "editor.py"):
        return load_source(source, filename)

    return _load


@pytest.fixture(scope="module")
def engine(request):
    """A client on a real engine kernel, one per test module (a ``tests.kernel_util.Recorder``).

    The module's ``KERNEL_SOURCE`` (a ``LoadSource`` request), when it has one, is loaded
    first and must succeed.
    """
    from tests.kernel_util import Recorder
    from workbench.api import messages as p

    rec = Recorder()
    load = getattr(request.module, "KERNEL_SOURCE", None)
    if load is not None:
        assert isinstance(rec.call(load), p.Result)
    yield rec
    rec.close()


@pytest.fixture(scope="module")
def tcp_kernel(tmp_path_factory):
    """A workbench kernel started apart, on loopback TCP (``tests.attach_util.TcpKernel``), as
    a teacher starts one on a GPU host; one per test module."""
    from tests.attach_util import start_tcp_kernel

    kernel = start_tcp_kernel(tmp_path_factory.mktemp("kernel"))
    yield kernel
    kernel.kill()


@pytest.fixture(scope="module")
def sshd(tmp_path_factory):
    """An SSH server on 127.0.0.1 taking a throwaway key (``tests.attach_util.Sshd``); skipped
    where ``sshd`` is not installed."""
    from tests.attach_util import running_sshd

    with running_sshd(tmp_path_factory.mktemp("sshd")) as server:
        yield server
