/*  Dots and boxes, a family: boxes(R, C) is a board of R rows and C
    columns of boxes (1..3 each); boxes(2,2) is the 3x3-dot game.  It is the
    game that shows a player moving twice in a row: next_mover/5.

    Players a (first) and b take turns drawing one line between two
    neighbouring dots.  A player who completes a box (its fourth side)
    owns it and must move again.  When every line is drawn, the player
    owning more boxes wins; equal counts are a draw.

    Lines are numbered: first the horizontal ones, row by row from the top
    (R+1 rows of C), then the vertical ones, row by row (R rows of C+1).
    boxes(2,2):          + 1 + 2 +
                         7   8   9
                         + 3 + 4 +
                        10  11  12
                         + 5 + 6 +
    Boxes are numbered row by row from the top left.

    Position: Lines-Owners: the drawn lines as a sorted list, each box's
    owner (a, b or n for nobody).  Text form: the drawn lines joined by ','
    ('-' when none), the owners one letter a box ('.' for nobody), and the
    side to move: '- .... a' is the start of boxes(2,2), '1,7 .... b'
    after two lines.  A move is a line's number, written '7'.

        ?- G = 'boxes(2,2)', initial(G, P, M), legal(G, P, M, Mv).
*/
:- module(boxes, []).

named('boxes(2,2)').

%   The rows and columns a game's name gives, e.g. 'boxes(2,2)' -> 2, 2;
%   remembered either way, so that other games' calls cost one lookup.
:- dynamic known/3, foreign/1.

size(G, R, C) :-
    (   known(G, R0, C0)
    ->  R = R0, C = C0
    ;   foreign(G)
    ->  fail
    ;   atom(G),
        sub_atom(G, 0, 6, _, 'boxes('),
        catch(term_to_atom(boxes(R0, C0), G), _, fail),
        integer(R0), integer(C0), between(1, 3, R0), between(1, 3, C0)
    ->  assertz(known(G, R0, C0)), R = R0, C = C0
    ;   atom(G), assertz(foreign(G)), fail
    ).

lines(R, C, N) :- N is (R + 1) * C + R * (C + 1).

%   Box B (1-based, row by row) has its top left corner at dot (Y, X).
box_corner(C, B, Y-X) :- Y is (B - 1) // C, X is (B - 1) mod C.

%   The four sides of box B: top, bottom, left, right (worked out once a
%   board size: next/5 asks for every box at every move).
:- dynamic sides_cache/4.

sides(R, C, B, Sides) :-
    (   sides_cache(R, C, B, Sides0)
    ->  Sides = Sides0
    ;   box_sides(R, C, B, Sides0),
        assertz(sides_cache(R, C, B, Sides0)),
        Sides = Sides0
    ).

box_sides(R, C, B, [Top, Bottom, Left, Right]) :-
    box_corner(C, B, Y-X), Y1 is Y + 1, X1 is X + 1,
    dots_line(R, C, Y-X, Y-X1, Top),
    dots_line(R, C, Y1-X, Y1-X1, Bottom),
    dots_line(R, C, Y-X, Y1-X, Left),
    dots_line(R, C, Y-X1, Y1-X1, Right).

game:game(G) :- ( var(G) -> named(G) ; size(G, _, _) ).
game:players(G, [a, b]) :- size(G, _, _).
game:initial(G, []-Owners, a) :-
    size(G, R, C),
    N is R * C, length(Owners, N), maplist(=(n), Owners).

game:legal(G, Lines-_, _, L) :-
    size(G, R, C),
    lines(R, C, N),
    between(1, N, L),
    \+ memberchk(L, Lines).

game:next(G, Lines-Owners, Mover, L, Lines1-Owners1) :-
    size(G, R, C),
    msort([L|Lines], Lines1),
    foldl(claim(R, C, Lines1, Mover), Owners, Owners1, 1, _).

%   A box nobody owned whose four sides are now drawn goes to Mover.
claim(R, C, Lines, Mover, Owner, Owner1, B, B1) :-
    B1 is B + 1,
    (   Owner == n, sides(R, C, B, Sides), forall(member(S, Sides), memberchk(S, Lines))
    ->  Owner1 = Mover
    ;   Owner1 = Owner
    ).

%   Completing a box earns another move.
game:next_mover(G, _-Owners, Mover, _-Owners1, Mover) :-
    size(G, _, _),
    Owners1 \== Owners.

game:over(G, Lines-Owners, _, Result) :-
    size(G, R, C),
    lines(R, C, N),
    length(Lines, N),
    include(==(a), Owners, As), length(As, NA),
    include(==(b), Owners, Bs), length(Bs, NB),
    (   NA > NB -> Result = a ; NB > NA -> Result = b ; Result = draw ).

%   The board's symmetries: mirror left-right, top-bottom, both, and on a
%   square board the four turns and reflections through a diagonal too.
game:symmetry(G, Lines-Owners, Lines1-Owners1) :-
    size(G, R, C),
    transform(R, C, T),
    maps(R, C, T, LineMap, From),
    maplist(mapped(LineMap), Lines, L0), msort(L0, Lines1),
    OwnersT =.. [o|Owners],
    maplist(mapped(OwnersT), From, Owners1).

mapped(Term, I, V) :- arg(I, Term, V).

%   Under transform T: LineMap's argument L is the line L goes to, and box
%   J of the image is box From[J] of the board.  Worked out once a board
%   size and transform (symmetry/3 is asked for every image of every
%   position: check asks it tens of thousands of times).
:- dynamic map_cache/5.

maps(R, C, T, LineMap, From) :-
    (   map_cache(R, C, T, LineMap0, From0)
    ->  LineMap = LineMap0, From = From0
    ;   lines(R, C, NL),
        numlist(1, NL, Ls),
        maplist(map_line(R, C, T), Ls, Ls1),
        LineMap0 =.. [l|Ls1],
        N is R * C,
        numlist(1, N, Bs),
        maplist(map_box(R, C, T), Bs, Bs1),
        pairs_keys_values(Pairs, Bs1, Bs),
        keysort(Pairs, Sorted),
        pairs_values(Sorted, From0),
        assertz(map_cache(R, C, T, LineMap0, From0)),
        LineMap = LineMap0, From = From0
    ).

transform(R, C, t(FlipY, FlipX, Swap)) :-
    member(FlipY, [false, true]), member(FlipX, [false, true]),
    (   R =:= C -> member(Swap, [false, true]) ; Swap = false ).

%   A dot (row Y 0..R, column X 0..C) under a transform.
map_dot(R, C, t(FlipY, FlipX, Swap), Y-X, Y2-X2) :-
    ( FlipY == true -> Y1 is R - Y ; Y1 = Y ),
    ( FlipX == true -> X1 is C - X ; X1 = X ),
    ( Swap == true -> Y2 = X1, X2 = Y1 ; Y2 = Y1, X2 = X1 ).

%   Line L joins two neighbouring dots: the numbering of the header.
line_dots(R, C, L, Y-X, Y1-X1) :-
    H is (R + 1) * C,
    (   L =< H
    ->  Y is (L - 1) // C, X is (L - 1) mod C, Y1 = Y, X1 is X + 1
    ;   K is L - H - 1, Y is K // (C + 1), X is K mod (C + 1), Y1 is Y + 1, X1 = X
    ).

dots_line(R, C, Y0-X0, Y1-X1, L) :-
    (   Y0 =:= Y1
    ->  L is Y0 * C + min(X0, X1) + 1
    ;   L is (R + 1) * C + min(Y0, Y1) * (C + 1) + X0 + 1
    ).

map_line(R, C, T, L, L1) :-
    line_dots(R, C, L, D0, D1),
    map_dot(R, C, T, D0, E0), map_dot(R, C, T, D1, E1),
    dots_line(R, C, E0, E1, L1).

%   Box B (row by row) has corners (Y, X) and (Y+1, X+1).
map_box(R, C, T, B, B1) :-
    box_corner(C, B, Y-X), Y1 is Y + 1, X1 is X + 1,
    map_dot(R, C, T, Y-X, P-Q), map_dot(R, C, T, Y1-X1, P1-Q1),
    B1 is min(P, P1) * C + min(Q, Q1) + 1.

%   Cells for board-based learners: each line (0 not drawn, 1 drawn), then
%   each box (0 nobody's, 1 the mover's, 2 the opponent's).
game:cells(G, Lines-Owners, Mover, Cells) :-
    size(G, R, C),
    lines(R, C, N),
    findall(X, ( between(1, N, L), ( memberchk(L, Lines) -> X = 1 ; X = 0 ) ), LineCells),
    maplist(box_cell(Mover), Owners, BoxCells),
    append(LineCells, BoxCells, Cells).

box_cell(_, n, 0) :- !.
box_cell(Mover, Mover, 1) :- !.
box_cell(_, _, 2).

%   The page draws the dots, the lines and the boxes from these cells.
game:drawn_as(G, dots_and_boxes(R, C)) :- size(G, R, C).

game:position_text(G, Lines-Owners, Mover, Text) :-
    size(G, _, _),
    (   Lines == [] -> LA = '-' ; atomic_list_concat(Lines, ',', LA) ),
    maplist([O, Ch]>>( O == n -> Ch = '.' ; Ch = O ), Owners, Chars),
    atomic_list_concat(Chars, OA),
    format(atom(Text), "~w ~w ~w", [LA, OA, Mover]).

game:parse_position(G, Text, Lines-Owners, Mover) :-
    size(G, R, C),
    lines(R, C, N),
    NB is R * C,
    atom_string(A, Text),
    normalize_space(atom(Norm), A),
    (   atomic_list_concat([LA, OA, Mover], ' ', Norm),
        memberchk(Mover, [a, b]),
        (   LA == '-' -> Lines = []
        ;   atomic_list_concat(Parts, ',', LA),
            maplist([P, L]>>( atom_number(P, L), integer(L), between(1, N, L) ), Parts, Lines0),
            sort(Lines0, Lines), length(Lines, K), length(Lines0, K)
        ),
        atom_chars(OA, Chars), length(Chars, NB),
        maplist([Ch, O]>>( Ch == '.' -> O = n ; memberchk(Ch, [a, b]), O = Ch ), Chars, Owners)
    ->  (   nth1(B, Owners, Owner), sides(R, C, B, Sides),
            (   Owner == n -> subtract(Sides, Lines, []) ; \+ subtract(Sides, Lines, []) )
        ->  game:shown(Text, Q),
            (   Owner == n
            ->  format(atom(M), "impossible ~w position ~w: box ~d has its four sides drawn, so somebody owns it", [G, Q, B])
            ;   format(atom(M), "impossible ~w position ~w: box ~d is owned by ~w, but its four sides are not all drawn", [G, Q, B, Owner])
            ),
            game:bad_input(M)
        ;   true
        )
    ;   game:shown(Text, Q),
        length(Dots, NB), maplist(=('.'), Dots), atomic_list_concat(Dots, Empty),
        format(atom(M), "bad ~w position ~w: want the drawn lines (1-~d) joined by , or - for none, each box's owner (a, b or .) and the side to move, e.g. '1,7 ~w b'",
               [G, Q, N, Empty]),
        game:bad_input(M)
    ).

game:parse_move(G, Text, L) :-
    size(G, R, C),
    lines(R, C, N),
    (   atom_string(A, Text), normalize_space(atom(T), A), atom_number(T, L), integer(L), between(1, N, L)
    ->  true
    ;   game:shown(Text, Q),
        format(atom(M), "bad ~w move ~w: want the number of a line, 1-~d", [G, Q, N]),
        game:bad_input(M)
    ).

game:move_text(G, L, Text) :- size(G, _, _), atom_number(Text, L).

%   Dots as '+', drawn lines as '---' and '|', undrawn ones by their
%   number, a box by its owner's letter.
game:board_lines(G, Lines-Owners, _, Out) :-
    size(G, R, C),
    findall(S, ( between(0, R, Row),
                 (   dot_row(R, C, Row, Lines, S)
                 ;   Row < R, box_row(R, C, Row, Lines, Owners, S)
                 ) ), Out).

dot_row(R, C, Row, Lines, S) :-
    findall(Part, ( between(0, C, Col),
                    (   Col < C
                    ->  Col1 is Col + 1, dots_line(R, C, Row-Col, Row-Col1, L),
                        (   memberchk(L, Lines) -> Seg = '---' ; format(atom(Seg), "~|~t~w~t~3+", [L]) ),
                        atom_concat('+', Seg, Part)
                    ;   Part = '+'
                    ) ), Parts),
    atomic_list_concat(Parts, S0), atom_string(S0, S).

box_row(R, C, Row, Lines, Owners, S) :-
    findall(Part, ( between(0, C, Col),
                    Row1 is Row + 1, dots_line(R, C, Row-Col, Row1-Col, L),
                    (   memberchk(L, Lines) -> Side = '|' ; atom_number(Side, L) ),
                    (   Col < C
                    ->  B is Row * C + Col + 1, nth1(B, Owners, O),
                        ( O == n -> Mid = ' ' ; Mid = O ),
                        format(atom(Part), "~w~t~w~t~4|", [Side, Mid])
                    ;   Part = Side
                    ) ), Parts),
    atomic_list_concat(Parts, S0), atom_string(S0, S).
