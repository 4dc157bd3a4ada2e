/*  Two built-in opponents that scale to games too large to solve: they look
    ahead from the position in front of them and never need the whole game.

    - alphabeta(Depth): negamax search with alpha-beta pruning to Depth
      plies.  A finished game scores 1000 less the plies it took (so a
      quicker win is better, a slower loss less bad); the search horizon
      scores 0 (unknown).  Its candidates are every move of the best score.
    - alphabeta(Depth, Agent): the same search, but a position at the
      horizon is valued by Agent (leaf_value/5), scaled to -900..900, so
      any win or loss the search sees still outweighs it.  Only positions
      the searching player has just moved into are valued: a horizon the
      opponent moved into is searched one ply further (so depth 2 plays as
      depth 3 where turns alternate), because an agent with a set of
      weights for each player judges the searching player's chances best
      with that player's own weights.  At depth 1 it plays as Agent does
      on its own.
    - mcts(Playouts): Monte Carlo tree search (UCT, exploration constant
      sqrt 2) with Playouts random games from the position; its candidate
      is the most visited move.
    - mcts(Playouts, Agent): the same search, but a new leaf is valued by
      Agent (leaf_value/5: an n-tuple agent's value of the position for
      the player who moved into it) instead of a random game.

    Both use the seeded random generator only where the game's own play
    does (mcts's playouts), so a seed repeats a game exactly.

        ?- initial('connect(4,7,6)', P, M), play:candidates(mcts(200), 'connect(4,7,6)', P, M, Moves).
*/
:- module(search,
          [ search_scores/5      % +Chooser, +Game, +Pos, +Mover, -Scored
          ]).
:- use_module(game).

:- multifile play:candidates/5.
%   alphabeta(D) scores every move (play.pl picks among the best scores);
%   mcts(N) plays its most visited move.
:- multifile play:scored_moves/5.
play:scored_moves(alphabeta(Depth), Game, Pos, Mover, Scored) :-
    search_scores(alphabeta(Depth), Game, Pos, Mover, Scored).
play:scored_moves(alphabeta(Depth, Agent), Game, Pos, Mover, Scored) :-
    search_scores(alphabeta(Depth, Agent), Game, Pos, Mover, Scored).
play:candidates(mcts(Playouts), Game, Pos, Mover, [Move]) :-
    search_scores(mcts(Playouts), Game, Pos, Mover, Scored),
    max_member(_-Move, Scored).
play:candidates(mcts(Playouts, Agent), Game, Pos, Mover, [Move]) :-
    search_scores(mcts(Playouts, Agent), Game, Pos, Mover, Scored),
    max_member(_-Move, Scored).

%!  leaf_value(+Chooser, +Game, +Pos, +Player, -Value) is semidet.
%   A learner whose agents value positions defines this: Value in -1..1 is
%   Chooser's value of Pos for Player (who has just moved).  mcts(N, Agent)
%   values its leaves with it, alphabeta(D, Agent) its horizon.
:- multifile play:leaf_value/5.

%!  search_scores(+Chooser, +Game, +Pos, +Mover, -Scored:list) is det.
%   Score-Move for every legal move of a state that is not over.  For
%   alphabeta(D) the score is the move's exact depth-D negamax value (1000
%   less the plies to a won end, its negation for a lost one, 0 for a draw
%   or the horizon; alphabeta(D, Agent): Agent's value there times 900);
%   for mcts(N) it is the move's visit count.
search_scores(alphabeta(Depth), Game, Pos, Mover, Scored) :-
    search_scores(alphabeta(Depth, none), Game, Pos, Mover, Scored).
search_scores(alphabeta(Depth, Leaf), Game, Pos, Mover, Scored) :-
    D1 is Depth - 1,
    findall(M-(P1/M1), ( legal(Game, Pos, Mover, M), step(Game, Pos, Mover, M, P1, M1) ), Children),
    root_scores(Children, s(Game, Leaf, Mover), Mover, D1, -10000, Scored).
search_scores(mcts(Playouts), Game, Pos, Mover, Scored) :-
    search_scores(mcts(Playouts, rollout), Game, Pos, Mover, Scored).
search_scores(mcts(Playouts, Leaf), Game, Pos, Mover, Scored) :-
    new_node(Game, Pos, Mover, Root),
    uct_loop(Playouts, Game, Leaf, Root),
    arg(3, Root, Children),
    findall(N-M, ( member(child(M, Node), Children), arg(1, Node, N) ), Scored).

% ------------------------------------------------------------- alpha-beta
%   Each root move is searched with a window just below the best so far, so
%   moves that tie the best get their exact score (all best moves are kept).
%   S is s(Game, Leaf, Root): Leaf values the horizon (none: 0) at positions
%   Root (the searching player) has just moved into.
root_scores([], _, _, _, _, []).
root_scores([M-(P1/M1)|Cs], S, Mover, D, Best0, [V-M|Vs]) :-
    Alpha is Best0 - 1,
    child_value(S, Mover, P1, M1, D, 1, Alpha, 10000, V),
    Best is max(Best0, V),
    root_scores(Cs, S, Mover, D, Best, Vs).

%   Pos's value for Mover, to move there; Moved moved into it.
negamax(S, Pos, Mover, Moved, Depth, Ply, Alpha, Beta, Value) :-
    S = s(Game, Leaf, Root),
    (   over(Game, Pos, Mover, Result)
    ->  end_score(Result, Mover, Ply, Value)
    ;   at_horizon(Depth, Leaf, Moved, Root)
    ->  horizon_score(Leaf, Game, Pos, Mover, Moved, Value)
    ;   D1 is Depth - 1, Ply1 is Ply + 1,
        findall(P1/M1, ( legal(Game, Pos, Mover, M), step(Game, Pos, Mover, M, P1, M1) ), Children),
        best_child(Children, S, Mover, D1, Ply1, Alpha, Beta, -10000, Value)
    ).

%   The search stops here: Depth is spent and nothing values the horizon,
%   or Root has just moved (an agent values Root's positions with Root's
%   own weights); a horizon the opponent moved into is searched one ply
%   further (Depth -1).
at_horizon(Depth, Leaf, Moved, Root) :-
    Depth =< 0,
    ( Leaf == none ; Moved == Root ; Depth < 0 ),
    !.

best_child([], _, _, _, _, _, _, Best, Best).
best_child([P1/M1|Ps], S, Mover, D, Ply, Alpha, Beta, Best0, Best) :-
    child_value(S, Mover, P1, M1, D, Ply, Alpha, Beta, V),
    Best1 is max(Best0, V),
    Alpha1 is max(Alpha, V),
    (   Alpha1 >= Beta
    ->  Best = Best1
    ;   best_child(Ps, S, Mover, D, Ply, Alpha1, Beta, Best1, Best)
    ).

%   The value for Mover of the state P1 (M1 to move) within the window
%   Alpha..Beta: negated, window and all, when the turn passes.
child_value(S, Mover, P1, M1, D, Ply, Alpha, Beta, V) :-
    (   M1 == Mover
    ->  negamax(S, P1, M1, Mover, D, Ply, Alpha, Beta, V)
    ;   NA is -Beta, NB is -Alpha,
        negamax(S, P1, M1, Mover, D, Ply, NA, NB, V1),
        V is -V1
    ).

%   The horizon's score for Mover (to move at Pos): 0 without an agent;
%   with one, its value for Moved (who moved into Pos, as the agent values
%   positions), in steps of 1e-9 as the agent compares moves, times 900 and
%   negated when the turn passed.
horizon_score(none, _, _, _, _, 0) :- !.
horizon_score(Leaf, Game, Pos, Mover, Moved, Value) :-
    play:leaf_value(Leaf, Game, Pos, Moved, V0),
    V is round(V0 * 1.0e9) / 1.0e9,
    (   Moved == Mover -> Value is 900 * V ; Value is -900 * V ).

end_score(draw, _, _, 0) :- !.
end_score(Mover, Mover, Ply, V) :- !, V is 1000 - Ply.
end_score(_, _, Ply, V) :- V is Ply - 1000.

% ------------------------------------------------------------------- UCT
%   A node is node(Visits, Wins, Children, Pos, Mover, Result): Wins are
%   from the viewpoint of the player who moved into the node (a draw counts
%   half); Children is unbound until the node is expanded, then a list of
%   child(Move, Node).  The tree is one term updated in place with
%   setarg/3 inside a deterministic loop.
new_node(Game, Pos, Mover, node(0, 0, _, Pos, Mover, Result)) :-
    (   over(Game, Pos, Mover, R) -> Result = R ; Result = none ).

uct_loop(0, _, _, _) :- !.
uct_loop(N, Game, Leaf, Root) :-
    playout(Game, Leaf, Root, _),
    arg(1, Root, V0), V is V0 + 1, setarg(1, Root, V),
    N1 is N - 1,
    uct_loop(N1, Game, Leaf, Root).

%   One playout through Node (select, expand, value the new leaf, back up);
%   Outcome is the game's result (a random game's, with Leaf = rollout), or
%   value(Player, V): Leaf's value V of the new leaf for Player.  Each child
%   on the path is credited by its parent.
playout(Game, Leaf, Node, Outcome) :-
    Node = node(_, _, Children, Pos, Mover, Result),
    (   Result \== none
    ->  Outcome = Result
    ;   var(Children)
    ->  findall(child(M, C), ( legal(Game, Pos, Mover, M), step(Game, Pos, Mover, M, P1, M1),
                               new_node(Game, P1, M1, C) ), Cs),
        setarg(3, Node, Cs),
        random_member(child(_, Child), Cs),
        Child = node(_, _, _, P2, M2, R2),
        (   R2 \== none -> Outcome = R2 ; leaf(Leaf, Game, P2, M2, Mover, Outcome) ),
        credit(Child, Outcome, Mover)
    ;   arg(1, Node, Visits),
        select_child(Children, Visits, Child),
        playout(Game, Leaf, Child, Outcome),
        credit(Child, Outcome, Mover)
    ).

leaf(rollout, Game, Pos, Mover, _, Winner) :- !,
    rollout(Game, Pos, Mover, Winner).
leaf(Agent, Game, Pos, _, Moved, value(Moved, V)) :-
    play:leaf_value(Agent, Game, Pos, Moved, V).

%   Credit Child, which Mover moved into, with Outcome: a win 2, a draw 1, a
%   loss 0; a value V for a player, 1 + V from that player's side.
credit(Child, Outcome, Mover) :-
    arg(1, Child, V0), V is V0 + 1, setarg(1, Child, V),
    arg(2, Child, W0),
    (   Outcome = value(P, X) -> ( P == Mover -> W is W0 + 1 + X ; W is W0 + 1 - X )
    ;   Outcome == Mover -> W is W0 + 2
    ;   Outcome == draw -> W is W0 + 1
    ;   W = W0
    ),
    setarg(2, Child, W).

%   The child of highest upper confidence bound; an unvisited one first.
select_child(Children, Visits, Best) :-
    LogN is log(max(1, Visits)),
    select_(Children, LogN, none, -1.0, Best).

select_([], _, Best, _, Best) :- Best \== none.
select_([child(_, C)|Cs], LogN, Best0, Score0, Best) :-
    arg(1, C, N), arg(2, C, W),
    (   N =:= 0
    ->  Best = C                                        % an unvisited child first
    ;   Score is W / (2 * N) + sqrt(2 * LogN / N),
        (   Score > Score0
        ->  select_(Cs, LogN, C, Score, Best)
        ;   select_(Cs, LogN, Best0, Score0, Best)
        )
    ).

rollout(Game, Pos, Mover, Winner) :-
    endless_plies(Max),
    rollout(Game, Pos, Mover, Max, Winner).

%   A random game still going after endless_plies/1 moves is a draw.
rollout(Game, Pos, Mover, Left, Winner) :-
    (   over(Game, Pos, Mover, R)
    ->  Winner = R
    ;   Left =:= 0
    ->  Winner = draw
    ;   findall(M, legal(Game, Pos, Mover, M), Ms),
        random_member(M, Ms),
        step(Game, Pos, Mover, M, P1, M1),
        Left1 is Left - 1,
        rollout(Game, P1, M1, Left1, Winner)
    ).
