/*  An adversary for measuring learners: the chooser adversary(Victim)
    picks, in every position, the moves that give it the highest chance of
    winning against Victim's current choices (Victim picking uniformly among
    its candidate moves), computed by a full search of the game tree from
    the position.  Meant for small games (hexapawn); in tic-tac-toe each
    early move searches many thousands of positions.

        ?- play_game(hexapawn, [white-adversary(agent(a)), black-agent(a)], R, _, M).
*/
:- module(adversary, [win_chance/6]).
:- use_module(game).
:- use_module(play).

play:candidates(adversary(Victim), Game, Pos, Mover, Moves) :-
    !,
    findall(W-M, ( legal(Game, Pos, Mover, M), step(Game, Pos, Mover, M, P1, Next),
                   win_chance(Game, P1, Next, Mover, Victim, W) ), Scored),
    max_member(Best-_, Scored),
    findall(M, ( member(W-M, Scored), W >= Best - 1.0e-12 ), Moves).

%!  win_chance(+Game, +Pos, +ToMove, +Me, +Victim, -P:float) is det.
%   Probability that Me wins from the state when Me plays best and Victim
%   picks uniformly among its candidates.
win_chance(Game, Pos, ToMove, Me, Victim, P) :-
    (   over(Game, Pos, ToMove, R)
    ->  ( R == Me -> P = 1.0 ; P = 0.0 )
    ;   (   ToMove == Me
        ->  aggregate_all(max(W), ( legal(Game, Pos, ToMove, M), step(Game, Pos, ToMove, M, P1, Next),
                                    win_chance(Game, P1, Next, Me, Victim, W) ), P)
        ;   candidates(Victim, Game, Pos, ToMove, Ms),
            findall(W, ( member(M, Ms), step(Game, Pos, ToMove, M, P1, Next),
                         win_chance(Game, P1, Next, Me, Victim, W) ), Ws),
            sum_list(Ws, Sum), length(Ws, N),
            P is Sum / N
        )
    ).
