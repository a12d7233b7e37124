"""Short sounds for what happens at a table: ``play(cue)`` with a cue of ``CUES``.

The sounds are made here, in code, when a table opens (``prepare``): a few tones and filtered
noise bursts written as 16-bit WAV data with the standard library (``wave``, ``math``,
``array``), so no sound file has to be shipped or licensed (client/assets/sounds/README.md
says so; ``python -m client.ui.sound FOLDER`` writes them out as WAV files to listen to).

Sound is a nicety: ``play`` does nothing when the settings turn it off or there is no audio
device, and it never prints. The audio device is opened only when a table opens with sound on;
SDL's audio drivers (ALSA above all) complain on standard error from C when there is no
device, so standard error is silenced at the file-descriptor level while the mixer starts,
and a mixer that will not start just means silence.

Which cue an event gives is each game's to say (``GameTable.sound_cues`` in
client/games/base.py); ``attach`` hangs the cues on the animation steps the event makes, so a
sound plays when its step starts to show, not when the server's message arrives.
"""

from __future__ import annotations

import array
import io
import math
import random
import sys
import threading
import time
import wave
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

CUES = ("deal", "play", "trick", "star", "hand_end", "your_turn")
RATE = 22050
VOLUMES = {"deal": 0.4, "play": 0.35, "trick": 0.45, "star": 0.6, "hand_end": 0.55,
           "your_turn": 0.6}
"""How loud each cue plays (the sounds themselves peak near full scale): the frequent ones
softer, the ones that ask for attention louder."""
REPEAT_GAP = 0.04
"""Seconds within which the same cue is not started again (a burst of steps in one frame)."""

Samples = list[float]

# --- making the sounds ---------------------------------------------------------------------


def _seconds(duration: float) -> int:
    return int(RATE * duration)


def _tone(frequency: float, duration: float, decay: float, partials: Sequence[float] = (1.0,),
          attack: float = 0.004) -> Samples:
    """A struck tone: a sine (and quieter overtones) with a short attack and an exponential
    decay (``decay`` seconds to fall to about a third)."""
    count = _seconds(duration)
    out = [min(1.0, n / (RATE * attack)) * math.exp(-n / (RATE * decay)) for n in range(count)]
    wave_sum = [0.0] * count
    for k, weight in enumerate(partials):
        if weight:
            step = 2 * math.pi * frequency * (k + 1) / RATE
            wave_sum = [v + weight * math.sin(step * n) for n, v in enumerate(wave_sum)]
    return [e * v for e, v in zip(out, wave_sum, strict=True)]


def _noise(duration: float, decay: float, brightness: float, seed: int,
           attack: float = 0.002) -> Samples:
    """A burst of noise through a one-pole low-pass filter (``brightness`` 0..1 is how much
    of each new sample gets through): the snap of a card, the swish of a gathered trick."""
    rng = random.Random(seed)
    out, level = [], 0.0
    for n in range(_seconds(duration)):
        t = n / RATE
        level += brightness * (rng.uniform(-1.0, 1.0) - level)
        out.append(level * min(1.0, t / attack) * math.exp(-t / decay))
    return out


def _mix(length: float, *parts: tuple[float, float, Samples]) -> Samples:
    """Parts (start in seconds, gain, samples) laid over silence of ``length`` seconds."""
    out = [0.0] * _seconds(length)
    for start, gain, samples in parts:
        offset = _seconds(start)
        for n, value in enumerate(samples[: max(0, len(out) - offset)]):
            out[offset + n] += gain * value
    return out


def _normalised(samples: Samples, peak: float = 0.9) -> Samples:
    loudest = max((abs(v) for v in samples), default=0.0) or 1.0
    fade = min(len(samples), _seconds(0.01))  # no click at the end
    out = [v * peak / loudest for v in samples]
    for n in range(fade):
        out[len(out) - fade + n] *= 1 - n / fade
    return out


def _deal() -> Samples:
    # A riffle: six quick card snaps, each a little different.
    return _mix(0.32, *((0.045 * i, 0.8 + 0.05 * (i % 2), _noise(0.05, 0.012, 0.55, 11 + i))
                        for i in range(6)))


def _play() -> Samples:
    # One card laid down: a bright snap over a soft low knock.
    return _mix(0.12, (0.0, 1.0, _noise(0.08, 0.015, 0.6, 3)),
                (0.0, 0.5, _tone(180, 0.08, 0.02)))


def _trick() -> Samples:
    # The trick gathered: a soft swish that rises and falls, ending on a low wooden note.
    swish = _noise(0.22, 0.2, 0.25, 7, attack=0.08)
    return _mix(0.3, (0.0, 1.0, swish), (0.16, 0.5, _tone(294, 0.14, 0.04, (1.0, 0.3))))


def _star() -> Samples:
    # A Star: a quick rising arpeggio of bell tones (C6 E6 G6 C7).
    bell = (1.0, 0.0, 0.25, 0.0, 0.1)
    notes = (1047, 1319, 1568, 2093)
    return _mix(0.75, *((0.07 * i, 0.7, _tone(f, 0.6 - 0.07 * i, 0.18, bell))
                        for i, f in enumerate(notes)))


def _hand_end() -> Samples:
    # A hand's end: two soft chords, the second resolving (G4+D5, then C5+E5+G5).
    soft = (1.0, 0.35, 0.12)
    first = [_tone(f, 0.45, 0.2, soft) for f in (392, 587)]
    second = [_tone(f, 0.7, 0.3, soft) for f in (523, 659, 784)]
    return _mix(0.95, *((0.0, 0.6, s) for s in first), *((0.22, 0.5, s) for s in second))


def _your_turn() -> Samples:
    # Your turn: a gentle two-note chime upwards (E5, A5).
    chime = (1.0, 0.2, 0.05)
    return _mix(0.5, (0.0, 0.8, _tone(659, 0.3, 0.12, chime)),
                (0.12, 0.8, _tone(880, 0.38, 0.16, chime)))


RECIPES: dict[str, Callable[[], Samples]] = {
    "deal": _deal, "play": _play, "trick": _trick, "star": _star, "hand_end": _hand_end,
    "your_turn": _your_turn,
}


def wav_bytes(cue: str) -> bytes:
    """The cue as a mono 16-bit WAV file."""
    samples = _normalised(RECIPES[cue]())
    frames = array.array("h", (round(32767 * max(-1.0, min(1.0, v))) for v in samples))
    if sys.byteorder == "big":
        frames.byteswap()  # WAV data is little-endian
    out = io.BytesIO()
    with wave.open(out, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(RATE)
        file.writeframes(frames.tobytes())
    return out.getvalue()


def write_wavs(folder: Path) -> list[Path]:
    """Every cue as ``CUE.wav`` in ``folder``, to listen to."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for cue in CUES:
        path = folder / f"{cue}.wav"
        path.write_bytes(wav_bytes(cue))
        written.append(path)
    return written


# --- playing them ---------------------------------------------------------------------------


class _Player:
    """The mixer and the sounds. ``prepare`` opens the mixer and makes the sounds in a
    background thread (a few tenths of a second of arithmetic that no frame should wait for);
    ``failed`` after a mixer that would not start (no device), after which nothing is tried
    again."""

    def __init__(self) -> None:
        self.sounds: dict[str, Any] = {}
        self.made: dict[str, bytes] = {}
        self.maker: threading.Thread | None = None
        self.failed = False
        self.last: dict[str, float] = {}

    def prepare(self) -> None:
        if self.failed or self.maker is not None:
            return
        try:
            import pygame

            if not pygame.mixer.get_init():
                from starhall.client.ui.quiet import c_stderr_silenced

                with c_stderr_silenced():  # ALSA and friends write to fd 2 themselves
                    pygame.mixer.init(RATE, -16, 1, 256)
        except Exception:  # no device, no driver, no mixer in this pygame: silence
            self.failed = True
            return
        self.maker = threading.Thread(target=self._make, name="sounds", daemon=True)
        self.maker.start()

    def _make(self) -> None:
        self.made = {cue: wav_bytes(cue) for cue in CUES}

    def ready(self, wait: bool = False) -> bool:
        """Whether the sounds can be played now (``wait``: until they are made)."""
        if self.sounds or self.failed:
            return bool(self.sounds)
        self.prepare()
        if self.maker is None or (self.maker.is_alive() and not wait):
            return False
        self.maker.join()
        try:
            import pygame

            sounds = {cue: pygame.mixer.Sound(file=io.BytesIO(data))
                      for cue, data in self.made.items()}
            for cue, sound in sounds.items():
                sound.set_volume(VOLUMES[cue])
        except Exception:
            self.failed = True
            return False
        self.sounds = sounds
        return len(sounds) == len(CUES)

    def play(self, cue: str) -> None:
        now = time.monotonic()
        if now - self.last.get(cue, -1.0) < REPEAT_GAP:
            return
        self.last[cue] = now
        try:
            self.sounds[cue].play()
        except Exception:  # a device that went away mid-game: stay quiet
            self.failed = True


_player = _Player()


def enabled() -> bool:
    from starhall.client.user import settings

    return settings.current().sound


def play(cue: str) -> None:
    """Play ``cue`` (one of ``CUES``); a no-op when sound is off, the cue is unknown or there
    is no audio device. Never raises, never prints."""
    if enabled():
        play_now(cue)


def play_now(cue: str) -> None:
    """Play ``cue`` whatever the settings say (the settings' Try button); a no-op without an
    audio device."""
    if cue in RECIPES and _player.ready():
        _player.play(cue)


def play_all(cues: Iterable[str]) -> None:
    for cue in cues:
        play(cue)


def prepare() -> None:
    """Open the audio device and start making the sounds, when sound is on (a table calls
    this as it opens, so its first deal is heard)."""
    if enabled():
        _player.prepare()


def available() -> bool:
    """Whether sounds can be heard here (opens the mixer and makes the sounds if need be)."""
    return _player.ready(wait=True)


# --- cues on animation steps ----------------------------------------------------------------


def attach(steps: Sequence[Any], cues: Sequence[str]) -> None:
    """Hang an event's cues on the animation steps it made, in order: the first cue on the
    first step, the next on the next, any left over on the last step (a card played that
    completes a trick: "play" as it lands, "trick" as the trick is gathered)."""
    if not steps:
        return
    for index, cue in enumerate(cues):
        step = steps[min(index, len(steps) - 1)]
        step.cues = (*step.cues, cue)


def turn_began(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Whether the seat has something to do now and had nothing before."""
    return bool(after.get("legal")) and not before.get("legal")


def cue_turn(animator: Any, before: dict[str, Any], after: dict[str, Any]) -> None:
    """"your_turn" when the seat has just been given something to do: with the last step
    queued (when the table shows it), or now when nothing is queued."""
    if not turn_began(before, after):
        return
    if animator.queue:
        attach(animator.queue[-1:], ["your_turn"])
    else:
        play("your_turn")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m client.ui.sound FOLDER   (writes each cue as a WAV file)",
              file=sys.stderr)
        return 2
    for path in write_wavs(Path(argv[0])):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
