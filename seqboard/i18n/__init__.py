"""The players' languages: every sentence the terminal, the page and the voice show, in
the language of the table (``ui.language``, else the environment's, else English).

The engine and the session keep writing English (it is what the game record holds, and
what the tests of the rules read). Each English sentence follows one of the templates of
:mod:`seqboard.i18n.templates` (``"{team} places on {space} ({card})"``); :func:`parse`
recognises the template and its named parameters, and :func:`render` says the same in
another language from the gettext catalogs in ``seqboard/i18n/locale`` (``.po`` files,
compiled in memory at first use with Babel). Parameters keep their identifiers (space
names such as ``e5``, card codes such as ``5H``); colour names, rules and whole nested
sentences are translated too. The voice names the cards in words (:func:`card_words`).

A sentence that follows no template is shown as it is, in English: a test plays games and
fails on any sentence shown that no template covers (tests/app/test_languages.py).
"""

from __future__ import annotations

import functools
import gettext
import io
import os
import re
import string
from dataclasses import dataclass
from pathlib import Path

LANGUAGES = ("en", "cs", "it", "es", "pl", "fr", "nl", "de")
#: each language's own name (the page's language menu, docs)
LANGUAGE_NAMES = {"en": "English", "cs": "čeština", "it": "italiano", "es": "español",
                  "pl": "polski", "fr": "français", "nl": "Nederlands", "de": "Deutsch"}
DOMAIN = "seqboard"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

_language = "en"
_configured: str | None = None      # ui.language when not auto: the page follows it too


def N_(text: str) -> str:
    """Marks a message for the catalogs where it is defined; translated where shown."""
    return text


# --- choosing the language ------------------------------------------------------------------
def supported(code: str | None) -> str | None:
    """``"de_AT.UTF-8"`` / ``"de-AT"`` / ``"DE"`` -> ``"de"``; None when not one of ours."""
    if not code:
        return None
    base = re.split(r"[-_.@]", code.strip().lower(), maxsplit=1)[0]
    return base if base in LANGUAGES else None


def from_environment(env: dict | None = None) -> str:
    """The language gettext would pick: LANGUAGE (a list), LC_ALL, LC_MESSAGES, LANG."""
    env = os.environ if env is None else env
    for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(key)
        if not value:
            continue
        for part in value.split(":"):
            found = supported(part)
            if found:
                return found
        if key != "LANGUAGE":
            return "en"            # the first locale variable set decides (C, POSIX: English)
    return "en"


def resolve(setting: str | None) -> str:
    """``ui.language``: one of :data:`LANGUAGES`, or ``auto`` (the environment's)."""
    if setting and setting != "auto":
        found = supported(setting)
        if found:
            return found
    return from_environment()


def set_language(setting: str | None) -> str:
    """Make ``setting`` (``ui.language``) the language of what this process shows."""
    global _language, _configured
    _language = resolve(setting)
    _configured = supported(setting) if setting and setting != "auto" else None
    return _language


def language() -> str:
    """The language of what this process shows (terminal, voice)."""
    return _language


def configured() -> str | None:
    """``ui.language`` when set to a language (the page then follows it), else None."""
    return _configured


# --- catalogs ---------------------------------------------------------------------------------
def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.lru_cache(maxsize=None)
def translations(lang: str) -> gettext.NullTranslations:
    """The catalog of ``lang``: its ``.po`` compiled in memory (Babel), or English."""
    if lang == "en" or not po_path(lang).exists():
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    with open(po_path(lang), "rb") as f:
        catalog = read_po(f, locale=lang)
    buf = io.BytesIO()
    write_mo(buf, catalog, use_fuzzy=False)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


def gettext_(text: str, lang: str | None = None) -> str:
    return translations(lang or _language).gettext(text)


_ = gettext_


def catalog_json(lang: str) -> dict[str, str]:
    """The translated messages of ``lang`` (msgid -> text), for the page."""
    t = translations(supported(lang) or "en")
    return dict(getattr(t, "_catalog", {})) if isinstance(t, gettext.GNUTranslations) else {}


# --- messages: a template and its parameters --------------------------------------------------
@dataclass(frozen=True)
class Msg:
    """A sentence: its template (the msgid) and named parameters, each a plain string (an
    identifier, kept) or a nested :class:`Msg` (translated)."""

    msgid: str
    params: tuple[tuple[str, "str | Msg"], ...] = ()

    def english(self) -> str:
        return render(self, "en")

    def to_json(self) -> dict:
        return {"m": self.msgid,
                "p": {k: (v.to_json() if isinstance(v, Msg) else v) for k, v in self.params}}

    def leaves(self) -> list[str]:
        """The English text left untranslated inside (a free text no template covered)."""
        out = []
        for _, v in self.params:
            if isinstance(v, Msg):
                out += v.leaves()
        return out


@dataclass(frozen=True)
class Literal(Msg):
    """Text no template covers: shown as it is."""

    def leaves(self) -> list[str]:
        return [self.msgid]

    def to_json(self) -> dict:
        return {"t": self.msgid}


@dataclass(frozen=True)
class Joined(Msg):
    """A list of sentences: ``msgid`` is what joins them (``", then "``)."""

    def to_json(self) -> dict:
        return {"j": self.msgid, "l": [v.to_json() for _, v in self.params]}


def render(msg: "Msg | str", lang: str | None = None) -> str:
    """``msg`` in ``lang`` (default: the language set)."""
    lang = lang or _language
    if isinstance(msg, str):
        return msg
    if isinstance(msg, Literal):
        return msg.msgid
    if isinstance(msg, Joined):
        joiner = translations(lang).gettext(msg.msgid) if msg.msgid.strip(", ;") else msg.msgid
        return joiner.join(render(v, lang) for _, v in msg.params)
    template = translations(lang).gettext(msg.msgid) if lang != "en" else msg.msgid
    values = {k: render(v, lang) for k, v in msg.params}
    try:
        return template.format_map(values)
    except (KeyError, IndexError, ValueError):
        return msg.msgid.format_map(values)       # a broken translation: the English


def tr(text: str, lang: str | None = None) -> str:
    """An English sentence of the game in ``lang`` (the language set by default)."""
    lang = lang or _language
    if lang == "en" or not text:
        return text
    if "\n" in text:
        return "\n".join(tr(line, lang) for line in text.split("\n"))
    return render(parse(text), lang)


# --- recognising a sentence by its template ---------------------------------------------------
SPACE = r"[a-z][0-9]{1,2}"
#: the shape of each kind of parameter, by its name; any other name is a nested sentence
KINDS = {
    "team": "colour", "owner": "colour", "winner": "colour", "colour": "colour",
    "digit": r"[1-5]", "b": r"[0-9]+", "r": r"[0-9]+", "seats": r"[0-9]+(?:, [0-9]+)*",
    "space": SPACE, "spaces": rf"{SPACE}(?:, {SPACE})*", "where": rf"{SPACE}|\?",
    "card": r"\S+", "symbol": r"\S+", "cards": r"\S+(?: \S+)*",
    "n": r"[0-9]+", "i": r"[0-9]+", "back": r"[0-9]+", "pct": r"[0-9]+", "need": r"[0-9]+",
    "seqs": rf"{SPACE}-{SPACE}(?:,? {SPACE}-{SPACE})*", "column": r"[a-z]",
    "board": r"[A-Za-z0-9_-]+", "name": r".+", "error": r".+", "raw": r".+", "port": r".+", "path": r".+",
}
#: parameters of a fixed shape that are words all the same (said in the language)
SHAPED = {"card_name": r"(?:blue|red) (?:[1-5]|wild)|Skip|Reverse|Steal a Card|Steal a Chip|Block"
                       r"|a hidden card",
          "who": r"player [0-9]+"}
#: parameters that hold lists of sentences, and what joins them (translated: ", then ")
LISTS = {"todo": ", ", "steps": N_(", then "), "items": ", ", "problems": "; ",
         "states": N_(" and "), "reasons": "; "}


@functools.lru_cache(maxsize=1)
def _compiled() -> list[tuple[str, re.Pattern, tuple[str, ...]]]:
    from .templates import TEMPLATES
    out = []
    for t in TEMPLATES:
        pattern, names = "", []
        for lit, field, _, _ in string.Formatter().parse(t):
            pattern += re.escape(lit)
            if field is None:
                continue
            kind = KINDS.get(field.rstrip("0123456789"), "text")
            kind = SHAPED.get(field.rstrip("0123456789"), kind)
            if kind == "colour":
                kind = "blue|green|red"
            elif kind == "text":
                kind = ".+?"
            pattern += f"(?P<{field}>{kind})"
            names.append(field)
        out.append((t, re.compile(pattern, re.S), tuple(names)))
    # the most specific first: more fixed words, then fewer free parameters
    out.sort(key=lambda x: -len(re.sub(r"\{[^}]*\}", "", x[0])))
    return out


def _param(name: str, value: str, depth: int) -> "str | Msg":
    kind = KINDS.get(name.rstrip("0123456789"), "text")
    if kind == "colour":
        return Msg(value)
    if kind != "text" and name.rstrip("0123456789") not in SHAPED:
        return value
    if re.fullmatch(KINDS["spaces"], value):
        return value        # a list of spaces said as a sentence ("{spaces} or {space}")
    joiner = LISTS.get(name.rstrip("0123456789"))
    if joiner and joiner in value:
        return Joined(joiner, tuple((str(k), _parse(p, depth + 1))
                                    for k, p in enumerate(value.split(joiner))))
    return _parse(value, depth + 1)


def _parse(text: str, depth: int) -> Msg:
    from .templates import PLAIN
    if text in PLAIN:
        return Msg(text)
    if depth > 6:
        return Literal(text)
    best: Msg | None = None
    best_left = None
    for template, rx, names in _compiled():
        m = rx.fullmatch(text)
        if m is None:
            continue
        msg = Msg(template, tuple((n, _param(n, m.group(n), depth)) for n in names))
        if not re.sub(r"\{[^}]*\}|[\W_]", "", template) and \
                all(isinstance(v, Literal) for _n, v in msg.params):
            continue        # "{a}: {b}" with nothing known inside: not ours (or said already)
        left = sum(len(x) for x in msg.leaves())
        if best is None or left < best_left:
            best, best_left = msg, left
            if left == 0:
                break
    return best if best is not None else Literal(text)


@functools.lru_cache(maxsize=4096)
def parse(text: str) -> Msg:
    """The template and parameters of an English sentence of the game (a :class:`Literal`
    when no template covers it)."""
    return _parse(text, 0)


def words(text: str) -> dict:
    """``parse(text)`` as JSON, for the page."""
    return parse(text).to_json()


# --- cards in words (the voice) ---------------------------------------------------------------
RANKS = {"A": N_("ace"), "K": N_("king"), "Q": N_("queen"), "J": N_("jack"), "T": N_("ten"),
         "10": N_("ten"), "9": N_("nine"), "8": N_("eight"), "7": N_("seven"), "6": N_("six"),
         "5": N_("five"), "4": N_("four"), "3": N_("three"), "2": N_("two")}
SUITS = {"S": N_("spades"), "H": N_("hearts"), "D": N_("diamonds"), "C": N_("clubs")}
CARD = re.compile(r"\b(10|[AKQJT2-9])([SHDC])\b")


def card_words(code: str, lang: str | None = None) -> str:
    """``"5H"`` -> ``"five of hearts"`` / ``"Herz Fünf"`` (a code it does not know: as is)."""
    m = CARD.fullmatch(code)
    if not m:
        return code
    t = translations(lang or _language)
    return t.gettext(N_("{rank} of {suit}")).format(rank=t.gettext(RANKS[m.group(1)]),
                                                    suit=t.gettext(SUITS[m.group(2)]))


def cards_in_words(text: str, lang: str | None = None) -> str:
    """Every card code in ``text`` as words (for the voice)."""
    return CARD.sub(lambda m: card_words(m.group(0), lang), text)


#: espeak-ng's voice for each language (``espeak-ng --voices``)
ESPEAK = {"en": "en", "cs": "cs", "it": "it", "es": "es", "pl": "pl", "fr": "fr", "nl": "nl",
          "de": "de"}


def espeak_voice(voice_name: str, lang: str | None = None) -> str:
    """``ui.voice_name``, unless it is the default ``en`` and the language is another: then
    that language's espeak-ng voice."""
    lang = lang or _language
    if voice_name == "en" and lang != "en":
        return ESPEAK.get(lang, voice_name)
    return voice_name
