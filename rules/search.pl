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
    - puct(Iterations, Agent): AlphaZero-style search around a learned
      agent, as GBG's MCTS wrapper (MCTSWrapperAgent) does it: no random
      games; a node is expanded by valuing each of its children with Agent
      (leaf_value/5: the mover's value of the position it moves into, each
      side by its own weights; a finished child by its result: 1, 0, -1);
      the node's value is the best of those, its move priors their softmax;
      selection by PUCT, Q + c * P * sqrt(sum N) / (1 + N), with c = 1 and Q
      the mean value of the move's visits (0 while unvisited); the move
      played is the most visited (ties: the higher prior).  Each iteration
      walks from the root to one node not yet expanded (or a finished one),
      so Iterations 1 plays as Agent alone.  `mcts:N+AGENT` names it.

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
play:scored_moves(expectimax(Depth, Leaf), Game, Pos, Mover, Scored) :-
    search_scores(expectimax(Depth, Leaf), Game, Pos, Mover, Scored).
play:candidates(mcts(Playouts), Game, Pos, Mover, [Move]) :-
    search_scores(mcts(Playouts), Game, Pos, Mover, Scored),
    max_member(_-Move, Scored).
play:candidates(puct(Iterations, Agent), Game, Pos, Mover, [Move]) :-
    puct_root(Game, Agent, Pos, Mover, Iterations, Edges),
    findall(N-P-M, member(edge(M, P, N, _, _, _, _, _), Edges), Ranked),
    max_member(_-_-Move, Ranked).

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
search_scores(expectimax(Depth, Leaf), Game, Pos, Mover, Scored) :-
    D1 is Depth - 1,
    findall(V-M, ( legal(Game, Pos, Mover, M), move_points(Game, Pos, Mover, M, Pt), step(Game, Pos, Mover, M, P1, M1),
                   expectimax(s(Game, Leaf, Mover), P1, M1, Mover, D1, V0), V is Pt + V0 ), Scored).
search_scores(puct(Iterations, Agent), Game, Pos, Mover, Scored) :-
    puct_root(Game, Agent, Pos, Mover, Iterations, Edges),
    findall(N-M, member(edge(M, _, N, _, _, _, _, _), Edges), Scored).
search_scores(mcts(Playouts, Leaf), Game, Pos, Mover, Scored) :-
    new_node(Game, Pos, Mover, Root),
    uct_loop(Playouts, Game, Leaf, Root),
    arg(3, Root, Children),
    findall(N-M, ( member(child(M, Node), Children), arg(1, Node, N) ), Scored).

% ------------------------------------------------------------- expectimax
%   expectimax(Depth, Leaf): the searching player's expected result
%   (1 a win, 0 a draw, -1 a loss; in a game of score, the points its
%   moves score and its end adds) of each move, Depth of the players'
%   moves ahead (chance's outcomes are not counted): the searching player
%   takes its best move, an opponent the searching player's worst, and a
%   chance node the mean of its outcomes weighted by their probabilities
%   (chance_weight/4).  At the horizon a position the searching player has
%   just moved into is valued by Leaf (an agent, leaf_value/5: for a game
%   of chance, the afterstate, before chance acts), or 0 with `none`, whose
%   horizon comes after chance's outcomes; a horizon an opponent moved into
%   is searched one move further, as alpha-beta does.
%   `expectimax:D` and `expectimax:D+AGENT` name it.
expectimax(S, Pos, Mover, Moved, Depth, Value) :-
    S = s(Game, Leaf, Root),
    (   over(Game, Pos, Mover, Result)
    ->  result_for(Result, Root, Value)
    ;   \+ ( chance_mover(Mover), Leaf == none ),     % without an agent, chance is rolled before the horizon
        at_horizon(Depth, Leaf, Moved, Root)
    ->  (   Leaf == none -> Value = 0
        ;   Moved == Root, play:leaf_value(Leaf, Game, Pos, Root, V0) -> Value = V0
        ;   Value = 0
        )
    ;   chance_mover(Mover)
    ->  findall(W-V, ( legal(Game, Pos, Mover, M), outcome_weight(Game, Pos, M, W),
                       step(Game, Pos, Mover, M, P1, M1),
                       expectimax(S, P1, M1, Moved, Depth, V) ), Pairs),
        weighted_mean(Pairs, Value)
    ;   D1 is Depth - 1,
        findall(V, ( legal(Game, Pos, Mover, M), move_points(Game, Pos, Mover, M, Pt), step(Game, Pos, Mover, M, P1, M1),
                     expectimax(S, P1, M1, Mover, D1, V0), V is Pt + V0 ), Vs),
        (   Mover == Root -> max_list(Vs, Value) ; min_list(Vs, Value) )
    ).

result_for(draw, _, 0) :- !.
result_for(score(N), _, N) :- !.          % a game of score: the points its end adds
result_for(Root, Root, 1) :- !.
result_for(_, _, -1).

%   The mean of the values weighted by their (exact) weights: exact (a
%   rational) while the values are, so that moves of equal value tie
%   (a float sum may split a tie as its terms come in another order),
%   else a float (an agent values the horizon).
weighted_mean(Pairs, Mean) :-
    foldl(add_weighted, Pairs, 0-0, Sum-Total),
    (   rational(Sum) -> Mean is Sum rdiv Total ; Mean is float(Sum / Total) ).

add_weighted(W-V, S0-T0, S-T) :- S is S0 + W * V, T is T0 + W.

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
    no_chance(Mover, alphabeta),
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
    no_chance(Mover, mcts),
    (   over(Game, Pos, Mover, R) -> Result = R ; Result = none ).

%   alpha-beta, mcts and the wrapper search games without chance: a chance
%   node is refused in a line (expectimax searches them).
no_chance(Mover, Search) :-
    (   chance_mover(Mover)
    ->  format(atom(Msg), "~w searches games without chance; this game has chance nodes (use expectimax:DEPTH)", [Search]),
        bad_input(Msg)
    ;   true
    ).

uct_loop(0, _, _, _) :- !.
uct_loop(N, Game, Leaf, Root) :-
    playout(Game, Leaf, Root, _),
    arg(1, Root, V0), V is V0 + 1, setarg(1, Root, V),
    N1 is N - 1,
    uct_loop(N1, Game, Leaf, Root).

%   One playout through Node (select, expand, play a random game from the
%   new leaf, back up); Outcome is the game's result.  Each child on the
%   path is credited by its parent.
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

leaf(rollout, Game, Pos, Mover, _, Winner) :-
    rollout(Game, Pos, Mover, Winner).

%   Credit Child, which Mover moved into, with Outcome: a win 2, a draw 1, a
%   loss 0.
credit(Child, Outcome, Mover) :-
    arg(1, Child, V0), V is V0 + 1, setarg(1, Child, V),
    arg(2, Child, W0),
    (   Outcome == Mover -> W is W0 + 2
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

% ------------------------------------------------------------------ PUCT
%   A node is pnode(Expanded, Edges, Pos, Mover, Result); once expanded,
%   Edges is a list of edge(Move, Prior, Visits, ValueSum, Pos1, Mover1,
%   Result1, Child): ValueSum adds the values of the move's visits for the
%   node's Mover, and Child is `none` until the move is first walked.  The
%   tree is one term updated in place with setarg/3 in a deterministic loop.

puct_c(1.0).                         % GBG's c_puct

%   The root's edges after Iterations walks.
puct_root(Game, Agent, Pos, Mover, Iterations, Edges) :-
    Root = pnode(false, [], Pos, Mover, none),
    puct_loop(Iterations, Game, Agent, Root),
    arg(2, Root, Edges).

puct_loop(0, _, _, _) :- !.
puct_loop(N, Game, Agent, Root) :-
    puct_walk(Game, Agent, Root, _),
    N1 is N - 1,
    puct_loop(N1, Game, Agent, Root).

%   One walk from Node: V is the value it finds, for Node's Mover.
puct_walk(Game, Agent, Node, V) :-
    Node = pnode(Expanded, Edges, _, Mover, Result),
    (   Result \== none
    ->  result_value(Result, Mover, V)
    ;   Expanded == false
    ->  puct_expand(Game, Agent, Node, V)
    ;   puct_select(Edges, Edge),
        Edge = edge(_, _, N, W, P1, M1, R1, Child0),
        (   Child0 == none
        ->  Child = pnode(false, [], P1, M1, R1), setarg(8, Edge, Child)
        ;   Child = Child0
        ),
        puct_walk(Game, Agent, Child, V1),
        (   M1 == Mover -> V = V1 ; V is -V1 ),
        N1 is N + 1, W1 is W + V,
        setarg(3, Edge, N1), setarg(4, Edge, W1)
    ).

%   Expand Node: each child valued for Mover (finished ones by their
%   result), priors the softmax of those values; V the best of them.
puct_expand(Game, Agent, Node, V) :-
    Node = pnode(_, _, Pos, Mover, _),
    no_chance(Mover, 'mcts:N+AGENT'),
    findall(e(M, Val, P1, M1, R1),
            ( legal(Game, Pos, Mover, M), step(Game, Pos, Mover, M, P1, M1),
              (   over(Game, P1, M1, R) -> R1 = R, result_value(R, Mover, Val)
              ;   R1 = none, play:leaf_value(Agent, Game, P1, Mover, Val)
              ) ),
            Es),
    Es \== [],
    aggregate_all(max(X), member(e(_, X, _, _, _), Es), V),
    aggregate_all(sum(E), ( member(e(_, X, _, _, _), Es), E is exp(X - V) ), Z),
    findall(edge(M, Prior, 0, 0.0, P1, M1, R1, none),
            ( member(e(M, X, P1, M1, R1), Es), Prior is exp(X - V) / Z ),
            Edges),
    setarg(2, Node, Edges),
    setarg(1, Node, true).

result_value(draw, _, 0) :- !.
result_value(Winner, Mover, 1) :- Winner == Mover, !.
result_value(_, _, -1).

%   The edge of highest Q + c * P * sqrt(sum N + 1e-8) / (1 + N); the first
%   of equals (GBG's EPS 1e-8: before any visit, the highest prior).
puct_select(Edges, Best) :-
    aggregate_all(sum(N), member(edge(_, _, N, _, _, _, _, _), Edges), Total),
    puct_c(C),
    Sq is C * sqrt(Total + 1.0e-8),
    puct_best(Edges, Sq, none, -1.0e300, Best).

puct_best([], _, Best, _, Best).
puct_best([E|Es], Sq, Best0, Score0, Best) :-
    E = edge(_, P, N, W, _, _, _, _),
    (   N > 0 -> Q is W / N ; Q = 0.0 ),
    Score is Q + P * Sq / (1 + N),
    (   Score > Score0
    ->  puct_best(Es, Sq, E, Score, Best)
    ;   puct_best(Es, Sq, Best0, Score0, Best)
    ).
