/*  Hexapawn, the "six pawns" game of the six-pawns practical and of Gardner's HER (1962).

    A 3x3 board, squares 1..9 row by row; white's pawns start on 1,2,3 and
    move up (+3), black's on 7,8,9 and move down (-3).  A pawn steps forward
    onto an empty square or captures diagonally forward; no double step, no
    en passant, no promotion.  A player wins by reaching the far row, by
    capturing every enemy pawn, or when the opponent has no move.  No draws.

    Position: WhitePawns-BlackPawns, sorted lists of squares, as the practical's
    skeleton ('Позиция ... (Список белых пешек - Список черных пешек)');
    start [1,2,3]-[7,8,9], white first.  A move is From-To.

    Text form: the squares' digits, the same dash, then the side to move:
    '123-789 w' is the start.  A move is written '2-5'.

        ?- parse_position(hexapawn, '123-789 w', P, M), legal(hexapawn, P, M, Mv).
*/
:- module(hexapawn, []).

game:game(hexapawn).
game:players(hexapawn, [white, black]).
game:initial(hexapawn, [1,2,3]-[7,8,9], white).

%   'возможный ход белыми' / 'возможный ход черными': the possible moves.
game:legal(hexapawn, W-B, white, From-To) :-
    member(From, W),
    (   To is From + 3, To =< 9, \+ memberchk(To, W), \+ memberchk(To, B)
    ;   capture(white, From, To), memberchk(To, B)
    ).
game:legal(hexapawn, W-B, black, From-To) :-
    member(From, B),
    (   To is From - 3, To >= 1, \+ memberchk(To, W), \+ memberchk(To, B)
    ;   capture(black, From, To), memberchk(To, W)
    ).

capture(white, From, To) :- column(From, C), ( C > 0, To is From + 2 ; C < 2, To is From + 4 ), To =< 9.
capture(black, From, To) :- column(From, C), ( C > 0, To is From - 4 ; C < 2, To is From - 2 ), To >= 1.

column(Sq, C) :- C is (Sq - 1) mod 3.

%   'ходить': make a move.
game:next(hexapawn, W-B, white, From-To, W1-B1) :-
    selectchk(From, W, Rest), msort([To|Rest], W1),
    delete(B, To, B1).
game:next(hexapawn, W-B, black, From-To, W1-B1) :-
    selectchk(From, B, Rest), msort([To|Rest], B1),
    delete(W, To, W1).

%   'игра окончена': the game is over and Result won.
game:over(hexapawn, W-B, Mover, Result) :-
    (   member(S, W), S >= 7 -> Result = white
    ;   member(S, B), S =< 3 -> Result = black
    ;   \+ game:legal(hexapawn, W-B, Mover, _)
    ->  game:other_player(hexapawn, Mover, Result)
    ).

%   The left-right mirror (the only symmetry: pawns move straight).
game:symmetry(hexapawn, Pos, Pos).
game:symmetry(hexapawn, W-B, W1-B1) :-
    maplist(mirror, W, W0), msort(W0, W1),
    maplist(mirror, B, B0), msort(B0, B1).

mirror(S, S1) :- column(S, C), S1 is S - C + (2 - C).

%   Squares 1..9 as seen by the mover: 0 empty, 1 own pawn, 2 enemy pawn.
game:cells(hexapawn, W-B, Mover, Cells) :-
    findall(C, ( between(1, 9, S), hex_cell(W, B, Mover, S, C) ), Cells).

%   cells/4 in rows of 3, cell 1's row (white's home) drawn at the bottom.
game:layout(hexapawn, 3, bottom).

hex_cell(W, B, Mover, S, C) :-
    (   memberchk(S, W) -> ( Mover == white -> C = 1 ; C = 2 )
    ;   memberchk(S, B) -> ( Mover == black -> C = 1 ; C = 2 )
    ;   C = 0
    ).

%   A board set up by clicks: the squares of white's pawns (1 in Cells) and
%   of black's (2), and who is to move.
game:setup_text(hexapawn, Cells, Mover, Text) :-
    findall(S, nth1(S, Cells, 1), W),
    findall(S, nth1(S, Cells, 2), B),
    game:position_text(hexapawn, W-B, Mover, Text).

game:position_text(hexapawn, W-B, Mover, Text) :-
    atomic_list_concat(W, WA), atomic_list_concat(B, BA),
    side_letter(Mover, L),
    format(atom(Text), "~w-~w ~w", [WA, BA, L]).

side_letter(white, w).
side_letter(black, b).

game:parse_position(hexapawn, Text, W-B, Mover) :-
    atom_string(A, Text),
    normalize_space(atom(N), A),
    (   atomic_list_concat([Board, L], ' ', N),
        side_letter(Mover, L),
        atomic_list_concat([WA, BA], '-', Board),
        squares(WA, W), squares(BA, B)
    ->  true
    ;   game:shown(Text, Q),
        format(atom(M), "bad hexapawn position ~w: want white squares-black squares and the side to move, e.g. '123-789 w'", [Q]),
        game:bad_input(M)
    ),
    (   length(W, NW), NW =< 3, length(B, NB), NB =< 3,
        append(W, B, All), sort(All, Set), length(Set, N2), N2 =:= NW + NB
    ->  true
    ;   game:shown(Text, Q),
        format(atom(M), "bad hexapawn position ~w: at most 3 pawns a side and one pawn a square", [Q]),
        game:bad_input(M)
    ).

squares(Atom, Squares) :-
    atom_chars(Atom, Cs),
    maplist([C, S]>>( atom_number(C, S), integer(S), between(1, 9, S) ), Cs, S0),
    sort(S0, Squares),
    length(S0, N), length(Squares, N).

game:parse_move(hexapawn, Text, From-To) :-
    (   atom_string(A, Text),
        atomic_list_concat([FA, TA], '-', A),
        atom_number(FA, From), atom_number(TA, To),
        integer(From), integer(To), between(1, 9, From), between(1, 9, To)
    ->  true
    ;   game:shown(Text, Q),
        format(atom(M), "bad hexapawn move ~w: want From-To with squares 1-9, e.g. 2-5", [Q]),
        game:bad_input(M)
    ).

game:move_text(hexapawn, From-To, Text) :-
    format(atom(Text), "~w-~w", [From, To]).

%   'отобразить игру': black's home row (7 8 9) on top.
game:board_lines(hexapawn, W-B, _, Lines) :-
    findall(Line,
            ( member(R, [6, 3, 0]),
              findall(S, ( between(1, 3, C), I is R + C, pawn(W, B, I, S) ), [S1,S2,S3]),
              format(string(Line), " ~w ~w ~w ", [S1, S2, S3]) ),
            Lines).

pawn(W, _, I, 'W') :- memberchk(I, W), !.
pawn(_, B, I, 'B') :- memberchk(I, B), !.
pawn(_, _, I, I).
