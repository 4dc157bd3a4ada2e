/*  Rule-set agents (Gaia's "Ejemplos de Vida"): "if I see this board, I play there".

    A rule is rule(Agent, Turn, Condition, Move, Priority, Weight).  Turn is
    `any` or the player whose turn it must be; Condition has one code a cell,
    over the board as the player to move sees it (cells/4): 0 empty, 1 mine,
    2 theirs (or the cell's value, in games with more), `any` for anything.  The genetic learner (Python)
    evolves rules and stores them in the knowledge base; rules_load/3 puts
    an agent's rules here and the agent plays as the chooser agent(Agent).

    Choosing a move, exactly as Gaia's page:
      B = the rules whose condition matches the board (and whose move is
          legal); none: any legal move at random;
      C = those of B of the highest priority;
      D = those of C of the highest weight; a random one of D.

    A rule file (educable rules export/import) holds rule_set(Game),
    perhaps rule_layout(drawn) (conditions written as `show` draws the
    board, rather than from cell 1), and rule/4 facts (condition text,
    action, priority, weight); rule_file_open/1 and rule_file_page/3 read
    one, a page at a time, without running it.
*/
%   ?- rules_load(me, tictactoe, [['mm./***/***', '3', 3, 0]]),
%      parse_position(tictactoe, 'xx./oo./...', P, M),
%      rule_candidates(me, tictactoe, P, M, Moves).
%   Moves = [3].

:- module(ruleset,
          [ rules_load/3,         % +Agent, +Game, +Rows
            rule_candidates/5,    % +Agent, +Game, +Pos, +Mover, -Moves
            condition_codes/3,    % +Text, -Turn, -Codes
            rule_file_open/1,     % +File
            rule_file_page/3,     % +Max, -Rules, -Done
            rule_file_header/2,   % -Game, -Layout
            rule_file_close/0
          ]).
:- use_module(game).
:- use_module(play).

:- dynamic rule/6, rule_agent/2.

%!  rules_load(+Agent, +Game, +Rows:list) is det.
%   Replace Agent's rules by Rows, each [ConditionText, MoveText, Priority, Weight].
rules_load(Agent, Game, Rows) :-
    retractall(rule(Agent, _, _, _, _, _)),
    retractall(rule_agent(Agent, _)),
    assertz(rule_agent(Agent, Game)),
    forall(member([CT, MT, Pr, W], Rows),
           ( condition_codes(CT, Turn, Codes),
             ( Turn == any -> true ; players(Game, Ps), memberchk(Turn, Ps) ),
             parse_move(Game, MT, Move),
             assertz(rule(Agent, Turn, Codes, Move, Pr, W)) )).

%!  condition_codes(+Text, -Turn, -Codes:list) is semidet.
%   'white:mt./***/...' as its turn (`any` without a 'PLAYER:' prefix) and
%   cell codes in cell order; '/' separates rows and is skipped.  Fails on
%   a symbol that is not . m t 0-9 *.
condition_codes(Text, Turn, Codes) :-
    atom_string(Text, S),
    (   sub_string(S, B, 1, _, ":")
    ->  sub_string(S, 0, B, _, T), atom_string(Turn, T),
        B1 is B + 1, sub_string(S, B1, _, 0, Board)
    ;   Turn = any, Board = S
    ),
    string_chars(Board, Chars),
    exclude(==('/'), Chars, Cs),
    maplist(condition_char, Cs, Codes).

condition_char('.', 0) :- !.
condition_char(m, 1) :- !.
condition_char(t, 2) :- !.
condition_char(*, any) :- !.
condition_char(D, V) :- char_type(D, digit(V)).

%!  rule_candidates(+Agent, +Game, +Pos, +Mover, -Moves:list) is det.
%   The moves the agent picks among uniformly: one entry per rule of D
%   (so a move two rules of D agree on is twice as likely), or every
%   legal move when no rule matches.
rule_candidates(Agent, Game, Pos, Mover, Moves) :-
    cells(Game, Pos, Mover, Cells),
    findall(Pr-W-M, ( rule(Agent, Turn, Cond, M, Pr, W),
                      ( Turn == any ; Turn == Mover ),
                      matches(Cond, Cells),
                      legal(Game, Pos, Mover, M) ), B),
    (   B == []
    ->  findall(M, legal(Game, Pos, Mover, M), Moves)
    ;   aggregate_all(max(Pr), member(Pr-_-_, B), TopPr),
        aggregate_all(max(W), member(TopPr-W-_, B), TopW),
        findall(M, ( member(Pr-W-M, B), Pr =:= TopPr, W =:= TopW ), Moves)
    ).

matches([], []).
matches([C|Cs], [X|Xs]) :-
    ( C == any -> true ; C =:= X ),
    matches(Cs, Xs).

:- multifile play:candidates/5.
play:candidates(agent(Agent), Game, Pos, Mover, Moves) :-
    rule_agent(Agent, Game), !,
    rule_candidates(Agent, Game, Pos, Mover, Moves).

%!  rule_file_open(+File) is det.
%   Start reading a rule file term by term (nothing in it is run); the
%   rules come in pages (rule_file_page/3), never as one list, so a file of
%   a million rules costs a page of memory in Prolog.
rule_file_open(File) :-
    rule_file_close,
    open(File, read, In),
    nb_setval(rule_file, file(File, In, [], cells)).

%!  rule_file_page(+Max:integer, -Rules:list, -Done:boolean) is det.
%   The next (at most Max) rules as [Line, ConditionText, ActionText,
%   Priority, Weight]; the values are checked by the caller.  Done is true
%   at the end of the file, which is then closed.  Throws
%   educable_error("File:Line: ...") on a syntax error or an unknown term
%   (the file is closed).
rule_file_page(Max, Rules, Done) :-
    nb_getval(rule_file, file(File, In, Sets0, Layout0)),
    catch(read_page(Max, In, File, Sets0-Layout0, Sets-Layout, Rules, Done), E, ( rule_file_close, throw(E) )),
    (   Done == true -> rule_file_close ; true ),
    nb_setval(rule_file, file(File, In, Sets, Layout)),
    (   Done == true -> nb_setval(rule_file_header, header(File, Sets, Layout)) ; true ).

read_page(0, _, _, State, State, [], false) :- !.
read_page(N, In, File, Sets0-Layout0, State, Rules, Done) :-
    catch(read_term(In, T, [term_position(Pos), syntax_errors(error), variable_names(_)]), E,
          syntax_error(E, File)),
    (   T == end_of_file
    ->  State = Sets0-Layout0, Rules = [], Done = true
    ;   stream_position_data(line_count, Pos, Line),
        check_term(T, File, Line),
        N1 is N - 1,
        (   T = rule(C0, A0, P, W)
        ->  text(C0, C), text(A0, A),
            Rules = [[Line, C, A, P, W]|Rest],
            read_page(N1, In, File, Sets0-Layout0, State, Rest, Done)
        ;   T = rule_set(G)
        ->  read_page(N1, In, File, [G-Line|Sets0]-Layout0, State, Rules, Done)
        ;   read_page(N1, In, File, Sets0-drawn, State, Rules, Done)         % rule_layout(drawn)
        )
    ).

%!  rule_file_header(-Game, -Layout) is det.
%   After the last page: the game the file is for and its layout (`drawn`
%   when it says rule_layout(drawn), else `cells`, as files written before
%   layouts); educable_error when rule_set/1 is missing or repeated.
rule_file_header(Game, Layout) :-
    nb_getval(rule_file_header, header(File, Sets, Layout)),
    reverse(Sets, InOrder),
    (   InOrder = [Game-_]
    ->  true
    ;   InOrder = [] -> format(atom(M), "~w: no rule_set(Game) fact saying which game the rules are for", [File]), bad_input(M)
    ;   InOrder = [_, _-L2|_], format(atom(M), "~w:~w: a second rule_set/1 fact", [File, L2]), bad_input(M)
    ).

%!  rule_file_close is det.
%   Close a rule file being read, if any.
rule_file_close :-
    (   nb_current(rule_file, file(_, In, _, _)) -> catch(close(In), _, true) ; true ),
    nb_setval(rule_file, none).

text(X, T) :- ( atomic(X) -> format(atom(T), "~w", [X]) ; term_to_atom(X, T) ).

check_term(rule_set(G), _, _) :- atom(G), !.
check_term(rule_layout(drawn), _, _) :- !.
check_term(rule(_, _, _, _), _, _) :- !.
check_term(T, File, Line) :-
    format(atom(M), "~w:~w: expected rule(Condition, Action, Priority, Weight) or rule_set(Game), found ~q",
           [File, Line, T]),
    bad_input(M).

syntax_error(error(syntax_error(What), Context), File) :- !,
    (   Context = stream(_, Line, _, _) -> true
    ;   Context = file(_, Line, _, _) -> true
    ;   Line = '?'
    ),
    (   catch('$messages':translate_message(error(syntax_error(What), _), Parts, []), _, fail),
        Parts = [_, Text|_], atomic(Text)
    ->  downcase_first(Text, Why)
    ;   Why = What
    ),
    format(atom(M), "~w:~w: syntax error: ~w", [File, Line, Why]),
    bad_input(M).
syntax_error(E, _) :- throw(E).

downcase_first(Text, Lower) :-
    atom_chars(Text, [C|Cs]), downcase_atom(C, L), atom_chars(Lower, [L|Cs]).
