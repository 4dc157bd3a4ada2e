"""Every arrow points down: no module of the library (bridge, kb, learners) or of the page (web)
imports the command line, and the packages' modules import each other without a cycle — counting
the imports made inside functions too, read with Python's own parser."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bridge", "kb", "learners", "web")
CLI = "educable.cli"


def modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            out["educable." + ".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` (and educable.cli) that ``path`` imports anywhere in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {m for m in found if (m in known or m == CLI) and m != name}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_cycles_finds_a_cycle_and_nothing_else():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_nothing_below_the_command_line_imports_it():
    mods = modules()
    users = [name for name, path in mods.items() if CLI in imported(name, path, set(mods))]
    assert users == [], f"these import cli.py: {users}"


def test_the_packages_modules_import_each_other_without_a_cycle():
    mods = modules()
    graph = {name: imported(name, path, set(mods)) for name, path in mods.items()}
    assert sum(len(v) for v in graph.values()) > 50          # the reading found the imports
    assert cycles(graph) == []


def test_a_solved_games_query_the_games_list_and_show_import_no_numpy(tmp_path):
    """`educable query` on a solved game, `games` and `show` compute nothing with numpy, and do not
    import it (it was 70 ms of a 0.34 s query: bench/bench_startup.py); a query below an unsolved
    position, which builds a graph, does.  No command imports sqlite-utils (48 ms of a query: the
    commands read and write through kb.db.CommandDatabase), though every one here opens the base."""
    import os
    import subprocess
    import sys
    env = {**os.environ, "EDUCABLE_DB": str(tmp_path / "kb.db")}
    code = ("import sys\nfrom educable.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n"
            "    assert not e.code, e.code\nassert 'sqlite_utils' not in sys.modules\n"
            "print('numpy' in sys.modules, file=sys.stderr)")

    def numpy_imported(*args: str) -> bool:
        r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120,
                           cwd=tmp_path, env=env)
        assert r.returncode == 0, r.stderr
        return r.stderr.strip().splitlines()[-1] == "True"

    assert numpy_imported("query", "hexapawn", "123-789 w")          # not solved: its graph below is built
    assert numpy_imported("solve", "tictactoe")
    assert not numpy_imported("query", "tictactoe", "x../.o./...")
    assert not numpy_imported("games")
    assert not numpy_imported("show", "tictactoe")
