/*  Leduc hold'em (Southey et al., "Bayes' Bluff: Opponent Modelling in
    Poker", 2005), a game of hidden information, played exactly as
    OpenSpiel's leduc_poker plays it, so that values, strategies and
    exploitability compare with OpenSpiel's to the last digit.

    Six cards, two of each rank J < Q < K (J1 J2 Q1 Q2 K1 K2: OpenSpiel's
    cards 0-5).  Each player antes 1; chance deals one card to p1, then one
    to p2.  Two betting rounds, p1 first in each: a player calls (checks
    when nothing is owed), raises (by 2 in the first round, 4 in the
    second; at most two raises a round) or folds (only when it owes
    something).  A round ends when a call follows another move.  Between
    the rounds chance turns one public card.  At the showdown a player
    whose card pairs the public card wins, else the higher card; equal
    ranks split the pot.  A fold loses what the folder has put in.

    A player sees its own card, the public card once turned and every move:
    sees/4 gives it as 'Q1 rrc K2 cr' (its card, the first round's moves,
    the public card, the second round's moves; c a call, r a raise, f a
    fold).  The game ends with payoff(N): N chips to p1 from p2.

    Position: leduc(C1, C2, Public, Round1, Round2), the cards as numbers
    0-5 ('-' before the deal) and each round's moves (f, c, r), oldest
    first.  Text: 'J1 Q2 K1 rrc cr' ('-' for a card not dealt or a round
    without moves).  Moves: fold, call, raise; chance's are the cards.

        ?- initial(leduc, P, M), legal(leduc, P, M, Card).
*/
:- module(leduc, []).

game:game(leduc).
game:players(leduc, [p1, p2]).
game:initial(leduc, leduc(-, -, -, [], []), chance).

card(C) :- between(0, 5, C).
rank(C, R) :- R is C // 2.

card_text(-, '-') :- !.
card_text(C, T) :- rank(C, R), nth0(R, ['J', 'Q', 'K'], L), S is C mod 2 + 1, atom_concat(L, S, T).

%   Whose move it is, or chance's, or none (the game is over).
to_move(leduc(-, _, _, _, _), chance) :- !.
to_move(leduc(_, -, _, _, _), chance) :- !.
to_move(leduc(_, _, Pub, R1, R2), Mover) :-
    (   Pub == (-)
    ->  (   round_over(R1) -> Mover = chance ; turn(R1, Mover) )
    ;   turn(R2, Mover)
    ).

turn(Moves, Mover) :- length(Moves, N), ( N mod 2 =:= 0 -> Mover = p1 ; Mover = p2 ).

%   A round is over when a call follows another move (a check and a check,
%   or a raise called).
round_over(Moves) :- Moves = [_, _|_], last(Moves, c).

%   What each player has put in after the rounds' moves (antes of 1; a
%   raise matches the other's stake and adds 2, or 4 in the second round).
stakes(R1, R2, S1, S2) :-
    round_stakes(R1, 2, p1, 1-1, T),
    round_stakes(R2, 4, p1, T, S1-S2).

round_stakes([], _, _, S, S).
round_stakes([M|Ms], Bet, Mover, A-B, S) :-
    Top is max(A, B),
    (   M == c -> New = Top
    ;   M == r -> New is Top + Bet
    ;   M == f -> ( Mover == p1 -> New = A ; New = B )
    ),
    ( Mover == p1 -> S1 = New-B, Next = p2 ; S1 = A-New, Next = p1 ),
    round_stakes(Ms, Bet, Next, S1, S).

raises(Moves, N) :- include(==(r), Moves, Rs), length(Rs, N).

current_round(leduc(_, _, -, R1, _), R1) :- !.
current_round(leduc(_, _, _, _, R2), R2).

game:legal(leduc, leduc(-, -, _, _, _), chance, C) :- card(C).
game:legal(leduc, leduc(C1, -, _, _, _), chance, C) :- C1 \== (-), card(C), C =\= C1.
game:legal(leduc, leduc(C1, C2, -, R1, _), chance, C) :-
    C1 \== (-), C2 \== (-), round_over(R1),
    card(C), C =\= C1, C =\= C2.
game:legal(leduc, Pos, Mover, Move) :-
    Mover \== chance,
    Pos = leduc(_, _, _, R1, R2),
    \+ game:over(leduc, Pos, Mover, _),
    current_round(Pos, Moves),
    stakes(R1, R2, S1, S2),
    ( Mover == p1 -> Mine = S1, Theirs = S2 ; Mine = S2, Theirs = S1 ),
    (   Mine < Theirs, Move = fold
    ;   Move = call
    ;   raises(Moves, N), N < 2, Move = raise
    ).

game:next(leduc, leduc(-, -, P, R1, R2), chance, C, leduc(C, -, P, R1, R2)) :- !.
game:next(leduc, leduc(C1, -, P, R1, R2), chance, C, leduc(C1, C, P, R1, R2)) :- !.
game:next(leduc, leduc(C1, C2, -, R1, R2), chance, C, leduc(C1, C2, C, R1, R2)) :- !.
game:next(leduc, leduc(C1, C2, Pub, R1, R2), _, Move, leduc(C1, C2, Pub, R1a, R2a)) :-
    letter(Move, L),
    (   Pub == (-) -> append(R1, [L], R1a), R2a = R2 ; R1a = R1, append(R2, [L], R2a) ).

game:next_mover(leduc, _, _, Pos1, Mover1) :- to_move(Pos1, Mover1).

letter(fold, f).
letter(call, c).
letter(raise, r).

game:over(leduc, leduc(C1, C2, Pub, R1, R2), _, payoff(N)) :-
    C2 \== (-),
    stakes(R1, R2, S1, S2),
    (   append(_, [f], R1) -> folded(R1, p1, Folder)
    ;   append(_, [f], R2) -> folded(R2, p1, Folder)
    ;   Pub \== (-), round_over(R2) -> Folder = none
    ),
    !,
    (   Folder == p1 -> N is -S1
    ;   Folder == p2 -> N = S2
    ;   showdown(C1, C2, Pub, W),
        ( W > 0 -> N = S2 ; W < 0 -> N is -S1 ; N = 0 )
    ).

%   Who folded: the player whose move the last one of the round was.
folded(Moves, _, Folder) :- length(Moves, N), ( N mod 2 =:= 1 -> Folder = p1 ; Folder = p2 ).

%   1 when p1's hand wins, -1 when p2's does, 0 for equal ranks.
showdown(C1, C2, Pub, W) :-
    rank(C1, R1), rank(C2, R2), rank(Pub, RP),
    (   R1 =:= RP -> W = 1
    ;   R2 =:= RP -> W = -1
    ;   compare(O, R1, R2), ( O == (>) -> W = 1 ; O == (<) -> W = -1 ; W = 0 )
    ).

%   A player's view: its card, the first round's moves, the public card
%   and the second round's moves, as far as they go ('Q1 rrc K2 cr').
game:sees(leduc, leduc(C1, C2, Pub, R1, R2), Player, View) :-
    ( Player == p1 -> C = C1 ; Player == p2 -> C = C2 ),
    card_text(C, CT),
    (   Pub == (-)
    ->  Parts0 = [CT|M1], moves_part(R1, M1)
    ;   card_text(Pub, PT), atomic_list_concat(R1, T1), moves_part(R2, M2),
        Parts0 = [CT, T1, PT|M2]
    ),
    atomic_list_concat(Parts0, ' ', View).

moves_part([], []) :- !.
moves_part(Ms, [T]) :- atomic_list_concat(Ms, T).

%   Every move a player can make, and chance's outcomes, in OpenSpiel's
%   order (fold 0, call 1, raise 2; the cards 0-5).
game:actions(leduc, [fold, call, raise]).
game:chance_actions(leduc, [0, 1, 2, 3, 4, 5]).

game:position_text(leduc, leduc(C1, C2, Pub, R1, R2), _, Text) :-
    card_text(C1, T1), card_text(C2, T2), card_text(Pub, TP),
    round_text(R1, H1), round_text(R2, H2),
    atomic_list_concat([T1, T2, TP, H1, H2], ' ', Text).

round_text([], '-') :- !.
round_text(Ms, T) :- atomic_list_concat(Ms, T).

game:parse_position(leduc, Text, Pos, Mover) :-
    atom_string(A, Text),
    normalize_space(atom(Norm), A),
    atomic_list_concat(Parts, ' ', Norm),
    (   Parts = [T1, T2, TP, H1, H2],
        maplist(card_read, [T1, T2, TP], [C1, C2, Pub]),
        round_read(H1, R1), round_read(H2, R2),
        Pos = leduc(C1, C2, Pub, R1, R2),
        reachable(Pos)
    ->  to_move(Pos, Mover)
    ;   game:shown(Text, Q),
        format(atom(M), "bad leduc position ~w: want p1's card, p2's, the public one (J1 J2 Q1 Q2 K1 K2, - not dealt) and each round's moves (c call, r raise, f fold; - none), e.g. 'J1 Q2 K1 rrc cr'", [Q]),
        game:bad_input(M)
    ).

card_read('-', -) :- !.
card_read(T, C) :- upcase_atom(T, U), card(C), card_text(C, U), !.

round_read('-', []) :- !.
round_read(T, Ms) :- atom_chars(T, Ms), forall(member(M, Ms), memberchk(M, [c, r, f])).

%   A state the game reaches: replayed from the start, move by move.
reachable(leduc(C1, C2, Pub, R1, R2)) :-
    Start = leduc(-, -, -, [], []),
    deals(C1, C2, Start, P1),
    replay(R1, P1, P2),
    (   Pub == (-) -> R2 == [], P2 = End
    ;   game:legal(leduc, P2, chance, Pub), game:next(leduc, P2, chance, Pub, P3), replay(R2, P3, End)
    ),
    End = leduc(_, _, _, _, _).

deals(-, -, P, P) :- !.
deals(C1, -, P, P1) :- !, game:next(leduc, P, chance, C1, P1).
deals(C1, C2, P, P2) :- C1 =\= C2, game:next(leduc, P, chance, C1, P1), game:next(leduc, P1, chance, C2, P2).

replay([], P, P).
replay([L|Ls], P, End) :-
    \+ game:over(leduc, P, _, _),
    to_move(P, Mover), Mover \== chance,
    letter(Move, L),
    game:legal(leduc, P, Mover, Move), !,
    game:next(leduc, P, Mover, Move, P1),
    replay(Ls, P1, End).

game:parse_move(leduc, Text, Move) :-
    atom_string(A, Text),
    normalize_space(atom(N), A),
    downcase_atom(N, L),
    (   memberchk(L-Move, [fold-fold, f-fold, call-call, c-call, check-call, raise-raise, r-raise, bet-raise])
    ->  true
    ;   upcase_atom(N, U), card(Move), card_text(Move, U)
    ->  true
    ;   game:shown(Text, Q),
        format(atom(M), "bad leduc move ~w: want fold, call or raise (chance turns the cards J1 J2 Q1 Q2 K1 K2)", [Q]),
        game:bad_input(M)
    ).

game:move_text(leduc, Move, Text) :-
    (   integer(Move) -> card_text(Move, Text) ; Text = Move ).

game:board_lines(leduc, leduc(C1, C2, Pub, R1, R2), _, [L1, L2]) :-
    card_text(C1, T1), card_text(C2, T2), card_text(Pub, TP),
    stakes(R1, R2, S1, S2),
    format(string(L1), "p1 holds ~w, p2 holds ~w, the public card ~w", [T1, T2, TP]),
    round_text(R1, H1), round_text(R2, H2),
    format(string(L2), "p1 has put in ~d, p2 ~d; moves ~w, then ~w", [S1, S2, H1, H2]).
