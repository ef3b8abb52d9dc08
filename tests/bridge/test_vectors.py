"""The shared test vectors: the host codec and the firmware's own agree on every frame."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import firmware_bridge
from firmware_bridge import protocol as P
from firmware_bridge.vectors.make_vectors import vectors

ROOT = Path(firmware_bridge.__file__).parent
sys.path.insert(0, str(ROOT / "firmware"))
import proto  # noqa: E402  the firmware's module, under CPython

VECTORS = json.loads((ROOT / "vectors" / "frames.json").read_text())


def test_vectors_file_is_current():
    assert VECTORS == json.loads(json.dumps(vectors())), \
        "frames.json is stale: python -m firmware_bridge.vectors.make_vectors"


@pytest.mark.parametrize("v", VECTORS["valid"], ids=[v["name"] for v in VECTORS["valid"]])
def test_host_decodes_each_vector_to_its_meaning(v):
    raw = bytes.fromhex(v["hex"])
    frames = P.Decoder().feed(raw)
    assert len(frames) == 1
    f = frames[0]
    assert (f.kind, f.seq, f.payload.hex()) == (v["kind"], v["seq"], v["payload"])
    n = len(f.payload) - 4 if f.kind == P.STATE else 100
    assert P.describe(f, n) == v["meaning"]
    assert f.encode() == raw


@pytest.mark.parametrize("v", VECTORS["valid"], ids=[v["name"] for v in VECTORS["valid"]])
def test_firmware_builds_and_parses_each_vector(v):
    raw = bytes.fromhex(v["hex"])
    assert proto.build(v["kind"], v["seq"], bytes.fromhex(v["payload"])) == raw
    blocks = proto.Deframer().feed(raw)
    assert len(blocks) == 1
    kind, seq, payload = proto.parse(blocks[0])
    assert (kind, seq, bytes(payload).hex()) == (v["kind"], v["seq"], v["payload"])


@pytest.mark.parametrize("v", VECTORS["invalid"], ids=[v["name"] for v in VECTORS["invalid"]])
def test_both_sides_refuse_each_invalid_vector(v):
    raw = bytes.fromhex(v["hex"])
    d = P.Decoder()
    assert d.feed(raw) == [] and d.rejected == 1 and v["error"] in d.last_error
    for block in proto.Deframer().feed(raw):
        assert proto.parse(block)[0] is None
