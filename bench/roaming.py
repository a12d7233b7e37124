"""What a seated player waits when the node serving the table stops (a script, not a test).

    .venv/bin/python bench/roaming.py [--drains 5] [--kills 3] [--pauses 0] [--lease 2]

Starts three ``nats-server`` processes routed into one cluster on loopback and three
``starhall serve --store nats://…`` nodes (a stream of three replicas, lease ``--lease``), and
seats the window's own table code (``LiveTable``, SDL's dummy driver, as in
``tests/test_roaming.py``) at a hearts table of bots. Each round waits for the player's turn,
then stops the node serving the table, by SIGTERM (``drain``: it hands the table over and
sends its clients on), by kill -9 (``kill``: its sockets close, which the window's link sees
at once) or by SIGSTOP (``pause``: its sockets live on, answering nothing, as a machine gone
from the network; the window's ZeroMQ heartbeats go unanswered); it takes the time from the
signal until the window's move, made as soon as the table answers at another node, is
acknowledged there. The node (a paused one killed first) is started again before the next
round. No player's action is needed in between; a refusal or lost table shown stops the
script.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.nats_helpers import NatsCluster, StarhallService  # noqa: E402
from tests.test_cluster_client import table_waiting_for_seat_0  # noqa: E402
from tests.test_roaming import Watched, listens, my_turn  # noqa: E402


def measure(folder: Path, drains: int, kills: int, pauses: int, lease: float
            ) -> dict[str, list[float]]:
    os.environ["STARHALL_CONFIG_DIR"] = str(folder / "config")
    os.environ["STARHALL_DATA_DIR"] = str(folder / "data")
    nats = NatsCluster(folder / "nats").start()
    service = StarhallService(nats.address, folder, "bench", 3, lease=lease, replicas=3)
    found: dict[str, list[float]] = {"drain": [], "kill": [], "pause": []}
    try:
        service.start()
        table = table_waiting_for_seat_0(service.addresses[0])
        ada = Watched(service.addresses[0])
        ada.live.sit(table, 0, "Ada")
        ada.play(2)
        for how in ["drain"] * drains + ["kill"] * kills + ["pause"] * pauses:
            ada.until(lambda: my_turn(ada))
            old = ada.live.link.address
            node = next(n for n in service.nodes if n.address == old)
            start = time.monotonic()
            if how == "drain":
                node.signal(signal.SIGTERM)
            elif how == "kill":
                node.kill()
            else:
                node.signal(signal.SIGSTOP)
            ada.until(lambda: ada.live.link.address != old  # noqa: B023 - this round's
                      and ada.live.moved_to is None and ada.live.table is not None
                      and ada.live.table.model.connection == "connected" and my_turn(ada),
                      timeout=120)
            ada._move_if_mine()
            ada.until(lambda: ada.live.session is not None and not ada.live.session._acts,
                      timeout=120)
            found[how].append(time.monotonic() - start)
            if how == "pause":
                node.kill()
            if node.process is not None:
                node.process.wait()
            node.start(wait=False)
            ada.until(lambda: listens(node.port))  # noqa: B023 - this round's
            ada.play(1)
        if ada.errors:
            raise SystemExit(f"the window showed: {ada.errors}")
        ada.close()
    finally:
        service.stop()
        nats.stop()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drains", type=int, default=5)
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--pauses", type=int, default=0)
    parser.add_argument("--lease", type=float, default=2.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        found = measure(Path(folder), args.drains, args.kills, args.pauses, args.lease)
    for how, name in (("drain", "SIGTERM (drain)"), ("kill", "kill -9"),
                      ("pause", "SIGSTOP (paused)")):
        times = found[how]
        if times:
            print(f"{name}, signal to the next move acknowledged elsewhere "
                  f"({len(times)} times, lease {args.lease:g} s): median "
                  f"{statistics.median(times):.2f} s, max {max(times):.2f} s")


if __name__ == "__main__":
    main()
