"""Animation as data: flights of card sprites with easing, queued in steps.

Nothing here reads a clock or knows a game: ``Animator.advance(dt)`` moves time on, and the
view asks where each sprite is. Steps play one after another; when updates arrive faster
than they play, the queue speeds up and, past ``MAX_BACKLOG``, finishes old steps at once,
so the table never lags far behind the game. Input never waits on any of this.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starhall.client.user import settings

Easing = Callable[[float], float]

MAX_BACKLOG = 4
"""Queued steps beyond this are finished instantly."""
CATCH_UP = 0.8
"""Extra speed per queued step: with three steps waiting, time runs 3.4 times as fast."""


def linear(t: float) -> float:
    return t


def ease_out_cubic(t: float) -> float:
    return 1 - (1 - t) ** 3


def ease_in_out_cubic(t: float) -> float:
    return 4 * t**3 if t < 0.5 else 1 - (-2 * t + 2) ** 3 / 2


def ease_out_back(t: float) -> float:
    """Overshoots a little and settles: a card that lands with a slight bounce."""
    c1 = 1.70158
    return 1 + (c1 + 1) * (t - 1) ** 3 + c1 * (t - 1) ** 2


@dataclass(frozen=True, slots=True)
class Pose:
    x: float
    y: float
    scale: float = 1.0
    alpha: float = 1.0

    def toward(self, other: Pose, t: float) -> Pose:
        return Pose(self.x + (other.x - self.x) * t, self.y + (other.y - self.y) * t,
                    self.scale + (other.scale - self.scale) * t,
                    self.alpha + (other.alpha - self.alpha) * t)


@dataclass(frozen=True, slots=True)
class Flight:
    """One sprite moving from ``start`` to ``end``."""

    sprite: str
    """A card code, or ``"back"`` for a face-down card."""
    start: Pose
    end: Pose
    delay: float = 0.0
    duration: float = 0.35
    easing: Easing = ease_out_cubic
    hides: str | None = None
    """A key the static scene leaves out until this flight lands (where the card ends up)."""
    hold: bool = False
    """Drawn at ``start`` while waiting for its delay (a card that is already on the table)."""
    flash: bool = False
    """Glows while it flies: a Star leaving the trick."""

    @property
    def ends_at(self) -> float:
        return self.delay + self.duration


@dataclass(frozen=True, slots=True)
class Banner:
    """A line of text shown for a while at a point (a bid, "Star!", a hand's result)."""

    text: str
    at: Pose
    delay: float = 0.0
    duration: float = 1.2

    @property
    def ends_at(self) -> float:
        return self.delay + self.duration


@dataclass(slots=True)
class Step:
    """Items that play together; the next step starts when this one has finished."""

    items: list[Flight | Banner] = field(default_factory=list)
    payload: Any = None
    """Carried for the caller: the table view this step leads to."""
    pause: float = 0.0
    """Stillness after the items, e.g. to let people see a full trick."""
    cues: tuple[str, ...] = ()
    """Sounds (``client.ui.sound``) for when the step starts to show; a step finished unseen
    (a backlog, a seek) stays silent."""

    @property
    def length(self) -> float:
        return max((item.ends_at for item in self.items), default=0.0) + self.pause


@dataclass(frozen=True, slots=True)
class Sprite:
    sprite: str
    pose: Pose
    flash: float = 0.0
    """0..1, how strongly the sprite glows now."""


@dataclass(frozen=True, slots=True)
class Caption:
    text: str
    pose: Pose


class Animator:
    def __init__(self) -> None:
        self.queue: list[Step] = []
        self.elapsed = 0.0
        """Time into the first step of the queue."""
        self.settled_payload: Any = None
        """The payload of the last step that finished."""
        self.started: list[str] = []
        """Cues of the steps started since ``take_cues`` was last called."""
        self._cued: Step | None = None

    def add(self, step: Step) -> None:
        self.queue.append(step)
        while len(self.queue) > MAX_BACKLOG:
            self._finish_first()

    def add_settled(self, payload: Any) -> None:
        """Show ``payload`` once what is queued has played (at once if nothing is)."""
        if self.queue:
            self.add(Step([], payload))
        else:
            self.settled_payload = payload

    def skip_all(self) -> None:
        """Finish everything at once (seeking in a replay, a resync)."""
        while self.queue:
            self._finish_first()

    def _finish_first(self) -> None:
        step = self.queue.pop(0)
        self.elapsed = 0.0
        if step.payload is not None:
            self.settled_payload = step.payload

    def _cue_first(self) -> None:
        if self.queue and self.queue[0] is not self._cued:
            self._cued = self.queue[0]
            self.started += self._cued.cues

    def take_cues(self) -> list[str]:
        cues, self.started = self.started, []
        return cues

    @property
    def busy(self) -> bool:
        return bool(self.queue)

    @property
    def speed(self) -> float:
        return 1.0 + CATCH_UP * max(0, len(self.queue) - 1)

    def advance(self, dt: float) -> None:
        self._cue_first()
        self.elapsed += max(0.0, dt) * self.speed * settings.current().animation_speed
        while self.queue and self.elapsed >= self.queue[0].length:
            self.elapsed -= self.queue[0].length
            self._finish_first()
            self._cue_first()
        if not self.queue:
            self.elapsed = 0.0

    @property
    def payload(self) -> Any:
        """The payload of the step playing now, else of the last one finished."""
        if self.queue and self.queue[0].payload is not None:
            return self.queue[0].payload
        return self.settled_payload

    def hidden(self) -> Counter[str]:
        """Keys the static scene must leave out: destinations of flights not yet landed."""
        keys: Counter[str] = Counter()
        for index, step in enumerate(self.queue):
            for item in step.items:
                if isinstance(item, Flight) and item.hides and (
                    index > 0 or self.elapsed < item.ends_at
                ):
                    keys[item.hides] += 1
        return keys

    def sprites(self) -> list[Sprite]:
        if not self.queue:
            return []
        now = self.elapsed
        drawn = []
        for item in self.queue[0].items:
            if not isinstance(item, Flight) or now >= item.ends_at:
                continue
            if now < item.delay:
                if item.hold:
                    drawn.append(Sprite(item.sprite, item.start))
                continue
            t = item.easing(min(1.0, (now - item.delay) / item.duration))
            glow = math.sin(math.pi * min(1.0, (now - item.delay) / item.duration)) if (
                item.flash) else 0.0
            drawn.append(Sprite(item.sprite, item.start.toward(item.end, t), glow))
        return drawn

    def captions(self) -> list[Caption]:
        if not self.queue:
            return []
        now = self.elapsed
        shown = []
        for item in self.queue[0].items:
            if isinstance(item, Banner) and item.delay <= now < item.ends_at:
                t = (now - item.delay) / item.duration
                alpha = min(1.0, 4 * (1 - t), 6 * t)  # fade in quickly, out at the end
                shown.append(Caption(item.text, Pose(item.at.x, item.at.y, item.at.scale, alpha)))
        return shown

