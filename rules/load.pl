/*  Load everything: the protocol, every game under games/, the solver, the
    state graph and the play loop.   swipl rules/load.pl
*/
:- prolog_load_context(directory, Dir),
   atomic_list_concat([Dir, '/core.pl'], Core),
   consult(Core).

:- prolog_load_context(directory, Dir),
   atomic_list_concat([Dir, '/games/*.pl'], Pattern),
   expand_file_name(Pattern, Files),
   forall(member(F, Files), use_module(F)).
