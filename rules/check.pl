/*  educable check: a game against the protocol of rules/game.pl.

    Checks what the protocol asks of a game file and what educable relies on
    without saying so at every call: the required predicates, two players
    with names that are not reserved, text forms that read back to the same
    state and name the side to move, legal/4, next/5 and over/4 that agree
    with each other, symmetries that map the rules to themselves, cells/4 of
    one length.  Every position is checked when the game has at most Limit
    of them; otherwise the first Limit in breadth-first order and then the
    positions of random games.  Each problem is reported once, with the file
    and line of the predicate at fault, the first position that shows it and
    how many more do; every protocol call is timed.

        ?- check_game(tictactoe, [], Report).
*/
:- module(check, [check_game/3, unplayable/2]).
:- use_module(game).
:- use_module(advice).
:- use_module(library(option)).

:- dynamic found/6.        % found(Kind, Severity, Pred, Position, Message, Count)
:- dynamic text_state/2.   % text_state(Text, State): the state a text was first given for

%   The protocol calls that are timed, in the order of the report.
timed_predicate('over/4').
timed_predicate('legal/4').
timed_predicate('next/5').
timed_predicate('next_mover/5').
timed_predicate('position_text/4').
timed_predicate('parse_position/4').
timed_predicate('move_text/3').
timed_predicate('parse_move/3').
timed_predicate('symmetry/3').
timed_predicate('cells/4').
timed_predicate('tuple_cells/4').
timed_predicate('tuple_code/4').
timed_predicate('setup_text/4').
timed_predicate('board_lines/4').
timed_predicate('actions/2').
timed_predicate('chance_actions/2').

%   Required parts of the protocol: a game without one cannot be played.
required(players/2).
required(initial/3).
required(legal/4).
required(next/5).
required(over/4).
required(position_text/4).
required(parse_position/4).
required(move_text/3).
required(parse_move/3).
required(board_lines/4).

%   Names a player may not have: results use `draw`, the knowledge base and
%   JSON give `null`, `true` and `false` their own meaning.
reserved_player(draw).
reserved_player(null).
reserved_player(true).
reserved_player(false).

%   Texts `educable play` reads as its own commands, never as a move.
reserved_move('').
reserved_move(q).
reserved_move(quit).
reserved_move(exit).
reserved_move(?).
reserved_move(help).


%!  check_game(+Game, +Options:list, -Report) is det.
%   Check Game; Report is a json/1 term: the game, its file, the positions
%   checked, whether they were all of them, the problems and warnings found
%   and the time spent in each protocol predicate.  Options: limit(L)
%   (check every position of games with at most L, default 10,000),
%   playouts(N) random games on larger games (default 300), seed(S)
%   (default 1), inferences(I): stop after I inferences (default 3e9, a
%   few minutes: a rule that never ends is reported, not waited for).
check_game(Game, Options, Report) :-
    option(limit(Limit), Options, 10000),
    option(playouts(Playouts), Options, 300),
    option(seed(Seed), Options, 1),
    option(inferences(Inferences), Options, 3 000 000 000),
    reset,
    set_random(seed(Seed)),
    call_with_inference_limit(run_checks(Game, Limit, Playouts), Inferences, Outcome),
    (   Outcome == inference_limit_exceeded -> stopped(Game, Inferences) ; true ),
    report(Game, Report).

%!  unplayable(+Game, -Why:string) is semidet.
%   Game cannot be played at all: its players/2 or initial/3 is missing,
%   fails or breaks the protocol (two players, names not reserved, one
%   ground start), or its file gives no clause for another predicate the
%   protocol requires (but over/4: such a game plays on, and is cut); Why
%   is the first problem, "pred: message", or the predicates missing.
unplayable(Game, Why) :-
    reset,
    (   check_players(Game), check_initial(Game, _, _) -> true ; true ),     % each call under its limit
    found(_, problem, Pred, _, Msg, _),
    !,
    format(string(Why), "~w: ~w", [Pred, Msg]).
unplayable(Game, Why) :-
    findall(Name, ( required(N/A),
                    \+ memberchk(N/A, [players/2, initial/3, over/4]),    % the first two: above
                    \+ has_clause(Game, N/A),
                    format(atom(Name), "~w/~w", [N, A]) ), Missing),
    Missing \== [],
    !,
    atomic_list_concat(Missing, ', ', Names),
    ( Missing = [_] -> Them = it ; Them = them ),
    format(string(Why), "its file gives no clause for ~w (the protocol requires ~w)", [Names, Them]).

reset :-
    retractall(found(_, _, _, _, _, _)),
    retractall(text_state(_, _)),
    forall(timed_predicate(P), nb_setval(P, 0-0.0)),
    nb_setval(check_states, 0),
    nb_setval(check_exhaustive, false),
    nb_setval(check_cells, none),
    nb_setval(check_cell_values, none),
    nb_setval(check_code, false),
    nb_setval(check_setup, false),
    nb_setval(check_next_mover, false),
    nb_setval(check_start, none),
    nb_setval(check_at, none),
    nb_setval(check_endless, []),
    nb_setval(check_actions, none),
    nb_setval(check_chance_actions, none).

stopped(Game, Inferences) :-
    nb_getval(check_at, At),
    format(string(M), "the check stopped after ~D inferences; the last position it looked at may hold a rule that does not end", [Inferences]),
    problem(Game, time_limit, game/1, At, M).

run_checks(Game, Limit, Playouts) :-
    findall(P, ( required(P), \+ has_clause(Game, P) ), Missing),
    forall(member(N/A, Missing),
           ( format(string(M), "no clause for ~w/~w of game ~q (the protocol requires it)", [N, A, Game]),
             problem(Game, missing, N/A, none, M) )),
    (   Missing == [], check_players(Game), check_initial(Game, P0, M0)
    ->  (   game:declares(Game, cells), guarded('cells/4', game:cells(Game, P0, M0, Cells0))
        ->  length(Cells0, N0), nb_setval(check_cells, N0),
            check_layout(Game, N0),
            check_cell_values(Game)
        ;   true
        ),
        (   has_clause(Game, tuple_code/4), \+ gdl:gdl_file(Game, _) -> nb_setval(check_code, true) ; true ),
        (   has_clause(Game, setup_text/4), \+ gdl:gdl_file(Game, _) -> nb_setval(check_setup, true) ; true ),
        (   has_clause(Game, next_mover/5) -> nb_setval(check_next_mover, true) ; true ),   % asked once, not at every move
        check_actions(Game),
        explore(Game, P0, M0, Limit, Playouts)
    ;   true
    ).

%   A clause for Name/Arity in the game's own file (a family's clauses take
%   any name of their form, so a clause of another file does not count); a
%   GDL game has every one (rules/gdl.pl answers for it).
has_clause(Game, _) :-
    gdl:gdl_file(Game, _), !.
has_clause(Game, Name/Arity) :-
    game_file(Game, File),
    functor(Head, Name, Arity),
    arg(1, Head, Game),
    catch(game:protocol_clause(Head, _, Ref), _, fail),
    clause_property(Ref, file(File)),
    !.

check_players(Game) :-
    limited(findall(Ps, game:players(Game, Ps), All), E),
    (   var(E)
    ->  true
    ;   message(E, Msg), problem(Game, players, players/2, none, Msg), fail
    ),
    (   ( All = [[A, B]], atom(A), atom(B), A \== B ; All = [[A]], atom(A), B = A )
    ->  forall(( member(X, [A, B]), reserved_player(X) ),
               ( format(string(M), "player name ~q is reserved (results and stored values use it)", [X]),
                 problem(Game, reserved_name, players/2, none, M) ))
    ;   format(string(M), "players/2 must give one list of two different player names, e.g. [x, o] (or of one, a game of score); it gives ~q", [All]),
        problem(Game, players, players/2, none, M),
        fail
    ).

check_initial(Game, P0, M0) :-
    limited(findall(P-M, game:initial(Game, P, M), Starts), E),
    (   nonvar(E)
    ->  message(E, Msg), problem(Game, initial, initial/3, none, Msg), fail
    ;   Starts = [P0-M0], deeper_than(P0, Depth)
    ->  too_deep(Game, initial/3, none, "initial/3 gives a start position", Depth), fail
    ;   Starts = [P0-M0], ground(P0), game:players(Game, Ps), ( memberchk(M0, Ps) ; game:chance_mover(M0) )
    ->  true
    ;   format(string(M), "initial/3 must give one ground start position and a player to move; it gives ~q", [Starts]),
        problem(Game, initial, initial/3, none, M),
        fail
    ).

%   layout/3, where the game gives it: rows that divide the cells, and
%   `top` or `bottom` for where cell 1's row is drawn.
check_layout(Game, Cells) :-
    check_drawing(Game, Cells),
    (   catch(game:layout(Game, Cols, Order), E, ( message(E, Msg), problem(Game, layout, layout/3, none, Msg), fail ))
    ->  (   integer(Cols), Cols > 0, Cells mod Cols =:= 0, memberchk(Order, [top, bottom])
        ->  true
        ;   format(string(Msg), "layout/3 gives ~q cells a row and ~q; cells/4 gives ~d cells: want a number of cells a row that divides them, and top or bottom", [Cols, Order, Cells]),
            problem(Game, layout, layout/3, none, Msg)
        )
    ;   true
    ).

%   drawn_as/2, where the game gives it: a drawing the page knows, whose
%   cells are as many as cells/4 gives.
check_drawing(Game, Cells) :-
    (   catch(game:drawn_as(Game, How), E, ( message(E, Msg), problem(Game, drawn_as, drawn_as/2, none, Msg), fail ))
    ->  (   How = dots_and_boxes(R, C), integer(R), integer(C), R > 0, C > 0
        ->  Lines is (R + 1) * C + R * (C + 1), Boxes is R * C, Want is Lines + Boxes,
            (   Cells =:= Want
            ->  true
            ;   format(string(Msg), "drawn_as/2 gives ~q, which draws ~d lines and ~d box(es) from ~d cells; cells/4 gives ~d",
                       [How, Lines, Boxes, Want, Cells]),
                problem(Game, drawn_as, drawn_as/2, none, Msg)
            )
        ;   How = tiles(R, C), integer(R), integer(C), R > 0, C > 0
        ->  (   Cells =:= R * C
            ->  true
            ;   format(string(Msg), "drawn_as/2 gives ~q, which draws ~d tiles; cells/4 gives ~d cells", [How, R * C, Cells]),
                problem(Game, drawn_as, drawn_as/2, none, Msg)
            )
        ;   How = dice(F), integer(F), F >= 2
        ->  true
        ;   format(string(Msg), "drawn_as/2 gives ~q: the page draws dots_and_boxes(Rows, Columns), tiles(Rows, Columns) and dice(Faces) only", [How]),
            problem(Game, drawn_as, drawn_as/2, none, Msg)
        )
    ;   true
    ).

%   Every position (breadth first) while there are at most Limit; past
%   that, the positions of up to Playouts random games, until 30% more
%   positions have been checked.
explore(Game, P0, M0, Limit, Playouts) :-
    nb_setval(check_start, P0),
    trie_new(Queued),                   % states put in a breadth-first level
    trie_new(Checked),                  % checked states -> their successor states
    trie_insert(Queued, P0-M0),
    breadth_first([P0-M0], Game, Queued, Checked, Limit, Exhaustive),
    nb_setval(check_exhaustive, Exhaustive),
    (   Exhaustive == true
    ->  true
    ;   nb_getval(check_states, N),
        Cap is N + Limit * 3 // 10,
        forall(( between(1, Playouts, _), nb_getval(check_states, K), K < Cap ),
               playout(Game, P0, M0, Checked))
    ).

breadth_first([], _, _, _, _, true) :- !.
breadth_first(Level, Game, Queued, Checked, Limit, Exhaustive) :-
    foldl(visit(Game, Queued, Checked), Level, [], Next0),
    reverse(Next0, Next),
    nb_getval(check_states, N),
    (   N >= Limit, Next \== []
    ->  Exhaustive = false
    ;   breadth_first(Next, Game, Queued, Checked, Limit, Exhaustive)
    ).

visit(Game, Queued, Checked, S, Next0, Next) :-
    successors_checked(Game, Checked, S, Succs),
    foldl(unseen(Queued), Succs, Next0, Next).

unseen(Queued, S, Next0, Next) :-
    (   trie_insert(Queued, S) -> Next = [S|Next0] ; Next = Next0 ).

%   The successor states of a state, checking it the first time it is met.
successors_checked(Game, Checked, P-M, Succs) :-
    (   trie_lookup(Checked, P-M, Succs0)
    ->  Succs = Succs0
    ;   checked_state(Game, P, M, Succs),
        trie_insert(Checked, P-M, Succs)
    ).

playout(Game, P0, M0, Checked) :-
    endless_plies(Max),
    playout(Game, P0, M0, Checked, 0, Max).

playout(Game, P, M, Checked, Ply, Max) :-
    successors_checked(Game, Checked, P-M, Succs),
    (   Succs == []
    ->  true
    ;   Ply >= Max
    ->  state_text(Game, P, M, T),
        format(string(Msg), "a random game did not end after ~D moves (fine if the game can go on for ever: solve scores such lines as draws)", [Max]),
        warning(Game, endless, over/4, T, Msg)
    ;   random_member(P1-M1, Succs),
        Ply1 is Ply + 1,
        playout(Game, P1, M1, Checked, Ply1, Max)
    ).

%   check_state/4, and a note instead of a failure should a check fail.
checked_state(Game, P, M, Succs) :-
    (   check_state(Game, P, M, Succs0)
    ->  Succs = Succs0
    ;   format(atom(T), "~q with ~q to move", [P, M]),
        problem(Game, unchecked, game/1, T, "the checks of this position failed (please report it)"),
        Succs = []
    ).

%!  check_state(+Game, +Pos, +Mover, -Succs:list) is det.
%   Check one state; Succs are the states its legal moves lead to.
check_state(Game, P, M, Succs) :-
    nb_getval(check_states, N0), N is N0 + 1, nb_setval(check_states, N),
    state_text(Game, P, M, T),
    nb_setval(check_at, T),
    check_text(Game, P, M, T),
    check_over(Game, P, M, T, Result),
    check_legal(Game, P, M, T, Moves),
    (   Moves == failed                  % legal/4 raised or did not end: reported, nothing to follow
    ->  Pairs = []
    ;   Result == none
    ->  (   Moves == []
        ->  problem(Game, dead_end, legal/4, T,
                    "no legal moves, yet over/4 says the game goes on (over/4 must end every position without moves)")
        ;   true
        ),
        check_moves(Game, P, M, T, Moves, Pairs)
    ;   (   Moves \== []
        ->  length(Moves, K),
            format(string(Msg), "legal/4 gives ~D moves at a finished position (educable never asks there; harmless unless you call legal/4 yourself)", [K]),
            warning(Game, moves_after_end, legal/4, T, Msg)
        ;   true
        ),
        Pairs = []
    ),
    findall(P1-M1, member(_-(P1/M1), Pairs), Succs),
    (   game:chance_mover(M), Moves \== failed -> check_weights(Game, P, T, Moves) ; true ),
    check_cells(Game, P, M, T),
    check_code(Game, P, M, T),
    check_setup(Game, P, M, T),
    check_board(Game, P, M, T),
    check_symmetry(Game, P, M, T, Result, Pairs).

%   A chance node's outcomes: each weight (chance_weight/4, else 1) a
%   positive integer or rational; rationals, where given, add up to exactly 1.
check_weights(Game, P, T, Moves) :-
    findall(Mv-W, ( member(Mv, Moves), game:outcome_weight(Game, P, Mv, W) ), Weighed),
    (   member(Mv-W, Weighed), \+ ( ( integer(W) ; rational(W) ), W > 0 )
    ->  safely('move_text/3', game:move_text(Game, Mv, MT), _),
        format(string(Msg), "chance_weight/4 gives ~q for the outcome ~w: a weight is a positive integer or rational (1r10), never a float", [W, MT]),
        problem(Game, chance_weight, chance_weight/4, T, Msg)
    ;   member(_-W, Weighed), \+ integer(W),
        findall(W1, member(_-W1, Weighed), Ws), sum_list(Ws, Sum), Sum =\= 1
    ->  format(string(Msg), "the chance weights here add up to ~w: written as fractions (rationals) they must add up to exactly 1", [Sum]),
        problem(Game, chance_weight, chance_weight/4, T, Msg)
    ;   true
    ).

%   board_lines/4 gives a list of texts, one a line (show, play and the page
%   print each element as a line: a string given alone printed a character a line).
check_board(Game, P, M, T) :-
    safely('board_lines/4', game:board_lines(Game, P, M, Lines), Outcome),
    (   Outcome = error(Msg)
    ->  problem(Game, board_lines, board_lines/4, T, Msg)
    ;   Outcome == false
    ->  problem(Game, board_lines, board_lines/4, T, "board_lines/4 fails (it must draw every position)")
    ;   is_list(Lines), Lines \== [], forall(member(L, Lines), line_text(L))
    ->  true
    ;   format(string(Msg), "board_lines/4 gives ~q, not a list of texts (one a line, e.g. [\"x.o\", \".x.\"])", [Lines]),
        problem(Game, board_lines, board_lines/4, T, Msg)
    ).

line_text(L) :- atom(L), !.
line_text(L) :- string(L).

%   The state's text; a description of the term when position_text/4 fails.
state_text(Game, P, M, T) :-
    safely('position_text/4', game:position_text(Game, P, M, T0), Outcome),
    (   Outcome == true, ( atom(T0) ; string(T0) )
    ->  atom_string(T, T0)
    ;   format(atom(T), "~q with ~q to move", [P, M]),
        (   Outcome = error(Msg)
        ->  problem(Game, position_text, position_text/4, T, Msg)
        ;   problem(Game, position_text, position_text/4, T, "position_text/4 fails or gives something that is not text")
        )
    ).

check_text(Game, P, M, T) :-
    check_unique_text(Game, P, M, T),
    check_read_back(Game, P, M, T).

%   No other state checked so far has the text T.
check_unique_text(Game, P, M, T) :-
    (   text_state(T, Other)
    ->  (   Other =@= P-M
        ->  true
        ;   Other = OP-OM,
            format(string(Msg), "two states share this text (~q with ~q to move, and ~q with ~q to move): a text must name one state", [OP, OM, P, M]),
            problem(Game, shared_text, position_text/4, T, Msg)
        )
    ;   assertz(text_state(T, P-M))
    ).

%   parse_position/4 reads T back as the state it was written for.
check_read_back(Game, P, M, T) :-
    safely('parse_position/4', game:parse_position(Game, T, P2, M2), Outcome),
    (   Outcome = error(Msg)
    ->  format(string(Msg1), "the text does not read back: ~w", [Msg]),
        problem(Game, round_trip, parse_position/4, T, Msg1)
    ;   Outcome == false
    ->  problem(Game, round_trip, parse_position/4, T, "the text does not read back: parse_position/4 fails")
    ;   M2 \== M
    ->  format(string(Msg), "the text reads back with ~q to move, not ~q: a position's text must name the side to move (or let it follow from the position)", [M2, M]),
        problem(Game, side_to_move, parse_position/4, T, Msg)
    ;   P2 =@= P
    ->  true
    ;   format(string(Msg), "the text reads back as ~q, not ~q", [P2, P]),
        problem(Game, round_trip, parse_position/4, T, Msg)
    ).

%   Result is the game's result, or `none` while it goes on.
check_over(Game, P, M, T, Result) :-
    safely('over/4', findall(R, game:over(Game, P, M, R), Rs0), Outcome),
    (   Outcome = error(Msg)
    ->  problem(Game, over_error, over/4, T, Msg), Result = none
    ;   sort(Rs0, Rs),
        game:players(Game, Ps),
        (   Rs == []
        ->  Result = none
        ;   Rs = [R], Ps = [_, _], ( R == draw ; memberchk(R, Ps) )
        ->  Result = R
        ;   Rs = [R], Ps = [_], R = score(N), ( integer(N) ; rational(N) )
        ->  Result = R,
            check_points_range(Game, T, over/4, N)
        ;   Rs = [R], Ps = [_, _], R = payoff(N), ( integer(N) ; rational(N) )     % zero-sum: N to the first
        ->  Result = R,
            check_points_range(Game, T, over/4, N)
        ;   Ps = [_]
        ->  format(string(Msg), "over/4 must give one result in a game of score, score(N) with N an integer or rational; it gives ~q", [Rs0]),
            problem(Game, over_result, over/4, T, Msg),
            Rs = [Result|_]
        ;   format(string(Msg), "over/4 must give one result, a player, draw or payoff(N) (N, an integer or rational, to the first player from the second); it gives ~q", [Rs0]),
            problem(Game, over_result, over/4, T, Msg),
            Rs = [Result|_]
        )
    ).

%   Moves a position may have: past it legal/4 is reported as explosive and
%   the position's moves are not followed.
most_moves(10 000).

check_legal(Game, P, M, T, Moves) :-
    most_moves(Most), Bound is Most + 1,
    safely('legal/4', findall(Mv, limit(Bound, game:legal(Game, P, M, Mv)), Moves0), Outcome),
    (   Outcome = error(Msg)
    ->  problem(Game, legal_error, legal/4, T, Msg), Moves = failed
    ;   length(Moves0, Bound)
    ->  format(string(Msg), "legal/4 gives more than ~D moves at one position: an endless or explosive rule? (check does not follow them)", [Most]),
        problem(Game, too_many_moves, legal/4, T, Msg), Moves = failed
    ;   msort(Moves0, Sorted),
        (   append(_, [D, D2|_], Sorted), D =@= D2
        ->  move_label(Game, D, DT),
            format(string(Msg), "legal/4 gives the move ~w more than once", [DT]),
            problem(Game, duplicate_move, legal/4, T, Msg)
        ;   true
        ),
        Moves = Moves0
    ).

move_label(Game, Move, Label) :-
    (   guarded('move_text/3', game:move_text(Game, Move, L)) -> Label = L ; format(atom(Label), "~q", [Move]) ).

%   actions/2 and chance_actions/2, where the game gives them: a list of
%   moves with texts, none twice; each legal move (each outcome of chance)
%   is then looked for in it (check_moves).
check_actions(Game) :-
    check_action_list(Game, actions, check_actions),
    check_action_list(Game, chance_actions, check_chance_actions).

check_action_list(Game, Name, Key) :-
    Goal =.. [Name, Game, Ms],
    format(atom(PI), "~w/2", [Name]),
    (   has_clause(Game, Name/2), \+ gdl:gdl_file(Game, _)
    ->  (   safely(PI, game:Goal, Outcome), Outcome \= error(_), is_list(Ms),
            findall(T, ( member(Mv, Ms), guarded('move_text/3', game:move_text(Game, Mv, T0)), atom_string(T, T0) ), Ts),
            length(Ms, N), length(Ts, N)
        ->  msort(Ts, Sorted),
            (   append(_, [X, X|_], Sorted)
            ->  format(string(Msg), "~w names the move ~q twice: each action must be one move", [PI, X]),
                problem(Game, actions, Name/2, none, Msg)
            ;   nb_setval(Key, Ts)
            )
        ;   format(string(Msg), "~w must give a list of moves that move_text/3 writes", [PI]),
            problem(Game, actions, Name/2, none, Msg)
        )
    ;   true
    ).

%   Points a game of score gives must fit a float, as educable counts them
%   (bridge/compile.py's SCORE_RANGE says the same).
check_points_range(Game, T, PI, N) :-
    (   abs(N) > 1.0e308
    ->  problem(Game, points_range, PI, T,
                "points past the float range: educable counts a game's points as floats, at most about 1.8e308")
    ;   true
    ).

%   Pairs are Move-(Pos1/Mover1) for each legal move that next/5 plays.
check_moves(Game, P, M, T, Moves, Pairs) :-
    foldl(check_move(Game, P, M, T), Moves, Pairs, []),
    (   game:players(Game, [_]), \+ game:chance_mover(M)
    ->  forall(( member(Mv, Moves), catch(game:move_points(Game, P, M, Mv, N), _, fail), number(N) ),
               check_points_range(Game, T, points/5, N))
    ;   true
    ),
    findall(Text, ( member(Mv, Moves), guarded('move_text/3', game:move_text(Game, Mv, Text0)), atom_string(Text, Text0) ), Texts),
    msort(Texts, Sorted),
    (   append(_, [X, X|_], Sorted)
    ->  format(string(Msg), "two legal moves share the text ~q: a player could not choose between them", [X]),
        problem(Game, shared_move_text, move_text/3, T, Msg)
    ;   true
    ),
    (   game:chance_mover(M) -> Key = check_chance_actions, Name = chance_actions ; Key = check_actions, Name = actions ),
    nb_getval(Key, Actions),
    (   Actions \== none, member(Y, Texts), \+ memberchk(Y, Actions)
    ->  format(string(Msg2), "the legal move ~q is not among ~w/2's moves", [Y, Name]),
        problem(Game, actions, Name/2, T, Msg2)
    ;   true
    ).

check_move(Game, P, M, T, Move, Pairs0, Pairs) :-
    check_move_text(Game, Move, T),
    move_label(Game, Move, MT),
    safely('next/5', findall(P1, game:next(Game, P, M, Move, P1), P1s), Outcome),
    (   Outcome = error(Msg)
    ->  format(string(Msg1), "next/5 throws for the legal move ~w: ~w", [MT, Msg]),
        problem(Game, next_error, next/5, T, Msg1), Pairs0 = Pairs
    ;   P1s == []
    ->  format(string(Msg), "next/5 fails for the legal move ~w", [MT]),
        problem(Game, next_fails, next/5, T, Msg), Pairs0 = Pairs
    ;   P1s = [P1|More],
        (   More \== [], \+ maplist(=@=(P1), More)
        ->  length(P1s, K),
            format(string(Msg), "next/5 gives ~D answers for the move ~w, not all the same position (it must give one)", [K, MT]),
            problem(Game, next_many, next/5, T, Msg)
        ;   true
        ),
        (   deeper_than(P1, Depth)
        ->  format(string(What), "next/5 gives, for the move ~w, a position", [MT]),
            too_deep(Game, next/5, T, What, Depth),
            Pairs0 = Pairs
        ;   ground(P1)
        ->  check_next_mover(Game, P, M, P1, MT, T, M1),
            Pairs0 = [Move-(P1/M1)|Pairs]
        ;   format(string(Unbound), "next/5 leaves unbound variables in the position after ~w: ~q", [MT, P1]),
            problem(Game, next_unbound, next/5, T, Unbound),
            Pairs0 = Pairs
        )
    ).

%   Who moves after the move: the game's next_mover/5, checked, where it
%   has one; else the other player.
check_next_mover(Game, P, M, P1, MT, T, M1) :-
    game:other_player(Game, M, Other),
    (   nb_getval(check_next_mover, true)
    ->  safely('next_mover/5', findall(X, game:next_mover(Game, P, M, P1, X), Xs0), Outcome),
        sort(Xs0, Xs),
        game:players(Game, Players),
        (   Outcome = error(Msg)
        ->  format(string(Msg1), "next_mover/5 throws after the move ~w: ~w", [MT, Msg]),
            problem(Game, next_mover, next_mover/5, T, Msg1), M1 = Other
        ;   Xs == []
        ->  M1 = Other
        ;   Xs = [X], ( memberchk(X, Players) ; game:chance_mover(X) )
        ->  M1 = X                          % a player, or chance: a chance node's outcomes come next
        ;   Xs = [X]
        ->  format(string(Msg), "next_mover/5 gives ~q after the move ~w, which is not one of the players ~w", [X, MT, Players]),
            problem(Game, next_mover, next_mover/5, T, Msg), M1 = Other
        ;   format(string(Msg), "next_mover/5 gives ~w after the move ~w (it must give one player)", [Xs, MT]),
            problem(Game, next_mover, next_mover/5, T, Msg), Xs0 = [M1|_]
        )
    ;   M1 = Other
    ).

check_move_text(Game, Move, T) :-
    safely('move_text/3', game:move_text(Game, Move, Text0), Outcome),
    (   Outcome = error(Msg)
    ->  problem(Game, move_text, move_text/3, T, Msg)
    ;   Outcome == false
    ->  format(string(Msg), "move_text/3 fails for the legal move ~q", [Move]),
        problem(Game, move_text, move_text/3, T, Msg)
    ;   atom_string(Text, Text0),
        (   normalize_space(atom(Bare), Text), downcase_atom(Bare, Word), reserved_move(Word)
        ->  format(string(Reserved), "the move text ~q is one of play's commands (q, quit, exit, ?, help, empty): it could never be typed", [Text]),
            problem(Game, reserved_name, move_text/3, T, Reserved)
        ;   true
        ),
        safely('parse_move/3', game:parse_move(Game, Text, Move2), Back),
        (   Back = error(Msg)
        ->  format(string(Msg1), "the move text ~q does not read back: ~w", [Text, Msg]),
            problem(Game, move_round_trip, parse_move/3, T, Msg1)
        ;   Back == false
        ->  format(string(Msg), "the move text ~q does not read back: parse_move/3 fails", [Text]),
            problem(Game, move_round_trip, parse_move/3, T, Msg)
        ;   Move2 =@= Move
        ->  true
        ;   format(string(Msg), "the move text ~q reads back as ~q, not ~q", [Text, Move2, Move]),
            problem(Game, move_round_trip, parse_move/3, T, Msg)
        )
    ).

%   cell_values/2, where the game gives it: one whole number from 1 to
%   10,000 (an observation holds a plane a value); each position's cells
%   are then held below it (check_cells/4).
check_cell_values(Game) :-
    (   catch(game:cell_values(Game, Values), _, fail)
    ->  (   integer(Values), between(1, 10000, Values)
        ->  nb_setval(check_cell_values, Values)
        ;   format(string(Msg), "cell_values/2 gives ~q: want a whole number of values from 1 to 10,000", [Values]),
            problem(Game, cells, cell_values/2, none, Msg)
        )
    ;   true
    ).

%   cells/4, where the game defines it: one length everywhere, values 0-2.
check_cells(Game, P, M, T) :-
    (   nb_getval(check_cells, N0), N0 \== none
    ->  safely('cells/4', game:cells(Game, P, M, Cells), Outcome),
        (   Outcome = error(Msg)
        ->  problem(Game, cells, cells/4, T, Msg)
        ;   Outcome == false
        ->  problem(Game, cells, cells/4, T, "cells/4 fails here (it must give the board wherever the game defines it)")
        ;   \+ length(Cells, N0)
        ->  length(Cells, N),
            format(string(Msg), "cells/4 gives ~w cells here and ~w at the start (one length for every position)", [N, N0]),
            problem(Game, cells, cells/4, T, Msg)
        ;   member(C, Cells), \+ ( integer(C), C >= 0 )
        ->  format(string(Msg), "cells/4 gives the value ~q: a cell is a whole number, 0 for empty", [C]),
            problem(Game, cells, cells/4, T, Msg)
        ;   nb_getval(check_cell_values, Values), integer(Values), member(C, Cells), C >= Values
        ->  format(string(Msg), "cells/4 gives the value ~q, past cell_values/2's ~q (values 0 to ~d)", [C, Values, Values - 1]),
            problem(Game, cells, cell_values/2, T, Msg)
        ;   nb_getval(check_cell_values, none), member(C, Cells), C > 2    % (cell_values/2 says they go higher)
        ->  format(string(Msg), "cells/4 gives the value ~q: fine for rule sets, but Q-learning's --table full needs cells of 0 (empty), 1 (the mover's) or 2 (the opponent's)", [C]),
            warning(Game, cell_values, cells/4, T, Msg)
        ;   true
        )
    ;   true
    ).

%   tuple_code/4, where the game defines it: the learner's cells as one
%   number, 2 bits a cell, the first most significant, for either viewer.
check_code(Game, P, M, T) :-
    (   nb_getval(check_code, true)
    ->  game:other_player(Game, M, Other),
        forall(member(V, [M, Other]), check_view_code(Game, P, V, T))
    ;   true
    ).

check_view_code(Game, P, V, T) :-
    safely('tuple_code/4', game:tuple_code(Game, P, V, Code), Outcome),
    safely('tuple_cells/4', game:learner_cells(Game, P, V, Cells), Read),
    (   Outcome = error(Msg)
    ->  problem(Game, tuple_code, tuple_code/4, T, Msg)
    ;   Outcome == false
    ->  problem(Game, tuple_code, tuple_code/4, T, "tuple_code/4 fails here (it must give a number wherever the game defines it)")
    ;   Read \== true
    ->  true                                % check_cells says what is wrong with the cells
    ;   member(C, Cells), \+ ( integer(C), between(0, 3, C) )
    ->  format(string(Msg), "tuple_code/4 is defined, but the cells hold ~q: it packs 2 bits a cell, for cells 0-3", [C]),
        problem(Game, tuple_code, tuple_code/4, T, Msg)
    ;   foldl(base4, Cells, 0, Want),
        Code \== Want
    ->  format(string(Msg), "tuple_code/4 gives ~q for ~w's view, but its cells read 2 bits a cell give ~d", [Code, V, Want]),
        problem(Game, tuple_code, tuple_code/4, T, Msg)
    ;   true
    ).

%   setup_text/4, where the game defines it: the cells of a position as the
%   first player sees them, with its mover, give a text that parse_position/4
%   reads back to that position (what the page sets up by clicks is what
%   was clicked).
check_setup(Game, P, M, T) :-
    (   nb_getval(check_setup, true),
        game:players(Game, [First|_]),
        guarded('cells/4', game:cells(Game, P, First, Cells))
    ->  safely('setup_text/4', game:setup_text(Game, Cells, M, Text), Outcome),
        game:position_text(Game, P, M, Want),
        (   Outcome = error(Msg)
        ->  problem(Game, setup_text, setup_text/4, T, Msg)
        ;   Outcome == false
        ->  problem(Game, setup_text, setup_text/4, T, "setup_text/4 fails here (it must give a text for every position's cells)")
        ;   catch(( game:parse_position(Game, Text, Q, QM), game:position_text(Game, Q, QM, Got) ), E,
                  ( message(E, Why), format(string(Got), "an error: ~w", [Why]) )),
            ( Got \== Want ; QM \== M )
        ->  format(string(Msg), "setup_text/4 gives ~q for this position's cells, which parse_position/4 reads as ~q, not ~q",
                   [Text, Got, Want]),
            problem(Game, setup_text, setup_text/4, T, Msg)
        ;   true
        )
    ;   true
    ).

%   Symmetries: the identity among them, the start mapped to itself, and
%   each image of a state with the same result and, move for move, the
%   images of its successors as successors.
check_symmetry(Game, P, M, T, Result, Pairs) :-
    safely('symmetry/3', findall(Q, game:symmetry(Game, P, Q), Images), Outcome),
    (   Outcome = error(Msg)
    ->  problem(Game, symmetry, symmetry/3, T, Msg)
    ;   Images == []
    ->  true
    ;   \+ ( member(Q, Images), Q =@= P )
    ->  problem(Game, symmetry, symmetry/3, T, "the images of this position do not include itself: list the identity among the symmetries")
    ;   nb_getval(check_start, P0), P =@= P0, member(Q, Images), Q \=@= P
    ->  format(string(Msg), "a symmetry maps the start to ~q: symmetries must map the start to itself", [Q]),
        problem(Game, symmetry, symmetry/3, T, Msg)
    ;   findall(Ss, ( member(_-(P1/_), Pairs), findall(S, guarded('symmetry/3', game:symmetry(Game, P1, S)), Ss) ), SuccImages),
        forall(nth1(I, Images, Q),
               (   Q =@= P -> true ; check_image(Game, Q, I, M, T, Result, SuccImages) ))
    ).

check_image(Game, Q, I, M, T, Result, SuccImages) :-
    findall(R, guarded('over/4', game:over(Game, Q, M, R)), Rs0), sort(Rs0, Rs),
    ( Rs = [QR] -> true ; QR = none ),
    (   QR \== Result
    ->  state_text(Game, Q, M, QT),
        format(string(Msg), "its symmetric image ~w has the result ~w, not ~w: a symmetry must keep results", [QT, QR, Result]),
        problem(Game, symmetry, symmetry/3, T, Msg)
    ;   Result \== none
    ->  true
    ;   most_moves(Most),
        findall(Q1, ( limit(Most, guarded('legal/4', game:legal(Game, Q, M, Mv))),
                      guarded('next/5', game:next(Game, Q, M, Mv, Q1)) ), Q1s0),
        msort(Q1s0, Q1s),
        findall(S, ( member(Ss, SuccImages), nth1(I, Ss, S) ), Expected0),
        msort(Expected0, Expected),
        (   Q1s =@= Expected
        ->  true
        ;   least_images(Game, Q1s, L1), maplist(least(Game), Expected, L2), msort(L2, L2s),
            L1 =@= L2s
        ->  true
        ;   state_text(Game, Q, M, QT),
            length(Q1s, K1), length(Expected, K2),
            format(string(Msg), "its symmetric image ~w does not have the images of its moves as moves (~D moves there, ~D here): a symmetry must map legal moves to legal moves", [QT, K1, K2]),
            problem(Game, symmetry, symmetry/3, T, Msg)
        )
    ).

least_images(Game, Ps, Sorted) :- maplist(least(Game), Ps, Ls), msort(Ls, Sorted).
least(Game, P, L) :- ( guarded('symmetry/3', game:least_image(Game, P, L0)) -> L = L0 ; L = P ).

%   Inferences one protocol call may take (a fraction of a second): a rule
%   past it is reported as one that does not end, and the check goes on.
call_inferences(20 000 000).

%   How deep a position may be nested: deeper terms are refused before
%   anything recursive in C (printing, comparing) touches them, which under
%   an embedded Prolog could overflow the C stack and end the process.  A
%   list's tail does not count: lists are walked, not recursed into.
most_depth(10 000).

%!  deeper_than(+Term, -Depth) is semidet.
%   Term is nested more than most_depth/1 deep (Depth is that bound); a loop
%   over an explicit stack on Prolog's own stacks, never C recursion.
deeper_than(Term, Most) :-
    most_depth(Most),
    deeper([Term-0], Most).

deeper([T-D|Rest], Most) :-
    (   D > Most
    ->  true
    ;   compound(T)
    ->  (   T = [H|Tail]
        ->  D1 is D + 1, deeper([H-D1, Tail-D|Rest], Most)
        ;   D1 is D + 1, T =.. [_|Args], depth_pairs(Args, D1, Rest, Rest1), deeper(Rest1, Most)
        )
    ;   deeper(Rest, Most)
    ).

depth_pairs([], _, Rest, Rest).
depth_pairs([A|As], D, Rest, [A-D|Out]) :- depth_pairs(As, D, Rest, Out).

too_deep(Game, Pred, Position, What, Depth) :-
    format(string(Msg), "~w nested more than ~D deep: educable prints and compares positions with recursion, so a position must be a shallow term (a list or a flat term of cells)", [What, Depth]),
    problem(Game, too_deep, Pred, Position, Msg).

%   Run Goal once, timed under Key; Outcome is true, false or error(Message).
%   A call past call_inferences/1 is an error, and so is every later call
%   of the same predicate, which is not run again (once is enough to know).
safely(Key, _, error(Msg)) :-
    nb_current(check_endless, Endless), memberchk(Key-Msg, Endless), !.
safely(Key, Goal, Outcome) :-
    call_inferences(Limit),
    get_time(T0),                       % the wall clock: read without a system call, where
    catch(call_with_inference_limit(( call(Goal) -> Outcome0 = true ; Outcome0 = false ), Limit, Left),
          E, error_outcome(E, Outcome0)),
    get_time(T1),                       % statistics(cputime) cost 8% of a whole check
    (   Left == inference_limit_exceeded
    ->  format(string(Msg), "~w did not finish within ~D inferences (~3f s): a rule that never ends, or one far too slow to play; later calls are not checked", [Key, Limit, T1 - T0]),
        Outcome = error(Msg),
        nb_getval(check_endless, E0), nb_setval(check_endless, [Key-Msg|E0])
    ;   Outcome = Outcome0
    ),
    nb_getval(Key, C0-S0),
    C is C0 + 1, S is S0 + T1 - T0,
    nb_setval(Key, C-S).

error_outcome(inference_limit_exceeded, _) :- !, throw(inference_limit_exceeded).
error_outcome(educable_interrupted, _) :- !, throw(educable_interrupted).   % Ctrl-C: the user's, not the game's
error_outcome(E, error(Msg)) :- message(E, Msg).

%   Run the deterministic Goal under the per-call limit: Error stays unbound
%   when it ran, else it is what it threw, or inference_limit_exceeded.
limited(Goal, Error) :-
    call_inferences(Limit),
    catch(call_with_inference_limit(Goal, Limit, Left), Error, true),
    (   Error == educable_interrupted -> throw(Error) ; true ),
    (   Left == inference_limit_exceeded -> Error = inference_limit_exceeded ; true ).

%   Goal for a check that needs its answers, not its faults (safely/3
%   reports those where it runs the same predicate): an error, a call past
%   call_inferences/1, or a predicate already known not to end is failure.
%   The whole check's own limit still stops it.
guarded(Key, _) :-
    nb_current(check_endless, Endless), memberchk(Key-_, Endless), !,
    fail.
guarded(_, Goal) :-
    call_inferences(Limit),
    catch(call_with_inference_limit(Goal, Limit, Left), E,
          ( memberchk(E, [inference_limit_exceeded, educable_interrupted]) -> throw(E) ; fail )),
    Left \== inference_limit_exceeded.

message(inference_limit_exceeded, Msg) :- !,
    call_inferences(Limit),
    format(string(Msg), "it did not finish within ~D inferences: a rule that never ends, or one far too slow", [Limit]).
message(E, Msg) :-
    (   catch(bridge:message_text(E, Msg0), _, fail) -> true ; format(string(Msg0), "~q", [E]) ),
    format(string(Msg), "~w", [Msg0]).

problem(Game, Kind, Pred, Position, Message) :- note(Game, problem, Kind, Pred, Position, Message).
warning(Game, Kind, Pred, Position, Message) :- note(Game, warning, Kind, Pred, Position, Message).

%   The first note of a kind about a predicate is kept with its position;
%   later ones count.
note(_, Severity, Kind, Pred, Position, Message) :-
    (   retract(found(Kind, Severity, Pred, Pos0, Msg0, N0))
    ->  N is N0 + 1, assertz(found(Kind, Severity, Pred, Pos0, Msg0, N))
    ;   assertz(found(Kind, Severity, Pred, Position, Message, 1))
    ).

report(Game, json([ game-Game, file-File, positions-N, exhaustive-Exhaustive,
                    problems-Problems, warnings-Warnings, timings-Timings, advice-Advice ])) :-
    game_file(Game, File),
    (   gdl:gdl_file(Game, _) -> Advice = [] ; speed_advice(Game, File, Advice) ),
    nb_getval(check_states, N),
    nb_getval(check_exhaustive, Exhaustive),
    findall(J, ( found(K, problem, Pr, Pos, Msg, C), note_json(Game, K, Pr, Pos, Msg, C, J) ), Problems),
    findall(J, ( found(K, warning, Pr, Pos, Msg, C), note_json(Game, K, Pr, Pos, Msg, C, J) ), Warnings),
    findall(json([predicate-P, calls-Calls, seconds-S]),
            ( timed_predicate(P), nb_getval(P, Calls-S), Calls > 0 ), Timings).

note_json(Game, Kind, Pred, Pos, Msg, Count,
          json([kind-Kind, predicate-PredText, where-Where, position-Pos, message-Msg, count-Count])) :-
    format(atom(PredText), "~w", [Pred]),
    where(Game, Pred, Where).

%!  where(+Game, +Name/Arity, -Where:atom) is det.
%   "file:line" of the game's first clause for Name/Arity (for a family,
%   the first whose file is the game's), else of its game/1 clause.
where(Game, Pred, Where) :-
    gdl:gdl_where(Game, Pred, Where), !.                 % a GDL game: the line of the rule behind Pred
where(Game, Name/Arity, Where) :-
    game_file(Game, File),
    functor(Head, Name, Arity),
    (   Arity > 0 -> arg(1, Head, Game) ; true ),
    (   catch(game:protocol_clause(Head, _, Ref), _, fail),
        clause_property(Ref, file(File)),
        clause_property(Ref, line_count(Line))
    ->  format(atom(Where), "~w:~w", [File, Line])
    ;   game_clause(Game, Ref), clause_property(Ref, line_count(Line))
    ->  format(atom(Where), "~w:~w", [File, Line])
    ;   Where = File
    ).

game_file(Game, File) :-
    (   gdl:gdl_file(Game, File0) -> File = File0          % a GDL game: its .kif file
    ;   game_clause(Game, Ref), clause_property(Ref, file(File0)) -> File = File0
    ;   File = ''
    ).

%   The game/1 clause that answers for Game.
game_clause(Game, Ref) :-
    clause(game:game(Game), Body, Ref),
    catch(Body, _, fail),
    !.

%   A0 read on by one more base-4 digit C (a helper, not a lambda: a lambda is copied at every call).
base4(C, A0, A) :- A is A0 * 4 + C.
