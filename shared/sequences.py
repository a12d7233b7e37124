"""``ReadOnlySequence``: the one frame of the read-only sequences a bot is handed (legal
commands made as they are read, a window on a seat's memory): indexing from either end, slices,
equality with any sequence of the same items, never hashed. A subclass says its length, its
item at an index in range, and (for speed) how it iterates."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar, overload

T = TypeVar("T")


class ReadOnlySequence(Sequence[T]):
    __slots__ = ()

    def _at(self, index: int) -> T:
        """The item at ``index``, 0 to ``len(self) - 1``."""
        raise NotImplementedError

    def _slice(self, start: int, stop: int, step: int) -> list[T]:
        return [self._at(index) for index in range(start, stop, step)]

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        length = len(self)
        if isinstance(index, slice):
            return self._slice(*index.indices(length))
        if index < 0:
            index += length
        if not 0 <= index < length:
            raise IndexError(f"{type(self).__name__} index out of range")
        return self._at(index)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str | bytes):
            return len(other) == len(self) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to lists, which do not hash
