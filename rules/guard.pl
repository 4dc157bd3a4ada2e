/*  Every call into a game file runs under limits.

    A game file is a program, and a rule of it may never end, run far too
    long or give moves without end.  The protocol predicates a game file
    defines are wrapped (library(prolog_wrap)), so that every call, from
    whatever command, runs under an inference limit and, for the ones that
    give several answers, a bound on their number; past either, the command
    stops with one line that names the predicate, the file and line of its
    first clause and the position, instead of hanging.  A rule that sleeps
    takes no inferences, so sleep/1 is capped too (SWI-Prolog's time limits,
    library(time), are not in the swi-prolog-core package).  (`check` runs its
    own, smaller limit inside this one and reports the rule as a problem.)

    The games shipped in rules/games/ are educable's own and tested; their
    calls skip the limits, which cost about half a microsecond a call, and
    the wrappers are only put in place when a game file from elsewhere is
    loaded (bridge/engine.py calls guard_protocol/0 then).
    Memory is bounded by Prolog's stack limit (bridge/engine.py), and
    Ctrl-C or SIGTERM stops any call.
*/
:- module(guard, [guard_protocol/0, guarded_step/2, step_route/2]).
:- meta_predicate guarded_step(+, 0).
:- use_module(library(prolog_wrap)).
:- use_module(game).

% Inferences one call of a game file's protocol predicate may take (a few seconds), or the
% flag bridge/engine.py sets from $EDUCABLE_RULE_INFERENCES.
guard_inferences(Limit) :-
    (   current_prolog_flag(educable_rule_inferences, Set)
    ->  Limit = Set
    ;   Limit = 100 000 000
    ).

max_answers(100 000).            % answers one call may give (moves, symmetric images)

% The protocol predicates a game file defines (the game is their first argument).
guarded(players/2).
guarded(initial/3).
guarded(legal/4).
guarded(next/5).
guarded(over/4).
guarded(next_mover/5).
guarded(symmetry/3).
guarded(cells/4).
guarded(tuple_cells/4).
guarded(tuple_code/4).
guarded(setup_text/4).
guarded(drawn_as/2).
guarded(position_text/4).
guarded(parse_position/4).
guarded(move_text/3).
guarded(parse_move/3).
guarded(board_lines/4).
guarded(actions/2).
guarded(chance_actions/2).
guarded(cell_values/2).
guarded(sees/4).

:- dynamic trusted/2.            % trusted(Game, true/false): Game is one of rules/games/

%!  guard_protocol is det.
%   Wrap every guarded protocol predicate, and sleep/1 (once).
guard_protocol :-
    (   current_predicate_wrapper(system:sleep(_), educable_limit, _, _) -> true
    ;   wrap_predicate(system:sleep(T), educable_limit, Sleep, guard:capped_sleep(T, Sleep))
    ),
    forall(member(Head-Name, [halt(_)-halt, abort-abort]),     % halt/0 calls halt/1
           (   current_predicate_wrapper(system:Head, educable_limit, _, _) -> true
           ;   wrap_predicate(system:Head, educable_limit, _, guard:forbidden(Name))
           )),
    forall(guarded(Name/Arity),
           ( functor(Head, Name, Arity),
             (   current_predicate_wrapper(game:Head, educable_limit, _, _) -> true
             ;   wrap_predicate(game:Head, educable_limit, Wrapped, guard:limited(Name/Arity, Head, Wrapped))
             ) )).

%!  guarded_step(+Game, :Goal) is det.
%   Run Goal, one step of a hot loop over Game (expanding one state: its moves,
%   successors and result), with the game file's calls in it under one
%   inference limit for the whole step instead of one each: a limit a call
%   costs about 2 microseconds, several times what a small rule takes.  A
%   step past the limit (or past the cap on sleeping) is run again with
%   every call limited, so that the one line names the predicate at fault;
%   a step that then finishes (a slow state, no rule at fault) stands.
guarded_step(Game, Goal) :-
    (   ( nb_current(guard_step, true) ; shipped(Game) )
    ->  once(Goal)
    ;   guard_inferences(Limit),
        b_setval(guard_step, true),
        nb_setval(guard_slept, 0),
        catch(once(call_with_inference_limit(Goal, Limit, Result)), E,
              ( ( rule_fault(E) ; E == guard_step_slept ) -> Result = E ; throw(E) )),
        b_setval(guard_step, false),
        (   ( Result == inference_limit_exceeded ; Result == guard_step_slept )
        ->  once(Goal)
        ;   rule_fault(Result)                    % again with every call limited: the error names its rule
        ->  once(Goal), throw(Result)
        ;   true
        )
    ).

%!  step_route(+Game, -Route) is det.
%   How a hot loop's calls reach Game (rules/game.pl's via_Name/N): straight
%   to the clauses of the one file that defines it (file(File)) inside a
%   guarded step, whose one limit covers them, or for a shipped game;
%   through the protocol, each call limited, otherwise (a step run again to
%   name the rule at fault, a game more than one file answers for).
step_route(Game, Route) :-
    (   ( nb_current(guard_step, true) -> true ; shipped(Game) ),
        game:owner_cache(Game, one(File))
    ->  Route = file(File)
    ;   Route = protocol
    ).

%   An error a game file's rule raised (arithmetic, type, existence, ...), as
%   opposed to educable's own refusals, Ctrl-C and running out of memory.
rule_fault(E) :-
    nonvar(E),
    E = error(Formal, _),
    \+ ( nonvar(Formal), Formal = resource_error(_) ).

%   A rule's error stops the command with one line that names the predicate,
%   the file and line of its first clause and the position.
rule_error(PI, Head, E) :-
    (   rule_fault(E)
    ->  message_to_codes(E, What),
        refuse(PI, Head, What, "an error in the game file's rule")
    ;   throw(E)
    ).

message_to_codes(E, Text) :-
    (   catch(bridge:message_text(E, T0), _, fail) -> true ; format(string(T0), "~q", [E]) ),
    format(string(Text), "raised ~w", [T0]).

%   Run Wrapped (the game file's own clauses for Head) under the limits,
%   unless the call is part of a guarded step (which limits it already:
%   asked first, as the hot loops' calls are) or the game is a shipped one.
limited(PI, Head, Wrapped) :-
    (   nb_current(guard_step, true)
    ->  call(Wrapped)
    ;   arg(1, Head, Game),
        shipped(Game)
    ->  call(Wrapped)
    ;   b_setval(guard_call, PI-Head),            % what a sleep inside is charged to
        limited_call(PI, Head, Wrapped)
    ).

%   Wrapped under the inference limit, each answer counted.
limited_call(PI, Head, Wrapped) :-
    guard_inferences(Limit),
    nb_setval(guard_slept, 0),
    Count = count(0),
    catch(call_with_inference_limit(Wrapped, Limit, Result), E, rule_error(PI, Head, E)),
    (   Result == inference_limit_exceeded
    ->  format(string(What), "did not finish within ~D inferences", [Limit]),
        refuse(PI, Head, What, "a rule that never ends, or one far too slow to play (educable check says more)")
    ;   true
    ),
    arg(1, Count, N0), N is N0 + 1, nb_setarg(1, Count, N),
    max_answers(Max),
    (   N > Max
    ->  format(string(What), "gave more than ~D answers", [Max]),
        refuse(PI, Head, What, "a rule whose answers never end, or far too many moves to play")
    ;   true
    ).

%   A rule that sleeps takes no inferences: sleep/1 is capped instead, at
%   max_sleep/1 seconds in all within one call of a game file's predicate.
max_sleep(5).

capped_sleep(Seconds, Wrapped) :-
    (   number(Seconds), nb_current(guard_slept, Slept0)
    ->  Slept is Slept0 + max(0, Seconds),
        nb_setval(guard_slept, Slept),
        max_sleep(Max),
        (   Slept =< Max
        ->  call(Wrapped)
        ;   nb_current(guard_step, true)
        ->  throw(guard_step_slept)                 % guarded_step finds the rule that slept
        ;   nb_current(guard_call, PI-Head)
        ->  format(string(What), "slept more than ~w s", [Max]),
            refuse(PI, Head, What, "a rule that waits, far too slow to play")
        ;   call(Wrapped)
        )
    ;   call(Wrapped)
    ).

%   halt/0,1 and abort/0 from a rule: an error that names the rule, so that
%   the command stops with one line and `check` reports the rule.  (A halt
%   cancelled by bridge.pl's at_halt hook inside a long check once went on
%   to end the process; abort/0 cannot be caught at all.)  educable itself
%   never calls either while a game file is loaded: its process ends from Python.
forbidden(Name) :-
    bridge:halt_origin(Where),
    format(string(Msg), "~w: a rule called ~w (a game file may not end educable)", [Where, Name]),
    throw(educable_error(Msg)).

shipped(Game) :-
    (   trusted(Game, Known) -> Known == true
    ;   \+ ground(Game) -> fail
    ;   ( shipped_file(Game) -> Known = true ; Known = false ),
        assertz(trusted(Game, Known)),
        Known == true
    ).

shipped_file(Game) :-
    atom(Game),
    clause(game:game(Game), Body, Ref),
    catch(Body, _, fail), !,
    clause_property(Ref, file(File)),
    module_property(guard, file(Here)),
    file_directory_name(Here, Rules),
    file_directory_name(File, Games),
    file_base_name(Games, games),
    file_directory_name(Games, Rules).

%   Stop the command: "File:Line: Name/Arity What at Position: Why".
refuse(Name/Arity, Head, What, Why) :-
    where(Head, Name/Arity, Where, At),
    format(string(Msg), "~w: ~w/~w ~w~w: ~w", [Where, Name, Arity, What, At, Why]),
    throw(educable_error(Msg)).

%   The file and line of the game's first clause for the predicate, and the
%   position the call was about (when it has one that prints).
where(Head, PI, Where, At) :-
    arg(1, Head, Game),
    (   catch(check:where(Game, PI, Where0), _, fail) -> Where = Where0 ; Where = Game ),
    (   PI = _/Arity, Arity >= 4, arg(2, Head, Pos), ground(Pos), arg(3, Head, Mover), ground(Mover),
        catch(call_with_inference_limit(game:position_text(Game, Pos, Mover, Text), 1 000 000, R), _, fail),
        R \== inference_limit_exceeded
    ->  format(string(At), " at ~w", [Text])
    ;   At = ""
    ).

