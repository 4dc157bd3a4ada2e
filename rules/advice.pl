/*  How to make a slow game file fast: what `check` advises after it has
    timed the protocol predicates (rules/check.pl).

    solve and the learners call legal/4, next/5, over/4 (and next_mover/5,
    symmetry/3) for every position, so work in them that does not depend on
    the position is done again at every position.  This module reads the
    game file's own clauses for those predicates, follows the helpers they
    call (clauses in the same file, a few levels down) and finds the goals
    that share no variable with the position, the mover or the move, nor
    with anything worked out from them: a helper such as `all_lines(Lines)`
    or a `findall/3` of the board's lines.  Each is run once and its cost
    measured; one that takes more than a few inferences is reported with
    what to change (table the helper, or move the findall into a tabled
    helper).  A helper whose answers depend on facts the game asserts
    while it runs should not be tabled; educable does not look for that.
*/
:- module(advice, [speed_advice/3]).
:- use_module(library(solution_sequences), [limit/2]).     % loaded here, not on a first cost/2
:- use_module(library(aggregate), [aggregate_all/3]).      % (autoloading counted as the goal's inferences)
:- use_module(game).

% The protocol predicates solve calls at every position, each with the
% arguments that change from call to call (the game's name does not).
per_position(legal(_, P, M, _), [P, M]).
per_position(next(_, P, M, Mv, _), [P, M, Mv]).
per_position(over(_, P, M, _), [P, M]).
per_position(next_mover(_, P, M, P1, _), [P, M, P1]).
per_position(symmetry(_, P, _), [P]).

worth_inferences(50).           % goals cheaper than this are left alone
helper_depth(3).                % helpers followed this far below a protocol clause

%!  speed_advice(+Game, +File, -Advice:list) is det.
%   What to change in File (Game's file) so that solve does less at each
%   position: json([predicate-"over/4", where-"file:line", goal-Text,
%   inferences-N, change-Text]) for each goal found, costliest first.
speed_advice(Game, File, Advice) :-
    findall(N-json([predicate-PI, where-Where, goal-GoalText, inferences-N, change-Change]),
            ( per_position(Head0, Varying),
              copy_term(Head0-Varying, Head-Vars),
              arg(1, Head, Game),
              functor(Head, Name, Arity), format(string(PI), "~w/~w", [Name, Arity]),
              catch(game:protocol_clause(Head, Body, Ref), _, fail),
              clause_property(Ref, file(File)),
              clause_property(Ref, line_count(Line)),
              format(string(Where), "~w:~w", [File, Line]),
              term_variables(Vars, Tainted),
              helper_depth(Depth),
              constant_goal(Body, user, Tainted, File, Depth, Module:Goal),
              cost(Module:Goal, N),
              worth_inferences(Min), N >= Min,
              change(Module:Goal, PI, N, GoalText, Change) ),
            Found),
    sort(1, @>=, Found, Sorted),
    pairs_values(Sorted, Advice0),
    dedupe(Advice0, Advice1),
    (   list_reads(Game, File, Reads) -> append(Advice1, [Reads], Advice) ; Advice = Advice1 ).

%   The position is a long list that the per-position predicates read cell
%   by cell with nth0/3 or nth1/3 (each read walks the list from its start).
list_reads(Game, File, json([predicate-PIs, where-Where, goal-"nth1/3", inferences-0, change-Change])) :-
    game:initial(Game, P0, _), is_list(P0), length(P0, Len), Len >= 9,
    findall(PI-Where0,
            ( per_position(Head, _), arg(1, Head, Game), arg(2, Head, Pos),
              catch(game:protocol_clause(Head, Body, Ref), _, fail),
              clause_property(Ref, file(File)),
              helper_depth(Depth),
              reads_list(Body, user, [Pos], File, Depth),
              functor(Head, Name, Arity), format(string(PI), "~w/~w", [Name, Arity]),
              clause_property(Ref, line_count(Line)), format(string(Where0), "~w:~w", [File, Line]) ),
            Found),
    Found = [_-Where|_],
    pairs_keys(Found, PIs0), sort(PIs0, PIs1), atomic_list_concat(PIs1, ', ', PIs),
    format(string(Change), "~w read the position, a list of ~d cells, with nth0/3 or nth1/3, which walk it from its start at every read: write it as a term such as b(C1, ..., C~d) and read a cell with arg/3 in one step", [PIs, Len, Len]).

reads_list(Body, M, PosVars, File, Depth) :-
    goals(Body, M, Goals),
    member(GM:G, Goals),
    (   ( G = nth1(_, L, _) ; G = nth0(_, L, _) ), var(L), memberchk_eq(L, PosVars)
    ->  true
    ;   Depth > 0,
        findall(V, ( sub_term(V, G), var(V), memberchk_eq(V, PosVars) ), Passed), Passed \== [],
        helper(GM:G, File, HBody, HM, PosVars, HeadVars0),
        include([V]>>var(V), HeadVars0, HeadVars), HeadVars \== [],
        D1 is Depth - 1,
        reads_list(HBody, HM, HeadVars, File, D1)
    ),
    !.

memberchk_eq(X, [Y|Ys]) :- ( X == Y -> true ; memberchk_eq(X, Ys) ).

dedupe([], []).
dedupe([A|As], [A|Bs]) :-
    A = json([_, _, goal-G|_]),
    exclude([json([_, _, goal-G2|_])]>>(G2 == G), As, Rest),
    dedupe(Rest, Bs).

%   Goal, somewhere in Body (run in module M), shares no variable with
%   Tainted at the point where it runs; a goal that does taints all its
%   variables.  Helpers in File are followed, their head arguments tainted
%   where the call's are.
constant_goal(Body, M, Tainted, File, Depth, Found) :-
    goals(Body, M, Goals),
    constant_in(Goals, Tainted, File, Depth, Found).

constant_in([M:G|Gs], Tainted, File, Depth, Found) :-
    term_variables(G, Vs),
    (   \+ shares(Vs, Tainted)
    ->  (   worth_a_look(M:G, File), Found = M:G
        ;   constant_in(Gs, Tainted, File, Depth, Found)
        )
    ;   (   Depth > 0, helper(M:G, File, Body, HM, Tainted, HeadTainted),
            D1 is Depth - 1,
            constant_goal(Body, HM, HeadTainted, File, D1, Found)
        ;   append(Vs, Tainted, T1),
            constant_in(Gs, T1, File, Depth, Found)
        )
    ).

shares(Vs, Tainted) :- member(V, Vs), member(T, Tainted), V == T, !.

%   A goal worth measuring: a findall (or the like), or a helper of the
%   file that is not tabled already.
worth_a_look(_:G, _) :- collector(G), !.
worth_a_look(M:G, File) :-
    callable(G), \+ control(G),
    predicate_property(M:G, file(File)),
    \+ predicate_property(M:G, tabled),
    \+ predicate_property(M:G, dynamic).

collector(findall(_, _, _)).
collector(findall(_, _, _, _)).
collector(bagof(_, _, _)).
collector(setof(_, _, _)).
collector(aggregate_all(_, _, _)).

control((_, _)).
control((_ ; _)).
control((_ -> _)).
control(\+ _).

%   A clause of the file's helper G (a fresh copy), with its head
%   arguments tainted where the call's arguments are.
helper(M:G, File, Body, HM, Tainted, HeadTainted) :-
    callable(G), \+ control(G), \+ collector(G),
    predicate_property(M:G, file(File)),
    \+ predicate_property(M:G, dynamic),
    predicate_property(M:G, implementation_module(HM)),
    functor(G, Name, Arity), functor(H, Name, Arity),
    catch(clause(HM:H, Body, Ref), _, fail),
    clause_property(Ref, file(File)),
    findall(V, ( between(1, Arity, I), arg(I, G, A), term_variables(A, AVs), shares(AVs, Tainted),
                 arg(I, H, HA), term_variables(HA, HVs), member(V, HVs) ), HeadTainted).

%   The goals of a body in order, each qualified by its module; control
%   constructs are opened (both branches of a choice).
goals(M:B, _, Gs) :- !, goals(B, M, Gs).
goals((A, B), M, Gs) :- !, goals(A, M, GA), goals(B, M, GB), append(GA, GB, Gs).
goals((A ; B), M, Gs) :- !, goals(A, M, GA), goals(B, M, GB), append(GA, GB, Gs).
goals((A -> B), M, Gs) :- !, goals(A, M, GA), goals(B, M, GB), append(GA, GB, Gs).
goals(\+ A, M, Gs) :- !, goals(A, M, Gs).
goals(G, M, [M:G]) :- nonvar(G), !.
goals(_, _, []).

%   Inferences to find every answer of Goal (a copy), measured to the end:
%   a goal that reaches a bound (10,000,000 inferences, or 1,000 answers,
%   as a goal called with fresh arguments may enumerate without end) or
%   raises an error fails, so no advice quotes a figure that is a limit.
cost(Goal, N) :-
    copy_term(Goal, G),
    statistics(inferences, I0),
    catch(call_with_inference_limit(aggregate_all(count, limit(1001, G), Answers), 10 000 000, Left), E,
          ( E == educable_interrupted -> throw(E) ; Left = error )),
    statistics(inferences, I1),
    Left \== inference_limit_exceeded, Left \== error,
    Answers =< 1000,
    N is I1 - I0.

change(_:G, PI, N, Text, Change) :-
    \+ collector(G), !,
    functor(G, Name, Arity),
    format(string(Text), "~w/~w", [Name, Arity]),
    format(string(Change), "~w calls ~w (~D inferences a call), whose answers do not depend on the position: add `:- table ~w/~w.` to the file (or work them out once)", [PI, Text, N, Name, Arity]).
change(_:G, PI, N, Text, Change) :-
    functor(G, Name, Arity),
    format(string(Text), "~w/~w", [Name, Arity]),
    format(string(Change), "~w runs a ~w (~D inferences a call) that collects the same answers at every position: move it into a helper predicate and table it (`:- table helper/N.`)", [PI, Text, N]).
