/*  Kuhn poker (H. W. Kuhn, "A simplified two-person poker", 1950), a game
    of hidden information, played exactly as OpenSpiel's kuhn_poker plays
    it, so that values, strategies and exploitability compare with
    OpenSpiel's to the last digit.

    Three cards, J < Q < K.  Each player antes 1; chance deals one card to
    p1, then one of the two left to p2.  p1 passes or bets 1; after a pass
    p2 passes (showdown for 1) or bets (p1 then passes, folding, or bets,
    calling: showdown for 2); after a bet p2 passes (folds) or bets (calls:
    showdown for 2).  The higher card wins the showdown.

    A player sees its own card and the moves made, never the other's card:
    sees/4 gives that view, and a player's information set is its view
    (educable check verifies that the view recalls everything the player
    saw and did, and that its moves depend on nothing else).  The game ends
    with payoff(N): N chips to p1 from p2 (N < 0: to p2).

    Position: kuhn(C1, C2, Moves): the two cards (j, q, k, or '-' before the
    deal) and the moves so far, oldest first.  Text: 'K Q pb' (the cards
    and the moves, p for a pass and b for a bet; '-' for none).  Moves:
    pass, bet; chance's are the cards.

        ?- initial(kuhn, P, M), legal(kuhn, P, M, Card).
        ?- sees(kuhn, kuhn(k, q, [pass, bet]), p1, View).      % View = 'K pb'
*/
:- module(kuhn, []).

game:game(kuhn).
game:players(kuhn, [p1, p2]).
game:initial(kuhn, kuhn(-, -, []), chance).

card(j).
card(q).
card(k).

rank(j, 1).
rank(q, 2).
rank(k, 3).

game:legal(kuhn, kuhn(-, -, []), chance, C) :- card(C).
game:legal(kuhn, kuhn(C1, -, []), chance, C) :- C1 \== (-), card(C), C \== C1.
game:legal(kuhn, kuhn(_, C2, Ms), Mover, Move) :-
    C2 \== (-), Mover \== chance,
    \+ ending(Ms, _),
    ( Move = pass ; Move = bet ).

game:next(kuhn, kuhn(-, -, []), chance, C, kuhn(C, -, [])).
game:next(kuhn, kuhn(C1, -, []), chance, C, kuhn(C1, C, [])) :- C1 \== (-).
game:next(kuhn, kuhn(C1, C2, Ms), Mover, Move, kuhn(C1, C2, Ms1)) :-
    C2 \== (-), Mover \== chance,
    append(Ms, [Move], Ms1).

game:next_mover(kuhn, _, _, Pos1, Mover1) :- to_move(Pos1, Mover1).

to_move(kuhn(_, -, _), chance) :- !.
to_move(kuhn(_, _, Ms), Mover) :-
    length(Ms, N),
    ( N mod 2 =:= 0 -> Mover = p1 ; Mover = p2 ).

game:over(kuhn, kuhn(C1, C2, Ms), _, payoff(N)) :-
    C2 \== (-),
    ending(Ms, End),
    (   End = fold(Winner)
    ->  ( Winner == p1 -> N = 1 ; N = -1 )
    ;   End = showdown(Pot),
        rank(C1, R1), rank(C2, R2),
        ( R1 > R2 -> N = Pot ; N is -Pot )
    ).

%   How a line of moves ends: who takes the antes when the other folds, or
%   what each player puts at stake in a showdown.
ending([pass, pass], showdown(1)).
ending([pass, bet, pass], fold(p2)).
ending([pass, bet, bet], showdown(2)).
ending([bet, pass], fold(p1)).
ending([bet, bet], showdown(2)).

%   What each player sees: its own card and the moves so far ('K pb').
game:sees(kuhn, kuhn(C1, C2, Ms), Player, View) :-
    ( Player == p1 -> C = C1 ; Player == p2 -> C = C2 ),
    card_text(C, CT),
    moves_text(Ms, MT),
    (   MT == '' -> View = CT ; atomic_list_concat([CT, ' ', MT], View) ).

%   Every move a player can make, and chance's outcomes, in OpenSpiel's
%   order (pass 0, bet 1; the cards J, Q, K 0, 1, 2).
game:actions(kuhn, [pass, bet]).
game:chance_actions(kuhn, [j, q, k]).

card_text(-, '-').
card_text(j, 'J').
card_text(q, 'Q').
card_text(k, 'K').

moves_text([], '').
moves_text([M|Ms], Text) :-
    maplist(move_letter, [M|Ms], Letters),
    atomic_list_concat(Letters, Text).

move_letter(pass, p).
move_letter(bet, b).

game:position_text(kuhn, kuhn(C1, C2, Ms), _, Text) :-
    card_text(C1, T1), card_text(C2, T2),
    moves_text(Ms, MT0),
    ( MT0 == '' -> MT = '-' ; MT = MT0 ),
    atomic_list_concat([T1, T2, MT], ' ', Text).

game:parse_position(kuhn, Text, kuhn(C1, C2, Ms), Mover) :-
    atom_string(A, Text),
    normalize_space(atom(Norm), A),
    atomic_list_concat(Parts, ' ', Norm),
    (   Parts = [T1, T2, MT],
        upcase_atom(T1, U1), upcase_atom(T2, U2),
        card_text(C1, U1), card_text(C2, U2),
        letters(MT, Ms),
        possible(C1, C2, Ms)
    ->  to_move(kuhn(C1, C2, Ms), Mover)
    ;   game:shown(Text, Q),
        format(atom(M), "bad kuhn position ~w: want the two cards (J, Q, K; - before the deal) and the moves (p a pass, b a bet; - for none), e.g. 'K Q pb'", [Q]),
        game:bad_input(M)
    ).

letters('-', []) :- !.
letters(MT, Ms) :-
    atom_chars(MT, Cs),
    maplist(move_letter, Ms, Cs).

%   A state the game can reach: cards dealt in order, two different ones,
%   and moves only once both are dealt, never past the end.
possible(-, -, []).
possible(C1, -, []) :- C1 \== (-).
possible(C1, C2, Ms) :-
    C1 \== (-), C2 \== (-), C1 \== C2,
    ( Ms == [] ; prefix_of_end(Ms) ).

prefix_of_end(Ms) :- ending(End, _), append(Ms, _, End), !.

game:parse_move(kuhn, Text, Move) :-
    atom_string(A, Text),
    normalize_space(atom(N), A),
    downcase_atom(N, L),
    (   memberchk(L-Move, [pass-pass, p-pass, check-pass, fold-pass, bet-bet, b-bet, call-bet,
                           jack-j, queen-q, king-k])
    ->  true
    ;   game:shown(Text, Q),
        format(atom(M), "bad kuhn move ~w: want pass or bet (chance deals Jack, Queen or King)", [Q]),
        game:bad_input(M)
    ).

%   Chance's deals are named in full ('Q' alone would be play's quit).
game:move_text(kuhn, Move, Text) :-
    (   card_name(Move, T) -> Text = T ; Text = Move ).

card_name(j, 'Jack').
card_name(q, 'Queen').
card_name(k, 'King').

game:board_lines(kuhn, kuhn(C1, C2, Ms), _, [L1, L2]) :-
    card_text(C1, T1), card_text(C2, T2),
    format(string(L1), "p1 holds ~w, p2 holds ~w", [T1, T2]),
    (   Ms == []
    ->  L2 = "no bets yet (each has put 1 in the pot)"
    ;   atomic_list_concat(Ms, ', ', MsT),
        format(string(L2), "moves: ~w", [MsT])
    ).
