"""The view of a trick game, read with its keys typed: Stardeck Hearts' (``HeartsView``) or
Stars' (``StarsView``), told apart by its ``game``, so that a misspelt key is a type error here
as in the engines and bots."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeAlias, overload

from starhall.shared.games.hearts.rules import HeartsLegal, HeartsView, hearts_view
from starhall.shared.games.stars.rules import StarsLegal, StarsView, stars_view

if TYPE_CHECKING:
    from typing_extensions import TypeIs

TrickView: TypeAlias = "HeartsView | StarsView"
TrickLegal: TypeAlias = "HeartsLegal | StarsLegal"


def trick_view(view: Mapping[str, Any]) -> TrickView:
    """A view the server sent (or the table's stand-in for one), typed by its game; the
    empty view of a table not seen yet reads as a Hearts view with no keys."""
    return stars_view(view) if view.get("game") == "stars" else hearts_view(view)


def is_stars(view: TrickView) -> TypeIs[StarsView]:
    """Whether the view is Stars' (else Hearts', or empty)."""
    return view.get("game") == "stars"


@overload
def legal_of(view: StarsView) -> StarsLegal: ...


@overload
def legal_of(view: HeartsView) -> HeartsLegal: ...


@overload
def legal_of(view: TrickView) -> TrickLegal: ...


def legal_of(view: TrickView) -> TrickLegal:
    """What the seat may do now (``{}``: nothing, or a spectator)."""
    return view.get("legal") or {}
