"""No import circle among the CLI's output modules (issue 33): the writers (``output``), the
layouts (``tables``, ``describe_text``, ``yaml_text``), what each format means (``formats``)
and the terminal door (``terminal_text``) import downwards only. grimp counts the imports
inside functions too (the lazy ones), as import-linter does."""

from __future__ import annotations

import grimp

CLI = "kubectl_adapter.cli"
# parser <-> mistyped is issue 33's other circle in cli/, left to its own change.
ELSEWHERE = {f"{CLI}.parser", f"{CLI}.mistyped"}


def circles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in graph.find_modules_directly_imported_by(module) & modules:
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(modules):
        if module not in index:
            visit(module)
    return found


def test_the_cli_modules_import_no_circle_but_the_parsers() -> None:
    graph = grimp.build_graph("kubectl_adapter")
    cli = {m for m in graph.modules if m.startswith(f"{CLI}.")}
    assert {f"{CLI}.output", f"{CLI}.tables", f"{CLI}.terminal_text"} <= cli
    assert [group for group in circles(graph, cli) if not set(group) <= ELSEWHERE] == []


def test_the_circle_finder_finds_a_circle() -> None:
    graph = grimp.ImportGraph()
    for module in ("p.a", "p.b", "p.c"):
        graph.add_module(module)
    graph.add_import(importer="p.a", imported="p.b")
    graph.add_import(importer="p.b", imported="p.a")
    graph.add_import(importer="p.b", imported="p.c")
    assert circles(graph, {"p.a", "p.b", "p.c"}) == [["p.a", "p.b"]]
