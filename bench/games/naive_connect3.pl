/*  Connect three on a board 4 wide and 4 high, written the way a newcomer
    writes a game from the README: correct, and slow.  The bench
    (bench/bench_check.py --advice) checks it, follows the advice `check`
    gives, and times `solve` before and after.  Not a shipped game.

    Position: the 16 cells row by row from the top, each x, o or e (empty).
    A move is a column 1-4; the piece drops to the lowest empty cell.
*/
:- module(naive_connect3, []).

game:game(naive_connect3).
game:players(naive_connect3, [x, o]).
game:initial(naive_connect3, Board, x) :- length(Board, 16), maplist(=(e), Board).

game:legal(naive_connect3, Board, _, Col) :-
    between(1, 4, Col),
    nth1(Col, Board, e).                        % the top cell of the column is empty

game:next(naive_connect3, Board, Mover, Col, Board1) :-
    lowest_empty(Board, Col, Index),
    put(Board, Index, Mover, Board1).

lowest_empty(Board, Col, Index) :-
    findall(I, ( between(0, 3, Row), I is Row * 4 + Col, nth1(I, Board, e) ), Empties),
    last(Empties, Index).

put([_|T], 1, M, [M|T]) :- !.
put([H|T], I, M, [H|T1]) :- I1 is I - 1, put(T, I1, M, T1).

game:over(naive_connect3, Board, _, Winner) :-
    all_lines(Lines),                           % every line of three, worked out again on every call
    member([A, B, C], Lines),
    nth1(A, Board, P), P \== e,
    nth1(B, Board, P), nth1(C, Board, P), !,
    Winner = P.
game:over(naive_connect3, Board, _, draw) :-
    \+ member(e, Board).

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

game:position_text(naive_connect3, Board, Mover, Text) :-
    atomic_list_concat(Board, '', Cells),
    format(atom(Text), "~w ~w", [Cells, Mover]).
game:parse_position(naive_connect3, Text, Board, Mover) :-
    (   split_string(Text, " ", "", [CellText, MoverText]),
        string_chars(CellText, Board), length(Board, 16),
        forall(member(C, Board), memberchk(C, [x, o, e])),
        atom_string(Mover, MoverText), memberchk(Mover, [x, o])
    ->  true
    ;   game:bad_input("bad naive_connect3 position: 16 cells of x, o, e and the side to move, e.g. 'eeeeeeeeeeeeeeee x'")
    ).
game:move_text(naive_connect3, Col, Text) :- atom_number(Text, Col).
game:parse_move(naive_connect3, Text, Col) :-
    (   atom_number(Text, Col), integer(Col), between(1, 4, Col) -> true
    ;   game:bad_input("bad naive_connect3 move: a column 1-4")
    ).
game:board_lines(naive_connect3, Board, _, Lines) :-
    findall(Line, ( between(0, 3, R), findall(C, ( between(1, 4, K), I is R * 4 + K, nth1(I, Board, C) ), Cs),
                    atomic_list_concat(Cs, ' ', Line) ), Lines).
