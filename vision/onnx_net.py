"""Loading a small network shipped as an ONNX file, run through OpenCV's ``cv2.dnn`` (the
space classifier, vision/spacenet.py; the card reader, vision/cards/cardnet.py)."""

from __future__ import annotations

from pathlib import Path


def load_net(path: str | Path, what: str, retrain: str, error: type[Exception],
             classic: bool = True):
    """The network in ``path`` ready to run on the CPU; ``error`` (one line naming the
    file, ``what`` it should be and the ``retrain`` command) when it is missing or OpenCV
    cannot read it. ``classic``: on OpenCV 5.0, its classic engine (else the new one;
    5.1 has only the new one, 4.x only the classic)."""
    import cv2
    path = Path(path)
    if not path.is_file():
        raise error(f"{path}: the {what}'s model file is missing (reinstall seqboard, or "
                    f"retrain: {retrain})")
    try:
        try:     # OpenCV 5.0: the classic engine runs these small networks faster (5.1 has
            # only the new engine: the name is gone and the plain call below takes it)
            net = cv2.dnn.readNetFromONNX(str(path), engine=cv2.dnn.ENGINE_CLASSIC
                                          if classic else cv2.dnn.ENGINE_NEW)
        except (AttributeError, TypeError):
            net = cv2.dnn.readNetFromONNX(str(path))
    except cv2.error as exc:
        first = str(exc).strip().splitlines()[-1] if str(exc).strip() else "unreadable"
        raise error(f"{path}: not a {what} model OpenCV can read ({first})") from None
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
    return net


def has_two_engines() -> bool:
    """Whether this OpenCV offers both engines (5.0): a network the classic one cannot run
    (the board network's whole-board layer, on 5.0) is loaded again on the new one."""
    import cv2
    return hasattr(cv2.dnn, "ENGINE_CLASSIC") and hasattr(cv2.dnn, "ENGINE_NEW")


def _fields(buf: bytes):
    """The (field number, wire type, value) of one protobuf message: ints for varints,
    bytes for length-delimited fields (fixed-width fields are skipped as bytes)."""
    i, n = 0, len(buf)

    def varint():
        nonlocal i
        shift = value = 0
        while True:
            if i >= n:
                raise ValueError("cut off")
            b = buf[i]
            i += 1
            value |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return value
    while i < n:
        key = varint()
        field, wire = key >> 3, key & 7
        if wire == 0:
            yield field, wire, varint()
        elif wire == 2:
            size = varint()
            if i + size > n:
                raise ValueError("cut off")
            yield field, wire, buf[i:i + size]
            i += size
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            yield field, wire, buf[i:i + size]
            i += size
        else:
            raise ValueError(f"wire type {wire}")


def _first(buf: bytes, number: int) -> bytes | None:
    return next((v for f, w, v in _fields(buf) if f == number and w == 2), None)


def input_shape(path: str | Path) -> tuple | None:
    """The declared shape of an ONNX file's first graph input (ints, or None for a named or
    missing dimension), read from the file itself; None when it declares none or cannot be
    read. OpenCV 5.1's engine runs a network on an input of the wrong number of channels
    without a word, so a model named for another is told apart by what it declares."""
    try:
        graph = _first(Path(path).read_bytes(), 7)                    # ModelProto.graph
        inits = {bytes(_first(t, 8) or b"") for f, w, t in _fields(graph)   # initializers'
                 if f == 5 and w == 2}                                       # names
        for f, w, value in _fields(graph):
            if f != 11 or w != 2:                                     # GraphProto.input
                continue
            if bytes(_first(value, 1) or b"") in inits:               # an old exporter's
                continue                                              # weights as inputs
            tensor = _first(_first(value, 2) or b"", 1)               # TypeProto.tensor_type
            shape = _first(tensor or b"", 2)                          # .shape
            if shape is None:
                return None
            dims = []
            for g, gw, dim in _fields(shape):
                if g == 1 and gw == 2:
                    dims.append(next((v for h, hw, v in _fields(dim) if h == 1 and hw == 0),
                                     None))
            return tuple(dims)
    except (OSError, ValueError, TypeError):
        return None
    return None
