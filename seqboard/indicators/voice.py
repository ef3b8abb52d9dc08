"""The voice: verdicts, the Pi's moves and hints spoken through espeak-ng (``ui.voice``).

espeak-ng is a Debian package (``sudo apt install espeak-ng``; mbrola voices optional). It
runs as a subprocess on a worker thread fed by a short queue, so the main loop never waits
for speech; when the queue is full the oldest sentence is dropped (what is said is the
latest news). Where espeak-ng is missing or fails, one line says so and the game goes on
silently.
"""

from __future__ import annotations

import queue
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import TextIO

from .. import i18n
from ..session import Event

RANKS = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "T": "ten", "10": "ten", "9": "nine",
         "8": "eight", "7": "seven", "6": "six", "5": "five", "4": "four", "3": "three",
         "2": "two"}
SUITS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
CARD = re.compile(r"\b(10|[AKQJT2-9])([SHDC])\b")
#: the events spoken, and the session's hint events (asked at the Pi: the page speaks its own)
#: and its notice that chips have long waited unjudged (``waiting`` with ``data["stall"]``)
SPOKEN = ("verdict", "warning", "proposal", "game_over", "undo", "dead_card")


def speakable(text: str, lang: str | None = None) -> str:
    """Words a listener follows, in the language set (seqboard.i18n): card codes as names
    (``JC`` -> ``jack of clubs``, ``Kreuz Bube``), no punctuation read aloud; in English
    without the "(computer)" aside (other languages say it, as a word of the sentence)."""
    lang = lang or i18n.language()
    if lang != "en":
        text = i18n.cards_in_words(i18n.tr(text, lang), lang).replace(";", ",")
        return re.sub(r"\s+([,:])", r"\1", re.sub(r"[()]", "", text))
    text = CARD.sub(lambda m: f"{RANKS[m.group(1)]} of {SUITS[m.group(2)]}", text)
    text = re.sub(r"\((computer|other board)\) ", "", text).replace(";", ",")
    return re.sub(r"[()]", "", text)


class Voice:
    """Say sentences through espeak-ng without blocking; ``wav_dir`` writes each to a WAV
    file instead of the speaker (``espeak-ng -w``), for tests and for checking a voice."""

    def __init__(self, *, voice: str = "en", speed: int = 150, wav_dir: Path | None = None,
                 out: TextIO | None = None, exe: str | None = None, max_queue: int = 8) -> None:
        self.voice, self.speed, self.wav_dir = voice, speed, wav_dir
        self.out = out or sys.stderr
        self.exe = exe or shutil.which("espeak-ng")
        self.spoken: list[str] = []
        self.files: list[Path] = []
        self._q: queue.Queue[str | None] = queue.Queue(max_queue)
        self._thread: threading.Thread | None = None
        self._failed = False
        if self.exe is None:
            self._note("espeak-ng not found (sudo apt install espeak-ng): the game goes on "
                       "without a voice")
            return
        self._thread = threading.Thread(target=self._run, name="voice", daemon=True)
        self._thread.start()

    @property
    def enabled(self) -> bool:
        return self._thread is not None and not self._failed

    def _note(self, text: str) -> None:
        print(f"voice: {text}", file=self.out, flush=True)

    def say(self, text: str) -> None:
        if not self.enabled or not text.strip():
            return
        while True:
            try:
                self._q.put_nowait(text)
                return
            except queue.Full:
                try:
                    self._q.get_nowait()          # the oldest news goes
                except queue.Empty:
                    pass

    def _command(self, text: str, n: int) -> list[str]:
        cmd = [self.exe or "espeak-ng", "-v", self.voice, "-s", str(self.speed)]
        if self.wav_dir is not None:
            path = Path(self.wav_dir) / f"say-{n:04d}.wav"
            self.files.append(path)
            cmd += ["-w", str(path)]
        return cmd + ["--", text]

    def _known_voice(self) -> bool:
        """espeak-ng quietly falls back to English for a voice it lacks: check the name
        against its lists (``--voices``, and ``--voices=mb`` for the mbrola voices)."""
        base = self.voice.split("+")[0].lower()
        names: set[str] = set()
        for which in ("--voices", "--voices=mb"):
            try:
                listing = subprocess.run([self.exe or "espeak-ng", which], capture_output=True,
                                         text=True, timeout=20, check=False).stdout
            except (OSError, subprocess.TimeoutExpired):
                return True                     # cannot tell: let espeak-ng try
            for line in listing.splitlines()[1:]:
                cols = line.split()
                if len(cols) >= 5:
                    names |= {cols[1].lower(), cols[3].lower(), cols[4].lower(),
                              cols[4].rsplit("/", 1)[-1].lower()}
        return base in names

    def _run(self) -> None:
        if not self._known_voice():
            self._failed = True
            self._note(f"espeak-ng has no voice {self.voice!r} (`espeak-ng --voices` lists "
                       "them; see ui.voice_name): the game goes on without a voice")
            return
        n = 0
        while True:
            text = self._q.get()
            if text is None:
                return
            n += 1
            try:
                done = subprocess.run(self._command(text, n), stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                      timeout=60, check=False)
            except (OSError, subprocess.TimeoutExpired) as exc:
                self._failed = True
                self._note(f"espeak-ng failed ({exc}): the game goes on without a voice")
                return
            err = done.stderr.decode("utf-8", "replace")
            if done.returncode == 0 and self.wav_dir is None and ("snd_pcm_open" in err
                                                                  or "\nerror:" in "\n" + err):
                # espeak-ng says 0 even when no sound device took the speech
                self._failed = True
                last = err.strip().splitlines()[-1] if err.strip() else ""
                self._note(f"espeak-ng cannot reach a sound device ({last}): the game goes on "
                           "without a voice")
                return
            if done.returncode != 0:
                why = done.stderr.decode("utf-8", "replace").strip().splitlines()[:1]
                self._failed = True
                self._note(f"espeak-ng -v {self.voice} failed ({why[0] if why else done.returncode}):"
                           " the game goes on without a voice")
                return
            self.spoken.append(text)

    def close(self, wait: float = 30.0) -> None:
        """Let what is queued be said (up to ``wait`` seconds), then stop."""
        if self._thread is None:
            return
        try:
            self._q.put(None, timeout=wait)
        except queue.Full:
            pass
        self._thread.join(wait)


class VoiceIndicator:
    """A session listener that speaks what the table needs to hear."""

    def __init__(self, voice: Voice) -> None:
        self.voice = voice

    def __call__(self, event: Event, view: dict) -> None:
        if (event.kind in SPOKEN or event.kind == "waiting" and event.data.get("stall")) \
                and event.text:
            self.voice.say(speakable(event.text))
        elif event.kind == "hint" and not event.data.get("private"):
            best = (view.get("hints") or [None])[0]
            if best:
                self.voice.say(speakable(i18n._("hint: {play}, {reason}").format(
                    play=i18n.tr(best["move"]), reason=i18n.tr(best["reason"]))))

    def close(self) -> None:
        self.voice.close(wait=5.0)
