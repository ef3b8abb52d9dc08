"""Issue 22: the players' languages. Every message of the terminal, the page and the voice
comes from gettext catalogs shipped for en, cs, it, es, pl, fr, nl and de, chosen by
``ui.language`` (or the system's, or on the page the browser's)."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import wave

import pytest

from engine.observation import SpaceState
from seqboard import i18n
from seqboard.i18n import catalogs
from seqboard.indicators.terminal import TerminalIndicator, status_line
from seqboard.indicators.voice import Voice, VoiceIndicator, speakable

from .helpers import write_config
from .test_undo_play import _Game, _to_the_proposal

OTHERS = [lang for lang in i18n.LANGUAGES if lang != "en"]


# --- the catalogs -----------------------------------------------------------------------------
def test_every_catalog_holds_every_message_translated():
    wanted = set(catalogs.extract())
    # what the extraction must find: the engine's rule words, the terminal's, the page's
    from engine.moves import RULES
    assert set(RULES.values()) <= wanted
    assert {"move {n}: {team} to play", "Sequences", "{team} to play", "hint: {play}, {reason}",
            "{team} places on {space} ({card})", "{rank} of {suit}"} <= wanted
    assert len(wanted) > 150
    for lang in OTHERS:
        assert catalogs.problems(lang, wanted) == [], f"catalog {lang} is not whole"


def test_a_catalog_that_lacks_a_message_fails(tmp_path, monkeypatch):
    """The check above can fail: a message dropped, emptied, marked fuzzy or with another
    parameter is reported by name."""
    for lang in ("cs", "de"):
        dest = tmp_path / lang / "LC_MESSAGES"
        dest.mkdir(parents=True)
        shutil.copy(i18n.po_path(lang), dest)
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    cs = i18n.po_path("cs")
    text = cs.read_text("utf-8")
    text = re.sub(r'msgid "Sequences"\nmsgstr "[^"]*"\n', "", text)
    text = text.replace('msgstr "Hráči"', 'msgstr ""')
    cs.write_text(text, "utf-8")
    de = i18n.po_path("de")
    de.write_text(de.read_text("utf-8").replace('msgstr "{team} setzt auf {space} ({card})"',
                                                'msgstr "{team} setzt auf {feld} ({card})"'),
                  "utf-8")
    wanted = set(catalogs.extract())
    assert catalogs.problems("cs", wanted) == ["cs: empty 'Players'", "cs: missing 'Sequences'"]
    bad = catalogs.problems("de", wanted)
    assert len(bad) == 1 and "{team} places on {space} ({card})" in bad[0]
    # the command says so too, and fails
    assert catalogs.main(["check"]) == 1


def test_the_catalogs_are_package_data():
    """A wheel carries the .po files (pyproject's package data), read where they are."""
    import tomllib
    from pathlib import Path
    data = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    globs = data["tool"]["setuptools"]["package-data"]["seqboard"]
    assert "i18n/locale/*/LC_MESSAGES/*.po" in globs
    for lang in OTHERS:
        assert i18n.po_path(lang).is_file()


# --- the game's sentences --------------------------------------------------------------------
def _sentences(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        m = re.match(r"\[\s*\d+\] (?:WARNING |ok: |\*\*\* |SENSING )?(.*)$", line)
        if m:
            out.append(m.group(1))
    return out


def _uncovered(texts) -> list[str]:
    return [f"{t!r}: {i18n.parse(t).leaves()}" for t in texts if i18n.parse(t).leaves()]


def test_every_sentence_of_a_demo_game_has_its_template(tmp_path, capsys):
    """A sentence the engine or the session writes that no template covers would be shown
    in English to a Czech table: a whole demo game (mistakes, warnings, sequences, the
    end) is said in full."""
    from seqboard.cli import main
    code = main(["demo", "--fast", "--seed", "5", "--source", "direct", "--records",
                 str(tmp_path / "r"), "--config", str(write_config(tmp_path)), "--no-dashboard",
                 "--new"])
    out = capsys.readouterr().out
    assert code == 0
    texts = _sentences(out)
    assert len(texts) > 40 and any("completes" in t for t in texts)
    assert _uncovered(texts) == []


def test_every_sentence_of_play_with_undo_hints_and_trades_has_its_template(tmp_path):
    g = _Game(tmp_path)
    _to_the_proposal(g)
    s = g.session
    g.key("u")                                     # an undo with the Pi's move pending
    g.put("d4", SpaceState.EMPTY)
    g.put("h8", SpaceState.BLUE)
    s.hint(["5H", "TD", "JS"])
    g.put("b2", SpaceState.BLUE)                   # out of turn: a warning, then put right
    g.put("b2", SpaceState.EMPTY)
    s.lost_draw()
    s.toggle_dead()
    s.toggle_dead()
    texts = [line["text"] for line in s.view()["log"]]
    kinds = {line["kind"] for line in s.view()["log"]}
    assert {"undo", "hint", "violation", "cleared", "proposal", "placement"} <= kinds
    assert _uncovered(texts) == []
    # every hint's move and reason too
    assert _uncovered([h["reason"] for h in s.hints] + [h["move"] for h in s.hints]) == []


def test_sentences_are_said_with_their_parameters_in_place():
    t = "blue places on e5 (5H): completes 1 sequence a5-e5; blue wins"
    assert i18n.tr(t, "de") == "Blau setzt auf e5 (5H): vollendet 1 Sequenz a5-e5; Blau gewinnt"
    assert i18n.tr(t, "cs") == \
        "modří kladou na e5 (5H): dokončuje 1 sekvenci a5-e5; vyhrávají modří"
    w = ("illegal: a chip of a team whose turn it is not (it is green's turn) at b2; "
         "to put right: take the chip off b2, put blue back on e5")
    assert i18n.tr(w, "it") == ("non valido: un segnalino di una squadra che non è di turno "
                                "(tocca a verde) in b2; per rimediare: togli il segnalino da b2, "
                                "rimetti blu su e5")
    # English stays exactly what the engine wrote; an unknown sentence is shown as it is
    assert i18n.tr(t, "en") == t
    assert i18n.tr("something new", "pl") == "something new"


def test_card_names_follow_the_language():
    assert i18n.card_words("5H", "en") == "five of hearts"
    assert i18n.card_words("JC", "de") == "Kreuz Bube"
    assert i18n.card_words("TS", "fr") == "dix de pique"
    assert i18n.card_words("QD", "pl") == "dama karo"
    assert i18n.card_words("AS", "es") == "as de picas"
    assert i18n.card_words("KH", "it") == "re di cuori"
    assert i18n.card_words("5H", "cs") == "pětka srdcí"
    assert i18n.card_words("2C", "nl") == "klaveren twee"


def test_the_language_is_chosen_by_ui_language_then_the_system():
    assert i18n.resolve("de") == "de"
    env = {"LANG": "pl_PL.UTF-8"}
    assert i18n.from_environment(env) == "pl"
    assert i18n.from_environment({"LANGUAGE": "sv:fr", "LANG": "pl_PL.UTF-8"}) == "fr"
    assert i18n.from_environment({"LC_ALL": "C", "LANG": "de_DE.UTF-8"}) == "en"
    assert i18n.from_environment({}) == "en"


def test_a_language_not_shipped_is_a_clear_config_error(tmp_path):
    from seqboard.errors import UserError
    from seqboard.settings import load
    with pytest.raises(UserError) as err:
        load(str(write_config(tmp_path, ui={"language": "sv"})))
    assert "ui.language" in str(err.value) and "cs" in str(err.value)


# --- the terminal -------------------------------------------------------------------------------
def _run_demo(tmp_path, language=None, env_lang=None):
    cfg = write_config(tmp_path, ui={"language": language} if language else {})
    env = dict(os.environ)
    env.pop("LANGUAGE", None)
    env["LANG"] = env_lang or "C.UTF-8"
    done = subprocess.run([sys.executable, "-m", "seqboard", "demo", "--fast", "--seed", "3",
                           "--source", "direct", "--records", str(tmp_path / "r"), "--config",
                           str(cfg), "--no-dashboard", "--new"],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_terminal_speaks_czech_with_ui_language(tmp_path):
    out = _run_demo(tmp_path, language="cs")
    # the demo's deliberate mistake, its verdict and its warning, in Czech
    assert ("VAROVÁNÍ nepovoleno: žeton týmu, který není na tahu (na tahu jsou modří) na c6; "
            "náprava: sundejte žeton z c6") in out
    assert "zelení (počítač) hrají" in out
    assert "VAROVÁNÍ to není tah počítače: hraje 8H a klade žeton na d7; opravte desku" in out
    assert re.search(r"dokončuje 1 sekvenci [a-j]\d+-[a-j]\d+", out)
    assert "vyhrávají modří | sekvence: modří 2" in out and "mrtvé karty:" in out
    assert "WARNING" not in out and "illegal" not in out and " places on " not in out


def test_the_terminal_speaks_german_from_the_system_language(tmp_path):
    out = _run_demo(tmp_path, env_lang="de_DE.UTF-8")
    assert ("WARNUNG unzulässig: ein Chip eines Teams, das nicht am Zug ist (Blau ist am Zug) "
            "auf c6; zum Richten: den Chip von c6 nehmen") in out
    assert "Blau gewinnt | Sequenzen: Blau 2" in out
    assert "illegal" not in out
    # and the game record keeps the engine's English (what replays and tests read)
    from pathlib import Path
    record = next(Path(tmp_path / "r").glob("*.jsonl")).read_text("utf-8")
    assert "illegal: a chip of a team whose turn it is not" in record and "unzulässig" not in record


def test_the_live_terminal_and_the_hints_in_german(tmp_path):
    g = _Game(tmp_path)
    i18n.set_language("de")
    out = io.StringIO()
    g.session.subscribe(TerminalIndicator(out, live=True, colour=False))
    g.pi.hands[1] = ["AH"]
    g.put("e5", SpaceState.BLUE)
    g.session.hint(["5H", "TD", "JS"])
    screen = out.getvalue()
    assert "Zug des Computers: Grün (Computer) spielt AH auf g5" in screen
    assert "Blau setzt auf e5 (5H)" in screen
    assert status_line(g.session.view()).startswith("Zug 2: Grün ist am Zug | Sequenzen: Blau 0")
    hints = [i18n.tr(line["text"]) for line in g.session.log if line["kind"] == "hint"]
    assert hints and all(re.match(r"Tipp \d für Grün: (setze|entferne) \S+ [a-j]\d+ \(.+\)$", h)
                         for h in hints), hints


# --- the voice ----------------------------------------------------------------------------------
def test_the_voice_says_cards_in_the_language():
    assert speakable("blue (computer) plays JC on e5", "de") == \
        "Blau Computer spielt Kreuz Bube auf e5"
    assert speakable("green places on d10 (TS); green wins", "fr") == \
        "vert pose sur d10 dix de pique, vert gagne"
    assert i18n.espeak_voice("en", "cs") == "cs"
    assert i18n.espeak_voice("mb-de1", "de") == "mb-de1"       # a chosen voice stays
    assert i18n.espeak_voice("en", "en") == "en"


def test_the_voice_speaks_czech_through_espeak_ng(tmp_path):
    """ui.language = "cs": the verdicts are spoken in Czech by espeak-ng's Czech voice
    (chosen from the language), rendered to WAV files that are not silence."""
    if shutil.which("espeak-ng") is None:
        pytest.fail("the voice tests need espeak-ng: sudo apt-get install -y espeak-ng")
    from .test_voice import rms
    g = _Game(tmp_path)
    i18n.set_language("cs")
    voice = Voice(voice=i18n.espeak_voice("en"), wav_dir=tmp_path)
    assert voice.voice == "cs"
    g.session.subscribe(VoiceIndicator(voice))
    g.pi.hands[1] = ["AH"]
    g.put("e5", SpaceState.BLUE)
    g.put("h8", SpaceState.GREEN)
    voice.close()
    assert voice.enabled, "espeak-ng has no Czech voice"
    assert voice.spoken[:3] == ["modří kladou na e5 pětka srdcí",
                                "zelení počítač hrají eso srdcí na g5: obsazuje g5",
                                "to není tah počítače: hraje eso srdcí a klade žeton na g5, "
                                "opravte desku"]
    for path in voice.files[:3]:
        with wave.open(str(path)) as w:
            assert w.getnframes() / w.getframerate() > 0.8
        assert rms(path) > 300, f"{path.name} is silence"


def test_the_keys_help_in_the_language():
    from seqboard.loop import Commands, read_keys
    i18n.set_language("es")
    out = io.StringIO()
    read_keys(lambda: None, Commands(), io.StringIO("?\na\n"), out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("teclas: u deshacer la última jugada, c confirmar el aviso")
    assert lines[1] == "no hay página en esta ejecución" or lines[1].startswith("dashboard")


def test_every_message_the_page_script_marks_is_extracted():
    """Babel's JavaScript extractor must see every _("...") of app.js (a miss would leave
    the page in English without a catalog test failing)."""
    import json
    from pathlib import Path
    js = (Path(catalogs.STATIC) / "app.js").read_text("utf-8")
    marked = {json.loads(f'"{m}"') for m in re.findall(r'\b_\("((?:[^"\\]|\\.)*)"\)', js)}
    marked.discard("...")                              # the comment that explains _()
    assert len(marked) > 30
    assert marked - set(catalogs.extract()) == set()


# --- SEQUENCE STACKS ----------------------------------------------------------------------------
def _stacks_game(seed, seats):
    import random

    from engine.stacks import StacksGame
    from seqboard.modes.stacks import StacksTable
    g = StacksGame(len(seats), rng=random.Random(seed))
    out = io.StringIO()
    t = StacksTable(g, seats, out, seed=seed)
    t.run_computers(limit=5000)
    return g, out.getvalue()


def test_every_sentence_of_stacks_games_has_its_template():
    seen = 0
    for seed, seats in ((1, ["greedy", "greedy"]), (2, ["medium", "greedy", "easy"]),
                        (3, ["random", "greedy", "random", "easy"])):
        g, out = _stacks_game(seed, seats)
        assert g.over
        # the table's own lines (piles, tops, chips, to play) are translated where written
        lines = [ln for ln in out.splitlines()
                 if not re.match(r"(piles|discard tops|chips|to play): ", ln)]
        seen += len(lines)
        assert _uncovered(lines + g.log) == []
    assert seen > 100


def test_stacks_at_the_terminal_in_french():
    i18n.set_language("fr")
    g, out = _stacks_game(2, ["greedy", "medium", "easy"])
    assert "Pi : joueur 1 joue Passer un tour : le joueur suivant passe son tour" in out
    assert re.search(r"^à jouer : joueur \d \(Pi\)$", out, re.M)
    assert re.search(r"^PARTIE TERMINÉE : joueur \d gagne avec \d jetons bleus et \d rouges$",
                     out, re.M)
    assert " plays " not in out and "GAME OVER" not in out


def test_the_sensings_and_remote_plays_sentences_too():
    assert i18n.tr("e5 keeps changing between empty and blue: check the light there", "de") == \
        "e5 wechselt ständig zwischen leer und Blau: dort das Licht prüfen"
    assert i18n.tr("bob-1 (blue) holds no card to place at c4 (hand: 5H TD): take the chip back",
                   "it") == ("bob-1 (blu) non ha carte per piazzare su c4 (mano: 5H TD): "
                             "riprendi il segnalino")
    assert i18n.tr("the matrix board is not answering (closed); reconnecting, nothing is judged "
                   "until it is back", "nl") == ("het matrixbord antwoordt niet (closed); opnieuw "
                                                 "verbinden, niets wordt beoordeeld tot het terug is")


def test_every_sentence_of_judging_with_cards_has_its_template(tmp_path):
    """A table judging chips with the cards laid hears every verdict in its language: a
    wrong space, a chip before its card, an unreadable card, a card out of turn, a dead card
    traded and one that was not dead."""
    from .test_card_judging import make, name_of, put
    s, _path, _ = make(tmp_path)
    r = s.referee
    s.lay_card("5H", 0, via="camera")
    s.observe(put(s, name_of(s, "5D")))                 # the 5D, not the 5H: a violation
    s.observe(r.expected())
    s.observe(put(s, name_of(s, "5H", 1)))
    s.observe(put(s, name_of(s, "QD")))                  # a chip before its card: waits
    s.lay_card("QD", 1, via="typed")
    s.lay_card(None, 0, via="camera")                    # unreadable: typed or tapped
    s.lay_card("2C", 0, via="page")
    s.lay_card("7S", 0, via="camera")                    # not seat 0's turn now
    s.lay_card("4H", 1, via="camera")                    # no chip, then another card
    s.lay_card("9C", 1, via="camera")
    texts = [line["text"] for line in s.view()["log"]]
    assert any("wrong" in t or "is the 5D" in t for t in texts)
    assert any("laid with no chip" in t for t in texts)
    assert any("but it is player" in t for t in texts)
    assert _uncovered(texts) == []
    wrong = name_of(s, "5D")
    w = f"illegal: 5H laid: the chip on {wrong} is the 5D; 5H is on b2 or g6"
    assert i18n.tr(w, "de") == (f"unzulässig: 5H gelegt: der Chip auf {wrong} ist die 5D; "
                                f"5H ist auf b2 oder g6")
    assert i18n.tr("waiting: not sure of d4, e5 (a shadow, an arm's edge, the light?); judged "
                   "once they read clearly", "cs").startswith("čekám: nejistá pole d4, e5")


# --- the referee waiting, and the moves it did not see (session eleven) -------------------------
def test_every_sentence_of_waiting_and_unseen_moves_has_its_template(tmp_path):
    """The waiting notice, the moves applied unseen (on unreadable spaces, on a chip read
    only in doubt), the moves caught up round them and an unseen move's chip showing
    later: every sentence the table is told has its template, in every language."""
    from .test_game_evidence import (_at, _beside_glare, _glare_game_to_an_unseen_move,
                                     _seen)
    texts = []
    for doubt in ("G", "B"):
        s, ref, _path, _events, chips = _beside_glare(tmp_path / doubt, green_doubt=doubt)
        texts += [line["text"] for line in s.log]
    s, ref, _path = _glare_game_to_an_unseen_move(tmp_path / "shows")
    s.observe(_seen(ref, {"j5": ("B", 1.0), "j6": (".", 1.0)}), _at(20.0))
    texts += [line["text"] for line in s.log]
    kinds = " ".join(texts)
    assert "waiting on " in kinds and "reads only in doubt" in kinds and \
        "which cannot be read" in kinds and "not seen earlier shows on j5" in kinds
    assert _uncovered(texts) == []
    said = {"de": ("wartet seit 20 s auf i4, i5, j5, j6: der Zug von Blau ist nicht zu sehen "
                   "(auf i5, j5 oder j6, wo die Kamera nichts lesen kann) und die Chips auf b5, "
                   "e6, h6, g8 warten darauf; die Kamera liest i4 nicht sicher. Die Lampe "
                   "verschieben oder was sie verdeckt, oder t drücken (Brett übernehmen, wie es "
                   "ist) und prüfen, wer am Zug ist"),
            "cs": ("čekám na i4, i5, j5, j6 už 20 s: tah týmu modří není vidět (na i5, j5 nebo "
                   "j6, kde kamera nic nepřečte) a žetony na b5, e6, h6, g8 čekají na něj; kamera "
                   "nepřečte i4 jistě. Posuňte lampu nebo cokoli, co je zakrývá, nebo stiskněte t "
                   "(Převzít desku, jak je) a zkontrolujte, kdo je na tahu")}
    notice = next(t for t in texts if t.startswith("waiting on "))
    for lang, words in said.items():
        assert i18n.tr(notice, lang) == words
    for lang in OTHERS:                  # no English left in any language
        for t in texts:
            if t.startswith(("waiting on ", "caught up: ", "blue (not seen", "green (not seen")):
                out = i18n.tr(t, lang)
                assert not re.search(r"\b(not seen|cannot be read|waiting on|press t|surely"
                                     r"|in doubt|caught up|then)\b", out), (lang, out)


def test_the_terminal_and_the_voice_say_the_waiting_notice_in_german(tmp_path):
    """ui.language = "de": the terminal prints the notice in German, and the Pi's voice
    (espeak-ng's German voice, to WAV files) says it."""
    if shutil.which("espeak-ng") is None:
        pytest.fail("the voice tests need espeak-ng: sudo apt-get install -y espeak-ng")
    from engine.referee import Referee
    from seqboard.session import Session

    from .test_game_evidence import _at, _seen
    i18n.set_language("de")
    s = Session(Referee("classic", 2))
    out = io.StringIO()
    s.subscribe(TerminalIndicator(out, live=False, colour=False))
    voice = Voice(voice=i18n.espeak_voice("en"), wav_dir=tmp_path)
    s.subscribe(VoiceIndicator(voice))
    for t in range(2, 40, 2):
        s.observe(_seen(s.referee, {"e5": ("B", 0.3)}), _at(float(t)))
    voice.close()
    german = ("wartet seit 20 s auf e5: die Kamera liest e5 nicht sicher. Die Lampe verschieben "
              "oder was es verdeckt, oder t drücken (Brett übernehmen, wie es ist) und prüfen, "
              "wer am Zug ist")
    assert f"[  0] {german}\n" in out.getvalue()
    assert voice.enabled and voice.voice == "de"
    assert voice.spoken == [german.replace("(", "").replace(")", "")]
    with wave.open(str(voice.files[0])) as w:
        assert w.getnframes() / w.getframerate() > 3.0
