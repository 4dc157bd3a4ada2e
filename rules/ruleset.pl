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
    action, priority, weight); read_rule_file/4 reads one without running it.
*/
%   ?- rules_load(me, tictactoe, [['mm./***/***', '3', 3, 0]]),
%      parse_position(tictactoe, 'xx./oo./...', P, M),
%      rule_candidates(me, tictactoe, P, M, Moves).
%   Moves = [3].

:- module(ruleset,
          [ rules_load/3,         % +Agent, +Game, +Rows
            rule_candidates/5,    % +Agent, +Game, +Pos, +Mover, -Moves
            condition_codes/3,    % +Text, -Turn, -Codes
            read_rule_file/4      % +File, -Game, -Layout, -Rules
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

%!  read_rule_file(+File, -Game, -Layout, -Rules:list) is det.
%   Read a rule file term by term (nothing in it is run).  Layout is
%   `drawn` when the file says rule_layout(drawn), else `cells` (files
%   written before layouts).  Rules are [Line, ConditionText, ActionText,
%   Priority, Weight]; the values are checked by the caller.  Throws
%   educable_error("File:Line: ...") on a syntax error, an unknown term or a
%   missing or repeated rule_set/1.
read_rule_file(File, Game, Layout, Rules) :-
    setup_call_cleanup(open(File, read, In),
                       read_terms(In, File, Terms),
                       close(In)),
    findall(G-L, member(L-rule_set(G), Terms), Sets),
    (   Sets = [Game0-_]
    ->  Game = Game0
    ;   Sets = [] -> format(atom(M), "~w: no rule_set(Game) fact saying which game the rules are for", [File]), bad_input(M)
    ;   Sets = [_, _-L2|_], format(atom(M), "~w:~w: a second rule_set/1 fact", [File, L2]), bad_input(M)
    ),
    (   memberchk(_-rule_layout(drawn), Terms) -> Layout = drawn ; Layout = cells ),
    findall([L, C, A, P, W], ( member(L-rule(C0, A0, P, W), Terms), text(C0, C), text(A0, A) ), Rules).

text(X, T) :- ( atomic(X) -> format(atom(T), "~w", [X]) ; term_to_atom(X, T) ).

read_terms(In, File, Terms) :-
    catch(read_term(In, T, [term_position(Pos), syntax_errors(error), variable_names(_)]), E,
          syntax_error(E, File)),
    (   T == end_of_file
    ->  Terms = []
    ;   stream_position_data(line_count, Pos, Line),
        check_term(T, File, Line),
        Terms = [Line-T|Rest],
        read_terms(In, File, Rest)
    ).

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
