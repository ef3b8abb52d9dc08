"""``seqboard replay FILE``: re-check a game record and print each verdict and the result."""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import UserError

EPILOG = """examples:
  seqboard replay records/2026-11-22-2014.jsonl
  seqboard replay --json game.jsonl | jq '.steps[] | select(.ok | not)'

exit status: 0 when every line checks out, 1 when a line breaks the rules or disagrees
with the verdict recorded, 2 when the file cannot be read as a record.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="re-check a game record move by move",
                       description="Re-check a game record (JSON Lines) against the rules and "
                                   "print each move's verdict and the result.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="the game record (.jsonl)")
    p.add_argument("--json", action="store_true", help="print the steps and result as JSON")
    p.set_defaults(func=run)


def load_record_text(path: str) -> str:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A power cut can leave a partial multi-byte character at the very end.
        text = data[:exc.start].decode("utf-8")
        if b"\n" in data[exc.start:]:
            raise UserError(f"{path}: byte {exc.start} is not UTF-8 text") from None
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
            return _print_stacks(replay_stacks(parsed.entries), parsed, args)
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
    return 0 if result.ok else 1


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
    return 0 if ok else 1
