"""`workbench kernelspec`: the engine kernel as a Jupyter kernel, so that a Jupyter server, a
JupyterHub single-user image or a kernel gateway can start it for each student.

The spec runs ``python -m workbench.engine.kernel -f {connection_file}`` with this
process's Python and the environment our own launcher gives the kernel
(``api.process_env.engine_env``: a quiet debugger; malloc as plain Python has it), so a
kernel a server starts behaves like the window's. Only files are written: no JAX, no kernel.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jupyter_core.paths import SYSTEM_JUPYTER_PATH, jupyter_data_dir

from workbench.api.process_env import engine_env
from workbench.api.writer import atomic_write_text
from workbench.engine.errors import UsageError, WorkbenchError

if TYPE_CHECKING:  # jupyter_client costs the window's start 0.16 s: loaded when used
    from jupyter_client.kernelspec import KernelSpecManager

KERNEL_MODULE = "workbench.engine.kernel"
DEFAULT_NAME = "workbench"
DEFAULT_DISPLAY_NAME = "Workbench (JAX)"
# Jupyter's rule for a kernel name (jupyter_client.kernelspec); it lowercases the name itself.
NAME_PATTERN = re.compile(r"[a-z0-9._-]+", re.ASCII | re.IGNORECASE)
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)
QUIET_LOG = logging.getLogger("workbench.kernelspec")
QUIET_LOG.setLevel(logging.ERROR)

SYSTEM_KERNELS = os.path.join(SYSTEM_JUPYTER_PATH[0], "kernels")
WHERE_HELP = ("Without --user, --sys-prefix or --prefix the spec goes where Jupyter looks "
              f"system-wide ({SYSTEM_KERNELS}: needs root, as in an image's build). A "
              "--prefix P install goes in P/share/jupyter/kernels, where Jupyter looks only "
              "when P is sys.prefix or the server runs with JUPYTER_PATH=P/share/jupyter.")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "kernelspec", help="install the engine kernel for a Jupyter server to start",
        description="Install, list or remove a Jupyter kernelspec that starts the workbench "
        "engine kernel, so a Jupyter server, JupyterHub or a kernel gateway can start it.")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True,
                                    parser_class=type(parser))

    install = actions.add_parser(
        "install", help="write the kernelspec", epilog=WHERE_HELP,
        description="Write a kernelspec that runs this Python's workbench engine kernel: "
        f"{sys.executable} -m {KERNEL_MODULE} -f {{connection_file}}.")
    _add_where(install)
    install.add_argument("--name", default=DEFAULT_NAME,
                         help=f"the kernel's name (default {DEFAULT_NAME}): letters, digits, "
                         "'.', '-' and '_'")
    install.add_argument("--display-name", default=DEFAULT_DISPLAY_NAME, metavar="TEXT",
                         help=f"the name in the launcher (default {DEFAULT_DISPLAY_NAME!r})")
    install.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                         help="also set NAME for the kernel, e.g. WORKBENCH_MEMORY_LIMIT=8G "
                         "(repeatable)")
    install.set_defaults(func=run_install)

    listing = actions.add_parser(
        "list", help="list the workbench kernelspecs Jupyter would find",
        description="List the kernelspecs Jupyter would find that run the workbench engine "
        "kernel (others, such as python3, are left out): name and folder. Exit 1 if none.",
        epilog="Jupyter looks in JUPYTER_PATH, your user folder, sys.prefix and the system "
        "folders; --prefix P looks in P/share/jupyter/kernels first, as a server started "
        "with JUPYTER_PATH=P/share/jupyter would.")
    listing.add_argument("--prefix", metavar="P", help="also look in P/share/jupyter/kernels")
    listing.set_defaults(func=run_list)

    remove = actions.add_parser(
        "remove", help="remove a workbench kernelspec",
        description="Remove the kernelspec NAME that Jupyter would find, if it runs the "
        "workbench engine kernel; with --prefix P, only the one in P/share/jupyter/kernels.")
    remove.add_argument("--name", default=DEFAULT_NAME,
                        help=f"the kernel's name (default {DEFAULT_NAME})")
    remove.add_argument("--prefix", metavar="P", help="remove it from P/share/jupyter/kernels")
    remove.set_defaults(func=run_remove)


def _add_where(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true",
                       help="in your own Jupyter folder "
                       f"({os.path.join(jupyter_data_dir(), 'kernels')})")
    where.add_argument("--sys-prefix", action="store_true",
                       help=f"in this Python's environment ({sys.prefix})")
    where.add_argument("--prefix", metavar="P", help="in P/share/jupyter/kernels")


def kernel_spec(display_name: str = DEFAULT_DISPLAY_NAME,
                env: dict[str, str] | None = None) -> dict[str, Any]:
    """The kernel.json that starts this Python's engine kernel with our launcher's environment.

    Unlike our launcher, which only fills what is unset, Jupyter lets a spec's env override
    the server's environment; ``env`` (``--env``) adds to it or overrides it.
    """
    return {
        # --managed: the server's kernel manager restarts it, as it does any kernel.
        "argv": [sys.executable, "-m", KERNEL_MODULE, "-f", "{connection_file}", "--managed"],
        "display_name": display_name,
        "language": "python",
        "interrupt_mode": "signal",  # SIGINT to its process group, as the window's Stop sends
        "env": {**engine_env({}), **(env or {})},
        "metadata": {"debugger": False},
    }


def runs_workbench(spec: Any) -> bool:
    """Whether a kernelspec's argv starts the workbench engine kernel."""
    argv = spec.get("argv") if isinstance(spec, dict) else None
    return isinstance(argv, list) and argv[1:3] == ["-m", KERNEL_MODULE]


def prefix_kernels(prefix: str) -> Path:
    """Where Jupyter puts (and finds) a kernelspec installed under ``prefix``."""
    return Path(prefix).expanduser().absolute() / "share" / "jupyter" / "kernels"


def _spec_manager(**options: Any) -> KernelSpecManager:
    from jupyter_client.kernelspec import KernelSpecManager

    return KernelSpecManager(**options)


def _manager(prefix: str | None) -> KernelSpecManager:
    manager = _spec_manager()
    if prefix is not None:
        manager.kernel_dirs = [str(prefix_kernels(prefix)), *manager.kernel_dirs]
    return manager


def _env_pairs(items: list[str]) -> dict[str, str]:
    env = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not ENV_NAME.fullmatch(name):
            raise UsageError(f"--env {item!r}: give NAME=VALUE, e.g. WORKBENCH_MEMORY_LIMIT=8G")
        env[name] = value
    return env


def _check_name(name: str) -> str:
    if not NAME_PATTERN.fullmatch(name):
        raise UsageError(f"bad kernel name {name!r}: use letters, digits, '.', '-' and '_'")
    return name.lower()


def install(name: str = DEFAULT_NAME, *, display_name: str = DEFAULT_DISPLAY_NAME,
            user: bool = False, prefix: str | None = None,
            env: dict[str, str] | None = None) -> Path:
    """Write the kernelspec (replacing one of that name there); the folder it went to."""
    name = _check_name(name)
    if prefix is not None:
        prefix = str(Path(prefix).expanduser().absolute())
    with tempfile.TemporaryDirectory() as source:
        # Copied with its mode: a temporary folder's 0700 would hide a system-wide spec from
        # every other user's server.
        os.chmod(source, 0o755)
        spec_file = Path(source) / "kernel.json"
        atomic_write_text(spec_file, json.dumps(kernel_spec(display_name, env), indent=1) + "\n",
                          mode=0o644)
        # Its own "not where Jupyter looks" warning is left out: run_install says it plainer.
        manager = _spec_manager(log=QUIET_LOG)
        try:
            return Path(manager.install_kernel_spec(source, kernel_name=name, user=user,
                                                    prefix=prefix))
        except OSError as exc:
            target = exc.filename or prefix or SYSTEM_KERNELS
            hint = "" if user or prefix else " (without root: --user or --sys-prefix)"
            raise WorkbenchError(f"cannot write the kernelspec to {target}: "
                                 f"{exc.strerror or exc}{hint}") from None


def find(prefix: str | None = None) -> dict[str, tuple[Path, dict[str, Any]]]:
    """The workbench kernelspecs Jupyter would find (and in ``prefix``): name -> (folder, spec)."""
    found = {}
    for name, entry in sorted(_manager(prefix).get_all_specs().items()):
        if runs_workbench(entry["spec"]):
            found[name] = (Path(entry["resource_dir"]), entry["spec"])
    return found


def run_install(args: argparse.Namespace) -> int:
    prefix = sys.prefix if args.sys_prefix else args.prefix
    where = install(args.name, display_name=args.display_name, user=args.user, prefix=prefix,
                    env=_env_pairs(args.env))
    print(f"installed kernelspec {where.name!r} in {where}")
    if prefix is not None and str(where.parent) not in _spec_manager().kernel_dirs:
        print(f"  a Jupyter server finds it with JUPYTER_PATH={where.parent.parent}",
              file=sys.stderr)
    return 0


def run_list(args: argparse.Namespace) -> int:
    found = find(args.prefix)
    if not found:
        dirs = _manager(args.prefix).kernel_dirs
        print(f"workbench kernelspec list: no workbench kernelspec in {', '.join(dirs)}",
              file=sys.stderr)
        return 1
    width = max(len(name) for name in found)
    for name, (folder, spec) in found.items():
        python = spec["argv"][0]
        gone = "" if os.path.exists(python) else f"  (its Python is gone: {python})"
        print(f"{name:<{width}}  {folder}{gone}")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    name = _check_name(args.name)
    if args.prefix is not None:
        manager = _spec_manager(kernel_dirs=[str(prefix_kernels(args.prefix))])
    else:
        manager = _spec_manager()
    folder = manager.find_kernel_specs().get(name)
    if folder is None:
        raise WorkbenchError(f"no kernelspec {name!r} in {', '.join(manager.kernel_dirs)}")
    try:
        spec = json.loads((Path(folder) / "kernel.json").read_text())
    except (OSError, ValueError):
        spec = {}
    if not runs_workbench(spec):
        raise WorkbenchError(f"kernelspec {name!r} in {folder} does not start the workbench "
                             "engine: left as it is")
    try:
        shutil.rmtree(folder)
    except OSError as exc:
        raise WorkbenchError(f"cannot remove {folder}: {exc.strerror or exc}") from None
    print(f"removed kernelspec {name!r} from {folder}")
    return 0
