/*  bench/games/naive_connect3.pl after following the two things `check`
    advises for it, and nothing else: the lines are tabled, and the
    position is a term b(C1, ..., C16) read with arg/3 instead of a list
    read with nth1/3.  Not a shipped game.

    Position: b/16, the cells row by row from the top, each x, o or e (empty).
    A move is a column 1-4; the piece drops to the lowest empty cell.
*/
:- module(advised_connect3, []).

game:game(advised_connect3).
game:players(advised_connect3, [x, o]).
game:initial(advised_connect3, Board, x) :- length(Cells, 16), maplist(=(e), Cells), Board =.. [b|Cells].

game:legal(advised_connect3, Board, _, Col) :-
    between(1, 4, Col),
    arg(Col, Board, e).                         % the top cell of the column is empty

game:next(advised_connect3, Board, Mover, Col, Board1) :-
    lowest_empty(Board, Col, Index),
    put(Board, Index, Mover, Board1).

lowest_empty(Board, Col, Index) :-
    findall(I, ( between(0, 3, Row), I is Row * 4 + Col, arg(I, Board, e) ), Empties),
    last(Empties, Index).

put(Board, I, M, Board1) :-
    Board =.. [b|Cells], put_list(Cells, I, M, Cells1), Board1 =.. [b|Cells1].

put_list([_|T], 1, M, [M|T]) :- !.
put_list([H|T], I, M, [H|T1]) :- I1 is I - 1, put_list(T, I1, M, T1).

game:over(advised_connect3, Board, _, Winner) :-
    all_lines(Lines),                           % every line of three, worked out again on every call
    member([A, B, C], Lines),
    arg(A, Board, P), P \== e,
    arg(B, Board, P), arg(C, Board, P), !,
    Winner = P.
game:over(advised_connect3, Board, _, draw) :-
    \+ arg(_, Board, e).

:- table all_lines/1.
all_lines(Lines) :-
    findall([A, B, C], line(A, B, C), Lines0),
    sort(Lines0, Lines).

line(A, B, C) :-
    between(0, 3, R), between(0, 3, K),
    member(DR-DK, [0-1, 1-0, 1-1, 1-(-1)]),
    R2 is R + 2 * DR, K2 is K + 2 * DK,
    between(0, 3, R2), between(0, 3, K2),
    A is R * 4 + K + 1,
    B is (R + DR) * 4 + K + DK + 1,
    C is R2 * 4 + K2 + 1.

game:position_text(advised_connect3, Board, Mover, Text) :-
    Board =.. [b|List], atomic_list_concat(List, '', Cells),
    format(atom(Text), "~w ~w", [Cells, Mover]).
game:parse_position(advised_connect3, Text, Board, Mover) :-
    (   split_string(Text, " ", "", [CellText, MoverText]),
        string_chars(CellText, List), length(List, 16),
        forall(member(C, List), memberchk(C, [x, o, e])),
        Board =.. [b|List],
        atom_string(Mover, MoverText), memberchk(Mover, [x, o])
    ->  true
    ;   game:bad_input("bad advised_connect3 position: 16 cells of x, o, e and the side to move, e.g. 'eeeeeeeeeeeeeeee x'")
    ).
game:move_text(advised_connect3, Col, Text) :- atom_number(Text, Col).
game:parse_move(advised_connect3, Text, Col) :-
    (   atom_number(Text, Col), integer(Col), between(1, 4, Col) -> true
    ;   game:bad_input("bad advised_connect3 move: a column 1-4")
    ).
game:board_lines(advised_connect3, Board, _, Lines) :-
    findall(Line, ( between(0, 3, R), findall(C, ( between(1, 4, K), I is R * 4 + K, arg(I, Board, C) ), Cs),
                    atomic_list_concat(Cs, ' ', Line) ), Lines).
