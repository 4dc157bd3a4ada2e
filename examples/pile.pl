/*  Pile: ten stones; ann and bob take turns taking 1, 2 or 3 of them, and
    whoever takes the last stone wins.  (A subtraction game: the player to
    move loses exactly when the stones left are a multiple of 4.)

    Position: the number of stones left.  Text form: the stones and the
    player to move, e.g. '10 ann'.  A move is how many stones to take.
*/
:- module(pile, []).

game:game(pile).
game:players(pile, [ann, bob]).
game:initial(pile, 10, ann).

game:legal(pile, Stones, _, Take) :-
    between(1, 3, Take),
    Take =< Stones.

game:next(pile, Stones, _, Take, Left) :-
    Left is Stones - Take.

%   No stones left: the player who took the last one (not the mover) won.
game:over(pile, 0, Mover, Winner) :-
    game:other_player(pile, Mover, Winner).

game:position_text(pile, Stones, Mover, Text) :-
    format(atom(Text), "~d ~w", [Stones, Mover]).

game:parse_position(pile, Text, Stones, Mover) :-
    (   split_string(Text, " ", " ", [S, M]),
        number_string(Stones, S), integer(Stones), between(0, 10, Stones),
        atom_string(Mover, M), memberchk(Mover, [ann, bob])
    ->  true
    ;   game:bad_input("bad pile position: want the stones left (0-10) and who moves, e.g. '10 ann'")
    ).

game:move_text(pile, Take, Text) :-
    atom_number(Text, Take).

game:parse_move(pile, Text, Take) :-
    (   atom_string(A, Text), atom_number(A, Take), memberchk(Take, [1, 2, 3])
    ->  true
    ;   game:bad_input("bad pile move: take 1, 2 or 3")
    ).

game:board_lines(pile, Stones, _, [Line]) :-
    length(Os, Stones),
    maplist(=(o), Os),
    atomic_list_concat(Os, ' ', Drawn),
    format(string(Line), "~w  (~d left)", [Drawn, Stones]).
