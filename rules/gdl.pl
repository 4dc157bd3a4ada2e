/*  General Game Playing: games written in GDL (the Game Description
    Language of the Stanford GGP course and ggp-base, in its KIF syntax)
    loaded as games of the protocol (rules/game.pl).

    A .kif file is read into s-expressions, each sentence becomes a clause
    of a module of its own (gdl_NAME), and the protocol answers for the game
    NAME by asking that module.  A state is the sorted list of its ground
    fluents; every relation takes the state S and the joint move D (a list of
    does(Role, Move)) as two extra arguments, so nothing is asserted per move.
    Bodies are reordered as GDL allows (it is order-free; Prolog negation
    needs ground arguments): positive literals first, then `or`, then
    `distinct` and `not`.

    Two-player turn-taking games are the target, written the GDL way: both
    roles move every step and the role not on turn has one legal move (such
    as noop).  The side to move is the role with more than one legal move,
    or the one whose single move is not a pass (noop, or a move seen as the
    other's only move while one role had a choice).  One role or more than
    two are refused with the reason.  GDL-II's `random` role, a third, is
    chance: where it has a move to make and neither player a choice, the
    state is a chance node whose outcomes are random's legal moves, equally
    likely.

    Hidden information (GDL-II, Thielscher 2010): a sheet with (sees ...)
    rules, or whose roles choose at once (both have a choice in the same
    step, as in Goofspiel), is a game of hidden information (game.pl's
    sees/4).  Its position is the GDL state with, for each player, what it
    has done and seen so far ('$seen'(Role, History)): its percepts are
    what (sees Role P) says after each step, or, in a sheet without sees,
    the other roles' moves (GDL without sees hides nothing but a move being
    made at once).  Moves made at once are played one after the other: the
    first role's choice waits in the position ('$chose'(Role, Move)) while
    the second chooses without seeing it, then both are applied.

        ?- gdl_load('games/ttt.kif', ttt, Errors).
*/
:- module(gdl, [gdl_load/3, gdl_file/2, gdl_where/3, kif_terms/3, kif_text/2]).
:- use_module(game).
:- use_module(gdl_board).
:- use_module(library(utf8)).

:- dynamic gdl_game/2.          % gdl_game(Name, Module)
:- dynamic gdl_file/2.          % gdl_file(Name, File): where the game was read from
:- dynamic pass_move/3.         % pass_move(Name, Role, Move): Role's move when not on turn
:- dynamic hidden_sheet/1.      % hidden_sheet(Name): sees rules or moves made at once (hidden information)

%!  gdl_load(+File, +Name, -Errors:list(string)) is det.
%   Read the GDL game in File as the game Name; Errors (each "file:line:
%   message") is [] when it loaded.  A game that fails leaves nothing behind.
gdl_load(File, Name, Errors) :-
    atom_concat(gdl_, Name, Module),
    unload(Name, Module),
    catch(( file_codes(File, Codes),
            kif_sentences(Codes, Sentences),
            (   Sentences == []
            ->  gdl_throw(1, "no GDL sentences: the file is empty or holds only comments", [])
            ;   true
            ),
            maplist(note_defined(Module), Sentences),
            maplist(sentence_clause(Module), Sentences),
            check_game(Name, Module),
            assertz(gdl_game(Name, Module)),
            assertz(gdl_file(Name, File)),
            Errors = [] ),
          Error,
          ( unload(Name, Module),
            (   Error = gdl_error(Line, Msg) -> true
            ;   Line = 1, message_to_codes(Error, Msg)          % anything else the file's rules raised
            ),
            format(string(E), "~w:~w: ~w", [File, Line, Msg]),
            Errors = [E] )).

message_to_codes(Error, Text) :-
    (   catch(message_to_codes(Error, [], Codes), _, fail) -> string_codes(Text, Codes)
    ;   format(string(Text), "~q", [Error])
    ).

%   The file's text, which must be UTF-8 (a file in another encoding is
%   refused at its first byte that is not, rather than read as garbage).
file_codes(File, Codes) :-
    setup_call_cleanup(open(File, read, In, [encoding(octet)]), read_string(In, _, Raw), close(In)),
    string_codes(Raw, Bytes),
    phrase(utf8_codes(Codes), Bytes, Rest),
    (   Rest == []
    ->  true
    ;   include(==(0'\n), Codes, Newlines), length(Newlines, N), Line is N + 1,
        Rest = [Byte|_],
        format(atom(Hex), "~16r", [Byte]),
        gdl_throw(Line, "not UTF-8 text (byte 0x~w): save the file as UTF-8", [Hex])
    ).

unload(Name, Module) :-
    retractall(gdl_game(Name, _)),
    retractall(rule_line(Module, _, _)),
    retractall(defines(Module, _, _)),
    retractall(gdl_file(Name, _)),
    retractall(memo_trie(Name, _, _)),
    flag(gdl_memo(Name), _, 0),
    retractall(known_start(Module, _)),
    retractall(known_roles(Module, _)),
    retractall(known_marks(Name, _, _)),
    retractall(pass_move(Name, _, _)),
    retractall(hidden_sheet(Name)),
    forget_board(Name),
    (   current_module(Module)
    ->  forall(( current_predicate(Module:P/A), functor(H, P, A),
                 \+ predicate_property(Module:H, imported_from(_)) ),
               abolish(Module:P/A))
    ;   true
    ).

gdl_throw(Line, Fmt, Args) :-
    format(string(Msg), Fmt, Args),
    throw(gdl_error(Line, Msg)).

% ---------------------------------------------------------------- reading

%!  kif_terms(+Text, -Terms:list, -Error) is det.
%   The KIF terms of Text as Prolog terms (symbols lowercased), for move and
%   position texts; Error is `none` or a message.
kif_terms(Text, Terms, Error) :-
    atom_codes(Text, Codes),
    catch(( tokens(Codes, 1, Tokens), sexprs(Tokens, Exprs),
            maplist(ground_term, Exprs, Terms), Error = none ),
          gdl_error(_, Error), Terms = []).

ground_term(Expr, Term) :-
    expr_term(Expr, [], _, Term),
    (   ground(Term) -> true ; throw(gdl_error(0, "a variable where a ground term was expected")) ).

%   Sentences are Line-Expr pairs.
kif_sentences(Codes, Sentences) :-
    tokens(Codes, 1, Tokens),
    sentences(Tokens, Sentences).

tokens([], _, []).
tokens([C|Cs], L, Ts) :-
    (   C == 0'\n -> L1 is L + 1, tokens(Cs, L1, Ts)
    ;   code_type(C, space) -> tokens(Cs, L, Ts)
    ;   C == 0'; -> skip_line(Cs, Rest), tokens(Rest, L, Ts)
    ;   C == 0'( -> Ts = [open(L)|T1], tokens(Cs, L, T1)
    ;   C == 0') -> Ts = [close(L)|T1], tokens(Cs, L, T1)
    ;   symbol_codes([C|Cs], Sym, Rest),
        (   Sym == [] -> gdl_throw(L, "unexpected character '~c'", [C]) ; true ),
        atom_codes(A0, Sym), downcase_atom(A0, A),
        Ts = [sym(L, A)|T1],
        tokens(Rest, L, T1)
    ).

skip_line([], []).
skip_line([C|Cs], Rest) :- ( C == 0'\n -> Rest = [C|Cs] ; skip_line(Cs, Rest) ).

symbol_codes([C|Cs], [C|S], Rest) :-
    \+ code_type(C, space), C \== 0'(, C \== 0'), C \== 0';, !,
    symbol_codes(Cs, S, Rest).
symbol_codes(Cs, [], Cs).

sentences([], []).
sentences(Ts, [L-E|Es]) :-
    Ts = [T|_], token_line(T, L),
    sexpr(Ts, E, Rest),
    sentences(Rest, Es).

sexprs([], []).
sexprs(Ts, [E|Es]) :- sexpr(Ts, E, Rest), sexprs(Rest, Es).

sexpr([sym(_, A)|Ts], atom(A), Ts).
sexpr([open(L)|Ts], list(L, Items), Rest) :- items(Ts, L, Items, Rest).
sexpr([close(L)|_], _, _) :- gdl_throw(L, "unexpected ')'", []).

items([], L, _, _) :- gdl_throw(L, "'(' without its ')'", []).
items([close(_)|Ts], _, [], Ts) :- !.
items(Ts, L, [E|Es], Rest) :- sexpr(Ts, E, R1), items(R1, L, Es, Rest).

token_line(open(L), L).
token_line(close(L), L).
token_line(sym(L, _), L).

% ---------------------------------------------------------------- translating

%   Relations the protocol itself reads, and those that only describe a game.
keyword(role). keyword(init). keyword(true). keyword(does). keyword(next).
keyword(legal). keyword(goal). keyword(terminal). keyword(distinct).
keyword(not). keyword(or).

ignored(base). ignored(input).

sentence_clause(Module, Line-Expr) :-
    no_kept_name(Line, Expr),
    (   Expr = list(_, [atom('<='), HeadE|BodyEs])
    ->  expr_term(HeadE, [], V1, Head),
        head_check(Line, Head),
        note_line(Module, Head, Line),
        foldl(literal(Line), BodyEs, Body0, V1, _),
        order_body(Body0, Body),
        relation_head(Head, S, D, Head1),
        body_goal(Body, Module, S, D, Goal),
        (   ignored_head(Head) -> true ; assertz(Module:(Head1 :- Goal)) )
    ;   expr_term(Expr, [], _, Head),
        head_check(Line, Head),
        (   ground(Head) -> true ; gdl_throw(Line, "a fact with a variable", []) ),
        relation_head(Head, _, _, Head1),
        (   ignored_head(Head) -> true ; assertz(Module:Head1) )
    ).

ignored_head(Head) :- functor(Head, N, _), ignored(N).

:- dynamic rule_line/3.         % rule_line(Module, Relation, Line): its first rule's line

note_line(Module, Head, Line) :-
    functor(Head, Relation, _),
    (   rule_line(Module, Relation, _) -> true ; assertz(rule_line(Module, Relation, Line)) ).

%!  gdl_where(+Game, +ProtocolPredicate, -Where:atom) is semidet.
%   "file:line" of the first GDL rule behind a protocol predicate of Game
%   (legal/4: legal; next/5: next; over/4: terminal; the text forms: init).
gdl_where(Game, Pred, Where) :-
    gdl_game(Game, Module), gdl_file(Game, File),
    (   protocol_relation(Pred, Relation), rule_line(Module, Relation, Line) -> true ; Line = 1 ),
    format(atom(Where), "~w:~w", [File, Line]).

protocol_relation(legal/4, legal).
protocol_relation(next/5, next).
protocol_relation(next_mover/5, legal).
protocol_relation(over/4, terminal).
protocol_relation(players/2, role).
protocol_relation(initial/3, init).

head_check(Line, Head) :-
    (   var(Head) -> gdl_throw(Line, "a variable as a sentence", [])
    ;   functor(Head, N, _), memberchk(N, [true, does, distinct, not, or])
    ->  gdl_throw(Line, "~w cannot be the head of a rule", [N])
    ;   true
    ).

%   An s-expression as a Prolog term; Vars maps ?names to variables.
expr_term(atom(A), V0, V, T) :- !,
    (   sub_atom(A, 0, 1, _, ?)
    ->  (   memberchk(A-T, V0) -> V = V0 ; V = [A-T|V0] )
    ;   T = A, V = V0
    ).
expr_term(list(L, []), _, _, _) :- !, gdl_throw(L, "an empty list ()", []).
expr_term(list(L, [atom(F)|Args]), V0, V, T) :- !,
    (   sub_atom(F, 0, 1, _, ?) -> gdl_throw(L, "a variable ~w as a function name", [F]) ; true ),
    foldl(arg_term, Args, Ts, V0, V),
    T =.. [F|Ts].
expr_term(list(L, _), _, _, _) :- gdl_throw(L, "a list where a name was expected (a higher-order term)", []).

arg_term(E, T, V0, V) :- expr_term(E, V0, V, T).

%   A body literal as lit(Kind, Term): pos, neg, distinct or or.
literal(Line, E, Lit, V0, V) :-
    expr_term(E, V0, V, T),
    (   var(T) -> gdl_throw(Line, "a variable as a literal", [])
    ;   T = not(X) -> Lit = neg(X)
    ;   T = distinct(A, B) -> Lit = distinct(A, B)
    ;   T =.. [or|Ds] -> Lit = or(Ds)
    ;   functor(T, not, N), N \== 1 -> gdl_throw(Line, "not takes one literal", [])
    ;   functor(T, distinct, N), N \== 2 -> gdl_throw(Line, "distinct takes two terms", [])
    ;   Lit = pos(T)
    ).

order_body(Lits, Ordered) :-
    include([L]>>(L = pos(_)), Lits, P),
    include([L]>>(L = or(_)), Lits, O),
    exclude([L]>>(L = pos(_) ; L = or(_)), Lits, N),
    append([P, O, N], Ordered).

body_goal([], _, _, _, true).
body_goal([L|Ls], M, S, D, (G, Gs)) :- lit_goal(L, M, S, D, G), body_goal(Ls, M, S, D, Gs).

lit_goal(pos(T), M, S, D, G) :- atom_goal(T, M, S, D, G).
lit_goal(neg(T), M, S, D, \+ G) :- sub_goal(T, M, S, D, G).
lit_goal(distinct(A, B), _, _, _, A \== B).
lit_goal(or(Ds), M, S, D, G) :- disjunction(Ds, M, S, D, G).

disjunction([X], M, S, D, G) :- !, sub_goal(X, M, S, D, G).
disjunction([X|Xs], M, S, D, (G ; Gs)) :- sub_goal(X, M, S, D, G), disjunction(Xs, M, S, D, Gs).

%   A literal inside not/or, which may itself be a not, distinct or or.
sub_goal(not(X), M, S, D, \+ G) :- !, sub_goal(X, M, S, D, G).
sub_goal(distinct(A, B), _, _, _, A \== B) :- !.
sub_goal(T, M, S, D, G) :- T =.. [or|Ds], Ds \== [], !, disjunction(Ds, M, S, D, G).
sub_goal(T, M, S, D, G) :- atom_goal(T, M, S, D, G).

atom_goal(true(F), _, S, _, gdl:holds(F, S)) :- !.
atom_goal(does(R, Mv), _, _, D, gdl:holds(does(R, Mv), D)) :- !.
atom_goal(T, M, S, D, G) :-
    functor(T, F, A),
    (   defines(M, F, A)
    ->  relation_head(T, S, D, G0), G = M:G0
    ;   G = fail                        % GDL: a relation the sheet does not define is false
    ).

% ---------------------------------------------------------------- the vocabulary
%
%   A GDL sheet is data: its rules may only ever call relations the sheet
%   itself defines.  Every body literal becomes a call of a relation whose
%   rules the sheet wrote (or `fail`), holds/2, \== or \+; nothing else is
%   emitted.  The sheet's own relations are renamed ('gdl foo' for foo) so
%   that no name it defines or calls can be a Prolog built-in (shell, catch,
%   call, assert, ...), inherited by the game's module; only the protocol's
%   relations keep their names (role/1, init/1, legal/2, next/1, terminal/0,
%   goal/2, none of which is a built-in once the state arguments are added).

:- dynamic defines/3.           % defines(Module, Relation, Arity): the sheet has a rule or fact for it

note_defined(Module, _-Expr) :-
    (   Expr = list(_, [atom('<='), list(_, [atom(F)|Args])|_]) -> length(Args, A)
    ;   Expr = list(_, [atom('<='), atom(F)|_]) -> A = 0
    ;   Expr = list(_, [atom(F)|Args]), F \== '<=' -> length(Args, A)
    ;   Expr = atom(F) -> A = 0
    ;   true                            % malformed: sentence_clause says why
    ),
    (   var(F) -> true
    ;   defines(Module, F, A) -> true
    ;   assertz(defines(Module, F, A))
    ).

%   The clause head (or the call) of a sheet's relation: its state and
%   joint-move arguments added, its name renamed unless the protocol reads it.
relation_head(T, S, D, Head) :-
    T =.. [F|Args],
    length(Args, A),
    (   protocol_keyword(F, A) -> Name = F ; atom_concat('gdl ', F, Name) ),
    append(Args, [S, D], Args1),
    Head =.. [Name|Args1].

protocol_keyword(role, 1).
protocol_keyword(init, 1).
protocol_keyword(legal, 2).
protocol_keyword(next, 1).
protocol_keyword(terminal, 0).
protocol_keyword(goal, 2).
protocol_keyword(sees, 2).

% ---------------------------------------------------------------- the game

check_game(Name, Module) :-
    players_of(Module, Roles),
    length(Roles, N),
    (   N =:= 2 -> true
    ;   N =:= 0 -> gdl_throw(1, "no role: a GDL game names its players with (role NAME)", [])
    ;   gdl_throw(1, "~d roles (~w): educable plays two-player games (and GDL-II's random role)", [N, Roles])
    ),
    (   catch(initial_state(Module, S0), E, gdl_throw(1, "the init rules raise ~q", [E])), S0 \== []
    ->  true
    ;   gdl_throw(1, "no init fluents: the start is what (init ...) says", [])
    ),
    forall(member(P, [legal/4, next/3, terminal/2, goal/4]),
           (   P = F/A, current_predicate(Module:F/A) -> true
           ;   P = F/A, A0 is A - 2, gdl_throw(1, "no ~w/~d rule (every GDL game defines legal, next, terminal and goal)", [F, A0])
           )),
    (   ( defines(Module, sees, 2) ; at_once_ahead(Name, Module, S0, 60) )
    ->  assertz(hidden_sheet(Name)),
        (   comes_back(Name, Module, S0, State)
        ->  kif_text(State, Text),
            gdl_throw(1, "a game of hidden information (its roles do not see everything) whose state ~w comes back along a line of play: each line is a position of its own here (what each player saw), so a line that may go on for ever makes an endless game; end every line (with a step counter, for instance)", [Text])
        ;   true
        )
    ;   true
    ),
    (   catch(mover(Name, Module, S0, _), educable_error(Msg), gdl_throw(1, "~w", [Msg]))
    ->  true
    ;   gdl_throw(1, "no role has a legal move at the start", [])
    ).

%   F is in the list S: a lookup when F is ground, else each match.
holds(F, S) :- ( ground(F) -> memberchk(F, S) ; member(F, S) ).

:- dynamic known_start/2, known_roles/2.      % per module, computed once

initial_state(Module, S) :-
    (   known_start(Module, S0) -> S = S0
    ;   ( current_predicate(Module:init/3) -> findall(F, Module:init(F, [], []), Fs) ; Fs = [] ),
        sort(Fs, S),
        assertz(known_start(Module, S))
    ).

roles(Module, Roles) :-
    (   known_roles(Module, R0) -> Roles = R0
    ;   current_predicate(Module:role/3)
    ->  findall(R, Module:role(R, [], []), Roles),
        assertz(known_roles(Module, Roles))
    ;   Roles = []
    ).

%   The players: the roles but GDL-II's `random`, which is chance (its
%   moves equally likely: the protocol's chance mover).
players_of(Module, Players) :-
    roles(Module, Roles),
    exclude(==(random), Roles, Players).

has_random(Module) :- roles(Module, Roles), memberchk(random, Roles).

%   The GDL role behind a protocol mover: chance is the random role.
role_of(chance, random) :- !.
role_of(Mover, Mover).

role_moves(Module, S, Role, Moves) :-
    findall(Mv, Module:legal(Role, Mv, S, []), Ms0),
    sort(Ms0, Moves).

%   role_moves/4, kept for the state (every question about a state asks it).
moves_of(G, Module, S, Role, Moves) :-
    memo(G, legal(S, Role), role_moves(Module, S, Role, Moves0), Moves0, Moves).

%!  mover(+Name, +Module, +State, -Role) is semidet.
%   The role on turn in State: the one with a choice of moves, or a single
%   move that is not a pass, or no move at all while the other can only
%   pass (a finished game).  Fails when that cannot be told.
mover(Name, Module, S, Role) :-
    has_random(Module),
    moves_of(Name, Module, S, random, MR),
    kind(Name, random, MR, KR),
    memberchk(KR, [choice, single]),       % random has a move of its own to make: chance moves
    players_of(Module, [A, B]),
    moves_of(Name, Module, S, A, MA), kind(Name, A, MA, KA),
    moves_of(Name, Module, S, B, MB), kind(Name, B, MB, KB),
    \+ memberchk(KA, [choice]), \+ memberchk(KB, [choice]),
    !,
    Role = chance.
mover(Name, Module, S, Role) :-
    players_of(Module, [A, B]),
    moves_of(Name, Module, S, A, MA),
    moves_of(Name, Module, S, B, MB),
    kind(Name, A, MA, KA),
    kind(Name, B, MB, KB),
    (   KA == choice, KB == choice -> at_once(Name, S, A, Role)
    ;   KA == choice -> Role = A, note_pass(Name, B, MB)
    ;   KB == choice -> Role = B, note_pass(Name, A, MA)
    ;   KA == single, KB == single -> at_once(Name, S, A, Role)
    ;   KA == single -> Role = A
    ;   KB == single -> Role = B
    ;   KA == none, KB == pass -> Role = A
    ;   KB == none, KA == pass -> Role = B
    ).

%   choice (several moves), single (one that is not a pass), pass or none.
kind(Name, Role, Moves, Kind) :-
    (   Moves == [] -> Kind = none
    ;   Moves = [_, _|_] -> Kind = choice
    ;   is_pass(Name, Role, Moves) -> Kind = pass
    ;   Kind = single
    ).

note_pass(Name, Role, [Move]) :- !,
    (   pass_move(Name, Role, Move) -> true ; assertz(pass_move(Name, Role, Move)) ).
note_pass(_, _, _).

is_pass(Name, Role, [Move]) :-
    (   Move == noop -> true ; pass_move(Name, Role, Move) ).

%   Both roles move in S: in a game of hidden information the first chooses
%   first (the second will not see it); elsewhere the sheet is refused.
at_once(Name, S, First, Role) :-
    (   hidden_sheet(Name)
    ->  Role = First
    ;   kif_text(S, T),
        format(atom(Msg), "GDL game ~w: both roles choose a move in ~w, which a walk from the start did not meet: a sheet whose roles choose at once plays as a game of hidden information when they do so within 60 steps of its start along the first moves, or when it has a (sees ...) rule", [Name, T]),
        game:bad_input(Msg)
    ).

%   Along the first legal moves from S, within K steps, both roles have a
%   move to make in the same step (which makes the sheet one of hidden
%   information: each chooses without seeing the other's choice).
at_once_ahead(Name, M, S, K) :-
    K > 0,
    \+ M:terminal(S, []),
    (   at_once_in(Name, M, S)
    ->  true
    ;   mover(Name, M, S, Mover),                   % who moves otherwise (learning a pass's name)
        role_of(Mover, Role),
        moves_of(Name, M, S, Role, [Move|_]),
        successor(Name, M, S, Mover, Move, S1),
        K1 is K - 1,
        at_once_ahead(Name, M, S1, K1)
    ).

% The protocol, for every loaded GDL game.

game:game(G) :- gdl_game(G, _).
game:players(G, Players) :- gdl_game(G, M), players_of(M, Players).
game:initial(G, P, Mover) :-
    gdl_game(G, M), initial_state(M, S),
    (   hidden_sheet(G)
    ->  players_of(M, Players),
        findall('$seen'(R, nil), member(R, Players), Seen),
        append(S, Seen, P0), sort(P0, P),
        position_mover(G, M, P, Mover)
    ;   P = S, mover(G, M, S, Mover)
    ).
game:legal(G, P, Mover, Move) :-
    gdl_game(G, M),
    role_of(Mover, Role),
    plain(G, P, S),
    moves_of(G, M, S, Role, Moves),
    member(Move, Moves).
game:next(G, S, Mover, Move, S1) :-
    gdl_game(G, M),
    (   hidden_sheet(G)
    ->  hidden_next(G, M, S, Mover, Move, S1), position_mover(G, M, S1, M1)
    ;   memo(G, next(S, Move), ( successor(G, M, S, Mover, Move, S0), state_mover(G, M, S0, M0) ), S0-M0, S1-M1)
    ),
    b_setval(gdl_after, S1-M1).         % next_mover/5, asked next, reads it (saves a second lookup)
game:over(G, P, _, Result) :-
    gdl_game(G, M),
    plain(G, P, S),
    memo(G, over(S), outcome(M, S, R0), R0, R),
    R \== none,
    Result = R.

%   What Player has done and seen so far, oldest first: each step its move
%   and what it saw then ('(choose 1) / noop sees (opened 3)').
game:sees(G, P, Player, View) :-
    gdl_game(G, _),
    hidden_sheet(G),
    memberchk('$seen'(Player, History), P),
    history_steps(History, [], Steps),
    (   Steps == [] -> View = '(nothing yet)' ; atomic_list_concat(Steps, ' / ', View) ).

history_steps(nil, Steps, Steps).
history_steps(s(Move, Percepts, Before), Acc, Steps) :-
    kif_text(Move, MoveText),
    (   Percepts == none
    ->  Step = MoveText
    ;   Percepts =.. [_|Ps], kif_text(Ps, Seen),
        atomic_list_concat([MoveText, ' sees ', Seen], Step)
    ),
    history_steps(Before, [Step|Acc], Steps).

%   The GDL state of a position: a game of hidden information keeps each
%   player's history and a choice waiting for the other's beside it.
plain(G, P, S) :-
    (   hidden_sheet(G) -> exclude(kept_beside, P, S) ; S = P ).

kept_beside('$seen'(_, _)).
kept_beside('$chose'(_, _)).

kept_name('$seen').             % kept_beside/1's names, which no sheet may use
kept_name('$chose').

no_kept_name(Line, atom(A)) :- !,
    (   kept_name(A) -> gdl_throw(Line, "~w is a name educable keeps for what a player has seen and chosen (games of hidden information): rename it", [A]) ; true ).
no_kept_name(_, list(L, Items)) :- maplist(no_kept_name(L), Items).

%   A GDL state that comes back along a line of play from S0 (every joint
%   move taken), among the first 5,000 states; fails when none does.
comes_back(G, M, S0, State) :-
    trie_new(Colour),
    flag(gdl_endless, _, 0),
    catch(( endless_from(G, M, S0, Colour), fail ), gdl_comes_back(State), true).

endless_from(G, M, S, Colour) :-
    (   trie_lookup(Colour, S, C)
    ->  (   C == grey -> throw(gdl_comes_back(S)) ; true )
    ;   flag(gdl_endless, N, N + 1),
        N < 5000,
        trie_insert(Colour, S, grey),
        (   M:terminal(S, [])
        ->  true
        ;   roles(M, Roles),
            findall(S1, ( joint_move(G, M, S, Roles, D), findall(F, M:next(F, S, D), Fs), sort(Fs, S1) ), Ss0),
            sort(Ss0, Ss),
            forall(member(S1, Ss), endless_from(G, M, S1, Colour))
        ),
        trie_update(Colour, S, black)
    ).

joint_move(_, _, _, [], []).
joint_move(G, M, S, [R|Rs], [does(R, Mv)|D]) :-
    moves_of(G, M, S, R, Moves),
    member(Mv, Moves),
    joint_move(G, M, S, Rs, D).

%   Who moves in a position of a game of hidden information: the second
%   role while the first's choice waits, else who moves in its state.
position_mover(G, M, P, Mover) :-
    (   memberchk('$chose'(First, _), P)
    ->  players_of(M, Players), member(Mover, Players), Mover \== First, !
    ;   plain(G, P, S), state_mover(G, M, S, Mover)
    ).

%   A step of a game of hidden information: the first of two roles moving
%   at once leaves its choice waiting; otherwise the joint move is applied
%   and each player's history gains its move and what it saw.
hidden_next(G, M, P, Mover, Move, P1) :-
    plain(G, P, S),
    (   Mover \== chance, \+ memberchk('$chose'(_, _), P), at_once_in(G, M, S)
    ->  sort(['$chose'(Mover, Move)|P], P1)
    ;   step_moves(G, M, S, P, Mover, Move, D),
        memo(G, joint(S, D), ( findall(F, M:next(F, S, D), Fs), sort(Fs, S10) ), S10, S1),
        players_of(M, Players),
        findall('$seen'(R, s(Mv, Seen, H)),
                ( member(R, Players), memberchk('$seen'(R, H), P),
                  memberchk(does(R, Mv), D), percepts(M, S, D, R, Seen) ), Histories),
        append(S1, Histories, P10),
        sort(P10, P1)
    ).

at_once_in(G, M, S) :-
    players_of(M, [A, B]),
    moves_of(G, M, S, A, MA), kind(G, A, MA, KA),
    moves_of(G, M, S, B, MB), kind(G, B, MB, KB),
    memberchk(KA-KB, [choice-choice, single-single]).

%   What R perceives after the joint move D in S: its (sees R P) facts, or
%   in a sheet without sees rules the other roles' moves; `none` if nothing.
percepts(M, S, D, R, Seen) :-
    (   defines(M, sees, 2)
    ->  findall(X, M:sees(R, X, S, D), Xs0)
    ;   findall(does(R1, Mv), ( member(does(R1, Mv), D), R1 \== R, Mv \== noop ), Xs0)
    ),
    sort(Xs0, Xs),
    (   Xs == [] -> Seen = none ; Seen =.. [p|Xs] ).

successor(G, M, S, Mover, Move, S1) :-
    step_moves(G, M, S, S, Mover, Move, D),
    findall(F, M:next(F, S, D), Fs),
    sort(Fs, S1).

%   The joint move of a step from the GDL state S of position P: Mover's
%   Move, the choice waiting in P for a role (hidden information: moves
%   made at once), the single move of every other role.
step_moves(G, M, S, P, Mover, Move, D) :-
    roles(M, Roles),
    role_of(Mover, Moving),
    findall(does(R, Mv), ( member(R, Roles),
                           (   R == Moving -> Mv = Move
                           ;   memberchk('$chose'(R, Mv0), P) -> Mv = Mv0
                           ;   moves_of(G, M, S, R, [Mv])
                           ) ), D).

%   Who moves in a state is read from the state (a GDL role may keep the
%   turn, as in dots and boxes).  A finished state where that cannot be
%   told is the first role's.
game:next_mover(G, _, _, S1, Mover) :-
    gdl_game(G, M),
    (   nb_current(gdl_after, S1x-M1), S1x == S1
    ->  Mover = M1
    ;   hidden_sheet(G)
    ->  position_mover(G, M, S1, Mover)
    ;   state_mover(G, M, S1, Mover)
    ).

state_mover(G, M, S, Mover) :- memo(G, mover(S), state_mover_(G, M, S, M0), M0, Mover).

state_mover_(G, M, S, Mover) :-
    (   memo(G, over(S), outcome(M, S, R0), R0, R), R \== none
    ->  (   catch(mover(G, M, S, Mover0), educable_error(_), fail) -> Mover = Mover0 ; players_of(M, [Mover, _]) )
    ;   mover(G, M, S, Mover0)
    ->  Mover = Mover0
    ;   players_of(M, [Mover, _])
    ).

%   The winner, draw, or none while the game goes on.
outcome(M, S, Result) :-
    (   M:terminal(S, [])
    ->  players_of(M, [A, B]),
        goal_value(M, S, A, VA), goal_value(M, S, B, VB),
        (   VA > VB -> Result = A ; VB > VA -> Result = B ; Result = draw )
    ;   Result = none
    ).

%   Answers about states are kept (GDL rules are slow to re-derive), in a
%   trie a game that is emptied when it reaches MemoLimit entries.
:- dynamic memo_trie/3.         % memo_trie(Name, Trie, _); its entries are counted by flag gdl_memo(Name)
memo_limit(200000).

memo(G, Key, Goal, Template, Value) :-
    (   memo_trie(G, T, _) -> true ; trie_new(T), assertz(memo_trie(G, T, 0)) ),
    (   trie_lookup(T, Key, V0)
    ->  Value = V0
    ;   once(Goal),
        Value = Template,
        flag(gdl_memo(G), N, N + 1),
        memo_limit(Limit),
        (   N >= Limit -> trie_delete_all(T), flag(gdl_memo(G), _, 1) ; true ),
        trie_insert(T, Key, Value)
    ).

trie_delete_all(T) :- forall(trie_gen(T, K, _), trie_delete(T, K, _)).
game:position_text(G, S, _, Text) :- gdl_game(G, _), kif_text(S, Text).
game:parse_position(G, Text, S, Mover) :-
    gdl_game(G, M),
    kif_terms(Text, Fs, Error),
    (   Error == none, Fs \== []
    ->  sort(Fs, S)
    ;   format(atom(Msg), "bad ~w position ~q: want its fluents in GDL, e.g. ~w", [G, Text, '(cell 1 1 b) (control xplayer)']),
        game:bad_input(Msg)
    ),
    (   hidden_sheet(G) -> position_mover(G, M, S, Mover) ; state_mover(G, M, S, Mover) ).
game:move_text(G, Move, Text) :- gdl_game(G, _), kif_text(Move, Text).
game:parse_move(G, Text, Move) :-
    gdl_game(G, _),
    (   kif_terms(Text, [Move], none) -> true
    ;   format(atom(Msg), "bad ~w move ~q: want a GDL term, e.g. (mark 1 1)", [G, Text]),
        game:bad_input(Msg)
    ).
game:board_lines(G, P, _, Lines) :-
    gdl_game(G, _),
    plain(G, P, S),
    (   board_grid(G, F, Xs, Ys) -> grid_lines(F, Xs, Ys, S, Lines)
    ;   maplist([Fl, L]>>kif_text(Fl, L), S, Lines)
    ).

%   Symmetries: the grid's rotations and reflections that the rules bear
%   out (rules/gdl_board.pl), the identity first.
game:symmetry(G, S, S1) :-
    gdl_game(G, _),
    \+ hidden_sheet(G),
    board_symmetries(G, Ts),
    Ts \== [],
    (   S1 = S
    ;   member(T, Ts), board_image(G, S, S1, T)
    ).

%   Where the game has a board (a fluent F(X, Y, Mark), rules/gdl_board.pl):
%   the board as the mover sees it, cells row by row, 0 blank (no fluent
%   there, or the mark every cell has at the start), 1 the mover's mark,
%   2 another.  A role's mark is the one its first move writes on a blank
%   cell.
game:cells(G, S, Mover, Cells) :-
    gdl_game(G, M),
    \+ hidden_sheet(G),
    board_grid(G, F, Xs, Ys),
    cell_marks(G, M, F, Blank, Marks),
    memberchk(Mover-Mine, Marks),
    findall(V, ( member(X, Xs), member(Y, Ys),
                 board_mark(F, X, Y, S, Blank, C),
                 ( C == Blank -> V = 0 ; C == Mine -> V = 1 ; V = 2 ) ), Cells).

board_mark(F, X, Y, S, Blank, C) :-
    Fluent =.. [F, X, Y, C0],
    ( memberchk(Fluent, S) -> C = C0 ; C = Blank ).

:- dynamic known_marks/3.       % known_marks(Name, Blank, [Role-Mark, ...])

cell_marks(G, _, _, Blank, Marks) :- known_marks(G, Blank, Marks), !.
cell_marks(G, M, F, Blank, Marks) :-
    initial_state(M, S0),
    findall(C, ( member(Fl, S0), compound(Fl), compound_name_arguments(Fl, F, [_, _, C]) ), Cs),
    (   sort(Cs, [Blank0]) -> Blank = Blank0         % one mark on every cell at the start
    ;   Cs == [] -> Blank = '$none'                  % an empty board has no fluents
    ),
    mover(G, M, S0, A),
    first_mark(G, F, S0, A, Blank, MarkA, S1),
    game:other_player(G, A, B),
    first_mark(G, F, S1, B, Blank, MarkB, _),
    MarkA \== MarkB,
    Marks = [A-MarkA, B-MarkB],
    assertz(known_marks(G, Blank, Marks)).

first_mark(G, F, S, Role, Blank, Mark, S1) :-
    game:legal(G, S, Role, Move), !,
    game:next(G, S, Role, Move, S1),
    member(Fl, S1), compound(Fl), compound_name_arguments(Fl, F, [_, _, Mark]),
    Mark \== Blank,
    \+ memberchk(Fl, S), !.

goal_value(M, S, Role, V) :-
    (   M:goal(Role, V0, S, []), atom_number(V0, V) -> true ; V = 0 ).

%   The board row by row (X), a column a cell (Y), '.' where no fluent is;
%   then the other fluents in KIF.
grid_lines(F, Xs, Ys, S, Lines) :-
    findall(Line, ( member(X, Xs),
                    findall(C, ( member(Y, Ys), board_mark(F, X, Y, S, '.', C) ), Cs),
                    atomic_list_concat(Cs, ' ', Line0), atom_string(Line0, Line) ), Grid),
    exclude([Fl]>>( compound(Fl), compound_name_arity(Fl, F, 3) ), S, Rest),
    maplist([Fl, L]>>kif_text(Fl, L), Rest, RestLines),
    append(Grid, RestLines, Lines).

%!  kif_text(+Term, -Text:atom) is det.
%   Term in KIF: a list of terms is written space-separated.
kif_text(Terms, Text) :-
    is_list(Terms), !,
    maplist(kif_text, Terms, Parts),
    atomic_list_concat(Parts, ' ', Text).
kif_text(T, Text) :-
    (   atomic(T) -> format(atom(Text), "~w", [T])
    ;   T =.. [F|Args],
        maplist(kif_text, Args, Parts),
        atomic_list_concat([F|Parts], ' ', Inner),
        format(atom(Text), "(~w)", [Inner])
    ).
