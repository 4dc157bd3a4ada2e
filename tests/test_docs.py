"""The console examples of the README and of every manual page (docs/) run as written, and every command's --help
carries an example (see tests/doc_examples.py for the format)."""
import sys
from pathlib import Path

import pytest

from doc_examples import DOCUMENTS, examples, matches, run, sandbox


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


def test_the_example_matcher_can_fail():
    assert matches(["a ... c", "...", "z"], ["a b c", "x", "y", "z"])
    assert not matches(["a ... c"], ["a b d"])
    assert not matches(["one"], ["one", "two"])
    assert matches(["..."], [])


def commands(group=None, prefix=()):
    """Every command path of the CLI, subcommands of groups included."""
    import click

    from cli import main
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

    from bridge import registry
    text = option_tables.PAGE.read_text()
    assert sorted(re.findall(r"<!-- options: (\w+) -->", text)) == sorted(registry.TRAINABLE)
    assert option_tables.current(text) == text, "run scripts/option_tables.py"
    assert "| `--lambda` | in [0, 1] | 0 |" in text      # a declaration read right: flag, bounds, default
