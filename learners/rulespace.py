"""Rules of Gaia's "Ejemplos de Vida" ("if I see this board, I play there") over a compiled state graph.

A rule's condition has one code a cell of the board as the player to move
sees it (cells/4): 0 empty, 1 mine, 2 theirs, 3 anything.  Its action is an
index into the game's move alphabet (every move text the graph contains).
Conditions are compared with bit masks: a state has one mask each for its
empty, mine and theirs cells; a condition forbids, for each of the three
kinds, the cells where that kind does not fit.

The choice among matching rules is the same as rules/ruleset.pl's (the
tests check the two agree on every state).
"""
from __future__ import annotations

import numpy as np

from learners.graph import ONGOING, StateGraph

ANY = 3
SYMBOLS = ".mt*"            # the text of codes 0..3 in rule files and the knowledge base
CHUNK = 2048                # conditions matched against all states at once


def natural_key(text: str) -> tuple:
    """Order move texts so '2' comes before '10'."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in text.replace("-", " - ").split())


class RuleSpace:
    """What rules can say in one game: its cells, its move alphabet, and which moves are legal where."""

    def __init__(self, graph: StateGraph, cells: np.ndarray, lines: list[list[int]]) -> None:
        if cells.shape[1] > 62:
            raise ValueError(f"{graph.game}: rule sets need at most 62 cells, the game has {cells.shape[1]}")
        self.graph = graph
        self.cells = cells.astype(np.int8)
        self.n_cells = cells.shape[1]
        self.actions = sorted(set(graph.move_text), key=natural_key)
        self.action_index = {a: i for i, a in enumerate(self.actions)}
        n, n_actions = graph.size, len(self.actions)
        self.succ = np.full((n, n_actions), -1, dtype=np.int64)
        self.edge = np.full((n, n_actions), -1, dtype=np.int64)
        for s in range(n):
            for e in graph.edges(s):
                a = self.action_index[graph.move_text[e]]
                self.succ[s, a] = graph.target[e]
                self.edge[s, a] = e
        self.legal = self.succ >= 0
        bits = np.int64(1) << np.arange(self.n_cells, dtype=np.int64)
        self.state_masks = np.stack([((self.cells == k) * bits).sum(axis=1) for k in (0, 1, 2)])  # (3, S)
        self.live = np.flatnonzero(graph.winner == ONGOING)
        self.illegal_live = (~self.legal[self.live]).astype(np.float32)
        self.lines = [list(line) for line in lines]
        self.rule_codes_base = np.int64(4) ** np.arange(self.n_cells, dtype=np.int64)

    # -- conditions ---------------------------------------------------------
    def forbid_masks(self, cond: np.ndarray) -> np.ndarray:
        """For conditions (..., n_cells): masks (..., 3) of cells where empty/mine/theirs do not fit."""
        bits = np.int64(1) << np.arange(self.n_cells, dtype=np.int64)
        out = [(((cond != k) & (cond != ANY)) * bits).sum(axis=-1) for k in (0, 1, 2)]
        return np.stack(out, axis=-1)

    @staticmethod
    def matches(masks: np.ndarray, forbid: np.ndarray) -> np.ndarray:
        """Whether conditions (forbid masks (..., 3)) match states (masks (3, ...)), broadcast."""
        hit = (masks[0] & forbid[..., 0]) | (masks[1] & forbid[..., 1]) | (masks[2] & forbid[..., 2])
        return hit == 0

    def valid_actions(self, cond: np.ndarray) -> np.ndarray:
        """(k, n_actions): the actions legal in every live state each condition matches."""
        out = np.empty((len(cond), len(self.actions)), dtype=bool)
        forbid = self.forbid_masks(cond)
        for i in range(0, len(cond), CHUNK):
            f = forbid[i:i + CHUNK]
            match = self.matches(self.state_masks[:, None, self.live], f[:, None, :]).astype(np.float32)
            out[i:i + CHUNK] = (match @ self.illegal_live) == 0
        return out

    def counterexample(self, cond: np.ndarray, action: int) -> str | None:
        """A state the condition matches where the action is illegal, or None."""
        match = self.matches(self.state_masks[:, self.live], self.forbid_masks(cond))
        bad = self.live[match & ~self.legal[self.live, action]]
        return self.graph.keys[int(bad[0])] if len(bad) else None

    def random_rules(self, rng: np.random.Generator, k: int, priorities: int,
                     nudge: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``k`` new valid rules: conditions uniform over the 4 codes, an action uniform among
        the valid ones (conditions with none are drawn again), a uniform priority.

        With probability ``nudge`` a rule is "Ejemplos de Vida"'s "empujoncito": one line
        holds two of mine (or of theirs) and an empty cell, which is the action.
        """
        cond = np.empty((k, self.n_cells), dtype=np.int8)
        action = np.empty(k, dtype=np.int16)
        filled = 0
        while filled < k:
            m = 2 * (k - filled) + 8
            c = rng.integers(0, 4, size=(m, self.n_cells), dtype=np.int8)
            forced = np.full(m, -1, dtype=np.int64)
            if nudge > 0:
                for i in np.flatnonzero(rng.random(m) < nudge):
                    line = self.lines[rng.integers(len(self.lines))]
                    empty = line[rng.integers(len(line))]
                    mark = 1 + rng.integers(2)
                    for cell in line:
                        c[i, cell - 1] = 0 if cell == empty else mark
                    forced[i] = self.action_index[str(empty)]
            valid = self.valid_actions(c)
            pick = np.where(valid, rng.random(valid.shape), -1.0).argmax(axis=1)
            ok = valid.any(axis=1)
            has_force = forced >= 0
            ok[has_force] = valid[has_force, forced[has_force]]
            pick[has_force] = forced[has_force]
            take = np.flatnonzero(ok)[: k - filled]
            cond[filled:filled + len(take)] = c[take]
            action[filled:filled + len(take)] = pick[take]
            filled += len(take)
        priority = rng.integers(0, priorities, size=k, dtype=np.int8)
        return cond, action, priority

    def rule_ids(self, cond: np.ndarray, action: np.ndarray) -> np.ndarray:
        """One integer per rule: equal exactly when condition and action are equal."""
        return (cond.astype(np.int64) * self.rule_codes_base).sum(axis=-1) * len(self.actions) + action

    # -- choosing -------------------------------------------------------------
    def choose(self, states: np.ndarray, forbid: np.ndarray, action: np.ndarray, priority: np.ndarray,
               weight: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """"Ejemplos de Vida"'s choice in each of ``states`` (live), for one rule set a state (rows of the arrays).

        Returns (move index, the rule used or -1 for a random move, whether a rule was used).
        """
        match = self.matches(self.state_masks[:, states, None], forbid) & self.legal[states[:, None], action]
        has = match.any(axis=1)
        pr = np.where(match, priority, -1)
        c = match & (pr == pr.max(axis=1, keepdims=True))
        w = np.where(c, weight, -np.inf)
        d = c & (w == w.max(axis=1, keepdims=True))
        pick = np.where(d, rng.random(d.shape), -1.0).argmax(axis=1)
        by_rule = action[np.arange(len(states)), pick]
        at_random = np.where(self.legal[states], rng.random((len(states), len(self.actions))), -1.0).argmax(axis=1)
        return np.where(has, by_rule, at_random), np.where(has, pick, -1), has

    def candidates(self, forbid: np.ndarray, action: np.ndarray, priority: np.ndarray,
                   weight: np.ndarray) -> list[list[int]]:
        """For every state, the edges one rule set picks among (one entry per rule of D, so with
        multiplicity; every legal move where no rule matches; none in terminal states)."""
        graph = self.graph
        out: list[list[int]] = [[] for _ in range(graph.size)]
        live = self.live
        match = self.matches(self.state_masks[:, live, None], forbid[None]) & self.legal[live[:, None], action[None, :]]
        pr = np.where(match, priority[None, :], -1)
        c = match & (pr == pr.max(axis=1, keepdims=True))
        w = np.where(c, weight[None, :], -np.inf)
        d = c & (w == w.max(axis=1, keepdims=True))
        for row, s in enumerate(live.tolist()):
            rules = np.flatnonzero(d[row])
            if len(rules):
                out[s] = [int(self.edge[s, action[r]]) for r in rules]
            else:
                out[s] = list(graph.edges(s))
        return out

    # -- text ----------------------------------------------------------------
    def condition_text(self, cond: np.ndarray) -> str:
        """'mt./*.*/...': rows of a square board separated by '/'."""
        chars = "".join(SYMBOLS[int(c)] for c in cond)
        side = int(round(self.n_cells ** 0.5))
        if side * side != self.n_cells:
            return chars
        return "/".join(chars[i:i + side] for i in range(0, self.n_cells, side))

    def parse_condition(self, text: str) -> np.ndarray:
        """The codes of a condition text; ValueError names a bad symbol or length."""
        chars = text.replace("/", "")
        bad = [ch for ch in chars if ch not in SYMBOLS]
        if bad:
            raise ValueError(f"bad symbol {bad[0]!r} in condition {text!r} (use . m t *)")
        if len(chars) != self.n_cells:
            raise ValueError(f"condition {text!r} has {len(chars)} cells; {self.graph.game} has {self.n_cells}")
        return np.array([SYMBOLS.index(ch) for ch in chars], dtype=np.int8)
