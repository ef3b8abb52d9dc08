"""The sentences of a game, as the engine and the session write them in English.

Each is a msgid of the catalogs: a template with named parameters whose names say what
they hold (seqboard.i18n.KINDS: ``team`` a colour, ``space`` a space name, ``card`` a card
code, ...; any other name a nested sentence, itself translated). When a sentence of the
engine or the session changes, its template changes here, and
``python -m seqboard.i18n.catalogs update`` carries it into the catalogs (docs/languages.md).
"""

from __future__ import annotations

from engine.moves import RULES

from . import N_

#: sentences without parameters (the rules' words are the engine's RULES, added below)
PLAIN = {
    N_("blue"), N_("green"), N_("red"),
    N_("no change"), N_("board put right"), N_("board taken as it stands"),
    N_("the game is already over"), N_("only one dead card may be traded each turn"),
    N_("sequences completed"), N_("no player can play"), N_("stopped"),
    N_("the last player's draw is lost"), N_("warning confirmed"), N_("dead cards shown"),
    N_("dead cards hidden"), N_("the computer's proposed move is withdrawn"),
    N_("the board's sensing is back"), N_("connected"), N_("pass"),
    N_("waiting for the matrix board's full state"),
    N_("the winning sequence"), N_("a sequence"), N_("no card can be played"),
} | set(RULES.values())

TEMPLATES = [
    # the referee's verdicts (engine/referee.py)
    N_("dead card {card} traded"),
    N_("illegal: {reason}"),
    N_("{card} is not a dead card ({spaces} open)"),
    N_("illegal: {rule} at {spaces}"),
    N_("illegal: {rule} (it is {team}'s turn) at {spaces}"),
    N_("illegal: {rule} (space already covered) at {spaces}"),
    N_("illegal: {rule} ({card}: every copy and every wild already played) at {spaces}"),
    N_("{team} chooses the five shown in white: {seqs}"),
    N_("{team} chooses the five named: {seqs}"),
    N_("{team} places on {space} ({card})"),
    N_("{team} removes {owner}'s chip from {space}"),
    N_("{team} passes"),
    N_("{move}: completes 1 sequence {seqs}"),
    N_("{move}: completes {n} sequences {seqs}"),
    N_("{move}; {team} wins"),
    N_("takeback: {team}'s last move undone"),
    # the session (seqboard/session.py)
    N_("board taken as it stands: {spaces} changed"),
    N_("{warning}; to put right: {todo}"),
    N_("put {team} back on {space}"),
    N_("{space} should be {team}"),
    N_("take the chip off {space}"),
    N_("{team} plays {card} on {space} ({symbol})"),
    N_("{team} plays {card} and removes {owner}'s chip from {space}"),
    N_("{move} (caught up)"),
    N_("missed moves (in more than one order)? {note}: press c (or Confirm) to accept, "
       "t to take the board as it stands, or put the board right"),
    N_("missed moves ({n} moves)? {note}: press c (or Confirm) to accept, "
       "t to take the board as it stands, or put the board right"),
    N_("caught up: {steps}"),
    N_("{team} {space}"),
    N_("{team} removes {space}"),
    N_("takeback: the board is back at move {n}, the last {back} moves undone"),
    N_("not the computer's move: it plays {card} to place a chip on {where}; "
       "put the board right"),
    N_("not the computer's move: it plays {card} to remove the chip from {where}; "
       "put the board right"),
    N_("not the other board's move: it plays {card} to place a chip on {where}; "
       "put the board right"),
    N_("not the other board's move: it plays {card} to remove the chip from {where}; "
       "put the board right"),
    N_("{team} wins"),
    N_("game over: {reason}"),
    N_("{team} (computer) plays {card} on {space}"),
    N_("{team} (computer) plays {card} removing {space}"),
    N_("{team} (other board) plays {card} on {space}"),
    N_("{team} (other board) plays {card} removing {space}"),
    N_("{proposal}: {reason}"),
    N_("{team} trades the dead card {card}"),
    N_("hint {i} for {team}: {play} ({reason})"),
    N_("{n} hint(s) for {team}"),
    N_("resumed {name} at move {n}"),
    N_("indicator error: {error}"),
    # the demo's deliberate mistakes (seqboard/commands/demo.py)
    N_("demo: a deliberate mistake to show the referee at work: {mistake}"),
    N_("a chip of the wrong colour goes down on {space}"),
    N_("the chip goes down on {space} instead of {space2}"),
    # a move as the record writes it (hints)
    N_("place {card} {space}"),
    N_("remove {card} {space}"),
    N_("dead {card}"),
    # the sensing (seqboard/sources.py)
    N_("the matrix board is not answering ({raw}); reconnecting, nothing is judged "
       "until it is back"),
    N_("the matrix board reports: {raw}"),
    # the reasons of the computer's moves and hints (engine/search.py)
    N_("trades the dead {card}"),
    N_("removes {owner}'s chip on {space} to break their four {along}"),
    N_("removes {owner}'s chip on {space}, breaking their three {along}"),
    N_("removes {owner}'s chip on {space}"),
    N_("on row {n}"),
    N_("in column {column}"),
    N_("on the diagonal {space}-{space2}"),
    N_("completes {what} {along}"),
    N_("completes {what} through the corner {along}"),
    N_("{reason} with a wild jack"),
    N_("blocks {team}'s four {along}"),
    N_("blocks {team}'s three {along}"),
    N_("{block} and {build}"),
    N_("makes four {along}"),
    N_("makes three {along}"),
    N_("builds {along}"),
    N_("{reason} ({space})"),
    N_("takes {space}"),
]
