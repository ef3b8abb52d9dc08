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
