"""What the training commands share (``python -m vision.train_spaces``, ``python -m
vision.cards.train net`` and ``... mid``): their common options, the check that PyTorch is
there, progress on standard error, the ONNX export and the closing line. Training only:
nothing here is loaded to read a board or a card."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def parser(prog: str, description: str, examples: list[str]) -> argparse.ArgumentParser:
    return argparse.ArgumentParser(
        prog=prog, description=description,
        epilog="examples:\n" + "".join(f"  {e}\n" for e in examples),
        formatter_class=argparse.RawDescriptionHelpFormatter)


def add_common(ap: argparse.ArgumentParser, scenes: int, epochs: int, cache: Path, out: Path,
               scenes_help: str = "rendered scenes", threads: bool = True) -> None:
    """--seed, --scenes, --epochs, --jobs, (--threads,) --cache and --out."""
    ap.add_argument("--seed", type=int, default=1,
                    help="seed of the data and the training (default 1)")
    ap.add_argument("--scenes", type=int, default=scenes, help=f"{scenes_help} (default {scenes})")
    ap.add_argument("--epochs", type=int, default=epochs, help=f"passes over the data (default {epochs})")
    ap.add_argument("--jobs", type=int, default=2, help="processes rendering the data (default 2)")
    if threads:
        ap.add_argument("--threads", type=int, default=1,
                        help="torch threads (default 1: on a shared machine more spin and wait)")
    ap.add_argument("--cache", type=Path, default=cache,
                    help=f"where the generated data are kept (default {cache})")
    ap.add_argument("--out", type=Path, default=out, help=f"the model file (default {out})")


def need_torch(threads: int | None = None) -> bool:
    """Whether PyTorch can be imported (else says how to install it, on standard error)."""
    try:
        import torch
    except ImportError:
        print("error: training needs PyTorch: pip install -e '.[train]'", file=sys.stderr)
        return False
    if threads is not None:
        torch.set_num_threads(max(1, threads))
    return True


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def export_onnx(model, out: Path, shape: tuple[int, int, int], name: str) -> None:
    """``model`` to ONNX at ``out``: inputs ``name`` of ``shape`` (channels, height, width),
    any number of them."""
    import torch
    out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(2, *shape)
    kw = {"dynamo": False} if "dynamo" in torch.onnx.export.__code__.co_varnames else {}
    torch.onnx.export(model, dummy, str(out), input_names=[name], output_names=["logits"],
                      dynamic_axes={name: {0: "n"}, "logits": {0: "n"}}, opset_version=11,
                      do_constant_folding=True, **kw)


def saved(model, out: Path) -> None:
    params = sum(p.numel() for p in model.parameters())
    progress(f"saved {out}: {out.stat().st_size / 1024:.1f} KB, {params} parameters")
