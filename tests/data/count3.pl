/*  Count to three: players a and b add 1 or 2 to a counter from 0; whoever reaches 3 wins. */
:- module(count3, []).
game:game(count3).
game:players(count3, [a, b]).
game:initial(count3, 0, a).
game:legal(count3, N, _, K) :- member(K, [1, 2]), N + K =< 3.
game:next(count3, N, _, K, N1) :- N1 is N + K.
game:over(count3, 3, Mover, Winner) :- game:other_player(count3, Mover, Winner).
game:position_text(count3, N, M, T) :- format(atom(T), "~w ~w", [N, M]).
game:parse_position(count3, Text, N, M) :-
    (   atom_string(A, Text), atomic_list_concat([NA, M], ' ', A), atom_number(NA, N), integer(N),
        between(0, 3, N), memberchk(M, [a, b])
    ->  true
    ;   game:bad_input("bad count3 position: want a count 0-3 and the side to move, e.g. '0 a'")
    ).
game:parse_move(count3, Text, K) :-
    (   atom_string(A, Text), atom_number(A, K), memberchk(K, [1, 2]) -> true
    ;   game:bad_input("bad count3 move: want 1 or 2")
    ).
game:move_text(count3, K, T) :- atom_number(T, K).
game:board_lines(count3, N, _, [L]) :- format(string(L), "count ~w of 3", [N]).
