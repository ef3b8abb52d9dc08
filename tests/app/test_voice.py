"""Issue 22: the voice (``ui.voice``): espeak-ng on the Pi, nothing breaks without it."""

from __future__ import annotations

import shutil
import wave

import numpy as np
import pytest

from engine.observation import SpaceState
from seqboard.cli import main
from seqboard.indicators.voice import Voice, VoiceIndicator, speakable

from .helpers import write_config
from .test_undo_play import _Game


def rms(path) -> float:
    with wave.open(str(path)) as w:
        assert w.getsampwidth() == 2
        samples = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(float)
    return float(np.sqrt(np.mean(samples ** 2))) if samples.size else 0.0


def test_card_codes_are_spoken_as_card_names():
    assert speakable("blue (computer) plays JC on e5") == "blue plays jack of clubs on e5"
    assert speakable("green places on d10 (TS); green wins") == "green places on d10 ten of spades, green wins"


@pytest.fixture
def espeak():
    """Debian's espeak-ng (installed by .ci/run); its absence is a failure, not a skip."""
    path = shutil.which("espeak-ng")
    if path is None:
        pytest.fail("the voice tests need espeak-ng: sudo apt-get install -y espeak-ng")
    return path


def test_the_pis_move_and_the_verdicts_are_spoken_and_not_silence(tmp_path, espeak):
    g = _Game(tmp_path)
    voice = Voice(wav_dir=tmp_path)
    g.session.subscribe(VoiceIndicator(voice))
    g.pi.hands[1] = ["AH"]
    g.put("e5", SpaceState.BLUE)                   # a verdict, then the Pi's proposal
    g.put("h8", SpaceState.GREEN)                  # the Pi's chip on the wrong space: a warning
    voice.close()
    assert voice.spoken[:3] == ["blue places on e5 five of hearts",
                                "green plays ace of hearts on g5: takes g5",
                                "not the computer's move: it plays ace of hearts to place a chip "
                                "on g5, put the board right"]
    assert len(voice.files) == len(voice.spoken)
    for path in voice.files:
        with wave.open(str(path)) as w:
            seconds = w.getnframes() / w.getframerate()
        assert seconds > 0.8, f"{path.name}: {seconds:.2f} s"
        assert rms(path) > 300, f"{path.name} is silence (RMS {rms(path):.0f})"
    # and silence would have been caught
    silent = tmp_path / "silent.wav"
    with wave.open(str(silent), "wb") as w:
        w.setnchannels(1), w.setsampwidth(2), w.setframerate(22050)
        w.writeframes(b"\0\0" * 22050)
    assert rms(silent) < 1


def test_without_a_speech_engine_one_line_and_the_game_goes_on(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no espeak-ng on this PATH
    cfg = write_config(tmp_path, ui={"voice": True})
    code = main(["demo", "--fast", "--seed", "1", "--source", "direct", "--records",
                 str(tmp_path / "r"), "--config", str(cfg), "--no-dashboard", "--new"])
    out = capsys.readouterr()
    text = out.out + out.err
    assert code == 0 and "blue wins" in text
    notes = [ln for ln in text.splitlines() if ln.startswith("voice:")]
    assert notes == ["voice: espeak-ng not found (sudo apt install espeak-ng): the game goes on "
                     "without a voice"]
    assert "Traceback" not in text


def test_an_unknown_voice_is_one_line_and_the_game_goes_on(tmp_path, capsys, espeak):
    v = Voice(voice="no-such-voice", wav_dir=tmp_path, out=__import__("sys").stdout)
    v.say("hello")
    v.say("again")
    v.close()
    assert not v.enabled
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("voice:")]
    assert len(lines) == 1 and "espeak-ng has no voice 'no-such-voice'" in lines[0]
    assert not list(tmp_path.glob("*.wav"))
    v.say("after the failure: ignored, no exception")


@pytest.mark.parametrize("text,expected", [
    ('[ui]\nvoice = "yes"\n', "ui.voice: expected"),
    ('[ui]\nvoice_name = "en; rm -rf"\n', "ui.voice_name: expected an espeak-ng voice name"),
    ('[ui]\nvoice_speed = 5\n', "ui.voice_speed: expected a number from 80 to 400"),
])
def test_bad_voice_keys_are_one_line(tmp_path, capsys, text, expected):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(text, "utf-8")
    code = main(["demo", "--config", str(cfg), "--records", str(tmp_path / "r"), "--fast"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and expected in err[0], err


def test_no_sound_device_is_one_line_and_the_game_goes_on(tmp_path, capsys, monkeypatch, espeak):
    empty = tmp_path / "asound.conf"
    empty.write_text("")
    monkeypatch.setenv("ALSA_CONFIG_PATH", str(empty))  # ALSA with no device at all
    monkeypatch.setenv("PULSE_SERVER", "unix:/nonexistent")
    cfg = write_config(tmp_path, ui={"voice": True})
    code = main(["demo", "--fast", "--seed", "1", "--source", "direct", "--records",
                 str(tmp_path / "r"), "--config", str(cfg), "--no-dashboard", "--new"])
    out = capsys.readouterr()
    text = out.out + out.err
    assert code == 0 and "blue wins" in text
    notes = [ln for ln in text.splitlines() if ln.startswith("voice:")]
    assert len(notes) == 1 and "cannot reach a sound device" in notes[0], notes
