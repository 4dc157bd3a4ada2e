/*  Liar's Dice, a game of hidden information, a family liars_dice(Dice,
    Faces) (plain `liars_dice` is liars_dice(1,6)), played exactly as
    OpenSpiel's liars_dice plays it (numdice, dice_sides; its reset-face
    bidding), so that values, strategies and exploitability compare with
    OpenSpiel's to the last digit.

    Chance rolls p1's dice, then p2's, one at a time.  p1 bids first, then
    each in turn: a bid Q-F says that at least Q of all the dice show the
    face F, where the highest face is wild (it counts as any face; a bid
    on the highest face counts only those).  A bid must be higher than the
    last: bids are ordered by quantity, then face (1-1 < 1-2 < ... <
    2-1 ...).  Instead of bidding, a player may call `liar` on the last
    bid: if it holds the caller loses, else the bidder loses.

    A player sees its own dice and every bid: sees/4 gives it as '6 1-4,2-2'
    (OpenSpiel's information state: its dice in the order rolled, then the
    bids).

    Position: liar(Dice1, Dice2, Moves), each player's dice as rolled and
    the moves so far, oldest first (bid(Q, F) or liar).  Text: '1 6 1-4,liar'
    (each player's dice as digits, '-' for none yet; the moves, '-' for
    none).  Moves: Q-F and liar; chance's are the die's faces.

        ?- G = liars_dice, initial(G, P, M), legal(G, P, M, Face).
*/
:- module(liars_dice, []).

named(liars_dice).

:- dynamic known/3, foreign/1.

%   The dice each player holds and the faces of a die a name gives:
%   liars_dice = liars_dice(1,6); liars_dice(D, F) with 1 to 3 dice of 2
%   to 9 faces.
params(G, Dice, Faces) :-
    (   known(G, D0, F0)
    ->  Dice = D0, Faces = F0
    ;   foreign(G)
    ->  fail
    ;   G == liars_dice
    ->  assertz(known(liars_dice, 1, 6)), Dice = 1, Faces = 6
    ;   atom(G),
        sub_atom(G, 0, 11, _, 'liars_dice('),
        catch(term_to_atom(T, G), _, fail),
        T = liars_dice(D0, F0),
        integer(D0), between(1, 3, D0),
        integer(F0), between(2, 9, F0)
    ->  assertz(known(G, D0, F0)), Dice = D0, Faces = F0
    ;   atom(G), assertz(foreign(G)), fail
    ).

game:game(G) :- ( var(G) -> named(G) ; params(G, _, _) ).
game:players(G, [p1, p2]) :- params(G, _, _).
game:initial(G, liar([], [], []), chance) :- params(G, _, _).

%   Whose move it is: chance while dice remain to roll, else the players in
%   turn, p1 first.
to_move(G, liar(D1, D2, Moves), Mover) :-
    params(G, Dice, _),
    length(D1, N1), length(D2, N2),
    (   ( N1 < Dice ; N2 < Dice )
    ->  Mover = chance
    ;   length(Moves, N), ( N mod 2 =:= 0 -> Mover = p1 ; Mover = p2 )
    ).

game:legal(G, Pos, chance, Face) :-
    params(G, _, Faces),
    to_move(G, Pos, chance),
    between(1, Faces, Face).
game:legal(G, liar(D1, D2, Moves), Mover, Move) :-
    Mover \== chance,
    params(G, Dice, Faces),
    \+ last(Moves, liar),
    (   last_bid(Moves, Last) -> true ; Last = none ),
    Most is 2 * Dice,
    (   between(1, Most, Q), between(1, Faces, F),
        Move = bid(Q, F),
        higher(Move, Last, Faces)
    ;   Last \== none, Move = liar
    ),
    D1 \== [], D2 \== [].

last_bid(Moves, Bid) :- last(Moves, Bid), Bid = bid(_, _).

higher(_, none, _) :- !.
higher(bid(Q, F), bid(Q0, F0), Faces) :- Q * Faces + F > Q0 * Faces + F0.

game:next(G, liar(D1, D2, Moves), chance, Face, Pos1) :- !,
    params(G, Dice, _),
    length(D1, N1),
    (   N1 < Dice -> append(D1, [Face], D1a), Pos1 = liar(D1a, D2, Moves)
    ;   append(D2, [Face], D2a), Pos1 = liar(D1, D2a, Moves)
    ).
game:next(G, liar(D1, D2, Moves), _, Move, liar(D1, D2, Moves1)) :-
    params(G, _, _),
    append(Moves, [Move], Moves1).

game:next_mover(G, _, _, Pos1, Mover1) :- params(G, _, _), to_move(G, Pos1, Mover1).

%   After a call of liar: the bid holds when enough dice show its face
%   (the highest face wild), and then the caller loses.
game:over(G, liar(D1, D2, Moves), _, Winner) :-
    params(G, _, Faces),
    append(Before, [liar], Moves),
    last(Before, bid(Q, F)),
    length(Before, N),
    ( N mod 2 =:= 1 -> Bidder = p1, Caller = p2 ; Bidder = p2, Caller = p1 ),
    append(D1, D2, All),
    include(counts(F, Faces), All, Matching),
    length(Matching, Count),
    ( Count >= Q -> Winner = Bidder ; Winner = Caller ).

counts(F, Faces, D) :- ( D =:= F ; D =:= Faces ), !.

%   A player's view: its dice as rolled, then every move ('6 1-4,2-2').
game:sees(G, liar(D1, D2, Moves), Player, View) :-
    params(G, _, _),
    ( Player == p1 -> Mine = D1 ; Player == p2 -> Mine = D2 ),
    dice_text(Mine, DT),
    (   Moves == [] -> View = DT
    ;   moves_text(Moves, MT), atomic_list_concat([DT, ' ', MT], View)
    ).

%   Every move a player can make (the bids in order, then liar), and
%   chance's outcomes, in OpenSpiel's order.
game:actions(G, Moves) :-
    params(G, Dice, Faces),
    Most is 2 * Dice,
    findall(bid(Q, F), ( between(1, Most, Q), between(1, Faces, F) ), Bids),
    append(Bids, [liar], Moves).
game:chance_actions(G, Faces) :- params(G, _, F), numlist(1, F, Faces).

dice_text([], '-') :- !.
dice_text(Ds, T) :- atomic_list_concat(Ds, T).

moves_text(Moves, T) :- maplist(move_atom, Moves, Ts), atomic_list_concat(Ts, ',', T).

move_atom(bid(Q, F), Text) :- !, format(atom(Text), "~d-~d", [Q, F]).
move_atom(liar, liar) :- !.
move_atom(Face, Text) :- integer(Face), atom_number(Text, Face).

game:move_text(G, Move, Text) :- params(G, _, _), move_atom(Move, Text).

game:position_text(G, liar(D1, D2, Moves), _, Text) :-
    params(G, _, _),
    dice_text(D1, T1), dice_text(D2, T2),
    ( Moves == [] -> MT = '-' ; moves_text(Moves, MT) ),
    atomic_list_concat([T1, T2, MT], ' ', Text).

game:parse_position(G, Text, Pos, Mover) :-
    params(G, _, _),
    atom_string(A, Text),
    normalize_space(atom(Norm), A),
    atomic_list_concat(Parts, ' ', Norm),
    (   Parts = [T1, T2, MT],
        dice_read(T1, D1), dice_read(T2, D2),
        moves_read(G, MT, Moves),
        replay(G, Moves, liar(D1, D2, []), D1, D2)
    ->  Pos = liar(D1, D2, Moves), to_move(G, Pos, Mover)
    ;   game:shown(Text, Q),
        format(atom(M), "bad ~w position ~w: want each player's dice as digits (- none yet) and the moves (bids Q-F and liar, by commas; - none), e.g. '1 6 1-4,liar'", [G, Q]),
        game:bad_input(M)
    ).

dice_read('-', []) :- !.
dice_read(T, Ds) :- atom_chars(T, Cs), maplist([C, D]>>atom_number(C, D), Cs, Ds).

moves_read(_, '-', []) :- !.
moves_read(G, T, Moves) :-
    atomic_list_concat(Ts, ',', T),
    maplist([MT, M]>>catch(game:parse_move(G, MT, M), _, fail), Ts, Moves).

%   The dice can be rolled as given and each move is legal in turn.
replay(G, Moves, Pos0, D1, D2) :-
    params(G, Dice, Faces),
    length(D1, N1), length(D2, N2),
    forall(member(D, D1), between(1, Faces, D)),
    forall(member(D, D2), between(1, Faces, D)),
    N1 =< Dice, N2 =< Dice, ( N2 > 0 -> N1 =:= Dice ; true ),
    Pos0 = liar(_, _, []),
    replay_moves(G, Moves, liar(D1, D2, [])).

replay_moves(_, [], _).
replay_moves(G, [M|Ms], Pos) :-
    \+ game:over(G, Pos, _, _),
    to_move(G, Pos, Mover), Mover \== chance,
    game:legal(G, Pos, Mover, M), !,
    game:next(G, Pos, Mover, M, Pos1),
    replay_moves(G, Ms, Pos1).

game:parse_move(G, Text, Move) :-
    params(G, Dice, Faces),
    atom_string(A, Text),
    normalize_space(atom(N), A),
    downcase_atom(N, L),
    Most is 2 * Dice,
    (   L == liar
    ->  Move = liar
    ;   atomic_list_concat([QT, FT], '-', L), atom_number(QT, Q), atom_number(FT, F),
        integer(Q), integer(F), between(1, Most, Q), between(1, Faces, F)
    ->  Move = bid(Q, F)
    ;   atom_number(L, F), integer(F), between(1, Faces, F)
    ->  Move = F
    ;   game:shown(Text, Q),
        format(atom(M), "bad ~w move ~w: want a bid Q-F (quantity 1-~d, face 1-~d) or liar (chance rolls the faces)", [G, Q, Most, Faces]),
        game:bad_input(M)
    ).

game:board_lines(G, liar(D1, D2, Moves), _, [L1, L2]) :-
    params(G, _, Faces),
    dice_text(D1, T1), dice_text(D2, T2),
    format(string(L1), "p1's dice ~w, p2's ~w (~d faces, ~d wild)", [T1, T2, Faces, Faces]),
    ( Moves == [] -> L2 = "no bid yet" ; moves_text(Moves, MT), format(string(L2), "moves: ~w", [MT]) ).
