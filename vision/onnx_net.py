"""Loading a small network shipped as an ONNX file, run through OpenCV's ``cv2.dnn`` (the
space classifier, vision/spacenet.py; the card reader, vision/cards/cardnet.py)."""

from __future__ import annotations

from pathlib import Path


def load_net(path: str | Path, what: str, retrain: str, error: type[Exception]):
    """The network in ``path`` ready to run on the CPU; ``error`` (one line naming the
    file, ``what`` it should be and the ``retrain`` command) when it is missing or OpenCV
    cannot read it."""
    import cv2
    path = Path(path)
    if not path.is_file():
        raise error(f"{path}: the {what}'s model file is missing (reinstall seqboard, or "
                    f"retrain: {retrain})")
    try:
        try:     # OpenCV 5: the classic engine runs these small networks faster
            net = cv2.dnn.readNetFromONNX(str(path), engine=cv2.dnn.ENGINE_CLASSIC)
        except (AttributeError, TypeError):
            net = cv2.dnn.readNetFromONNX(str(path))
    except cv2.error as exc:
        first = str(exc).strip().splitlines()[-1] if str(exc).strip() else "unreadable"
        raise error(f"{path}: not a {what} model OpenCV can read ({first})") from None
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
    return net
