/*  The exact minimax solver (the tictac tutorial), tabled: every state is solved once.

    Values are from the mover's viewpoint: 1 win, 0 draw, -1 loss; a
    successor's value is negated only when the turn passes (a player may
    move twice in a row).

        ?- initial(tictactoe, P, M), state_value(tictactoe, P, M, V).
        V = 0.
*/
:- module(solver, [state_value/4, state_result/4, optimal_moves/4]).
:- use_module(game).

:- table state_value/4.

%!  state_value(+Game, +Pos, +Mover, -Value:integer) is det.
%   Value of the state under perfect play for Mover: 1, 0 or -1.
state_value(Game, Pos, Mover, Value) :-
    (   chance_mover(Mover)
    ->  bad_input("minimax searches games without chance; this game has chance nodes (expectimax is not built yet)")
    ;   over(Game, Pos, Mover, Result)
    ->  result_value(Result, Mover, Value)
    ;   aggregate_all(max(V),
                      ( legal(Game, Pos, Mover, M),
                        step(Game, Pos, Mover, M, P1, M1),
                        state_value(Game, P1, M1, V1),
                        seen_by(Mover, M1, V1, V) ),
                      Value)
    ).

%   The value V1 of a state for its mover M1, as Mover (who moved there) sees it.
seen_by(Mover, M1, V1, V) :- ( Mover == M1 -> V = V1 ; V is -V1 ).

result_value(draw, _, 0) :- !.
result_value(Mover, Mover, 1) :- !.
result_value(_, _, -1).

%!  state_result(+Game, +Pos, +Mover, -Result) is det.
%   The result under perfect play: the winner's name or `draw`.
state_result(Game, Pos, Mover, Result) :-
    state_value(Game, Pos, Mover, V),
    (   V =:= 0 -> Result = draw
    ;   V =:= 1 -> Result = Mover
    ;   other_player(Game, Mover, Result)
    ).

%!  optimal_moves(+Game, +Pos, +Mover, -Moves:list) is det.
%   The legal moves that keep the state's value, in the game's order.
optimal_moves(Game, Pos, Mover, Moves) :-
    state_value(Game, Pos, Mover, V),
    findall(M, ( legal(Game, Pos, Mover, M),
                 step(Game, Pos, Mover, M, P1, M1),
                 state_value(Game, P1, M1, V1),
                 seen_by(Mover, M1, V1, V) ),
            Moves).
