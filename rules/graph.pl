/*  Compile a game into its state graph: every reachable state, in
    breadth-first order from the initial one, with its side to move, its
    result if over, its key up to symmetry, its exact value, and its moves
    with the index of the state each leads to.  One query, for the learners.

        ?- state_graph(hexapawn, Nodes), length(Nodes, N).
        N = 135.
*/
:- module(graph, [state_graph/2, reachable_states/2, state_cells/2]).
:- use_module(game).
:- use_module(solver).

%!  state_graph(+Game, -Nodes:list) is det.
%   Nodes is a list of [Key, Mover, Result, Canonical, Value, Edges] with
%   Result the winner, `draw` or `null` while the game goes on, Value the
%   exact value from the mover's viewpoint (1, 0, -1), and Edges a list of
%   [MoveText, SuccessorIndex]; node 0 is the initial state.
state_graph(Game, Nodes) :-
    reachable_states(Game, States),
    maplist(node(Game), States, Nodes).

%!  state_cells(+Game, -Cells:list(list(integer))) is det.
%   The cells/4 view of every reachable state, in state_graph/2's order.
state_cells(Game, Cells) :-
    (   clause(game:cells(Game, _, _, _), _)
    ->  reachable_states(Game, States),
        findall(C, ( member(st(P, M, _, _), States), cells(Game, P, M, C) ), Cells)
    ;   format(atom(Msg), "game ~w does not define cells/4 (needed by board tables and rule sets)", [Game]),
        bad_input(Msg)
    ).

%!  reachable_states(+Game, -States:list) is det.
%   Every reachable st(Pos, Mover, Key, Edges) in breadth-first order.
reachable_states(Game, States) :-
    initial(Game, P0, M0),
    position_text(Game, P0, M0, K0),
    list_to_assoc([(M0-P0)-0], Seen),
    Queue = [s(P0, M0, K0)|Tail],
    bfs(Queue, Tail, Game, 1, Seen, States).

bfs(Queue, Tail, _, _, _, []) :- Queue == Tail, !.
bfs([s(P, M, K)|Queue], Tail, Game, N0, Seen0, [st(P, M, K, Edges)|States]) :-
    successors(Game, P, M, Pairs),
    other_player(Game, M, O),
    expand(Pairs, Game, O, N0, N1, Seen0, Seen1, Edges, Tail, Tail1),
    bfs(Queue, Tail1, Game, N1, Seen1, States).

expand([], _, _, N, N, Seen, Seen, [], Tail, Tail).
expand([Move-P1|Pairs], Game, O, N0, N, Seen0, Seen, [[MT, I]|Edges], Tail0, Tail) :-
    move_text(Game, Move, MT),
    (   get_assoc(O-P1, Seen0, I)
    ->  N1 = N0, Seen1 = Seen0, Tail1 = Tail0
    ;   I = N0, N1 is N0 + 1,
        position_text(Game, P1, O, K1),
        put_assoc(O-P1, Seen0, I, Seen1),
        Tail0 = [s(P1, O, K1)|Tail1]
    ),
    expand(Pairs, Game, O, N1, N, Seen1, Seen, Edges, Tail1, Tail).

node(Game, st(P, M, K, Edges), [K, M, Result, Canon, Value, Edges]) :-
    (   over(Game, P, M, R) -> Result = R ; Result = null ),
    canonical(Game, P, M, Canon),
    state_value(Game, P, M, Value).
