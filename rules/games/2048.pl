/*  2048, a family: '2048(Rows,Columns)', plain `2048` = '2048(4,4)'.
    The rules of Gabriele Cirulli's original game (2014): one player
    slides every tile toward one side (up, down, left or right); two equal
    tiles that meet merge into one of twice the value, once per move, the
    pair nearest that side first, and the merged value is added to the
    score.  A move that changes nothing is not a move.  After every move a
    new tile appears on an empty cell chosen uniformly: a 2 with
    probability 0.9, a 4 with 0.1.  The game starts with two such tiles on
    an empty board and ends when no move changes the board.

    A game of score (one player) and of chance in the protocol's form
    (rules/game.pl): the player's moves score points/5 (the merged
    values), the end adds nothing (over/4 gives score(0)), and a new tile
    is a move of `chance`, whose outcomes weigh 9 (a 2) and 1 (a 4) on
    each empty cell.

    Position: pos(Cells), the tiles row by row from the top left as
    exponents (0 an empty cell, 1 a 2, 2 a 4, ... 11 the 2048 tile).  Text
    form: the rows top to bottom, cells joined by `,` ('.' empty), rows by
    `/`: '2,.,4/.,.,8'; while a tile is to appear it ends in ' tile'.
    Moves: up, down, left, right; chance's: Value@Cell, '2@5' (a 2 on the
    fifth cell, row by row from the top left).

        ?- G = '2048(2,2)', initial(G, P, M), legal(G, P, M, Mv).
*/
:- module(g2048, []).

named('2048').
named('2048(2,2)').
named('2048(2,3)').
named('2048(3,3)').

:- dynamic known/3, foreign/1.

%   The board a name gives: 2048 = 4 x 4; '2048(R,C)' with 1 to 8 rows
%   and columns and at least two cells.
params(G, Rows, Columns) :-
    (   known(G, R0, C0)
    ->  Rows = R0, Columns = C0
    ;   foreign(G)
    ->  fail
    ;   G == '2048'
    ->  assertz(known(G, 4, 4)), Rows = 4, Columns = 4
    ;   atom(G),
        atom_concat('2048(', Rest, G),
        atom_concat('f(', Rest, Term),
        catch(term_to_atom(f(R0, C0), Term), _, fail),
        integer(R0), between(1, 8, R0),
        integer(C0), between(1, 8, C0),
        R0 * C0 >= 2
    ->  assertz(known(G, R0, C0)), Rows = R0, Columns = C0
    ;   atom(G), assertz(foreign(G)), fail
    ).

game:game(G) :- ( var(G) -> named(G) ; params(G, _, _) ).
game:players(G, [player]) :- params(G, _, _).
game:initial(G, pos(Cells), chance) :-
    params(G, R, C),
    N is R * C,
    length(Cells, N),
    maplist(=(0), Cells).

game:legal(G, pos(Cells), player, Move) :-
    params(G, R, C),
    slide(R, C, Cells, Move, Cells1, _),
    Cells1 \== Cells.
%   Every move the player can ever make, numbered in this order by the
%   environments of the field (educable.env, gym_env, openspiel_game):
%   the four slides; where the tiles appear is chance's, numbered apart.
game:actions(G, [down, left, right, up]) :- params(G, _, _).
game:chance_actions(G, Tiles) :-
    params(G, R, C),
    N is R * C,
    findall(tile(V, Cell), ( member(V, [2, 4]), between(1, N, Cell) ), Tiles).

game:legal(G, pos(Cells), chance, tile(V, Cell)) :-
    params(G, _, _),
    nth1(Cell, Cells, 0),
    member(V, [2, 4]).

game:chance_weight(G, _, tile(2, _), 9) :- params(G, _, _).
game:chance_weight(G, _, tile(4, _), 1) :- params(G, _, _).

game:next(G, pos(Cells), player, Move, pos(Cells1)) :-
    params(G, R, C),
    slide(R, C, Cells, Move, Cells1, _).
game:next(G, pos(Cells), chance, tile(V, Cell), pos(Cells1)) :-
    params(G, _, _),
    ( V =:= 2 -> E = 1 ; E = 2 ),
    replace(Cells, Cell, E, Cells1).

%   After the player, a tile appears; after a tile, the player moves,
%   but for the opening's first tile, after which a second appears.
game:next_mover(G, _, Mover, pos(Cells1), Next) :-
    params(G, _, _),
    (   Mover == player
    ->  Next = chance
    ;   tiles_below(Cells1, 2, 0, 1)
    ->  Next = chance
    ;   Next = player
    ).

%   tiles_below(+Cells, +Limit, +Count0, -Count): the tiles on the board,
%   counted up to Limit (the opening is the board of one tile).
tiles_below([], _, N, N).
tiles_below([C|Cs], Limit, N0, N) :-
    (   C =:= 0 -> N1 = N0 ; N1 is N0 + 1 ),
    (   N1 >= Limit -> N = N1 ; tiles_below(Cs, Limit, N1, N) ).

game:points(G, pos(Cells), player, Move, Points) :-
    params(G, R, C),
    slide(R, C, Cells, Move, _, Points).

%   The board's symmetries: its mirror images (and on a square board its
%   turns and diagonal mirrors); the rules slide alike in every one.
game:symmetry(G, pos(Cells), pos(Cells1)) :-
    params(G, R, C),
    images(R, C, Images),
    member(Image, Images),
    Board =.. [b|Cells],
    maplist(cell_at(Board), Image, Cells1).

%   images(+R, +C, -Images): for each symmetry, the cell (numbered from 1)
%   each cell of the image is taken from; worked out once a board size.
:- table images/3.
images(R, C, Images) :-
    R1 is R - 1, C1 is C - 1,
    findall(Image,
            ( member(T, [id, h, v, hv, t, th, tv, thv]),
              ( memberchk(T, [t, th, tv, thv]) -> R =:= C ; true ),
              findall(I, ( between(0, R1, Y), between(0, C1, X), source(T, R1, C1, Y, X, SY, SX),
                           I is SY * C + SX + 1 ), Image) ),
            Images).

source(id, _, _, Y, X, Y, X).
source(h, _, C1, Y, X, Y, SX) :- SX is C1 - X.
source(v, R1, _, Y, X, SY, X) :- SY is R1 - Y.
source(hv, R1, C1, Y, X, SY, SX) :- SY is R1 - Y, SX is C1 - X.
source(t, _, _, Y, X, X, Y).
source(th, R1, _, Y, X, SY, Y) :- SY is R1 - X.
source(tv, _, C1, Y, X, X, SX) :- SX is C1 - Y.
source(thv, R1, C1, Y, X, SY, SX) :- SY is R1 - X, SX is C1 - Y.

game:over(G, pos(Cells), player, score(0)) :-
    params(G, R, C),
    \+ ( slide(R, C, Cells, _, Cells1, _), Cells1 \== Cells ).

%   slide(+Rows, +Columns, +Cells, ?Move, -Cells1, -Points): the board after
%   sliding toward Move's side, and the merged values added up (each of the
%   four in turn where Move is unbound).
slide(R, C, Cells, Move, Cells1, Points) :-
    slides(R, C, Cells, Slides),
    (   var(Move) -> member(Move-(Cells1-Points), Slides) ; memberchk(Move-(Cells1-Points), Slides) ).

%   slides(+Rows, +Columns, +Cells, -Slides): Move-(Cells1-Points) for the
%   four slides of a board.  A step asks them of one board many times (is
%   the game over, which moves are legal, where does one lead, what does
%   it score), so the last board's four are kept (one global variable a
%   thread, replaced by the next board: nothing grows).
slides(R, C, Cells, Slides) :-
    (   nb_current(g2048_slides, slides(R, C, Cells0, Slides0)), Cells0 == Cells
    ->  Slides = Slides0
    ;   direction_lines(R, C, Directions),
        Board =.. [b|Cells],
        N is R * C,
        slide_each(Directions, Board, N, Slides),
        nb_setval(g2048_slides, slides(R, C, Cells, Slides))
    ).

%   Written with first-argument indexing and arg/3 alone (no maplist,
%   foldl or sort): the slides are most of what an environment's step costs.
slide_each([], _, _, []).
slide_each([Move-Lines|Directions], Board, N, [Move-(Cells1-Points)|Slides]) :-
    functor(Slid, b, N),
    slide_lines(Lines, Board, Slid, 0, Points),
    Slid =.. [b|Cells1],
    slide_each(Directions, Board, N, Slides).

%   direction_lines(+R, +C, -Directions): Move-Lines for up, down, left and
%   right, worked out once a board size and kept in a global variable (read
%   without a copy, unlike a fact).
direction_lines(R, C, Directions) :-
    (   nb_current(g2048_lines, lines(R, C, Known))
    ->  Directions = Known
    ;   findall(Move-Lines, ( member(Move, [up, down, left, right]), index_lines(Move, R, C, Lines) ), Directions),
        nb_setval(g2048_lines, lines(R, C, Directions))
    ).

slide_lines([], _, _, P, P).
slide_lines([Indices|Lines], Board, Slid, P0, P) :-
    tiles_at(Indices, Board, Tiles),
    merge(Tiles, Merged, 0, Gained),
    P1 is P0 + Gained,
    place(Indices, Merged, Slid),
    slide_lines(Lines, Board, Slid, P1, P).

%   The line's tiles in order from the side, empty cells left out.
tiles_at([], _, []).
tiles_at([I|Is], Board, Tiles) :-
    arg(I, Board, V),
    (   V == 0 -> Tiles = Rest ; Tiles = [V|Rest] ),
    tiles_at(Is, Board, Rest).

%   The merged tiles into the line's cells from the side, the rest empty.
place([], _, _).
place([I|Is], [V|Vs], Slid) :- !, arg(I, Slid, V), place(Is, Vs, Slid).
place([I|Is], [], Slid) :- arg(I, Slid, 0), place(Is, [], Slid).

cell_at(Board, I, V) :- arg(I, Board, V).

%   The pair nearest the side first; a merged tile merges no more this move.
merge([], [], P, P).
merge([A], [A], P, P) :- !.
merge([A, A|T], [A1|M], P0, P) :- !,
    A1 is A + 1,
    P1 is P0 + (1 << A1),
    merge(T, M, P1, P).
merge([A|T], [A|M], P0, P) :- merge(T, M, P0, P).

%   index_lines(+Move, +R, +C, -Lines): the board's lines as cell numbers
%   (row by row from 1), each listed from the side the tiles move toward;
%   worked out once a board size (direction_lines/3).
index_lines(Move, R, C, Lines) :-
    R1 is R - 1, C1 is C - 1,
    (   memberchk(Move, [left, right])
    ->  findall(L, ( between(0, R1, Y), findall(I, ( between(0, C1, X), I is Y * C + X + 1 ), L) ), Lines0)
    ;   findall(L, ( between(0, C1, X), findall(I, ( between(0, R1, Y), I is Y * C + X + 1 ), L) ), Lines0)
    ),
    (   memberchk(Move, [right, down]) -> maplist(reverse_of, Lines0, Lines) ; Lines = Lines0 ).

reverse_of(L, R) :- reverse(L, R).

length_is(N, L) :- length(L, N).

replace([_|T], 1, E, [E|T]) :- !.
replace([H|T], N, E, [H|T1]) :- N1 is N - 1, replace(T, N1, E, T1).

%   The text is joined in one atomic_list_concat/2 of the tiles' texts and
%   the separators (an environment's step writes one a move).
game:position_text(G, pos(Cells), Mover, Text) :-
    params(G, _, C),
    board_parts(Cells, 1, C, Parts),
    (   Mover == chance -> append(Parts, [' tile'], All) ; All = Parts ),
    atomic_list_concat(All, Text).

board_parts([E], _, _, [T]) :- !, tile_text(E, T).
board_parts([E|Es], I, C, [T, Sep|Parts]) :-
    tile_text(E, T),
    (   I =:= C -> Sep = /, I1 = 1 ; Sep = ',', I1 is I + 1 ),
    board_parts(Es, I1, C, Parts).

rows(R, C, Cells, Rows) :-
    length(Rows, R),
    maplist(length_is(C), Rows),
    append(Rows, Cells).

%   A tile's text: '.' for an empty cell, else its value (the powers a
%   board can hold listed once, first-argument indexed).
tile_text(E, T) :- ( tile_atom(E, T0) -> T = T0 ; V is 1 << E, atom_number(T, V) ).

:- dynamic tile_atom/2.
:- initialization(( retractall(tile_atom(_, _)),          % (the file loaded again: listed once still)
                    assertz(tile_atom(0, '.')),
                    forall(between(1, 65, E), ( V is 1 << E, atom_number(A, V), assertz(tile_atom(E, A)) )) )).

game:parse_position(G, Text, pos(Cells), Mover) :-
    params(G, R, C),
    atom_string(A, Text),
    normalize_space(atom(Norm), A),
    (   atom_concat(Board, ' tile', Norm) -> Mover = chance ; Board = Norm, Mover = player ),
    atomic_list_concat(RowTexts, /, Board),
    (   length(RowTexts, R),
        Largest is 1 << (R * C + 1),           % the largest tile a board of R x C cells can hold
        maplist(parse_row(C, Largest), RowTexts, Rows)
    ->  append(Rows, Cells)
    ;   game:shown(Text, Q),
        format(atom(M), "bad ~w position ~w: want ~d rows of ~d cells, top to bottom, cells joined by ',' ('.' empty, else a tile: 2, 4, 8, ...), rows by '/', e.g. ~w ('... tile' while a tile is to appear)",
               [G, Q, R, C, '\'2,./.,4\'']),
        game:bad_input(M)
    ),
    include(\==(0), Cells, Tiles),
    length(Tiles, NT),
    (   Mover == player, NT < 2
    ->  game:shown(Text, Q),
        format(atom(M), "bad ~w position ~w: the player moves once two tiles are on the board", [G, Q]),
        game:bad_input(M)
    ;   Mover == chance, \+ memberchk(0, Cells)
    ->  game:shown(Text, Q),
        format(atom(M), "bad ~w position ~w: a tile appears only where a cell is empty", [G, Q]),
        game:bad_input(M)
    ;   true
    ).

parse_row(C, Largest, Text, Row) :-
    atomic_list_concat(Ts, ',', Text),
    length(Ts, C),
    maplist(parse_tile(Largest), Ts, Row).

parse_tile(_, '.', 0) :- !.
parse_tile(Largest, T, E) :-
    atom_number(T, V), integer(V), V >= 2, V =< Largest,
    E is msb(V), V =:= 1 << E.

game:parse_move(G, Text, Move) :-
    atom(Text), memberchk(Text, [up, down, left, right]), params(G, _, _), !,   % as the moves' texts: at once
    Move = Text.
game:parse_move(G, Text, Move) :-
    params(G, R, C),
    atom_string(A, Text),
    normalize_space(atom(N), A),
    downcase_atom(N, L),
    (   memberchk(L-Move0, [up-up, u-up, down-down, d-down, left-left, l-left, right-right, r-right])
    ->  Move = Move0
    ;   atomic_list_concat([VT, CT], @, L),
        atom_number(VT, V), memberchk(V, [2, 4]),
        atom_number(CT, Cell), integer(Cell), Cell >= 1, Cell =< R * C
    ->  Move = tile(V, Cell)
    ;   game:shown(Text, Q),
        format(atom(M), "bad ~w move ~w: want up, down, left or right (u, d, l, r); a new tile is 2@CELL or 4@CELL", [G, Q]),
        game:bad_input(M)
    ).

game:move_text(G, Move, Text) :-
    params(G, _, _),
    (   Move = tile(V, Cell) -> format(atom(Text), "~d@~d", [V, Cell]) ; Text = Move ).

game:board_lines(G, pos(Cells), Mover, Lines) :-
    params(G, R, C),
    rows(R, C, Cells, Rows),
    maplist(board_row, Rows, Drawn),
    (   Mover == chance -> Last = "a tile appears" ; Last = "player to move" ),
    append(Drawn, [Last], Lines).

board_row(Row, Line) :-
    maplist(board_cell, Row, Cs),
    atomic_list_concat(Cs, Line0),
    atom_string(Line0, Line).

board_cell(E, Cell) :-
    tile_text(E, T),
    format(atom(Cell), "~t~w~6|", [T]).

%   The page draws the board as 2048's tiles: cells/4 gives each cell's
%   tile as the position holds it, a power of two (0 empty, 1 a 2, 2 a 4,
%   ...), row by row from the top; the arrow keys play the moves.
game:cells(G, pos(Cells), _, Cells) :-
    params(G, _, _).

game:layout(G, C, top) :- params(G, _, C).
game:drawn_as(G, tiles(R, C)) :- params(G, R, C).
%   A tile's power runs to R x C + 1 (the largest tile a board can hold).
game:cell_values(G, V) :- params(G, R, C), V is R * C + 2.
