/*  Compile a game into its state graph, streamed: the states reachable from
    a start state leave Prolog in batches, breadth first, so no list of the
    whole graph is ever built.  The dedup table is a trie of states (the
    cheapest exact set SWI-Prolog has); the frontier is a set of facts
    indexed by node number.  With folding, a node is a class of symmetric
    states, represented by its least image (standard order of terms), and
    carries the size of its class (its orbit).  Moves are numbered here as
    they are met (a move's text is written once, not once an edge), so a
    batch hands Python numbers, and the texts of the moves new in it.

    Python (bridge/compile.py) drives it: graph_open/3, then graph_batch/4
    until every node found is expanded, then graph_close/0.  By hand:

        ?- graph_open(tictactoe, '', true), graph_batch(0, 10, Nodes, Found).
*/
:- module(graph,
          [ graph_open/3,        % +Game, +StartKey, +Fold
            graph_batch/4,       % +From, +To, -Nodes, -Found
            graph_close/0,
            keys_expand/3,       % +Game, +Keys, -Nodes
            keys_cells/3,        % +Game, +Keys, -Cells
            keys_canonical/3,    % +Game, +Keys, -Canonical
            keys_policy/4        % +Game, +Chooser, +Keys, -Table
          ]).
:- use_module(game).
:- use_module(guard).

:- dynamic compiling/4.        % compiling(Game, Fold, States-Frontier, Moves): the tries of states found
                               % (to their numbers), of found states not yet expanded (number to
                               % p(Pos, Mover, Orbit)) and of moves
:- dynamic new_move/2.         % new_move(Id, Text): a move numbered since the last batch

%!  graph_open(+Game, +StartKey:atom, +Fold) is det.
%   Start compiling Game from the state StartKey ('' for the initial
%   state); node 0 is that state.  Fold = true makes one node per class of
%   symmetric states; false, one node per state.  Any earlier compilation
%   is dropped.
graph_open(Game, Start, Fold) :-
    graph_close,
    (   Start == ''
    ->  initial(Game, P0, M0)
    ;   parse_position(Game, Start, P0, M0)
    ),
    trie_new(Trie),
    trie_new(Frontier),
    trie_new(Moves),
    assertz(compiling(Game, Fold, Trie-Frontier, Moves)),
    representative(Fold, Game, P0, R0, Images0),
    orbit(Fold, Images0, Orbit0),
    trie_insert(Trie, M0-R0, 0),
    trie_insert(Frontier, 0, p(R0, M0, Orbit0)),
    nb_setval(graph_found, 1),
    nb_setval(graph_moves, 0).

%!  graph_close is det.
%   Drop the compilation's tries and frontier.
graph_close :-
    forall(retract(compiling(_, _, Trie-Frontier, Moves)),
           (trie_destroy(Trie), trie_destroy(Frontier), trie_destroy(Moves))),
    retractall(new_move(_, _)),
    nb_setval(graph_found, 0),
    nb_setval(graph_moves, 0).

%!  graph_batch(+From, +To, -Nodes, -Found:integer) is det.
%   Expand the nodes numbered From..To-1 (all found earlier).  Nodes is
%   json([keys-Keys, movers-Movers, results-Results, orbits-Orbits,
%   counts-Counts, moves-MoveIds, targets-Targets, new_moves-Texts]), flat
%   lists in node order: each node's key, mover (0 the first player, 1 the
%   second), result (-1 while the game goes on, else the winner's number or
%   2 for a draw), class size and number of moves, then every node's moves
%   (numbers from 0, one a move text) and the nodes they lead to, in order;
%   then the texts of the moves first numbered in this batch, in number
%   order; then, for every move of a chance node (mover 3) in order, its
%   weight (a whole number, or 'N/D').  In a game of score (one player,
%   whose ends have the result code 4), every move's points and every end's
%   score, as 'N/D'; in a game of hidden information (sees/4) every end's
%   payoff(N) as 'N/D' (code 4, as a score), and every node's view: the
%   mover's, or '' where chance moves or the game is over.  Found is the
%   number of nodes found so far.  Numbers,
%   not names, so that the batch reaches Python as plain lists of numbers.
graph_batch(From, To, json([keys-Keys, movers-Movers, results-Results, orbits-Orbits,
                            counts-Counts, moves-MoveIds, targets-Targets, new_moves-NewMoves,
                            weights-Weights, points-Points, scores-Scores, views-Views]), Found) :-
    compiling(Game, Fold, Trie, MoveTrie),
    players(Game, Players),
    ( Players = [_] -> Scored = true ; Scored = false ),
    ( declares(Game, sees) -> Hidden = true ; Hidden = false ),
    Last is To - 1,
    findall(n(K, MC, RC, O, C, Ms, Ts)-x(Ws, Ps, Ss, Vs),
            ( between(From, Last, Id),
              pending(Trie, Id, P, M, O),
              guarded_step(Game, expand(Game, Scored, Fold, Trie, MoveTrie, P, M, K, R, C, Ms, Ts, Ws, Ps)),
              mover_code(Players, M, MC),
              result_code(Players, R, RC),
              end_score(Scored, Game, P, M, R, Ss),
              node_view(Hidden, Game, P, M, R, Vs) ),
            NodesExtras),
    pairs_keys_values(NodesExtras, Nodes, Extras),
    unzip(Nodes, Keys, Movers, Results, Orbits, Counts, MsList, TsList),
    append(MsList, MoveIds),
    append(TsList, Targets),
    extras(Extras, Weights, Points, Scores, Views),
    findall(T, retract(new_move(_, T)), NewMoves),
    nb_getval(graph_found, Found).

%   Take node Id off the frontier: its state and class size.  (A trie, not
%   facts: asserting and retracting two million of them cost a tenth of
%   compiling Pig, a third of it in reclaiming the retracted clauses.)
pending(_-Frontier, Id, Pos, Mover, Orbit) :-
    trie_lookup(Frontier, Id, p(Pos, Mover, Orbit)),
    trie_delete(Frontier, Id, _).

%   A game of score: the points its end adds ([N/D] for an end, [] for
%   a position that goes on); [] in a game of two players.
end_score(true, Game, P, M, score(N), [Text]) :- !,
    exact_text(Game, P, M, over/4, N, Text).
end_score(true, Game, P, M, R, _) :-
    R \== null, !,
    position_text(Game, P, M, PT),
    format(string(Msg), "over/4 gives ~q at ~w: a game of one player ends with score(N)", [R, PT]),
    bad_input(Msg).
end_score(false, Game, P, M, payoff(N), [Text]) :- !,
    exact_text(Game, P, M, over/4, N, Text).
end_score(_, _, _, _, _, []).

%   A game of hidden information: the view of the player to move ([View]),
%   or [''] where chance moves or the game is over; [] in any other game.
node_view(false, _, _, _, _, []) :- !.
node_view(true, Game, P, M, R, [View]) :-
    (   ( R \== null ; chance_mover(M) )
    ->  View = ''
    ;   catch(sees(Game, P, M, V0), _, fail), atomic(V0)
    ->  atom_string(View, V0)
    ;   position_text(Game, P, M, PT),
        format(string(Msg), "sees/4 gives no view (a text) for ~w at ~w: a game of hidden information says what each player sees everywhere it moves", [M, PT]),
        bad_input(Msg)
    ).

%   The nodes' weights, points, scores and views, each as one list (most are []).
extras([], [], [], [], []).
extras([x(Ws, Ps, Ss, Vs)|Xs], W, P, S, V) :-
    append(Ws, W1, W), append(Ps, P1, P), append(Ss, S1, S), append(Vs, V1, V),
    extras(Xs, W1, P1, S1, V1).

unzip([], [], [], [], [], [], [], []).
unzip([n(K, M, R, O, C, Ms, Ts)|Ns], [K|Ks], [M|Mv], [R|Rs], [O|Os], [C|Cs], [Ms|Mss], [Ts|Tss]) :-
    unzip(Ns, Ks, Mv, Rs, Os, Cs, Mss, Tss).

expand(Game, Scored, Fold, Trie, MoveTrie, P, M, Key, Result, Count, MoveIds, Targets, Weights, Points) :-
    step_route(Game, Via),
    via_position_text(Via, Game, P, M, Key),
    (   via_over(Via, Game, P, M, R)
    ->  Result = R, MoveIds = [], Targets = [], Weights = [], Points = []
    ;   Result = null,
        (   chance_mover(M)                     % each outcome's weight (and no points)
        ->  findall(Mv, via_legal(Via, Game, P, M, Mv), Outcomes),
            outcomes_once(Game, P, M, Outcomes),
            findall(MI-I-Wt,
                    ( member(Mv, Outcomes),
                      outcome_successor(Via, Game, Fold, Trie, MoveTrie, P, M, Mv, MI, I),
                      via_outcome_weight(Via, Game, P, Mv, W), weight_text(Game, P, Mv, W, Wt) ),
                    Edges),
            edges(Edges, MoveIds, Targets, Weights),
            (   Scored == true -> same_length(MoveIds, Points), maplist(=('0/1'), Points) ; Points = [] )
        ;   Scored == true                      % each move's points
        ->  findall(MI-I-Pt,
                    ( successor(Via, Game, Fold, Trie, MoveTrie, P, M, Mv, MI, I),
                      via_move_points(Via, Game, P, M, Mv, N), exact_text(Game, P, M, points/5, N, Pt) ),
                    Edges),
            edges(Edges, MoveIds, Targets, Points),
            Weights = []
        ;   findall(MI-I, successor(Via, Game, Fold, Trie, MoveTrie, P, M, _, MI, I), Edges),
            pairs_keys_values(Edges, MoveIds, Targets),
            Weights = [], Points = []
        )
    ),
    length(MoveIds, Count).

%   A legal move of the state, its number and the node it leads to (the
%   game's calls routed as step_route/2 says).
successor(Via, Game, Fold, Trie, MoveTrie, P, M, Mv, MI, I) :-
    via_legal(Via, Game, P, M, Mv),
    via_step(Via, Game, P, M, Mv, P1, M1),
    move_id(MoveTrie, Game, Mv, MI),
    representative(Fold, Game, P1, R1, Images),
    node_id(Trie, Fold, M1, R1, Images, I).

%   A chance outcome's number and node, as successor/10's; an outcome that
%   next/5 cannot play is the file's error (dropped, it would have given the
%   others its chance), as check says.
outcome_successor(Via, Game, Fold, Trie, MoveTrie, P, M, Mv, MI, I) :-
    (   via_step(Via, Game, P, M, Mv, P1, M1)
    ->  true
    ;   position_text(Game, P, M, PT),
        outcome_text(Game, Mv, MT),
        format(string(Msg), "next/5 fails for chance's outcome ~w at ~w: every outcome legal/4 gives must lead somewhere (educable check says where)", [MT, PT]),
        bad_input(Msg)
    ),
    move_id(MoveTrie, Game, Mv, MI),
    representative(Fold, Game, P1, R1, Images),
    node_id(Trie, Fold, M1, R1, Images, I).

%   An outcome as a message names it: its move text, else the term.
outcome_text(Game, Mv, Text) :-
    (   catch(move_text(Game, Mv, T), _, fail) -> Text = T ; format(atom(Text), "~q", [Mv]) ).

%   Each of a chance node's outcomes once: one given twice would be counted
%   twice (twice its weight), which check reports and solve refuses.
outcomes_once(Game, P, M, Outcomes) :-
    msort(Outcomes, Sorted),
    (   append(_, [X, Y|_], Sorted), X =@= Y
    ->  position_text(Game, P, M, PT),
        outcome_text(Game, X, MT),
        format(string(Msg), "legal/4 gives chance's outcome ~w twice at ~w: each outcome once, with its weight (chance_weight/4)", [MT, PT]),
        bad_input(Msg)
    ;   true
    ).

edges([], [], [], []).
edges([A-B-C|T], [A|As], [B|Bs], [C|Cs]) :- edges(T, As, Bs, Cs).

%   Points (of a move or an end) as a text 'N/D', exact as JSON numbers are
%   not; points that are not an integer or a rational are the file's error.
exact_text(Game, P, M, What, N, Text) :-
    (   ( integer(N) ; rational(N) )
    ->  rational(N, A, B),
        format(atom(Text), "~d/~d", [A, B])
    ;   position_text(Game, P, M, PT),
        format(string(Msg), "~w gives ~q points at ~w: points are integers or rationals, never floats", [What, N, PT]),
        bad_input(Msg)
    ).

%   A chance outcome's weight as a text 'N/D' (a rational's numerator and
%   denominator) or a whole number as it is, exact as JSON floats are not;
%   a weight that is not a positive integer or rational is the file's error.
weight_text(Game, P, Mv, W, Text) :-
    (   integer(W), W > 0
    ->  Text = W                                    % the usual case (a die's faces weigh 1): as it is
    ;   rational(W), W > 0
    ->  rational(W, N, D),
        format(atom(Text), "~d/~d", [N, D])
    ;   move_text(Game, Mv, MT),
        position_text(Game, P, chance, PT),
        format(string(Msg), "chance_weight/4 gives ~q for the outcome ~w of ~w: a weight is a positive integer or rational (1r10), never a float", [W, MT, PT]),
        bad_input(Msg)
    ).

%   A mover's number: a player's (0 first, 1 second), or 3 for chance.
mover_code(_, M, 3) :- chance_mover(M), !.
mover_code(Players, M, Code) :- player_code(Players, M, 'a position has the mover', Code).

%   A player's number (0 first, 1 second); a name that is no player is
%   the game file's error (What says where the name came from).
player_code(Players, Name, What, Code) :-
    (   nth0(Code, Players, Name)
    ->  true
    ;   format(string(Msg), "~w ~q, which is not one of the players ~w", [What, Name, Players]),
        bad_input(Msg)
    ).

result_code(_, null, -1) :- !.
result_code(_, draw, 2) :- !.
result_code([_], score(_), 4) :- !.
result_code([_, _], payoff(_), 4) :- !.
result_code(Players, Winner, Code) :-
    player_code(Players, Winner, 'over/4 gives the winner', Code).

%   A move's number: one a text, so two moves written alike share it (the
%   trie maps both the move and its text to the number; a move that is not
%   ground is written every time).
move_id(MoveTrie, Game, Move, Id) :-
    (   ground(Move), trie_lookup(MoveTrie, m(Move), Id0)
    ->  Id = Id0
    ;   move_text(Game, Move, Text),
        (   trie_lookup(MoveTrie, t(Text), Id0)
        ->  Id = Id0
        ;   nb_getval(graph_moves, Id),
            trie_insert(MoveTrie, t(Text), Id),
            assertz(new_move(Id, Text)),
            Id1 is Id + 1,
            nb_setval(graph_moves, Id1)
        ),
        (   ground(Move) -> trie_insert(MoveTrie, m(Move), Id) ; true )
    ).

%   The node number of a state, numbering it (and queueing it with the
%   size of its class, from the images that found its representative) when new.
node_id(Trie-Frontier, Fold, Mover, Rep, Images, Id) :-
    (   trie_lookup(Trie, Mover-Rep, Id0)
    ->  Id = Id0
    ;   nb_getval(graph_found, Id),
        trie_insert(Trie, Mover-Rep, Id),
        orbit(Fold, Images, Orbit),
        trie_insert(Frontier, Id, p(Rep, Mover, Orbit)),
        Id1 is Id + 1,
        nb_setval(graph_found, Id1)
    ).

%   The node that stands for a state (its least image when folding), and
%   the images that gave it ([] when not folding).
representative(true, Game, P, R, Images) :- !,
    least_image(Game, P, R, Images).
representative(_, _, P, P, []).

orbit(true, Images, N) :- !,
    sort(Images, Set),
    length(Set, N).
orbit(_, _, 1).

%!  keys_expand(+Game, +Keys:list, -Nodes) is det.
%   One step of a graph expanded lazily (Q-learning on a game too large to
%   enumerate): for each state (by its key) its mover, result (`null`
%   while the game goes on) and number of moves, then every state's moves
%   and the keys of the states they lead to, as flat lists:
%   json([movers-Ms, results-Rs, counts-Cs, moves-MoveTexts, next-Keys]).
keys_expand(Game, Keys, json([movers-Movers, results-Results, counts-Counts, moves-MoveTexts, next-Next])) :-
    expand_all(Keys, Game, Movers, Results, Counts, MsList, NsList),
    append(MsList, MoveTexts),
    append(NsList, Next).

expand_all([], _, [], [], [], [], []).
expand_all([K|Ks], Game, [M|Ms], [R|Rs], [C|Cs], [Mv|Mvs], [N|Ns]) :-
    key_expand(Game, K, M, R, C, Mv, N),
    expand_all(Ks, Game, Ms, Rs, Cs, Mvs, Ns).

key_expand(Game, Key, Mover, Result, Count, MoveTexts, NextKeys) :-
    parse_position(Game, Key, P, Mover),
    (   over(Game, P, Mover, R)
    ->  Result = R, MoveTexts = [], NextKeys = []
    ;   Result = null,
        findall(MT-K1, ( legal(Game, P, Mover, Mv), step(Game, P, Mover, Mv, P1, M1),
                         move_text(Game, Mv, MT), position_text(Game, P1, M1, K1) ), Pairs),
        pairs_keys_values(Pairs, MoveTexts, NextKeys)
    ),
    length(MoveTexts, Count).

%!  keys_cells(+Game, +Keys:list, -Cells:list(list(integer))) is det.
%   The cells/4 view of each state (by its key), for board-based learners.
keys_cells(Game, Keys, Cells) :-
    (   declares(Game, cells)
    ->  maplist(key_cells(Game), Keys, Cells)
    ;   format(atom(Msg), "game ~w does not define cells/4 (needed by board tables and rule sets)", [Game]),
        bad_input(Msg)
    ).

key_cells(Game, Key, Cells) :-
    parse_position(Game, Key, P, M),
    cells(Game, P, M, Cells).

%!  keys_canonical(+Game, +Keys:list, -Canonical:list) is det.
%   The key of each state's class (its least symmetric image).
keys_canonical(Game, Keys, Canonical) :-
    maplist(key_canonical(Game), Keys, Canonical).

key_canonical(Game, Key, Canon) :-
    parse_position(Game, Key, P, M),
    canonical(Game, P, M, Canon).

%!  keys_policy(+Game, +Chooser, +Keys:list, -Table:list) is det.
%   For each state (by its key) the texts of the moves Chooser picks
%   among; [] where the game is over.
keys_policy(Game, Chooser, Keys, Table) :-
    maplist(key_policy(Game, Chooser), Keys, Table).

key_policy(Game, Chooser, Key, Texts) :-
    parse_position(Game, Key, P, M),
    (   over(Game, P, M, _)
    ->  Texts = []
    ;   play:candidates(Chooser, Game, P, M, Moves),
        maplist(move_text(Game), Moves, Texts)
    ).
