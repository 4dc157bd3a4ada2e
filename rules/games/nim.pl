/*  Nim, a family: nim(H1, H2, ...) starts with heaps of H1, H2, ... objects
    (any number of heaps, each 0..20).  nim(1,3,5) is the classic 1-3-5
    game (Marienbad's cousin).

    Players p1 (first) and p2 take turns; a move takes one or more objects
    from one heap.  Normal play: whoever takes the last object wins, so the
    player to move at an empty table has lost.

    Position: the heap sizes as a list, e.g. [1,3,5].  Text form: the sizes
    joined by '-' and the side to move, '1-3-5 p1'.  A move is Heap:Take,
    written '3:2' (take 2 from the third heap).

    No symmetries are declared: swapping heaps of equal size would fold
    positions, but a symmetry must map the start to itself, and the start
    of nim(1,3,5) has no two equal heaps.

        ?- G = 'nim(1,3,5)', initial(G, P, M), legal(G, P, M, Mv).
*/
:- module(nim, []).

named('nim(1,3,5)').
named('nim(3,4,5)').

%   The heaps a game's name starts with, e.g. 'nim(1,3,5)' -> [1,3,5];
%   remembered either way, so that other games' calls cost one lookup.
:- dynamic known/2, foreign/1.

heaps(G, Heaps) :-
    (   known(G, Heaps0)
    ->  Heaps = Heaps0
    ;   foreign(G)
    ->  fail
    ;   atom(G),
        sub_atom(G, 0, 4, _, 'nim('),
        catch(term_to_atom(T, G), _, fail),
        compound(T), compound_name_arguments(T, nim, Heaps0),
        Heaps0 \== [],
        forall(member(H, Heaps0), ( integer(H), between(0, 20, H) ))
    ->  assertz(known(G, Heaps0)), Heaps = Heaps0
    ;   atom(G), assertz(foreign(G)), fail
    ).

game:game(G) :- ( var(G) -> named(G) ; heaps(G, _) ).
game:players(G, [p1, p2]) :- heaps(G, _).
game:initial(G, Heaps, p1) :- heaps(G, Heaps).

game:legal(G, Heaps, _, I:K) :-
    heaps(G, _),
    nth1(I, Heaps, H),
    between(1, H, K).

game:next(G, Heaps, _, I:K, Heaps1) :-
    heaps(G, _),
    take(Heaps, I, K, Heaps1).

take([H|Hs], 1, K, [H1|Hs]) :- !, H1 is H - K.
take([H|Hs], I, K, [H|Hs1]) :- I1 is I - 1, take(Hs, I1, K, Hs1).

game:over(G, Heaps, Mover, Winner) :-
    heaps(G, _),
    sum_list(Heaps, 0),
    game:other_player(G, Mover, Winner).

%   Cells for board-based learners: one cell a heap, its size.
game:cells(G, Heaps, _, Heaps) :- heaps(G, _).

%   The heaps in one row.
game:layout(G, N, top) :- heaps(G, Hs), length(Hs, N).

game:position_text(G, Heaps, Mover, Text) :-
    heaps(G, _),
    atomic_list_concat(Heaps, '-', A),
    format(atom(Text), "~w ~w", [A, Mover]).

game:parse_position(G, Text, Heaps, Mover) :-
    heaps(G, Start),
    length(Start, N),
    atom_string(A, Text),
    normalize_space(atom(Norm), A),
    (   atomic_list_concat([HA, Mover], ' ', Norm),
        memberchk(Mover, [p1, p2]),
        atomic_list_concat(Parts, '-', HA),
        maplist([P, H]>>( atom_number(P, H), integer(H) ), Parts, Heaps),
        length(Heaps, N)
    ->  true
    ;   game:shown(Text, Q),
        atomic_list_concat(Start, '-', Example),
        format(atom(M), "bad ~w position ~w: want ~d heap sizes joined by - and the side to move, e.g. '~w p1'",
               [G, Q, N, Example]),
        game:bad_input(M)
    ),
    (   maplist([H, H0]>>( H >= 0, H =< H0 ), Heaps, Start)
    ->  true
    ;   game:shown(Text, Q),
        format(atom(M), "bad ~w position ~w: a heap can only shrink from the start's ~w", [G, Q, Start]),
        game:bad_input(M)
    ).

game:parse_move(G, Text, I:K) :-
    heaps(G, Start),
    length(Start, N),
    (   atom_string(A, Text),
        atomic_list_concat([IA, KA], ':', A),
        atom_number(IA, I), atom_number(KA, K),
        integer(I), integer(K), between(1, N, I), K >= 1
    ->  true
    ;   game:shown(Text, Q),
        format(atom(M), "bad ~w move ~w: want Heap:Take, a heap 1-~d and how many to take, e.g. 1:1", [G, Q, N]),
        game:bad_input(M)
    ).

game:move_text(G, I:K, Text) :-
    heaps(G, _),
    format(atom(Text), "~w:~w", [I, K]).

game:board_lines(G, Heaps, _, Lines) :-
    heaps(G, _),
    findall(Line,
            ( nth1(I, Heaps, H),
              length(Os, H), maplist(=('o'), Os), atomic_list_concat(Os, ' ', Row),
              format(string(Line), "heap ~w: ~w  (~w)", [I, Row, H]) ),
            Lines).
