/*  The floor for `solve`: a plain breadth-first search over a game file in
    SWI-Prolog, with nothing educable adds (no graph kept, no values, no
    knowledge base): initial/3, over/4, legal/4, step/6 and canonical/4
    once a class, the classes seen kept in a hash set.  bench/bench_graphs.py
    --floor runs it beside `educable solve` on the same files.

        swipl -g "bfs_floor('connect(3,4,4)')" -t halt rules/load.pl bench/bfs_floor.pl
*/
:- use_module(library(nb_set)).

bfs_floor(Game) :-
    statistics(cputime, T0),
    game:initial(Game, P0, M0),
    game:canonical(Game, P0, M0, K0),
    empty_nb_set(Seen),
    add_nb_set(K0, Seen),
    level([P0/M0], Game, Seen),
    size_nb_set(Seen, Count),
    statistics(cputime, T1),
    Seconds is T1 - T0,
    format("~w ~d ~3f~n", [Game, Count, Seconds]).

level([], _, _) :- !.
level(Frontier, Game, Seen) :-
    findall(P1/M1, ( member(P/M, Frontier),
                     \+ game:over(Game, P, M, _),
                     game:legal(Game, P, M, Mv),
                     game:step(Game, P, M, Mv, P1, M1),
                     game:canonical(Game, P1, M1, K),
                     add_nb_set(K, Seen, true) ), Next),
    level(Next, Game, Seen).
