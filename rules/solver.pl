/*  The exact minimax solver (the tictac tutorial), tabled: every state is solved once.

    Values are from the mover's viewpoint: 1 win, 0 draw, -1 loss.

        ?- initial(tictactoe, P, M), state_value(tictactoe, P, M, V).
        V = 0.
*/
:- module(solver, [state_value/4, state_result/4, optimal_moves/4]).
:- use_module(game).

:- table state_value/4.

%!  state_value(+Game, +Pos, +Mover, -Value:integer) is det.
%   Value of the state under perfect play for Mover: 1, 0 or -1.
state_value(Game, Pos, Mover, Value) :-
    (   over(Game, Pos, Mover, Result)
    ->  result_value(Result, Mover, Value)
    ;   aggregate_all(max(V),
                      ( legal(Game, Pos, Mover, M),
                        next(Game, Pos, Mover, M, P1),
                        other_player(Game, Mover, O),
                        state_value(Game, P1, O, V1),
                        V is -V1 ),
                      Value)
    ).

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
    other_player(Game, Mover, O),
    findall(M, ( legal(Game, Pos, Mover, M),
                 next(Game, Pos, Mover, M, P1),
                 state_value(Game, P1, O, V1),
                 V =:= -V1 ),
            Moves).
