"""Rules of Gaia's "Ejemplos de Vida" ("if I see this board, I play there") over a compiled state graph.

A rule's condition has one code a cell of the board as the player to move
sees it (cells/4): 0 empty, 1 mine, 2 theirs (or, in a game whose cells hold
more values, such as Nim's heap sizes, the value itself), and ``any``; then
one more code for whose turn it is (0 the first player, 1 the second, or
``any``).  Its action is an index into the game's move alphabet (every move
text the graph contains).  Conditions are compared with bit masks: a state
has one mask per cell value; a condition forbids, for each value, the cells
where that value does not fit.

Condition texts show the board in rows as `educable show` draws it when the
game gives its layout (layout/3), else as a square from cell 1; values are
``. m t`` (or digits), ``*`` is anything, and a leading ``PLAYER:`` names
whose turn it must be.  The knowledge base keeps them in cell order (rows
from cell 1), which is what rule texts always meant before layouts.

The choice among matching rules is the same as rules/ruleset.pl's (the
tests check the two agree on every state).
"""
from __future__ import annotations

import numpy as np

from educable.learners.graph import ONGOING, StateGraph

STANDARD = ".mt"            # the text of values 0..2 (empty, mine, theirs)
DIGITS = "0123456789"       # the text of values 0..9 in games with more than three
WILD = "*"                  # any value
CHUNK = 2048                # conditions matched against all states at once
MAX_CELLS = 61              # a condition's cells and its turn fit the 63 bits of a mask


def natural_key(text: str) -> tuple:
    """Order move texts so '2' comes before '10'."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in text.replace("-", " - ").split())


class RuleSpace:
    """What rules can say in one game: its cells, its move alphabet, and which moves are legal where."""

    def __init__(self, graph: StateGraph, cells: np.ndarray, lines: list[list[int]],
                 layout: tuple[int, str] | None = None) -> None:
        if cells.shape[1] > MAX_CELLS:
            raise ValueError(f"{graph.game}: rule sets need at most {MAX_CELLS} cells, the game has {cells.shape[1]}")
        n_values = max(3, int(cells.max()) + 1) if cells.size else 3
        if n_values > len(DIGITS):
            raise ValueError(f"{graph.game}: rule sets read cells of at most {len(DIGITS)} values (0-9); "
                             f"cells/4 gives values up to {n_values - 1}")
        self.graph = graph
        self.n_cells = cells.shape[1]
        self.n_values = n_values
        self.any = n_values                                  # the code of "anything"
        self.symbols = STANDARD if n_values == 3 else DIGITS[:n_values]
        self.layout = layout                                 # (columns, 'top' or 'bottom': where cell 1's row is drawn)
        # each state's codes: its cells, then the mover (0 first, 1 second)
        self.cells = np.hstack([cells.astype(np.int8), graph.mover.astype(np.int8)[:, None]])
        self.n_codes = self.n_cells + 1
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
        bits = np.int64(1) << np.arange(self.n_codes, dtype=np.int64)
        # masks in the narrowest integers that hold a bit per code: matching conditions against every
        # state moves a sixth of the bytes in int16 (tic-tac-toe), and is that much quicker
        self.mask_dtype = np.int16 if self.n_codes <= 15 else np.int32 if self.n_codes <= 31 else np.int64
        self.state_masks = np.stack([((self.cells == k) * bits).sum(axis=1)
                                     for k in range(n_values)]).astype(self.mask_dtype)  # (K, S)
        self.live = np.flatnonzero(graph.winner == ONGOING)
        self.illegal_live = (~self.legal[self.live]).astype(np.float32)
        self.lines = [list(line) for line in lines]
        self.rule_codes_base = np.int64(n_values + 1) ** np.arange(self.n_codes, dtype=np.int64)

    # -- conditions ---------------------------------------------------------
    def forbid_masks(self, cond: np.ndarray) -> np.ndarray:
        """For conditions (..., n_codes): masks (..., K) of the codes where each value does not fit."""
        bits = np.int64(1) << np.arange(self.n_codes, dtype=np.int64)
        out = [(((cond != k) & (cond != self.any)) * bits).sum(axis=-1) for k in range(self.n_values)]
        return np.stack(out, axis=-1).astype(self.mask_dtype)

    @staticmethod
    def matches(masks: np.ndarray, forbid: np.ndarray) -> np.ndarray:
        """Whether conditions (forbid masks (..., K)) match states (masks (K, ...)), broadcast."""
        hit = masks[0] & forbid[..., 0]
        for k in range(1, masks.shape[0]):
            hit = hit | (masks[k] & forbid[..., k])
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
                     nudge: float = 0.0, turn: float = 0.0,
                     wild: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``k`` new valid rules: conditions uniform over the cell codes (each value and anything),
        an action uniform among the valid ones (conditions with none are drawn again), a uniform
        priority.  With ``wild``, a cell is "anything" with that probability, else a uniform value.
        With probability ``turn`` a rule names whose turn it is (else any turn).

        With probability ``nudge`` a rule is "Ejemplos de Vida"'s "empujoncito": one line
        holds two of mine (or of theirs) and an empty cell, which is the action.
        """
        cond = np.empty((k, self.n_codes), dtype=np.int8)
        action = np.empty(k, dtype=np.int16)
        filled = 0
        while filled < k:
            m = 2 * (k - filled) + 8
            c = np.full((m, self.n_codes), self.any, dtype=np.int8)
            if wild is None:
                c[:, :self.n_cells] = rng.integers(0, self.n_values + 1, size=(m, self.n_cells), dtype=np.int8)
            else:
                values = rng.integers(0, self.n_values, size=(m, self.n_cells), dtype=np.int8)
                c[:, :self.n_cells] = np.where(rng.random((m, self.n_cells)) < wild, self.any, values)
            if turn > 0:
                named = rng.random(m) < turn
                c[named, self.n_cells] = rng.integers(0, 2, size=int(named.sum()), dtype=np.int8)
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
            ok = np.asarray(valid.any(axis=1))
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
        rows, rules = np.nonzero(d)                    # row by row, each row's rules in order
        edges = self.edge[live[rows], action[rules]].tolist()
        bounds = np.searchsorted(rows, np.arange(len(live) + 1)).tolist()
        for row, s in enumerate(live.tolist()):
            start, end = bounds[row], bounds[row + 1]
            out[s] = edges[start:end] if end > start else list(graph.edges(s))
        return out

    # -- text ----------------------------------------------------------------
    def rows(self) -> tuple[int, bool]:
        """Cells a row and whether rows are drawn from the last (cell 1's row at the bottom)."""
        if self.layout is not None:
            return self.layout[0], self.layout[1] == "bottom"
        side = int(round(self.n_cells ** 0.5))
        return (side, False) if side * side == self.n_cells else (self.n_cells, False)

    def condition_text(self, cond: np.ndarray, drawn: bool = False) -> str:
        """'mt./*.*/...': the cells in rows separated by '/' (as `show` draws them when ``drawn``,
        else from cell 1), after 'PLAYER:' when the rule names whose turn it is."""
        chars = "".join(WILD if int(c) == self.any else self.symbols[int(c)] for c in cond[:self.n_cells])
        width, upward = self.rows()
        rows = [chars[i:i + width] for i in range(0, self.n_cells, width)]
        if drawn and upward:
            rows.reverse()
        turn = int(cond[self.n_cells])
        return ("" if turn == self.any else f"{self.graph.players[turn]}:") + "/".join(rows)

    def parse_condition(self, text: str, drawn: bool = False) -> np.ndarray:
        """The codes of a condition text (rows as drawn when ``drawn``); ValueError names a bad
        symbol, player or length."""
        turn = self.any
        if ":" in text:
            who, _, text = text.partition(":")
            if who not in self.graph.players:
                raise ValueError(f"condition turn {who!r} is not a player of {self.graph.game} "
                                 f"({', '.join(self.graph.players)})")
            turn = self.graph.players.index(who)
        rows = text.split("/")
        width, upward = self.rows()
        if drawn and upward:
            rows.reverse()
        chars = "".join(rows)
        bad = [ch for ch in chars if ch not in self.symbols + WILD]
        if bad:
            raise ValueError(f"bad symbol {bad[0]!r} in condition {text!r} (use {' '.join(self.symbols)} {WILD})")
        if len(chars) != self.n_cells:
            raise ValueError(f"condition {text!r} has {len(chars)} cells; {self.graph.game} has {self.n_cells}")
        codes = [self.any if ch == WILD else self.symbols.index(ch) for ch in chars]
        return np.array(codes + [turn], dtype=np.int8)
