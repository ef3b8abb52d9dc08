"""One module per ``seqboard`` sub-command.

Each module defines ``register(subparsers)``, which adds its parser and sets
``func=run`` with ``run(args) -> int``. Modules import their heavy dependencies
(OpenCV, pyserial, gpiozero) inside ``run`` so that ``seqboard --help`` starts fast.
"""
