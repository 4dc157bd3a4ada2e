/*  Agents that play from a table of action values Q(x, a), learned in
    Python (learners/qlearn.py, the CA425 practical) and loaded here by the bridge.

    x is the state's text key, or for a full table ('#' followed by) the
    base-3 code of the board as the mover sees it (cells/4); a is the
    move's text.  A folded table (one row per class of symmetric states)
    has the class key of the state as x and the class key of the position
    the move leads to as a, so symmetric moves share their value.  An
    entry never learned counts as the agent's Unknown value (0; -1 for an
    agent that learns bounds, whose values are tie(LowerBound, VsRandom):
    the safest move, then among those the one that scores most against
    random play).  The agent plays a legal move of highest value, at random
    among equals: illegal actions are never played (the practical's
    hand-written checker).

        ?- q_load(a, tictactoe, text, 0, [['.../.../...', '5', 1.0]]),
           initial(tictactoe, P, M), candidates(agent(a), tictactoe, P, M, Ms).
        Ms = [5].
*/
:- module(qtable, [q_load/5, q_add/2, q_agent/3]).
:- use_module(game).
:- use_module(play).

:- dynamic q/4.          % q(Agent, X, MoveText, Value)
%!  q_agent(?Agent, ?Game, ?KeyKind) is nondet.
%   Agent plays Game from a table keyed by state text (text), board code
%   (code) or class key (class: folded by the game's symmetries).
:- dynamic q_agent/3.
:- dynamic q_unknown/2.  % q_unknown(Agent, Value): the value of an entry never learned

%!  q_load(+Agent, +Game, +KeyKind, +Unknown, +Rows:list) is det.
%   Replace Agent's table with Rows of [X, MoveText, Value]; an entry not
%   in the table is worth Unknown.
q_load(Agent, Game, Kind, Unknown, Rows) :-
    retractall(q(Agent, _, _, _)),
    retractall(q_agent(Agent, _, _)),
    retractall(q_unknown(Agent, _)),
    assertz(q_agent(Agent, Game, Kind)),
    assertz(q_unknown(Agent, Unknown)),
    q_add(Agent, Rows).

%!  q_add(+Agent, +Rows:list) is det.
%   Add rows [X, MoveText, Value] (a large table is loaded in several calls).
q_add(Agent, Rows) :-
    forall(member([X, M, V], Rows), assertz(q(Agent, X, M, V))).

state_x(text, Game, Pos, Mover, X) :- position_text(Game, Pos, Mover, X).
state_x(code, Game, Pos, Mover, X) :- cells_code(Game, Pos, Mover, C), format(atom(X), "#~d", [C]).
state_x(class, Game, Pos, Mover, X) :- canonical(Game, Pos, Mover, X).

play:scored_moves(agent(Agent), Game, Pos, Mover, Scored) :-
    q_agent(Agent, Game, Kind), !,
    state_x(Kind, Game, Pos, Mover, X),
    findall(V-M, ( legal(Game, Pos, Mover, M), action_a(Kind, Game, Pos, Mover, M, A), entry(Agent, X, A, V) ),
            Scored).

%   A move's a: the class key of the position it leads to (folded), else its text.
action_a(class, Game, Pos, Mover, M, A) :- !,
    step(Game, Pos, Mover, M, Pos1, Mover1),
    canonical(Game, Pos1, Mover1, A).
action_a(_, Game, _, _, M, T) :- move_text(Game, M, T).

entry(Agent, X, A, V) :- ( q(Agent, X, A, V0) -> V = V0 ; q_unknown(Agent, V) ).
