/*  Hexapawn on any board, a family: hexapawn(W, H) is played on W columns
    and H rows (W 2..8, H 3..8).  hexapawn(3, 3) is Gardner's hexapawn (the
    game `hexapawn`, with another text form); hexapawn(4, 4) is
    "octopawn".

    Each side has a pawn on every square of its home row: white on row 1,
    black on row H.  A pawn steps straight forward onto an empty square or
    captures diagonally forward; no double step, no en passant, no
    promotion.  A player wins by reaching the far row, by capturing every
    enemy pawn, or when the opponent has no move.  No draws.

    Squares are numbered 1..W*H row by row from white's home row, left to
    right (as in `hexapawn`: 1..3 is white's row on 3x3).  A move is
    From-To, written '2-6'.

    Position: b(S1, ..., Swh), each square w, b or '.'.  Text form: the
    rows from black's home row (top) down to white's, separated by '/',
    then the side to move: 'bbbb/..../..../wwww w' is the start of
    hexapawn(4,4).  Symmetry: the left-right mirror.

        ?- G = 'hexapawn(4,4)', initial(G, P, M), legal(G, P, M, Mv).
*/
:- module(pawns, []).

named('hexapawn(4,4)').

:- dynamic known/3.        % known(Game, W, H)
:- dynamic foreign/1.      % foreign(Game): a name that is not of this family
:- dynamic step/4.         % step(Game, Colour, From, To): straight forward
:- dynamic diagonal/4.     % diagonal(Game, Colour, From, To): a capture
:- dynamic far_row/3.      % far_row(Game, Colour, Square): reaching it wins
:- dynamic image_of/3.     % image_of(Game, Board, Mirrored)
:- dynamic text_cells/3.   % text_cells(Game, Board, Chars): top row first, '/' between rows

params(G, W, H) :-
    (   known(G, W, H)
    ->  true
    ;   foreign(G)                                  % another game's name: one indexed lookup
    ->  fail
    ;   atom(G),
        sub_atom(G, 0, 9, _, 'hexapawn('),
        catch(term_to_atom(hexapawn(W, H), G), _, fail),
        integer(W), integer(H), between(2, 8, W), between(3, 8, H)
    ->  with_mutex(pawns, define(G, W, H))
    ;   atom(G), assertz(foreign(G)), fail
    ).

define(G, W, H) :-
    (   known(G, W, H)
    ->  true
    ;   S is W * H,
        forall(( between(1, S, From), forward(white, W, H, From, To, DXs) ),
               assert_moves(G, white, W, From, To, DXs)),
        forall(( between(1, S, From), forward(black, W, H, From, To, DXs) ),
               assert_moves(G, black, W, From, To, DXs)),
        Top is S - W + 1,
        forall(between(Top, S, Sq), assertz(far_row(G, white, Sq))),
        forall(between(1, W, Sq), assertz(far_row(G, black, Sq))),
        assert_mirror(G, W, H),
        assert_text(G, W, H),
        assertz(known(G, W, H))
    ).

%   The square straight ahead of From for Colour, and the column steps a
%   capture may take (-1, +1) that stay on the board.
forward(Colour, W, H, From, To, DXs) :-
    X is (From - 1) mod W, Y is (From - 1) // W,
    (   Colour == white -> Y1 is Y + 1, Y1 < H ; Y1 is Y - 1, Y1 >= 0 ),
    To is Y1 * W + X + 1,
    findall(DX, ( member(DX, [-1, 1]), X1 is X + DX, X1 >= 0, X1 < W ), DXs).

assert_moves(G, Colour, _, From, To, DXs) :-
    assertz(step(G, Colour, From, To)),
    forall(member(DX, DXs), ( T is To + DX, assertz(diagonal(G, Colour, From, T)) )).

assert_mirror(G, W, H) :-
    S is W * H,
    functor(B, b, S),
    findall(M, ( between(1, S, Sq), X is (Sq - 1) mod W, Y is (Sq - 1) // W,
                 M is Y * W + (W - 1 - X) + 1 ), Ms),
    maplist(square_of(B), Ms, Vs),
    B1 =.. [b|Vs],
    assertz(image_of(G, B, B)),
    assertz(image_of(G, B, B1)).

assert_text(G, W, H) :-
    S is W * H,
    functor(B, b, S),
    findall(Sqs, ( between(1, H, R), Y is H - R,
                   findall(Sq, ( between(1, W, X), Sq is Y * W + X ), Sqs) ),
            SquareRows),                        % numbers only: findall copies variables
    maplist(maplist(square_of(B)), SquareRows, Rows),
    foldl([Row, Acc0, Acc]>>( Acc0 == [] -> Acc = Row ; append(Acc0, ['/'|Row], Acc) ), Rows, [], Chars),
    assertz(text_cells(G, B, Chars)).

square_of(B, Sq, V) :- arg(Sq, B, V).

pawn(white, w).
pawn(black, b).

game:game(G) :- ( var(G) -> named(G) ; params(G, _, _) ).
game:players(G, [white, black]) :- params(G, _, _).
game:initial(G, B, white) :-
    params(G, W, H),
    S is W * H,
    functor(B, b, S),
    Top is S - W,
    forall(between(1, S, Sq),
           (   Sq =< W -> nb_setarg(Sq, B, w)
           ;   Sq > Top -> nb_setarg(Sq, B, b)
           ;   nb_setarg(Sq, B, '.')
           )).

game:legal(G, B, Colour, From-To) :-
    params(G, _, _),
    pawn(Colour, P),
    other(Colour, Enemy), pawn(Enemy, E),
    (   step(G, Colour, From, To), arg(From, B, P), arg(To, B, '.')
    ;   diagonal(G, Colour, From, To), arg(From, B, P), arg(To, B, E)
    ).

other(white, black).
other(black, white).

game:next(G, B, Colour, From-To, B1) :-
    params(G, _, _),
    pawn(Colour, P),
    duplicate_term(B, B1),
    nb_setarg(From, B1, '.'),
    nb_setarg(To, B1, P).

game:over(G, B, Mover, Winner) :-
    params(G, _, _),
    other(Mover, Last),
    pawn(Last, L), pawn(Mover, M),
    (   far_row(G, Last, Sq), arg(Sq, B, L)      % only the last mover can have arrived
    ->  Winner = Last
    ;   \+ arg(_, B, M)
    ->  Winner = Last
    ;   \+ game:legal(G, B, Mover, _)
    ->  Winner = Last
    ).

game:symmetry(G, B, B1) :-
    params(G, _, _),
    image_of(G, B, B1).

%   Squares 1..W*H as seen by the mover: 0 empty, 1 own pawn, 2 enemy pawn.
game:cells(G, B, Mover, Cells) :-
    params(G, _, _),
    pawn(Mover, Me),
    B =.. [b|Marks],
    maplist(seen_cell(Me), Marks, Cells).

seen_cell(_, '.', 0) :- !.
seen_cell(Me, Me, 1) :- !.
seen_cell(_, _, 2).

%   cells/4 in rows of W, cell 1's row (white's home) drawn at the bottom.
game:layout(G, W, bottom) :- params(G, W, _).

%   A board set up by clicks: its rows from black's side, and who is to move.
game:setup_text(G, Cells, Mover, Text) :-
    params(G, W, _),
    game:rows_text(Cells, W, bottom, ['.', w, b], Board),
    pawn(Mover, L),
    format(atom(Text), "~w ~w", [Board, L]).

game:position_text(G, B, Mover, Text) :-
    text_cells(G, B, Chars),
    atom_chars(Board, Chars),
    pawn(Mover, L),
    format(atom(Text), "~w ~w", [Board, L]).

game:parse_position(G, Text, B, Mover) :-
    params(G, W, H),
    atom_string(A, Text),
    downcase_atom(A, Low),
    normalize_space(atom(N), Low),
    (   atomic_list_concat([Board, L], ' ', N),
        pawn(Mover, L),
        atomic_list_concat(Rows, /, Board),
        length(Rows, H),
        maplist([R, Cs]>>( atom_chars(R, Cs), length(Cs, W), maplist([C]>>memberchk(C, [w, b, '.']), Cs) ),
                Rows, Marks)
    ->  true
    ;   game:shown(Text, Q),
        format(atom(M), "bad ~w position ~w: want ~d rows of ~d squares (w, b or .) from black's side, \c
                         separated by /, then w or b to move", [G, Q, H, W]),
        game:bad_input(M)
    ),
    reverse(Marks, Bottom),                     % white's home row first
    append(Bottom, Cells),
    B =.. [b|Cells],
    (   include(==(w), Cells, Ws), length(Ws, NW), NW =< W,
        include(==(b), Cells, Bs), length(Bs, NB), NB =< W
    ->  true
    ;   game:shown(Text, Q),
        format(atom(M), "bad ~w position ~w: at most ~d pawns a side", [G, Q, W]),
        game:bad_input(M)
    ).

game:parse_move(G, Text, From-To) :-
    params(G, W, H),
    S is W * H,
    (   atom_string(A, Text),
        atomic_list_concat([FA, TA], '-', A),
        atom_number(FA, From), atom_number(TA, To),
        integer(From), integer(To), between(1, S, From), between(1, S, To)
    ->  true
    ;   game:shown(Text, Q),
        W2 is W + 2,
        format(atom(M), "bad ~w move ~w: want From-To with squares 1-~d (from white's side), e.g. 2-~d",
               [G, Q, S, W2]),
        game:bad_input(M)
    ).

game:move_text(G, From-To, Text) :-
    params(G, _, _),
    format(atom(Text), "~w-~w", [From, To]).

%   Black's home row on top; empty squares show their numbers.
game:board_lines(G, B, _, Lines) :-
    params(G, W, H),
    S is W * H,
    Wide is max(2, floor(log10(S)) + 2),
    findall(Line,
            ( between(1, H, R), Y is H - R,
              findall(T, ( between(1, W, X), Sq is Y * W + X, arg(Sq, B, V), shown(V, Sq, T) ), Ts),
              maplist(padded(Wide), Ts, Ps),
              atomic_list_concat(Ps, L0), atom_string(L0, Line) ),
            Lines).

padded(Wide, T, P) :- format(atom(P), "~t~w~*|", [T, Wide]).

shown(w, _, 'W') :- !.
shown(b, _, 'B') :- !.
shown(_, Sq, Sq).
