/*  The game protocol.

    A game is one file under rules/games/ that adds clauses for its own name
    to the multifile predicates below (GDL-like: role/init/legal/next/
    terminal/goal).  Nothing outside that file knows a game's rules.

    A *state* is a position together with the player to move.  Results are
    the winning player's name or the atom `draw`.

    Load by hand:  swipl rules/load.pl
                   ?- initial(tictactoe, P, M), legal(tictactoe, P, M, Move).
*/
:- module(game,
          [ game/1,                 % ?Game
            players/2,              % ?Game, -Players
            initial/3,              % ?Game, -Pos, -Mover
            legal/4,                % +Game, +Pos, +Mover, -Move
            next/5,                 % +Game, +Pos, +Mover, +Move, -Pos1
            next_mover/5,           % +Game, +Pos, +Mover, +Pos1, -Mover1
            over/4,                 % +Game, +Pos, +Mover, -Result
            parse_position/4,       % +Game, +Text, -Pos, -Mover
            position_text/4,        % +Game, +Pos, +Mover, -Text
            parse_move/3,           % +Game, +Text, -Move
            move_text/3,            % +Game, +Move, -Text
            board_lines/4,          % +Game, +Pos, +Mover, -Lines
            symmetry/3,             % +Game, +Pos, -Pos1
            cells/4,                % +Game, +Pos, +Mover, -Cells
            setup_text/4,           % +Game, +Cells, +Mover, -Text
            drawn_as/2,             % +Game, -Drawing
            cell_values/2,          % +Game, -Values
            sees/4,                 % +Game, +Pos, +Player, -View
            rows_text/5,            % +Cells, +Columns, +Order, +Marks, -Text
            tuple_cells/4,          % +Game, +Pos, +Mover, -Cells
            tuple_code/4,           % +Game, +Pos, +Mover, -Code
            learner_cells/4,        % +Game, +Pos, +Mover, -Cells
            line/2,                 % ?Game, -Squares
            cells_code/4,           % +Game, +Pos, +Mover, -Code
            other_player/3,         % +Game, +Player, -Other
            endless_plies/1,        % -Plies
            mover_after/5,          % +Game, +Pos, +Mover, +Pos1, -Mover1
            step/6,                 % +Game, +Pos, +Mover, +Move, -Pos1, -Mover1
            legal_moves/4,          % +Game, +Pos, +Mover, -Moves
            successors/4,           % +Game, +Pos, +Mover, -MovePosPairs
            canonical/4,            % +Game, +Pos, +Mover, -Key
            least_image/3,          % +Game, +Pos, -Least
            least_image/4,          % +Game, +Pos, -Least, -Images
            image/3,                % +Game, +Pos, -Pos1
            declares/2,             % +Game, +What
            protocol_clause/3,      % +Head, -Body, -Ref
            play_move/6,            % +Game, +Pos, +Mover, +Move, -Pos1, -Mover1
            bad_input/1,            % +Message
            shown/2,                % +Text, -Quoted
            chance_mover/1,         % ?Mover
            outcome_weight/4,       % +Game, +Pos, +Outcome, -Weight
            move_points/5,          % +Game, +Pos, +Mover, +Move, -Points
            via_legal/5,            % +Route, +Game, +Pos, +Mover, -Move
            via_over/5,             % +Route, +Game, +Pos, +Mover, -Result
            via_position_text/5,    % +Route, +Game, +Pos, +Mover, -Text
            via_step/7,             % +Route, +Game, +Pos, +Mover, +Move, -Pos1, -Mover1
            via_outcome_weight/5,   % +Route, +Game, +Pos, +Outcome, -Weight
            via_move_points/6       % +Route, +Game, +Pos, +Mover, +Move, -Points
          ]).

%!  game(?Game) is nondet.
%   Game is a loaded game.
%!  players(?Game, -Players:list) is nondet.
%   Players in turn order; the first moves first.  One player makes a
%   game of score (2048): it ends with a score, not a winner, and the
%   player seeks the highest expected score.
%!  initial(?Game, -Pos, -Mover) is nondet.
%!  legal(+Game, +Pos, +Mover, -Move) is nondet.
%   Move is legal for Mover in Pos (only called on positions not over).
%!  next(+Game, +Pos, +Mover, +Move, -Pos1) is det.
%   Pos1 is the position after Mover plays the legal Move.
%!  next_mover(+Game, +Pos, +Mover, +Pos1, -Mover1) is semidet.
%   Mover1 is to move in Pos1, reached by Mover's move from Pos.  Optional:
%   a game whose turns always alternate leaves it out; one where a player
%   may move again (dots and boxes after completing a box) says who moves.
%!  chance_weight(+Game, +Pos, +Outcome, -Weight) is semidet.
%   Games of chance: a state whose mover is `chance` is a chance node, its
%   legal/4 moves are the outcomes (a die's faces, a tile and where it
%   falls) and next/5 plays them as any move.  Weight is the outcome's
%   weight, a positive integer or rational (1r10), never a float: its
%   probability is its weight over the node's total, computed exactly.
%   Optional: without it every outcome of a node is equally likely (a die,
%   GDL-II's `random` role).  A game of chance says who moves after each
%   move with next_mover/5, the chance nodes included.
%!  over(+Game, +Pos, +Mover, -Result) is semidet.
%   The game is over with Mover to move; Result is the winner or `draw`,
%   or in a game of score (one player) score(N): N more points for how it
%   ended (score(0) where the moves' points are the whole score).
%!  points(+Game, +Pos, +Mover, +Move, -Points) is semidet.
%   Games of score: the points Mover's Move scores (2048: the merged
%   tiles' values).  A game's score is its moves' points and the N of
%   its end, added up.  Points are integers or rationals.  Optional:
%   without it a move scores nothing.
%!  parse_position(+Game, +Text, -Pos, -Mover) is det.
%   Parse the text form of a state; throws educable_error(Message) on bad text.
%!  position_text(+Game, +Pos, +Mover, -Text:atom) is det.
%   The text form of a state; parse_position/4 reads it back.
%!  parse_move(+Game, +Text, -Move) is det.
%   Throws educable_error(Message) on bad text.
%!  move_text(+Game, +Move, -Text:atom) is det.
%!  board_lines(+Game, +Pos, +Mover, -Lines:list(string)) is det.
%   A drawing of the board for people, one string a line.
%!  symmetry(+Game, +Pos, -Pos1) is nondet.
%   Pos1 is an image of Pos under one of the game's symmetries (the identity
%   included).  Optional: games without clauses have only the identity.
%!  cells(+Game, +Pos, +Mover, -Cells:list(integer)) is det.
%   The board as seen by Mover, one cell a square: 0 empty, 1 Mover's,
%   2 the opponent's (the CA425 practical's state x).  Optional: needed only by
%   learners that enumerate every board (Q-learning's full table) and by
%   rule-set agents, whose conditions are written over these cells.
%!  setup_text(+Game, +Cells:list(integer), +Mover, -Text:atom) is det.
%   The text form (as parse_position/4 reads it) of the board whose cells,
%   as the first player sees them (cells/4's order: 0 empty, 1 the first
%   player's, 2 the second's), are Cells, with Mover to move where the text
%   can say so: how the page sets a position up by clicks.  Whether the
%   position can happen is parse_position/4's to say, as for typed text.
%   Optional: without it a position is typed.  check holds it to give back
%   the position the cells were read from.
%!  tuple_cells(+Game, +Pos, +Mover, -Cells:list(integer)) is det.
%   The cells the n-tuple learner reads, where they should say more than
%   cells/4 (same cells, same order; values 0-63).  Optional: without it
%   the learner reads cells/4.  Connect Four gives its empty cells that a
%   piece can drop into next a value of their own (3), as the Connect Four
%   board vector of Thill and Konen's GBG does.
%!  tuple_code(+Game, +Pos, +Mover, -Code:integer) is det.
%   The cells the n-tuple learner reads (tuple_cells/4, else cells/4) as
%   one number, 2 bits a cell, the first cell most significant: for a game
%   whose learner cells are 0-3 and whose board is a number already, so
%   that self-play skips building the list.  Optional, a speed-up only:
%   check holds it equal to the cells wherever it is defined.
%!  line(?Game, -Squares:list(integer)) is nondet.
%   Squares (1-based cell numbers) that make a line, for the genetic
%   learner's biased rule generation ("Ejemplos de Vida"'s "two in a line and an
%   empty square").  Optional.
%!  layout(?Game, -Columns:integer, -Order) is semidet.
%   Cells 1.. of cells/4 lie in rows of Columns; Order is `top` when `show`
%   draws cell 1's row at the top, `bottom` when at the bottom.  Rule-set
%   conditions are written in the same rows.  Optional: without it, a
%   square board from cell 1.
%!  drawn_as(+Game, -Drawing) is semidet.
%   How the page draws a board that is not a grid of pieces:
%   dots_and_boxes(Rows, Columns), its cells/4 being each line (0 not
%   drawn, 1 drawn: the horizontal ones row by row from the top, then the
%   vertical ones) and then each box (0 nobody's, 1 and 2 as for pieces);
%   tiles(Rows, Columns), 2048's tiles, cells/4 giving each square's tile
%   as a power of two (0 empty, 1 a 2, 2 a 4, ...), moved by the arrow
%   keys (moves up, down, left, right); dice(Faces), a game whose chance
%   moves are a die's faces 1..Faces: the page draws the face last read.
%   Optional: without it, cells/4 in the rows of layout/3.
%!  cell_values(+Game, -Values:integer) is semidet.
%   cells/4 gives whole numbers from 0 to Values - 1 in every position
%   (2048: a tile's power; Pig: the scores and the turn total): an
%   environment of the field sizes its observation by it, one plane a
%   value, without enumerating the state graph.  Optional: without it,
%   the largest value of the state graph where it fits.
%!  sees(+Game, +Pos, +Player, -View:atom) is det.
%   Games of hidden information (Kuhn poker, Leduc hold'em, Liar's Dice):
%   View is what Player sees in Pos: its own cards or dice, the public
%   ones and the moves it was shown ('K pb').  A player's information set
%   is its view, so the view recalls everything the player saw and did
%   (perfect recall, which check verifies, as it verifies that a player's
%   legal moves depend on its view alone).  Such a game is two-player and
%   zero-sum: it ends with a winner, a draw, or payoff(N) (N to the first
%   player from the second).  Optional: without it every player sees the
%   whole position.
%!  actions(+Game, -Moves:list) is det.
%   Every move a player can ever make, each once, in a fixed order: the
%   numbers outside libraries give moves (PettingZoo's and OpenSpiel's
%   actions; the first is 0).  Optional: without it, the moves of the
%   game's state graph in the order of their texts, where the graph fits.
%!  chance_actions(+Game, -Outcomes:list) is det.
%   Every outcome chance can ever draw, each once, in a fixed order (the
%   numbers of OpenSpiel's chance outcomes).  Optional: a game of chance
%   that gives it and actions/2 becomes an environment of the field without
%   its state graph being enumerated.
%!  size_at_least(?Game, -Positions:integer) is nondet.
%   A known lower bound on the game's reachable positions (from the
%   literature), so that a game far too large to enumerate is refused at
%   once instead of after minutes of enumeration.  Optional.
%!  protocol_clause(+Head, -Body, -Ref) is nondet.
%   A clause a game file gave for the protocol goal Head (game:Head as the
%   file wrote it; see below), its body qualified by the file's module.
:- multifile game/1.
:- discontiguous game/1.

%   The protocol is indexed on the file that defines a game.  A game file
%   writes `game:legal(G, ...) :- Body` as the protocol says; loading stores
%   it as `game:'legal by file'(File, G, ...) :- Body`, File the file's path
%   (term_expansion below), and legal/4 asks only the clauses of the file
%   whose game/1 clause answers for G.  A call then costs the same however
%   many families of games are loaded (without it, every family's clauses
%   were tried: a family whose clauses take any name, as connect(N, W, H)
%   does, must look the name up first).  A name no game/1 answers for, or
%   a game not yet named, asks every file's clauses in the order loaded, as
%   a plain multifile predicate would.
indexed(players/2).         indexed(initial/3).         indexed(legal/4).
indexed(next/5).            indexed(over/4).            indexed(parse_position/4).
indexed(position_text/4).   indexed(parse_move/3).      indexed(move_text/3).
indexed(board_lines/4).     indexed(symmetry/3).        indexed(cells/4).
indexed(line/2).            indexed(size_at_least/2).   indexed(layout/3).
indexed(next_mover/5).      indexed(tuple_cells/4).     indexed(tuple_code/4).
indexed(setup_text/4).      indexed(drawn_as/2).        indexed(chance_weight/4).
indexed(points/5).          indexed(actions/2).         indexed(chance_actions/2).
indexed(cell_values/2).     indexed(sees/4).

%   Routed calls, for a hot loop (compiling a state graph) that decides once
%   a state how its calls reach the game: file(File) calls that file's
%   clauses directly, past the dispatch above and past any wrapper
%   (rules/guard.pl: only where the caller limits the whole step, or the
%   game is educable's own); protocol calls the protocol predicate, as
%   anyone else does.  via_Name(Route, Game, ...) for each routed Name.
routed(legal/4).  routed(over/4).  routed(position_text/4).  routed(next/5).
routed(next_mover/5).  routed(chance_weight/4).  routed(points/5).

%   Head (a protocol goal) as the goal on its file's clauses, File its first argument.
by_file(Head, File, ByFile) :-
    compound_name_arguments(Head, Name, Args),
    atom_concat(Name, ' by file', FileName),
    compound_name_arguments(ByFile, FileName, [File|Args]).

:- forall(indexed(Name/Arity),
          ( atom_concat(Name, ' by file', FileName), A1 is Arity + 1,
            multifile(FileName/A1), discontiguous(FileName/A1) )).

%   The protocol predicates themselves: the owning file's clauses.
%   The first clause is the usual case, a name owned by one file (known
%   since its first call), with no call between the goal and the clauses.
term_expansion(protocol_dispatch, Clauses) :-
    findall(Clause,
            ( indexed(Name/Arity), functor(Head, Name, Arity), arg(1, Head, Game),
              by_file(Head, File, ByFile),
              (   Clause = (Head :- atom(Game), owner_cache(Game, one(File)), !, ByFile)
              ;   Clause = (Head :- owner(Game, File), ByFile)
              ) ),
            Clauses).
%   The routed calls (routed/1 above): straight to the file's clauses, or the protocol's.
term_expansion(protocol_routes, Clauses) :-
    findall(Clause,
            ( routed(Name/Arity), functor(Head, Name, Arity), Head =.. [Name|Args],
              atom_concat(via_, Name, Via),
              (   Routed =.. [Via, file(File)|Args], by_file(Head, File, ByFile), Clause = (Routed :- ByFile)
              ;   Routed =.. [Via, protocol|Args], Clause = (Routed :- Head)
              ) ),
            Clauses).
protocol_dispatch.
protocol_routes.

:- dynamic owner_cache/2.           % owner_cache(Game, Files): one(File), some(Files) or any

%   File is the file of a game/1 clause that answers for Game; unbound
%   (every file) when Game is not a ground name or no game/1 answers.
owner(Game, File) :-
    (   atom(Game), owner_cache(Game, Files)
    ->  owned(Files, File)
    ;   ground(Game)
    ->  owners(Game, Files),
        owned(Files, File)
    ;   true
    ).

owned(one(File), File).
owned(some(Files), File) :- member(File, Files).
owned(any, _).

owners(Game, Files) :-
    (   atom(Game) -> assertz(owner_cache(Game, any)) ; true ),   % a game/1 body that asks the protocol: every file
    findall(F, ( clause(game(Game), Body, Ref), catch(Body, _, fail), clause_property(Ref, source(F)) ), Fs),
    list_to_set(Fs, Set),
    (   Set == [] -> Files = any ; Set = [F] -> Files = one(F) ; Files = some(Set) ),
    (   atom(Game) -> retractall(owner_cache(Game, _)), assertz(owner_cache(Game, Files)) ; true ).

protocol_clause(Head, Body, Ref) :-
    functor(Head, Name, Arity),
    (   indexed(Name/Arity)
    ->  by_file(Head, _, ByFile),
        clause(ByFile, Body, Ref)
    ;   clause(Head, Body, Ref)
    ).

%   Loading a game file: its protocol clauses go to the file's index; any
%   clause of the protocol (game/1 included) forgets the owners known.
:- multifile user:term_expansion/2.
:- dynamic user:term_expansion/2.
user:term_expansion(Clause, Indexed) :-
    (   Clause = (game:Head :- Body) -> true ; Clause = game:Head, Body = true ),
    callable(Head),
    prolog_load_context(module, Module),
    Module \== game,
    prolog_load_context(source, File),
    functor(Head, Name, Arity),
    (   Name/Arity == game/1
    ->  retractall(game:owner_cache(_, _)),
        fail
    ;   indexed(Name/Arity),
        retractall(game:owner_cache(_, _)),
        by_file(Head, File, ByFile),
        (   Body == true -> Indexed = game:ByFile ; Indexed = (game:ByFile :- Body) )
    ).


%!  via_step(+Route, +Game, +Pos, +Mover, +Move, -Pos1, -Mover1) is det.
%   step/6 through Route.
via_step(Route, Game, Pos, Mover, Move, Pos1, Mover1) :-
    via_next(Route, Game, Pos, Mover, Move, Pos1),
    (   via_next_mover(Route, Game, Pos, Mover, Pos1, M1)
    ->  Mover1 = M1
    ;   other_player(Game, Mover, Mover1)
    ).

%!  via_outcome_weight(+Route, +Game, +Pos, +Outcome, -Weight) is det.
%   outcome_weight/4 through Route.
via_outcome_weight(Route, Game, Pos, Outcome, Weight) :-
    (   via_chance_weight(Route, Game, Pos, Outcome, W) -> Weight = W ; Weight = 1 ).

%!  via_move_points(+Route, +Game, +Pos, +Mover, +Move, -Points) is det.
%   move_points/5 through Route.
via_move_points(Route, Game, Pos, Mover, Move, Points) :-
    (   via_points(Route, Game, Pos, Mover, Move, P) -> Points = P ; Points = 0 ).

%!  endless_plies(-Plies:integer) is det.
%   Moves after which a game being played (a random game of check, a game
%   of eval or training) is taken not to end: it is scored a draw, as solve
%   scores a line that never ends.
endless_plies(2000).

%!  chance_mover(?Mover) is semidet.
%   Mover moves for chance: the one mover that is never a player.
chance_mover(chance).

%!  outcome_weight(+Game, +Pos, +Outcome, -Weight) is det.
%   The weight of a chance node's Outcome: the game's chance_weight/4, else 1.
outcome_weight(Game, Pos, Outcome, Weight) :-
    (   chance_weight(Game, Pos, Outcome, W) -> Weight = W ; Weight = 1 ).

%!  move_points(+Game, +Pos, +Mover, +Move, -Points) is det.
%   The points Mover's Move scores: the game's points/5, else 0.
move_points(Game, Pos, Mover, Move, Points) :-
    (   points(Game, Pos, Mover, Move, P) -> Points = P ; Points = 0 ).

%!  other_player(+Game, +Player, -Other) is det.
%   The player who moves after Player (in a game of one player, Player).
other_player(Game, Player, Other) :-
    players(Game, Players),
    (   Players = [A, B]
    ->  (   Player == A -> Other = B ; Other = A )
    ;   Players = [Other]
    ).

%!  mover_after(+Game, +Pos, +Mover, +Pos1, -Mover1) is det.
%   Who moves in Pos1 after Mover's move from Pos: the game's next_mover/5
%   where it has one, else the other player.
mover_after(Game, Pos, Mover, Pos1, Mover1) :-
    (   next_mover(Game, Pos, Mover, Pos1, M1)
    ->  Mover1 = M1
    ;   other_player(Game, Mover, Mover1)
    ).

%!  step(+Game, +Pos, +Mover, +Move, -Pos1, -Mover1) is det.
%   The state after Mover plays Move: the position and who moves in it.
step(Game, Pos, Mover, Move, Pos1, Mover1) :-
    next(Game, Pos, Mover, Move, Pos1),
    mover_after(Game, Pos, Mover, Pos1, Mover1).

%!  legal_moves(+Game, +Pos, +Mover, -Moves:list) is det.
%   All legal moves, in the game's order; [] when the game is over.
legal_moves(Game, Pos, Mover, Moves) :-
    (   over(Game, Pos, Mover, _)
    ->  Moves = []
    ;   findall(M, legal(Game, Pos, Mover, M), Moves)
    ).

%!  successors(+Game, +Pos, +Mover, -Pairs:list) is det.
%   Move-(Pos1/Mover1) for every legal move: the state it leads to.
successors(Game, Pos, Mover, Pairs) :-
    legal_moves(Game, Pos, Mover, Moves),
    findall(M-(P1/M1), (member(M, Moves), step(Game, Pos, Mover, M, P1, M1)), Pairs).

%!  play_move(+Game, +Pos, +Mover, +Move, -Pos1, -Mover1) is det.
%   Like step/6, but checks that Move is legal (educable_error otherwise).
play_move(Game, Pos, Mover, Move, Pos1, Mover1) :-
    (   \+ over(Game, Pos, Mover, _), legal(Game, Pos, Mover, Move)
    ->  step(Game, Pos, Mover, Move, Pos1, Mover1)
    ;   move_text(Game, Move, T),
        position_text(Game, Pos, Mover, PT),
        format(atom(Msg), "illegal move ~w in ~w", [T, PT]),
        bad_input(Msg)
    ).

%!  canonical(+Game, +Pos, +Mover, -Key:atom) is det.
%   The text form of the least (standard order) symmetric image of the
%   state: one key for every member of a symmetry class.
canonical(Game, Pos, Mover, Key) :-
    least_image(Game, Pos, Least),
    position_text(Game, Least, Mover, Key).

%!  least_image(+Game, +Pos, -Least) is det.
%   The least (standard order) of Pos's symmetric images: the position
%   that stands for its class.
least_image(Game, Pos, Least) :-
    least_image(Game, Pos, Least, _).

%!  least_image(+Game, +Pos, -Least, -Images:list) is det.
%   The least of Pos's symmetric images, and all of them (Pos itself
%   among them; an image may come twice when Pos is symmetric).
least_image(Game, Pos, Least, Images) :-
    findall(P1, image(Game, Pos, P1), Images),
    min_member(Least, Images).

%!  image(+Game, +Pos, -Pos1) is nondet.
%   Pos1 is an image of Pos under one of the game's symmetries (Pos itself
%   when the game declares none).
image(Game, Pos, Pos1) :-
    findall(P, symmetry(Game, Pos, P), Images),
    (   Images == []
    ->  Pos1 = Pos
    ;   member(Pos1, Images)
    ).

%!  declares(+Game, +What) is semidet.
%   Game's file defines the optional part What: cells (cells/4),
%   tuple_cells, tuple_code, setup_text, sees (hidden information) or
%   next_mover (a player may move again).  Asked of
%   the game itself, at its start (a clause of another game's family may
%   match any name).
declares(Game, cells) :- initial(Game, P, M), catch(cells(Game, P, M, _), _, fail), !.
declares(Game, tuple_cells) :- initial(Game, P, M), catch(tuple_cells(Game, P, M, _), _, fail), !.
declares(Game, tuple_code) :- initial(Game, P, M), catch(tuple_code(Game, P, M, _), _, fail), !.
declares(Game, setup_text) :-
    initial(Game, P, M), players(Game, [First|_]),
    catch(( cells(Game, P, First, Cells), setup_text(Game, Cells, M, _) ), _, fail), !.
declares(Game, sees) :-
    initial(Game, P, _), players(Game, [First|_]),
    catch(sees(Game, P, First, _), _, fail), !.
declares(Game, next_mover) :-          % a clause in Game's file (any file's, for a name no game/1 answers)
    owner(Game, File),
    (   var(File)
    ->  true
    ;   by_file(next_mover(Game, _, _, _, _), File, ByFile),
        clause(ByFile, _)
    ),
    !.

%!  rows_text(+Cells:list(integer), +Columns:integer, +Order, +Marks:list(atom), -Text:atom) is det.
%   Cells (0, 1 or 2) as rows of Columns marks (Marks: the empty cell's,
%   the first player's, the second's) separated by /, the top row first;
%   Order says where cell 1's row is (`top` or `bottom`), as layout/3 does.
%   The text form of the board games whose text is their rows.
rows_text(Cells, Columns, Order, Marks, Text) :-
    Marks = [E, F, S],
    maplist(cell_mark(E, F, S), Cells, Chars),
    rows_of(Chars, Columns, Rows0),
    (   Order == bottom -> reverse(Rows0, Rows) ; Rows = Rows0 ),
    maplist(chars_atom, Rows, Atoms),
    atomic_list_concat(Atoms, /, Text).

cell_mark(E, _, _, 0, E).
cell_mark(_, F, _, 1, F).
cell_mark(_, _, S, 2, S).

chars_atom(Chars, Atom) :- atom_chars(Atom, Chars).

%   A0 read on by one more base-3 digit C (a helper, not a lambda: a lambda is copied at every call).
base3(C, A0, A) :- A is A0 * 3 + C.

rows_of([], _, []) :- !.
rows_of(Chars, N, [Row|Rows]) :-
    length(Row, N),
    append(Row, Rest, Chars),
    rows_of(Rest, N, Rows).

%!  learner_cells(+Game, +Pos, +Mover, -Cells:list(integer)) is det.
%   What the n-tuple learner reads of a state: tuple_cells/4 where the game
%   gives it, else cells/4.
learner_cells(Game, Pos, Mover, Cells) :-
    (   tuple_cells(Game, Pos, Mover, Cells0)
    ->  Cells = Cells0
    ;   cells(Game, Pos, Mover, Cells)
    ).

%!  shown(+Text, -Quoted:atom) is det.
%   Text as it appears in an error message: quoted, control characters escaped.
shown(Text, Quoted) :-
    atom_string(A, Text),
    format(atom(Quoted), "~q", [A]).

%!  cells_code(+Game, +Pos, +Mover, -Code:integer) is det.
%   The cells read as a base-3 number, first cell most significant.
cells_code(Game, Pos, Mover, Code) :-
    (   cells(Game, Pos, Mover, Cells)
    ->  (   member(C, Cells), \+ memberchk(C, [0, 1, 2])
        ->  format(atom(M), "game ~w's cells/4 gives the value ~w; the full table needs cells of 0, 1 or 2", [Game, C]),
            bad_input(M)
        ;   foldl(base3, Cells, 0, Code)
        )
    ;   format(atom(M), "game ~w does not define cells/4 (needed for the full table)", [Game]),
        bad_input(M)
    ).

%!  bad_input(+Message) is det.
%   Throw the error the bridge reports to people as one line.
bad_input(Message) :-
    throw(educable_error(Message)).

:- multifile prolog:message//1.
prolog:message(educable_error(Msg)) --> [ '~w'-[Msg] ].
