/*  connect(N, W, H): N in a row on a W x H board with gravity, on bitboards.

    connect(4, 7, 6) is Connect Four, connect(3, 4, 4) connect-three on
    4x4.  Players x (first) and o drop a piece into a column that is not
    full; a move is the column number, 1..W.  N of one's own in a row
    (across, down or diagonally) wins; a full board is a draw.

    Position: p(Key, X, O).  X and O are each player's pieces as one
    integer, a bit a cell: the cell in row R (0 the bottom row) and column
    C (0 the leftmost) is bit R * (W + 1) + C, so that every row ends in a
    bit that is always 0 and no shift carries a line from one row into the
    next.  A line of N is then N - 1 shifts and ands a direction, dropping
    a piece one add, and the n-tuple learner reads the cells a row at a
    time from tables.  Key is the whole board in base 4, the top left cell
    the most significant digit ('.' 0, o 1, x 2): it decides the standard
    order of positions, so that a class's key (the least of its images)
    is the one the board term b(C1, ..., Cwh) of earlier versions chose
    and stored knowledge keeps its keys.

    Text form: the rows top to bottom, x/o/., separated by '/', e.g.
    '..../..../x.../xo..'; the side to move follows from the counts.
    Symmetry: the left-right mirror.  cells/4 and tuple_cells/4: row by
    row from the top left.

        ?- G = 'connect(3,4,4)', initial(G, P, M), legal(G, P, M, Col).
*/
:- module(connect, []).
:- set_prolog_flag(optimise, true).       % arithmetic compiled inline: this file is all arithmetic

named('connect(3,4,4)').
named('connect(4,7,6)').

:- dynamic known/2.        % known(Game, geo(N, W, H, Stride, RowMask, Full, Low, Floor, RowMask4))
:- dynamic move_geo/5.     % move_geo(Game, W, Stride, TopShift, Column0): what legal/4 and next/5 read
:- dynamic end_geo/4.      % end_geo(Game, N, Stride, Full): what over/4 reads
:- dynamic view_geo/6.     % view_geo(Game, W, H, Low, Floor, RowMask4): what cells/4 and tuple_cells/4 read
:- dynamic foreign/1.      % foreign(Game): a name that is not connect(N, W, H)
:- dynamic spread/3.       % spread(W, Mask, Digits): a row's bits as base-4 digits (0/1), column 0 most significant
:- dynamic row_digits/4.   % row_digits(W, Code, Digits, Tail): a row's base-4 code as its W digits
:- dynamic row_chars/4.    % row_chars(W, Code, Chars, Tail): the same as '.', o, x
:- dynamic reversed/3.     % reversed(W, Mask, Mirror): a row's bits right to left

%   Rows up to this wide are read from tables (4^W clauses); wider ones cell by cell.
table_width(8).

%   The game's name (an atom such as 'connect(4,7,6)') and its geometry.
geo(G, Geo) :-
    (   known(G, Geo0)
    ->  Geo = Geo0
    ;   \+ atom(G)
    ->  fail
    ;   foreign(G)
    ->  fail
    ;   \+ sub_atom(G, 0, _, _, 'connect(')
    ->  assertz(foreign(G)), fail
    ;   catch(term_to_atom(T, G), _, fail),
        T = connect(N, W, H),
        integer(N), integer(W), integer(H),
        N >= 2, W >= 1, H >= 1, W * H =< 64, ( N =< W ; N =< H )
    ->  with_mutex(connect, define(G, N, W, H)),
        known(G, Geo)
    ).

define(G, N, W, H) :-
    (   known(G, _)
    ->  true
    ;   S is W + 1,
        RowMask is (1 << W) - 1,
        Col0 is ((1 << (H * S)) - 1) // ((1 << S) - 1),    % bit 0 of every row: the first column
        Full is Col0 * RowMask,
        Top is (H - 1) * S,
        RowMask4 is (1 << (2 * W)) - 1,
        Floor is RowMask4 // 3,                             % base-4 digit 1 in each cell of a row
        Low is ((1 << (2 * W * H)) - 1) // 3,               % ... and of the board
        assertz(move_geo(G, W, S, Top, Col0)),
        assertz(end_geo(G, N, S, Full)),
        assertz(view_geo(G, W, H, Low, Floor, RowMask4)),
        assertz(known(G, geo(N, W, H, S, RowMask, Full, Low, Floor, RowMask4)))
    ).

spread_of(W, M, D) :-
    aggregate_all(sum(1 << (2 * (W - 1 - C))), ( between(1, W, C1), C is C1 - 1, M >> C /\ 1 =:= 1 ), D).

reverse_of(W, M, R) :-
    aggregate_all(sum(1 << (W - 1 - C)), ( between(1, W, C1), C is C1 - 1, M >> C /\ 1 =:= 1 ), R).

%   The last K base-4 digits of Code, the most significant first, ending in Tail.
digits_of(0, _, T, T) :- !.
digits_of(K, Code, [D|Ds], T) :-
    D is (Code >> (2 * (K - 1))) /\ 3,
    K1 is K - 1,
    digits_of(K1, Code, Ds, T).

char_of(0, '.').
char_of(1, o).
char_of(2, x).

%   The tables, each row worked out by arithmetic the first time it is asked and
%   remembered (rows up to table_width/1 wide; wider ones always by arithmetic).
%   Filled as they are asked, not all at once: the 16,384 rows of a board 7 wide
%   took every command that named connect(4,7,6) 0.1 s before any work.
spread_row(W, M, D) :-
    (   spread(W, M, D0) -> D = D0
    ;   spread_of(W, M, D), remember(W, spread(W, M, D))
    ).
reverse_row(W, M, R) :-
    (   reversed(W, M, R0) -> R = R0
    ;   reverse_of(W, M, R), remember(W, reversed(W, M, R))
    ).
digits_row(W, Code, Ds, T) :-
    (   row_digits(W, Code, Ds0, T0) -> Ds = Ds0, T = T0
    ;   digits_of(W, Code, Ds1, T1), remember(W, row_digits(W, Code, Ds1, T1)), Ds = Ds1, T = T1
    ).
chars_row(W, Code, Cs, T) :-
    (   row_chars(W, Code, Cs0, T0)
    ->  Cs = Cs0, T = T0
    ;   digits_of(W, Code, Ds, []), maplist(char_of, Ds, Chars), append(Chars, T1, Cs1),
        remember(W, row_chars(W, Code, Cs1, T1)), Cs = Cs1, T = T1
    ).

remember(W, Fact) :- ( table_width(Max), W =< Max -> assertz(Fact) ; true ).

%   Key from the two bitboards: row by row from the bottom, the least significant.
key_of(geo(_, W, H, S, RowMask, _, _, _, _), X, O, Key) :-
    key_rows(0, H, W, S, RowMask, X, O, 0, Key).

key_rows(R, H, _, _, _, _, _, Key, Key) :- R >= H, !.
key_rows(R, H, W, S, RowMask, X, O, Key0, Key) :-
    Shift is R * S,
    XR is (X >> Shift) /\ RowMask, OR is (O >> Shift) /\ RowMask,
    spread_row(W, XR, DX), spread_row(W, OR, DO),
    Key1 is Key0 + ((2 * DX + DO) << (2 * W * R)),
    R1 is R + 1,
    key_rows(R1, H, W, S, RowMask, X, O, Key1, Key).

game:game(G) :- ( var(G) -> named(G) ; geo(G, _) ).
game:players(G, [x, o]) :- geo(G, _).
game:initial(G, p(0, 0, 0), x) :- geo(G, _).

%   Connect Four's 4,531,985,219,092 positions (Edelkamp and Kissmann 2008;
%   OEIS A212693): never to be enumerated here.
game:size_at_least('connect(4,7,6)', 4531985219092).

%   The small facts the moves and views read, projections of geo/2 kept apart
%   so that a call copies only what it reads (a game is defined on first use).
moves_of(G, W, S, TopShift, Col0) :- move_geo(G, W, S, TopShift, Col0), !.
moves_of(G, W, S, TopShift, Col0) :- geo(G, _), move_geo(G, W, S, TopShift, Col0).

ends_of(G, N, S, Full) :- end_geo(G, N, S, Full), !.
ends_of(G, N, S, Full) :- geo(G, _), end_geo(G, N, S, Full).

views_of(G, W, H, Low, Floor, RowMask4) :- view_geo(G, W, H, Low, Floor, RowMask4), !.
views_of(G, W, H, Low, Floor, RowMask4) :- geo(G, _), view_geo(G, W, H, Low, Floor, RowMask4).

game:legal(G, p(_, X, O), _, Move) :-
    moves_of(G, W, _, TopShift, _),
    Occ is X \/ O,
    between(1, W, Move),
    Occ /\ (1 << (TopShift + Move - 1)) =:= 0.

game:next(G, p(K, X, O), Mover, Move, p(K1, X1, O1)) :-
    moves_of(G, W, S, _, Col0),
    Bottom is 1 << (Move - 1),
    In is (X \/ O) /\ (Col0 << (Move - 1)),
    New is ((In << S) \/ Bottom) /\ \In,
    Row is msb(New) // S,                           % 0: the bottom row
    Digit is 2 * (Row * W + W - Move),       % the cell's place in Key
    (   Mover == x
    ->  X1 is X \/ New, O1 = O, K1 is K + (2 << Digit)
    ;   O1 is O \/ New, X1 = X, K1 is K + (1 << Digit)
    ).

game:over(G, p(_, X, O), Mover, Result) :-
    ends_of(G, N, S, Full),
    (   Mover == x -> Last = o, B = O ; Last = x, B = X ),     % only the last mover can have a line
    (   line_in(B, N, S)
    ->  Result = Last
    ;   X \/ O =:= Full
    ->  Result = draw
    ).

%   B has N bits in a row across (shift 1), up (S) or diagonally (S + 1, S - 1).
line_in(B, N, S) :-
    (   along(N, B, 1) -> true
    ;   along(N, B, S) -> true
    ;   S1 is S + 1, along(N, B, S1) -> true
    ;   S0 is S - 1, along(N, B, S0)
    ).

%   N in a row along D.  Four: pairs, then pairs of pairs (two shifts where
%   run/4 takes three).
along(4, B, D) :- !,
    P is B /\ (B >> D),
    P /\ (P >> (2 * D)) =\= 0.
along(N, B, D) :-
    run(N, B, B, D).

run(1, _, M, _) :- !, M =\= 0.
run(K, B, M, D) :-
    M1 is M /\ (B >> ((K - 1) * D)),
    M1 =\= 0,
    K1 is K - 1,
    run(K1, B, M1, D).

game:line(G, L) :-
    geo(G, geo(N, W, H, _, _, _, _, _, _)),
    inarow:line_cells(N, W, H, L).

game:symmetry(G, P, P1) :-
    geo(G, Geo),
    (   P1 = P
    ;   P = p(_, X, O),
        mirror(Geo, X, XM), mirror(Geo, O, OM),
        key_of(Geo, XM, OM, KM),
        P1 = p(KM, XM, OM)
    ).

mirror(geo(_, W, H, S, RowMask, _, _, _, _), B, M) :-
    mirror_rows(0, H, W, S, RowMask, B, 0, M).

mirror_rows(R, H, _, _, _, _, M, M) :- R >= H, !.
mirror_rows(R, H, W, S, RowMask, B, M0, M) :-
    Shift is R * S,
    Row is (B >> Shift) /\ RowMask,
    reverse_row(W, Row, Rev),
    M1 is M0 \/ (Rev << Shift),
    R1 is R + 1,
    mirror_rows(R1, H, W, S, RowMask, B, M1, M).

%   cells/4: 0 empty, 1 the viewer's, 2 the other's.
game:cells(G, p(K, _, _), Mover, Cells) :-
    views_of(G, W, H, Low, Floor, RowMask4),
    view(W, H, Low, Floor, RowMask4, K, Mover, 0, Cells).

%   With gravity, the n-tuple learner also sees which empty cells a piece
%   can drop into next (3; the others 0), as Thill's Connect Four n-tuples
%   do: a threat on such a cell is the one that counts now.
game:tuple_cells(G, p(K, _, _), Mover, Cells) :-
    views_of(G, W, H, Low, Floor, RowMask4),
    view(W, H, Low, Floor, RowMask4, K, Mover, 1, Cells).

game:tuple_code(G, p(K, _, _), Mover, Code) :-
    views_of(G, W, _, Low, Floor, _),
    view_code(Low, Floor, W, K, Mover, 1, Code).

view(W, H, Low, Floor, RowMask4, K, Viewer, Reach, Cells) :-
    view_code(Low, Floor, W, K, Viewer, Reach, Code),
    Top is H - 1,
    view_rows(Top, W, RowMask4, Code, Cells).

view_code(Low, Floor, W, K, Viewer, Reach, Code) :-
    Occ is (K \/ (K >> 1)) /\ Low,
    (   Viewer == o -> Seen = K ; Seen is K xor (3 * Occ) ),
    (   Reach =:= 0 -> Code = Seen
    ;   Code is Seen + 3 * (\Occ /\ ((Occ << (2 * W)) \/ Floor) /\ Low)
    ).

view_rows(R, W, RowMask4, Code, Cells) :-
    RowCode is (Code >> (2 * W * R)) /\ RowMask4,
    (   R =:= 0
    ->  digits_row(W, RowCode, Cells, [])
    ;   digits_row(W, RowCode, Cells, Rest),
        R1 is R - 1,
        view_rows(R1, W, RowMask4, Code, Rest)
    ).

%   cells/4 in rows of W, the top row first (as show draws it).
game:layout(G, W, top) :- geo(G, geo(_, W, _, _, _, _, _, _, _)).
game:actions(G, Columns) :- geo(G, geo(_, W, _, _, _, _, _, _, _)), numlist(1, W, Columns).

%   cells/4 gives 0, 1 and 2: an environment sizes its observation's planes by this, not by
%   enumerating the board's every position (connect(3,4,4): 2.5 s to build).
game:cell_values(G, 3) :- geo(G, _).

%   A board set up by clicks: its rows, the top row first (the counts of x
%   and o say who moves; parse_position refuses a piece above a hole).
game:setup_text(G, Cells, _, Text) :-
    geo(G, geo(_, W, _, _, _, _, _, _, _)),
    game:rows_text(Cells, W, top, ['.', x, o], Text).

game:position_text(G, p(K, _, _), _, Text) :-
    views_of(G, W, H, _, _, RowMask4),
    Top is H - 1,
    text_rows(Top, W, RowMask4, K, Chars),
    atom_chars(Text, Chars).

text_rows(R, W, RowMask4, K, Chars) :-
    Code is (K >> (2 * W * R)) /\ RowMask4,
    (   R =:= 0
    ->  chars_row(W, Code, Chars, [])
    ;   chars_row(W, Code, Chars, ['/'|Rest]),
        R1 is R - 1,
        text_rows(R1, W, RowMask4, K, Rest)
    ).

game:parse_position(G, Text, p(K, X, O), Mover) :-
    geo(G, Geo),
    Geo = geo(N, W, H, S, _, _, _, _, _),
    atom_string(A, Text),
    downcase_atom(A, L),
    normalize_space(atom(Norm), L),
    atomic_list_concat(Rows, /, Norm),
    (   length(Rows, H),
        maplist(inarow:row_marks(W), Rows, Marks)
    ->  true
    ;   inarow:bad(G, Text, "want ~d rows of ~d cells (x, o or .) from the top, separated by /", [H, W])
    ),
    foldl(board_row(S), Marks, H-0-0, _-X-O),
    key_of(Geo, X, O, K),
    NX is popcount(X), NO is popcount(O),
    (   NX =:= NO -> Mover = x
    ;   NX =:= NO + 1 -> Mover = o
    ;   inarow:bad(G, Text, "~d x and ~d o cannot happen (x moves first)", [NX, NO])
    ),
    (   (X \/ O) >> S /\ \(X \/ O) =\= 0
    ->  inarow:bad(G, Text, "a piece cannot float above an empty cell", [])
    ;   line_in(X, N, S), line_in(O, N, S)
    ->  inarow:bad(G, Text, "both sides have a line, which cannot happen", [])
    ;   ( Mover == x -> line_in(X, N, S) ; line_in(O, N, S) )
    ->  inarow:bad(G, Text, "~w has a line but did not move last", [Mover])
    ;   true
    ).

%   One row of marks (the top row first) into the bitboards.
board_row(S, Cells, R0-X0-O0, R-X-O) :-
    R is R0 - 1,
    foldl(board_cell(S, R), Cells, 0-X0-O0, _-X-O).

board_cell(S, Row, Mark, C-X0-O0, C1-X-O) :-
    Bit is 1 << (Row * S + C),
    C1 is C + 1,
    (   Mark == x -> X is X0 \/ Bit, O = O0
    ;   Mark == o -> O is O0 \/ Bit, X = X0
    ;   X = X0, O = O0
    ).

game:parse_move(G, Text, Move) :-
    geo(G, geo(_, W, _, _, _, _, _, _, _)),
    (   atom_string(A, Text), atom_number(A, Move), integer(Move), between(1, W, Move)
    ->  true
    ;   game:shown(Text, Q),
        format(atom(M), "bad ~w move ~w: want a column 1-~d", [G, Q, W]),
        game:bad_input(M)
    ).

game:move_text(G, Move, Text) :- geo(G, _), atom_number(Text, Move).

drawn_cell(x, 'X') :- !.
drawn_cell(o, 'O') :- !.
drawn_cell(_, '.').

game:board_lines(G, P, M, Lines) :-
    geo(G, geo(_, W, H, _, _, _, _, _, _)),
    game:position_text(G, P, M, Text),
    atomic_list_concat(Rows, /, Text),
    Wide is max(2, floor(log10(W * H)) + 2),
    findall(Line, ( member(Row, Rows), atom_chars(Row, Cs),
                    maplist(drawn_cell, Cs, Ts),
                    inarow:pad_all(Ts, Wide, Line) ),
            Lines0),
    length(Lines0, H),
    numlist(1, W, Ns), inarow:pad_all(Ns, Wide, Foot),
    append(Lines0, [Foot], Lines).
