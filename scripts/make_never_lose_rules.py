"""Write examples/never_lose_as_x.pl: a tic-tac-toe rule file that never loses as X.

How it was made (rerun to check): 24 rules win (two of mine and an empty
cell in a line: play there, priority 3), 24 block (two of theirs, priority
2), the centre on an empty board (priority 1); then, while eval --exact
finds a position X can reach where its rules allow a losing move, one rule
for exactly that board with a move that keeps the draw (priority 1).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from educable.bridge import ga as ga_bridge
from educable.learners import exact

OUT = Path(__file__).resolve().parent.parent / "examples" / "never_lose_as_x.pl"


def main() -> int:
    space = ga_bridge.rule_space("tictactoe")
    graph = space.graph

    def cond(cells: dict[int, int]) -> np.ndarray:
        c = np.full(space.n_codes, space.any, dtype=np.int8)        # anything, on either side's turn
        for k, v in cells.items():
            c[k - 1] = v
        return c

    sections: list[tuple[str, list[tuple[np.ndarray, str, int]]]] = [
        ("Win: two of mine and an empty cell in a line; play the empty cell.",
         [(cond({x: 0 if x == e else 1 for x in line}), str(e), 3) for line in space.lines for e in line]),
        ("Block: two of theirs and an empty cell in a line; play the empty cell.",
         [(cond({x: 0 if x == e else 2 for x in line}), str(e), 2) for line in space.lines for e in line]),
        ("Open in the centre.", [(cond({x: 0 for x in range(1, space.n_cells + 1)}), "5", 1)]),
    ]
    fixes: list[tuple[np.ndarray, str, int]] = []
    sections.append(("Boards where the rules above would allow a losing move: a move that keeps the draw.", fixes))

    def support() -> exact.Support:
        rules = [r for _, rs in sections for r in rs]
        c = np.array([r[0] for r in rules])
        a = np.array([space.action_index[r[1]] for r in rules], dtype=np.int16)
        p = np.array([r[2] for r in rules], dtype=np.int8)
        return space.candidates(space.forbid_masks(c), a, p, np.zeros(len(rules)))

    while exact.guarantee(graph, 0, support()).guaranteed != "draw":
        sup = support()
        reach = np.zeros(graph.size, dtype=bool)
        reach[0] = True
        for s in range(graph.size):
            if not reach[s] or graph.is_terminal(s):
                continue
            mine = graph.mover[s] == 0
            edges = sup[s] if mine else list(graph.edges(s))
            v = int(graph.value[s])
            if mine and any(-int(graph.value[graph.target[e]]) < v for e in edges):
                keep = [graph.move_text[e] for e in graph.edges(s) if -int(graph.value[graph.target[e]]) == v]
                fixes.append((space.cells[s].copy(), keep[0], 1))
                break
            reach[graph.target[list(edges)]] = True
    total = sum(len(rs) for _, rs in sections)
    out = [ga_bridge.HEADER.format(game="tictactoe", origin=", written as a model of the notation",
                                   layout="rows of 3 from the top, '/' between rows", example="'5'"),
           "% X (the first player) never loses with these rules: educable eval tictactoe NAME --exact",
           f"% {total} rules; made by scripts/make_never_lose_rules.py (see there how).",
           "", "rule_set(tictactoe).", ""]
    for title, rules in sections:
        out.append(f"% {title}")
        out += [f"rule('{space.condition_text(c)}', '{a}', {p}, 0)." for c, a, p in rules]
        out.append("")
    OUT.write_text("\n".join(out))
    print(f"wrote {total} rules to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
