"""Which learners there are, and where each lives: read by the command line without importing any
learner (their modules import numpy and numba kernels; each is imported when it is used)."""
from __future__ import annotations

import importlib
from types import ModuleType

# Learner name -> its module, for the learners whose agents play alone (a table or weights).
LEARNERS: dict[str, str] = {"punish": "educable.bridge.punish", "qlearn": "educable.bridge.qlearn", "ntuple": "educable.bridge.ntuple"}
RULE_SETS = ("ga", "rules")     # populations of rule sets (bridge/ga.py): evolved, or imported from a file
ITERATING = ("cfr",)            # learners that walk a game's tree (bridge/cfr.py): iterations, not games
VIEW_LEARNERS = ("qlearn",)     # learners that play games of hidden information from each player's view
# What `train --learner` accepts, each with what it is (its options are declared in its module: OPTIONS).
TRAINABLE: dict[str, str] = {
    "punish": "the six-pawns practical after Gardner's HER, in Prolog",
    "qlearn": "the CA425 practical's Q-learning, a table",
    "ntuple": "TD(lambda) over n-tuples of cells, after GBG: generalises across positions",
    "ga": "Gaia's \"Ejemplos de Vida\": rule sets evolved by a genetic algorithm",
    "cfr": "CFR+ over the tree of a game of hidden information (Kuhn, Leduc, Liar's Dice): an equilibrium",
}

# What a learned agent's value of a move means, for each learner whose agents have values (query, the page).
VALUE_SCALES: dict[str, str] = {
    "punish": "the weight of the position the move leads to: it starts at --beads (1) and each punished loss "
              "takes --step off; the higher the better",
    "qlearn": "Q(x, a), the reward the move is expected to bring: -1 a loss, 0 a draw, +1 a win",
    "ntuple": "the network's value of the position after the move for the side moving: -1 a loss, 0 a draw, "
              "+1 a win (tanh)",
}


# The learners that train on a game of score (one player, bridge/games.is_score_game), and what their values mean there
SCORE_LEARNERS = ("qlearn", "ntuple")
SCORE_SCALE = "the points the move is expected to bring: its own, and those after it"


def learner_module(learner: str) -> ModuleType:
    """The module of a learner named in LEARNERS, RULE_SETS or TRAINABLE, imported on first use."""
    if learner in ITERATING:
        return importlib.import_module(f"educable.bridge.{learner}")
    return importlib.import_module("educable.bridge.ga" if learner in RULE_SETS else LEARNERS[learner])


def plays_games(learner: str) -> bool:
    """Whether ``learner`` trains by games (--games, --vs, --as); the rule-set learner runs cycles."""
    return learner not in RULE_SETS and learner not in ITERATING
