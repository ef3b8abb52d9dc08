"""The ``seqboard`` command line: sub-commands live in :mod:`seqboard.commands`."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from . import __version__, commands
from .errors import UserError

EPILOG = """examples:
  seqboard demo                      watch two computer players finish a game (no hardware)
  seqboard replay records/game.jsonl re-check a game record move by move
  seqboard <command> --help          help and an example for one command
"""


class Parser(argparse.ArgumentParser):
    """argparse with one line for a bad argument (usage is one ``--help`` away)."""

    def error(self, message: str):
        self.exit(2, f"seqboard: error: {self.prog.removeprefix('seqboard ') or 'seqboard'}: "
                     f"{message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="seqboard", description="Referee and companion for a real SEQUENCE board.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"seqboard {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="<command>")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:          # --help, --version, or a bad argument (one line)
        return exc.code if isinstance(exc.code, int) else 2
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"seqboard: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("seqboard: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except RecursionError:
        # a parser met input nested deeper than it can follow; each file's loader names
        # its file, this is the last guard so that no traceback reaches the user
        print("seqboard: error: the input is nested too deeply to read", file=sys.stderr)
        return 2
    except Exception as exc:  # engine/config errors raised for the user's input
        from engine.errors import EngineError
        from vision.spacenet import ModelError
        if isinstance(exc, (EngineError, ModelError)):
            print(f"seqboard: error: {exc}", file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":
    sys.exit(main())
