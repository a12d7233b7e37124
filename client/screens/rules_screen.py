"""The rules of the table's game, read in the window: F1 or the "Rules" button at any table.

A game's rules live in one place, its page ``docs/games/GAME_ID.md``. This module finds the
page, parses its Markdown with markdown-it-py, lays the tokens out with the bundled font
(headings, wrapped paragraphs, lists, tables, code, bold and code spans, suit symbols drawn
as at the table) and draws them on a scrolling sheet of paper over the table. The overlay is
modal: while it is open it takes every key and click, Esc, F1 or its Close button closes
it, and the table underneath carries on.

Where the pages are read from: in a checkout, and in an editable install, ``docs/games``
itself, so an edited page shows at once. A built package (``pip install .``) carries the same
files as ``client/rules/*.md``: ``pyproject.toml`` maps the package ``client.rules`` onto the
folder ``docs/games`` when it builds, so no copy is ever kept in the repository.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import pygame
from markdown_it import MarkdownIt
from markdown_it.token import Token

from starhall.client.ui import fonts, theme
from starhall.client.ui.faces import SUITS
from starhall.client.ui.layout import RULES_LABEL, rules_button_rect
from starhall.client.ui.symbols import draw_symbol
from starhall.client.ui.widgets import Hotspots, blit_text, button, panel

Colour = theme.Colour

PAGES_FOLDER = Path(__file__).resolve().parents[2] / "docs" / "games"
"""The pages in a checkout."""
PACKAGED_FOLDER = "rules"
"""The pages inside the installed ``client`` package (``client.rules`` in pyproject.toml)."""


# The page is paper with dark ink, as a rule book is; suit symbols keep their card colours.
PAPER = theme.PAPER
INK = theme.INK
HEADING = (14, 84, 52)
STRONG = (140, 44, 10)
EMPHASIS = (60, 60, 120)
LINK = (0, 90, 170)
CODE_INK = (16, 72, 110)
CODE_BACK = (226, 232, 224)
CODE_BLOCK_BACK = (238, 240, 232)
RULE = (196, 200, 190)
TABLE_HEAD_BACK = (222, 234, 224)
TABLE_STRIPE = (243, 242, 234)
SHADE = (0, 0, 0, 150)

BODY_SIZE = 16
TABLE_SIZE = 15
CODE_SIZE = 15
HEADING_SIZES = {1: 30, 2: 23, 3: 19, 4: 17, 5: 16, 6: 16}
INDENT = 26
"""Width of one level of list."""
MAX_COLUMN = 940
"""The widest a column of text gets, for lines the eye can follow."""
CODE_PAD = 3
"""Room each side of a code span's words for its background."""
CONTENTS_WIDTH = 256
HINTS = ("Scroll: wheel, Up/Down, PgUp/PgDn", "Close: Esc, F1 or the Close button")
WHEEL_STEP = 60
LINE_STEP = 48

SYMBOL_SUITS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S", "★": "*"}
"""Characters drawn as the table draws that suit's symbol (the font has no such glyphs)."""
REPLACEMENTS = {"→": "->", "←": "<-", "↑": "up", "↓": "down", "⌊": "floor(", "⌋": ")",
                "✓": "yes", "✗": "no", "′": "'", "☆": "*"}
"""Characters the bundled font lacks, written another way."""

_markdown = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


# --- finding a page ----------------------------------------------------------------------


def pages_folder() -> Traversable:
    """Where the game pages are: the checkout's ``docs/games``, else the installed copy."""
    if PAGES_FOLDER.is_dir():
        return PAGES_FOLDER
    return resources.files("starhall.client").joinpath(PACKAGED_FOLDER)


def page_text(game: str) -> str | None:
    """The Markdown of ``game``'s page, or ``None`` when it has none."""
    if not re.fullmatch(r"[a-z0-9_]+", game):  # a game id from the server names no path
        return None
    page = pages_folder().joinpath(f"{game}.md")
    try:
        return page.read_text(encoding="utf-8")
    except OSError:
        return None


def game_title(game: str) -> str:
    from starhall.shared.games import GAMES

    found = GAMES.get(game)
    return str(found.title) if found is not None else game


def missing_page(game: str) -> str:
    return (f"# {game_title(game)}\n\nThere is no rules page for this game yet: it would be "
            f"`docs/games/{game}.md`.\n")


# --- from Markdown to blocks ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Style:
    strong: bool = False
    emphasis: bool = False
    code: bool = False
    link: str | None = None


@dataclass(frozen=True, slots=True)
class Frag:
    """A run of text in one style; ``"\\n"`` alone is a hard line break."""

    text: str
    style: Style = Style()


Inline = list[Frag]


@dataclass(slots=True)
class Heading:
    level: int
    inline: Inline
    slug: str


@dataclass(slots=True)
class Paragraph:
    inline: Inline
    tight: bool = False
    """In a tight list: no space after it."""


@dataclass(slots=True)
class ListBlock:
    ordered: bool
    start: int
    items: list[list[Block]]
    tight: bool


@dataclass(slots=True)
class Table:
    head: list[Inline]
    rows: list[list[Inline]]
    aligns: list[str]


@dataclass(slots=True)
class CodeBlock:
    text: str


@dataclass(slots=True)
class Quote:
    blocks: list[Block]


@dataclass(slots=True)
class Rule:
    pass


Block = Heading | Paragraph | ListBlock | Table | CodeBlock | Quote | Rule


SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
"""The font has only ¹ ² ³ of the superscript digits."""


def clean(text: str) -> str:
    """``text`` with every character the font lacks written another way (``2⁵³``: ``2^53``)."""
    text = re.sub("[⁰¹²³⁴⁵⁶⁷⁸⁹]*[⁰⁴⁵⁶⁷⁸⁹][⁰¹²³⁴⁵⁶⁷⁸⁹]*",
                  lambda power: "^" + power.group().translate(SUPERSCRIPTS), text)
    return "".join(REPLACEMENTS.get(ch, ch) for ch in text)


def inline_frags(token: Token) -> Inline:
    frags: Inline = []
    strong = emphasis = 0
    links: list[str] = []

    def style(code: bool = False) -> Style:
        return Style(strong > 0, emphasis > 0, code, links[-1] if links else None)

    for child in token.children or []:
        kind = child.type
        if kind == "text":
            frags.append(Frag(clean(child.content), style()))
        elif kind == "code_inline":
            frags.append(Frag(clean(child.content), style(code=True)))
        elif kind == "softbreak":
            frags.append(Frag(" ", style()))
        elif kind == "hardbreak":
            frags.append(Frag("\n", style()))
        elif kind == "strong_open":
            strong += 1
        elif kind == "strong_close":
            strong -= 1
        elif kind in ("em_open", "s_open"):
            emphasis += 1
        elif kind in ("em_close", "s_close"):
            emphasis -= 1
        elif kind == "link_open":
            links.append(str(child.attrs.get("href", "")))
        elif kind == "link_close" and links:
            links.pop()
        elif kind == "image":
            frags.append(Frag(clean(child.content or "(picture)"), style()))
        elif kind == "html_inline":
            frags.append(Frag(child.content, style(code=True)))
    return frags


def plain(inline: Inline) -> str:
    return "".join(frag.text for frag in inline)


def slug_of(text: str, taken: dict[str, int]) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens,
    ``-1``, ``-2`` … after a repeat."""
    slug = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
    count = taken.get(slug, 0)
    taken[slug] = count + 1
    return slug if count == 0 else f"{slug}-{count}"


def parse(text: str) -> list[Block]:
    """The page's blocks, from markdown-it-py's tokens."""
    tokens = _markdown.parse(text)
    blocks, _ = _blocks(tokens, 0, None, {})
    return blocks


def _blocks(tokens: list[Token], index: int, close: str | None,
            slugs: dict[str, int]) -> tuple[list[Block], int]:
    """The blocks from ``tokens[index]`` up to the token of type ``close``; returns them and
    the index after that token."""
    blocks: list[Block] = []
    while index < len(tokens):
        token = tokens[index]
        kind = token.type
        if kind == close:
            return blocks, index + 1
        if kind == "heading_open":
            inline = inline_frags(tokens[index + 1])
            blocks.append(Heading(int(token.tag[1:]), inline, slug_of(plain(inline), slugs)))
            index += 3
        elif kind == "paragraph_open":
            blocks.append(Paragraph(inline_frags(tokens[index + 1]), token.hidden))
            index += 3
        elif kind in ("bullet_list_open", "ordered_list_open"):
            ordered = kind == "ordered_list_open"
            start = int(token.attrs.get("start", 1) or 1) if ordered else 1
            closing = kind.replace("_open", "_close")
            items: list[list[Block]] = []
            index += 1
            tight = False
            while tokens[index].type != closing:
                item, index = _blocks(tokens, index + 1, "list_item_close", slugs)
                tight = tight or any(isinstance(b, Paragraph) and b.tight for b in item)
                items.append(item)
            blocks.append(ListBlock(ordered, start, items, tight))
            index += 1
        elif kind == "table_open":
            table, index = _table(tokens, index + 1)
            blocks.append(table)
        elif kind in ("fence", "code_block"):
            blocks.append(CodeBlock(token.content.rstrip("\n")))
            index += 1
        elif kind == "blockquote_open":
            inner, index = _blocks(tokens, index + 1, "blockquote_close", slugs)
            blocks.append(Quote(inner))
        elif kind == "hr":
            blocks.append(Rule())
            index += 1
        elif kind == "html_block":
            blocks.append(CodeBlock(token.content.rstrip("\n")))
            index += 1
        else:
            index += 1
    return blocks, index


def _table(tokens: list[Token], index: int) -> tuple[Table, int]:
    head: list[Inline] = []
    rows: list[list[Inline]] = []
    aligns: list[str] = []
    row: list[Inline] = []
    in_head = False
    while tokens[index].type != "table_close":
        token = tokens[index]
        if token.type == "thead_open":
            in_head = True
        elif token.type == "thead_close":
            in_head = False
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close":
            if in_head:
                head = row
            else:
                rows.append(row)
        elif token.type in ("th_open", "td_open"):
            if in_head:
                found = re.search(r"text-align:\s*(\w+)", str(token.attrs.get("style", "")))
                aligns.append(found.group(1) if found else "left")
            row.append(inline_frags(tokens[index + 1]))
        index += 1
    return Table(head, rows, aligns), index + 1


# --- laying blocks out ---------------------------------------------------------------------


@cache
def _italic_font(size: int) -> pygame.font.Font:
    fonts.font(size)  # starts pygame's font module if need be
    face = pygame.font.Font(fonts.font_path(), size)
    face.set_italic(True)
    return face


def font_for(style: Style, size: int) -> pygame.font.Font:
    if style.emphasis and not style.code:
        return _italic_font(size)
    return fonts.font(size - 1 if style.code else size)


def ink_for(style: Style, base: Colour) -> Colour:
    if style.code:
        return CODE_INK
    if style.link:
        return LINK
    if style.strong:
        return STRONG
    if style.emphasis:
        return EMPHASIS
    return base


@dataclass(slots=True)
class Item:
    """One thing to draw, in page coordinates."""

    rect: pygame.Rect
    kind: str
    """``image``, ``fill`` (a filled rectangle), ``frame`` (its outline) or ``symbol``."""
    image: pygame.Surface | None = None
    colour: Colour = INK
    shape: str = ""
    radius: int = 0


@dataclass(slots=True)
class Laid:
    """A page laid out for one width."""

    width: int
    items: list[Item] = field(default_factory=list)
    height: int = 0
    anchors: dict[str, int] = field(default_factory=dict)
    """Heading slug → its top."""
    headings: list[tuple[int, str, str, int]] = field(default_factory=list)
    """(level, words, slug, top) of every heading, in order."""
    links: list[tuple[pygame.Rect, str]] = field(default_factory=list)
    """Where each link's words are, and its target."""


Piece = tuple[str, Style]
"""Part of a word: its text in one style (a suit symbol is always a piece of its own)."""


@dataclass(slots=True)
class Word:
    pieces: list[Piece]
    width: int
    space_before: bool


def _piece_width(text: str, style: Style, size: int) -> int:
    if text in SYMBOL_SUITS:
        return round(size * 0.95)
    if style.code:
        return code_image(text, size - 1).get_width() + 2 * CODE_PAD
    return int(font_for(style, size).size(text)[0])


@lru_cache(maxsize=2048)
def code_image(text: str, size: int) -> pygame.Surface:
    """A code span's words, with wider spaces than the font's (``2 3 4 … A`` would run
    together), as one image."""
    face = fonts.font(size)
    words = text.split(" ")
    gap = 2 * face.size(" ")[0]
    images = [face.render(word, True, CODE_INK) for word in words]
    width = sum(image.get_width() for image in images) + gap * (len(images) - 1)
    result = pygame.Surface((max(1, width), face.get_linesize()), pygame.SRCALPHA)
    x = 0
    for image in images:
        result.blit(image, (x, 0))
        x += image.get_width() + gap
    return result


def _split_symbols(text: str) -> list[str]:
    """``text`` cut so that every suit symbol is a piece of its own."""
    return [part for part in re.split(f"([{''.join(SYMBOL_SUITS)}])", text) if part]


def _words(inline: Inline, size: int) -> list[Word | None]:
    """The words of ``inline`` (``None`` for a hard line break); a word may mix styles, as in
    ``**Ace**,`` or ``(`QS`)``, and lines break only between words."""
    words: list[Word | None] = []
    pieces: list[Piece] = []
    spaced = False
    """Whether a space comes before the word being gathered."""

    def finish(space_follows: bool) -> None:
        nonlocal pieces, spaced
        if pieces:
            width = sum(_piece_width(text, style, size) for text, style in pieces)
            words.append(Word(pieces, width, spaced))
            pieces, spaced = [], False
        spaced = spaced or space_follows

    for frag in inline:
        if frag.text == "\n":
            finish(False)
            words.append(None)
            spaced = False
            continue
        # A code span is never broken at its spaces (``--option mode=anti_trump``), unless it
        # is wider than a whole line (``_split_long``).
        chunks = [frag.text] if frag.style.code else re.split(r"( +)", frag.text)
        for index, chunk in enumerate(chunks):
            if index % 2 == 1:
                finish(True)
            else:
                pieces += [(part, frag.style) for part in _split_symbols(chunk)]
    finish(False)
    return words


def _split_long(word: Word, room: int, size: int) -> list[Word]:
    """A word wider than a whole line, cut into pieces that fit (long code, mostly)."""
    parts: list[Word] = []
    current: list[Piece] = []
    width = 0
    for text, style in word.pieces:
        for ch in text:
            step = _piece_width(ch, style, size)
            if current and width + step > room:
                parts.append(Word(current, width, not parts and word.space_before))
                current, width = [], 0
            if current and current[-1][1] == style and current[-1][0] not in SYMBOL_SUITS \
                    and ch not in SYMBOL_SUITS:
                current[-1] = (current[-1][0] + ch, style)
            else:
                current.append((ch, style))
            width += step
    if current:
        parts.append(Word(current, width, not parts and word.space_before))
    return parts


def wrap(inline: Inline, room: int, size: int) -> list[list[tuple[int, Word]]]:
    """Lines of (x, word) that fit in ``room`` pixels."""
    space = _piece_width(" ", Style(), size)
    lines: list[list[tuple[int, Word]]] = [[]]
    x = 0
    for word in _words(inline, size):
        if word is None:
            lines.append([])
            x = 0
            continue
        parts = _split_long(word, room, size) if word.width > room else [word]
        for part in parts:
            gap = space if part.space_before and lines[-1] else 0
            if lines[-1] and x + gap + part.width > room:
                lines.append([])
                x, gap = 0, 0
            lines[-1].append((x + gap, part))
            x += gap + part.width
    while len(lines) > 1 and not lines[-1]:
        lines.pop()
    return lines


class Layouter:
    """Lays a page's blocks into ``Laid`` items for one column width."""

    def __init__(self, width: int) -> None:
        self.laid = Laid(width)
        self.depth = 0
        """How many lists the block being laid is in."""

    def add(self, item: Item) -> None:
        self.laid.items.append(item)

    # --- runs of text ------------------------------------------------------------------

    def text(self, inline: Inline, x: int, y: int, room: int, size: int,
             colour: Colour = INK, align: str = "left") -> int:
        """Wrapped text at (x, y) in ``room`` pixels; returns the y below it."""
        line_height = fonts.font(size).get_linesize() + 4
        for line in wrap(inline, room, size):
            used = max((px + word.width for px, word in line), default=0)
            shift = {"right": room - used, "center": (room - used) // 2}.get(align, 0)
            self._line(line, x + shift, y, size, colour, line_height)
            y += line_height
        return y

    def _line(self, line: list[tuple[int, Word]], x: int, y: int, size: int, colour: Colour,
              line_height: int) -> None:
        """One line. Each piece is drawn where the wrapping measured it (a line drawn as one
        image would drift from those places); a code span's background and a link's underline
        run unbroken over the spaces between its words."""
        placed: list[tuple[int, int, str, Style, bool]] = []  # x, width, text, style, joined
        for px, word in line:
            cursor = x + px
            for index, (text, style) in enumerate(word.pieces):
                width = _piece_width(text, style, size)
                joined = bool(placed) and placed[-1][3] == style and (
                    index > 0 or word.space_before)
                placed.append((cursor, width, text, style, joined))
                cursor += width
        spans: list[tuple[int, int, Style]] = []  # x, right, style
        for px, width, _, style, joined in placed:
            if joined and spans:
                spans[-1] = (spans[-1][0], px + width, style)
            else:
                spans.append((px, px + width, style))
        for left, right, style in spans:
            if style.code:
                back = pygame.Rect(left, y + 1, right - left, line_height - 2)
                self.add(Item(back, "fill", colour=CODE_BACK, radius=4))
            if style.link:
                face = font_for(style, size)
                base = y + (line_height - 4 - face.get_linesize()) // 2 + 2 + face.get_ascent()
                self.add(Item(pygame.Rect(left, base + 2, right - left, 1), "fill",
                              colour=LINK))
                self.laid.links.append((pygame.Rect(left - 2, y, right - left + 4,
                                                    line_height), style.link))
        for px, width, text, style, _ in placed:
            if text in SYMBOL_SUITS:
                suit = SUITS[SYMBOL_SUITS[text]]
                box = round(size * 0.8)
                rect = pygame.Rect(px + (width - box) // 2, y + (line_height - box) // 2 - 1,
                                   box, box)
                self.add(Item(rect, "symbol", colour=suit.colour, shape=suit.shape))
                continue
            face = font_for(style, size)
            image = code_image(text, size - 1) if style.code else face.render(
                text, True, ink_for(style, colour))
            top = y + (line_height - 4 - face.get_linesize()) // 2 + 2
            left = px + (CODE_PAD if style.code else 0)
            self.add(Item(image.get_rect(topleft=(left, top)), "image", image))

    # --- blocks ------------------------------------------------------------------------

    def blocks(self, blocks: list[Block], x: int, y: int, room: int) -> int:
        for index, block in enumerate(blocks):
            y = self.block(block, x, y, room, first=index == 0)
        return y

    def block(self, block: Block, x: int, y: int, room: int, first: bool = False) -> int:
        if isinstance(block, Heading):
            return self.heading(block, x, y, room, first)
        if isinstance(block, Paragraph):
            y = self.text(block.inline, x, y, room, BODY_SIZE)
            return y + (2 if block.tight else 10)
        if isinstance(block, ListBlock):
            return self.list(block, x, y, room)
        if isinstance(block, Table):
            return self.table(block, x, y, room) + 14
        if isinstance(block, CodeBlock):
            return self.code(block, x, y, room) + 14
        if isinstance(block, Quote):
            top = y
            y = self.blocks(block.blocks, x + 18, y, room - 18)
            self.add(Item(pygame.Rect(x + 4, top, 4, y - top - 8), "fill", colour=RULE))
            return y
        self.add(Item(pygame.Rect(x, y + 6, room, 2), "fill", colour=RULE))
        return y + 20

    def heading(self, block: Heading, x: int, y: int, room: int, first: bool) -> int:
        size = HEADING_SIZES.get(block.level, BODY_SIZE)
        if not first:
            y += {1: 12, 2: 22, 3: 14}.get(block.level, 8)
        self.laid.anchors[block.slug] = y
        self.laid.headings.append((block.level, plain(block.inline), block.slug, y))
        y = self.text(block.inline, x, y, room, size, HEADING)
        if block.level <= 2:
            self.add(Item(pygame.Rect(x, y + 1, room, 2 if block.level == 1 else 1), "fill",
                          colour=HEADING if block.level == 1 else RULE))
            y += 8
        return y + 6

    def list(self, block: ListBlock, x: int, y: int, room: int) -> int:
        marks = ("•", "–", "·")
        self.depth += 1
        for number, item in enumerate(block.items, block.start):
            marker = f"{number}." if block.ordered else marks[(self.depth - 1) % len(marks)]
            image = fonts.font(BODY_SIZE).render(marker, True, HEADING)
            line_height = fonts.font(BODY_SIZE).get_linesize() + 4
            rect = image.get_rect(topright=(x + INDENT - 8, y + (line_height - 4 -
                                                                 image.get_height()) // 2 + 2))
            self.add(Item(rect, "image", image))
            y = self.blocks(item, x + INDENT, y, room - INDENT)
            if not block.tight:
                y += 2
        self.depth -= 1
        return y + (8 if block.tight else 0)

    def code(self, block: CodeBlock, x: int, y: int, room: int) -> int:
        """Preformatted text in even columns (the bundled font is proportional: each
        character is centred in a cell of one width), made smaller until it fits."""
        lines = block.text.split("\n")
        longest = max((len(line) for line in lines), default=0)
        size = CODE_SIZE
        while size > 10 and longest * _cell(size) + 24 > room:
            size -= 1
        cell = _cell(size)
        line_height = fonts.font(size).get_linesize() + 2
        box = pygame.Rect(x, y, min(room, longest * cell + 24), len(lines) * line_height + 20)
        self.add(Item(box, "fill", colour=CODE_BLOCK_BACK, radius=6))
        self.add(Item(box, "frame", colour=RULE, radius=6))
        top = y + 10
        for line in lines:
            if line.strip():
                self.add(Item(pygame.Rect(x + 12, top, len(line) * cell, line_height), "image",
                              _mono_line(line, size, cell, line_height)))
            top += line_height
        return box.bottom

    def table(self, block: Table, x: int, y: int, room: int) -> int:
        columns = max([len(block.head), *(len(row) for row in block.rows)], default=0)
        if not columns:
            return y
        pad = 8
        size = TABLE_SIZE
        rows = [block.head, *block.rows] if block.head else block.rows
        natural = [0] * columns
        least = [0] * columns
        for row in rows:
            for column, cell in enumerate(row):
                words = [w for w in _words(cell, size) if w is not None]
                spaces = _piece_width(" ", Style(), size) * max(0, len(words) - 1)
                natural[column] = max(natural[column],
                                      sum(w.width for w in words) + spaces + 2 * pad)
                least[column] = max([least[column], *(w.width + 2 * pad for w in words)])
        widths = _column_widths(natural, least, room)
        line_height = fonts.font(size).get_linesize() + 4
        top = y
        for number, row in enumerate(rows):
            heading = number == 0 and bool(block.head)
            cells_y = y + pad // 2
            laid_cells = []
            cx = x
            for column in range(columns):
                cell = row[column] if column < len(row) else []
                laid_cells.append((cx, cell, widths[column]))
                cx += widths[column]
            # Measure the row first, so its background goes under its text.
            height = max(len(wrap(cell, width - 2 * pad, size)) for _, cell, width in laid_cells)
            bottom = cells_y + height * line_height + pad // 2
            back = TABLE_HEAD_BACK if heading else (TABLE_STRIPE if number % 2 == 0 else None)
            if back is not None:
                self.add(Item(pygame.Rect(x, y, sum(widths), bottom - y), "fill", colour=back))
            for column, (cx, cell, width) in enumerate(laid_cells):
                align = block.aligns[column] if column < len(block.aligns) else "left"
                self.text(cell, cx + pad, cells_y, width - 2 * pad, size,
                          HEADING if heading else INK, align)
            self.add(Item(pygame.Rect(x, bottom, sum(widths), 1), "fill", colour=RULE))
            y = bottom + 1
        self.add(Item(pygame.Rect(x, top, sum(widths), y - top), "frame", colour=RULE))
        edge = x
        for width in widths[:-1]:
            edge += width
            self.add(Item(pygame.Rect(edge, top, 1, y - top), "fill", colour=RULE))
        return y


def _column_widths(natural: list[int], least: list[int], room: int) -> list[int]:
    """Each column its natural width if all fit; else its longest word's, and the room left
    shared out by how much more each column would like."""
    if sum(natural) <= room:
        return natural
    if sum(least) >= room:
        return [max(24, room * width // max(1, sum(least))) for width in least]
    extra = room - sum(least)
    wants = [n - m for n, m in zip(natural, least, strict=True)]
    total = max(1, sum(wants))
    return [m + extra * want // total for m, want in zip(least, wants, strict=True)]


@cache
def _cell(size: int) -> int:
    return int(fonts.font(size).size("0")[0])


def _mono_line(line: str, size: int, cell: int, height: int) -> pygame.Surface:
    image = pygame.Surface((max(1, len(line) * cell), height), pygame.SRCALPHA)
    face = fonts.font(size)
    for column, ch in enumerate(clean_mono(line)):
        if ch == " ":
            continue
        left = column * cell
        if ch in SYMBOL_SUITS:
            suit = SUITS[SYMBOL_SUITS[ch]]
            box = min(height - 2, round(cell * 1.3))
            draw_symbol(image, suit.shape, pygame.Rect(left + (cell - box) // 2,
                                                       (height - box) // 2, box, box),
                        suit.colour)
            continue
        glyph = face.render(ch, True, CODE_INK)
        image.blit(glyph, glyph.get_rect(midtop=(left + cell // 2, 1)))
    return image


def clean_mono(line: str) -> str:
    """A code line with one character per column: replacements keep their first letter."""
    return "".join(REPLACEMENTS.get(ch, ch)[:1] for ch in line)


def shortened(words: str, size: int, room: int) -> str:
    """``words`` cut at a word, with an ellipsis, to fit in ``room`` pixels."""
    face = fonts.font(size)
    if face.size(words)[0] <= room:
        return words
    parts = words.split(" ")
    while len(parts) > 1 and face.size(" ".join(parts) + "…")[0] > room:
        parts.pop()
    return " ".join(parts).rstrip(",:;(") + "…"


def lay_out(blocks: list[Block], width: int) -> Laid:
    layouter = Layouter(width)
    layouter.laid.height = layouter.blocks(blocks, 0, 0, width) + 24
    return layouter.laid


# --- the overlay ---------------------------------------------------------------------------


class RulesOverlay:
    """The rules page of one game over a table, and the button that opens it."""

    def __init__(self, game: str) -> None:
        self.game = game
        self.open = False
        self.scroll = 0
        self.mouse = (-1, -1)
        self._blocks: list[Block] | None = None
        self._laid: Laid | None = None
        self._view = pygame.Rect(0, 0, 0, 0)
        """Where the page shows on screen, from the last draw."""
        self._scrollbar = pygame.Rect(0, 0, 0, 0)
        self._dragging = False

    # --- the page ----------------------------------------------------------------------

    @property
    def blocks(self) -> list[Block]:
        if self._blocks is None:
            self._blocks = parse(page_text(self.game) or missing_page(self.game))
        return self._blocks

    def laid(self, width: int) -> Laid:
        if self._laid is None or self._laid.width != width:
            self._laid = lay_out(self.blocks, width)
        return self._laid

    @property
    def max_scroll(self) -> int:
        if self._laid is None:
            return 0
        return max(0, self._laid.height - self._view.h)

    def scroll_to(self, y: float) -> None:
        self.scroll = int(max(0, min(self.max_scroll, y)))

    def jump(self, target: str) -> None:
        """Show the heading a link or the contents names (``#slug``)."""
        if self._laid is None:
            return
        top = self._laid.anchors.get(target.removeprefix("#"))
        if top is not None:
            self.scroll_to(top - 8)

    # --- opening and closing -------------------------------------------------------------

    def show(self) -> None:
        self.open = True
        self._dragging = False

    def close(self) -> None:
        self.open = False
        self._dragging = False

    def toggle(self) -> None:
        if self.open:
            self.close()
        else:
            self.show()

    # --- input -------------------------------------------------------------------------

    def key(self, key: int) -> bool:
        """A key from the table: ``True`` when the rules used it (F1 always; every key while
        the page is open, so nothing reaches the game underneath)."""
        if key == pygame.K_F1:
            self.toggle()
            return True
        if not self.open:
            return False
        page = max(LINE_STEP, self._view.h - LINE_STEP)
        steps = {pygame.K_UP: -LINE_STEP, pygame.K_DOWN: LINE_STEP, pygame.K_PAGEUP: -page,
                 pygame.K_PAGEDOWN: page, pygame.K_SPACE: page, pygame.K_KP_8: -LINE_STEP,
                 pygame.K_KP_2: LINE_STEP}
        if key == pygame.K_ESCAPE:
            self.close()
        elif key in steps:
            self.scroll_to(self.scroll + steps[key])
        elif key == pygame.K_HOME:
            self.scroll_to(0)
        elif key == pygame.K_END:
            self.scroll_to(self.max_scroll)
        return True

    def handle(self, event: pygame.event.Event, hotspots: Hotspots | None) -> bool:
        """An input event from the table: ``True`` when the rules used it."""
        if event.type == pygame.MOUSEMOTION:
            self.mouse = event.pos
            if self.open and self._dragging:
                self._drag(event.pos[1])
            return False  # the table still follows the pointer
        if event.type == pygame.KEYDOWN:
            return self.key(event.key)
        if not self.open:
            if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and hotspots:
                spot = hotspots.at(event.pos)
                if spot is not None and spot.action == ("rules", "open"):
                    self.show()
                    return True
            return False
        if event.type == pygame.MOUSEWHEEL:
            self.scroll_to(self.scroll - event.y * WHEEL_STEP)
        elif event.type == pygame.MOUSEBUTTONUP:
            self._dragging = False
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            self._click(event.pos, hotspots)
        return True

    def _click(self, pos: tuple[int, int], hotspots: Hotspots | None) -> None:
        spot = hotspots.at(pos) if hotspots else None
        action = spot.action if spot is not None else ()
        if action[:1] != ("rules",):
            return
        if action[1] == "close":
            self.close()
        elif action[1] == "jump":
            self.jump(str(action[2]))
        elif action[1] == "scrollbar":
            self._dragging = True
            self._drag(pos[1])

    def _drag(self, y: int) -> None:
        bar = self._scrollbar
        if bar.h <= 0 or self._laid is None:
            return
        fraction = (y - bar.y) / bar.h
        self.scroll_to(fraction * self._laid.height - self._view.h / 2)

    # --- drawing -----------------------------------------------------------------------

    def draw(self, surface: pygame.Surface, area: pygame.Rect, felt: pygame.Rect,
             hotspots: Hotspots) -> None:
        """The Rules button in the table's top-left corner, or the open page over ``area``."""
        if not self.open:
            rect = rules_button_rect(felt)
            button(surface, hotspots, rect, RULES_LABEL, "rules", "open",
                   hovered=rect.collidepoint(self.mouse), size=14)
            return
        shade = pygame.Surface(area.size, pygame.SRCALPHA)
        shade.fill(SHADE)
        surface.blit(shade, area)
        margin = 16 if area.w >= 1000 else 8
        sheet = area.inflate(-2 * margin, -2 * margin)
        hotspots.add(area, "rules", "page")  # nothing under the page takes a click
        panel(surface, sheet, 250, radius=10)
        bar_height = 50
        self._draw_title(surface, sheet, bar_height, hotspots)
        body = pygame.Rect(sheet.x + 6, sheet.y + bar_height, sheet.w - 12,
                           sheet.h - bar_height - 6)
        contents_width = CONTENTS_WIDTH if body.w >= 1000 else 0
        paper = pygame.Rect(body.x + contents_width, body.y, body.w - contents_width, body.h)
        self._place(paper)
        if contents_width:
            self._draw_contents(surface, pygame.Rect(body.x, body.y, contents_width, body.h),
                                hotspots)
        self._draw_page(surface, paper, hotspots)

    def _draw_title(self, surface: pygame.Surface, sheet: pygame.Rect, height: int,
                    hotspots: Hotspots) -> None:
        close = pygame.Rect(0, 0, fonts.font(15).size("Close  [Esc]")[0] + 28, 32)
        close.midright = (sheet.right - 12, sheet.y + height // 2)
        # The middle of the bar stays empty: a live table's bug report button is drawn there.
        blit_text(surface, f"Rules: {game_title(self.game)}", 22, theme.GOLD, "midleft",
                  (sheet.x + 18, sheet.y + height // 2), max_width=close.x - sheet.x - 40)
        button(surface, hotspots, close, "Close  [Esc]", "rules", "close",
               hovered=close.collidepoint(self.mouse), size=15)

    def _draw_contents(self, surface: pygame.Surface, area: pygame.Rect,
                       hotspots: Hotspots) -> None:
        laid = self._laid
        if laid is None:
            return
        x, y = area.x + 12, area.y + 10
        blit_text(surface, "Contents", 15, theme.TEXT_DIM, "topleft", (x, y))
        y += 26
        bottom = area.bottom - 20 * len(HINTS) - 14
        for number, hint in enumerate(HINTS):
            blit_text(surface, hint, 13, theme.TEXT_DIM, "topleft",
                      (x, bottom + 8 + 20 * number), max_width=area.w - 24)
        entries = [h for h in laid.headings if h[0] in (2, 3)]
        if len(entries) * 22 > bottom - y:
            entries = [h for h in entries if h[0] == 2]
        current = None
        for level, _, slug, top in laid.headings:
            if top <= self.scroll + 24 and level in (2, 3):
                current = slug
        for level, words, slug, _ in entries:
            indent = 0 if level == 2 else 14
            size = 14 if level == 2 else 13
            rect = pygame.Rect(x + indent - 6, y - 2, area.w - 18 - indent, 21)
            if slug == current:
                pygame.draw.rect(surface, theme.BUTTON, rect, border_radius=5)
            elif rect.collidepoint(self.mouse):
                pygame.draw.rect(surface, theme.FELT_DARK, rect, border_radius=5)
            colour = theme.GOLD if slug == current else (
                theme.TEXT if level == 2 else theme.TEXT_DIM)
            blit_text(surface, shortened(words, size, rect.w - 10), size, colour, "topleft",
                      (x + indent, y + 1))
            hotspots.add(rect, "rules", "jump", slug)
            y += 22
            if y > bottom - 22:
                break

    def _place(self, paper: pygame.Rect) -> Laid:
        """Lay the page out for the paper's width, and keep the scroll within it."""
        pad = 28 if paper.w >= 700 else 16
        scrollbar_room = 18
        column = max(200, min(MAX_COLUMN, paper.w - 2 * pad - scrollbar_room))
        laid = self.laid(column)
        self._view = pygame.Rect(paper.x + pad, paper.y + 14, column, paper.h - 20)
        self.scroll_to(self.scroll)  # the window may have grown
        return laid

    def _draw_page(self, surface: pygame.Surface, paper: pygame.Rect,
                   hotspots: Hotspots) -> None:
        pygame.draw.rect(surface, PAPER, paper, border_radius=6)
        laid = self._place(paper)
        view = self._view
        clip = surface.get_clip()
        surface.set_clip(paper.inflate(-4, -4).clip(clip))
        dx, dy = view.x, view.y - self.scroll
        for item in laid.items:
            if item.rect.bottom + dy < paper.y or item.rect.y + dy > paper.bottom:
                continue
            rect = item.rect.move(dx, dy)
            if item.kind == "image" and item.image is not None:
                surface.blit(item.image, rect)
            elif item.kind == "fill":
                pygame.draw.rect(surface, item.colour, rect, border_radius=item.radius)
            elif item.kind == "frame":
                pygame.draw.rect(surface, item.colour, rect, 1, border_radius=item.radius)
            elif item.kind == "symbol":
                draw_symbol(surface, item.shape, rect, item.colour)
        surface.set_clip(clip)
        for rect, target in laid.links:
            moved = rect.move(dx, dy)
            if target.startswith("#") and moved.colliderect(paper):
                hotspots.add(moved.clip(paper), "rules", "jump", target)
        self._draw_scrollbar(surface, paper, hotspots)

    def _draw_scrollbar(self, surface: pygame.Surface, paper: pygame.Rect,
                        hotspots: Hotspots) -> None:
        laid = self._laid
        if laid is None or self.max_scroll == 0:
            self._scrollbar = pygame.Rect(0, 0, 0, 0)
            return
        track = pygame.Rect(paper.right - 14, paper.y + 8, 8, paper.h - 16)
        self._scrollbar = track
        pygame.draw.rect(surface, RULE, track, border_radius=4)
        share = self._view.h / laid.height
        thumb_height = max(30, round(track.h * share))
        thumb_y = track.y + round((track.h - thumb_height) * self.scroll / self.max_scroll)
        pygame.draw.rect(surface, HEADING, (track.x, thumb_y, track.w, thumb_height),
                         border_radius=4)
        hotspots.add(track.inflate(10, 0), "rules", "scrollbar")

