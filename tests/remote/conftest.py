import pytest

from .broker import Broker


@pytest.fixture
def broker(tmp_path):
    b = Broker(tmp_path / "broker").start() if (tmp_path / "broker").mkdir() is None else None
    yield b
    b.cleanup()
