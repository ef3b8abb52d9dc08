"""Filmed games refereed from a folder of frames: the record against the true game.

Each game is a seeded game of computer players (2 or 3 seats, 40 or more board moves),
filmed by the synthetic renderer as a camera on a stand sees it: a hand brings each chip
(it appears over another space first, then over the target, places the chip and draws
back), still frames between moves, now and then a hand that hovers without placing
anything, or a person's shadow across the board. In some games a move is HIDDEN: the hand
that placed it never leaves the board until the next move is placed, so the board is
never seen still between the two (the referee must catch it up).

Each game is filmed in a LOOK drawn from the held-out families of ``vision/looks.py``
(``--looks heldout``, the default: card art never tuned on, and half the time held-out
boards, chips, tables, hands, light and cameras; every other game's hands are a held-out
hand family, grey sleeves or fingers holding a chip, often motion-blurred), with the arm's
own shadow and a person's shadow as the look draws them, and now and then a shadow cast by
someone out of the picture (``vision.looks.cast_shadow``: head and shoulders or an arm's
band, soft or hard) for up to five seconds. ``--looks plain`` films the project's own look
as before.

Every game is written as a folder of JPEG frames, the camera is calibrated on the empty
board (``vision.calibration``), and ``seqboard referee`` judges the folder (``--speed 0``:
as fast as the machine goes; the verdicts do not depend on it). The record is replayed
and its moves compared with the true game's:

- ``video_phantom_moves``: moves in the record that the game did not have (want 0)
- ``video_missed_moves``: moves of the game the record does not have (want 0)
- ``video_moves_caught_up``: moves the referee caught up (a missed moment made good)
- ``video_games_recovered``: games with a hidden move whose record ends with the true game
  (want: all of ``video_games_with_hidden_moves``)
- ``video_warnings``: warnings the referee raised (every move here is legal: want 0)
- ``video_waiting_notices``: times the referee said that chips had waited on spaces it
  cannot read for 20 s with no move judged (a game that stalls, said: want 0); counted
  in the record (its ``note`` events of notice ``waiting``), whatever the language
- ``video_games_heldout_looks``: games filmed in a look with a held-out family
- ``video_calibrations_refused``: games whose empty board the calibration refused (nothing
  refereed: all their moves count as missed)

    python benchmarks/video.py                # 10 games, a table
    python benchmarks/video.py --json         # one flat JSON object
    python benchmarks/video.py --quick        # one short game (what the test suite runs)
    python benchmarks/video.py --keep DIR     # keep the frames, records and configs in DIR
    python benchmarks/video.py --looks plain  # the project's own look (the old films)
    python benchmarks/video.py --looks tuned --seed 5 --games 10  # development films
    python benchmarks/video.py --only 4,7     # games 4 and 7 of the 10 alone (the same films)
    python benchmarks/video.py --keep DIR --reuse   # the films kept in DIR, refereed again

Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from engine.game import Game, builtin_layout  # noqa: E402
from engine.observation import Observation, SpaceState  # noqa: E402
from engine.players import make_player  # noqa: E402
from engine.record import parse_record, replay  # noqa: E402
from vision.looks import HELD_OUT, Look, cast_shadow, draw_look, look_conditions  # noqa: E402
from vision.synth import Conditions, render  # noqa: E402

FPS = 10.0
SETTLE = 0.5


@dataclass
class TrueMove:
    player: int
    action: str            # place or remove
    space: int
    colour: str            # the chip placed, or the chip taken off


@dataclass
class Film:
    """A filmed game: its frames, the truth, and what happened on camera."""

    folder: Path
    moves: list[TrueMove]
    players: int
    conditions: Conditions
    hidden: list[int] = field(default_factory=list)     # indexes of hidden moves
    frames: int = 0
    calibration: Path | None = None
    look: Look | None = None            # None: the project's own plain look
    calibration_error: str = ""         # the calibration was refused (the game is not refereed)


def true_game(seed: int, players: int, min_moves: int, max_moves: int) -> list[TrueMove]:
    """A seeded game's board moves (placements and removals): between ``min_moves`` and
    ``max_moves`` of them (a game won sooner is dealt again with the next seed)."""
    for k in range(100):
        moves = _play(seed * 101 + k, players, min_moves, max_moves)
        if len(moves) >= min_moves:
            return moves
    raise RuntimeError(f"no game of {min_moves} moves from seed {seed}")


def _play(seed: int, players: int, min_moves: int, max_moves: int) -> list[TrueMove]:
    rng = random.Random(seed)
    game = Game("classic", players, None, None, random.Random(seed))
    seats = [make_player(rng.choice(("random", "greedy")), random.Random(seed * 31 + p))
             for p in range(players)]
    colours = game.edition.colours[:game.n_teams]
    out: list[TrueMove] = []
    limit = rng.randint(min_moves, max_moves)
    while not game.over and len(out) < limit:
        p = game.current
        move = seats[p].choose(game)
        if move.action == "place":
            out.append(TrueMove(p, "place", move.space, colours[p % game.n_teams]))
        elif move.action == "remove":
            owner = game.board.cells[move.space] - 1
            out.append(TrueMove(p, "remove", move.space, colours[owner]))
        game.push(move)
    return out


class _Camera:
    """Renders the table's frames: one render per distinct scene, fresh noise per frame."""

    def __init__(self, layout, cond: Conditions, seed: int, folder: Path,
                 look: Look | None = None, reuse: bool = False) -> None:
        self.layout, self.cond, self.seed, self.folder = layout, cond, seed, folder
        self.look = look
        self.reuse = reuse          # frames already in the folder are not drawn again
        rng = np.random.default_rng(seed)
        shape = (cond.height, cond.width, 3)
        self.noise = [rng.normal(0, 2.0, shape).astype(np.int16) for _ in range(4)]
        self.cache: dict = {}
        self.n = 0

    def shoot(self, states: list[SpaceState], hand: int | None = None,
              shadow: tuple[float, int] | None = None, frames: int = 1) -> None:
        key = (tuple(states), hand, shadow)
        img = self.cache.get(key)
        if img is None:
            # each new scene's render seed: its place in the cache (kept when reused)
            img = self.seed * 7919 + len(self.cache)
            if len(self.cache) > 64:
                self.cache.clear()
            self.cache[key] = img
        names = [self.folder / f"frame_{self.n + k:05d}.jpg" for k in range(frames)]
        if self.reuse and all(p.is_file() for p in names):
            self.n += frames        # the same seed drew these frames before: kept as they are
            return
        if isinstance(img, int):
            cond = replace(self.cond, hand_at=hand)
            if shadow is not None and self.look is None:
                cond = replace(cond, shadow=shadow[0], light_seed=shadow[1])
            obs = Observation(self.layout.rows, self.layout.cols, tuple(states))
            img = render(self.layout, obs, cond, seed=img, jitter=0.0, look=self.look).image
            if shadow is not None and self.look is not None:
                img = cast_shadow(img, shadow[0], shadow[1])
            self.cache[key] = img
        for _ in range(frames):
            noisy = np.clip(img.astype(np.int16) + self.noise[self.n % 4], 0, 255).astype(np.uint8)
            cv2.imwrite(str(self.folder / f"frame_{self.n:05d}.jpg"), noisy,
                        [cv2.IMWRITE_JPEG_QUALITY, 92])
            self.n += 1


def film_game(folder: Path, seed: int, players: int = 2, min_moves: int = 40,
              max_moves: int = 46, hidden: int = 0, hovers: float = 0.15,
              shadows: float = 0.1, width: int = 640, height: int = 480,
              moves: list[TrueMove] | None = None, look: Look | None = None,
              reuse: bool = False) -> Film:
    """Film a seeded game into ``folder`` (frames at :data:`FPS`); ``hidden`` moves are
    placed without the hand leaving the board in between (never the first nor the last).
    ``look``: the scene in that look (vision/looks.py: card art, board, chips, table,
    hands with their sleeves, blur and cast shadows, light, camera); None: the plain one.
    ``reuse``: frames already in ``folder`` (the same game filmed before) are kept."""
    layout = builtin_layout("classic")
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    if look is None:
        cond = Conditions(width=width, height=height, tilt_deg=rng.uniform(4, 16),
                          rotation_deg=rng.uniform(-8, 8), kelvin=rng.uniform(3300, 5800),
                          scale=rng.uniform(0.82, 0.9), light_seed=rng.randrange(1 << 30))
    else:
        cond = look_conditions(look, width, height)
    truth = moves if moves is not None else true_game(seed, players, min_moves, max_moves)
    cam = _Camera(layout, cond, seed, folder, look, reuse)
    states = [SpaceState.EMPTY] * layout.size
    # the empty board first: the calibration is made from these frames, as a user would
    # (`seqboard calibrate` with the empty board in view), and the referee's first look
    cam.shoot(states, frames=int(1.5 * FPS))
    candidates = list(range(1, len(truth) - 1))
    hidden_at = sorted(rng.sample(candidates, min(hidden, len(candidates)))) if hidden else []
    # a hidden move's hand goes straight on to the next move: never two hidden in a row
    hidden_at = [h for k, h in enumerate(hidden_at) if k == 0 or h > hidden_at[k - 1] + 1]
    still = round(1.0 * FPS)
    for n, mv in enumerate(truth):
        if n - 1 not in hidden_at:        # the hand comes in: first over another space
            near = rng.randrange(layout.size)
            cam.shoot(states, hand=near, frames=2)
        cam.shoot(states, hand=mv.space, frames=2)
        states[mv.space] = SpaceState(mv.colour) if mv.action == "place" else SpaceState.EMPTY
        cam.shoot(states, hand=mv.space, frames=2)
        if n in hidden_at:
            continue                      # the hand stays: on to the next move
        cam.shoot(states, frames=still)
        if rng.random() < hovers:         # a hand hovers a while and leaves, nothing placed
            cam.shoot(states, hand=rng.randrange(layout.size), frames=rng.randint(4, 12))
            cam.shoot(states, frames=still)
        if rng.random() < shadows:        # a person leans over: their shadow on the board
            if look is None:
                cam.shoot(states, shadow=(rng.uniform(0.2, 0.35), rng.randrange(1 << 30)),
                          frames=rng.randint(3, 12))
            else:                         # and stays a while, up to five seconds
                cam.shoot(states, shadow=(rng.uniform(0.2, 0.5), rng.randrange(1 << 30)),
                          frames=rng.randint(3, 50))
            cam.shoot(states, frames=still)
    cam.shoot(states, frames=int(1.5 * FPS))
    film = Film(folder, truth, players, cond, hidden_at, cam.n, look=look)
    from vision.calibration import CalibrationError, calibrate
    from vision.locate import BoardNotFound
    film.calibration = folder.parent / f"{folder.name}-calibration.json"
    empty_frames = [cv2.imread(str(folder / f"frame_{k:05d}.jpg")) for k in range(2)]
    try:
        calibrate(empty_frames, layout).save(film.calibration)
    except (CalibrationError, BoardNotFound, ValueError) as exc:
        film.calibration_error = str(exc) or type(exc).__name__
    return film


def config_for(film: Film, records: Path) -> Path:
    """A configuration file that referees ``film``'s folder."""
    path = film.folder.parent / f"{film.folder.name}.toml"
    path.write_text(
        f'[game]\nplayers = {film.players}\n\n'
        f'[sensing]\nsource = "camera"\n\n'
        f'[camera]\ndevice = "{film.folder}"\ncalibration = "{film.calibration}"\n'
        f'fps = {FPS}\nsettle_seconds = {SETTLE}\n'
        f'width = {film.conditions.width}\nheight = {film.conditions.height}\n\n'
        f'[gpio]\nenabled = false\n\n[dashboard]\nenabled = false\n\n'
        f'[records]\ndir = "{records}"\n', "utf-8")
    return path


def referee(film: Film, records: Path, speed: float = 0.0) -> tuple[Path, subprocess.CompletedProcess]:
    """Run ``seqboard referee`` on the film's folder; the record written and the process."""
    records.mkdir(parents=True, exist_ok=True)
    before = set(records.glob("*.jsonl"))
    cfg = config_for(film, records)
    env = dict(os.environ, OPENCV_FOR_THREADS_NUM="1")
    proc = subprocess.run([sys.executable, "-m", "seqboard", "referee", "--config", str(cfg),
                           "--records", str(records), "--new", "--no-dashboard",
                           "--speed", str(speed)],
                          capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL,
                          cwd=Path(__file__).resolve().parent.parent, timeout=1800)
    new = sorted(set(records.glob("*.jsonl")) - before)
    if not new:
        raise RuntimeError(f"no record written: {proc.stderr[-1000:]}")
    return new[-1], proc


def score(film: Film, record: Path) -> dict:
    """The record against the true game."""
    parsed = parse_record(record.read_text("utf-8"), str(record))
    result = replay(parsed)
    layout = builtin_layout("classic")
    got = [(p, m.action, m.space) for p, m in result.referee.moves if m.action in ("place", "remove")]
    want = [(m.player, m.action, m.space) for m in film.moves]
    sm = difflib.SequenceMatcher(a=want, b=got, autojunk=False)
    matched = sum(b.size for b in sm.get_matching_blocks())
    entries = parsed.entries
    caught = sum(1 for e in entries if e.get("type") == "verdict" and e.get("caught_up"))
    warnings = sum(1 for e in entries if e.get("type") == "verdict" and e.get("kind") == "violation")
    stamped = all("t" in e and "frame" in e for e in entries
                  if e.get("type") in ("observation", "verdict"))
    # moves applied as `unseen` (their chip on one of several unreadable spaces, no chip
    # made up), and those whose chip the record later shows, on the space the true game
    # has, by an edit naming the move (`"unseen": n`). Such an edit completes the move in
    # the replay (docs/game-record.md), so a move shown right counts as a move, not
    # missed; one whose chip never shows stays `unseen` and is counted missed.
    unseen = [e["n"] for e in entries if e.get("type") == "move" and e.get("action") == "unseen"
              and isinstance(e.get("n"), int)]
    shown = {e["unseen"]: e.get("changed") for e in entries
             if e.get("type") == "edit" and isinstance(e.get("unseen"), int)}
    # the referee's notices that chips waited long unjudged (docs/recovery.md)
    notices = sum(1 for e in entries if e.get("type") == "event" and e.get("event") == "note"
                  and e.get("notice") == "waiting")
    shown_right = 0
    for n in unseen:
        names = shown.get(n) or []
        k = n - 1        # the true move of the same number (the films have no dead cards)
        if len(names) == 1 and k < len(want) and want[k][1] == "place" and \
                layout.parse_space(names[0]) == want[k][2]:
            shown_right += 1
    return {"moves": len(want), "phantom": len(got) - matched, "missed": len(want) - matched,
            "notices": notices,
            "unseen": len(unseen), "unseen_shown_right": shown_right,
            "caught_up": caught, "warnings": warnings, "exact": got == want,
            "replay_ok": result.ok, "stamped": stamped,
            "first_wrong": next((f"{layout.space_name(w[2])}" for w, g in zip(want, got) if w != g), "")}


def game_look(seed: int, g: int, looks: str) -> Look | None:
    """The look game ``g`` is filmed in: None (``plain``: the project's own look), or a look
    drawn from the held-out families (``heldout``; every other game's hands a held-out hand
    family: grey sleeves, or fingers holding a chip, blurred more often), or from the tuned
    families only (``tuned``: development films)."""
    if looks == "plain":
        return None
    if looks == "tuned":
        # development films: tuned families only, never the held-out ones
        return draw_look(np.random.default_rng([seed, g, 19]), "tuned")
    look = draw_look(np.random.default_rng([seed, g, 19]), "heldout")
    if g % 2 == 0:
        look = replace(look, hand=HELD_OUT["hand"][(g // 2) % len(HELD_OUT["hand"])])
    return look


def run(games: int, seed: int, workdir: Path, quick: bool, progress, looks: str = "heldout",
        only: list[int] | None = None, reuse: bool = False) -> dict:
    totals = {"games": 0, "moves": 0, "phantom": 0, "missed": 0, "caught_up": 0, "warnings": 0,
              "hidden_games": 0, "recovered": 0, "frames": 0, "replay_ok": 0, "stamped": 0,
              "refused": 0, "heldout_games": 0, "unseen": 0, "unseen_shown_right": 0,
              "notices": 0}
    per_game = []
    t0 = time.perf_counter()
    for g in range(games):
        if only and g + 1 not in only:
            continue
        gseed = seed * 1000 + g
        players = 2 if g % 3 != 2 else 3
        hidden = 0 if g % 4 == 0 else 1 + (g % 3 == 1)
        look = game_look(seed, g, looks)
        progress(f"game {g + 1}/{games}: filming ({players} players, {hidden} hidden"
                 + (f", {look.describe()}" if look else ", plain look") + ")")
        if quick:
            film = film_game(workdir / f"game{g:02d}", gseed, players, 10, 12, hidden=1,
                             hovers=0.2, shadows=0.1, width=480, height=360, look=look)
        else:
            film = film_game(workdir / f"game{g:02d}", gseed, players, hidden=hidden, look=look,
                             shadows=0.1 if look is None else 0.2, reuse=reuse)
        totals["heldout_games"] += bool(look is not None and look.held_out)
        if film.calibration_error:
            # the empty board was refused: nothing is refereed, every move is missed
            progress(f"game {g + 1}/{games}: calibration refused: {film.calibration_error}")
            s = {"moves": len(film.moves), "phantom": 0, "missed": len(film.moves), "caught_up": 0,
                 "warnings": 0, "exact": False, "replay_ok": False, "stamped": False,
                 "first_wrong": "calibration refused"}
            totals["refused"] += 1
        else:
            progress(f"game {g + 1}/{games}: refereeing {film.frames} frames")
            record, proc = referee(film, workdir / "records")
            if proc.returncode != 0:
                raise RuntimeError(f"seqboard referee exited {proc.returncode}: {proc.stderr[-1500:]}")
            s = score(film, record)
            s["record"] = str(record)
        s.update(game=g, players=players, hidden=len(film.hidden), frames=film.frames,
                 look=look.describe() if look else "plain")
        per_game.append(s)
        totals["games"] += 1
        totals["frames"] += film.frames
        for k in ("moves", "phantom", "missed", "caught_up", "warnings"):
            totals[k] += s[k]
        for k in ("unseen", "unseen_shown_right", "notices"):
            totals[k] += s.get(k, 0)
        totals["replay_ok"] += s["replay_ok"]
        totals["stamped"] += s["stamped"]
        if film.hidden:
            totals["hidden_games"] += 1
            totals["recovered"] += s["exact"]
        progress(f"game {g + 1}/{games}: {s['moves']} moves, {s['phantom']} phantom, "
                 f"{s['missed']} missed, {s['caught_up']} caught up, {s['warnings']} warnings"
                 + (f", {s['notices']} waiting notices" if s.get("notices") else "")
                 + (f" (first wrong: {s['first_wrong']})" if s.get("first_wrong") else ""))
    totals["seconds"] = time.perf_counter() - t0
    totals["per_game"] = per_game
    return totals


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description="Referee filmed games (folders of rendered frames, hands placing every "
                    "chip, some moves hidden) with `seqboard referee`; compare the record "
                    "with the true game.",
        epilog="examples:\n  python benchmarks/video.py --json\n"
               "  python benchmarks/video.py --quick --json     # one short game, a few seconds\n"
               "  python benchmarks/video.py --games 3 --keep /tmp/films",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true", help="print one flat JSON object")
    ap.add_argument("--games", type=int, default=10, help="games to film (default 10)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true",
                    help="one short game (10 to 12 moves, one hidden) at a small size")
    ap.add_argument("--keep", metavar="DIR", help="keep frames, configs and records in DIR")
    ap.add_argument("--looks", choices=("heldout", "plain", "tuned"), default="heldout",
                    help="heldout (default): each game in a look drawn from the held-out "
                         "families of vision/looks.py; plain: the project's own look; "
                         "tuned: looks of the tuned families only (development films, to "
                         "choose with; use another --seed than the held-out runs)")
    ap.add_argument("--only", metavar="N,N", default="",
                    help="film and referee only these games of the --games (numbered from 1, "
                         "as in the table), e.g. --only 4,7: the same films as in a full run")
    ap.add_argument("--reuse", action="store_true",
                    help="with --keep: frames already in DIR from a run with the same seed, "
                         "looks and games are not drawn again (to referee the same films "
                         "after a change to the referee; a partial folder is completed)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    if args.reuse and not args.keep:
        ap.error("--reuse needs --keep DIR (the folder the films were kept in)")
    try:
        only = [int(x) for x in args.only.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--only: numbers separated by commas, not {args.only!r}")
    games = 1 if args.quick else args.games
    if games < 1:
        ap.error("--games: at least 1")

    def progress(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    if args.keep:
        work = Path(args.keep).resolve()
        work.mkdir(parents=True, exist_ok=True)
        totals = run(games, args.seed, work, args.quick, progress, args.looks, only, args.reuse)
    else:
        with tempfile.TemporaryDirectory(prefix="seqboard-video-") as tmp:
            totals = run(games, args.seed, Path(tmp), args.quick, progress, args.looks, only)
    result = figures(totals)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{'game':>4} {'players':>7} {'moves':>5} {'hidden':>6} {'frames':>6} {'phantom':>7} "
          f"{'missed':>6} {'caught up':>9} {'warnings':>8}")
    for s in totals["per_game"]:
        print(f"{s['game'] + 1:>4} {s['players']:>7} {s['moves']:>5} {s['hidden']:>6} "
              f"{s['frames']:>6} {s['phantom']:>7} {s['missed']:>6} {s['caught_up']:>9} "
              f"{s['warnings']:>8}")
    for k, v in result.items():
        print(f"{k}: {v}")
    for s in totals["per_game"]:
        print(f"game {s['game'] + 1}: {s['look']}")
    return 0


def figures(totals: dict) -> dict:
    return {
        "video_games": totals["games"],
        "video_moves": totals["moves"],
        "video_frames": totals["frames"],
        "video_phantom_moves": totals["phantom"],
        "video_missed_moves": totals["missed"],
        "video_moves_caught_up": totals["caught_up"],
        "video_moves_unseen": totals["unseen"],
        "video_unseen_shown_right": totals["unseen_shown_right"],
        "video_games_with_hidden_moves": totals["hidden_games"],
        "video_games_recovered": totals["recovered"],
        "video_warnings": totals["warnings"],
        "video_waiting_notices": totals["notices"],
        "video_records_replay_ok": totals["replay_ok"],
        "video_records_stamped": totals["stamped"],
        "video_games_heldout_looks": totals["heldout_games"],
        "video_calibrations_refused": totals["refused"],
        "video_seconds": round(totals["seconds"], 1),
    }


if __name__ == "__main__":
    sys.exit(main())
