"""``seqboard config init|check``: write a commented starting file, or check one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UserError

EPILOG = """examples:
  seqboard config init                       write ~/.config/seqboard/seqboard.toml
  seqboard config init my-board.toml         write it elsewhere
  seqboard config check my-board.toml        name every mistake, exit 1 if there is one
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("config", help="write or check the configuration file",
                       description="Write a commented starting configuration, or check one.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", choices=["init", "check", "show"],
                   help="init: write the starting file; check: validate a file; show: print the defaults")
    p.add_argument("file", nargs="?", help="the configuration file (default ~/.config/seqboard/seqboard.toml)")
    p.add_argument("--force", action="store_true", help="init: overwrite an existing file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from hw_config.config import DEFAULT_PATH, default_text

    from ..settings import check
    path = Path(args.file or DEFAULT_PATH).expanduser()
    if args.action == "show":
        sys.stdout.write(default_text())
        return 0
    if args.action == "init":
        if path.exists() and not args.force:
            raise UserError(f"{path}: already exists (use --force to overwrite)")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(default_text(), "utf-8")
        except OSError as exc:
            raise UserError(f"{path}: cannot write: {exc.strerror}") from None
        print(f"wrote {path}; edit it, then: seqboard config check {path}")
        return 0
    problems = check(str(path))
    if not problems:
        print(f"{path}: ok")
        return 0
    for p in problems[:100]:
        print(f"{path}: {p}", file=sys.stderr)
    if len(problems) > 100:
        print(f"{path}: and {len(problems) - 100} more mistakes", file=sys.stderr)
    return 1
