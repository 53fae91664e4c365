"""The import graph of site_gen/, read from the source (every `import` and `from … import`, at any
depth, not just at module level): what tests/test_layers.py checks."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "site_gen"

# The layers, lowest first. A module may import its own layer's modules and lower layers' only.
LAYERS = ("core", "receipts", "analysis", "views", "build", "api", "front ends")


# What the packaging step generates there (each template's compiled code, render/precompiled.py):
# not source anyone writes or reads, so none of the source's rules apply to it.
GENERATED = "_compiled"


def sources() -> list[Path]:
    """site_gen/'s own Python files, those generated when it is packaged left out."""
    return [p for p in sorted(PACKAGE.rglob("*.py")) if GENERATED not in p.relative_to(PACKAGE).parts]


def modules() -> dict[str, Path]:
    out = {}
    for path in sources():
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def layer(module: str) -> str:
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else ""
    if top in ("", "core", "schema"):
        return "core"
    if top in ("receipts", "importers"):
        return "receipts"
    if top == "sections":
        # A section package: its declaration and checks are read with the receipt, its analysis with
        # the analysis, its view with the views.
        leaf = parts[3] if len(parts) > 3 else ""
        return {"analysis": "analysis", "view": "views"}.get(leaf, "receipts")
    if top == "analysis":
        return "analysis"
    if top == "render":
        return "views"
    if top == "building":  # the build layer's folder
        return "build"
    if top == "api":
        return "api"
    return "front ends"  # cli, preview, mkdocs_plugin, __main__


def imports(known: dict[str, Path]) -> dict[str, set[str]]:
    """Each module's imports of other site_gen modules (a name imported from a package that is a
    module of its own counts as that module)."""
    out: dict[str, set[str]] = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        found: set[str] = set()
        for node in list(ast.walk(tree)):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                node.body = []  # names for the type checker only: never imported when the code runs
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.startswith("site_gen")}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if not target.startswith("site_gen"):
                    continue
                for alias in node.names:
                    full = f"{target}.{alias.name}"
                    found.add(full if full in known else target)
        out[name] = {m for m in found if m in known and m != name}
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def upward(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    rank = {name: i for i, name in enumerate(LAYERS)}
    return sorted((a, b) for a, targets in graph.items() for b in targets if rank[layer(b)] > rank[layer(a)])


if __name__ == "__main__":
    g = imports(modules())
    for c in cycles(g):
        print("cycle:", " -> ".join(c))
    for a, b in upward(g):
        print(f"upward: {a} ({layer(a)}) imports {b} ({layer(b)})")
