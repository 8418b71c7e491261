"""Renders a report Document as Markdown; figures and links are relative to the file's folder."""
from __future__ import annotations

import os
from pathlib import Path

from lgbench.exceptions import printable
from lgbench.report.document import Document, Figure, Heading, Image, Link, Marked, Paragraph, Table, Tone

SUFFIX = ".md"


def _relative(path: Path, directory: Path) -> str:
    return Path(os.path.relpath(path.resolve(), directory.resolve())).as_posix()


def _cell(cell, directory: Path) -> str:
    if isinstance(cell, Link):
        return f"[{_escape(cell.text)}]({_relative(cell.target.with_suffix(SUFFIX), directory)})"
    if isinstance(cell, Image):
        target = _relative(cell.path, directory)
        return f"[![{_escape(cell.text)}]({target})]({target})"
    if isinstance(cell, Marked):
        return f"**{_escape(cell.text)}**" if cell.tone == Tone.BAD else _escape(cell.text)
    return _escape(cell)


def _escape(text: str) -> str:
    return printable(text.replace("|", "\\|").replace("\n", " "))


def render_table(table: Table, directory: Path) -> list[str]:
    """The lines of one Markdown table (for documents written in part by hand)."""
    return _table(table, directory)


def _table(table: Table, directory: Path) -> list[str]:
    lines = [f"*{table.caption}*", ""] if table.caption else []
    lines.append("| " + " | ".join(_escape(cell) for cell in table.header) + " |")
    lines.append("|" + "---|" * len(table.header))
    lines += ["| " + " | ".join(_cell(cell, directory) for cell in row) + " |" for row in table.rows]
    return lines


def render_markdown(document: Document, directory: Path) -> str:
    """The document as Markdown text for a file in ``directory``."""
    lines = [f"# {_escape(document.title)}", ""]
    for block in document.blocks:
        if isinstance(block, Heading):
            lines.append(f"{'#' * block.level} {_escape(block.text)}")
        elif isinstance(block, Paragraph):
            lines.append(printable(block.text, keep="\n"))
        elif isinstance(block, Table):
            lines += _table(block, directory)
        elif isinstance(block, Figure):
            lines.append(f"![{_escape(block.caption)}]({_relative(block.path, directory)})")
        lines.append("")
    return "\n".join(lines)
