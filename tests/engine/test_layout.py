import pytest
from hypothesis import given, settings, strategies as st

from engine.editions import get_edition
from engine.errors import LayoutError
from engine.layout import parse_layout, read_layout_text

CLASSIC = get_edition("classic")


def classic_text():
    return read_layout_text("classic")[0]


def test_classic_layout_is_the_published_board():
    lay = CLASSIC.load_layout()
    assert (lay.rows, lay.cols) == (10, 10)
    assert lay.free == {0, 9, 90, 99}
    assert lay.symbols[1:5] == ("2S", "3S", "4S", "5S")
    assert all(len(v) == 2 for v in lay.spaces_of.values()) and len(lay.spaces_of) == 48
    assert lay.verified


@pytest.mark.parametrize("name", ["travel", "jewish"])
def test_unverified_layouts_say_so(name):
    lay = get_edition(name).load_layout()
    assert not lay.verified
    assert any("NOT VERIFIED" in c for c in lay.comments)


def test_travel_and_jewish_shapes():
    t = get_edition("travel").load_layout()
    assert (t.rows, t.cols, len(t.free), len(t.spaces_of)) == (7, 7, 1, 48)
    j = get_edition("jewish").load_layout()
    assert (j.rows, j.cols, len(j.free), len(j.spaces_of)) == (10, 10, 0, 50)


def test_row_of_wrong_length_names_its_line():
    lines = classic_text().splitlines()
    idx = next(i for i, ln in enumerate(lines) if ln.startswith("6C"))
    lines[idx] = lines[idx].rsplit(" ", 1)[0]
    with pytest.raises(LayoutError, match=rf"line {idx + 1}: 9 spaces in this row, expected 10"):
        parse_layout("\n".join(lines), "x.txt", symbols=CLASSIC.board_symbols(), copies=2)


def test_card_appearing_three_times_is_rejected():
    text = classic_text().replace("6C 5C 4C", "6C 6C 4C", 1)
    with pytest.raises(LayoutError, match="6C appears 3 times, expected 2"):
        parse_layout(text, "x.txt", symbols=CLASSIC.board_symbols(), copies=2)


def test_unknown_symbol_and_jack_rejected():
    text = classic_text().replace("QH TH TS", "QH JH TS", 1)
    with pytest.raises(LayoutError, match="unknown symbol 'JH'"):
        parse_layout(text, "x.txt", symbols=CLASSIC.board_symbols(), copies=2)


def test_wrong_number_of_rows():
    text = "\n".join(classic_text().splitlines()[:-1])
    with pytest.raises(LayoutError, match="9 rows, expected 10"):
        parse_layout(text, "x.txt", symbols=CLASSIC.board_symbols(), copies=2, rows=10)


def test_custom_symbols_and_free_marker():
    lay = parse_layout("% free **\n** A B\nB A **\n", "pics.txt")
    assert lay.free == {0, 5} and lay.spaces_of == {"A": (1, 4), "B": (2, 3)}


def test_unknown_directive():
    with pytest.raises(LayoutError, match="line 1: unknown directive 'size'"):
        parse_layout("% size 10\nA A\n")


def test_layout_text_round_trips():
    for name in ("classic", "travel", "jewish"):
        e = get_edition(name)
        lay = e.load_layout()
        again = parse_layout(lay.to_text(), f"{name}.txt", symbols=e.board_symbols(),
                             copies=e.copies_on_board)
        assert again.symbols == lay.symbols and again.free == lay.free
        assert again.verified == lay.verified


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("AB XX%#\nfreeverifiedno2S3S"), max_size=120))
def test_fuzz_layout_parser_rejects_or_round_trips(text):
    try:
        lay = parse_layout(text, "fuzz.txt")
    except LayoutError:
        return
    again = parse_layout(lay.to_text(), "fuzz.txt")
    assert (again.rows, again.cols, again.symbols, again.free) == (
        lay.rows, lay.cols, lay.symbols, lay.free)
