"""The player's settings (client/user/settings.py), the settings sheet and its colour check
(client/screens/settings_screen.py), and the table's sounds (client/ui/sound.py): on real pygame
surfaces with SDL's dummy drivers, against a real embedded server where a table is sat at."""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import subprocess
import sys
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from starhall.client import app
from starhall.client.games import hooks_for, view_for
from starhall.client.net.model import TableModel
from starhall.client.net.session import Batch
from starhall.client.screens.settings_screen import (
    ROWS,
    VISIONS,
    SettingsOverlay,
    colour_groups,
    distance,
    simulate,
    verdict,
)
from starhall.client.screens.table_screen import TableScreen
from starhall.client.ui import sound
from starhall.client.ui.animation import Animator, Step
from starhall.client.ui.layout import Layout
from starhall.client.user import settings
from starhall.client.user.folders import CONFIG_ENV
from starhall.client.user.settings import Settings, SettingsError
from starhall.shared.bots import make_bot
from starhall.shared.engine import Event
from starhall.shared.games import GAMES, get_game
from starhall.shared.table import Table
from tests.support import ask, step_until

ROOT = Path(__file__).resolve().parent.parent
SIZE = (1280, 720)


@pytest.fixture(autouse=True)
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test reads and writes settings in a folder of its own, never the user's."""
    folder = tmp_path / "config"
    monkeypatch.setenv(CONFIG_ENV, str(folder))
    settings.forget()
    yield folder
    settings.forget()



# --- the settings file ------------------------------------------------------------------------


def test_settings_round_trip(config: Path) -> None:
    assert settings.current() == Settings()  # no file yet: the defaults, silently
    chosen = Settings(name="  Ada   Lovelace ", animation_speed=2.0, card_size="large",
                      colour_blind=True, sound=False, summary_delay=5.0)
    settings.save(chosen)
    assert settings.current().name == "Ada Lovelace"  # one line, no outer spaces
    settings.forget()
    again = settings.current()
    assert again == Settings("Ada Lovelace", 2.0, "large", True, False, 5.0)
    data = json.loads((config / settings.FILE_NAME).read_text())
    assert data["name"] == "Ada Lovelace" and data["summary_delay"] == 5.0
    assert list(config.iterdir()) == [config / settings.FILE_NAME]  # no temporary left


def test_player_name_falls_back_to_the_login_name() -> None:
    from starhall.client.user.settings import login_name as login

    assert settings.player_name() == login() == settings.login_name()
    settings.save(Settings(name="Sam"))
    assert settings.player_name() == "Sam"


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b"\xff\xfe\x00garbage",
                                     b'{"sound": "loud", "card_size": 7}'])
def test_a_corrupt_file_gives_defaults_and_one_line(config: Path, content: bytes,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    config.mkdir(parents=True)
    (config / settings.FILE_NAME).write_bytes(content)
    assert settings.current() == Settings()
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("starhall: "), captured.err
    assert "Traceback" not in captured.err and captured.out == ""


def test_unusable_values_fall_back_alone(config: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    config.mkdir(parents=True)
    (config / settings.FILE_NAME).write_text(json.dumps(
        {"name": "Bo", "animation_speed": 99, "sound": False, "summary_delay": -1}))
    assert settings.current() == Settings(name="Bo", sound=False)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "animation_speed" in err and "summary_delay" in err


def test_a_failed_save_changes_nothing(config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.save(Settings(name="Before"))
    path = config / settings.FILE_NAME
    before = path.read_bytes()

    def refuse(*_: object) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(SettingsError, match="Could not save the settings .*Read-only"):
        settings.save(Settings(name="After"))
    assert path.read_bytes() == before
    assert sorted(p.name for p in config.iterdir()) == [settings.FILE_NAME]
    assert settings.current().name == "Before"


def test_a_save_into_a_folder_that_cannot_be_made_fails_cleanly(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("")
    monkeypatch.setenv(CONFIG_ENV, str(blocker / "config"))
    settings.forget()
    with pytest.raises(SettingsError):
        settings.save(Settings(name="Nowhere"))
    assert settings.current() == Settings()


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="needs a user that file permissions apply to")
def test_a_read_only_folder_fails_cleanly(config: Path) -> None:
    settings.save(Settings(name="Before"))
    config.chmod(0o555)
    try:
        with pytest.raises(SettingsError):
            settings.save(Settings(name="After"))
        assert settings.current().name == "Before"
        settings.forget()
        assert settings.current().name == "Before"
    finally:
        config.chmod(0o755)


# --- the settings sheet ----------------------------------------------------------------------


def _table(game: str = "stars", seed: int = 3) -> tuple[Table[Any], TableScreen]:
    engine = get_game(game)
    players = max(engine.min_players, min(engine.max_players, 4))
    table = Table.new(engine, players, {})
    table.shuffle(seed)
    model = TableModel(game, 0, players, [f"P{s}" for s in range(players)])
    screen = TableScreen(model, lambda kind, data: None, size=SIZE)
    screen.receive(Batch([], engine.view(table.state, 0), table.seq, True))
    return table, screen


def _pump(screen: TableScreen, surface: pygame.Surface) -> Any:
    """Draw, then hand every queued input event to the screen, as the window's loop does."""
    hotspots = screen.draw(surface)
    for event in pygame.event.get():
        screen.handle(event, hotspots)
        hotspots = screen.draw(surface)
    return hotspots


def _key(key: int, text: str = "", mod: int = 0) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod, unicode=text,
                                         scancode=0))
    if text:  # SDL follows a printable key with its text
        pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text=text))


def _spot(hotspots: Any, *action: object) -> pygame.Rect:
    for found in reversed(hotspots.spots):
        if found.action[: len(action)] == action:
            return pygame.Rect(found.rect)
    raise AssertionError(f"no {action} on screen")


def test_the_sheet_edits_the_name_with_keys_and_saves(surface: pygame.Surface,
                                                      config: Path) -> None:
    pygame.event.clear()
    _, screen = _table()
    hotspots = _pump(screen, surface)
    button = _spot(hotspots, "settings", "open")
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=button.center, button=1))
    _pump(screen, surface)
    assert screen.settings.open and ROWS[screen.settings.focus] == "name"
    for letter in "Adda":
        _key(getattr(pygame, f"K_{letter.lower()}"), letter)
    _key(pygame.K_BACKSPACE)
    _key(pygame.K_BACKSPACE)
    for letter in "a L":
        _key(pygame.K_SPACE if letter == " " else getattr(pygame, f"K_{letter.lower()}"),
             letter)
    _key(pygame.K_DOWN)  # to the animation speed
    _key(pygame.K_RIGHT)  # Normal -> Faster
    _key(pygame.K_s)  # not a table key while the sheet is open: nothing opens underneath
    hotspots = _pump(screen, surface)
    assert screen.settings.draft.name == "Ada L"
    assert screen.settings.draft.animation_speed == 1.5
    assert screen.ui.overlay is None
    assert settings.current() == Settings()  # nothing saved yet
    save = _spot(hotspots, "settings", "save")
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=save.center, button=1))
    _pump(screen, surface)
    assert not screen.settings.open
    assert settings.current().name == "Ada L" and settings.current().animation_speed == 1.5
    assert json.loads((config / settings.FILE_NAME).read_text())["name"] == "Ada L"


def test_f2_opens_and_esc_cancels(surface: pygame.Surface) -> None:
    pygame.event.clear()
    _, screen = _table()
    _key(pygame.K_F2)
    _pump(screen, surface)
    assert screen.settings.open
    _key(pygame.K_x, "x")
    _key(pygame.K_ESCAPE)
    _pump(screen, surface)
    assert not screen.settings.open and not screen.leaving  # Esc closed only the sheet
    assert settings.current() == Settings()
    _key(pygame.K_F2)
    _pump(screen, surface)
    assert screen.settings.draft.name == ""  # the cancelled draft is gone
    _key(pygame.K_RETURN)
    _pump(screen, surface)
    assert not screen.settings.open


def test_a_failed_save_stays_open_and_says_why(surface: pygame.Surface, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("")
    monkeypatch.setenv(CONFIG_ENV, str(blocker / "config"))
    settings.forget()
    sheet = SettingsOverlay("hearts")
    sheet.show()
    sheet.type_text("Zed")
    assert not sheet.save()
    assert sheet.open and sheet.failed and sheet.message.startswith("Could not save")
    sheet.draw(surface, surface.get_rect(), _hotspots())
    assert settings.current() == Settings()


def _hotspots() -> Any:
    from starhall.client.ui.widgets import Hotspots

    return Hotspots()


def test_every_row_and_page_draws_at_small_and_large_sizes(surface: pygame.Surface) -> None:
    for size in ((820, 520), SIZE, (1920, 1080)):
        canvas = pygame.Surface(size)
        sheet = SettingsOverlay("stars")
        sheet.show()
        for focus in range(len(ROWS)):
            sheet.focus = focus
            sheet.step_choice(1)
            sheet.draw(canvas, canvas.get_rect(), _hotspots())
        sheet.page = "colours"
        for index in range(len(GAMES)):
            sheet.check_game = index
            sheet.draw(canvas, canvas.get_rect(), _hotspots())


@pytest.mark.parametrize("size", [(800, 600), (1280, 720)])
def test_the_sheets_are_opaque_and_the_colour_checks_tabs_fit(
        surface: pygame.Surface, size: tuple[int, int]) -> None:
    from starhall.client.ui import theme
    from starhall.client.ui.layout import Layout

    felt = Layout(*size, 4, 0).table
    canvas = pygame.Surface(size)
    canvas.fill((255, 255, 255))  # a white table: any of it showing through would be seen
    sheet = SettingsOverlay("stars")
    sheet.show()
    spots = _hotspots()
    sheet.draw(canvas, felt, spots)
    save = _spot(spots, "settings", "save")  # left of Save, under the last row: bare sheet
    assert tuple(canvas.get_at((save.x - 30, save.y - 8)))[:3] == theme.PANEL
    # The colour check: every game's tab whole inside the sheet, in two rows if need be.
    sheet.page = "colours"
    spots = _hotspots()
    sheet.draw(canvas, felt, spots)
    tabs = [spot.rect for spot in spots.spots if spot.action[:2] == ("settings", "check_game")]
    assert len(tabs) == len(GAMES)
    inner = felt.inflate(-24, -24)
    for tab in tabs:
        assert inner.contains(tab), tab
    for first, second in zip(tabs, tabs[1:], strict=False):
        assert not first.colliderect(second)


def test_the_lobby_has_a_settings_button_and_sits_with_a_saved_name(
        surface: pygame.Surface) -> None:
    from starhall.client.screens.lobby import Lobby

    settings.save(Settings(name="Lobby Lou"))
    lobby = Lobby(SIZE, None, settings.player_name())
    try:
        lobby.draw(surface)
        button = _spot(lobby.hotspots, "settings", "open")
        lobby.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=button.center, button=1))
        assert lobby.settings.open
        lobby.draw(surface)
        lobby.settings.draft = Settings(name="Renamed")
        assert lobby.settings.save()
        assert lobby.name == "Renamed"
    finally:
        lobby.close()


def test_a_table_sits_with_the_chosen_name(surface: pygame.Surface, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """``starhall play``: the embedded server seats the user under the settings' name."""
    settings.save(Settings(name="Grace H"))
    seen: dict[str, list[str]] = {}

    def names(screen: Any) -> list[str]:
        table = getattr(getattr(screen, "live", None), "table", None)
        return list(table.model.names) if table is not None else []

    def run(screen: Any, frames: int | None = None) -> int:
        try:
            step_until(lambda: (screen.frame(0.05), screen.draw(surface)),
                       lambda: "Grace H" in names(screen))
            seen["names"] = names(screen)
        finally:
            screen.close()
        return 0

    monkeypatch.setattr(app, "run", run)
    args = argparse.Namespace(game="stars", players=None, options={}, data=str(tmp_path),
                              resume=None, terminal=False, option=None, deal=None)
    assert app.play(args) == 0
    assert seen["names"][0] == "Grace H"


# --- animation speed and card size --------------------------------------------------------------


def test_animation_speed_scales_time() -> None:
    for speed, left in ((1.0, True), (2.0, False)):
        settings.save(Settings(animation_speed=speed))
        animator = Animator()
        animator.add(Step(pause=1.0))
        animator.advance(0.6)
        assert animator.busy is left


@pytest.mark.parametrize("window", [(1280, 720), (800, 600), (1024, 640), (1920, 1080)])
def test_card_size_scales_the_trick_tables_cards(window: tuple[int, int]) -> None:
    """Each setting its own size in every window, the default one (1280 x 720) included,
    where Large was as large as Normal: both were as large as fits."""
    sizes = {}
    for size in ("small", "normal", "large"):
        settings.save(Settings(card_size=size))
        sizes[size] = Layout(*window, 4, 0).card_size[1]
    assert sizes["small"] < sizes["normal"] < sizes["large"]


def test_large_cards_are_drawn_larger_at_the_default_table(surface: pygame.Surface) -> None:
    from tools.screenshots import Scripted

    play = Scripted("stars", 4, seed=3)
    play.run_until(lambda s: s.phase == "play")
    drawn: dict[str, list[pygame.Rect]] = {}
    for size in ("normal", "large"):
        settings.save(Settings(card_size=size))
        screen = play.screen()
        screen.animator.skip_all()
        hotspots = screen.draw(surface)
        drawn[size] = [spot.rect for spot in hotspots.spots if spot.action[0] == "card"]
    assert len(drawn["normal"]) == len(drawn["large"]) > 0
    for normal, large in zip(drawn["normal"], drawn["large"], strict=True):
        assert large.h > normal.h and large.w >= normal.w


# --- sounds --------------------------------------------------------------------------------------


@pytest.mark.parametrize("cue", sound.CUES)
def test_every_cue_is_made_as_a_short_wav(cue: str) -> None:
    data = sound.wav_bytes(cue)
    with wave.open(io.BytesIO(data)) as file:
        assert file.getnchannels() == 1 and file.getsampwidth() == 2
        seconds = file.getnframes() / file.getframerate()
        frames = file.readframes(file.getnframes())
    assert 0.05 < seconds < 1.5
    assert max(frames) > 0  # not silence
    assert sound.wav_bytes(cue) == data  # the same every time (seeded noise)


def test_sounds_play_through_a_dummy_device() -> None:
    assert sound.available()  # SDL_AUDIODRIVER=dummy: a device that plays into nothing
    sound.play("deal")
    sound.play_all(["play", "no such cue"])


def test_sound_off_never_opens_the_device(monkeypatch: pytest.MonkeyPatch) -> None:
    settings.save(Settings(sound=False))
    fresh = sound._Player()
    monkeypatch.setattr(sound, "_player", fresh)
    sound.prepare()
    sound.play("star")
    assert fresh.maker is None and not fresh.sounds


def test_no_audio_device_is_silent_and_quiet(tmp_path: Path) -> None:
    """Without SDL_AUDIODRIVER SDL tries the real drivers; where there is no device (as here,
    in a container) ALSA writes its complaints from C. Nothing may reach standard error."""
    env = {key: value for key, value in os.environ.items() if key != "SDL_AUDIODRIVER"}
    env.update(PYTHONPATH=str(ROOT), STARHALL_CONFIG_DIR=str(tmp_path),
               PYGAME_HIDE_SUPPORT_PROMPT="1")
    script = ("from starhall.client.ui import sound\n"
              "sound.prepare()\n"
              "for cue in sound.CUES: sound.play(cue)\n"
              "print('heard' if sound.available() else 'silent')\n"
              "sound.play('your_turn')\n")
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert done.stderr == ""
    assert done.stdout.strip() in ("heard", "silent")


# --- which event makes which sound ------------------------------------------------------------


def _event_dict(event: Event) -> dict[str, Any]:
    return {"type": event.type, "seat": event.seat, "data": dict(event.data)}


def _cues_of_a_game(game_id: str, seed: int, hands: int = 1) -> list[str]:
    """The cues seat 0's table gives for each event of a game played by random bots, up to
    the end of ``hands`` hands (or of the game)."""
    game = get_game(game_id)
    players = max(game.min_players, min(game.max_players, 4))
    table = Table.new(game, players, game.make_options(players, {}))
    bots = [make_bot(game, "random", random.Random(seed + s)) for s in range(players)]
    hooks = hooks_for(view_for(game_id))
    cues: list[str] = []
    deal = seed
    for _ in range(5000):
        if game.outcome(table.state).over or cues.count("hand_end") + cues.count(
                "star") * (game_id == "star_patience") >= hands:
            break
        before = table.state
        if game.chance(before) is not None:
            deal += 1
            happened = table.shuffle(deal)
        else:
            seat = game.to_act(before)[0]
            happened = table.submit(ask(bots[seat], game, before, seat))
        for _, event in happened:
            after = table.state
            shown = game.event_view(before, event, 0)
            if shown is not None:
                cues += hooks.sound_cues(_event_dict(shown), game.view(before, 0),
                                         game.view(after, 0))
            before = after
    return cues


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_game_gives_cues_for_its_events(game_id: str) -> None:
    cues = _cues_of_a_game(game_id, seed=3)
    assert set(cues) <= set(sound.CUES)
    assert cues[0] == "deal"
    assert "play" in cues
    assert cues[-1] in ("hand_end", "star"), "a hand's (or game's) end makes a sound"
    if get_game(game_id).max_players > 1:
        assert "trick" in cues or "star" in cues


def test_a_star_in_stars_sounds_as_a_star() -> None:
    found = [seed for seed in range(1, 40) if "star" in _cues_of_a_game("stars", seed)]
    assert found, "no Star in forty random hands"


def test_the_table_plays_cues_as_steps_start_and_your_turn(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    heard: list[str] = []
    monkeypatch.setattr(sound, "play", heard.append)
    game = get_game("stars")
    table, screen = _table("stars", seed=3)
    seq = table.seq
    # Bots act until seat 0 must bid; each batch is one event, as the server sends them.
    for _ in range(50):
        if 0 in game.to_act(table.state):
            break
        seat = game.to_act(table.state)[0]
        before = table.state
        bot = make_bot(game, "random", random.Random(seat))
        for seq, event in table.submit(ask(bot, game, before, seat)):
            shown = game.event_view(before, event, 0)
            assert shown is not None
            screen.receive(Batch([(seq, _event_dict(shown))], game.view(table.state, 0), seq,
                                 False))
            before = table.state
    for _ in range(40):
        screen.update(0.1)
    assert heard and heard[-1] == "your_turn"
    # A fresh snapshot (a resync, a seek in a replay) is silent.
    heard.clear()
    screen.receive(Batch([], game.view(table.state, 0), seq, True))
    screen.update(1.0)
    assert heard == []


def test_steps_carry_their_cues_in_order() -> None:
    animator = Animator()
    play, gather = Step(pause=0.2), Step(pause=0.2)
    sound.attach([play, gather], ["play", "trick", "hand_end"])
    assert play.cues == ("play",) and gather.cues == ("trick", "hand_end")
    animator.add(play)
    animator.add(gather)
    animator.advance(0.0)
    assert animator.take_cues() == ["play"]
    animator.advance(0.25)
    assert animator.take_cues() == ["trick", "hand_end"]
    skipped = Step(pause=1.0, cues=("star",))
    animator.add(Step(pause=1.0))
    animator.add(skipped)
    animator.skip_all()
    animator.advance(0.1)
    assert animator.take_cues() == []


# --- the colour check ----------------------------------------------------------------------------


def test_simulated_vision() -> None:
    assert simulate((12, 200, 99), "normal") == (12, 200, 99)
    grey = simulate((213, 70, 0), "greyscale")
    assert grey[0] == grey[1] == grey[2]
    # Red and green, far apart normally, come close for red-green colour blindness.
    red, green = (200, 40, 40), (60, 140, 40)
    assert distance(red, green) > 40
    assert distance(simulate(red, "deuteranopia"), simulate(green, "deuteranopia")) < \
        distance(red, green) / 2


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_game_tells_its_colours_apart_in_every_vision(game_id: str) -> None:
    groups = colour_groups(game_id)
    assert groups, f"{game_id} shows nothing in the colour check"
    for group in groups:
        assert group.swatches and group.note
        for vision in VISIONS:
            words, good = verdict(group.swatches, vision, extra_marks=False)
            assert good, f"{game_id} {group.title} ({vision}): {words}"


def test_the_replay_viewer_gives_the_sheet_its_keys(surface: pygame.Surface,
                                                    tmp_path: Path) -> None:
    from starhall.client.screens.replay_screen import ReplayScreen
    from starhall.shared.replay import load

    path = tmp_path / "stars.starhall"
    game = get_game("stars")
    table = Table.new(game, 4, {"target": 40}, path=str(path))
    table.shuffle(7)
    table.log.close()  # type: ignore[union-attr]
    viewer = ReplayScreen(load(path), SIZE)
    pygame.event.clear()
    for event in (pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F2, mod=0, unicode=""),
                  pygame.event.Event(pygame.TEXTINPUT, text="V"),
                  pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RIGHT, mod=0, unicode="")):
        viewer.handle(event)
        viewer.draw(surface)
    sheet = viewer.table.settings
    assert sheet.open and sheet.draft.name == "V"
    viewer.seek(0)  # a rebuilt table keeps the sheet open
    assert viewer.table.settings is sheet and sheet.open
    viewer.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0, unicode=""))
    assert not sheet.open and not viewer.done
    viewer.close()
