"""The knowledge base's schema as numbered migrations (PRAGMA user_version).

Each entry upgrades the file from version i to i+1.  Never edit a released
migration; append a new one.
"""
from __future__ import annotations

MIGRATIONS: list[str] = [
    # 1: games, their state graphs with exact values, agents, learned values, runs, matches
    """
    CREATE TABLE games (
        name        TEXT PRIMARY KEY,
        players     TEXT NOT NULL,          -- JSON list, first to move first
        positions   INTEGER,                -- reachable states
        terminal    INTEGER,                -- of which the game is over
        classes     INTEGER,                -- distinct states up to symmetry
        winner      TEXT,                   -- under perfect play: a player, or 'draw'
        solved_at   TEXT
    );
    CREATE TABLE positions (
        game        TEXT NOT NULL REFERENCES games(name) ON DELETE CASCADE,
        id          INTEGER NOT NULL,       -- breadth-first index; 0 is the start
        key         TEXT NOT NULL,          -- the game's text form of the state
        canonical   TEXT NOT NULL,          -- the key shared by its symmetric images
        mover       TEXT NOT NULL,
        result      TEXT,                   -- winner or 'draw' when over, else NULL
        value       INTEGER NOT NULL,       -- exact value for the mover: 1, 0, -1
        exact       TEXT NOT NULL,          -- result under perfect play: a player or 'draw'
        PRIMARY KEY (game, key)
    );
    CREATE TABLE moves (
        game        TEXT NOT NULL REFERENCES games(name) ON DELETE CASCADE,
        position    TEXT NOT NULL,
        move        TEXT NOT NULL,
        next        TEXT NOT NULL,
        PRIMARY KEY (game, position, move)
    );
    CREATE TABLE agents (
        name          TEXT PRIMARY KEY,
        game          TEXT NOT NULL,
        learner       TEXT NOT NULL,
        params        TEXT NOT NULL DEFAULT '{}',   -- JSON
        games_trained INTEGER NOT NULL DEFAULT 0,
        created       TEXT NOT NULL,
        updated       TEXT
    );
    CREATE TABLE learned_values (
        agent       TEXT NOT NULL REFERENCES agents(name) ON DELETE CASCADE,
        position    TEXT NOT NULL,          -- a state key (canonical when the agent folds symmetry)
        move        TEXT NOT NULL DEFAULT '',  -- the move of a Q-value; for a value of the position itself
                                               -- (the punishment learner) the player it is for, or ''
        value       REAL NOT NULL,
        visits      INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (agent, position, move)
    );
    CREATE TABLE runs (
        id          INTEGER PRIMARY KEY,
        agent       TEXT NOT NULL,
        learner     TEXT NOT NULL,
        games       INTEGER NOT NULL,
        seconds     REAL NOT NULL,
        params      TEXT NOT NULL,          -- JSON
        results     TEXT NOT NULL,          -- JSON: totals and checkpoints
        started     TEXT NOT NULL
    );
    CREATE TABLE matches (
        id          INTEGER PRIMARY KEY,
        game        TEXT NOT NULL,
        first       TEXT NOT NULL,          -- who played the first player's side
        second      TEXT NOT NULL,
        moves       TEXT NOT NULL,          -- JSON list of move texts
        result      TEXT,                   -- winner's side or 'draw'; NULL if abandoned
        source      TEXT NOT NULL,          -- play, eval, ...
        played_at   TEXT NOT NULL
    );
    """,
    # 2: rule-set agents (Gaia's "Ejemplos de Vida"): a population's members in rank order and their rules
    """
    CREATE TABLE members (
        agent       TEXT NOT NULL REFERENCES agents(name) ON DELETE CASCADE,
        rank        INTEGER NOT NULL,       -- 1 is the best; addressed as NAME#rank
        weight      REAL NOT NULL,          -- points in the last cycle
        born        INTEGER NOT NULL,       -- the cycle that made it (0: the first population)
        PRIMARY KEY (agent, rank)
    );
    CREATE TABLE rules (
        agent       TEXT NOT NULL,
        member      INTEGER NOT NULL,       -- members.rank
        idx         INTEGER NOT NULL,       -- place in the rule set (children inherit by place)
        pattern     TEXT NOT NULL,          -- the condition: . empty, m mine, t theirs, * any; rows split by /
        action      TEXT NOT NULL,          -- a move text of the game
        priority    INTEGER NOT NULL,
        weight      REAL NOT NULL,
        PRIMARY KEY (agent, member, idx),
        FOREIGN KEY (agent, member) REFERENCES members(agent, rank) ON DELETE CASCADE
    );
    """,
    # 3: the rat race (the PPCG rat-race challenge): runs of a player over boards, each board's score and best genomes
    """
    CREATE TABLE race_runs (
        id          INTEGER PRIMARY KEY,
        player      TEXT NOT NULL,
        seed        INTEGER NOT NULL,       -- board i's seed is seed * 1000000 + i
        boards      INTEGER NOT NULL,       -- boards asked for
        turns       INTEGER NOT NULL,
        params      TEXT NOT NULL,          -- JSON: the spec's numbers, workers
        geomean     REAL,                   -- over the boards completed
        seconds     REAL,
        moves       INTEGER,                -- specimen-moves made
        status      TEXT NOT NULL,          -- running, complete, or the error that stopped it
        started     TEXT NOT NULL
    );
    CREATE TABLE race_boards (
        run         INTEGER NOT NULL REFERENCES race_runs(id) ON DELETE CASCADE,
        board       INTEGER NOT NULL,
        seed        INTEGER NOT NULL,
        score       INTEGER NOT NULL,       -- 1 + goals
        turns       INTEGER NOT NULL,
        peak        INTEGER NOT NULL,       -- most specimens alive at once
        moves       INTEGER NOT NULL,
        genomes     TEXT NOT NULL,          -- JSON: the fittest genomes at the end, hex
        PRIMARY KEY (run, board)
    );
    """,
    # 4: state graphs stored once and loaded by every later process (issue: games of any size).
    # Positions keep one row per node, readable in sqlite3; the edges, which
    # outnumber them tenfold, are packed arrays in graphs.  The old
    # positions/moves tables held text keys per move and are rebuilt on demand.
    """
    DROP TABLE moves;
    DROP TABLE positions;
    ALTER TABLE games ADD COLUMN rules_hash TEXT;  -- of the rule files the solved graph came from
    CREATE TABLE graphs (
        game        TEXT NOT NULL,
        folded      INTEGER NOT NULL,       -- 1: one node per class of symmetric positions
        rules_hash  TEXT NOT NULL,          -- a changed game file makes the graph stale
        nodes       INTEGER NOT NULL,
        edges       INTEGER NOT NULL,
        positions   INTEGER NOT NULL,       -- states the nodes stand for
        terminal    INTEGER NOT NULL,
        moves       TEXT NOT NULL,          -- JSON list of move texts; edges name them by index
        start       BLOB NOT NULL,          -- int64 LE: node i's edges are start[i] .. start[i+1]-1
        target      BLOB NOT NULL,          -- int32 LE: the node each edge leads to
        move        BLOB NOT NULL,          -- int32 LE: each edge's index into moves
        seconds     REAL NOT NULL,          -- time to compile and solve
        built_at    TEXT NOT NULL,
        PRIMARY KEY (game, folded)
    );
    CREATE TABLE positions (
        game        TEXT NOT NULL,
        folded      INTEGER NOT NULL,
        id          INTEGER NOT NULL,       -- breadth-first node number; 0 is the start
        key         TEXT NOT NULL,          -- the game's text form (a folded node: its class's least image)
        mover       TEXT NOT NULL,
        result      TEXT,                   -- winner or 'draw' when over, else NULL
        value       INTEGER NOT NULL,       -- exact value for the mover: 1, 0, -1
        exact       TEXT NOT NULL,          -- result under perfect play: a player or 'draw'
        orbit       INTEGER NOT NULL,       -- positions in the class (1 unless folded)
        PRIMARY KEY (game, folded, id),
        FOREIGN KEY (game, folded) REFERENCES graphs(game, folded) ON DELETE CASCADE
    );
    CREATE UNIQUE INDEX positions_by_key ON positions (game, folded, key);
    """,
    # 5: a graph that only serves exact judgement and training (every position of a game whose
    # solved graph is folded) keeps its nodes as packed arrays too, not as rows: storing
    # connect-three's 41,750 rows was a sixth of its solve.
    """
    ALTER TABLE graphs ADD COLUMN keys BLOB;        -- UTF-8 keys joined by newlines, or NULL: rows in positions
    ALTER TABLE graphs ADD COLUMN node_data BLOB;   -- or NULL; int8 LE, 3 a node: mover, winner (-1 going on, 2 draw), value
    """,
    # 6: a Q-learning agent that learns bounds keeps, beside each entry's lower bound
    # (value), its upper bound and its learned score against random play (the tie-break)
    """
    ALTER TABLE learned_values ADD COLUMN upper REAL;      -- NULL unless the agent learns bounds
    ALTER TABLE learned_values ADD COLUMN vs_random REAL;  -- NULL unless the agent learns bounds
    """,
    # 7: sweeps: one command run over a grid of options and seeds on Dask, every run's result kept
    """
    CREATE TABLE sweeps (
        id          INTEGER PRIMARY KEY,
        command     TEXT NOT NULL,          -- train or race
        args        TEXT NOT NULL,          -- JSON: the command's fixed arguments
        grid        TEXT NOT NULL,          -- JSON: option -> values (race: player list)
        seeds       INTEGER NOT NULL,       -- seeds 0..seeds-1 (race: boards)
        measure     TEXT NOT NULL,
        status      TEXT NOT NULL,          -- running, complete, or what stopped it
        started     TEXT NOT NULL
    );
    CREATE TABLE sweep_runs (
        sweep       INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
        setting     TEXT NOT NULL,          -- JSON: the grid's options for this run (race: the player)
        seed        INTEGER NOT NULL,
        value       REAL,                   -- the measure (NULL if the run does not give it)
        result      TEXT NOT NULL,          -- JSON: the run's whole --json output
        PRIMARY KEY (sweep, setting, seed)
    );
    """,
    # 8: n-tuple agents (the TD(λ) n-tuple learner after GBG): their tuples, and one row per
    # learned weight, so that a weight can be read as the pattern of cells it stands for
    """
    CREATE TABLE ntuple_tuples (
        agent       TEXT NOT NULL REFERENCES agents(name) ON DELETE CASCADE,
        tuple       INTEGER NOT NULL,       -- 0, 1, ...
        cells       TEXT NOT NULL,          -- the cells (1-based, as cells/4 lists them), space-separated
        PRIMARY KEY (agent, tuple)
    );
    CREATE TABLE ntuple_weights (
        agent       TEXT NOT NULL REFERENCES agents(name) ON DELETE CASCADE,
        tuple       INTEGER NOT NULL,
        pattern     TEXT NOT NULL,          -- the tuple's cell values in its cell order ('0' empty, '1' the
                                            -- player's own, '2' the opponent's, as cells/4), e.g. '0120'
        weight      REAL NOT NULL,          -- weights not listed are 0
        PRIMARY KEY (agent, tuple, pattern)
    );
    """,
    # 9: an n-tuple agent that learns with temporal coherence (--tcl) keeps each weight's sums, so
    # a run stopped and continued goes on with the step sizes it had reached
    """
    ALTER TABLE ntuple_weights ADD COLUMN tc_changes REAL;  -- NULL without --tcl; the sum of the changes asked for
    ALTER TABLE ntuple_weights ADD COLUMN tc_sizes REAL;    -- NULL without --tcl; the sum of their sizes
    """,
    # 10: a training run's learning curve as it commits, so that SQL and the page (educable serve)
    # can follow a run while it goes on, and a stopped run keeps its curve
    """
    CREATE TABLE curve_points (
        agent       TEXT NOT NULL REFERENCES agents(name) ON DELETE CASCADE,
        started     TEXT NOT NULL,          -- when the run began (runs.started once it has finished)
        games       INTEGER NOT NULL,       -- games of this run committed so far
        lost        INTEGER NOT NULL,       -- of them, games the agent lost (in self-play: every decisive game)
        draws       INTEGER NOT NULL,
        at          TEXT NOT NULL,          -- when the point was committed
        PRIMARY KEY (agent, started, games)
    );
    """,
    # 11: what a run has reached at each commit, beside its losses: on a game solvable within the
    # limit the exact judgement, on Connect Four the move accuracy on the fixed positions
    """
    ALTER TABLE curve_points ADD COLUMN strength TEXT;   -- JSON, or NULL where nothing was measured
    """,
    # 12: round robins between agents and built-in players (educable tournament)
    """
    CREATE TABLE tournaments (
        id          INTEGER PRIMARY KEY,
        game        TEXT NOT NULL,
        players     TEXT NOT NULL,          -- JSON list, in the order given
        games       INTEGER NOT NULL,       -- games a pairing, half with each side first
        seed        INTEGER NOT NULL,
        results     TEXT NOT NULL,          -- JSON: pairings, ratings with intervals, cross table (as --json prints)
        started     TEXT NOT NULL
    );
    """,
    # 13: the graphs of games of chance and of score, stored with their solution as the others are
    """
    ALTER TABLE graphs ADD COLUMN chance_data BLOB;   -- NULL, or a game of chance or of score (.npz): each edge's
                                                      -- probability and points, each node's end score, class size
                                                      -- and value by expectimax (for the first player, or the score)
    ALTER TABLE graphs ADD COLUMN solution TEXT;      -- NULL, or JSON: how the values were found (parts, sweeps, tolerance)
    """,
    # 14: games of hidden information: an equilibrium of each, its every information set's strategy
    """
    CREATE TABLE equilibria (
        game              TEXT PRIMARY KEY,
        rules_hash        TEXT NOT NULL,        -- of the rule files it was found from
        players           TEXT NOT NULL,        -- JSON list, the first moves first
        positions         INTEGER NOT NULL,     -- of the game's tree
        information_sets  INTEGER NOT NULL,     -- both players' together
        value             REAL NOT NULL,        -- the first player's expected payoff in the equilibrium
        exploitability    REAL NOT NULL,        -- of the strategies stored (OpenSpiel's: NashConv / 2)
        method            TEXT NOT NULL,        -- 'sequence-form LP' or 'CFR+ (N iterations)'
        seconds           REAL NOT NULL,
        solved_at         TEXT NOT NULL
    );
    CREATE TABLE equilibrium_moves (
        game              TEXT NOT NULL REFERENCES equilibria(game) ON DELETE CASCADE,
        player            TEXT NOT NULL,
        information_set   TEXT NOT NULL,        -- the player's view (sees/4)
        move              TEXT NOT NULL,
        probability       REAL NOT NULL,
        value             REAL,                 -- for the player, given the set is reached; NULL where it never is
        PRIMARY KEY (game, player, information_set, move)
    );
    CREATE TABLE cfr_tables (                   -- a `cfr` agent's CFR+ state, so that a later run continues it
        agent             TEXT PRIMARY KEY REFERENCES agents(name) ON DELETE CASCADE,
        rules_hash        TEXT NOT NULL,
        iterations        INTEGER NOT NULL,
        data              BLOB NOT NULL         -- .npz: each slot's regret and strategy sum
    );
    """,
]

VERSION = len(MIGRATIONS)
