/*  Everything but the games: the protocol, the solver, the state graph,
    the play loop, the learners' agents and the bridge's helpers.  The
    bridge loads this, then each game file on its own (so that one broken
    game file does not stop the others); rules/load.pl loads it and every
    game, for a plain swipl.
*/
:- use_module(game).
:- use_module(solver).
:- use_module(graph).
:- use_module(play).
:- use_module(search).
:- use_module(json_out).
:- use_module(punish).
:- use_module(qtable).
:- use_module(ntuple).
:- use_module(adversary).
:- use_module(ruleset).
:- use_module(race).
:- use_module(check).
:- use_module(gdl).
:- use_module(guard).

