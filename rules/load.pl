/*  Load everything: the protocol, every game under games/, the solver, the
    state graph and the play loop.   swipl rules/load.pl
*/
:- use_module(game).
:- use_module(solver).
:- use_module(graph).
:- use_module(play).
:- use_module(search).
:- use_module(json_out).
:- use_module(punish).
:- use_module(qtable).
:- use_module(adversary).
:- use_module(ruleset).
:- use_module(race).

:- prolog_load_context(directory, Dir),
   atomic_list_concat([Dir, '/games/*.pl'], Pattern),
   expand_file_name(Pattern, Files),
   forall(member(F, Files), use_module(F)).
