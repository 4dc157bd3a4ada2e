/*  Pig, the dice game, a family: pig(Goal, Faces), plain `pig` = pig(100,6).
    The rules as Neller and Presser give them ("Optimal Play of the Dice
    Game Pig", The UMAP Journal 25(1), 2004): two players take turns; on
    a turn a player rolls a die repeatedly until a 1 comes up or the player
    holds.  A 1 ends the turn and scores nothing; any other face adds to the
    turn total; holding adds the turn total to the player's score and ends
    the turn.  The first to reach Goal wins.  A turn starts with a roll
    (holding with nothing to bank is not a move), and a player whose score
    and turn total reach Goal has won at once: holding would bank it, and
    the game keeps no state past that point.

    A game of chance in the protocol's form (rules/game.pl): after `roll`
    the mover is `chance`, whose moves are the die's faces; with no
    chance_weight/4 they are equally likely.  next_mover/5 says who moves
    next, chance included.

    Position: pos(S1, S2, K, Turn): the two scores, the turn total, and whose
    turn it is (also while the die is rolling).  Text form: the scores, the
    turn total and whose turn, '12 30 7 p1'; a die about to be read ends in
    'rolls', '12 30 7 p1 rolls'.  Moves: roll, hold; the die's faces 1-Faces.

        ?- G = pig, initial(G, P, M), legal(G, P, M, Mv).
*/
:- module(pig, []).

named(pig).
named('pig(20,6)').

:- dynamic known/3, foreign/1.

%   The goal and faces a game's name gives: pig = pig(100,6); pig(G, F)
%   with a goal of 2 to 1000 and a die of 2 to 100 faces.
params(G, Goal, Faces) :-
    (   known(G, Goal0, Faces0)
    ->  Goal = Goal0, Faces = Faces0
    ;   foreign(G)
    ->  fail
    ;   G == pig
    ->  assertz(known(pig, 100, 6)), Goal = 100, Faces = 6
    ;   atom(G),
        sub_atom(G, 0, 4, _, 'pig('),
        catch(term_to_atom(T, G), _, fail),
        T = pig(Goal0, Faces0),
        integer(Goal0), between(2, 1000, Goal0),
        integer(Faces0), between(2, 100, Faces0)
    ->  assertz(known(G, Goal0, Faces0)), Goal = Goal0, Faces = Faces0
    ;   atom(G), assertz(foreign(G)), fail
    ).

game:game(G) :- ( var(G) -> named(G) ; params(G, _, _) ).
game:players(G, [p1, p2]) :- params(G, _, _).
game:initial(G, pos(0, 0, 0, p1), p1) :- params(G, _, _).

game:legal(G, pos(S1, S2, K, T), T, Move) :-
    params(G, Goal, _),
    ( T == p1 -> S = S1 ; S = S2 ),
    S + K < Goal,                           % a won turn has no moves
    ( Move = roll ; K > 0, Move = hold ).
game:legal(G, _, chance, Face) :- params(G, _, Faces), between(1, Faces, Face).

%   Every move a player can ever make, numbered in this order by the
%   environments of the field (the die's faces are chance's, apart).
game:actions(G, [hold, roll]) :- params(G, _, _).
game:chance_actions(G, Faces) :- params(G, _, F), numlist(1, F, Faces).

game:next(G, P, T, roll, P) :- params(G, _, _), T \== chance.
game:next(G, pos(S1, S2, K, T), T, hold, pos(B1, B2, 0, O)) :-
    params(G, _, _),
    bank(T, K, S1, S2, B1, B2),
    other(T, O).
game:next(G, pos(S1, S2, K, T), chance, Face, Pos1) :-
    params(G, _, _),
    (   Face =:= 1
    ->  other(T, O), Pos1 = pos(S1, S2, 0, O)
    ;   K1 is K + Face, Pos1 = pos(S1, S2, K1, T)
    ).

%   After a roll the die moves; after the die, whoever's turn it now is;
%   after a hold, the other player.
game:next_mover(G, _, Mover, pos(_, _, _, T1), Next) :-
    params(G, _, _),
    (   Mover == chance -> Next = T1
    ;   T1 == Mover -> Next = chance          % a roll: the position is unchanged, the die is to read
    ;   Next = T1
    ).

bank(p1, K, S1, S2, B1, S2) :- B1 is S1 + K.
bank(p2, K, S1, S2, S1, B2) :- B2 is S2 + K.

other(p1, p2).
other(p2, p1).

game:over(G, pos(S1, S2, K, T), _, T) :-
    params(G, Goal, _),
    ( T == p1 -> S = S1 ; S = S2 ),
    S + K >= Goal.

%   (atomic_list_concat/2, not format/3: solving writes two million of them)
game:position_text(G, pos(S1, S2, K, T), Mover, Text) :-
    params(G, _, _),
    (   Mover == chance
    ->  atomic_list_concat([S1, ' ', S2, ' ', K, ' ', T, ' rolls'], Text)
    ;   atomic_list_concat([S1, ' ', S2, ' ', K, ' ', T], Text)
    ).

game:parse_position(G, Text, pos(S1, S2, K, T), Mover) :-
    params(G, Goal, _),
    atom_string(A, Text),
    normalize_space(atom(Norm), A),
    atomic_list_concat(Parts, ' ', Norm),
    (   ( Parts = [A1, A2, AK, T], Mover = T ; Parts = [A1, A2, AK, T, rolls], Mover = chance ),
        memberchk(T, [p1, p2]),
        atom_number(A1, S1), atom_number(A2, S2), atom_number(AK, K),
        integer(S1), integer(S2), integer(K)
    ->  true
    ;   game:shown(Text, Q),
        format(atom(M), "bad ~w position ~w: want the two scores, the turn total and whose turn, e.g. '12 30 7 p1' ('... p1 rolls' while the die is read)", [G, Q]),
        game:bad_input(M)
    ),
    params(G, _, Faces),
    ( T == p1 -> S = S1 ; S = S2 ),
    (   S1 >= 0, S2 >= 0, K >= 0, S1 < Goal, S2 < Goal,
        (   Mover == chance
        ->  S + K < Goal                    % the die is read only while the turn goes on
        ;   S + K < Goal + Faces            % at most one face past the goal
        )
    ->  true
    ;   game:shown(Text, Q),
        format(atom(M), "bad ~w position ~w: scores run from 0 to ~d, and a won turn rolls no more", [G, Q, Goal - 1]),
        game:bad_input(M)
    ).

game:parse_move(G, Text, Move) :-
    params(G, _, Faces),
    atom_string(A, Text),
    normalize_space(atom(N), A),
    downcase_atom(N, L),
    (   memberchk(L, [roll, hold])
    ->  Move = L
    ;   atom_number(L, F), integer(F), between(1, Faces, F)
    ->  Move = F
    ;   game:shown(Text, Q),
        format(atom(M), "bad ~w move ~w: want roll or hold (or the die's face, 1-~d)", [G, Q, Faces]),
        game:bad_input(M)
    ).

game:move_text(G, Move, Text) :- params(G, _, _), term_to_atom(Move, Text).

game:board_lines(G, pos(S1, S2, K, T), Mover, Lines) :-
    params(G, Goal, Faces),
    format(string(L1), "p1 ~d  p2 ~d  (first to ~d; a ~d-faced die)", [S1, S2, Goal, Faces]),
    (   Mover == chance
    ->  format(string(L2), "~w rolls, turn total ~d", [T, K])
    ;   format(string(L2), "~w to play, turn total ~d", [T, K])
    ),
    Lines = [L1, L2].

%   The page draws the die's face chance last read.
game:drawn_as(G, dice(Faces)) :- params(G, _, Faces).

%   The state as numbers, as Viewer sees it (an environment's observation,
%   as OpenSpiel's pig gives its scores): its own score, the opponent's,
%   the turn total, and whose turn it is (1 its own, 2 the opponent's; the
%   die's, `chance`, sees it as the player whose turn it is).  A turn total
%   stays below Goal + Faces (one face past the goal at most).
game:cells(G, pos(S1, S2, K, T), Viewer, [Own, Other, K, Turn]) :-
    params(G, _, _),
    (   Viewer == chance -> Me = T ; Me = Viewer ),
    (   Me == p2 -> Own = S2, Other = S1 ; Own = S1, Other = S2 ),
    (   Me == T -> Turn = 1 ; Turn = 2 ).
game:cell_values(G, V) :- params(G, Goal, Faces), V is Goal + Faces.
