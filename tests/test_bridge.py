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


def test_one_broken_game_file_leaves_the_other_games_working(tmp_path):
    """A copy of rules/ with a game file that has a syntax error, one with only a warning, and one
    that is incomplete: the broken one is reported with file and line and left out, the others load."""
    import shutil
    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", rules)
    (rules / "games" / "broken.pl").write_text(":- module(broken, []).\n\ngame:game(broken).\ngame:players(broken, [a, b).\n")
    (rules / "games" / "warned.pl").write_text(
        ":- module(warned, []).\ngame:game(warned).\ngame:players(warned, [a, b]).\n"
        "game:initial(warned, s(0), a).\ngame:over(warned, s(N), _, a) :- N >= 1.\n"
        "game:legal(warned, s(0), Mover, go).\ngame:next(warned, s(0), _, go, s(1)).\n"
        "game:position_text(warned, s(N), _, T) :- format(atom(T), '~w', [N]).\n")
    code = textwrap.dedent(f"""
        import json, sys; sys.path.insert(0, {str(ROOT)!r})
        from pathlib import Path
        import bridge.engine as e
        e._ENGINE = e.Engine(Path({str(rules)!r}))
        from bridge import games
        print(json.dumps({{"broken": e._ENGINE.broken, "warnings": e._ENGINE.warnings, "games": games.games()}}))
        try:
            games.check_game("broken")
        except e.BadInput as exc:
            print(exc)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    first, second = out.stdout.strip().splitlines()
    import json
    d = json.loads(first)
    assert list(d["broken"]) == ["rules/games/broken.pl"] and "broken.pl:4: syntax error" in d["broken"]["rules/games/broken.pl"]
    assert "warned" in d["games"] and "tictactoe" in d["games"] and "broken" not in d["games"]
    assert any("Singleton" in w for w in d["warnings"]["rules/games/warned.pl"])
    assert second.startswith("game 'broken': rules/games/broken.pl did not load: ") and "syntax error" in second

def test_an_incomplete_game_is_listed_as_broken_not_a_traceback(tmp_path):
    from bridge import commands
    half = tmp_path / "halfgame.pl"
    half.write_text(":- module(halfgame, []).\ngame:game(halfgame).\ngame:players(halfgame, [a, b]).\n")
    engine().load_game(half)
    try:
        rows = {r["game"]: r for r in commands.list_games()}
        assert "initial/3" in rows["halfgame"]["broken"]
        assert "broken" not in rows["tictactoe"]
    finally:
        engine().call(f"unload_file({quote(str(half))}), Out = true")
