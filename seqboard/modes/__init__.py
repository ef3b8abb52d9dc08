"""What a mode needs beyond the referee's loop: the Pi's seats (``computer``), SEQUENCE
STACKS at the table (``stacks``), the first-run guide (``setup``)."""
