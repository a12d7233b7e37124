"""A corpus of broken logs: illegal games and damaged files that every reader must refuse.

``python tests/broken_logs.py OUTDIR`` writes the files and lists them; imported,
``write_corpus(folder)`` writes them and returns one ``Case`` per file, saying what it breaks,
where it must be refused (event ``seq``, record number and byte offset) and a stable fragment
of the reason the engine gives. ``tests/test_broken_logs.py`` checks every reader against it.

Every case starts from a real game (``server.sim.simulate`` with a fixed seed, random bots),
cut at the first state where the break is possible. The broken records are re-sealed with
valid CRCs (``encode_record``): they model a buggy writer, not a bad disk, so the strict
rebuild and not the codec has to catch them. Damage cases (flipped bytes, gaps, headers…)
model the rest.

A game adds its own cases by adding a function ``def <game>_cases(corpus: Corpus) -> None``
to ``GAME_CASES``; ``common_cases`` runs for every game in ``shared.games.GAMES``.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from starhall.server.sim import default_players, simulate
from starhall.shared.bots import bot_kinds
from starhall.shared.bugreport import make_bug_report, write_bug_report
from starhall.shared.engine import Command, Event, Game
from starhall.shared.games import GAMES, get_game
from starhall.shared.logfile import BUG_SUFFIX, SUFFIX, encode_record, read_records
from starhall.shared.table import checkpoint_record, event_record, state_hash

ILLEGAL, LOG, MISMATCH, NOT_LOG = "illegal", "log", "mismatch", "not_log"
"""How a case is refused: ``IllegalEvent`` at an event, ``LogError`` at a record, a
``Mismatch`` returned by ``verify`` (a checkpoint the rebuilt game disagrees with), or
``NotALog``: a file that is no Starhall log at all, which the command line answers as a usage
mistake (exit 2)."""


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    game: str
    breaks: str
    """What the file breaks, for people."""
    refusal: str
    """``ILLEGAL``, ``LOG`` or ``MISMATCH``."""
    reason: str
    """A stable fragment of the reason (of ``IllegalEvent.reason``, ``LogError.problem``, or,
    for a mismatch, of the report)."""
    file: Path
    path: str
    """The path errors name: the file, or ``FILE#log`` for a bug report's log."""
    record: int
    offset: int
    seq: int | None
    """The refused event (``ILLEGAL``), the disagreeing checkpoint's event (``MISMATCH``)."""
    agreed: int | None = None
    """For a mismatch: the last checkpoint that agrees (0 for the start)."""


# --- source games ------------------------------------------------------------------------


@dataclass(slots=True)
class Source:
    """A real game: its log's header and record bodies, its events, the state after each."""

    game: Game[Any]
    header: dict[str, Any]
    bodies: list[dict[str, Any]]
    """Every record after the header, as written."""
    events: list[Event]
    """``events[i]`` is event ``i + 1``."""
    states: list[Any]
    """``states[i]`` is the state after ``i`` events."""

    def prefix(self, upto: int) -> list[dict[str, Any]]:
        """The records up to event ``upto`` and the checkpoint after it, if any."""
        kept: list[dict[str, Any]] = []
        for body in self.bodies:
            if body["kind"] == "event" and body["seq"] > upto:
                break
            kept.append(body)
        return kept

    def after(self, seq: int) -> list[dict[str, Any]]:
        """The records after event ``seq`` (and after its checkpoint)."""
        return self.bodies[len(self.prefix(seq)):]

    def find(self, test: Callable[[Any, int], bool], start: int = 0) -> int | None:
        """The first ``i >= start`` where ``test(state after i events, i)`` holds."""
        for i in range(start, len(self.events)):
            if test(self.states[i], i):
                return i
        return None


@cache
def source(game_id: str, players: int, options: tuple[tuple[str, Any], ...], seed: int) -> Source:
    game = get_game(game_id)
    kind = "random" if "random" in bot_kinds(game) else next(iter(bot_kinds(game)))
    with tempfile.TemporaryDirectory() as folder:
        _, (path,) = simulate(game, players, dict(options), 1, seed, kind, Path(folder))
        data = path.read_bytes()
    records, _ = read_records(data, path)
    header, bodies = records[0][1], [body for _, body in records[1:]]
    events = [Event(b["type"], b["seat"], b["data"]) for b in bodies if b["kind"] == "event"]
    state = game.new_state(players, game.make_options(players, dict(options)))
    states = [state]
    for event in events:
        state = game.evolve(state, event)
        states.append(state)
    return Source(game, header, bodies, events, states)


def find(sources: Iterable[Source], test: Callable[[Any, int], bool], what: str
         ) -> tuple[Source, int]:
    """The first source game, and the first state in it, where ``test`` holds."""
    for candidate in sources:
        found = candidate.find(test)
        if found is not None:
            return candidate, found
    raise LookupError(f"no source game reaches a state where {what}; add seeds")


def seeds(game_id: str, players: int, options: dict[str, Any], count: int = 12
          ) -> Iterable[Source]:
    key = tuple(sorted(options.items()))
    return (source(game_id, players, key, seed) for seed in range(1, count + 1))


# --- writing cases ------------------------------------------------------------------------


class Draft:
    """A log being written: a real game's records up to event ``upto``, then legal commands
    (``play``) and the broken records (``bad``); the first broken record is the one the
    readers must refuse."""

    def __init__(self, corpus: Corpus, src: Source, upto: int) -> None:
        self.corpus = corpus
        self.source = src
        self.game = src.game
        self.header = dict(src.header)
        self.seats = tuple(src.header["seats"])
        """Who sits where: the bots of the source game, from its start to its end."""
        self.bodies = src.prefix(upto)
        self.state = src.states[upto]
        self.seq = upto
        self.target: int | None = None
        """Index in ``bodies`` of the record to refuse."""

    def play(self, kind: str, seat: int | None, data: dict[str, Any] | None = None) -> Draft:
        """A legal command, decided by the rules, with checkpoints where due."""
        for event in self.game.decide(self.state, Command(kind, seat, data or {})):
            self.seq += 1
            self.state = self.game.evolve(self.state, event)
            self.bodies.append(event_record(self.seq, event))
            if self.game.is_checkpoint(self.state):
                self.bodies.append(checkpoint_record(self.game, self.seq, self.state,
                                                     self.seats))
        return self

    def bad(self, kind: str, seat: Any, data: Any = None) -> Draft:
        """An event the rules do not give here (numbered as the next event)."""
        self.seq += 1
        return self.record({"kind": "event", "seq": self.seq, "type": kind, "seat": seat,
                            "data": {} if data is None else data})

    def record(self, body: dict[str, Any]) -> Draft:
        """Any record body; the first one added this way is the one to refuse."""
        if self.target is None:
            self.target = len(self.bodies)
        self.bodies.append(body)
        return self

    def rest(self) -> Draft:
        """The source's records after the refused event, unchanged: a broken middle event."""
        self.bodies += self.source.after(self.seq)
        return self

    def encode(self) -> tuple[bytes, int]:
        """The file's bytes and the byte offset of the record to refuse."""
        out = bytearray(encode_record(self.header))
        offset = 0
        for index, body in enumerate(self.bodies):
            if index == self.target:
                offset = len(out)
            out += encode_record(body)
        return bytes(out), offset

    def write(self, name: str, breaks: str, reason: str, refusal: str = ILLEGAL) -> Case:
        assert self.target is not None, "a case needs a broken record"
        data, offset = self.encode()
        body = self.bodies[self.target]
        seq = body.get("seq") if refusal == ILLEGAL else None
        return self.corpus.add(name, self.game.id, breaks, refusal, reason, data,
                               self.target + 1, offset, seq)


@dataclass
class Corpus:
    folder: Path
    cases: list[Case] = field(default_factory=list)

    def draft(self, src: Source, upto: int) -> Draft:
        return Draft(self, src, upto)

    def add(self, name: str, game: str, breaks: str, refusal: str, reason: str, data: bytes,
            record: int, offset: int, seq: int | None, agreed: int | None = None,
            suffix: str = SUFFIX) -> Case:
        file = self.folder / f"{game}-{len(self.cases) + 1:02d}-{name}{suffix}"
        file.write_bytes(data)
        case = Case(name, game, breaks, refusal, reason, file, str(file), record, offset, seq,
                    agreed)
        self.cases.append(case)
        return case

    def bug_report(self, name: str, inner: Case, breaks: str) -> Case:
        """A bug report (``shared.bugreport``) holding the log of another case."""
        file = self.folder / f"{inner.game}-{len(self.cases) + 1:02d}-{name}{BUG_SUFFIX}"
        body = make_bug_report("the game went wrong here", {"table": "t1", "game": inner.game},
                               inner.file.read_bytes(), "", [], 0.0)
        write_bug_report(file, body)
        case = Case(name, inner.game, breaks, inner.refusal, inner.reason, file, f"{file}#log",
                    inner.record, inner.offset, inner.seq, inner.agreed)
        self.cases.append(case)
        return case


def records_of(src: Source, header: dict[str, Any] | None = None) -> list[bytes]:
    """The source's records, encoded."""
    return [encode_record(header or src.header)] + [encode_record(b) for b in src.bodies]


def record_index(src: Source, seq: int) -> int:
    """The record number of event ``seq`` in the source's log."""
    return 1 + next(i for i, b in enumerate(src.bodies) if b["kind"] == "event"
                    and b["seq"] == seq)


def offset_of(records: list[bytes], index: int) -> int:
    return sum(len(r) for r in records[:index])


def first_seat_event(src: Source, after: int = 0) -> int:
    """The seq of the first event by a seat after event ``after``."""
    return next(i + 1 for i, e in enumerate(src.events) if i >= after and e.seat is not None)


# --- cases every game gets ------------------------------------------------------------------


def common_cases(corpus: Corpus, game_id: str) -> None:
    """Cases that need nothing but the engine contract, for every game: a new game is covered
    by these before it adds its own."""
    game = get_game(game_id)
    short = (("target", 30),) if any(spec.name == "target" for spec in game.option_specs) else ()
    src = source(game_id, default_players(game), short, 1)
    n = len(src.events)
    seat_seq = first_seat_event(src)
    seat_event = src.events[seat_seq - 1]

    corpus.draft(src, seat_seq - 1).bad("no_such_event", seat_event.seat, dict(seat_event.data)
                                        ).rest().write(
        "unknown-event-type", "an event type the game does not have",
        f"{game_id} has no event 'no_such_event'")
    corpus.draft(src, seat_seq - 1).bad(seat_event.type, seat_event.seat,
                                        {**seat_event.data, "comment": "extra"}).rest().write(
        "extra-data-key", "an event whose data has a key its command does not give",
        "comment is not part of this event")
    last = src.events[-1]
    corpus.draft(src, n).bad(last.type, last.seat, dict(last.data)).write(
        "event-after-the-end", "the last event again, after the game is over", "")

    shuffled = [seq for seq, event in enumerate(src.events, 1)
                if game.event_commands.get(event.type) == "shuffle"]
    at = shuffled[-1]  # the last: a later deal or a reshuffle where the game has one
    dealt = src.events[at - 1]
    other = dealt.data["seed"] - 1 if dealt.data["seed"] > 1 else dealt.data["seed"] + 1
    corpus.draft(src, at - 1).bad(dealt.type, None, {**dealt.data, "seed": other}).rest().write(
        "shuffle-seed-not-its-order",
        f"the shuffle at event {at} logged with deal number {other}, whose order is another",
        f"the order is not the one deal number {other} gives")

    # Damage, re-using the source's records.
    records = records_of(src)
    index = record_index(src, seat_seq + 1)
    gap = records[:index] + records[index + 1:]
    corpus.add("gap-in-seq", game_id, "event numbers skip one (an event lost)", LOG,
               f"event numbered {seat_seq + 2} where {seat_seq + 1} was due", b"".join(gap),
               index, offset_of(gap, index), None)
    flipped = bytearray(b"".join(records))
    at = offset_of(records, index)
    body_end = at + len(records[index]) - 6
    flipped[body_end] ^= 0x01  # the last byte of the body: a string or number, still msgpack
    corpus.add("flipped-byte", game_id, "one byte of an event flipped: its CRC does not match",
               LOG, "checksum mismatch", bytes(flipped), index, at, None)
    version = records_of(src, {**src.header, "rules": game.rules_version + 1})
    corpus.add("wrong-rules-version", game_id, "a rules version this engine does not play",
               LOG, f"{game_id} rules version {game.rules_version + 1}; this engine plays "
               f"version {game.rules_version}", b"".join(version), 0, 0, None)
    checkpoints = [i for i, b in enumerate(src.bodies) if b["kind"] == "checkpoint"]
    if checkpoints:
        at_index = checkpoints[-1]
        body = src.bodies[at_index]
        state = {**body["state"], "not_in_the_engine": 1}
        bodies = list(src.bodies)
        bodies[at_index] = {**body, "state": state, "hash": state_hash(state)}
        agreed = src.bodies[checkpoints[-2]]["seq"] if len(checkpoints) > 1 else 0
        desync = [encode_record(src.header)] + [encode_record(b) for b in bodies]
        corpus.add("desync", game_id, "a checkpoint whose state the rebuilt game does not have",
                   MISMATCH, "state.not_in_the_engine: only in the log", b"".join(desync),
                   1 + at_index, offset_of(desync, 1 + at_index), body["seq"], agreed)


# --- Stars ----------------------------------------------------------------------------------


def stars_cases(corpus: Corpus) -> None:
    from starhall.shared.games.stars.rules import DECK, SUIT_NAMES, resolve_trick

    src = source("stars", 4, (("target", 60),), 7)
    codes = DECK.codes
    first = src.states[1]  # after the first deal: bidding
    turn = first.turn
    draft = corpus.draft

    draft(src, 1).bad("bid", (turn + 1) % 4, {"amount": 30}).write(
        "bid-out-of-turn", "a bid by the seat after the one whose turn it is",
        f"it is seat {turn}'s turn")
    draft(src, 1).bad("bid", turn, {"amount": 29}).write(
        "bid-below-minimum", "an opening bid of 29 with min_bid 30", "the minimum bid is 30")
    draft(src, 1).play("bid", turn, {"amount": 45}).bad("bid", (turn + 1) % 4, {"amount": 45}
                                                        ).write(
        "bid-not-higher", "a bid equal to the last bid",
        f"a bid must be higher than 45, seat {turn}'s bid")
    draft(src, 1).bad("bid", turn, {"amount": 241}).write(
        "bid-too-high", "a bid above 240, which no hand can score",
        "no hand can score more than 240")
    draft(src, 1).bad("bid", turn, {"amount": "50"}).write(
        "bid-not-a-number", "a bid whose amount is a string", "a bid needs 'amount'")
    forced = draft(src, 1)
    for offset in range(3):
        forced.play("pass", (turn + offset) % 4)
    forced.bad("bid_passed", (turn + 3) % 4).write(
        "forced-bidder-passes", "the fourth bidder passes after three passes",
        "the other three have passed, so you must bid")

    bury = src.find(lambda s, i: s.phase == "bury")
    assert bury is not None
    declarer = src.states[bury].turn
    held = codes(src.states[bury].hands[declarer])
    elsewhere = codes(src.states[bury].hands[(declarer + 1) % 4])
    draft(src, bury).bad("buried", declarer, {"cards": held[:2]}).write(
        "bury-two-cards", "a burial of two cards", "choose exactly 3 cards, not 2")
    draft(src, bury).bad("buried", declarer, {"cards": [*held[:2], elsewhere[0]]}).write(
        "bury-card-not-held", "a burial with a card of another seat",
        f"you do not hold the {DECK.card(elsewhere[0]).name}")
    buried = src.events[bury].data["cards"]
    draft(src, bury).bad("buried", declarer, {"cards": list(reversed(buried))}).rest().write(
        "bury-out-of-deck-order", "the buried cards listed high to low, not in deck order",
        f"cards is {list(reversed(buried))!r} where the rules give {buried!r}")
    draft(src, bury).bad("played", declarer, {"card": held[0]}).write(
        "play-before-burial", "the declarer plays before burying",
        "no card play now: you must bury three cards first")

    lead = bury + 1  # after the burial: the declarer leads
    leader = src.states[lead].turn
    other = codes(src.states[lead].hands[(leader + 2) % 4])[0]
    draft(src, lead).bad("played", leader, {"card": other}).write(
        "card-not-held", "a card played that the seat does not hold",
        f"you do not hold the {DECK.card(other).name}")
    draft(src, lead).bad("played", leader, {"card": "Ck"}).write(
        "unknown-card-code", "a card code of no card (Skulls have no Champion)",
        "'Ck' is not a card of this game")
    draft(src, lead).bad("played", leader + 4, {"card": codes(src.states[lead].hands[leader])[0]}
                         ).write("seat-out-of-range", "a play by seat 4 of 0-3",
                                 f"{leader + 4} is not a seat at this table")

    def off_suit(state: Any, i: int) -> bool:
        if state.phase != "play" or not state.trick:
            return False
        suit = DECK.suit_of[state.trick[0][1]]
        hand = state.hands[state.turn]
        return bool(hand & DECK.suit_mask[suit]) and bool(hand & ~DECK.suit_mask[suit])

    at = src.find(off_suit)
    assert at is not None
    state = src.states[at]
    suit = DECK.suit_of[state.trick[0][1]]
    stray = codes(state.hands[state.turn] & ~DECK.suit_mask[suit])[0]
    following = codes(state.hands[state.turn] & DECK.suit_mask[suit])
    holding = (f"the {DECK.card(following[0]).name}" if len(following) == 1
               else f"{len(following)} {SUIT_NAMES[suit]}")
    not_following = draft(src, at).bad("played", state.turn, {"card": stray}).rest().write(
        "not-following-suit", "a card of another suit while holding the suit led (mid-log)",
        f"you must follow suit: {SUIT_NAMES[suit]} were led and you hold {holding}, so the "
        f"{DECK.card(stray).name} may not be played")

    def after_star(state: Any, i: int) -> bool:
        return state.phase == "play" and not state.trick and bool(state.tricks) and \
            state.tricks[-1][1].star and not state.rules.colored_star

    stars = [source("stars", 4, (("target", 60),), seed) for seed in (7, 1, 2, 3, 4, 5)]
    star_src, at = find(stars, after_star, "a Star has just been settled")
    state = star_src.states[at]
    trick, result = state.tricks[-1]
    assert resolve_trick(trick, False).leader == state.turn
    skull = result.star_pile
    draft(star_src, at).bad("played", skull, {"card": codes(state.hands[skull])[0]}).rest(
    ).write("wrong-leader-after-star",
            "the Skull's player (who keeps the Star) leads the next trick; the top card's "
            "player must", f"it is seat {state.turn}'s turn")

    end = len(src.events)
    trick_end = src.find(lambda s, i: s.phase == "play" and not s.trick and bool(s.tricks))
    assert trick_end is not None
    draft(src, trick_end).bad("trick_taken", src.states[trick_end].turn, {}).write(
        "derived-event-logged", "a writer logs a derived fact (the trick's taker) as an event",
        "stars has no event 'trick_taken'")
    order = codes(DECK.full)
    draft(src, end).bad("deal", None, {"order": order, "seed": 1}).write(
        "deal-after-game-over", "a deal after the game is over",
        "the game is not waiting for a shuffle")
    played = src.find(lambda s, i: s.phase == "play" and i + 1 < end
                      and src.events[i].type == "played")
    assert played is not None
    event = src.events[played]
    draft(src, played).bad("played", event.seat, {**event.data, "trick": 1}).rest().write(
        "play-with-extra-key", "a play whose data has an extra key",
        "trick is not part of this event")

    deals = [i for i, e in enumerate(src.events) if e.type == "deal"]
    dealt = src.events[deals[1]].data
    duplicated = list(dealt["order"])
    duplicated[20] = duplicated[3]
    draft(src, deals[1]).bad("deal", None, {**dealt, "order": duplicated}).rest().write(
        "deal-duplicated-card", "a deal holding one card twice and another not at all",
        "the order must hold exactly the 43 cards to shuffle")
    draft(src, deals[1]).bad("deal", None, {**dealt, "order": dealt["order"][:-1]}).rest().write(
        "deal-missing-card", "a deal of 42 cards", "the order must hold exactly the 43 cards")
    draft(src, 0).bad("deal", 0, dict(src.events[0].data)).rest().write(
        "deal-with-a-seat", "a deal made by seat 0, not the host",
        "only the host can shuffle, not a seat")
    draft(src, 0).bad("deal", None, {**src.events[0].data, "seed": "7"}).rest().write(
        "deal-seed-not-a-number", "a deal whose seed is a string",
        "a shuffle's 'seed' must be a whole number")

    corpus.bug_report("bug-report-illegal-log", not_following,
                      "a bug report (F9) whose log does not follow suit")
    out_of_order, stray_bytes = stars_damage(corpus, src)
    corpus.bug_report("bug-report-events-out-of-order", out_of_order,
                      "a bug report (F9) whose log has two events swapped")
    corpus.bug_report("bug-report-stray-bytes", stray_bytes,
                      "a bug report (F9) whose log has stray bytes between records")


def stars_damage(corpus: Corpus, src: Source) -> tuple[Case, Case]:
    """Damaged files; returns two to wrap in bug reports."""
    records = records_of(src)
    seq = 30
    index = record_index(src, seq)
    swapped = list(records)
    swapped[index], swapped[index + 1] = swapped[index + 1], swapped[index]
    out_of_order = corpus.add("events-out-of-order", "stars", "two events swapped", LOG,
               f"event numbered {seq + 1} where {seq} was due", b"".join(swapped), index,
               offset_of(swapped, index), None)
    twice = records[:index + 1] + records[index:]
    corpus.add("event-written-twice", "stars", "one event written twice", LOG,
               f"event numbered {seq} where {seq + 1} was due", b"".join(twice), index + 1,
               offset_of(twice, index + 1), None)
    note = records[:index] + [encode_record({"kind": "note", "text": "hi"})] + records[index:]
    corpus.add("unknown-record-kind", "stars", "a record of an unknown kind", LOG,
               "unknown record kind 'note'", b"".join(note), index, offset_of(note, index), None)
    body = src.bodies[index - 1]
    no_data = records[:index] + [encode_record({k: v for k, v in body.items() if k != "data"})]
    corpus.add("event-without-data", "stars", "an event record without its data", LOG,
               "an event without 'data'", b"".join(no_data + records[index + 1:]), index,
               offset_of(no_data, index), None)
    listed = records[:index] + [encode_record({**body, "data": ["card", "2k"]})]
    corpus.add("event-data-not-a-map", "stars", "an event whose data is a list", LOG,
               "malformed event", b"".join(listed + records[index + 1:]), index,
               offset_of(listed, index), None)
    chess = records_of(src, {**src.header, "game": "chess"})
    corpus.add("unknown-game", "stars", "a header naming a game this build does not have", LOG,
               "unknown game: no game 'chess'", b"".join(chess), 0, 0, None)
    five = records_of(src, {**src.header, "players": 5})
    corpus.add("header-five-players", "stars", "a Stars header for 5 players", LOG,
               "bad header: stars is for 4 players, not 5", b"".join(five), 0, 0, None)
    options = records_of(src, {**src.header, "options": {**src.header["options"],
                                                         "min_bid": 0}})
    corpus.add("header-bad-option", "stars", "a header with min_bid 0", LOG,
               "bad header: stars: option min_bid must be at least 1", b"".join(options), 0, 0,
               None)
    fmt = records_of(src, {**src.header, "format": 3})
    corpus.add("wrong-format-version", "stars", "a log of format 3", LOG,
               "format 3 is not 1 or 2", b"".join(fmt), 0, 0, None)
    seating_damage(corpus, src, records, index)
    corpus.add("not-a-starhall-log", "stars", "a framed record that is not a Starhall header",
               NOT_LOG, "is not a Starhall log",
               encode_record({"kind": "header", "magic": "other-log"}) + b"".join(records[1:]),
               0, 0, None)
    checkpoints = [i for i, b in enumerate(src.bodies) if b["kind"] == "checkpoint"]
    cp = src.bodies[checkpoints[1]]
    moved = records[:1 + checkpoints[1]] + [encode_record({**cp, "seq": cp["seq"] + 1})]
    corpus.add("checkpoint-misplaced", "stars", "a checkpoint naming an event not yet logged",
               LOG, "malformed checkpoint", b"".join(moved + records[2 + checkpoints[1]:]),
               1 + checkpoints[1], offset_of(moved, 1 + checkpoints[1]), None)
    ahead = list(records)
    ahead[1 + checkpoints[1]] = encode_record({**cp, "cids_from": cp["seq"] + 2})
    corpus.add("checkpoint-cids-from-ahead", "stars",
               "a checkpoint whose command ids are to be read from an event after it", LOG,
               f"cids_from {cp['seq'] + 2} is no event from 1 to {cp['seq'] + 1}",
               b"".join(ahead), 1 + checkpoints[1], offset_of(ahead, 1 + checkpoints[1]), None)
    state = {**cp["state"], "totals": [t + 5 for t in cp["state"]["totals"]]}
    desync = list(records)
    desync[1 + checkpoints[1]] = encode_record({**cp, "state": state, "hash": state_hash(state)})
    corpus.add("desync-totals", "stars",
               "a checkpoint with totals 5 higher than the game's (desync)", MISMATCH,
               "state.totals[0]: recorded", b"".join(desync), 1 + checkpoints[1],
               offset_of(desync, 1 + checkpoints[1]), cp["seq"], src.bodies[checkpoints[0]]["seq"])
    garbage = bytes(range(0xC1, 0x100)) * 3
    corpus.add("garbage", "stars", "bytes that are not msgpack at all", NOT_LOG,
               "is not a Starhall log", garbage, 0, 0, None)
    middle = records[:index] + [b"\xc1\xc1\xc1"] + records[index:]
    stray = corpus.add("garbage-between-records", "stars", "three stray bytes between two records",
               LOG, "not a msgpack record", b"".join(middle), index, offset_of(middle, index),
               None)
    corpus.add("empty-file", "stars", "an empty file", LOG,
               "no header: the file is empty or not a Starhall log", b"", 0, 0, None)
    no_log = corpus.folder / f"stars-{len(corpus.cases) + 1:02d}-bug-report-no-log{BUG_SUFFIX}"
    write_bug_report(no_log, make_bug_report("it froze", {"table": "t1"}, None,
                                             "the table had no log", [], 0.0))
    corpus.cases.append(Case("bug-report-no-log", "stars", "a bug report that holds no log",
                             LOG, "this bug report holds no table log (the table had no log)",
                             no_log, str(no_log), 0, 0, None))
    return out_of_order, stray


# --- Hearts ---------------------------------------------------------------------------------


def seating_damage(corpus: Corpus, src: Source, records: list[bytes], index: int) -> None:
    """Who sits where, recorded wrongly: a seating record that is not one, or out of place, a
    checkpoint whose seats are not what the records give, a header's seats that are none."""
    seq = src.bodies[index - 1]["seq"] - 1  # the seating record goes right after this event
    free = {"state": "free", "name": None, "bot": None, "standin": False}
    for name, body, reason in (
            ("seating-record-bad-state", {"state": "king", "name": "Ada"},
             "malformed seating record: seat state 'king' is not free, player or bot"),
            ("seating-record-bot-without-kind", {"state": "bot", "name": "Ada"},
             "malformed seating record: a bot seat names its kind in 'bot'"),
            ("seating-record-misplaced", {**free, "seq": seq + 2},
             "malformed seating record"),
            ("seating-record-no-such-seat", {**free, "seat": 4}, "malformed seating record")):
        record = encode_record({"kind": "seating", "seq": seq, "seat": 1, **body})
        broken = records[:index] + [record] + records[index:]
        corpus.add(name, "stars", f"a seating record: {reason}", LOG, reason,
                   b"".join(broken), index, offset_of(broken, index), None)
    older = [encode_record({**src.header, "format": 1}),
             *(encode_record({k: v for k, v in body.items() if k != "seats"})
               for body in src.bodies)]
    record = encode_record({"kind": "seating", "seq": seq, "seat": 1, **free})
    broken = older[:index] + [record] + older[index:]
    corpus.add("seating-record-in-format-1", "stars", "a seating record in a log of format 1",
               LOG, "unknown record kind 'seating'", b"".join(broken), index,
               offset_of(broken, index), None)
    checkpoints = [i for i, b in enumerate(src.bodies) if b["kind"] == "checkpoint"]
    cp = src.bodies[checkpoints[0]]
    moved = list(records)
    moved[1 + checkpoints[0]] = encode_record({**cp, "seats": [free, *cp["seats"][1:]]})
    corpus.add("checkpoint-seats-differ", "stars",
               "a checkpoint whose seats are not those the log's seating records give", LOG,
               "the checkpoint's seat 0 is", b"".join(moved), 1 + checkpoints[0],
               offset_of(moved, 1 + checkpoints[0]), None)
    unseated = list(records)
    unseated[1 + checkpoints[0]] = encode_record({k: v for k, v in cp.items() if k != "seats"})
    corpus.add("checkpoint-without-seats", "stars", "a checkpoint of format 2 without seats",
               LOG, "malformed checkpoint: seats must be a list of 4 seat maps",
               b"".join(unseated), 1 + checkpoints[0], offset_of(unseated, 1 + checkpoints[0]),
               None)
    seats = [*src.header["seats"][:3], {"state": "bot", "name": "Dmitri"}]
    corpus.add("header-seat-without-bot-kind", "stars", "a header's bot seat without its kind",
               LOG, "bad header: seat 3: a bot seat names its kind in 'bot'",
               b"".join(records_of(src, {**src.header, "seats": seats})), 0, 0, None)


def hearts_cases(corpus: Corpus) -> None:
    from starhall.shared.games.hearts.rules import CLUBS, HEARTS, JOKER, STARDECK

    deck = STARDECK
    codes = deck.codes
    draft = corpus.draft
    src = source("hearts", 4, (("target", 30),), 7)
    exchange = src.states[1]
    assert exchange.phase == "exchange"

    def holding_points(d: Draft) -> Draft:
        while not d.state.hands[d.state.turn] & d.state.rules.point_cards:
            d.play("decline_exchange", d.state.turn)
        return d

    d = holding_points(draft(src, 1))
    seat = d.state.turn
    point = codes(d.state.hands[seat] & d.state.rules.point_cards)[0]
    d.bad("exchange_taken", seat, {"cards": [point]}).write(
        "exchange-discards-point-card", f"the exchange taken discarding {point}",
        "only non-point cards (not Hearts, not the Queen of Spades) may be discarded")
    forced = draft(src, 1)
    for _ in range(4):
        forced.play("decline_exchange", forced.state.turn)
    forced.bad("exchange_declined", forced.state.turn).write(
        "forced-exchange-declined", "the exchange declined after every seat has declined",
        "everyone has declined, so you must take the exchange")

    passing = src.find(lambda s, i: s.phase == "pass")
    assert passing is not None
    state = src.states[passing]
    hand = codes(state.hands[1])
    other = codes(state.hands[2])[0]
    draft(src, passing).bad("passed", 1, {"cards": hand[:2]}).write(
        "pass-two-cards", "a pass of 2 cards where 3 are passed",
        "choose exactly 3 cards, not 2")
    draft(src, passing).bad("passed", 1, {"cards": [*hand[:2], other]}).write(
        "pass-card-not-held", "a pass with another seat's card",
        f"you do not hold the {deck.card(other).name}")
    draft(src, passing).play("pass", 1, {"cards": hand[:3]}).bad(
        "passed", 1, {"cards": hand[3:6]}).write(
        "pass-twice", "a seat passes twice in one hand",
        "you have already passed your cards this hand")
    draft(src, passing).bad("passed", 1, {"cards": list(reversed(hand[:3]))}).write(
        "pass-out-of-deck-order", "passed cards listed high to low, not in deck order",
        f"cards is {list(reversed(hand[:3]))!r} where the rules give {hand[:3]!r}")
    draft(src, passing).bad("played", 1, {"card": hand[0]}).write(
        "play-during-passing", "a card played while cards are being passed",
        "no card play now: cards are being passed")
    draft(src, passing).bad("passed", 4, {"cards": hand[:3]}).write(
        "seat-out-of-range", "a pass by seat 4 at a 4-seat table", "4 is not a seat at this table")

    lead = src.find(lambda s, i: s.phase == "play")
    assert lead is not None
    state = src.states[lead]
    leader = state.turn
    club = codes(lowest_bit(state.hands[leader] & deck.suit_mask[CLUBS]))[0]
    wrong = codes(state.hands[leader] & ~deck.mask([club]))[0]
    draft(src, lead).bad("played", leader, {"card": wrong}).write(
        "first-lead-not-lowest-club", f"the first trick led with {wrong}, not {club}",
        f"you must lead the {deck.card(club).name}: the first trick is led with the lowest "
        "Club in play")
    follower = (leader + 1) % 4
    draft(src, lead).bad("played", follower, {"card": codes(state.hands[follower])[0]}).write(
        "play-out-of-turn", "the seat after the leader plays first",
        f"it is seat {leader}'s turn to play")
    draft(src, lead).bad("played", leader, {"card": "1C"}).write(
        "unknown-card-code", "a card code of no card", "'1C' is not a card of this game")

    def heart_lead(state: Any, i: int) -> bool:
        hand = state.hands[state.turn] if state.phase == "play" else 0
        return (state.phase == "play" and not state.trick and state.tricks_played > 0
                and not state.hearts_broken and bool(hand & deck.suit_mask[HEARTS])
                and bool(hand & ~deck.suit_mask[HEARTS]))

    h_src, at = find(seeds("hearts", 4, {"target": 30}), heart_lead, "hearts can be led early")
    state = h_src.states[at]
    heart = codes(state.hands[state.turn] & deck.suit_mask[HEARTS])[0]
    draft(h_src, at).bad("played", state.turn, {"card": heart}).rest().write(
        "heart-led-unbroken", f"{heart} led before hearts are broken (mid-log)",
        "Hearts may not be led until a Heart has been played")

    def first_trick_void(state: Any, i: int) -> bool:
        if state.phase != "play" or state.tricks_played or not state.trick:
            return False
        hand = state.hands[state.turn]
        return (not hand & deck.suit_mask[CLUBS] and bool(hand & state.rules.point_cards)
                and bool(hand & ~state.rules.point_cards))

    six = seeds("hearts", 6, {"mode": "no_exchange", "target": 30})
    v_src, at = find(six, first_trick_void, "a seat void in clubs on the first trick")
    state = v_src.states[at]
    points = codes(state.hands[state.turn] & state.rules.point_cards)
    draft(v_src, at).bad("played", state.turn, {"card": points[-1]}).rest().write(
        "point-card-on-first-trick", f"{points[-1]} discarded on the first trick (mid-log)",
        "no Heart or Queen of Spades on the first trick")

    def joker_lead(state: Any, i: int) -> bool:
        hand = state.hands[state.turn] if state.phase == "play" else 0
        return (state.phase == "play" and not state.trick and state.tricks_played > 0
                and bool(hand & deck.mask([JOKER])) and hand.bit_count() > 1)

    anti = seeds("hearts", 3, {"mode": "anti_trump", "target": 30})
    j_src, at = find(anti, joker_lead, "a seat to lead holds the Joker and more")
    state = j_src.states[at]
    draft(j_src, at).bad("played", state.turn, {"card": JOKER}).rest().write(
        "joker-led-with-others", "the Joker led from a hand holding other cards (anti_trump)",
        "the Joker may be led only from a hand with nothing else")

    classic = source("hearts", 4, (("deck", "classic"), ("target", 30)), 7)
    c_lead = classic.find(lambda s, i: s.phase == "play")
    assert c_lead is not None
    c_turn = classic.states[c_lead].turn
    draft(classic, c_lead).bad("played", c_turn, {"card": "2*"}).write(
        "star-card-in-classic-deck", "a Stars card played with the classic deck",
        "'2*' is not a card of this game")

    end = len(src.events)
    draft(src, end).bad("played", src.states[end].turn, {"card": "2C"}).write(
        "play-after-game-over", "a card played after the game is over",
        "no card play now: the game is over")
    hand_end = src.find(lambda s, i: i > 0 and s.phase == "deal")
    assert hand_end is not None
    draft(src, hand_end).bad("hand_scored", None, {"scores": [0, 0, 0, 0]}).write(
        "derived-event-logged", "a writer logs the hand's scores as an event",
        "hearts has no event 'hand_scored'")
    event = src.events[lead]
    draft(src, lead).bad("played", event.seat, {**event.data, "time": 1.5}).rest().write(
        "play-with-extra-key", "a play whose data has an extra key",
        "time is not part of this event")
    deal = src.events[0].data
    no_exchange = source("hearts", 4, (("mode", "no_exchange"), ("target", 30)), 7)
    order = ["2C", *no_exchange.events[0].data["order"][1:]]
    draft(no_exchange, 0).bad("deal", None, {**no_exchange.events[0].data, "order": order}
                              ).rest().write(
        "deal-with-removed-card", "a no_exchange deal holding 2C, which is out of play",
        "the order must hold exactly the 64 cards to shuffle")
    draft(src, 0).bad("deal", None, {**deal, "order": [*deal["order"], "JK"]}).rest().write(
        "deal-with-joker", "a deal with the Joker outside anti_trump",
        "the order must hold exactly the 65 cards to shuffle")


# --- The Star (star_patience) ------------------------------------------------------------


def star_patience_cases(corpus: Corpus) -> None:
    """Only through the engine contract (legal_actions), as the game is new."""
    game = get_game("star_patience")
    src = source("star_patience", 1, (), 1)
    draft = corpus.draft

    def can_pair(state: Any, i: int) -> bool:
        return any(c.type == "pair" for c in game.legal_actions(state, 0))

    at = src.find(can_pair)
    assert at is not None
    draft(src, at).bad("placed", 0, {"line": "N"}).write(
        "place-when-a-pair-is-possible", "a card placed when it can pair",
        "a card that can pair must pair")
    pair = next(c for c in game.legal_actions(src.states[at], 0) if c.type == "pair")
    draft(src, at).bad("paired", 1, dict(pair.data)).write(
        "seat-out-of-range", "a pair by seat 1 in a game for one", "1 is not a seat at this table")
    draft(src, 1).bad("undone", 0).write(
        "undo-before-any-decision", "an undo right after the deal", "nothing to undo")
    no_undo = source("star_patience", 1, (("undo", False),), 1)
    first = no_undo.find(lambda s, i: i > 1 and bool(game.legal_actions(s, 0)))
    assert first is not None
    draft(no_undo, first).bad("undone", 0).write(
        "undo-when-off", "an undo at a table with undo off", "undo is off at this table")


def lowest_bit(cards: int) -> int:
    return cards & -cards


GAME_CASES: dict[str, Callable[[Corpus], None]] = {
    "stars": stars_cases,
    "hearts": hearts_cases,
    "star_patience": star_patience_cases,
}
"""Each game's own cases; a game without an entry still gets ``common_cases``."""


def write_corpus(folder: str | Path) -> list[Case]:
    """Write every case into ``folder`` (created if needed) and return them."""
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    corpus = Corpus(target)
    for game_id in sorted(GAMES):
        add = GAME_CASES.get(game_id)
        if add is not None:
            add(corpus)
        common_cases(corpus, game_id)
    header_and_codec_cases(corpus)
    names = [case.file.name for case in corpus.cases]
    assert len(names) == len(set(names)), "two cases share a file name"
    return corpus.cases


def header_and_codec_cases(corpus: Corpus) -> None:
    """Headers of the wrong types, a map keyed by a list, two checkpoints for one event."""
    src = source("stars", 4, (("target", 60),), 7)
    for name, options in (("header-options-a-number", 5), ("header-options-a-list", ["min_bid"])):
        corpus.add(name, "stars", f"a header whose options are {options!r}", LOG, "bad header",
                   b"".join(records_of(src, {**src.header, "options": options})), 0, 0, None)
    corpus.add("header-rules-true", "stars", "a header whose rules version is true", LOG,
               "rules version True", b"".join(records_of(src, {**src.header, "rules": True})),
               0, 0, None)
    records = records_of(src)
    index = record_index(src, 30)
    listed = records[:index] + [encode_record({**src.bodies[index - 1], "data": {(1,): 1}})]
    corpus.add("map-keyed-by-a-list", "stars",
               "an event whose data map has a list as a key (a flipped byte can make one)", LOG,
               "not a msgpack record", b"".join(listed + records[index + 1:]), index,
               offset_of(listed, index), None)
    checkpoints = [i for i, b in enumerate(src.bodies) if b["kind"] == "checkpoint"]
    body = src.bodies[checkpoints[0]]
    state = {**body["state"], "totals": [t + 5 for t in body["state"]["totals"]]}
    index = 1 + checkpoints[0]
    twice = records[:index] + [encode_record({**body, "state": state,
                                              "hash": state_hash(state)})] + records[index:]
    corpus.add("two-checkpoints-one-event", "stars",
               "two checkpoints after one event, the first disagreeing with the game", LOG,
               "a second checkpoint after event", b"".join(twice), index + 1,
               offset_of(twice, index + 1), None)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tests/broken_logs.py OUTDIR", file=sys.stderr)
        return 2
    cases = write_corpus(argv[0])
    for case in cases:
        where = f"event {case.seq}" if case.seq is not None else f"record {case.record}"
        print(f"{case.file.name}: {case.breaks} -> {case.refusal} at {where}: {case.reason}")
    print(f"{len(cases)} broken logs in {argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
