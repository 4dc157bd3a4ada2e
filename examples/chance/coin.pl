/*  A biased coin: the smallest game of chance, to copy when writing one.
    Before the toss the first player may stop for a draw; heads (three
    times in four) is its win, tails the second player's.  Try it:

        educable --games-dir examples/chance solve coin
        educable --games-dir examples/chance query coin 'start p1'

    The shipped games of chance (Pig, 2048, EinStein würfelt nicht!) are
    in rules/games/; docs/chance.md says what each relation means.
*/
:- module(coin, []).

game:game(coin).
game:players(coin, [p1, p2]).
game:initial(coin, start, p1).

game:legal(coin, start, p1, toss).
game:legal(coin, start, p1, stop).
game:legal(coin, tossing, chance, heads).       % chance moves at a chance node:
game:legal(coin, tossing, chance, tails).       % its outcomes

game:next(coin, start, p1, toss, tossing).
game:next(coin, start, p1, stop, stopped).
game:next(coin, tossing, chance, Side, Side).

%   Who moves next, chance included.
game:next_mover(coin, start, p1, tossing, chance) :- !.
game:next_mover(coin, _, _, _, p2).

%   Each outcome's weight: a positive integer or rational; they are made
%   exact probabilities (here 3/4 and 1/4).
game:chance_weight(coin, tossing, heads, 3).
game:chance_weight(coin, tossing, tails, 1).

game:over(coin, heads, _, p1).
game:over(coin, tails, _, p2).
game:over(coin, stopped, _, draw).

game:position_text(coin, P, M, T) :- format(atom(T), "~w ~w", [P, M]).
game:parse_position(coin, T, P, M) :- atomic_list_concat([P, M], ' ', T).
game:parse_move(coin, T, T).
game:move_text(coin, M, M).
game:board_lines(coin, P, _, [P]).
