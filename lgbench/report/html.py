"""Renders a report Document as one self-contained HTML file: figures are embedded as base64 data
URIs, the style is inline."""
from __future__ import annotations

import base64
import html
import os
from pathlib import Path

from lgbench.exceptions import printable
from lgbench.report.document import Document, Figure, Heading, Image, Link, Marked, Paragraph, Table

SUFFIX = ".html"


def _text(text: str) -> str:
    """Text for HTML: markup characters and control characters escaped (line breaks kept)."""
    return html.escape(printable(text, keep="\n"))

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem;
       color: #222; line-height: 1.4; }
h1 { border-bottom: 2px solid #ccc; padding-bottom: .3rem; }
h2 { margin-top: 2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-size: .9rem; }
caption { caption-side: top; text-align: left; font-style: italic; padding-bottom: .3rem; }
th, td { border: 1px solid #ccc; padding: .25rem .6rem; text-align: right; }
th { background: #f0f0f0; }
td:first-child, th:first-child { text-align: left; }
tr:nth-child(even) td { background: #fafafa; }
figure { margin: 1rem 0; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: .9rem; color: #555; }
table.text td { text-align: left; vertical-align: top; }
td img { width: 10rem; border: 1px solid #eee; }
td.good { background: #e6f4ea; }
td.warn { background: #fff4d6; }
td.bad { background: #fbe0de; font-weight: bold; }
"""


def _relative(path: Path, directory: Path) -> str:
    return _text(Path(os.path.relpath(path.resolve(), directory.resolve())).as_posix())


def _cell(cell, directory: Path) -> str:
    """The cell's ``<td>`` element."""
    if isinstance(cell, Link):
        target = _relative(cell.target.with_suffix(SUFFIX), directory)
        return f'<td><a href="{target}">{_text(cell.text)}</a></td>'
    if isinstance(cell, Image):
        target = _relative(cell.path, directory)
        return f'<td><a href="{target}"><img alt="{_text(cell.text)}" src="{target}"></a></td>'
    if isinstance(cell, Marked):
        return f'<td class="{_text(cell.tone)}">{_text(cell.text)}</td>'
    return f"<td>{_text(cell)}</td>"


def _table(table: Table, directory: Path) -> list[str]:
    lines = ['<table class="text">' if table.text else "<table>"]
    if table.caption:
        lines.append(f"<caption>{_text(table.caption)}</caption>")
    lines.append("<tr>" + "".join(f"<th>{_text(cell)}</th>" for cell in table.header) + "</tr>")
    lines += ["<tr>" + "".join(_cell(cell, directory) for cell in row) + "</tr>"
              for row in table.rows]
    lines.append("</table>")
    return lines


def _figure(figure: Figure) -> str:
    data = base64.b64encode(figure.path.read_bytes()).decode("ascii")
    caption = _text(figure.caption)
    return (f'<figure><img alt="{caption}" src="data:image/png;base64,{data}">'
            f"<figcaption>{caption}</figcaption></figure>")


def render_html(document: Document, directory: Path) -> str:
    """The document as an HTML page for a file in ``directory``."""
    title = _text(document.title)
    lines = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             f"<title>{title}</title>", f"<style>{STYLE}</style>", "</head>", "<body>", f"<h1>{title}</h1>"]
    for block in document.blocks:
        if isinstance(block, Heading):
            lines.append(f"<h{block.level}>{_text(block.text)}</h{block.level}>")
        elif isinstance(block, Paragraph):
            lines.append(f"<p>{_text(block.text)}</p>")
        elif isinstance(block, Table):
            lines += _table(block, directory)
        elif isinstance(block, Figure):
            lines.append(_figure(block))
    lines += ["</body>", "</html>", ""]
    return "\n".join(lines)
