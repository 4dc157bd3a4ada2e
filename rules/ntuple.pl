/*  N-tuple agents (learners/ntuple.py, after GBG's TD-n-tuple agent):
    playing from learned weights, and the cells the learner trains on.

    An agent's value of a position for a player is tanh of the sum, over
    every tuple read through every symmetry, of the weight its cells'
    values point at (learner_cells/4 from that player's side: the game's
    tuple_cells/4, or its cells/4).  An agent may keep one set of tuples
    for each player (its tuples then come in sets, the first player's
    first).  It plays the move whose position after the move is worth
    most to it; a move that ends the game is worth its result exactly (1
    win, 0 draw, -1 loss).  Values are compared in steps of 1e-9, as the
    learner compares them.

    Training never calls this per move: the learner asks for the cells of
    many states in one query (nt_cells/4, nt_random_images/3), or plays a batch
    of games side by side with one query a ply (nt_batch_start/4,
    nt_batch_step/2), each successor's cells packed into whole numbers.

        ?- nt_load(a, tictactoe, 3, 1, [[0,1,2]], [[0,1,2,3,4,5,6,7,8]]),
           nt_weights(a, [[13, 0.5]]),
           initial(tictactoe, P, M), candidates(agent(a), tictactoe, P, M, Ms).
*/
:- module(ntuple, [nt_load/6, nt_weights/2, nt_value/4, nt_cells/4, nt_afterstates/3,
                   nt_batch_start/4, nt_batch_step/2, nt_random_images/3]).
:- use_module(game).
:- use_module(play).
:- use_module(guard).
:- set_prolog_flag(optimise, true).       % arithmetic compiled inline (this file only)

:- dynamic nt_agent/4.     % nt_agent(Agent, Game, Values, Sets)
:- dynamic nt_tuple/4.     % nt_tuple(Agent, Set, Offset, Cells): 1-based argument numbers of the cells term
:- dynamic nt_perm/2.      % nt_perm(Agent, Perm): Perm is p(C1, ...), the cell each cell is read from
:- dynamic nt_w/3.         % nt_w(Index, Agent, Weight): weights never learned are 0

%!  nt_load(+Agent, +Game, +Values:integer, +Sets:integer, +Tuples:list, +Perms:list) is det.
%   Make Agent an n-tuple agent of Game with no weights yet: Tuples are
%   lists of 0-based cells, in Sets equal parts (1: one set for both
%   players; 2: the first player's, then the second's), Perms the
%   symmetries as 0-based permutations (the identity first); cell values
%   are 0..Values-1.
nt_load(Agent, Game, Values, Sets, Tuples, Perms) :-
    retractall(nt_agent(Agent, _, _, _)),
    retractall(nt_tuple(Agent, _, _, _)),
    retractall(nt_perm(Agent, _)),
    retractall(nt_plan_(Agent, _, _, _)),
    retractall(nt_w(_, Agent, _)),
    assertz(nt_agent(Agent, Game, Values, Sets)),
    length(Tuples, N),
    PerSet is N // Sets,
    foldl(add_tuple(Agent, Values, PerSet), Tuples, 0-0, _),
    forall(member(P, Perms),
           ( maplist(succ, P, P1), Term =.. [p|P1], assertz(nt_perm(Agent, Term)) )).

add_tuple(Agent, Values, PerSet, Cells, T-Offset, T1-Offset1) :-
    maplist(succ, Cells, Args),
    Set is T // PerSet,
    assertz(nt_tuple(Agent, Set, Offset, Args)),
    length(Cells, N),
    T1 is T + 1,
    Offset1 is Offset + Values ** N.

%!  nt_weights(+Agent, +Rows:list) is det.
%   Add weights [Index, Weight] (a large agent is loaded in several calls).
nt_weights(Agent, Rows) :-
    forall(member([I, W], Rows), assertz(nt_w(I, Agent, W))).

%!  nt_value(+Agent, +Player, +Cells:list(integer), -Value:float) is det.
%   Agent's value for Player of a position whose cells (from Player's side) are Cells.
nt_value(Agent, Player, Cells, Value) :-
    nt_agent(Agent, Game, K, Sets),
    (   Sets =:= 1 -> Set = 0 ; players(Game, Ps), nth0(Set, Ps, Player) ),
    C =.. [c|Cells],
    nt_plan(Agent, Set, Perms, Tuples),
    perms_sum(Perms, Tuples, Agent, C, K, 0.0, Sum),
    Value is tanh(Sum).

%   The symmetries and one set's Offset-Args tuples as two lists, made once
%   an agent's set is first valued (a search values thousands of positions:
%   walking three dynamic predicates a position cost twice as much).
:- dynamic nt_plan_/4.
nt_plan(Agent, Set, Perms, Tuples) :-
    (   nt_plan_(Agent, Set, Perms0, Tuples0)
    ->  Perms = Perms0, Tuples = Tuples0
    ;   findall(P, nt_perm(Agent, P), Perms),
        findall(Offset-Args, nt_tuple(Agent, Set, Offset, Args), Tuples),
        assertz(nt_plan_(Agent, Set, Perms, Tuples))
    ).

perms_sum([], _, _, _, _, Sum, Sum).
perms_sum([P|Ps], Tuples, Agent, C, K, Sum0, Sum) :-
    tuples_sum(Tuples, P, Agent, C, K, Sum0, Sum1),
    perms_sum(Ps, Tuples, Agent, C, K, Sum1, Sum).

tuples_sum([], _, _, _, _, Sum, Sum).
tuples_sum([Offset-Args|Ts], P, Agent, C, K, Sum0, Sum) :-
    tuple_index(Args, P, C, K, 1, Offset, I),
    (   nt_w(I, Agent, W) -> Sum1 is Sum0 + W ; Sum1 = Sum0 ),
    tuples_sum(Ts, P, Agent, C, K, Sum1, Sum).

tuple_index([], _, _, _, _, I, I).
tuple_index([A|As], P, C, K, Mult, I0, I) :-
    arg(A, P, From), arg(From, C, V),
    I1 is I0 + Mult * V,
    Mult1 is Mult * K,
    tuple_index(As, P, C, K, Mult1, I1, I).

play:scored_moves(agent(Agent), Game, Pos, Mover, Scored) :-
    nt_agent(Agent, Game, _, _), !,
    findall(V-M, ( legal(Game, Pos, Mover, M), move_value(Agent, Game, Pos, Mover, M, V) ), Scored).

move_value(Agent, Game, Pos, Mover, Move, Value) :-
    step(Game, Pos, Mover, Move, Pos1, Mover1),
    (   over(Game, Pos1, Mover1, Result)
    ->  result_value(Result, Mover, Value)
    ;   learner_cells(Game, Pos1, Mover, Cells),
        nt_value(Agent, Mover, Cells, V),
        Value is round(V * 1.0e9) / 1.0e9
    ).

play:leaf_value(agent(Agent), Game, Pos, Player, Value) :-
    nt_agent(Agent, Game, _, _), !,
    learner_cells(Game, Pos, Player, Cells),
    nt_value(Agent, Player, Cells, Value).

result_value(draw, _, 0) :- !.
result_value(Mover, Mover, 1) :- !.
result_value(_, _, -1).

%!  nt_cells(+Game, +Keys:list, +Viewers:list, -Cells:string) is det.
%   The learner_cells/4 of every state (by key) as each of Viewers sees it,
%   one character a cell (the code 48 + value), a state's views in the order
%   of Viewers, all states joined: one string for Python.  Each key is read
%   once for all viewers (reading a position's text is most of the work).
nt_cells(Game, Keys, Viewers, Cells) :-
    need_cells(Game),
    foldl(key_codes(Game, Viewers), Keys, Codes, []),
    string_codes(Cells, Codes).

%!  nt_afterstates(+Game, +Lines:list(list), -Out:list) is det.
%   For each line of moves (their texts) from the start: [I, Children], I the
%   index of the player to move at its end and Children, for each legal move,
%   [MoveText, Result, Cells]: Result is the game's end for the mover (1 won,
%   0 drawn, -1 lost) when the move ends it, else `none` with Cells the
%   afterstate's learner_cells/4 from the mover's side (as nt_cells/4 writes
%   them).  One query for a set of positions a run measures itself on.
nt_afterstates(Game, Lines, Out) :-
    need_cells(Game),
    players(Game, Ps),
    maplist(line_afterstates(Game, Ps), Lines, Out).

line_afterstates(Game, Ps, Texts, [I, Children]) :-
    initial(Game, P0, M0),
    foldl(play_text(Game), Texts, P0-M0, P-M),
    nth0(I, Ps, M),
    findall([T, R, C],
            ( legal(Game, P, M, Mv), step(Game, P, M, Mv, P1, M1), move_text(Game, Mv, T),
              (   over(Game, P1, M1, W)
              ->  result_value(W, M, R), C = ""
              ;   R = none, learner_cells(Game, P1, M, Cells), cell_codes(Cells, Codes, []),
                  string_codes(C, Codes)
              ) ),
            Children).

play_text(Game, Text, P-M, P1-M1) :-
    parse_move(Game, Text, Mv),
    step(Game, P, M, Mv, P1, M1).

key_codes(Game, Viewers, Key, Codes, Tail) :-
    parse_position(Game, Key, P, _),
    foldl(view_codes(Game, P), Viewers, Codes, Tail).

view_codes(Game, P, Viewer, Codes, Tail) :-
    learner_cells(Game, P, Viewer, Cells),
    cell_codes(Cells, Codes, Tail).

cell_codes([], T, T).
cell_codes([C|Cs], [D|Ds], T) :-
    (   integer(C), C >= 0, C < 64
    ->  D is 48 + C
    ;   format(atom(Msg), "cells/4 gives ~q; the n-tuple learner needs whole numbers from 0 to 63", [C]),
        bad_input(Msg)
    ),
    cell_codes(Cs, Ds, T).

need_cells(Game) :-
    (   ( declares(Game, tuple_cells) ; declares(Game, cells) )
    ->  true
    ;   format(atom(Msg), "game ~w does not define cells/4, which the n-tuple learner reads its tuples from", [Game]),
        bad_input(Msg)
    ).

state_images(Game, P, Viewer, Count, Codes) :-
    findall(P1, image(Game, P, P1), Images),      % the identity alone where there is no symmetry
    length(Images, Count),
    foldl(image_codes(Game, Viewer), Images, Codes, []).

image_codes(Game, Viewer, Img, C0, C) :-
    learner_cells(Game, Img, Viewer, Cs),
    cell_codes(Cs, C0, C).

%!  nt_batch_start(+Game, +Games:integer, +Bits:integer, +Words:integer) is det.
%   Start Games games of Game side by side (the batch a lockstep run plays),
%   each successor's cells to be packed Bits a cell into Words numbers.
nt_batch_start(Game, N, Bits, Words) :-
    integer(N),
    !,
    length(Starts, N),
    maplist(=(initial), Starts),
    nt_batch_start(Game, Starts, Bits, Words).

%!  nt_batch_start(+Game, +Starts:list, +Bits:integer, +Words:integer) is det.
%   As above, a game for each of Starts: `initial`, or
%   position(Text) for the position Text as the game's parse_position/4
%   reads it (--starts-file).
nt_batch_start(Game, Starts, Bits, Words) :-
    need_cells(Game),
    must_be(oneof([2, 6]), Bits),
    must_be(positive_integer, Words),
    initial(Game, P0, M0),
    maplist(start_state(Game, P0/M0), Starts, States),
    (   Bits =:= 2, declares(Game, tuple_code) -> Packer = code ; Packer = cells(Bits) ),
    (   declares(Game, next_mover) -> Turns = own ; Turns = alternate ),
    nb_setval(nt_batch, batch(Game, Packer-Turns, Words, States)),
    nb_setval(nt_succ, []).

start_state(Game, P0/M0, initial, P/M-unknown) :-
    settle(Game, P0, M0, -9, P, M).
start_state(Game, _, position(Text), P/M-unknown) :-
    parse_position(Game, Text, P0, M0),
    settle(Game, P0, M0, -9, P, M).

%!  nt_batch_step(+Choices:list(integer), -Out) is det.
%   Each game takes its successor number Choice (from the last step's
%   list; -1: it stays where it is), then every game still going is
%   expanded: json([movers-PlayerIndex, counts-Successors,
%   outcomes-Codes, codes-Words]) with, per successor, its outcome for
%   the mover (1, 0, -1; -9 while the game goes on) and its cells as the
%   mover sees them, packed: the cells read as one number, Bits a cell,
%   the first cell most significant (tuple_code/4 where the game gives it),
%   cut into Words numbers of 60 bits, the least significant first.  A
%   finished game has mover -1 and no successors.

nt_batch_step(Choices, json([movers-Movers, counts-Counts, outcomes-Outs, codes-Codes])) :-
    nb_getval(nt_batch, batch(Game, Packer, Words, States0)),
    nb_getval(nt_succ, Succ0),
    players(Game, Players),
    Packer = _-Turns,
    advance_all(States0, Succ0, Choices, Game, Players, Turns, States),
    expand_all(States, Game, Players, Packer, Words, Movers, Counts, Outs, [], Codes, [], SuccLists),
    nb_setval(nt_batch, batch(Game, Packer, Words, States)),
    nb_setval(nt_succ, SuccLists).

%   The last step kept each successor as its move and outcome, not its
%   position (copying every position between queries cost more than making
%   the chosen one again).
advance_all([], _, _, _, _, _, []).
advance_all([S|Ss], Succ0, [C|Cs], Game, Players, Turns, [S1|Ss1]) :-
    (   Succ0 = [Succ|Rest] -> true ; Succ = [], Rest = [] ),
    (   C < 0
    ->  S1 = S
    ;   nth0(C, Succ, Mv-Out),
        S = P/M-_,
        successor(Turns, Game, Players, P, M, Mv, P0, M0),
        settle(Game, P0, M0, Out, P1, M1),
        S1 = P1/M1-Out
    ),
    advance_all(Ss, Rest, Cs, Game, Players, Turns, Ss1).

%   In a game of chance, chance acts after a move (its outcomes drawn with
%   their weights, the seeded random generator) until a player is to move:
%   the learner has read the cells of the position the move left (its
%   afterstate) and goes on from where chance leaves the game.  A game
%   that ends on chance's move is refused (its end would reach no one).
settle(Game, P0, M0, Out, P, M) :-
    (   Out =:= -9, chance_mover(M0)
    ->  (   over(Game, P0, M0, _)
        ->  bad_input("this game can end on chance's move: the n-tuple learner learns it on its whole graph only")
        ;   true
        ),
        choose_move(chance, Game, P0, M0, Mv),
        step(Game, P0, M0, Mv, P1, M1),
        (   chance_mover(M1) -> true ; over(Game, P1, M1, _)
        ->  bad_input("this game can end on chance's move: the n-tuple learner learns it on its whole graph only")
        ;   true
        ),
        settle(Game, P1, M1, Out, P, M)
    ;   P = P0, M = M0
    ).

%   The position and mover after Mv: the other player moves next (Turns
%   `alternate`), or the game's own next_mover/5 says who (`own`).
successor(alternate, Game, Players, P, M, Mv, P1, M1) :-
    next(Game, P, M, Mv, P1),
    (   Players = [M, M1] -> true ; Players = [M1, M] ).
successor(own, Game, _, P, M, Mv, P1, M1) :-
    step(Game, P, M, Mv, P1, M1).

%   Every game's mover, successor count and successors, its successors'
%   outcomes and packed cells added to the lists Outs and Codes (ending in
%   OutsT and CodesT).
expand_all([], _, _, _, _, [], [], Outs, Outs, Codes, Codes, []).
expand_all([S|Ss], Game, Players, Packer, Words, [M|Ms], [N|Ns], Outs, OutsT, Codes, CodesT, [X|Xs]) :-
    guarded_step(Game, expand(S, Game, Players, Packer, M, N, Found)),
    found(Found, Words, X, Outs, Outs1, Codes, Codes1),
    expand_all(Ss, Game, Players, Packer, Words, Ms, Ns, Outs1, OutsT, Codes1, CodesT, Xs).

%   A state is Pos/Mover-Outcome: the outcome found when it was a successor
%   (-9: the game goes on), or `unknown` at the start, which is asked.  Its
%   successors are found as Move-Outcome-Code.  Where the game's file has no
%   next_mover/5, the turn passes (Turns `alternate`) without asking it.
expand(P/M-Known, Game, Players, Packer-Turns, I, N, Found) :-
    (   (   Known == unknown -> over(Game, P, M, _) ; Known =\= -9 )
    ->  I = -1, N = 0, Found = []
    ;   nth0(I, Players, M),
        findall(Mv-Out-Code,
                ( legal(Game, P, M, Mv),
                  successor(Turns, Game, Players, P, M, Mv, P1, M1),
                  ( over(Game, P1, M1, R) -> result_value(R, M, Out) ; Out = -9 ),
                  packed(Packer, Game, P1, M, Code) ),
                Found),
        length(Found, N)
    ).

found([], _, [], Outs, Outs, Codes, Codes).
found([S-O-Code|Rest], Words, [S-O|Ss], [O|Outs], OutsT, Codes, CodesT) :-
    code_words(Words, Code, Codes, Codes1),
    found(Rest, Words, Ss, Outs, OutsT, Codes1, CodesT).

%   A state's cells as one number: the game's tuple_code/4, or its
%   learner_cells/4 packed Bits a cell, the first cell most significant.
packed(code, Game, P, Viewer, Code) :-
    tuple_code(Game, P, Viewer, Code).
packed(cells(Bits), Game, P, Viewer, Code) :-
    learner_cells(Game, P, Viewer, Cells),
    Limit is 1 << Bits,
    foldl(pack_cell(Bits, Limit), Cells, 0, Code).

pack_cell(Bits, Limit, C, A0, A) :-
    (   integer(C), C >= 0, C < Limit
    ->  A is (A0 << Bits) \/ C
    ;   Top is Limit - 1,
        format(atom(Msg), "cells/4 gives ~q; this agent reads cells of whole numbers from 0 to ~d", [C, Top]),
        bad_input(Msg)
    ).

%   Code as Words numbers of 60 bits, the least significant first.
code_words(0, _, T, T) :- !.
code_words(K, Code, [W|Ws], T) :-
    W is Code /\ 0xFFFFFFFFFFFFFFF,
    Rest is Code >> 60,
    K1 is K - 1,
    code_words(K1, Rest, Ws, T).

%!  nt_random_images(+Game, +Games:integer, -Out) is det.
%   For each state Games random games pass through, the cells (seen by its
%   mover) of each of its symmetric images in the order symmetry/3 gives
%   them: json([counts-ImagesPerState, cells-String]).  Examples for
%   reading a game's symmetries as cell permutations, and its cell
%   values, when it is too large to enumerate.
nt_random_images(Game, N, json([counts-Counts, cells-Cells])) :-
    need_cells(Game),
    initial(Game, P0, M0),
    endless_plies(Plies),
    sample_states(Most),
    findall(P/M, limit(Most, ( between(1, N, _), random_walk(Game, Plies, P0, M0, P, M) )), States),
    maplist([P/M, C, L]>>state_images(Game, P, M, C, L), States, Counts, Lists),
    append(Lists, All),
    string_codes(Cells, All).

%   States sampled at most: a game that never ends would give Games x 2,000
%   (300 games of Connect Four give about 6,500; 20,000 say as much).
sample_states(20000).

%   Each state of a random game, at most Plies moves long (a game may never end).
random_walk(_, _, P, M, P, M).
random_walk(Game, Plies, P, M, P2, M2) :-
    Plies > 0,
    \+ over(Game, P, M, _),
    findall(Mv, legal(Game, P, M, Mv), Moves),
    random_member(Mv, Moves),
    step(Game, P, M, Mv, P1, M1),
    Plies1 is Plies - 1,
    random_walk(Game, Plies1, P1, M1, P2, M2).
