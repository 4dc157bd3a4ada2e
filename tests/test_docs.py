"""The console examples of the README and of every manual page (docs/) run as written, and every command's --help
carries an example (see tests/doc_examples.py for the format)."""
import sys
from pathlib import Path

import pytest

from doc_examples import DOCUMENTS, PAGES, examples, matches, python_blocks, run, run_python, sandbox


@pytest.mark.parametrize("document", DOCUMENTS)
def test_every_console_example_prints_what_the_document_shows(document, tmp_path):
    folder = sandbox(tmp_path)          # pytest keeps the last few sessions' folders, not every one
    found = examples(document)
    assert found, f"{document} has no console example"
    drifted = []
    for ex in found:
        actual = run(ex, folder)
        if not matches(ex.expected, actual):
            drifted.append(f"{ex.document}:{ex.line}: $ {ex.command}\n  shown:\n    " + "\n    ".join(ex.expected)
                           + "\n  printed:\n    " + "\n    ".join(actual))
    assert not drifted, "\n\n".join(drifted)


@pytest.mark.parametrize("document", [d for d in ["README.md", *PAGES] if python_blocks(d)])
def test_every_python_example_runs_as_written(document, tmp_path):
    """A page's ```python blocks run in order as one script, in a scratch folder like the console
    examples'; the asserts they hold are what the page says they show."""
    r = run_python(python_blocks(document), sandbox(tmp_path))
    assert r.returncode == 0, f"{document}: the Python examples failed:\n{r.stderr[-3000:]}"


def test_the_example_matcher_can_fail():
    assert matches(["a ... c", "...", "z"], ["a b c", "x", "y", "z"])
    assert not matches(["a ... c"], ["a b d"])
    assert not matches(["one"], ["one", "two"])
    assert matches(["..."], [])


def commands(group=None, prefix=()):
    """Every command path of the CLI, subcommands of groups included."""
    import click

    from educable.cli import main
    group = group or main
    for name, cmd in group.commands.items():
        yield (*prefix, name)
        if isinstance(cmd, click.Group):
            yield from commands(cmd, (*prefix, name))


@pytest.mark.parametrize("path", list(commands()), ids=" ".join)
def test_every_command_has_help_with_an_example(path):
    from conftest import cli  # in-process: --help starts nothing
    r = cli(*path, "--help")
    assert r.exit_code == 0, r.output
    assert "Example" in r.output, f"educable {' '.join(path)} --help has no example"
    assert "educable " + path[0] in r.output.split("Example", 1)[1]
    assert "None]" not in r.output, "a bound shown as None (a range with no bounds)"


def test_the_tutorials_game_is_the_shipped_example_file():
    """The tutorial shows examples/pile.pl in full; the two must not drift apart."""
    import re
    text = (Path(__file__).resolve().parent.parent / "docs" / "tutorial.md").read_text()
    shown = re.search(r"```prolog\n(.*?)```", text, re.S).group(1)
    assert shown == (Path(__file__).resolve().parent.parent / "examples" / "pile.pl").read_text()


def test_the_manuals_option_tables_are_the_learners_declarations():
    """docs/learners.md shows each learner's options as its module declares them (the same
    declarations train's options are built from): one table a learner, none stale."""
    import re
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    import option_tables

    from educable.bridge import registry
    text = option_tables.PAGE.read_text()
    assert sorted(re.findall(r"<!-- options: (\w+) -->", text)) == sorted(registry.TRAINABLE)
    assert option_tables.current(text) == text, "run scripts/option_tables.py"
    assert "| `--lambda` | in [0, 1] | 0 |" in text      # a declaration read right: flag, bounds, default


# ---- the manual's shape (issue: reference pages stay reference, results apart, every figure traceable) ----

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("tutorial", "guide", "reference", "explanation", "results")


def slug(heading: str) -> str:
    """The anchor GitHub makes of a heading: lower case, punctuation dropped but '-' and '_', spaces to '-'."""
    import re
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    import re
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)
    return {slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, re.M)}


def paragraphs(text: str) -> list[list[str]]:
    """Runs of prose lines: outside fenced blocks and tables, a list item or a blank line starts a new one."""
    found: list[list[str]] = []
    current: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        starts_new = fenced or line.startswith("```") or not line.strip() or line.startswith(("|", "#", "- ", "* "))
        if starts_new and current:
            found.append(current)
            current = []
        if not (fenced or line.startswith("```") or not line.strip() or line.startswith(("|", "#"))):
            current.append(line)
    return found + ([current] if current else [])


def test_the_paragraph_splitter_counts_prose_only():
    text = "# T\n\none\ntwo\n\n- a\n  b\n- c\n\n| x |\n|---|\n\n```\nx\ny\n```\nthree\n"
    assert [len(p) for p in paragraphs(text)] == [2, 2, 1, 1]


def test_no_manual_page_is_over_600_lines():
    long = {str(p.relative_to(ROOT)): n for p in (ROOT / "docs").rglob("*.md")
            if (n := len(p.read_text().splitlines())) > 600}
    assert not long, long


def test_the_readme_is_a_front_page():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 200
    long = [p[0] for p in paragraphs(text) if len(p) > 8]
    assert not long, f"README paragraphs over eight lines, starting: {long}"


def test_the_manual_table_names_every_page_with_its_kind_and_the_page_agrees():
    import re
    table = dict(re.findall(r"^\| \[(docs/[^\]]+)\]\([^)]+\) \| (\w+) \|", (ROOT / "README.md").read_text(), re.M))
    pages = {str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md")}
    assert set(table) == pages, (set(table) ^ pages)
    for page, kind in table.items():
        assert kind in KINDS, page
        first = (ROOT / page).read_text().split("\n\n", 2)[1]
        assert first.startswith(f"*Kind: {kind}.*"), f"{page} does not open by saying it is {kind}"


def test_every_link_in_the_readme_and_the_manual_leads_to_a_page_and_a_heading_that_exist():
    import re
    broken = []
    for page in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]:
        text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            path, _, anchor = target.partition("#")
            goal = (page.parent / path).resolve() if path else page
            if not goal.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and goal.suffix == ".md" and anchor not in anchors(goal):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


def test_the_results_pages_name_bench_files_that_exist():
    import re
    missing, pages_without = [], []
    for page in (ROOT / "docs" / "results").glob("*.md"):
        text = page.read_text()
        named = set(re.findall(r"bench/(?:results/)?[\w.\-]+\.(?:jsonl|json|py|pl)", text))
        if not any(n.startswith("bench/results/") for n in named):
            pages_without.append(page.name)
        missing += [f"{page.name}: {n}" for n in sorted(named) if not (ROOT / n).exists()]
    assert not pages_without, f"results pages naming no bench/results file: {pages_without}"
    assert not missing, "\n".join(missing)


def test_the_ntuple_learners_options_are_on_the_first_screen_of_its_section():
    lines = (ROOT / "docs" / "learners.md").read_text().splitlines()
    heading = next(i for i, line in enumerate(lines) if line.startswith("### ") and "--learner ntuple" in line)
    table = lines.index("<!-- options: ntuple -->")
    assert 0 < table - heading <= 25, f"the options table starts {table - heading} lines into the section"
