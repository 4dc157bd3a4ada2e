"""The bridge: Python values out, Prolog errors in as Python exceptions, rule-file errors named."""
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from educable.bridge.engine import BadInput, PrologError, RuleFileError, engine, quote

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


def test_text_comes_back_whole_past_ascii_and_nul():
    """Any text, a NUL and characters past one byte included, comes back as it went in: the answer
    as JSON, an error's message as Prolog wrote it."""
    text = "é → 日本\x00end"
    assert engine().call(f"Out = {quote(text)}") == text
    with pytest.raises(BadInput, match="^é → 日本$"):
        engine().call(f"throw(educable_error({quote('é → 日本')}))")
    with pytest.raises(PrologError, match="Unknown procedure"):
        engine().call("no_such_predicate_here(Out)")


def test_quoting_keeps_user_text_inert():
    nasty = "a'), halt, ('"
    assert engine().call(f"Out = {quote(nasty)}") == nasty
    with pytest.raises(BadInput):
        from educable.bridge import games
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
        import educable.bridge.engine as e
        e._ENGINE = e.Engine(Path({str(rules)!r}))
        from educable.bridge import games
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
    from educable.bridge import catalog
    half = tmp_path / "halfgame.pl"
    half.write_text(":- module(halfgame, []).\ngame:game(halfgame).\ngame:players(halfgame, [a, b]).\n")
    engine().load_game(half)
    try:
        rows = {r["game"]: r for r in catalog.list_games()}
        assert "initial/3" in rows["halfgame"]["broken"]
        assert "broken" not in rows["tictactoe"]
    finally:
        engine().call(f"unload_file({quote(str(half))}), Out = true")


def test_a_protocol_call_asks_only_the_file_whose_game_it_is(tmp_path):
    """The protocol is indexed on the file that defines a game: a family loaded beside the shipped
    games, whose clauses take any name (as connect(N, W, H)'s do) and count their calls, is never
    asked about Connect Four or tic-tac-toe, while its own game is played from its clauses."""
    family = tmp_path / "anyname.pl"
    family.write_text(textwrap.dedent("""\
        :- module(anyname, []).
        :- dynamic asked/1.
        game:game(G) :- ( var(G) -> G = 'anyname(1)' ; G == 'anyname(1)' ).
        game:players(G, [a, b]) :- assertz(asked(G)), G == 'anyname(1)'.
        game:initial(G, 0, a) :- assertz(asked(G)), G == 'anyname(1)'.
        game:legal(G, N, _, 1) :- assertz(asked(G)), G == 'anyname(1)', N < 2.
        game:next(G, N, _, 1, N1) :- assertz(asked(G)), G == 'anyname(1)', N1 is N + 1.
        game:over(G, N, M, R) :- assertz(asked(G)), G == 'anyname(1)', N >= 2, ( M == a -> R = b ; R = a ).
        game:position_text(G, N, _, T) :- assertz(asked(G)), G == 'anyname(1)', format(atom(T), "~d", [N]).
        game:parse_position(G, T, N, a) :- assertz(asked(G)), G == 'anyname(1)', atom_number(T, N).
        game:move_text(G, 1, '1') :- assertz(asked(G)), G == 'anyname(1)'.
        game:parse_move(G, _, 1) :- assertz(asked(G)), G == 'anyname(1)'.
        """))
    engine().load_game(family)
    try:
        for game in ("connect(4,7,6)", "tictactoe"):
            moves = engine().call(f"findall(P/M, game:initial({quote(game)}, P, M), [P/M]), "
                                  f"findall(X, game:legal({quote(game)}, P, M, X), Out)")
            assert moves == ([1, 2, 3, 4, 5, 6, 7] if game.startswith("connect") else list(range(1, 10)))
        assert engine().call("findall(G, anyname:asked(G), Out)") == []
        line = engine().call("G = 'anyname(1)', game:initial(G, P, M), findall(X, game:legal(G, P, M, X), Out)")
        assert line == [1]
        assert set(engine().call("findall(G, anyname:asked(G), Out)")) == {"anyname(1)"}
    finally:
        engine().call(f"unload_file({quote(str(family))}), Out = true")


def test_where_swipl_lives_is_asked_once_and_a_users_setting_is_kept(tmp_path):
    """pyswip asks `swipl --dump-runtime-variables` where SWI-Prolog lives in every process it starts
    in; educable remembers the answer for the swipl on the PATH.  A swipl that logs its calls shows
    it: of three commands, only the first asks (a remembered answer gone bad is asked again), and the
    library the process loaded is the one swipl names; a user's own SWI_HOME_DIR is left alone."""
    import os
    import shutil
    real = shutil.which("swipl")
    log = tmp_path / "calls"
    (tmp_path / "bin").mkdir()
    wrapper = tmp_path / "bin" / "swipl"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec {real} "$@"\n')
    wrapper.chmod(0o755)
    env = {**os.environ, "PATH": f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}",
           "EDUCABLE_CACHE": str(tmp_path / "cache")}
    for name in ("LIBSWIPL_PATH", "SWI_HOME_DIR"):
        env.pop(name, None)
    show = "from educable.bridge.engine import engine; engine(); import os; print(os.environ['LIBSWIPL_PATH']); " \
           "print(open('/proc/self/maps').read())"

    def run(extra=None):
        r = subprocess.run([sys.executable, "-c", show], capture_output=True, text=True, cwd=ROOT,
                           env={**env, **(extra or {})}, timeout=120)
        assert r.returncode == 0, r.stderr
        return r.stdout

    def asked():
        return log.read_text().count("--dump-runtime-variables") if log.exists() else 0

    first = run()
    assert asked() == 1
    library = first.splitlines()[0]
    assert Path(library).resolve().as_posix() in first.split("\n", 1)[1]      # the library this process mapped
    run(), run()
    assert asked() == 1
    for remembered in (tmp_path / "cache").glob("swipl-*.json"):
        remembered.write_text("not json")
    run()
    assert asked() == 2
    dump = subprocess.run([real, "--dump-runtime-variables"], capture_output=True, text=True).stdout
    home = next(line.split("=", 1)[1].strip('";') for line in dump.splitlines() if line.startswith("PLBASE="))
    r = subprocess.run([sys.executable, "-c", "from educable.bridge.engine import engine; engine(); import os; "
                        "print(os.environ['SWI_HOME_DIR'], os.environ.get('LIBSWIPL_PATH'))"],
                       capture_output=True, text=True, cwd=ROOT, env={**env, "SWI_HOME_DIR": home}, timeout=120)
    assert r.returncode == 0 and r.stdout.split() == [home, "None"], r.stdout + r.stderr


def test_a_process_memory_stays_flat_over_many_prolog_calls():
    """Each call's text buffers are released when it is done (PL_STRINGS_MARK): before, every call
    kept about 1 KB for ever, so 30,000 calls grew a process by about 30 MB.  Measured in a process
    of its own, by its resident memory after 5,000 calls and after 30,000 more (a test of growth,
    not of time; bench/bench_foundation.py runs a million)."""
    code = textwrap.dedent("""
        from educable.bridge.engine import engine
        e = engine()
        def resident():
            return int(open('/proc/self/statm').read().split()[1]) * 4096
        for i in range(5_000):
            e.call("Out = 1")
        e.call("atom_length(abc, Out)")
        before = resident()
        for i in range(30_000):
            e.call("atom_length(abc, Out)" if i % 2 else "Out = [1, text, \\"string\\"]")
        print(resident() - before)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) < 5 * 2**20, f"grew {int(out.stdout):,} bytes over 30,000 calls"


@pytest.mark.parametrize("library, home", [("/usr/lib", "/usr"), ("{libc}", "/usr/lib"), ("{lib}", "/tmp")])
def test_a_remembered_prolog_location_that_does_not_work_is_asked_again(tmp_path, library, home):
    """Where SWI-Prolog lives is remembered between commands; a remembered place that is another
    folder aborted the process (SIGABRT) and another library was an internal error.  Now each is
    dropped, asked of swipl again, and the command works."""
    import json
    import os
    import shutil
    env = {k: v for k, v in os.environ.items() if k not in ("LIBSWIPL_PATH", "SWI_HOME_DIR")}
    env["EDUCABLE_CACHE"] = str(tmp_path)
    exe = str(Path(sys.executable).parent / "educable")
    assert subprocess.run([exe, "games"], capture_output=True, env=env, timeout=120).returncode == 0
    remembered = next(tmp_path.glob("swipl-*.json"))
    right = json.loads(remembered.read_text())
    libc = next(p for p in ("/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6", shutil.which("ls")) if p
                and Path(p).exists())
    remembered.write_text(json.dumps({"LIBSWIPL_PATH": library.format(libc=libc, lib=right["LIBSWIPL_PATH"]),
                                      "SWI_HOME_DIR": home}))
    p = subprocess.run([exe, "games"], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0 and "tictactoe" in p.stdout and "FATAL" not in p.stderr, p.stderr
    assert json.loads(remembered.read_text()) == right
