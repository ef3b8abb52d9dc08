"""Shared by every test: the players' language is English unless a test chooses one."""

from __future__ import annotations

import os

import pytest

# ``ui.language = "auto"`` follows LANGUAGE/LANG: the tests read English on any machine
os.environ["LANGUAGE"] = "en"


@pytest.fixture(autouse=True)
def _language_back_to_english():
    yield
    from seqboard import i18n
    i18n.set_language(None)


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker more than the processors (``--maxprocesses`` still caps it).
    Some tests mostly wait (the matrix demo paced in real time, two boards over a broker
    with one stopped past its keep-alive, idle dashboard connections) and hold a worker
    while using little processor: a third worker on a two-core machine keeps both cores
    busy meanwhile (docs/testing.md)."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:                     # not on Linux
        n = os.cpu_count() or 1
    return n + 1
