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
    # SEQUENCE STACKS' cards (engine/stacks/cards.py)
    N_("Skip"), N_("Reverse"), N_("Steal a Card"), N_("Steal a Chip"), N_("Block"),
    N_("a hidden card"), N_("the cards of the SEQUENCES made"), N_("the out-of-play pile"),
    N_("blocks"), N_("ends the turn"), N_("skips the next player"),
    N_("reverses the direction of play"), N_("who plays Block? type BL <player>"),
    # the sensing and remote play
    N_("empty"), N_("white"), N_("unknown"),
    N_("waiting for the other board to join: take the chip back"),
    # judging with the card laid, a card the camera saw but could not read
    N_("a card (unread) laid: waiting for its chip"),
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
    # judging with the card laid (engine/referee.py, engine/card_check.py, docs/cards.md)
    N_("{card} laid: waiting for its chip"),
    N_("dead card {card} traded; {then}"),
    N_("a chip on {space}: waiting for the card laid"),
    N_("a chip taken off {space}: waiting for the card laid"),
    N_("{card} laid: the chip on {space} removed"),
    N_("{card} laid: it removes a chip, but a chip was placed on {space}"),
    N_("{card} laid: only a one-eyed jack removes a chip, but the chip on {space} was taken "
       "away"),
    N_("{card} laid: a chip on {space}"),
    N_("{card} laid: {space} was not open"),
    N_("{card} laid: the chip on {space} is a free corner; {where_it_is}"),
    N_("{card} laid: the chip on {space} is the {symbol}; {where_it_is}"),
    N_("{card} is not on this board"),
    N_("{card} is on {space}"),
    N_("{card} is on {space} or {space2}"),
    N_("both {card} spaces are taken ({space}): a dead card to trade"),
    N_("both {card} spaces are taken ({space} or {space2}): a dead card to trade"),
    N_("{card} laid on player {n}'s pile, but it is player {i}'s turn"),
    N_("{card} laid with no chip, then {card2}: {reason}"),
    N_("the card laid on player {n}'s pile cannot be read: type it (k 5h) or tap it on the "
       "page"),
    N_("{move}: {card} laid"),
    N_("{move}: a card unread laid"),
    N_("waiting: not sure of {spaces} (a shadow, an arm's edge, the light?); judged once "
       "they read clearly"),
    N_("waiting: {spaces} wait for {team}'s move, which the camera may not see yet"),
    # the referee waiting on spaces it cannot read, and the moves it did not see
    # (seqboard/session.py, engine/catchup.py; docs/recovery.md)
    N_("waiting on {spaces} for {n} s: {reasons}. Move the lamp or whatever covers it, or "
       "press t (Take the board as it stands) and check whose turn it is"),
    N_("waiting on {spaces} for {n} s: {reasons}. Move the lamp or whatever covers them, or "
       "press t (Take the board as it stands) and check whose turn it is"),
    N_("{team}'s move is not seen (on {places}, which the camera cannot read) and {chips} "
       "for it"),
    N_("{chips} for {team}'s move"),
    N_("the camera cannot read {places} surely"),
    N_("the chip on {space} waits"),
    N_("the chips on {spaces} wait"),
    N_("{spaces} or {space}"),
    N_("{spaces} and {space}"),
    N_("{team} (not seen: on {places}, which cannot be read)"),
    N_("{move} (not seen: {space} cannot be read)"),
    N_("{team} (not seen: on {space}, which reads only in doubt)"),
    N_("{team}'s move not seen earlier shows on {space}"),
    # the demo's deliberate mistakes (seqboard/commands/demo.py)
    N_("demo: a deliberate mistake to show the referee at work: {mistake}"),
    N_("a chip of the wrong colour goes down on {space}"),
    N_("the chip goes down on {space} instead of {space2}"),
    # a move as the record writes it (hints)
    N_("place {card} {space}"),
    N_("remove {card} {space}"),
    N_("dead {card}"),
    # SEQUENCE STACKS (engine/stacks/game.py, seqboard/modes/stacks.py)
    N_("player {n}"),
    N_("{colour} {digit}"),
    N_("{colour} wild"),
    N_("{what} ({n} cards) shuffled into a new deck"),
    N_("{who} starts {colour} pile {n} with {card_name}"),
    N_("{who} lays {card_name} on pile {n}"),
    N_("{move}: the {colour} SEQUENCE is complete"),
    N_("{move}; {who} played the whole hand and draws {n} more"),
    N_("{who} takes a {colour} chip"),
    N_("no {colour} chip is left for {who}"),
    N_("{who} wins with {b} blue and {r} red chips"),
    N_("{move}; {who} wins with {b} blue and {r} red chips"),
    N_("{who} plays Block: {who2}'s {colour} SEQUENCE is discarded, nobody earns a chip"),
    N_("{who} plays Skip: the next player is skipped"),
    N_("{who} plays Reverse: with two players it skips the other"),
    N_("{who} plays Reverse: play changes direction"),
    N_("{who} plays Steal a Card and takes the {card_name} from the top of {who2}'s "
       "discard pile"),
    N_("{who} plays Steal a Card and takes a card from {who2}'s hand"),
    N_("{who} plays Steal a Chip and takes a {colour} chip from {who2}"),
    N_("{who} discards {card_name}"),
    N_("{who} has no card to discard"),
    N_("{move} and draws {n}"),
    N_("{move}; {items} skipped"),
    N_("drawn: nothing was laid, drawn or stolen for {n} rounds (deck and out-of-play "
       "pile empty)"),
    N_("{move}; drawn: nothing was laid, drawn or stolen for {n} rounds (deck and "
       "out-of-play pile empty)"),
    N_("Pi: {move}"),
    N_("{who} (Pi)"),
    N_("it is {who}'s turn: the Pi plays it"),
    N_("Block? {seats} may play Block now (BL <player>); Enter for none"),
    N_("Block? any player holding one may play Block now (BL <player>); Enter for none"),
    N_("{move}  ({reason})"),
    N_("GAME OVER: {result}"),
    N_("REFUSED: {reason}"),
    # the reasons of the STACKS computer players (engine/stacks/search.py)
    N_("blocks the SEQUENCE that would win the game"),
    N_("blocks the SEQUENCE"),
    N_("keeps Block for a SEQUENCE that matters more"),
    N_("blocks {who}'s {colour} SEQUENCE"),
    N_("ends the turn discarding {card_name}"),
    N_("completes a {colour} SEQUENCE for a chip"),
    N_("{reason} from the discard pile"),
    N_("starts a {colour} pile with {card_name}"),
    N_("lays {card_name} on the {colour} pile {n}"),
    N_("steals a {colour} chip from {who}"),
    N_("steals a card from {who}'s discard pile"),
    N_("steals a card from {who}'s hand"),
    # the sensing (seqboard/sources.py)
    N_("the matrix board is not answering ({raw}); reconnecting, nothing is judged "
       "until it is back"),
    N_("the matrix board reports: {raw}"),
    N_("{space} keeps changing between {states}: check the light there"),
    # remote play (seqboard/remote/game.py): a seat is "<board> (<colour>)"
    N_("{board} ({team})"),
    N_("{seat}'s cards have not arrived yet: take the chip back"),
    N_("{seat} holds no card to place at {space} (hand: {cards}): take the chip back"),
    N_("{seat} holds no card to remove at {space} (hand: {cards}): take the chip back"),
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
