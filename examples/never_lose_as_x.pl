% educable rule set for tictactoe, written as a model of the notation.
%
% Each rule reads: if I see Condition, I play Action.
%   rule(Condition, Action, Priority, Weight).
% Condition  the board as the player to move sees it, one symbol a cell,
%            rows of 3 from the top, '/' between rows:
%              m  my piece       t  their piece
%              .  empty          *  anything
% Action     the move to play, as tictactoe writes moves (e.g. '5'); it
%            must be legal in every position the condition matches.
% Priority   an integer from 0; Weight a number (points the rule has won).
%
% Choosing a move (Gaia's "Ejemplos de Vida"): B = the rules whose condition matches; none:
% a random legal move.  Otherwise the rules of B with the highest priority,
% of those the ones with the highest weight, and a random one of those.
% Edit freely, then:  educable rules import FILE.pl --agent NEW_NAME

% X (the first player) never loses with these rules: educable eval tictactoe NAME --exact
% 69 rules; made by scripts/make_never_lose_rules.py (see there how).

rule_set(tictactoe).

% Win: two of mine and an empty cell in a line; play the empty cell.
rule('.mm/***/***', '1', 3, 0).
rule('m.m/***/***', '2', 3, 0).
rule('mm./***/***', '3', 3, 0).
rule('***/.mm/***', '4', 3, 0).
rule('***/m.m/***', '5', 3, 0).
rule('***/mm./***', '6', 3, 0).
rule('***/***/.mm', '7', 3, 0).
rule('***/***/m.m', '8', 3, 0).
rule('***/***/mm.', '9', 3, 0).
rule('.**/m**/m**', '1', 3, 0).
rule('m**/.**/m**', '4', 3, 0).
rule('m**/m**/.**', '7', 3, 0).
rule('*.*/*m*/*m*', '2', 3, 0).
rule('*m*/*.*/*m*', '5', 3, 0).
rule('*m*/*m*/*.*', '8', 3, 0).
rule('**./**m/**m', '3', 3, 0).
rule('**m/**./**m', '6', 3, 0).
rule('**m/**m/**.', '9', 3, 0).
rule('.**/*m*/**m', '1', 3, 0).
rule('m**/*.*/**m', '5', 3, 0).
rule('m**/*m*/**.', '9', 3, 0).
rule('**./*m*/m**', '3', 3, 0).
rule('**m/*.*/m**', '5', 3, 0).
rule('**m/*m*/.**', '7', 3, 0).

% Block: two of theirs and an empty cell in a line; play the empty cell.
rule('.tt/***/***', '1', 2, 0).
rule('t.t/***/***', '2', 2, 0).
rule('tt./***/***', '3', 2, 0).
rule('***/.tt/***', '4', 2, 0).
rule('***/t.t/***', '5', 2, 0).
rule('***/tt./***', '6', 2, 0).
rule('***/***/.tt', '7', 2, 0).
rule('***/***/t.t', '8', 2, 0).
rule('***/***/tt.', '9', 2, 0).
rule('.**/t**/t**', '1', 2, 0).
rule('t**/.**/t**', '4', 2, 0).
rule('t**/t**/.**', '7', 2, 0).
rule('*.*/*t*/*t*', '2', 2, 0).
rule('*t*/*.*/*t*', '5', 2, 0).
rule('*t*/*t*/*.*', '8', 2, 0).
rule('**./**t/**t', '3', 2, 0).
rule('**t/**./**t', '6', 2, 0).
rule('**t/**t/**.', '9', 2, 0).
rule('.**/*t*/**t', '1', 2, 0).
rule('t**/*.*/**t', '5', 2, 0).
rule('t**/*t*/**.', '9', 2, 0).
rule('**./*t*/t**', '3', 2, 0).
rule('**t/*.*/t**', '5', 2, 0).
rule('**t/*t*/.**', '7', 2, 0).

% Open in the centre.
rule('.../.../...', '5', 1, 0).

% Boards where the rules above would allow a losing move: a move that keeps the draw.
rule('.t./.m./...', '1', 1, 0).
rule('.../tm./...', '1', 1, 0).
rule('.../.mt/...', '1', 1, 0).
rule('.../.m./.t.', '1', 1, 0).
rule('mt./.m./..t', '4', 1, 0).
rule('m../tm./..t', '2', 1, 0).
rule('tm./.m./.t.', '4', 1, 0).
rule('.mt/.m./.t.', '4', 1, 0).
rule('.tm/.m./t..', '6', 1, 0).
rule('..m/.mt/t..', '1', 1, 0).
rule('t../mmt/...', '2', 1, 0).
rule('.../mmt/t..', '2', 1, 0).
rule('t../.mt/..m', '7', 1, 0).
rule('t../.m./.tm', '3', 1, 0).
rule('.t./.m./tm.', '1', 1, 0).
rule('.t./.m./.mt', '1', 1, 0).
rule('..t/tmm/...', '1', 1, 0).
rule('..t/tm./m..', '8', 1, 0).
rule('..t/.m./mt.', '1', 1, 0).
rule('.../tmm/..t', '1', 1, 0).
