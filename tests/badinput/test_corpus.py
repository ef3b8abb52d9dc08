"""Every case of the bad-input corpus (``cases.py``): a clear error naming the file, key,
argument or byte; a non-zero exit; no traceback; nothing lost."""

from __future__ import annotations

import pytest

from .cases import all_cases, run_case, snapshot, verify

CASES = all_cases()


def _param(case):
    marks = [pytest.mark.xfail(reason=case.xfail, strict=True)] if case.xfail else []
    return pytest.param(case, id=case.id, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_bad_input(case, tmp_path):
    d = tmp_path / "case"
    from .cases import materialise
    if case.keep:
        materialise(case, d)
        before = snapshot(case, d)
        import shutil
        shutil.rmtree(d)
    else:
        before = {}
    res = run_case(case, d)
    problems = verify(case, res, d, before)
    assert not problems, "\n".join(problems)


def test_the_corpus_is_large_and_covers_every_kind_of_input():
    groups = {c.group for c in CASES}
    assert {"config", "calibration", "record", "layout", "deck", "image", "cli", "frame"} <= groups
    assert len(CASES) >= 220
    assert len({c.id for c in CASES}) == len(CASES), "case ids must be unique"
