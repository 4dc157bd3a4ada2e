/*  The self-learning procedure of the six-pawns practical ("Самообучающаяся программа"):
    punish the moves of lost games.

    An agent keeps the skeleton's knowledge base of position values,
    value(Position, Viewpoint, Score) — here value(Agent, Key, Viewpoint,
    Score) so several agents can live side by side; Key is the text of the
    position the Viewpoint player moved into (its canonical key when the
    agent folds symmetric positions together).  A position never moved into
    has the agent's initial value (`beads`, like the beads in Gardner's HER
    and Michie's MENACE boxes).

    'выбрать ход' (choose a move): among the successor positions
    ('позиции-преемники') take one with the best value
    ('позиция с лучшей оценкой'), at random among equals.

    'самообучение' (self-learning) after a game; 'уменьшить оценки'
    (decrease the values) of the loser's moves: the last one by `step`
    surely, the earlier ones by `earlier_step` when punish = all.  With
    `reward` > 0 the winner's moves are raised ('поощрять после побед').
    With `cascade` (HER's empty box): when a punished move leaves every move
    of the position it was made from at or below 0, the loser's move before
    it is punished as well, and so on back.  `draw_reward` raises the moves
    of a drawn game.

    With choice = beads (Michie's MENACE; the practical speaks of values as
    probabilities, 'вероятность'), training draws each move with probability
    proportional to its value, its beads; values never go below 0, and in a
    box whose beads have all gone every move is equally likely (with
    `cascade` the move into it is punished as well).  Outside training the
    agent plays the skeleton's way, a move of most beads.

        ?- punish_new(a, [punish=last, step=1, earlier_step=1, reward=0,
                          beads=1, cascade=true, fold=true, choice=best,
                          draw_reward=0]),
           set_random(seed(1)),
           play_results(hexapawn, [[white-random, black-agent(a)]], 50, Results).
*/
:- module(punish,
          [ punish_new/2,         % +Agent, +Options
            punish_agent/1,       % ?Agent
            punish_load/4,        % +Agent, +Game, +Options, +Rows
            punish_add/3,         % +Agent, +Game, +Rows
            punish_values/2,      % +Agent, -Rows
            punish_values/4,      % +Agent, +Offset, +Limit, -Rows
            punish_learn_game/5,  % +Agent, +Game, +Keys, +Result, +Player
            punish_training/2     % +Agent, +Bool
          ]).
:- use_module(game).
:- use_module(play).

:- dynamic value/4.     % value(Agent, Key, Viewpoint, Score)
:- dynamic visits/4.    % visits(Agent, Key, Viewpoint, Count): how often Score was changed
:- dynamic option/3.    % option(Agent, Name, Value)

option_names([punish, step, earlier_step, reward, beads, cascade, fold, choice, draw_reward]).

:- dynamic training/1.  % training(Agent): Agent is being trained (a beads agent then draws its moves)

%!  punish_training(+Agent, +Bool) is det.
%   Mark Agent as in training (true) or playing (false).
punish_training(Agent, true) :- !, retractall(training(Agent)), assertz(training(Agent)).
punish_training(Agent, false) :- retractall(training(Agent)).

%!  punish_new(+Agent, +Options:list) is det.
%   (Re)create Agent with Options (Name=Value for every option) and no values.
punish_new(Agent, Options) :-
    ignore(play:values_changed(agent(Agent), _, _, _)),
    retractall(value(Agent, _, _, _)),
    retractall(visits(Agent, _, _, _)),
    retractall(option(Agent, _, _)),
    option_names(Names),
    forall(member(N, Names),
           (   memberchk(N=V, Options) -> assertz(option(Agent, N, V))
           ;   format(atom(M), "punish agent ~w: option ~w missing", [Agent, N]),
               bad_input(M)
           )).

%!  punish_agent(?Agent) is nondet.
punish_agent(Agent) :- option(Agent, punish, _).

%!  punish_load(+Agent, +Game, +Options, +Rows:list) is det.
%   Recreate Agent, a player of Game, from stored rows [Key, Viewpoint, Score, Visits].
punish_load(Agent, Game, Options, Rows) :-
    punish_new(Agent, Options),
    punish_add(Agent, Game, Rows).

%!  punish_add(+Agent, +Game, +Rows:list) is det.
%   Add stored rows [Key, Viewpoint, Score, Visits] to Agent (a large agent
%   is loaded in several calls, never as one list).  Viewpoint '' (rows
%   stored before games could give extra turns) is the player who does not
%   move in Key.
punish_add(Agent, Game, Rows) :-
    forall(member([Key, View0, Score, N], Rows),
           ( viewpoint(Game, Key, View0, View),
             assertz(value(Agent, Key, View, Score)),
             assertz(visits(Agent, Key, View, N)) )).

viewpoint(Game, Key, '', View) :- !,
    parse_position(Game, Key, _, Next),
    other_player(Game, Next, View).
viewpoint(_, _, View, View).

%!  punish_values(+Agent, -Rows:list) is det.
%   Every stored value as [Key, Viewpoint, Score, Visits].
punish_values(Agent, Rows) :-
    findall([K, V, S, N], ( value(Agent, K, V, S), ( visits(Agent, K, V, N) -> true ; N = 0 ) ), Rows).

%!  punish_values(+Agent, +Offset, +Limit, -Rows:list) is det.
%   At most Limit rows after the first Offset (pages of punish_values/2).
punish_values(Agent, Offset, Limit, Rows) :-
    findall([K, V, S, N], limit(Limit, offset(Offset, ( value(Agent, K, V, S),
                                                       ( visits(Agent, K, V, N) -> true ; N = 0 ) ))), Rows).

%   A state's keys never change, nor do the moves from a state and the keys
%   they lead to: both are remembered in a trie, which is emptied when it
%   holds key_cache/1 keys (a game too large to enumerate would otherwise
%   fill memory: tabling them did, 6 GB in 100,000 games of Connect Four).
%   Remembering the successors matters where moves are dear: in boxes(2,2)
%   against the adversary, which asks for the agent's choices again after
%   every change, generating them was half the time.
key(Agent, Game, Pos, Next, Key) :-
    option(Agent, fold, Fold),
    key_trie(Trie),
    (   trie_lookup(Trie, k(Game, Fold, Pos, Next), K0)
    ->  Key = K0
    ;   key_text(Fold, Game, Pos, Next, Key),
        trie_insert(Trie, k(Game, Fold, Pos, Next), Key),
        keys_added(1)
    ).

key_text(true, Game, Pos, Next, Key) :- !, canonical(Game, Pos, Next, Key).
key_text(_, Game, Pos, Next, Key) :- position_text(Game, Pos, Next, Key).

%   Each legal move from Pos with the key of the state it leads to.
%   (The trie is asked for again before inserting: finding the keys may
%   have emptied it.)
successor_keys(Agent, Game, Pos, Mover, MoveKeys) :-
    option(Agent, fold, Fold),
    key_trie(Trie),
    (   trie_lookup(Trie, s(Game, Fold, Pos, Mover), MK0)
    ->  MoveKeys = MK0
    ;   successors(Game, Pos, Mover, Pairs),
        findall(M-K, ( member(M-(P1/Next), Pairs), key(Agent, Game, P1, Next, K) ), MoveKeys),
        key_trie(Now),
        trie_insert(Now, s(Game, Fold, Pos, Mover), MoveKeys),
        length(MoveKeys, N),
        keys_added(N)
    ).

keys_added(N) :- nb_getval(punish_keys, N0), N1 is N0 + N, nb_setval(punish_keys, N1).

:- dynamic key_cache/1.       % (dynamic so that a test can make it small)
key_cache(100000).            % about 200 MB of trie for Connect Four

key_trie(Trie) :-
    (   nb_current(punish_key_trie, T), T \== [], nb_getval(punish_keys, N), key_cache(Max), N < Max
    ->  Trie = T
    ;   (   nb_current(punish_key_trie, Old), Old \== [] -> trie_destroy(Old) ; true ),
        trie_new(Trie),
        nb_setval(punish_key_trie, Trie),
        nb_setval(punish_keys, 0)
    ).

score(Agent, Key, View, Score) :-
    (   value(Agent, Key, View, S) -> Score = S ; option(Agent, beads, Score) ).

%   'позиции-преемники' with their values for the mover.
value_scores(Agent, Game, Pos, Mover, Scored) :-
    successor_keys(Agent, Game, Pos, Mover, MoveKeys),
    findall(S-M, ( member(M-K, MoveKeys), score(Agent, K, Mover, S) ), Scored).

%   'выбрать ход': the moves leading to a position with the best value
%   (play.pl picks among the best of these scores).
play:scored_moves(agent(Agent), Game, Pos, Mover, Scored) :-
    punish_agent(Agent), !,
    value_scores(Agent, Game, Pos, Mover, Scored).

%   MENACE: in training, a beads agent draws in proportion to the beads.
play:weighted_moves(agent(Agent), Game, Pos, Mover, Weighted) :-
    training(Agent), option(Agent, choice, beads), !,
    value_scores(Agent, Game, Pos, Mover, Scored),
    findall(S-M, ( member(S-M, Scored), S > 0 ), Weighted0),
    (   Weighted0 == [] -> findall(1-M, member(_-M, Scored), Weighted) ; Weighted = Weighted0 ).

%   'самообучение': learn from a finished game, for the side Player played.
play:after_game(agent(Agent), Game, Player, History, Result) :-
    punish_agent(Agent), !,
    initial(Game, P0, _),
    own_moves(History, Game, P0, Player, Own),     % newest first: move(From, FromMover, To, ToKey)
    (   Result == Player
    ->  raise(Agent, Game, Own, reward)
    ;   Result == draw
    ->  raise(Agent, Game, Own, draw_reward)
    ;   decrease(Agent, Game, Own, first)         % 'уменьшить оценки'
    ).

%   Raise every move in Own by the agent's option Option (nothing when 0).
raise(Agent, Game, Own, Option) :-
    option(Agent, Option, R),
    (   R =\= 0 -> forall(member(Mv, Own), adjust(Agent, Game, Mv, R)) ; true ).

%   The Player's moves of a game, newest first, each with the position it
%   was made from and who moves next.  History is [Pos/WhoMovedThere, ...],
%   newest first.
own_moves(History, Game, P0, Player, Own) :-
    reverse(History, Forward),
    own_moves_(Forward, Game, P0, Player, [], Own).

own_moves_([], _, _, _, Acc, Acc).
own_moves_([Pos/Mover|Rest], Game, Prev, Player, Acc, Own) :-
    (   Mover == Player
    ->  (   Rest = [_/Next|_] -> true ; mover_after(Game, Prev, Mover, Pos, Next) ),
        Acc1 = [move(Prev, Mover, Pos, Next)|Acc]
    ;   Acc1 = Acc
    ),
    own_moves_(Rest, Game, Pos, Player, Acc1, Own).

decrease(_, _, [], _).
decrease(Agent, Game, [Mv|Earlier], Which) :-
    (   Which == first -> option(Agent, step, S) ; option(Agent, earlier_step, S) ),
    Delta is -S,
    adjust(Agent, Game, Mv, Delta),
    (   option(Agent, punish, all)
    ->  decrease(Agent, Game, Earlier, earlier)
    ;   option(Agent, cascade, true), exhausted(Agent, Game, Mv)
    ->  decrease(Agent, Game, Earlier, first)
    ;   true
    ).

%   HER's empty box: no move from the position is above 0 any more.
exhausted(Agent, Game, move(From, Mover, _, _)) :-
    value_scores(Agent, Game, From, Mover, Scored),
    \+ ( member(S-_, Scored), S > 0 ).

adjust(Agent, Game, move(_, Mover, To, Next), Delta) :-
    key(Agent, Game, To, Next, Key),
    score(Agent, Key, Mover, S0),
    (   option(Agent, choice, beads) -> S is max(0.0, S0 + Delta) ; S is S0 + Delta ),
    retractall(value(Agent, Key, Mover, _)),
    assertz(value(Agent, Key, Mover, S)),
    (   retract(visits(Agent, Key, Mover, N0)) -> N is N0 + 1 ; N = 1 ),
    assertz(visits(Agent, Key, Mover, N)),
    ignore(play:values_changed(agent(Agent), Game, To, Next)).

%!  punish_learn_game(+Agent, +Game, +Keys:list, +Result, +Player) is det.
%   Learn from a game played elsewhere (against a person): Keys are the
%   state texts from the start, Player the side Agent played.
punish_learn_game(Agent, Game, Keys, Result, Player) :-
    maplist(key_state(Game), Keys, States),
    history(States, [], History),
    play:after_game(agent(Agent), Game, Player, History, Result).

key_state(Game, Key, Pos/Mover) :- parse_position(Game, Key, Pos, Mover).

%   Each position after the first with the player who moved into it (the
%   one to move in the position before), newest first.
history([_], H, H).
history([_/Mover, Pos/Next|States], H, History) :-
    history([Pos/Next|States], [Pos/Mover|H], History).
