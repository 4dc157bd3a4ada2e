/*  Tic-tac-toe (noughts and crosses).

    Position: b(S1,...,S9), squares numbered row by row from the top left,
    each x, o or e (empty).  X moves first.  A move is the square number.

    Text form: three rows of x, o and '.' separated by '/', top row first,
    e.g. 'x.o/.x./..o'.  The player to move follows from the counts (X when
    they are equal); an optional trailing ' x' or ' o' must agree with them.

        ?- parse_position(tictactoe, 'x../.o./...', P, M), legal(tictactoe, P, M, Sq).
*/
:- module(tictactoe, []).

game:game(tictactoe).
game:players(tictactoe, [x, o]).
game:initial(tictactoe, b(e,e,e,e,e,e,e,e,e), x).

game:legal(tictactoe, B, _, Sq) :-
    between(1, 9, Sq),
    arg(Sq, B, e).

game:next(tictactoe, B, Mover, Sq, B1) :-
    duplicate_term(B, B1),
    nb_setarg(Sq, B1, Mover).

game:over(tictactoe, B, Mover, Result) :-
    game:other_player(tictactoe, Mover, Last),      % only the last mover can have a line
    (   three_in_a_row(B, Last)
    ->  Result = Last
    ;   \+ arg(_, B, e)
    ->  Result = draw
    ).

%   The 8 lines, grouped by the corner or centre they pass through.
three_in_a_row(b(A,B,C,D,E,F,G,H,I), P) :-
    (   A == P, ( B == P, C == P ; D == P, G == P ; E == P, I == P )
    ;   E == P, ( D == P, F == P ; B == P, H == P ; C == P, G == P )
    ;   I == P, ( C == P, F == P ; G == P, H == P )
    ),
    !.

%   The 8 lines, as cell numbers (for rule-set agents' biased generation).
game:line(tictactoe, [1,2,3]).
game:line(tictactoe, [4,5,6]).
game:line(tictactoe, [7,8,9]).
game:line(tictactoe, [1,4,7]).
game:line(tictactoe, [2,5,8]).
game:line(tictactoe, [3,6,9]).
game:line(tictactoe, [1,5,9]).
game:line(tictactoe, [3,5,7]).

%   The 8 symmetries of the square, each a rewrite of the board term.
game:symmetry(tictactoe, B, B1) :-
    sym(B, B1).

sym(b(A,B,C,D,E,F,G,H,I), b(A,B,C,D,E,F,G,H,I)).   % identity
sym(b(A,B,C,D,E,F,G,H,I), b(G,D,A,H,E,B,I,F,C)).   % rotate 90
sym(b(A,B,C,D,E,F,G,H,I), b(I,H,G,F,E,D,C,B,A)).   % rotate 180
sym(b(A,B,C,D,E,F,G,H,I), b(C,F,I,B,E,H,A,D,G)).   % rotate 270
sym(b(A,B,C,D,E,F,G,H,I), b(C,B,A,F,E,D,I,H,G)).   % mirror left-right
sym(b(A,B,C,D,E,F,G,H,I), b(G,H,I,D,E,F,A,B,C)).   % mirror top-bottom
sym(b(A,B,C,D,E,F,G,H,I), b(A,D,G,B,E,H,C,F,I)).   % main diagonal
sym(b(A,B,C,D,E,F,G,H,I), b(I,F,C,H,E,B,G,D,A)).   % anti-diagonal

%   The CA425 practical's state x: 0 blank, 1 me (the mover), 2 the opponent.
game:cells(tictactoe, B, Mover, Cells) :-
    B =.. [b|Marks],
    maplist(viewpoint_cell(Mover), Marks, Cells).

%   cells/4 in rows of 3, cell 1's row drawn at the top (as show draws it).
game:layout(tictactoe, 3, top).

viewpoint_cell(_, e, 0) :- !.
viewpoint_cell(Me, Me, 1) :- !.
viewpoint_cell(_, _, 2).

%   A board set up by clicks: its rows, and who is to move (parse_position
%   refuses a mover the counts of x and o do not allow).
game:setup_text(tictactoe, Cells, Mover, Text) :-
    game:rows_text(Cells, 3, top, ['.', x, o], Board),
    format(atom(Text), "~w ~w", [Board, Mover]).

game:position_text(tictactoe, B, _, Text) :-
    B =.. [b|Cells],
    maplist(cell_char, Cells, Cs),
    Cs = [A,B2,C,D,E,F,G,H,I],
    atom_chars(Text, [A,B2,C,/,D,E,F,/,G,H,I]).

cell_char(x, x).
cell_char(o, o).
cell_char(e, '.').

game:parse_position(tictactoe, Text, B, Mover) :-
    text_chars(Text, Chars0),
    split_mover(Chars0, Chars1, Given),
    exclude(==(/), Chars1, Chars),
    (   length(Chars, 9), maplist(cell_char, Cells, Chars)
    ->  true
    ;   game:shown(Text, Q),
        format(atom(M), "bad tic-tac-toe position ~w: want 9 squares of x, o or . in rows separated by /, e.g. x.o/.x./..o", [Q]),
        game:bad_input(M)
    ),
    include(==(x), Cells, Xs), length(Xs, NX),
    include(==(o), Cells, Os), length(Os, NO),
    (   NX =:= NO -> Mover = x
    ;   NX =:= NO + 1 -> Mover = o
    ;   game:shown(Text, Q),
        format(atom(M), "bad tic-tac-toe position ~w: ~d x and ~d o cannot happen (x moves first)", [Q, NX, NO]),
        game:bad_input(M)
    ),
    (   ( var(Given) ; Given == Mover ) -> true
    ;   game:shown(Text, Q),
        format(atom(M), "bad tic-tac-toe position ~w: it is ~w to move, not ~w", [Q, Mover, Given]),
        game:bad_input(M)
    ),
    B =.. [b|Cells],
    (   three_in_a_row(B, x), three_in_a_row(B, o)
    ->  game:shown(Text, Q),
        format(atom(M), "bad tic-tac-toe position ~w: both sides have three in a row, which cannot happen", [Q]),
        game:bad_input(M)
    ;   three_in_a_row(B, Mover)
    ->  game:shown(Text, Q),
        game:other_player(tictactoe, Mover, Other),
        format(atom(M), "bad tic-tac-toe position ~w: ~w has three in a row but ~w moved last", [Q, Mover, Other]),
        game:bad_input(M)
    ;   true
    ).

text_chars(Text, Chars) :-
    atom_string(A, Text),
    downcase_atom(A, L),
    normalize_space(chars(Chars), L).

split_mover(Chars, Board, Mover) :-
    (   append(Board, [' ', M], Chars), memberchk(M, [x, o])
    ->  Mover = M
    ;   Board = Chars
    ).

game:parse_move(tictactoe, Text, Sq) :-
    (   atom_string(A, Text), atom_number(A, Sq), integer(Sq), between(1, 9, Sq)
    ->  true
    ;   game:shown(Text, Q),
        format(atom(M), "bad tic-tac-toe move ~w: want a square 1-9 (rows from the top left)", [Q]),
        game:bad_input(M)
    ).

game:move_text(tictactoe, Sq, Text) :-
    atom_number(Text, Sq).

game:board_lines(tictactoe, B, _, Lines) :-
    findall(Line,
            ( member(R, [0, 3, 6]),
              findall(S, ( between(1, 3, C), I is R + C, arg(I, B, V), show_cell(V, I, S) ), [S1,S2,S3]),
              format(string(Line), " ~w | ~w | ~w ", [S1, S2, S3]) ),
            [L1, L2, L3]),
    Lines = [L1, "---+---+---", L2, "---+---+---", L3].

show_cell(x, _, 'X').
show_cell(o, _, 'O').
show_cell(e, I, I).
