"""What every game's table is to the screens that show it, and what the tables share.

A ``TableScreen`` (live play, spectating, the replay viewer: ``client.screens``) draws a
game's table and hands it the game's events and the user's input through ``GameTable``'s
hooks, and a table reaches back only for what ``TableHost`` names. Which table draws which
game is ``client.games``' lookup, from each game's own package.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import pygame

from starhall.client.net.model import TableModel
from starhall.client.ui.layout import Layout

if TYPE_CHECKING:
    from starhall.client.net.session import Batch
    from starhall.client.ui.animation import Animator
    from starhall.client.ui.summary import Summary
    from starhall.client.ui.table_ui import TableUi
    from starhall.client.ui.widgets import Hotspots

View = dict[str, Any]
Event = dict[str, Any]


class TableHost(Protocol):
    """What a game's table may use of the screen it is drawn on
    (``client.screens.table_screen.TableScreen``), which it never imports."""

    model: TableModel
    layout: Layout
    ui: TableUi
    animator: Animator
    next_table: dict[str, Any] | None
    game_over: Any
    """The shared game-over panel (``GameOverPanel``) while the screen offers one."""

    @property
    def interactive(self) -> bool: ...

    def command(self, kind: str, data: dict[str, Any]) -> None: ...

    def say(self, line: str) -> None:
        """Put ``line`` in the side log after the lines of the events taken so far, once
        their animation has played."""
        ...

    def changed(self) -> None: ...

    def ask(self, title: str, detail: str, yes: str, yes_key: int,
            then: Callable[[], None]) -> None:
        """Open the screen's yes-or-no question (its safe answer, no, is the default): ``yes``
        labels the answer that calls ``then``, also given by the key ``yes_key``."""
        ...

    @property
    def asking(self) -> bool:
        """Whether a question is open over the table."""
        ...


class GameTable:
    """The hooks a ``TableScreen`` calls for one game: the trick games' (``client.games.tricks``)
    and each game's own table implement those that raise here; the others have defaults a
    game keeps or overrides. A game's own table draws itself in ``draw``."""

    def draw(self, surface: pygame.Surface, layout: Layout, model: TableModel,
             animator: Animator, ui: TableUi, interactive: bool = True) -> Hotspots:
        raise NotImplementedError

    # --- from the server -------------------------------------------------------------

    def choreographer(self, layout: Layout) -> Any:
        """Something with ``steps(before, event, after) -> list[Step]``."""
        raise NotImplementedError

    def between(self, before: View, event: Event) -> View:
        """A stand-in for the view after ``event`` when the server's comes only later."""
        raise NotImplementedError

    def describe(self, model: TableModel, event: Event) -> str | None:
        """A line for the panel's log."""
        raise NotImplementedError

    def choosing(self, model: TableModel) -> tuple[str, int] | None:
        """When the seat is choosing several cards: the command and how many it takes."""
        raise NotImplementedError

    def received(self, screen: TableHost, batch: Batch) -> None:
        """After the screen took a batch from the server."""

    def summary(self, model: TableModel, before: View, after: View) -> Summary | None:
        """The summary to show once the animation from ``before`` to ``after`` has played,
        when those events ended a hand or a round (``client.ui.summary``); ``None`` otherwise.
        The screen holds later batches until the player has read it."""
        return None

    def sound_cues(self, event: Event, before: View, after: View) -> tuple[str, ...]:
        """The sounds ``event`` makes (``client.ui.sound.CUES``), in the order of the animation
        steps it makes (``client.ui.sound.attach``). "your_turn" is the screen's, for every
        game."""
        raise NotImplementedError

    def colour_key(self, game: str) -> list[ColourGroup]:
        """What ``game`` tells apart by colour, for the settings' colour check: by default
        the suits of its cards (each has its own shape too). A game with more colour-coded
        things (star colours, coloured bars) adds its groups."""
        from starhall.shared.games import GAMES

        suits = suit_group(game)
        found = GAMES.get(game)
        groups = [suits] if suits.swatches else []
        if found is not None and found.max_players > 1:
            groups.append(seat_group(found.max_players))
        return groups

    # --- from the user ---------------------------------------------------------------

    def handle(self, screen: TableHost, event: pygame.event.Event, hotspots: Any) -> bool:
        """First look at a raw input event; ``True`` when the game used it."""
        return False

    def act(self, screen: TableHost, action: tuple[Any, ...]) -> bool:
        """A click on one of this game's hotspots; ``True`` when the game used it."""
        return False

    # --- the replay viewer -----------------------------------------------------------

    def replay_marks(self, game: Any, states: list[tuple[int, Any]]
                     ) -> tuple[tuple[str, list[int]], tuple[str, list[int]]]:
        """The replay viewer's jump buttons: (a word, the positions in ``states``) for the small
        jumps and for the big ones."""
        raise NotImplementedError

    # --- every frame -----------------------------------------------------------------

    def update(self, screen: TableHost, dt: float) -> None:
        """Time passes (after the animator has advanced)."""

    def redraw_after(self, screen: TableHost) -> float | None:
        """Seconds after the last drawing when this table looks different by itself (a
        pulsing glow, a blinking caret), or ``None``; the screen is drawn anyway after input,
        a batch from the server or while an animation runs."""
        return None

    # --- the shared game-over panel ----------------------------------------------------

    def game_over_panel(self, screen: TableHost) -> pygame.Rect | None:
        """Where the screen draws the shared ``GameOverPanel`` (Play again, Watch the replay,
        where the log is) while the game is over, or ``None`` for not now. A game opts in by
        returning the strip its own end box leaves free for it."""
        return None

    plays_again = False
    """Whether the game's own end box already starts a new game (a patience's New deal and
    Restart): the shared panel then leaves its Play again out."""


@dataclass(frozen=True, slots=True)
class Swatch:
    """One colour-coded thing: its name, its colour, and what tells it apart without colour:
    a ``client.ui.symbols`` shape drawn in the colour, a ``mark`` (a letter or number standing
    for a name or label the table always shows), and an ``extra`` mark the table adds only
    when the colour_blind setting is on."""

    name: str
    colour: tuple[int, int, int]
    shape: str | None = None
    mark: str = ""
    extra: str = ""


@dataclass(frozen=True, slots=True)
class ColourGroup:
    title: str
    swatches: tuple[Swatch, ...]
    cards: tuple[str, ...] = ()
    """Card codes to show as they are drawn at the table (one of each suit, say)."""
    note: str = ""
    """How they are told apart besides colour, in a sentence."""


def suit_group(game: str) -> ColourGroup:
    """The suits of the cards ``game`` deals (read from its first shuffle's cards)."""
    from starhall.client.ui.faces import face
    from starhall.shared.games import GAMES

    found = GAMES.get(game)
    codes: tuple[str, ...] = ()
    if found is not None:
        try:
            state = found.new_state(found.min_players, found.make_options(found.min_players, {}))
            request = found.chance(state)
            codes = request.items if request is not None else ()
        except Exception:  # a game that cannot start without options: no suits to show
            codes = ()
    swatches: dict[str, Swatch] = {}
    samples: dict[str, str] = {}
    for code in codes:
        style = face(code).suit
        if style.name not in swatches:
            swatches[style.name] = Swatch(style.name, style.colour, style.shape)
            samples[style.name] = code
        elif face(code).pips == 0 and not face(code).is_joker:
            samples[style.name] = code  # a court card shows the suit's colour best
    return ColourGroup("Suits", tuple(swatches.values()), tuple(samples.values()),
                       "Each suit has a shape of its own, on every card and in every index.")


def seat_group(players: int) -> ColourGroup:
    """The seats' colours: name plates, the score sheet, the score chart."""
    from starhall.client.ui import theme

    colours = theme.SEAT_COLOURS
    return ColourGroup("Seats", tuple(Swatch(f"Seat {seat + 1}", colours[seat % len(colours)],
                                             None, str(seat + 1)) for seat in range(players)),
                       note="Every seat's colour comes with its player's name: on the name "
                            "plates, the score sheet, and at the end of each line of the "
                            "score chart.")


# --- for every game's choreography: the animator's sprite keys, the order of a deal --------


def trick_key(code: str) -> str:
    return f"trick:{code}"


def hand_key(code: str) -> str:
    return f"hand:{code}"


def pile_key(code: str) -> str:
    return f"pile:{code}"


def back_key(seat: int) -> str:
    return f"back:{seat}"


def dealing_order(counts: list[int], first: int) -> list[tuple[int, int]]:
    """The order cards are dealt in: round the table one card at a time from seat ``first``,
    each seat until it has its ``counts[seat]`` cards; (seat, which of its cards) each."""
    players = len(counts)
    dealt = [0] * players
    order: list[tuple[int, int]] = []
    while players and any(dealt[s] < counts[s] for s in range(players)):
        for offset in range(players):
            seat = (first + offset) % players
            if dealt[seat] < counts[seat]:
                order.append((seat, dealt[seat]))
                dealt[seat] += 1
    return order
