"""``seqboard replay FILE``: re-check a game record and print each verdict and the result."""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys

from ..errors import UserError

EPILOG = """examples:
  seqboard replay records/2026-11-22-2014.jsonl
  seqboard replay --json game.jsonl | jq '.steps[] | select(.ok | not)'

exit status: 0 when every line checks out, 1 when a line breaks the rules or disagrees
with what the rules say (the first such line is named on stderr), 2 when the file cannot
be read as a record (too large, a line too long or nested too deep, not JSON, a key of the
wrong type: the line is named).
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="re-check a game record move by move",
                       description="Re-check a game record (JSON Lines) against the rules and "
                                   "print each move's verdict and the result.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="the game record (.jsonl)")
    p.add_argument("--json", action="store_true", help="print the steps and result as JSON")
    p.set_defaults(func=run)


def load_record_text(path: str, max_bytes: int | None = None,
                     max_line: int | None = None) -> str:
    """A record file's text, read line by line within the size limits of
    :mod:`engine.record`: a file over ``max_bytes`` is refused before reading (or as soon
    as it grows past it: a device, a pipe), a line over ``max_line`` characters as soon as
    it is seen, so no file can fill the memory. UserError names the file and the reason."""
    from engine.record import MAX_LINE_CHARS, MAX_RECORD_BYTES
    max_bytes = MAX_RECORD_BYTES if max_bytes is None else max_bytes
    max_line = MAX_LINE_CHARS if max_line is None else max_line
    mb = f"{max_bytes / 2**20:g} MB"
    try:
        # a pipe or a socket would block the open (or the read) for ever: not a record
        kind = os.stat(path).st_mode
        if stat.S_ISFIFO(kind) or stat.S_ISSOCK(kind):
            raise UserError(f"{path}: is a pipe or a socket, not a game record file")
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            if stat.S_ISDIR(st.st_mode):
                raise UserError(f"{path}: is a directory, not a game record")
            if stat.S_ISREG(st.st_mode) and st.st_size > max_bytes:
                raise UserError(f"{path}: {st.st_size / 2**20:.1f} MB is larger than a game "
                                f"record may be ({mb}); not read")
            chunks: list[bytes] = []
            total = 0
            n = 0
            while True:
                # A UTF-8 character is at most 4 bytes: a line of max_line characters fits.
                chunk = f.readline(4 * max_line + 2)
                if not chunk:
                    break
                n += 1
                total += len(chunk)
                if total > max_bytes:
                    raise UserError(f"{path}: larger than a game record may be ({mb}); "
                                    f"stopped reading at line {n}")
                if len(chunk) > 4 * max_line + 1 or (
                        len(chunk) > max_line and len(chunk.decode("utf-8", "replace")) > max_line + 1):
                    raise UserError(f"{path} line {n}: longer than {max_line:,} characters; "
                                    "not a game record line")
                chunks.append(chunk)
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    data = b"".join(chunks)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A power cut can leave a partial multi-byte character at the very end.
        text = data[:exc.start].decode("utf-8")
        if b"\n" in data[exc.start:]:
            line = data[:exc.start].count(b"\n") + 1
            raise UserError(f"{path} line {line}: byte {exc.start} is not UTF-8 text") from None
        return text + "\ufffd"


def run(args: argparse.Namespace) -> int:
    from engine.errors import RecordError
    from engine.record import parse_record, replay
    text = load_record_text(args.file)
    try:
        parsed = parse_record(text, args.file)
        game = parsed.entries[0].get("game", "board")
        if game == "stacks":
            from engine.stacks.record import replay as replay_stacks
            return _print_stacks(replay_stacks(parsed.entries, parsed.lines), parsed, args)
        result = replay(parsed)
    except RecordError as exc:
        msg = str(exc)
        raise UserError(msg if msg.startswith(args.file) else f"{args.file} {msg}") from None
    if args.json:
        json.dump(result.to_json(), sys.stdout)
        print()
    else:
        for step in result.steps:
            mark = "ok " if step.ok else "BAD"
            print(f"{step.line:5d} {mark} {step.kind:<11} {step.text}")
        print(f"result: {result.result}")
        if result.stopped:
            print(f"stopped: {result.stopped}")
    if not result.ok:
        print(f"seqboard: {args.file} {result.refusal}: refused: not a game the rules allow",
              file=sys.stderr)
        return 1
    return 0


def _print_stacks(steps: list[dict], parsed, args) -> int:
    ok = all(s.get("ok", True) for s in steps)
    if args.json:
        json.dump({"steps": steps, "stopped": parsed.stopped, "ok": ok}, sys.stdout)
        print()
    else:
        for s in steps:
            mark = "ok " if s.get("ok", True) else "BAD"
            print(f"{s.get('n', '')!s:>5} {mark} {s.get('text', '')}")
        if parsed.stopped:
            print(f"stopped: {parsed.stopped}")
    if not ok:
        bad = next(s for s in steps if not s.get("ok", True))
        print(f"seqboard: {args.file} line {bad.get('line', '?')}: {bad.get('text', '')}: "
              "refused: not a game the rules allow", file=sys.stderr)
        return 1
    return 0
