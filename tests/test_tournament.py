"""`educable tournament`: a round robin with Bradley–Terry ratings, checked against the two-player
closed form and against what the games themselves say."""
import json
import math
import sqlite3

import numpy as np
import pytest

from conftest import cli, cli_json, kb_dump
from educable.bridge.tournament import ratings


@pytest.mark.parametrize("share", [0.5, 0.6, 0.75, 0.9])
def test_two_players_are_rated_apart_by_the_elo_closed_form(share):
    """With two players, Bradley–Terry's maximum-likelihood difference is 400·log10(s / (1 - s))."""
    n = 200
    score = np.array([[0, share * n], [(1 - share) * n, 0]])
    played = np.array([[0, n], [n, 0]], dtype=float)
    a, b = ratings(["a", "b"], score, played)
    assert a["rating"] - b["rating"] == pytest.approx(400 * math.log10(share / (1 - share)), abs=0.2)
    assert a["rating"] + b["rating"] == pytest.approx(0, abs=0.1)
    assert a["interval95"][0] < a["rating"] < a["interval95"][1]


def test_a_player_who_won_everything_has_no_finite_rating():
    score = np.array([[0, 10, 10], [0, 0, 6], [0, 4, 0]], dtype=float)
    played = np.array([[0, 10, 10], [10, 0, 10], [10, 10, 0]], dtype=float)
    top, *rest = ratings(["top", "b", "c"], score, played)
    assert top["rating"] is None and top["why"] == "won every game"
    assert rest[0]["rating"] - rest[1]["rating"] == pytest.approx(400 * math.log10(6 / 4), abs=0.2)


def test_a_tic_tac_toe_round_robin(db_path):
    assert cli("train", "tictactoe", "--learner", "ntuple", "--agent", "td", "--games", "2000", "--seed", "1").exit_code == 0
    data = cli_json("tournament", "tictactoe", "random", "minimax", "td", "--games", "40")
    players = ["random", "minimax", "td"]
    for a in players:
        for b in players:
            if a != b:
                assert data["cross"][a][b] + data["cross"][b][a] == pytest.approx(1.0)
    by = {r["player"]: r for r in data["ratings"]}
    assert data["ratings"][-1]["player"] == "random"
    for strong in ("minimax", "td"):          # perfect players: exactly, and they never lose to random
        assert by[strong]["exact"]["as_first"]["perfect"] and by[strong]["exact"]["as_second"]["perfect"]
        assert data["cross"][strong]["random"] > 0.5 and data["cross"]["random"][strong] < 0.5
    pair = [p for p in data["pairings"] if set(p["players"]) == {"minimax", "td"}][0]
    assert pair["wins"] == pair["losses"] == 0 and pair["draws"] == 40      # two perfect players only draw
    with sqlite3.connect(db_path) as conn:
        stored = json.loads(conn.execute("SELECT results FROM tournaments WHERE id = ?", (data["tournament"],)).fetchone()[0])
        matches = conn.execute("SELECT count(*) FROM matches").fetchone()[0]
    assert stored["ratings"] == data["ratings"] and stored["cross"] == data["cross"]
    assert matches >= 6                          # every pairing's two series are stored as matches


def test_a_tournament_with_a_mistake_stores_nothing(db_path):
    cli("solve", "hexapawn")
    before = kb_dump(db_path)
    r = cli("tournament", "tictactoe", "random", "nobody", "--games", "4")
    assert r.exit_code == 2 and "unknown agent 'nobody'" in r.output
    r = cli("tournament", "tictactoe", "random", "random")
    assert r.exit_code == 2 and "named twice" in r.output
    assert kb_dump(db_path) == before
