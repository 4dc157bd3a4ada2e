/*  The board of a GDL game, found from its states: which fluent is the
    grid, how to draw it, and which of the grid's rotations and reflections
    are symmetries of the game.

    A GDL file says nothing about boards: its states are sets of fluents.
    Educable samples states (the start and the states of a few playouts,
    the same ones every time) and takes as the board the fluent
    Name(X, Y, Mark) whose first two arguments take the most (X, Y) pairs:
    (cell ?r ?c ?mark) in ggp-base's tic-tac-toe, (mark ...), (piece ...)
    or any other name.  Its X values are the rows and its Y values the
    columns, in standard order (numbers by value).

    Candidate symmetries are the grid's reflections and rotations (eight
    on a square grid, four on another), acting on the board fluent's
    coordinates only.  A candidate is kept only when the rules agree on
    every sampled state S: its image has the same mover and the same result
    (or none), and the images of S's successors are exactly the successors
    of S's image, with the same movers.  A rule that mentions coordinates
    elsewhere (a last-move fluent, say) makes its candidates fail, so a
    game is folded only by symmetries its own rules bear out on the
    samples.
*/
:- module(gdl_board, [board_grid/4, board_symmetries/2, board_image/4, forget_board/1]).
:- use_module(game).

:- dynamic known_grid/2.          % known_grid(Game, grid(Name, Xs, Ys) or none)
:- dynamic known_symmetries/2.    % known_symmetries(Game, [t(Transpose, FlipRows, FlipColumns), ...])

playouts(30).                     % sampled games ...
playout_plies(80).                % ... of at most this many moves
max_grid_cells(1024).

%!  forget_board(+Game) is det.
%   Drop what is known of Game's board (its file is being unloaded).
forget_board(Game) :-
    retractall(known_grid(Game, _)),
    retractall(known_symmetries(Game, _)).

%!  board_grid(+Game, -Name, -Xs:list, -Ys:list) is semidet.
%   The board fluent Name(X, Y, Mark) of Game, X over Xs (rows) and Y over
%   Ys (columns).  Fails when no fluent of sampled states has that shape.
board_grid(Game, Name, Xs, Ys) :-
    (   known_grid(Game, Grid) -> true
    ;   find_grid(Game, Grid),
        assertz(known_grid(Game, Grid))
    ),
    Grid = grid(Name, Xs, Ys).

find_grid(Game, Grid) :-
    sample_states(Game, States),
    findall(F-(X-Y), ( member(S-_, States), member(T, S), compound(T),
                       compound_name_arity(T, F, 3), arg(1, T, X), arg(2, T, Y),
                       atomic(X), atomic(Y) ), Pairs0),
    sort(Pairs0, Pairs),
    findall(N-F, ( setof(P, member(F-P, Pairs), Ps), length(Ps, N0), N = N0 ), Sizes0),
    sort(1, @>=, Sizes0, Sizes),
    max_grid_cells(Max),
    (   member(_-F, Sizes),
        findall(X, member(F-(X-_), Pairs), Xs0), sort(Xs0, Xs),
        findall(Y, member(F-(_-Y), Pairs), Ys0), sort(Ys0, Ys),
        length(Xs, NX), length(Ys, NY),
        NX >= 2, NY >= 2, NX * NY =< Max
    ->  Grid = grid(F, Xs, Ys)
    ;   Grid = none
    ).

%!  board_symmetries(+Game, -Transforms:list) is det.
%   The grid transforms the rules bear out (not the identity); [] when the
%   game has no board or none holds.
board_symmetries(Game, Ts) :-
    (   known_symmetries(Game, Ts0) -> Ts = Ts0
    ;   (   board_grid(Game, F, Xs, Ys)
        ->  sample_states(Game, States),
            findall(T, ( candidate(Xs, Ys, T),
                         forall(member(S-M, States), bears(Game, grid(F, Xs, Ys), T, S, M)) ), Ts0)
        ;   Ts0 = []
        ),
        assertz(known_symmetries(Game, Ts0)),
        Ts = Ts0
    ).

candidate(Xs, Ys, t(Transpose, FlipRows, FlipColumns)) :-
    length(Xs, NX), length(Ys, NY),
    member(Transpose, [false, true]),
    ( Transpose == true -> NX =:= NY ; true ),
    member(FlipRows, [false, true]),
    member(FlipColumns, [false, true]),
    t(Transpose, FlipRows, FlipColumns) \== t(false, false, false).

%   The rules agree that T maps state S (Mover to move) onto a state like it.
bears(Game, Grid, T, S, Mover) :-
    image(Grid, T, S, S1),
    gdl:gdl_game(Game, Module),
    gdl:state_mover(Game, Module, S1, Mover),
    result(Game, S, Mover, R),
    result(Game, S1, Mover, R),
    next_states(Game, S, Mover, Next0),
    maplist(image_pair(Grid, T), Next0, Next1),
    sort(Next1, Expected),
    next_states(Game, S1, Mover, Got),
    Got == Expected.

result(Game, S, Mover, R) :- ( game:over(Game, S, Mover, R0) -> R = R0 ; R = none ).

%   The states S leads to, as State/Mover, whatever the moves are called.
next_states(Game, S, Mover, Next) :-
    (   game:over(Game, S, Mover, _)
    ->  Next = []
    ;   successors(Game, S, Mover, Pairs),
        findall(P, member(_-P, Pairs), Next0),
        sort(Next0, Next)
    ).

image_pair(Grid, T, S/M, S1/M) :- image(Grid, T, S, S1).

%!  board_image(+Game, +State, -Image, +Transform) is semidet.
%   Image is State under the grid transform; fails where a board fluent
%   has a coordinate off the grid.
board_image(Game, S, S1, T) :-
    board_grid(Game, F, Xs, Ys),
    image(grid(F, Xs, Ys), T, S, S1).

image(Grid, T, S, S1) :-
    maplist(fluent_image(Grid, T), S, S0),
    sort(S0, S1).

fluent_image(grid(F, Xs, Ys), T, Fluent, Image) :-
    (   compound(Fluent), compound_name_arguments(Fluent, F, [X, Y, Mark])
    ->  nth0(I, Xs, X), nth0(J, Ys, Y), !,
        length(Xs, NX), length(Ys, NY),
        T = t(Transpose, FlipRows, FlipColumns),
        ( FlipRows == true -> I1 is NX - 1 - I ; I1 = I ),
        ( FlipColumns == true -> J1 is NY - 1 - J ; J1 = J ),
        ( Transpose == true -> I2 = J1, J2 = I1 ; I2 = I1, J2 = J1 ),
        nth0(I2, Xs, X2), nth0(J2, Ys, Y2),
        compound_name_arguments(Image, F, [X2, Y2, Mark])
    ;   Image = Fluent
    ).

%   The start and the states of a few playouts, each with its mover; the
%   moves are picked by a fixed sequence, so every run samples the same.
sample_states(Game, States) :-
    game:initial(Game, S0, M0),
    playouts(N), playout_plies(Plies),
    findall(Sample, ( between(1, N, K),
                      catch(playout(Game, S0, M0, K, Plies, Sample), educable_error(_), fail) ), Samples0),
    sort([S0-M0|Samples0], States).

playout(_, S, M, _, _, S-M).
playout(Game, S, M, Seed, Plies, Sample) :-
    Plies > 0,
    \+ game:over(Game, S, M, _),
    findall(Move, game:legal(Game, S, M, Move), Moves),
    length(Moves, L), L > 0,
    Seed1 is (Seed * 1103515245 + 12345) mod 2147483648,
    Pick is (Seed1 >> 8) mod L,
    nth0(Pick, Moves, Move),
    step(Game, S, M, Move, S1, M1),
    Plies1 is Plies - 1,
    playout(Game, S1, M1, Seed1, Plies1, Sample).
