/*  Agents that play from a table of action values Q(x, a), learned in
    Python (learners/qlearn.py, the CA425 practical) and loaded here by the bridge.

    x is the state's text key, or for a full table ('#' followed by) the
    base-3 code of the board as the mover sees it (cells/4); a is the
    move's text.  An entry never learned counts as 0.  The agent plays a
    legal move of highest value, at random among equals: illegal actions are
    never played (the practical's hand-written checker).

        ?- q_load(a, tictactoe, text, [['.../.../...', '5', 1.0]]),
           initial(tictactoe, P, M), candidates(agent(a), tictactoe, P, M, Ms).
        Ms = [5].
*/
:- module(qtable, [q_load/4, q_add/2, q_agent/3]).
:- use_module(game).
:- use_module(play).

:- dynamic q/4.          % q(Agent, X, MoveText, Value)
%!  q_agent(?Agent, ?Game, ?KeyKind) is nondet.
%   Agent plays Game from a table keyed by state text (text) or board code (code).
:- dynamic q_agent/3.

%!  q_load(+Agent, +Game, +KeyKind, +Rows:list) is det.
%   Replace Agent's table with Rows of [X, MoveText, Value].
q_load(Agent, Game, Kind, Rows) :-
    retractall(q(Agent, _, _, _)),
    retractall(q_agent(Agent, _, _)),
    assertz(q_agent(Agent, Game, Kind)),
    q_add(Agent, Rows).

%!  q_add(+Agent, +Rows:list) is det.
%   Add rows [X, MoveText, Value] (a large table is loaded in several calls).
q_add(Agent, Rows) :-
    forall(member([X, M, V], Rows), assertz(q(Agent, X, M, V))).

state_x(text, Game, Pos, Mover, X) :- position_text(Game, Pos, Mover, X).
state_x(code, Game, Pos, Mover, X) :- cells_code(Game, Pos, Mover, C), format(atom(X), "#~d", [C]).

play:scored_moves(agent(Agent), Game, Pos, Mover, Scored) :-
    q_agent(Agent, Game, Kind), !,
    state_x(Kind, Game, Pos, Mover, X),
    findall(V-M, ( legal(Game, Pos, Mover, M), move_text(Game, M, T),
                   ( q(Agent, X, T, V0) -> V = V0 ; V = 0 ) ), Scored).
