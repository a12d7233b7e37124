"""Frame time of a full Stars table mid-animation at 1280x720, and the CPU an idle table
takes (a script, not a test).

    .venv/bin/python bench/client.py [--rounds 5] [--frames 200] [--idle 2]

Measures the time to draw one frame (felt, four seats, a trick with a card in flight, the hand
with legal cards outlined, the score panel) and, alternating with it in the same run, a bare
blit of a full-screen surface as a baseline for this machine. Prints p50 and p95 of both and
their ratios. Target: p95 at most 4 ms.

Then the idle cost: ``starhall play stars`` as it runs (its own server in the process, the
window loop of ``client.app.run``) while the table waits for the user's bid, as CPU time of
the whole process over wall time, in ``--rounds`` spells of ``--idle`` seconds alternated
with two others: a bare pygame loop that does nothing but look at its input and sleep (the
least any window can cost), and the same table drawn every frame at 60 a second (how the
loop ran before it learnt to sleep). Target: the idle table under 3% of a core.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pygame  # noqa: E402

from starhall.client.app import open_window  # noqa: E402
from starhall.client.net.model import TableModel  # noqa: E402
from starhall.client.net.session import Batch  # noqa: E402
from starhall.client.screens.table_screen import TableScreen  # noqa: E402
from tools.screenshots import NAMES, Scripted, _event_dict  # noqa: E402

SIZE = (1280, 720)


def table_mid_animation() -> TableScreen:
    """Seat 0 at a Stars table; the third card of a trick is flying in."""
    play = Scripted("stars", seed=3)
    play.run_until(lambda s: s.phase == "play" and s.turn == 0 and len(s.trick) == 2
                   and s.tricks_played >= 1)
    play.run_until(lambda s: len(s.trick) == 3)
    before, event, after = play.history[-1]
    game = play.game
    screen = TableScreen(TableModel("stars", 0, 4, NAMES[:4]), lambda kind, data: None,
                         size=SIZE)
    screen.receive(Batch([], game.view(before, 0), 1, True))
    shown = game.event_view(before, event, 0)
    assert shown is not None
    screen.receive(Batch([(2, _event_dict(shown))], game.view(after, 0), 2, False))
    return screen


class _Timed:
    """A screen for ``client.app.run`` that is done after ``seconds`` and is not closed."""

    def __init__(self, screen: Any, seconds: float, always_draw: bool = False) -> None:
        self.screen = screen
        self.deadline = time.monotonic() + seconds
        self.always_draw = always_draw

    @property
    def done(self) -> bool:
        return time.monotonic() >= self.deadline

    def __getattr__(self, name: str) -> Any:
        if name == "redraw_after" and self.always_draw:
            return lambda: 0.0
        return getattr(self.screen, name)

    def close(self) -> None:
        pass


class _Nothing:
    """The least a window loop can do: no drawing, no server."""

    done = False

    def frame(self, dt: float) -> None:
        pass

    def handle(self, event: pygame.event.Event) -> None:
        pass

    def draw(self, surface: pygame.Surface) -> None:
        pass

    def resize(self, size: tuple[int, int]) -> None:
        pass

    def redraw_after(self) -> float | None:
        return None

    def close(self) -> None:
        pass


def cpu_share(screen: Any) -> float:
    """Process CPU time over wall time while ``client.app.run`` drives ``screen``."""
    from starhall.client import app

    wall, cpu = time.perf_counter(), time.process_time()
    app.run(screen)
    return (time.process_time() - cpu) / (time.perf_counter() - wall)


def idle_table(seconds: float, rounds: int) -> None:
    import tempfile

    from starhall.client.screens import hosted as hosted_tables

    os.environ["STARHALL_DATA_DIR"] = tempfile.mkdtemp(prefix="starhall-bench-")
    hosted_tables.BOT_THINK = 0.0  # to the user's bid at once; the waiting is the same
    hosted = hosted_tables.HostedTable.new("stars", 4, {}, SIZE)
    surface = pygame.display.get_surface()
    live = hosted.live
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            live.frame(0.5)
            live.draw(surface)
            table = live.table
            if table is not None and "bid" in table.model.legal and not table.animator.busy:
                break
            time.sleep(0.01)
        else:
            raise SystemExit("the table never came to the user's bid")
        idle: list[float] = []
        bare: list[float] = []
        every: list[float] = []
        for _ in range(rounds):
            idle.append(cpu_share(_Timed(hosted, seconds)))
            bare.append(cpu_share(_Timed(_Nothing(), seconds)))
            every.append(cpu_share(_Timed(hosted, seconds, always_draw=True)))
        assert table is not None and "bid" in table.model.legal, "the table moved on"
    finally:
        hosted.close()
    share = statistics.median(idle) * 100
    print(f"Idle Stars table waiting for the user's bid (`starhall play stars`, its server in "
          f"the process), {rounds} alternating rounds of {seconds:g} s, CPU time / wall time")
    print(f"  idle table            median {share:5.2f}%  "
          f"(rounds: {', '.join(f'{v * 100:.2f}' for v in idle)})")
    print(f"  bare pygame loop      median {statistics.median(bare) * 100:5.2f}%")
    print(f"  drawn every frame     median {statistics.median(every) * 100:5.2f}%  "
          f"(60 frames a second, as before)")
    print(f"  target idle < 3% of a core: {'met' if share < 3.0 else 'NOT met'}")


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--idle", type=float, default=2.0, metavar="SECONDS",
                        help="length of each idle spell (default 2; 0 skips the idle part)")
    args = parser.parse_args()
    surface = open_window(SIZE)
    screen = table_mid_animation()
    step_length = screen.animator.queue[0].length
    baseline_image = pygame.Surface(SIZE).convert()
    baseline_image.fill((22, 92, 58))
    table_times: list[float] = []
    blit_times: list[float] = []
    screen.draw(surface)  # the first frame renders and caches the cards; not measured
    clock = time.perf_counter
    for _ in range(args.rounds):
        for frame in range(args.frames):
            # Hold the flight somewhere along its path, so every frame draws it moving.
            screen.animator.elapsed = (frame * 0.004) % (step_length * 0.9)
            start = clock()
            screen.draw(surface)
            table_times.append(clock() - start)
        for _ in range(args.frames):
            start = clock()
            surface.blit(baseline_image, (0, 0))
            blit_times.append(clock() - start)
    assert screen.animator.sprites(), "the table was not mid-animation"
    ms = 1000.0
    t50, t95 = percentile(table_times, 0.5) * ms, percentile(table_times, 0.95) * ms
    b50, b95 = percentile(blit_times, 0.5) * ms, percentile(blit_times, 0.95) * ms
    print(f"Stars table mid-animation, {SIZE[0]}x{SIZE[1]}, {len(table_times)} frames "
          f"in {args.rounds} alternating rounds")
    print(f"  table frame      p50 {t50:6.3f} ms   p95 {t95:6.3f} ms   "
          f"mean {statistics.fmean(table_times) * ms:6.3f} ms")
    print(f"  full-screen blit p50 {b50:6.3f} ms   p95 {b95:6.3f} ms")
    print(f"  ratio table/blit p50 {t50 / b50:6.1f}x     p95 {t95 / b95:6.1f}x")
    print(f"  target p95 <= 4 ms: {'met' if t95 <= 4.0 else 'NOT met'}")
    if args.idle > 0:
        idle_table(args.idle, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
