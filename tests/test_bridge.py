"""The bridge: Python values out, Prolog errors in as Python exceptions, rule-file errors named."""
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bridge.engine import BadInput, PrologError, RuleFileError, engine, quote

ROOT = Path(__file__).resolve().parent.parent


def test_values_come_back_as_python_values():
    assert engine().call("Out = [1, 2.5, abc, \"text\", [x-1]]") == [1, 2.5, "abc", "text", ["x-1"]]


def test_prolog_exception_becomes_python_exception():
    with pytest.raises(PrologError, match="not sufficiently instantiated"):
        engine().call("atom_length(_, Out)")


def test_failure_is_lookup_error_and_engine_stays_usable():
    with pytest.raises(LookupError):
        engine().call("fail, Out = 1")
    assert engine().call("Out = ok") == "ok"


def test_quoting_keeps_user_text_inert():
    nasty = "a'), halt, ('"
    assert engine().call(f"Out = {quote(nasty)}") == nasty
    with pytest.raises(BadInput):
        from bridge import games
        games.parse("tictactoe", nasty)


def test_syntax_error_in_rule_file_names_file_and_line(tmp_path):
    bad = tmp_path / "broken.pl"
    bad.write_text("ok(1).\nbroken(a :- .\nok(2).\n")
    with pytest.raises(RuleFileError, match=r"broken\.pl:2: syntax error"):
        engine().load(bad)


def test_broken_game_file_stops_the_engine_with_one_line(tmp_path):
    """A copy of rules/ with a broken game file: the engine refuses to start, naming file and line."""
    import shutil
    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", rules)
    (rules / "games" / "broken.pl").write_text(":- module(broken, []).\n\ngame:game(broken).\ngame:players(broken, [a, b).\n")
    code = textwrap.dedent(f"""
        import sys; sys.path.insert(0, {str(ROOT)!r})
        from pathlib import Path
        from bridge.engine import Engine, RuleFileError
        try:
            Engine(Path({str(rules)!r}))
        except RuleFileError as e:
            print(e)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "games/broken.pl:4: syntax error" in out.stdout
