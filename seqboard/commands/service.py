"""``seqboard service``: the systemd unit that starts seqboard at boot and restarts it."""

from __future__ import annotations

import argparse
import getpass
import shlex
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

from ..errors import UserError

EPILOG = """examples:
  seqboard service print --mode play          show the unit that would be installed
  sudo $(which seqboard) service install --user pi --mode referee
  sudo $(which seqboard) service install --mode stacks --mode-args "--players 3"
  sudo systemctl status seqboard; journalctl -u seqboard -f

The service runs `seqboard MODE` as USER (groups gpio, video, dialout), restarts it three
seconds after a failure, resumes the unfinished game by itself after a power cut, and may
open 8192 files (LimitNOFILE), so a flood of connections to the dashboard cannot starve
the board link (docs/dashboard.md, "Security"). SEQUENCE STACKS is played by typing: with
--mode stacks the service runs on the Pi's console (tty1: a keyboard and a screen on the Pi)
in place of the login prompt there.
"""

UNIT_PATH = Path("/etc/systemd/system/seqboard.service")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("service", help="install the systemd service (start at boot)",
                       description="Print or install the systemd unit that runs seqboard at "
                                   "boot and restarts it on failure.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", choices=["print", "install"])
    p.add_argument("--mode", default="referee", choices=["referee", "play", "demo", "stacks"],
                   help="what the service runs (default referee; stacks runs on the console, tty1)")
    p.add_argument("--mode-args", default="", metavar="ARGS",
                   help='more arguments for the mode, e.g. "--players 3" for stacks')
    p.add_argument("--user", default=None, help="the user it runs as (default: you)")
    p.add_argument("--config", metavar="FILE", help="configuration file for the service")
    p.set_defaults(func=run)


CONSOLE = """# SEQUENCE STACKS is typed: the service owns the Pi's console (tty1) instead of a login
StandardInput=tty
StandardOutput=tty
TTYPath=/dev/tty1
TTYReset=yes
TTYVHangup=yes
"""


def unit_text(user: str, mode: str, config: str | None = None, mode_args: str = "") -> str:
    exe = shutil.which("seqboard") or f"{sys.executable} -m seqboard"
    template = resources.files("seqboard").joinpath("systemd/seqboard.service").read_text("utf-8")
    try:
        extra = shlex.split(mode_args)
    except ValueError as exc:
        raise UserError(f"--mode-args: {exc}") from None
    cmd = " ".join([mode] + [shlex.quote(a) for a in extra]) + (f" --config {config}" if config else "")
    text = template.replace("@USER@", user).replace("@EXEC@", exe).replace("@MODE@", cmd)
    if mode == "stacks":
        text = text.replace("After=network-online.target\n",
                            "After=network-online.target getty@tty1.service\n"
                            "Conflicts=getty@tty1.service\n")
        text = text.replace("Environment=PYTHONUNBUFFERED=1\n",
                            "Environment=PYTHONUNBUFFERED=1\n" + CONSOLE)
    return text


def run(args: argparse.Namespace) -> int:
    user = args.user or getpass.getuser()
    text = unit_text(user, args.mode, str(Path(args.config).expanduser().resolve()) if args.config else None,
                     args.mode_args)
    if args.action == "print":
        sys.stdout.write(text)
        return 0
    try:
        UNIT_PATH.write_text(text, "utf-8")
    except PermissionError:
        raise UserError(f"{UNIT_PATH}: permission denied (run it with sudo)") from None
    except OSError as exc:
        raise UserError(f"{UNIT_PATH}: cannot write: {exc.strerror}") from None
    for cmd in (["systemctl", "daemon-reload"], ["systemctl", "enable", "--now", "seqboard"]):
        try:
            subprocess.run(cmd, check=True)
        except (OSError, subprocess.CalledProcessError) as exc:
            raise UserError(f"{' '.join(cmd)} failed: {exc}") from None
    print(f"installed {UNIT_PATH}; it runs `seqboard {args.mode}` as {user} at every boot")
    return 0
