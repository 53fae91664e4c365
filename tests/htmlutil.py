"""Parse built pages into what a reader sees: tables as rows of cell texts, ids, links."""
from __future__ import annotations

import re
from pathlib import Path

import html5lib

NS = "{http://www.w3.org/1999/xhtml}"


def parse(path: Path):
    with open(path, "rb") as f:
        return html5lib.parse(f, treebuilder="etree", namespaceHTMLElements=True)


def text(el) -> str:
    """Visible text: scripts, styles and SVG (charts have their own text twins) left out."""
    return cell_text(el)


def tables(doc) -> dict[str, list[list[str]]]:
    """Tables by id (of the table or of its enclosing figure); rows of cell texts."""
    out = {}
    for fig in doc.iter(f"{NS}figure"):
        for table in fig.iter(f"{NS}table"):
            out.setdefault(fig.get("id") or table.get("id"), rows(table))
    for table in doc.iter(f"{NS}table"):
        if table.get("id"):
            out.setdefault(table.get("id"), rows(table))
    return out


def rows(table) -> list[list[str]]:
    return [[cell_text(c) for c in tr if c.tag in (f"{NS}td", f"{NS}th")] for tr in table.iter(f"{NS}tr")]


def cell_text(cell) -> str:
    chunks = []

    def walk(node):
        if str(node.tag).endswith("}svg") or node.tag in (f"{NS}script", f"{NS}style", f"{NS}title"):
            return
        if "vh" in (node.get("class") or "").split():  # visually hidden: read aloud, not seen (its tail is)
            return
        if node.text:
            chunks.append(node.text)
        for child in node:
            walk(child)
            if child.tail:
                chunks.append(child.tail)
    walk(cell)
    return re.sub(r"\s+", " ", "".join(chunks)).strip()


def find_id(doc, ident: str):
    for el in doc.iter():
        if el.get("id") == ident:
            return el
    return None


def send_404_page(handler, page) -> None:
    """Answers `handler`'s request with a site's own 404 page (`page`), as a static host does:
    status 404, the page's HTML as the body (none to HEAD)."""
    body = page.read_bytes()
    handler.send_response(404)
    handler.send_header("Content-Type", "text/html; charset=utf-8")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    if handler.command != "HEAD":
        handler.wfile.write(body)
