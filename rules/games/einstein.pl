/*  EinStein würfelt nicht! (Ingo Althöfer, 2004), a family: einstein(Size),
    plain `einstein` = einstein(5), as Thill and Konen's GBG plays it
    (WolfgangKonen/GBG, src/games/EWN): two players, x from the top left
    corner and o from the bottom right, each with numbered pieces (six on
    the 5x5 board, three on 3x3 and 4x4) in GBG's fixed starting places.
    A turn starts with a die (six faces; three on 3x3); the player must
    move the piece with that number, or where it is gone, the nearest
    number above or below that is still on the board (either, when both
    are as near).  A piece steps one square toward the opponent's corner:
    x right, down or diagonally down-right, o left, up or up-left; a piece
    on the square it steps to, of either player, is taken off.  A player
    wins by reaching the opponent's corner or by taking every opposing
    piece.

    A game of chance in the protocol's form (rules/game.pl): each turn
    begins with a move of `chance`, the die's faces, equally likely.
    Pieces only move forward, so no position comes back.

    Position: pos(Cells, Turn, Die): the squares row by row from the top
    left (e for empty, t(Player, Number)), whose turn it is, and the die
    (0 before it is read).  Text form: the rows top to bottom, squares
    joined by ',' ('.' empty, x1 for x's piece 1), rows by '/', then whose
    turn and the die: 'x1,x3,./x2,.,o2/.,o3,o1 x 2'; before the die is read,
    'x rolls' instead.  Moves: From-To, squares numbered row by row from the
    top left ('1-5'); chance's: the die's face.

        ?- G = 'einstein(3)', initial(G, P, M), legal(G, P, M, Mv).
*/
:- module(einstein, []).

named(einstein).
named('einstein(3)').
named('einstein(4)').

:- dynamic known/3, foreign/1.

%   The board's size, the pieces a player has and the die's faces a name
%   gives: einstein = einstein(5); einstein(3) and einstein(4) as GBG.
params(G, Size, Pieces, Faces) :-
    (   known(G, S0, F0)
    ->  Size = S0, Faces = F0
    ;   foreign(G)
    ->  fail
    ;   G == einstein
    ->  assertz(known(G, 5, 6)), Size = 5, Faces = 6
    ;   atom(G),
        sub_atom(G, 0, 9, _, 'einstein('),
        catch(term_to_atom(T, G), _, fail),
        T = einstein(S0), integer(S0), memberchk(S0, [3, 4, 5])
    ->  ( S0 =:= 3 -> F0 = 3 ; F0 = 6 ),
        assertz(known(G, S0, F0)), Size = S0, Faces = F0
    ;   atom(G), assertz(foreign(G)), fail
    ),
    ( Size =:= 5 -> Pieces = 6 ; Pieces = 3 ).

%   GBG's starting places of x's pieces (row, column from 0, number);
%   o's are the same turned half round.
start(3, [0-0-1, 0-1-3, 1-0-2]).
start(4, [0-0-1, 0-1-3, 1-0-2]).
start(5, [0-0-1, 0-1-3, 0-2-6, 1-0-2, 1-1-5, 2-0-4]).

game:game(G) :- ( var(G) -> named(G) ; params(G, _, _, _) ).

%   The 5x5 board is for the learners: enumerating it passed the default
%   limit of 5,000,000 positions (about 10 GB and 10 minutes), so commands
%   that need every position say at once that it is too large.
game:size_at_least(einstein, 5000001).
game:players(G, [x, o]) :- params(G, _, _, _).
game:initial(G, pos(Cells, x, 0), chance) :-
    params(G, S, _, _),
    start(S, Places),
    N is S * S,
    numlist(1, N, Is),
    maplist(start_cell(S, Places), Is, Cells).

start_cell(S, Places, I, Cell) :-
    R is (I - 1) // S, C is (I - 1) mod S,
    R1 is S - 1 - R, C1 is S - 1 - C,
    (   memberchk(R-C-V, Places) -> Cell = t(x, V)
    ;   memberchk(R1-C1-V, Places) -> Cell = t(o, V)
    ;   Cell = e
    ).

game:legal(G, pos(_, _, 0), chance, Face) :-
    params(G, _, _, Faces),
    between(1, Faces, Face).
%   Every move a player can ever make, numbered in this order by the
%   environments of the field: each square to each square a piece of x or
%   of o may step to from it (the die's faces are chance's, apart).
game:actions(G, Moves) :-
    params(G, S, _, _),
    N is S * S,
    findall(From-To, ( between(1, N, From), ( step_to(x, S, From, To) ; step_to(o, S, From, To) ) ), Moves0),
    sort(Moves0, Moves).

game:chance_actions(G, Faces) :- params(G, _, _, F), numlist(1, F, Faces).

game:legal(G, pos(Cells, T, D), T, From-To) :-
    D > 0,
    params(G, S, _, _),
    movable(Cells, T, D, Numbers),
    member(V, Numbers),
    nth1(From, Cells, t(T, V)),
    step_to(T, S, From, To).

%   The numbers the die lets T move: D's piece, else the nearest above and
%   below still on the board.
movable(Cells, T, D, Numbers) :-
    findall(V, member(t(T, V), Cells), Vs),
    (   memberchk(D, Vs)
    ->  Numbers = [D]
    ;   findall(Dist-V, ( member(V, Vs), Dist is abs(V - D) ), Pairs),
        keysort(Pairs, [Near-_|_]),
        findall(V, member(Near-V, Pairs), Numbers)
    ).

%   The squares a piece on From steps to: x right, down, down-right; o the
%   other way.
step_to(x, S, From, To) :-
    R is (From - 1) // S, C is (From - 1) mod S,
    member(DR-DC, [0-1, 1-0, 1-1]),
    R1 is R + DR, C1 is C + DC, R1 < S, C1 < S,
    To is R1 * S + C1 + 1.
step_to(o, S, From, To) :-
    R is (From - 1) // S, C is (From - 1) mod S,
    member(DR-DC, [0-1, 1-0, 1-1]),
    R1 is R - DR, C1 is C - DC, R1 >= 0, C1 >= 0,
    To is R1 * S + C1 + 1.

game:next(G, pos(Cells, T, 0), chance, Face, pos(Cells, T, Face)) :-
    params(G, _, _, _).
game:next(G, pos(Cells, T, D), T, From-To, pos(Cells2, O, 0)) :-
    D > 0,
    params(G, _, _, _),
    nth1(From, Cells, Piece),
    set_cell(Cells, From, e, Cells1),
    set_cell(Cells1, To, Piece, Cells2),
    other(T, O).

%   After the die, the player whose turn it is; after a move, the die.
game:next_mover(G, _, _, pos(_, T1, D1), Next) :-
    params(G, _, _, _),
    ( D1 =:= 0 -> Next = chance ; Next = T1 ).

other(x, o).
other(o, x).

set_cell([_|T], 1, E, [E|T]) :- !.
set_cell([H|T], N, E, [H|T1]) :- N1 is N - 1, set_cell(T, N1, E, T1).

game:over(G, pos(Cells, _, _), _, Winner) :-
    params(G, S, _, _),
    N is S * S,
    (   nth1(N, Cells, t(x, _)) -> Winner = x
    ;   Cells = [t(o, _)|_] -> Winner = o
    ;   \+ memberchk(t(o, _), Cells) -> Winner = x
    ;   \+ memberchk(t(x, _), Cells) -> Winner = o
    ).

game:position_text(G, pos(Cells, T, D), _, Text) :-
    params(G, S, _, _),
    rows(S, Cells, Rows),
    maplist(row_text, Rows, RowTexts),
    atomic_list_concat(RowTexts, /, Board),
    (   D =:= 0
    ->  atomic_list_concat([Board, T, rolls], ' ', Text)
    ;   atomic_list_concat([Board, T, D], ' ', Text)
    ).

%   The squares as S rows of S, from the top.
rows(S, Cells, Rows) :-
    length(Rows, S),
    maplist(length_is(S), Rows),
    append(Rows, Cells).

length_is(N, L) :- length(L, N).

row_text(Row, Text) :-
    maplist(cell_text, Row, Ts),
    atomic_list_concat(Ts, ',', Text).

cell_text(e, '.').
cell_text(t(P, V), T) :- atomic_list_concat([P, V], T).

game:parse_position(G, Text, pos(Cells, T, D), Mover) :-
    params(G, S, Pieces, Faces),
    atom_string(A, Text),
    normalize_space(atom(Norm), A),
    atomic_list_concat(Parts, ' ', Norm),
    (   Parts = [Board, T, Last],
        memberchk(T, [x, o]),
        (   Last == rolls -> D = 0, Mover = chance
        ;   atom_number(Last, D), integer(D), between(1, Faces, D), Mover = T
        ),
        atomic_list_concat(RowTexts, /, Board),
        length(RowTexts, S),
        maplist(parse_row(S, Pieces), RowTexts, Rows)
    ->  append(Rows, Cells)
    ;   game:shown(Text, Q),
        format(atom(M), "bad ~w position ~w: want ~d rows of ~d squares joined by ',' ('.' empty, x1 or o1 for a piece), rows by '/', then whose turn and the die (1-~d) or 'rolls', e.g. 'x1,x3,./x2,.,o2/.,o3,o1 x rolls'",
               [G, Q, S, S, Faces]),
        game:bad_input(M)
    ),
    (   member(P, [x, o]), findall(V, member(t(P, V), Cells), Vs), sort(Vs, Set), length(Vs, N1), length(Set, N2), N1 =\= N2
    ->  game:shown(Text, Q),
        format(atom(M), "bad ~w position ~w: a player has each numbered piece at most once", [G, Q]),
        game:bad_input(M)
    ;   true
    ).

parse_row(S, Pieces, Text, Row) :-
    atomic_list_concat(Ts, ',', Text),
    length(Ts, S),
    maplist(parse_cell(Pieces), Ts, Row).

parse_cell(_, '.', e) :- !.
parse_cell(Pieces, T, t(P, V)) :-
    sub_atom(T, 0, 1, _, P), memberchk(P, [x, o]),
    sub_atom(T, 1, _, 0, VT), atom_number(VT, V), integer(V), between(1, Pieces, V).

game:parse_move(G, Text, Move) :-
    params(G, S, _, Faces),
    atom_string(A, Text),
    normalize_space(atom(N), A),
    N2 is S * S,
    (   atomic_list_concat([FT, TT], -, N),
        atom_number(FT, From), atom_number(TT, To),
        integer(From), integer(To), between(1, N2, From), between(1, N2, To)
    ->  Move = From-To
    ;   atom_number(N, F), integer(F), between(1, Faces, F)
    ->  Move = F
    ;   game:shown(Text, Q),
        format(atom(M), "bad ~w move ~w: want From-To, the squares numbered 1-~d row by row from the top left (or the die's face, 1-~d)", [G, Q, N2, Faces]),
        game:bad_input(M)
    ).

game:move_text(G, Move, Text) :-
    params(G, _, _, _),
    (   Move = From-To -> format(atom(Text), "~d-~d", [From, To]) ; atom_number(Text, Move) ).

game:board_lines(G, pos(Cells, T, D), _, Lines) :-
    params(G, S, _, _),
    rows(S, Cells, Rows),
    maplist(board_row, Rows, Drawn),
    (   D =:= 0 -> format(string(Last), "~w rolls the die", [T]) ; format(string(Last), "~w to move, the die shows ~d", [T, D]) ),
    append(Drawn, [Last], Lines).

board_row(Row, Line) :-
    maplist(board_cell, Row, Cs),
    atomic_list_concat(Cs, ' ', Line0),
    atom_string(Line0, Line).

board_cell(e, ' .').
board_cell(t(P, V), C) :- format(atom(C), "~w~d", [P, V]).

%   The board as Mover sees it, one cell a square row by row from the top
%   left: 0 empty, 1 Mover's piece, 2 the opponent's (rules/game.pl's cells/4).
game:cells(G, pos(Cells, _, _), Mover, Out) :-
    params(G, _, _, _),
    maplist(owner_cell(Mover), Cells, Out).

owner_cell(_, e, 0) :- !.
owner_cell(Me, t(Me, _), 1) :- !.
owner_cell(_, _, 2).

%   What the n-tuple learner reads: which piece stands on a square, Mover's
%   piece N as N, the opponent's as Pieces + N (the die chooses by number).
game:tuple_cells(G, pos(Cells, _, _), Mover, Out) :-
    params(G, _, Pieces, _),
    maplist(piece_cell(Mover, Pieces), Cells, Out).

piece_cell(_, _, e, 0) :- !.
piece_cell(Me, _, t(Me, N), N) :- !.
piece_cell(_, Pieces, t(_, N), V) :- V is Pieces + N.

game:layout(G, Size, top) :- params(G, Size, _, _).
game:drawn_as(G, dice(Faces)) :- params(G, _, _, Faces).
game:cell_values(G, 3) :- params(G, _, _, _).      % cells/4: 0 empty, 1 the mover's, 2 the opponent's
