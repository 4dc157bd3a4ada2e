/*  The play loop of the six-pawns practical's skeleton, with pluggable move choosers.

    Skeleton name (Russian)        here
    'игра' game/4                  game/7 (play_game/5 starts it)
    'инициализировать'             initial/3
    'игра окончена'                over/4
    'выбрать ход'                  choose_move/5
    'ходить'                       next/5 (in step/6)
    'другой игрок'                 mover_after/5 (in step/6: the other
                                   player, unless the game gives an extra turn)
    'самообучение'                 after_game/5 (learners add clauses)
    'объявить', 'отобразить игру'  left to the caller (the CLI draws boards)

    A chooser is `random`, `minimax`, or a term a learner defines clauses of
    candidates/5 for (e.g. agent(Name)).  A chooser picks uniformly, with
    the seeded random generator, among its candidate moves.

        ?- set_random(seed(1)), play_game(tictactoe, [x-random, o-minimax], R, H, M).
*/
:- module(play,
          [ play_game/5,        % +Game, +Choosers, -Result, -History, -Moves
            choose_move/5,      % +Chooser, +Game, +Pos, +Mover, -Move
            candidates/5,       % +Chooser, +Game, +Pos, +Mover, -Moves
            play_series/5,      % +Game, +Choosers, +Games, +Seed, -Counts
            play_results/4,     % +Game, +ChooserSets, +Games, -Results
            play_scores/6,      % +Game, +Choosers, +Games, +Seed, +MaxMoves, -TotalsAndCut
            settle_chance/7,    % +Game, +Pos, +Mover, +Us, -Pos1, -Mover1, -Points
            env_start/2,        % +Game, -State
            env_at/3,           % +Game, +Key, -State
            env_step/4,         % +Game, +Key, +MoveText, -State
            env_step_settled/5, % +Game, +Key, +MoveText, +Us, -State
            game_total/4,       % +Game, +Moves, +End, -Total
            scored_moves/5,     % +Chooser, +Game, +Pos, +Mover, -Scored
            weighted_moves/5,   % +Chooser, +Game, +Pos, +Mover, -Weighted
            move_values/5       % +Chooser, +Game, +Key, -Pairs, -Best
          ]).
:- use_module(game).
:- use_module(solver).

%!  candidates(+Chooser, +Game, +Pos, +Mover, -Moves:list) is det.
%   The moves Chooser picks among (uniformly) in a state that is not over.
:- multifile candidates/5.
candidates(random, Game, Pos, Mover, Moves) :-
    findall(M, legal(Game, Pos, Mover, M), Moves).
candidates(minimax, Game, Pos, Mover, Moves) :-
    optimal_moves(Game, Pos, Mover, Moves).
candidates(Chooser, Game, Pos, Mover, Moves) :-
    weighted_moves(Chooser, Game, Pos, Mover, Weighted), !,
    findall(M, member(_-M, Weighted), Moves).
candidates(Chooser, Game, Pos, Mover, Moves) :-
    scored_moves(Chooser, Game, Pos, Mover, Scored), !,
    best_of(Scored, Moves).

%!  weighted_moves(+Chooser, +Game, +Pos, +Mover, -Weighted:list) is semidet.
%   A chooser that draws its move with probability proportional to a
%   weight (Michie's MENACE drawing a bead) defines this: Weighted is
%   Weight-Move for the moves of positive weight.  Its candidates are
%   those moves.
:- multifile weighted_moves/5.

%!  scored_moves(+Chooser, +Game, +Pos, +Mover, -Scored:list) is semidet.
%   Learners whose agents choose by value define this: Scored is Value-Move
%   for every legal move.  Such a chooser picks among the best values.  A
%   value may be tie(Value, TieBreak): the best values first, then among
%   them the best tie-breaks.
:- multifile scored_moves/5.

%!  values_changed(+Chooser, +Game, ?Pos, ?Mover) is det.
%   A learner calls this when Chooser's value for the state Pos/Mover
%   changed (Pos unbound: all its values), so that whatever remembers the
%   chooser's play (the adversary's memo) can forget what it used.
:- multifile values_changed/4.

%   The moves of highest value (then of highest tie-break); values tie
%   numerically (-0.0 ties 0.0).
best_of([], []) :- !.
best_of(Scored, Moves) :-
    findall(P-T-M, ( member(S-M, Scored), value_parts(S, P, T) ), Parts),
    aggregate_all(max(P), member(P-_-_, Parts), Best),
    aggregate_all(max(T), ( member(P-T-_, Parts), P =:= Best ), BestTie),
    findall(M, ( member(P-T-M, Parts), P =:= Best, T =:= BestTie ), Moves).

value_parts(tie(V, T), V, T) :- !.
value_parts(V, V, 0).

%!  move_values(+Chooser, +Game, +Key, -Pairs:list, -Best:list) is det.
%   For `query`: [MoveText, Value] for each legal move of the state Key
%   (for a chooser that scores moves; the value without its tie-break), and
%   the move texts it picks among.
move_values(Chooser, Game, Key, Pairs, Best) :-
    parse_position(Game, Key, Pos, Mover),
    scored_moves(Chooser, Game, Pos, Mover, Scored),
    findall([T, V], ( member(S-M, Scored), value_parts(S, V, _), move_text(Game, M, T) ), Pairs),
    best_of(Scored, Moves),
    maplist(move_text(Game), Moves, Best).

%!  after_game(+Chooser, +Game, +Player, +History, +Result) is det.
%   'самообучение': called for each player's chooser when a game ends.
%   History is the skeleton's list of Position/WhoMovedThere, newest first.
:- multifile after_game/5.

learn_after(Choosers, Game, History, Result) :-
    forall(( member(Player-Chooser, Choosers),
             clause(after_game(Chooser, _, _, _, _), _) ),
           ignore(after_game(Chooser, Game, Player, History, Result))).

%!  choose_move(+Chooser, +Game, +Pos, +Mover, -Move) is semidet.
%   'выбрать ход': a random member of the chooser's candidates.
choose_move(Chooser, Game, Pos, Mover, Move) :-
    weighted_moves(Chooser, Game, Pos, Mover, Weighted), !,
    Weighted \== [],
    aggregate_all(sum(W), member(W-_, Weighted), Total),
    R is random_float * Total,
    pick_weighted(Weighted, R, Move).
choose_move(Chooser, Game, Pos, Mover, Move) :-
    candidates(Chooser, Game, Pos, Mover, Moves),
    length(Moves, N),
    N > 0,
    I is random(N),
    nth0(I, Moves, Move).

%   The chooser of the mover: the player's, or `chance` for a chance node.
mover_chooser(Mover, Choosers, Chooser) :-
    (   memberchk(Mover-Chooser0, Choosers) -> Chooser = Chooser0
    ;   chance_mover(Mover) -> Chooser = chance
    ).

%   Chance draws an outcome with its probability (chance_weight/4, else
%   uniform): the weights as floats are exact enough for a draw.
weighted_moves(chance, Game, Pos, _, Weighted) :-
    findall(W-M, ( legal(Game, Pos, chance, M), outcome_weight(Game, Pos, M, W0), W is float(W0) ), Weighted).

%!  settle_chance(+Game, +Pos, +Mover, +Us:list, -Pos1, -Mover1, -Points) is det.
%   Chance moves from Pos while chance is to move and Us has a number left:
%   each outcome drawn by the next number U of [0, 1) with its weight (as
%   the caller's generator drew U); Points what those moves scored.  An
%   environment's step (bridge/field.py) thus takes one query, the
%   player's move and the tile or the die after it.
settle_chance(Game, Pos, Mover, [U|Us], Pos1, Mover1, Points) :-
    chance_mover(Mover),
    \+ over(Game, Pos, Mover, _), !,
    weighted_moves(chance, Game, Pos, Mover, Weighted),
    pairs_keys(Weighted, Ws),
    sum_list(Ws, Total),
    R is U * Total,
    pick_weighted(Weighted, R, Move),
    move_points(Game, Pos, Mover, Move, P0),
    step(Game, Pos, Mover, Move, Pos2, Mover2),
    settle_chance(Game, Pos2, Mover2, Us, Pos1, Mover1, P1),
    Points is P0 + P1.
settle_chance(_, Pos, Mover, _, Pos, Mover, 0).

%!  env_start(+Game, -State:list) is det.
%!  env_at(+Game, +Key, -State:list) is det.
%!  env_step(+Game, +Key, +MoveText, -State:list) is det.
%!  env_step_settled(+Game, +Key, +MoveText, +Us:list, -State:list) is det.
%   The states of the field's environments (bridge/field.py), each in one
%   call: the first state, the state a text names, the state after a move
%   (its mover moving; an illegal move is the game's bad input) and the
%   state after a move and the chance moves settle_chance/7 draws after it.
%   State is [Key, Mover, Result, MoveTexts, Weights, Points, End, Cells]:
%   Result null while the game goes on, `score` (End its final points) or
%   the game's result; Weights the chance outcomes' weights (else []);
%   Points what the step scored; Cells each player's cells/4, [] without.
env_start(Game, State) :-
    initial(Game, Pos, Mover),
    env_state(Game, Pos, Mover, 0.0, State).
env_at(Game, Key, State) :-
    env_position(Game, Key, Pos, Mover),
    env_state(Game, Pos, Mover, 0.0, State).
env_step(Game, Key, MoveText, State) :-
    env_position(Game, Key, Pos, Mover),
    parse_move(Game, MoveText, Move),
    play_move(Game, Pos, Mover, Move, Pos1, Mover1),
    move_points(Game, Pos, Mover, Move, Points),
    env_state(Game, Pos1, Mover1, Points, State).
env_step_settled(Game, Key, MoveText, Us, State) :-
    env_position(Game, Key, Pos, Mover),
    parse_move(Game, MoveText, Move),
    play_move(Game, Pos, Mover, Move, Pos2, Mover2),
    move_points(Game, Pos, Mover, Move, Points0),
    settle_chance(Game, Pos2, Mover2, Us, Pos1, Mover1, Points1),
    env_state(Game, Pos1, Mover1, Points0 + Points1, State).

%   The state the last answer named is remembered (one global variable a
%   thread, replaced by the next: nothing grows), so that the step from it,
%   an environment's next call, does not parse its text again.
env_position(Game, Key, Pos, Mover) :-
    (   nb_current(play_env_last, last(Game0, Key0, Pos0, Mover0)), Game0 == Game, Key0 == Key
    ->  Pos = Pos0, Mover = Mover0
    ;   parse_position(Game, Key, Pos, Mover)
    ).

env_state(Game, Pos, Mover, Points, [Key, Mover, Result, Texts, Weights, Pts, End, Cells]) :-
    Pts is float(Points),
    position_text(Game, Pos, Mover, Key),
    nb_setval(play_env_last, last(Game, Key, Pos, Mover)),
    (   over(Game, Pos, Mover, R)
    ->  Texts = [], Weights = [],
        ( R = score(N) -> Result = score, End is float(N)
        ; R = payoff(N) -> Result = payoff, End is float(N)       % hidden information: N to the first player
        ; Result = R, End = 0.0 )
    ;   Result = null, End = 0.0,
        findall(M, legal(Game, Pos, Mover, M), Moves),
        findall(T, ( member(M, Moves), move_text(Game, M, T) ), Texts),
        (   chance_mover(Mover)
        ->  findall(W, ( member(M, Moves), outcome_weight(Game, Pos, M, W0), W is float(W0) ), Weights)
        ;   Weights = []
        )
    ),
    players(Game, Viewers),
    (   catch(findall(C, ( member(V, Viewers), cells(Game, Pos, V, C) ), Cells), _, fail)
    ->  true
    ;   Cells = []
    ).

pick_weighted([W-M|Rest], R, Move) :-
    (   ( R < W ; Rest == [] ) -> Move = M ; R1 is R - W, pick_weighted(Rest, R1, Move) ).

%!  play_game(+Game, +Choosers, -Result, -History, -Moves) is det.
%   Play one game; Choosers pairs each player with its chooser, e.g.
%   [x-random, o-minimax].  Moves is the list of moves in order.
play_game(Game, Choosers, Result, History, Moves) :-
    initial(Game, Pos, Mover),                          % 'инициализировать'
    endless_plies(Max),
    game(Game, Choosers, Pos, Mover, Max, [], Result, History, Moves),
    learn_after(Choosers, Game, History, Result).        % 'самообучение'

%   game(Game, Choosers, Position, Gamer, PliesLeft, History, Result, FinalHistory, Moves)
%   A game still going after endless_plies/1 moves is taken not to end and
%   scored a draw, as solve scores a line that never ends.
game(Game, _, Pos, Mover, _, History, Result, History, []) :-
    over(Game, Pos, Mover, Result), !.                  % 'игра окончена'
game(_, _, _, _, 0, History, draw, History, []) :- !.
game(Game, Choosers, Pos, Mover, Left, History, Result, Final, [Move|Moves]) :-
    mover_chooser(Mover, Choosers, Chooser),
    choose_move(Chooser, Game, Pos, Mover, Move), !,     % 'выбрать ход'
    step(Game, Pos, Mover, Move, Pos1, Other),          % 'ходить', 'другой игрок'
    Left1 is Left - 1,
    game(Game, Choosers, Pos1, Other, Left1, [Pos1/Mover|History], Result, Final, Moves).

%!  play_series(+Game, +Choosers, +Games, +Seed, -Counts) is det.
%   Play Games games in one query with the random generator seeded by Seed;
%   Counts is json([Result-N, ...]) for every result that occurred, where a
%   game still going after endless_plies/1 moves (scored a draw) is `cut`.
play_series(Game, Choosers, Games, Seed, json(Counts)) :-
    set_random(seed(Seed)),
    play_results(Game, [Choosers], Games, Results),
    msort(Results, Sorted),
    clumped(Sorted, Counts).

%!  play_scores(+Game, +Choosers, +Games, +Seed, +MaxMoves, -TotalsAndCut:list) is det.
%   Play Games games of a game of score (one player, e.g. [player-random])
%   from the start: TotalsAndCut is [Totals, Cut], each game's total as a
%   float (its moves' points and its end's score(N)) and the number of
%   games still going after MaxMoves moves, whose totals are those of the
%   moves made (so that a mean with a cut game is a lower bound).  No
%   history is kept: a long game takes no more memory than a short one.
%   The caller keeps Games small (a page of games a call).
play_scores(Game, Choosers, Games, Seed, Max, [Totals, Cut]) :-
    set_random(seed(Seed)),
    initial(Game, Pos, Mover),
    findall(T-C, ( between(1, Games, _),
                   score_game(Game, Choosers, Pos, Mover, Max, 0, T0, C),
                   catch(T is float(T0), error(evaluation_error(_), _),
                         game:bad_input("points past the float range: educable counts a game's points as floats, at most about 1.8e308")) ), Pairs),
    pairs_keys_values(Pairs, Totals, Cuts),
    sum_list(Cuts, Cut).

score_game(Game, _, Pos, Mover, _, Sum, Total, 0) :-
    over(Game, Pos, Mover, End), !,
    (   End = score(N) -> Total is Sum + N ; Total = Sum ).
score_game(_, _, _, _, 0, Sum, Sum, 1) :- !.
score_game(Game, Choosers, Pos, Mover, Left, Sum0, Total, Cut) :-
    mover_chooser(Mover, Choosers, Chooser),
    choose_move(Chooser, Game, Pos, Mover, Move), !,
    move_points(Game, Pos, Mover, Move, Points),
    step(Game, Pos, Mover, Move, Pos1, Mover1),
    Sum1 is Sum0 + Points,
    Left1 is Left - 1,
    score_game(Game, Choosers, Pos1, Mover1, Left1, Sum1, Total, Cut).

%!  game_total(+Game, +Moves:list, +End, -Total) is det.
%   The score of a game of score played by Moves from the start: the
%   points of its moves (move_points/5) plus its end's score(N); exact
%   (integers or rationals).  An End that is no score(N) (a game cut off
%   after endless_plies/1 moves) adds nothing.
game_total(Game, Moves, End, Total) :-
    initial(Game, Pos, Mover),
    points_along(Moves, Game, Pos, Mover, 0, Sum),
    (   End = score(N) -> Total is Sum + N ; Total = Sum ).

points_along([], _, _, _, Sum, Sum).
points_along([Move|Moves], Game, Pos, Mover, Sum0, Sum) :-
    move_points(Game, Pos, Mover, Move, Points),
    step(Game, Pos, Mover, Move, Pos1, Mover1),
    Sum1 is Sum0 + Points,
    points_along(Moves, Game, Pos1, Mover1, Sum1, Sum).

%!  play_results(+Game, +ChooserSets:list, +Games, -Results:list) is det.
%   Play Games games, game I with the chooser set number I mod length of
%   ChooserSets (so [[x-A, o-B], [x-B, o-A]] alternates sides); choosers
%   that learn do so after every game.  Results lists each game's result,
%   `cut` for a game still going after endless_plies/1 moves (a draw to
%   the learners).
%   Uses the random generator as it stands (seed it first).
play_results(Game, Sets, Games, Results) :-
    length(Sets, K),
    results_(0, Games, K, Sets, Game, Results).

results_(I, N, _, _, _, []) :- I >= N, !.
results_(I, N, K, Sets, Game, [R|Rs]) :-
    J is I mod K,
    nth0(J, Sets, Choosers),
    play_game(Game, Choosers, R0, _, Moves),
    endless_plies(Max),
    (   R0 == draw, length(Moves, Max) -> R = cut ; R = R0 ),     % learned from as a draw, reported cut
    I1 is I + 1,
    results_(I1, N, K, Sets, Game, Rs).
