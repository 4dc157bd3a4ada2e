/*  Support for the Python bridge (bridge/engine.py): load rule files with
    their errors collected instead of printed, and run a goal once, always
    returning a status and a text, never leaving a query open or an
    exception inside pyswip.
*/
:- module(bridge, [bridge_load/2, bridge_load_game/3, bridge_load_shipped/3, bridge_load_gdl/4, bridge_call/4, bridge_run/3]).
:- use_module(json_out).

:- dynamic load_message/1.
:- use_module(library(prolog_stack)).

%   A game file is a program, but it may not end educable: halt/0,1 from one
%   (a directive, initialization/1, or a rule while a command runs) is
%   cancelled and remembered with where it came from; the load or the call
%   then fails with that as its error.  (educable never halts Prolog itself:
%   the Python process ends, and Prolog with it.)
:- initialization(at_halt(bridge:halt_guard)).

halt_guard :-
    halt_origin(Where),
    nb_setval(educable_halt, Where),
    cancel_halt(Where).

halt_origin(Where) :-
    (   source_location(File, Line)
    ->  format(string(Where), "~w:~w", [File, Line])
    ;   catch(get_prolog_backtrace(40, Frames), _, Frames = []),
        frame_of(Frames, frame(_, clause(Clause, _), _)),
        clause_property(Clause, file(File)),
        \+ core_file(File),
        \+ system_file(File),
        clause_property(Clause, line_count(Line))
    ->  format(string(Where), "~w:~w", [File, Line])
    ;   Where = "a rule"
    ).

%   member/2, written here: the halt guard also runs while Prolog shuts down, when autoloading
%   library(lists) may fail (a race stopped by Ctrl-C printed "Unknown procedure: bridge:member/2"),
%   and importing the library here would make it loaded before any game file.
frame_of([F|_], F).
frame_of([_|Fs], F) :- frame_of(Fs, F).

system_file(File) :-
    current_prolog_flag(home, Home),
    sub_atom(File, 0, _, _, Home).

core_file(File) :-
    module_property(bridge, file(Me)),
    file_directory_name(Me, Dir),
    file_directory_name(File, Dir).

halt_attempt(Where) :-
    nb_current(educable_halt, Where), Where \== none.

clear_halt :- nb_setval(educable_halt, none).

%!  bridge_load(+File, -Errors:list(string)) is det.
%   Load File (and what it loads); Errors are the error and warning
%   messages printed meanwhile, each "file:line: message".
bridge_load(File, Errors) :-
    retractall(load_message(_)),
    setup_call_cleanup(
        asserta((user:message_hook(Term, Kind, _) :-
                    memberchk(Kind, [error, warning]),
                    bridge:record_message(Term)), Ref),
        catch(load_files(File, [if(true)]), E, record_message(E)),
        erase(Ref)),
    findall(M, retract(load_message(M)), Errors).

%!  bridge_load_game(+File, -Errors:list(string), -Warnings:list(string)) is det.
%   Load one game file on its own.  With Errors (a syntax error, an
%   exception) the file is unloaded again, so that no half of it lingers;
%   Warnings (a singleton variable, discontiguous clauses) do not stop it.
bridge_load_game(File, Errors, Warnings) :-
    retractall(load_message(_)),
    clear_halt,
    (   taken_module(File, Module, Owner)
    ->  format(string(E), "~w:1: declares module ~q, which ~w already (a game file's module needs a name of its own)",
               [File, Module, Owner]),
        Errors = [E], Warnings = []
    ;   load_game_file(File, checked, Errors, Warnings)
    ).

%!  bridge_load_shipped(+File, -Errors:list(string), -Warnings:list(string)) is det.
%   Load one of educable's own game files (rules/games/): as bridge_load_game/3,
%   without comparing every other file's clauses before and after (a file
%   of ours changes no other; the comparison was 90% of the time a load took).
bridge_load_shipped(File, Errors, Warnings) :-
    retractall(load_message(_)),
    clear_halt,
    load_game_file(File, shipped, Errors, Warnings).

%   A game file whose module is named like one SWI-Prolog or educable has
%   (lists, game, ...) would replace that module under every other file:
%   loading `:- module(lists, [])` aborted the process.  Owner says whose.
taken_module(File, Module, Owner) :-
    catch(setup_call_cleanup(open(File, read, In, [encoding(utf8)]),
                             read_term(In, First, [syntax_errors(quiet)]),
                             close(In)), _, fail),
    nonvar(First), First = (:- module(Module, _)), atom(Module),
    absolute_file_name(File, Abs),
    (   module_property(Module, file(Other)), Other \== Abs
    ->  format(string(Owner), "~w defines", [Other])
    ;   module_property(Module, class(Class)), memberchk(Class, [system, library])
    ->  Owner = "SWI-Prolog has built in"
    ;   absolute_file_name(library(Module), Lib, [file_type(prolog), access(read), file_errors(fail)])
    ->  format(string(Owner), "SWI-Prolog's library ~w defines", [Lib])
    ).

load_game_file(File, Trust, Errors, Warnings) :-
    absolute_file_name(File, Abs),
    others_clauses(Trust, Abs, Before),
    setup_call_cleanup(
        asserta((user:message_hook(Term, Kind, _) :-
                    memberchk(Kind, [error, warning]),
                    bridge:record_message(Kind, Term)), Ref),
        catch(with_output_to(string(_), load_files(File, [if(true)])),   % what a directive prints is not educable's output
              E, record_message(error, E)),
        erase(Ref)),
    findall(M, retract(load_message(error-M)), Errors0),
    findall(M, retract(load_message(warning-M)), Warnings),
    (   halt_attempt(Where)
    ->  clear_halt,
        absolute_file_name(File, Abs),
        (   sub_atom(Where, 0, _, _, Abs) -> At = Where ; format(string(At), "~w:1", [File]) ),
        format(string(H), "~w: the file calls halt (a game file may not end educable)", [At]),
        Errors = [H|Errors0]
    ;   Errors0 == [], taken_name(File, Game, Other)
    ->  format(string(D), "~w: defines game ~q, which ~w defines already (rename one of them)", [File, Game, Other]),
        Errors = [D]
    ;   Errors0 == [], others_clauses(Trust, Abs, After), changed_other(Before, After, PI, Other)
    ->  format(string(D), "~w: changes ~q of ~w (a game file may add clauses to the protocol's predicates, never change another file's)",
               [File, PI, Other]),
        Errors = [D]
    ;   Errors = Errors0
    ),
    (   Errors == [] -> confine_hooks(Abs) ; catch(unload_file(File), _, true) ),
    others_clauses(Trust, Abs, Now),                           % what it changed comes back
    forall(( changed_other(Before, Now, _, Damaged), Damaged \== Abs ),
           catch(with_output_to(string(_), load_files(Damaged, [if(true)])), _, true)),
    (   retract(load_message(restore_core))                   % what it replaced comes back
    ->  retractall(load_message(restore_core)),
        module_property(game, file(GameFile)),
        with_output_to(string(_), load_files(GameFile, [if(true)]))
    ;   true
    ).

%   Before and after a game file loads: for every other file loaded from
%   source (educable's rules, the games, earlier game files; not SWI-Prolog's
%   own), how many clauses each of its static predicates holds from it.  A
%   file that abolished, retracted or redefined one of them changed a count.
%   (None compared for a file of ours.)
others_clauses(shipped, _, []) :- !.
others_clauses(checked, Self, Counts) :-
    findall(F-(M:N/A)-C,
            ( source_file(F), F \== Self, \+ system_source(F),
              source_file(M:H, F),
              \+ predicate_property(M:H, dynamic),
              \+ predicate_property(M:H, imported_from(_)),
              functor(H, N, A),
              aggregate_all(count, ( catch(nth_clause(M:H, _, R), _, fail), clause_property(R, file(F)) ), C) ),
            Counts0),
    sort(Counts0, Counts).

system_source(F) :-
    current_prolog_flag(home, Home),
    sub_atom(F, 0, _, _, Home).

%   PI of file Other holds other clauses After than Before.
changed_other(Before, After, PI, Other) :-
    ord_subtract(Before, After, [Other-PI-_|_]).

%   A game file's term_expansion/goal_expansion hooks in user or system served
%   its own load; left in place they would rewrite every file loaded after it
%   (and hide that file's game).  Its clauses of those hooks are erased.
confine_hooks(File) :-
    forall(( member(M, [user, system]), member(N/A, [term_expansion/2, term_expansion/4, goal_expansion/2, goal_expansion/4]),
             functor(H, N, A),
             catch(clause(M:H, _, Ref), _, fail),
             clause_property(Ref, file(File)) ),
           erase(Ref)).

%   File names a game (a ground game/1 clause) that a file loaded before it
%   names too: two files would share one game's rules.
taken_name(File, Game, Other) :-
    absolute_file_name(File, Abs),
    clause(game:game(Game), _, Ref), ground(Game),
    clause_property(Ref, file(Abs)),
    (   clause(game:game(G2), _, Ref2), G2 == Game, Ref2 \== Ref,
        clause_property(Ref2, file(Other)), Other \== Abs
    ;   catch(gdl:gdl_file(Game, Other), _, fail)        % a GDL sheet read before it (rules/gdl.pl)
    ),
    !.

%!  bridge_load_gdl(+File, +Name, -Errors:list(string), -Warnings:list(string)) is det.
%   Load the GDL game in File as the game Name (rules/gdl.pl); a name some
%   other file already gives a game is an error.
bridge_load_gdl(File, Name, Errors, []) :-
    (   catch(game:game(Name), _, fail)
    ->  format(string(E), "~w:1: a game named ~w is already loaded (rename the file)", [File, Name]),
        Errors = [E]
    ;   gdl:gdl_load(File, Name, Errors)
    ).

record_message(Term) :-
    message_line(Term, Line),
    assertz(load_message(Line)).

record_message(Kind, Term) :-
    message_line(Term, Line),
    (   Term = redefined_procedure(_, game:Name/Arity)        % a game file may add clauses to the
    ->  format(string(Error), "~w (a game file may only add clauses to the protocol's predicates; ~w/~w is educable's own)",
               [Line, Name, Arity]),
        assertz(load_message(error-Error)),                   % protocol, not replace game.pl's own
        assertz(load_message(restore_core))
    ;   assertz(load_message(Kind-Line))
    ).

message_line(error(syntax_error(What), file(File, Line, _, _)), Text) :- !,
    syntax_what(What, W),
    format(string(Text), "~w:~w: syntax error: ~w", [File, Line, W]).
message_line(error(syntax_error(What), stream(_, Line, _, _)), Text) :- !,
    syntax_what(What, W),
    format(string(Text), "line ~w: syntax error: ~w", [Line, W]).
message_line(Term, Text) :-
    message_text(Term, Body),
    (   source_location(File, Line)
    ->  format(string(Text), "~w:~w: ~w", [File, Line, Body])
    ;   Text = Body
    ).

%   "Unexpected end of clause", as SWI-Prolog words the syntax error.
syntax_what(What, Text) :-
    (   catch(translate(error(syntax_error(What), _), Full), _, fail),
        sub_string(Full, B, _, _, "Syntax error: ")
    ->  S is B + 14,
        sub_string(Full, S, _, 0, Rest),
        split_string(Rest, "\n", " \t", [Text|_])
    ;   format(string(Text), "~w", [What])
    ).

translate(Term, Text) :-
    '$messages':translate_message(Term, Lines, []),
    with_output_to(string(Text), print_message_lines(current_output, '', Lines)).

%!  message_text(+Term, -Text:string) is det.
%   The one-line text SWI-Prolog would print for Term.
message_text(educable_error(Msg), Text) :- !,
    format(string(Text), "~w", [Msg]).
message_text(Term, Text) :-
    (   catch(translate(Term, Text0), _, fail)
    ->  true
    ;   format(string(Text0), "~q", [Term])
    ),
    split_string(Text0, "\n", " \t", Parts),
    exclude(==(""), Parts, Parts1),
    atomic_list_concat(Parts1, ' ', A),
    atom_string(A, Text).

%   Ctrl-C or SIGTERM while Prolog runs a goal: Python's own handler cannot
%   run until the goal ends, so the engine (bridge/engine.py) raises SIGUSR2
%   in Prolog's thread, and Prolog stops the goal at its next inference,
%   endless game rules included.
:- initialization(on_signal(usr2, _, bridge:stop_requested)).

stop_requested(_) :- throw(educable_interrupted).

%!  bridge_call(:Goal, ?Out, -Status, -Text:string) is det.
%   Run Goal once.  Status is `ok` (Text is Out as JSON), `failed`,
%   `bad_input` (an educable_error; Text is its message), `resource` (out
%   of stack or table space), `interrupted` (Ctrl-C or SIGTERM) or `error`
%   (any other exception; Text is its message).
:- meta_predicate bridge_call(0, ?, -, -).
bridge_call(Goal, Out, Status, Text) :-
    clear_halt,
    catch(( call(Goal)
          -> Status0 = ok, json_text(Out, Text0)
          ;  Status0 = failed, Text0 = ""
          ),
          E,
          error_status(E, Status0, Text0)),
    (   halt_attempt(Where)
    ->  clear_halt,
        Status = bad_input,
        format(string(Text), "~w: a rule called halt (a game file may not end educable; the command stopped)", [Where])
    ;   Status = Status0, Text = Text0
    ).

error_status(educable_interrupted, interrupted, "interrupted") :- !.
error_status(educable_error(Msg), bad_input, Text) :- !,
    format(string(Text), "~w", [Msg]).
error_status(error(resource_error(What), _), resource, Text) :- !,
    current_prolog_flag(stack_limit, S), current_prolog_flag(table_space, T),
    format(string(Text), "Prolog ran out of ~w (stack limit ~D bytes, table space ~D bytes)", [What, S, T]).
error_status(E, bad_input, Text) :-
    E \= error(_, _), !,                     % educable throws only educable_error and error(_, _)
    format(string(Text), "a rule of a game file raised ~q, which nothing caught", [E]).
error_status(E, error, Text) :-
    message_text(E, Text).

%!  bridge_run(+GoalText:string, -Status, -Text:string) is det.
%   Parse GoalText (in module user) and run it as bridge_call/4 with its
%   variable Out.  Only Status and Text reach pyswip, so no large term is
%   ever converted by it.
bridge_run(GoalText, Status, Text) :-
    catch(term_string(Goal, GoalText, [variable_names(Names)]), E, true),
    (   nonvar(E)
    ->  error_status(E, Status, Text)
    ;   ( memberchk('Out'=Out, Names) -> true ; Out = true ),
        bridge_call(user:Goal, Out, Status, Text)
    ).
