"""Extract the messages of the terminal, the page and the voice, and keep the catalogs whole.

    python -m seqboard.i18n.catalogs update    # extract, write seqboard.pot, update every .po
    python -m seqboard.i18n.catalogs check     # what a catalog lacks (exit 1 if anything)

Messages come from the Python code (``_("...")`` where shown, ``N_("...")`` where defined:
the sentence templates of :mod:`seqboard.i18n.templates`), the engine's rule words
(``engine.moves.RULES``), the page's script (``_("...")`` in ``static/app.js``) and its
HTML (``data-i18n="..."`` attributes). A new message lands in every ``.po`` with an empty
translation; ``check`` (and tests/app/test_languages.py) fails until it is translated.
"""

from __future__ import annotations

import argparse
import html
import re
import string
import sys
from pathlib import Path

from . import DOMAIN, LANGUAGE_NAMES, LANGUAGES, LOCALE_DIR, po_path

PACKAGE = Path(__file__).resolve().parent.parent          # seqboard/
STATIC = PACKAGE / "dashboard" / "static"
#: files of seqboard/ that show or speak no words (the development tools are in tools/)
PY_SKIP: tuple[str, ...] = ()
HTML_ATTR = re.compile(r'data-i18n(?:-[a-z-]+)?="([^"]+)"')


def extract() -> dict[str, set[str]]:
    """msgid -> where it comes from (file names)."""
    from babel.messages.extract import extract_from_file
    from engine.moves import RULES
    found: dict[str, set[str]] = {}

    def add(msgid: str, where: str) -> None:
        if msgid:
            found.setdefault(msgid, set()).add(where)

    for py in sorted(PACKAGE.rglob("*.py")):
        if py.name in PY_SKIP or ".venv" in py.parts:
            continue
        marks = {"_": None, "N_": None}
        for _, msgid, _, _ in extract_from_file("python", str(py), keywords=marks):
            add(msgid if isinstance(msgid, str) else msgid[0], str(py.relative_to(PACKAGE)))
    for js in sorted(STATIC.glob("*.js")):
        for _, msgid, _, _ in extract_from_file("javascript", str(js), keywords={"_": None}):
            add(msgid if isinstance(msgid, str) else msgid[0], str(js.relative_to(PACKAGE)))
    for page in sorted(STATIC.glob("*.html")):
        for m in HTML_ATTR.finditer(page.read_text("utf-8")):
            add(html.unescape(m.group(1)), str(page.relative_to(PACKAGE)))
    for text in RULES.values():
        add(text, "engine/moves.py")
    return found


def template_catalog():
    from babel.messages.catalog import Catalog
    cat = Catalog(project="seqboard", domain=DOMAIN, charset="utf-8")
    for msgid, where in sorted(extract().items()):
        cat.add(msgid, locations=[(w, None) for w in sorted(where)],
                flags=("python-brace-format",) if "{" in msgid else ())
    return cat


def read(lang: str):
    from babel.messages.pofile import read_po
    path = po_path(lang)
    if not path.exists():
        from babel.messages.catalog import Catalog
        return Catalog(locale=lang, domain=DOMAIN, charset="utf-8")
    with open(path, "rb") as f:
        return read_po(f, locale=lang)


def write(cat, path: Path) -> None:
    from babel.messages.pofile import write_po
    path.parent.mkdir(parents=True, exist_ok=True)
    from importlib.metadata import PackageNotFoundError, version
    try:
        cat.version = version("seqboard")
    except PackageNotFoundError:
        cat.version = "0"
    cat.project = "seqboard"
    name = LANGUAGE_NAMES.get(str(cat.locale), "") if cat.locale is not None else ""
    cat.header_comment = (f"# seqboard: the messages of the terminal, the page and the voice"
                          f"{' in ' + name if name else ''}.\n"
                          f"# Update with: python -m seqboard.i18n.catalogs update "
                          f"(docs/languages.md)\n#")
    cat.copyright_holder = "the seqboard authors"
    cat.msgid_bugs_address = ""
    if cat.locale is not None:
        cat.fuzzy = False                   # the header: the catalog is in use
        cat.last_translator = "seqboard authors"
        cat.language_team = LANGUAGE_NAMES.get(str(cat.locale), str(cat.locale))
    with open(path, "wb") as f:
        write_po(f, cat, width=100, ignore_obsolete=True, sort_output=True)


def update() -> list[Path]:
    """Write seqboard.pot and bring every language's .po up to it (new messages empty)."""
    tmpl = template_catalog()
    written = [LOCALE_DIR / f"{DOMAIN}.pot"]
    if written[0].exists():
        from babel.messages.pofile import read_po
        with open(written[0], "rb") as f:
            old = read_po(f)
        if {m.id for m in old if m.id} == {m.id for m in tmpl if m.id}:
            tmpl.creation_date = old.creation_date      # nothing new: no change to commit
    write(tmpl, written[0])
    for lang in LANGUAGES:
        if lang == "en":
            continue
        cat = read(lang)
        cat.update(tmpl, no_fuzzy_matching=True)
        write(cat, po_path(lang))
        written.append(po_path(lang))
    return written


def fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def problems(lang: str, wanted: set[str] | None = None) -> list[str]:
    """What the catalog of ``lang`` lacks: missing, empty or fuzzy translations, and
    translations whose ``{parameters}`` differ from the message's."""
    wanted = set(extract()) if wanted is None else wanted
    cat = read(lang)
    out = []
    for msgid in sorted(wanted):
        m = cat.get(msgid)
        if m is None:
            out.append(f"{lang}: missing {msgid!r}")
        elif not m.string or not str(m.string).strip():
            out.append(f"{lang}: empty {msgid!r}")
        elif m.fuzzy:
            out.append(f"{lang}: fuzzy {msgid!r}")
        elif fields(msgid) != fields(str(m.string)):
            out.append(f"{lang}: {msgid!r} has {sorted(fields(msgid))}, the translation "
                       f"{sorted(fields(str(m.string)))}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m seqboard.i18n.catalogs",
        description="Extract the messages and keep the catalogs of every language whole. "
                    "Example: python -m seqboard.i18n.catalogs update")
    ap.add_argument("what", choices=("update", "check"),
                    help="update: extract and update every .po; check: list what is missing")
    args = ap.parse_args(argv)
    if args.what == "update":
        for p in update():
            print(f"wrote {p}")
    wanted = set(extract())
    bad = [p for lang in LANGUAGES if lang != "en" for p in problems(lang, wanted)]
    for line in bad:
        print(line)
    print(f"{len(wanted)} messages, {len(LANGUAGES) - 1} catalogs: "
          + (f"{len(bad)} to translate" if bad else "complete"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
