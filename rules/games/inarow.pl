/*  tictactoe(N, W, H): N in a row on a W x H board.  A move claims any
    empty cell, numbered 1..W*H row by row from the top left.
    tictactoe(4, 4, 4) is 4x4 tic-tac-toe (four in a row); tictactoe(3, 3, 3)
    is the game `tictactoe`.  (The same with gravity, connect(N, W, H), is
    connect.pl, on bitboards; it shares this file's lines and text helpers.)

    Players x (first) and o.  N of one's own in a row (across, down, or
    diagonally) wins; a full board is a draw.

    Position: b(C1, ..., Cwh), cells row by row from the top left, each x,
    o or '.' (empty), so that the text form is the cells themselves.  Text form: the rows top to bottom, x/o/., separated by '/',
    e.g. '..../..../x.../xo..'; the side to move follows from the counts.
    Symmetries: the left-right and top-bottom mirrors and, on a square
    board, rotations and diagonal mirrors (8 in all).

    A game's geometry (its lines, symmetries and text layout) is turned
    into clauses the first time the game is used, so that checking a line
    or taking a mirror image is one head unification.

        ?- G = 'tictactoe(4,4,4)', initial(G, P, M), legal(G, P, M, Cell).
*/
:- module(inarow, []).

named('tictactoe(4,4,4)').

:- dynamic known/4.        % known(Game, N, W, H)
:- dynamic foreign/1.      % foreign(Game): a name that is not tictactoe(N, W, H)
:- dynamic has_line/3.     % has_line(Game, Board, Player): Player has N in a row
:- dynamic image_of/3.     % image_of(Game, Board, Image), one clause a symmetry
:- dynamic text_cells/3.   % text_cells(Game, Board, Chars): the cells in text order, '/' between rows

%   The game's name (an atom such as 'tictactoe(4,4,4)') and its numbers.
params(G, N, W, H) :-
    (   known(G, N, W, H)
    ->  true
    ;   \+ atom(G)
    ->  fail
    ;   foreign(G)
    ->  fail
    ;   \+ sub_atom(G, 0, _, _, 'tictactoe(')
    ->  assertz(foreign(G)), fail
    ;   catch(term_to_atom(T, G), _, fail),
        T = tictactoe(N, W, H),
        integer(N), integer(W), integer(H),
        N >= 2, W >= 1, H >= 1, W * H =< 64, ( N =< W ; N =< H )
    ->  with_mutex(inarow, define(G, N, W, H))
    ).

define(G, N, W, H) :-
    (   known(G, N, W, H)
    ->  true
    ;   S is W * H,
        forall(line_cells(N, W, H, L), assert_line(G, S, L)),
        forall(permutation_of(W, H, P), assert_image(G, S, P)),
        assert_text(G, W, H),
        assertz(known(G, N, W, H))
    ).

cell(W, X, Y, I) :- I is (Y - 1) * W + X.       % Y = 1 is the top row

line_cells(N, W, H, L) :-
    member(DX-DY, [1-0, 0-1, 1-1, 1-(-1)]),
    between(1, W, X), between(1, H, Y),
    XE is X + (N - 1) * DX, YE is Y + (N - 1) * DY,
    XE >= 1, XE =< W, YE >= 1, YE =< H,
    findall(I, ( between(1, N, K0), K is K0 - 1, X1 is X + K * DX, Y1 is Y + K * DY, cell(W, X1, Y1, I) ), L).

assert_line(G, S, L) :-
    functor(B, b, S),
    maplist(same_arg(B, P), L),
    assertz(has_line(G, B, P)).

same_arg(B, P, I) :- arg(I, B, P).

%   Each symmetry as the cell each cell comes from.
permutation_of(W, H, P) :-
    transform(W, H, F),
    findall(I, ( between(1, H, Y), between(1, W, X), call(F, X, Y, X0, Y0), cell(W, X0, Y0, I) ), P).

transform(_, _, [X, Y, X, Y]>>true).
transform(W, _, [X, Y, X0, Y]>>(X0 is W + 1 - X)).
transform(_, H, [X, Y, X, Y0]>>(Y0 is H + 1 - Y)).
transform(W, H, [X, Y, X0, Y0]>>(X0 is W + 1 - X, Y0 is H + 1 - Y)).
transform(W, H, [X, Y, Y, X]>>true) :- W =:= H.
transform(W, H, [X, Y, Y0, X]>>(Y0 is H + 1 - Y)) :- W =:= H.
transform(W, H, [X, Y, Y, X0]>>(X0 is W + 1 - X)) :- W =:= H.
transform(W, H, [X, Y, Y0, X0]>>(X0 is W + 1 - X, Y0 is H + 1 - Y)) :- W =:= H.

assert_image(G, S, P) :-
    functor(B, b, S),
    B =.. [b|Vs],
    maplist(cell_of(Vs), P, Ws),
    B1 =.. [b|Ws],
    assertz(image_of(G, B, B1)).

cell_of(Vs, I, V) :- nth1(I, Vs, V).

assert_text(G, W, H) :-
    S is W * H,
    functor(B, b, S),
    B =.. [b|Vs],
    rows(Vs, W, Rows),
    length(Rows, H),
    atomic_list_concat_rows(Rows, Chars),
    assertz(text_cells(G, B, Chars)).

rows([], _, []) :- !.
rows(Vs, W, [Row|Rows]) :- length(Row, W), append(Row, Rest, Vs), rows(Rest, W, Rows).

atomic_list_concat_rows([Row], Row) :- !.
atomic_list_concat_rows([Row|Rows], Chars) :-
    atomic_list_concat_rows(Rows, Tail),
    append(Row, ['/'|Tail], Chars).

game:game(G) :- ( var(G) -> named(G) ; params(G, _, _, _) ).
game:players(G, [x, o]) :- params(G, _, _, _).
game:initial(G, B, x) :-
    params(G, _, W, H),
    S is W * H,
    functor(B, b, S),
    forall(between(1, S, I), nb_setarg(I, B, '.')).

%   4x4 tic-tac-toe's
%   9,722,011 (solve confirms it: 1,217,977 classes), so that asking for
%   every position of it is refused at once under the default limit, while
%   solving it (folded) goes ahead.
game:size_at_least('tictactoe(4,4,4)', 9722011).

game:legal(G, B, _, Move) :-
    params(G, _, W, H),
    S is W * H, between(1, S, Move), arg(Move, B, '.').

game:next(G, B, Mover, Move, B1) :-
    params(G, _, _, _),
    duplicate_term(B, B1),
    nb_setarg(Move, B1, Mover).

game:over(G, B, Mover, Result) :-
    params(G, _, _, _),
    (   Mover == x -> Last = o ; Last = x ),            % only the last mover can have a line
    (   has_line(G, B, Last)
    ->  Result = Last
    ;   \+ arg(_, B, '.')
    ->  Result = draw
    ).

game:line(G, L) :-
    params(G, N, W, H),
    line_cells(N, W, H, L).

game:symmetry(G, B, B1) :-
    params(G, _, _, _),
    image_of(G, B, B1).

game:cells(G, B, Mover, Cells) :-
    params(G, _, _, _),
    B =.. [b|Marks],
    maplist(viewpoint(Mover), Marks, Cells).

%   cells/4 in rows of W, the top row first (as show draws it).
game:layout(G, W, top) :- params(G, _, W, _).
game:actions(G, Squares) :- params(G, _, W, H), S is W * H, numlist(1, S, Squares).

viewpoint(_, '.', 0) :- !.
viewpoint(Me, Me, 1) :- !.
viewpoint(_, _, 2).

%   A board set up by clicks: its rows (the counts of x and o say who moves).
game:setup_text(G, Cells, _, Text) :-
    params(G, _, W, _),
    game:rows_text(Cells, W, top, ['.', x, o], Text).

game:position_text(G, B, _, Text) :-
    text_cells(G, B, Chars),
    atom_chars(Text, Chars).

mark_char(x).
mark_char(o).
mark_char('.').

game:parse_position(G, Text, B, Mover) :-
    params(G, _, W, H),
    atom_string(A, Text),
    downcase_atom(A, L),
    normalize_space(atom(N), L),
    atomic_list_concat(Rows, /, N),
    (   length(Rows, H),
        maplist(row_marks(W), Rows, Marks)
    ->  true
    ;   bad(G, Text, "want ~d rows of ~d cells (x, o or .) from the top, separated by /", [H, W])
    ),
    append(Marks, Cells),
    B =.. [b|Cells],
    include(==(x), Cells, Xs), length(Xs, NX),
    include(==(o), Cells, Os), length(Os, NO),
    (   NX =:= NO -> Mover = x
    ;   NX =:= NO + 1 -> Mover = o
    ;   bad(G, Text, "~d x and ~d o cannot happen (x moves first)", [NX, NO])
    ),
    (   has_line(G, B, x), has_line(G, B, o)
    ->  bad(G, Text, "both sides have a line, which cannot happen", [])
    ;   has_line(G, B, Mover)
    ->  bad(G, Text, "~w has a line but did not move last", [Mover])
    ;   true
    ).

bad(G, Text, Format, Args) :-
    game:shown(Text, Q),
    format(atom(Why), Format, Args),
    format(atom(M), "bad ~w position ~w: ~w", [G, Q, Why]),
    game:bad_input(M).

game:parse_move(G, Text, Move) :-
    params(G, _, W, H),
    Max is W * H, What = cell,
    (   atom_string(A, Text), atom_number(A, Move), integer(Move), between(1, Max, Move)
    ->  true
    ;   game:shown(Text, Q),
        format(atom(M), "bad ~w move ~w: want a ~w 1-~d", [G, Q, What, Max]),
        game:bad_input(M)
    ).

game:move_text(G, Move, Text) :- params(G, _, _, _), atom_number(Text, Move).

game:board_lines(G, B, _, Lines) :-
    params(G, _, W, H),
    S is W * H,
    Wide is max(2, floor(log10(S)) + 2),
    findall(Line, ( between(1, H, Y),
                    findall(T, ( between(1, W, X), cell(W, X, Y, I), arg(I, B, V), show(V, I, T) ), Ts),
                    pad_all(Ts, Wide, Line) ),
            Rows),
    Lines = Rows.

show(x, _, 'X') :- !.
show(o, _, 'O') :- !.
show('.', I, I).

%   A row of the text form as its W marks (x, o or .).
row_marks(W, Row, Cs) :- atom_chars(Row, Cs), length(Cs, W), maplist(mark_char, Cs).

%   Items right-aligned in columns of Wide, as one string (spaces taken from
%   an atom: a format/3 an item and a lambda made board_lines/4 the slowest
%   thing `check` did on Connect Four).
pad_all(Items, Wide, Line) :-
    maplist(padded(Wide), Items, Ps),
    atomic_list_concat(Ps, Line0),
    atom_string(Line0, Line).

padded(Wide, T, P) :-
    atom_length(T, L),
    N is max(0, Wide - L),
    (   N =< 16
    ->  sub_atom('                ', 0, N, _, Spaces), atom_concat(Spaces, T, P)
    ;   format(atom(P), "~t~w~*|", [T, Wide])
    ).
