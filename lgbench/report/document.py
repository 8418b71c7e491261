"""A small document model (headings, paragraphs, tables, figures, links) that the Markdown and HTML
renderers turn into files, so both formats always carry the same content."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Link:
    """A link to another document, given by its path without suffix; each renderer links the file
    of its own format (``report`` -> ``report.md`` / ``report.html``)."""

    text: str
    target: Path


@dataclass(frozen=True)
class Image:
    """A PNG shown small inside a table cell and linked to the full-size file (not embedded: an index
    page shows many)."""

    path: Path
    text: str


class Tone:
    """How a ``Marked`` cell is highlighted."""

    GOOD = "good"
    WARN = "warn"
    BAD = "bad"


@dataclass(frozen=True)
class Marked:
    """Text highlighted by a tone (a verdict reproduced, short of it, or differing from the paper)."""

    text: str
    tone: str


Cell = str | Link | Image | Marked


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Table:
    header: list[str]
    rows: list[list[Cell]]
    caption: str = ""
    text: bool = False          # cells of prose (left-aligned) rather than numbers


@dataclass(frozen=True)
class Figure:
    path: Path             # a PNG file
    caption: str


Block = Heading | Paragraph | Table | Figure


@dataclass
class Document:
    title: str
    blocks: list[Block] = field(default_factory=list)

    def add(self, *blocks: Block) -> None:
        self.blocks.extend(blocks)
